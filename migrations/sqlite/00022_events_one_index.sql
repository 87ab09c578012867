-- +goose Up
-- One index on events where there were two (docs/performance.md, "The
-- tracked event, fourth pass"). Every tracked event wrote a random leaf in
-- each of events_by_contact (contact_id, name, created_at) and
-- events_by_name_contact (project_id, name, contact_id, created_at): two of
-- the three WAL frames an event adds to a commit, two B-tree inserts.
--
-- events_by_name_contact serves every read: the segment engine and the
-- bitmaps stream a name's contacts from it, and the audience-count
-- triggers' probe for another event of (contact, name) names the project,
-- the name and the contact, a seek in it. events_by_contact was left for
-- the foreign key on contact_id alone: SQLite looks a deleted contact's
-- events up by contact_id, and without an index led by it that lookup is
-- a scan of every event. So the foreign key goes, and what it did is done
-- by triggers that read the index that stays:
--   * an event names an existing contact or none (events_contact_exists,
--     the same check, the same message);
--   * deleting a contact deletes its events (events_contact_delete), by
--     seeking (project, name, contact) for each event name the project's
--     contacts have: audience_counts holds exactly those names (kind 3,
--     one row per name with n > 0 contacts), a few rows where a scan of
--     the key (project_id, name) would read every event of the project.
--     The ids are selected INDEXED BY it, then deleted by primary key:
--     without statistics the planner prefers the primary key's
--     (project_id), every event of the project, and a trigger's DELETE
--     may not name an index.
-- The project's foreign key stays (the primary key serves its cascade).
--
-- SQLite cannot drop a column's constraint in place: the table is built
-- again with the same columns, rows, primary key and clustering.
CREATE TABLE events_rebuilt (
    project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    id         TEXT NOT NULL,
    contact_id TEXT,
    name       TEXT NOT NULL,
    data       TEXT NOT NULL DEFAULT '{}',
    created_at INTEGER NOT NULL,
    PRIMARY KEY (project_id, id)
) WITHOUT ROWID;
INSERT INTO events_rebuilt (project_id, id, contact_id, name, data, created_at)
SELECT project_id, id, contact_id, name, data, created_at FROM events;
DROP TABLE events;
ALTER TABLE events_rebuilt RENAME TO events;
CREATE INDEX events_by_name_contact ON events (project_id, name, contact_id, created_at);

-- +goose StatementBegin
CREATE TRIGGER events_contact_exists BEFORE INSERT ON events
WHEN NEW.contact_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM contacts WHERE id = NEW.contact_id) BEGIN
    SELECT RAISE(ABORT, 'FOREIGN KEY constraint failed');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER events_contact_moved BEFORE UPDATE OF contact_id ON events
WHEN NEW.contact_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM contacts WHERE id = NEW.contact_id) BEGIN
    SELECT RAISE(ABORT, 'FOREIGN KEY constraint failed');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER events_contact_delete BEFORE DELETE ON contacts BEGIN
    DELETE FROM events
    WHERE project_id = OLD.project_id
      AND id IN (SELECT id FROM events INDEXED BY events_by_name_contact
                 WHERE project_id = OLD.project_id
                   AND name IN (SELECT key FROM audience_counts WHERE project_id = OLD.project_id AND kind = 3)
                   AND contact_id = OLD.id);
END;
-- +goose StatementEnd

-- 00019's event triggers, probing events_by_name_contact.
-- +goose StatementBegin
CREATE TRIGGER audience_counts_event_insert AFTER INSERT ON events WHEN NEW.contact_id IS NOT NULL BEGIN
    INSERT INTO audience_counts (project_id, kind, key, value, n)
    SELECT NEW.project_id, 3, NEW.name, '', 1
    WHERE NOT EXISTS (SELECT 1 FROM events INDEXED BY events_by_name_contact
                      WHERE project_id = NEW.project_id AND name = NEW.name AND contact_id = NEW.contact_id
                        AND id <> NEW.id)
    ON CONFLICT DO UPDATE SET n = n + 1, v = v + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER audience_counts_event_delete AFTER DELETE ON events WHEN OLD.contact_id IS NOT NULL BEGIN
    UPDATE audience_counts SET n = n - 1, v = v + 1
    WHERE project_id = OLD.project_id AND kind = 3 AND key = OLD.name AND value = ''
      AND NOT EXISTS (SELECT 1 FROM events INDEXED BY events_by_name_contact
                      WHERE project_id = OLD.project_id AND name = OLD.name AND contact_id = OLD.contact_id);
    DELETE FROM audience_counts
    WHERE project_id = OLD.project_id AND kind = 3 AND key = OLD.name AND value = '' AND n = 0;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER events_contact_delete;
CREATE TABLE events_rebuilt (
    project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    id         TEXT NOT NULL,
    contact_id TEXT REFERENCES contacts (id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    data       TEXT NOT NULL DEFAULT '{}',
    created_at INTEGER NOT NULL,
    PRIMARY KEY (project_id, id)
) WITHOUT ROWID;
INSERT INTO events_rebuilt (project_id, id, contact_id, name, data, created_at)
SELECT project_id, id, contact_id, name, data, created_at FROM events;
DROP TABLE events;
ALTER TABLE events_rebuilt RENAME TO events;
CREATE INDEX events_by_contact ON events (contact_id, name, created_at);
CREATE INDEX events_by_name_contact ON events (project_id, name, contact_id, created_at);

-- +goose StatementBegin
CREATE TRIGGER audience_counts_event_insert AFTER INSERT ON events WHEN NEW.contact_id IS NOT NULL BEGIN
    INSERT INTO audience_counts (project_id, kind, key, value, n)
    SELECT NEW.project_id, 3, NEW.name, '', 1
    WHERE NOT EXISTS (SELECT 1 FROM events INDEXED BY events_by_contact
                      WHERE contact_id = NEW.contact_id AND name = NEW.name AND project_id = NEW.project_id
                        AND id <> NEW.id)
    ON CONFLICT DO UPDATE SET n = n + 1, v = v + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER audience_counts_event_delete AFTER DELETE ON events WHEN OLD.contact_id IS NOT NULL BEGIN
    UPDATE audience_counts SET n = n - 1, v = v + 1
    WHERE project_id = OLD.project_id AND kind = 3 AND key = OLD.name AND value = ''
      AND NOT EXISTS (SELECT 1 FROM events INDEXED BY events_by_contact
                      WHERE contact_id = OLD.contact_id AND name = OLD.name AND project_id = OLD.project_id);
    DELETE FROM audience_counts
    WHERE project_id = OLD.project_id AND kind = 3 AND key = OLD.name AND value = '' AND n = 0;
END;
-- +goose StatementEnd
