-- +goose Up
-- Versions for the in-process bitmaps of segment counts
-- (storage/bitmap_*.go). A count can use a set of contacts it built
-- earlier (the contacts of a data value, of a data key, of an event name,
-- the unsubscribed) only if the set has not changed since; each
-- audience_counts row now carries v, which the same triggers that keep n
-- move on every change of the set the row stands for, in the statement
-- that makes it. A reader compares v, read in its own snapshot, with the v
-- its bitmap was built at.
--
-- v only grows for a given (project, kind, key, value), even across a row
-- deleted at n = 0 and created again: a deletion moves the clock past the
-- deleted row's v, and a row is born at the clock. So an equal v means an
-- unchanged set (no ABA).
--
-- kind 0's v moves when a contact of the project is deleted (not when one
-- is created): the id -> rowid directory of the bitmaps stays exact while
-- no id can have been given to a new contact after its contact was
-- deleted. kind 2's v moves on every row of the key added or removed (the
-- key's ranges and dates change), not only when a contact gains or loses
-- the key. kind 4 (new) counts a project's unsubscribed contacts.
ALTER TABLE audience_counts ADD COLUMN v INTEGER NOT NULL DEFAULT 0;

CREATE TABLE audience_clock (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    v  INTEGER NOT NULL
);
INSERT INTO audience_clock (id, v) VALUES (1, 1);

INSERT INTO audience_counts (project_id, kind, key, value, n)
SELECT project_id, 4, '', '', COUNT(*) FROM contacts INDEXED BY contacts_unsubscribed
WHERE subscribed = 0 GROUP BY project_id;

-- +goose StatementBegin
CREATE TRIGGER audience_counts_born AFTER INSERT ON audience_counts BEGIN
    UPDATE audience_counts SET v = (SELECT v FROM audience_clock WHERE id = 1)
    WHERE project_id = NEW.project_id AND kind = NEW.kind AND key = NEW.key AND value = NEW.value;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER audience_counts_gone AFTER DELETE ON audience_counts BEGIN
    UPDATE audience_clock SET v = max(v, OLD.v) + 1 WHERE id = 1;
END;
-- +goose StatementEnd

DROP TRIGGER audience_counts_contact_insert;
DROP TRIGGER audience_counts_contact_delete;
DROP TRIGGER audience_counts_value_insert;
DROP TRIGGER audience_counts_value_delete;
DROP TRIGGER audience_counts_event_insert;
DROP TRIGGER audience_counts_event_delete;

-- +goose StatementBegin
CREATE TRIGGER audience_counts_contact_insert AFTER INSERT ON contacts BEGIN
    INSERT INTO audience_counts (project_id, kind, key, value, n) VALUES (NEW.project_id, 0, '', '', 1)
    ON CONFLICT DO UPDATE SET n = n + 1;
    INSERT INTO audience_counts (project_id, kind, key, value, n)
    SELECT NEW.project_id, 4, '', '', 1 WHERE NEW.subscribed = 0
    ON CONFLICT DO UPDATE SET n = n + 1, v = v + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER audience_counts_contact_delete AFTER DELETE ON contacts BEGIN
    UPDATE audience_counts SET n = n - 1, v = v + 1
    WHERE project_id = OLD.project_id AND kind = 0 AND key = '' AND value = '';
    DELETE FROM audience_counts WHERE project_id = OLD.project_id AND kind = 0 AND key = '' AND value = '' AND n = 0;
    UPDATE audience_counts SET n = n - 1, v = v + 1
    WHERE OLD.subscribed = 0 AND project_id = OLD.project_id AND kind = 4 AND key = '' AND value = '';
    DELETE FROM audience_counts
    WHERE OLD.subscribed = 0 AND project_id = OLD.project_id AND kind = 4 AND key = '' AND value = '' AND n = 0;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER audience_counts_contact_subscription AFTER UPDATE OF subscribed ON contacts
WHEN (OLD.subscribed = 0) IS NOT (NEW.subscribed = 0) BEGIN
    INSERT INTO audience_counts (project_id, kind, key, value, n)
    SELECT NEW.project_id, 4, '', '', 1 WHERE NEW.subscribed = 0
    ON CONFLICT DO UPDATE SET n = n + 1, v = v + 1;
    UPDATE audience_counts SET n = n - 1, v = v + 1
    WHERE OLD.subscribed = 0 AND project_id = OLD.project_id AND kind = 4 AND key = '' AND value = '';
    DELETE FROM audience_counts
    WHERE OLD.subscribed = 0 AND project_id = OLD.project_id AND kind = 4 AND key = '' AND value = '' AND n = 0;
END;
-- +goose StatementEnd

-- As 00018, with v. The key's row (kind 2) is now written on every row of
-- the key added or removed; n moves only for a contact's first or last.
-- +goose StatementBegin
CREATE TRIGGER audience_counts_value_insert AFTER INSERT ON contact_values BEGIN
    INSERT INTO audience_counts (project_id, kind, key, value, n) VALUES (NEW.project_id, 1, NEW.key, NEW.value, 1)
    ON CONFLICT DO UPDATE SET n = n + 1, v = v + 1;
    INSERT INTO audience_counts (project_id, kind, key, value, n)
    VALUES (NEW.project_id, 2, NEW.key, '',
            NOT EXISTS (SELECT 1 FROM contact_values INDEXED BY contact_values_by_contact
                        WHERE project_id = NEW.project_id AND key = NEW.key AND contact_id = NEW.contact_id
                          AND value <> NEW.value))
    ON CONFLICT DO UPDATE SET n = n + excluded.n, v = v + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER audience_counts_value_delete AFTER DELETE ON contact_values BEGIN
    UPDATE audience_counts SET n = n - 1, v = v + 1
    WHERE project_id = OLD.project_id AND kind = 1 AND key = OLD.key AND value = OLD.value;
    DELETE FROM audience_counts
    WHERE project_id = OLD.project_id AND kind = 1 AND key = OLD.key AND value = OLD.value AND n = 0;
    UPDATE audience_counts
    SET n = n - NOT EXISTS (SELECT 1 FROM contact_values INDEXED BY contact_values_by_contact
                            WHERE project_id = OLD.project_id AND key = OLD.key AND contact_id = OLD.contact_id),
        v = v + 1
    WHERE project_id = OLD.project_id AND kind = 2 AND key = OLD.key AND value = '';
    DELETE FROM audience_counts
    WHERE project_id = OLD.project_id AND kind = 2 AND key = OLD.key AND value = '' AND n = 0;
END;
-- +goose StatementEnd

-- Events: the name's set (kind 3) changes only with n, so repeated events
-- of a contact still write nothing.
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

-- Not about versions, found while measuring them: 00013's removal of the
-- rows a contact's new data no longer has was planned as a scan of every
-- contact_values entry tested against the list (SCAN ... USING COVERING
-- INDEX contact_values_by_contact, LIST SUBQUERY): 2.4-3.6 s for one
-- contact's data update at a million contacts. Naming the project, the
-- contact and the old data's keys, which every removed row has, lets it
-- read contact_values_by_contact (project_id, key IN ..., contact_id):
-- 0.35-2 ms. The rows it removes are the same.
DROP TRIGGER contact_values_update_old;
-- +goose StatementBegin
CREATE TRIGGER contact_values_update_old BEFORE UPDATE OF data ON contacts
WHEN OLD.data IS NOT NEW.data AND OLD.data <> '{}' BEGIN
    DELETE FROM contact_values
    WHERE project_id = OLD.project_id AND key IN (SELECT key FROM json_each(OLD.data)) AND contact_id = OLD.id
      AND (project_id, key, value, contact_id) IN
        (SELECT project_id, key, value, contact_id FROM contact_value_rows WHERE contact_id = OLD.id
         EXCEPT
         SELECT NEW.project_id, je.key,
                CASE je.type WHEN 'true' THEN 'true' WHEN 'false' THEN 'false'
                     WHEN 'object' THEN x'' WHEN 'array' THEN x'' WHEN 'null' THEN x'' ELSE je.atom END,
                NEW.id
         FROM json_each(NEW.data) je
         EXCEPT
         SELECT NEW.project_id, je.key,
                CASE el.type WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' ELSE el.atom END,
                NEW.id
         FROM json_each(NEW.data) je, json_each(je.value) el
         WHERE je.type = 'array' AND el.type IN ('true', 'false', 'text', 'integer', 'real')
         EXCEPT
         SELECT NEW.project_id, je.key, json_extract(je.value, '$'), NEW.id
         FROM json_each(NEW.data) je
         WHERE je.type = 'text' AND CASE WHEN json_valid(je.value) THEN json_type(je.value) END IN ('integer', 'real'));
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER contact_values_update_old;
-- +goose StatementBegin
CREATE TRIGGER contact_values_update_old BEFORE UPDATE OF data ON contacts
WHEN OLD.data IS NOT NEW.data AND OLD.data <> '{}' BEGIN
    DELETE FROM contact_values WHERE (project_id, key, value, contact_id) IN
        (SELECT project_id, key, value, contact_id FROM contact_value_rows WHERE contact_id = OLD.id
         EXCEPT
         SELECT NEW.project_id, je.key,
                CASE je.type WHEN 'true' THEN 'true' WHEN 'false' THEN 'false'
                     WHEN 'object' THEN x'' WHEN 'array' THEN x'' WHEN 'null' THEN x'' ELSE je.atom END,
                NEW.id
         FROM json_each(NEW.data) je
         EXCEPT
         SELECT NEW.project_id, je.key,
                CASE el.type WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' ELSE el.atom END,
                NEW.id
         FROM json_each(NEW.data) je, json_each(je.value) el
         WHERE je.type = 'array' AND el.type IN ('true', 'false', 'text', 'integer', 'real')
         EXCEPT
         SELECT NEW.project_id, je.key, json_extract(je.value, '$'), NEW.id
         FROM json_each(NEW.data) je
         WHERE je.type = 'text' AND CASE WHEN json_valid(je.value) THEN json_type(je.value) END IN ('integer', 'real'));
END;
-- +goose StatementEnd
DROP TRIGGER audience_counts_event_delete;
DROP TRIGGER audience_counts_event_insert;
DROP TRIGGER audience_counts_value_delete;
DROP TRIGGER audience_counts_value_insert;
DROP TRIGGER audience_counts_contact_subscription;
DROP TRIGGER audience_counts_contact_delete;
DROP TRIGGER audience_counts_contact_insert;
DROP TRIGGER audience_counts_gone;
DROP TRIGGER audience_counts_born;
DELETE FROM audience_counts WHERE kind = 4;
DROP TABLE audience_clock;
ALTER TABLE audience_counts DROP COLUMN v;

-- +goose StatementBegin
CREATE TRIGGER audience_counts_contact_insert AFTER INSERT ON contacts BEGIN
    INSERT INTO audience_counts (project_id, kind, key, value, n) VALUES (NEW.project_id, 0, '', '', 1)
    ON CONFLICT DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER audience_counts_contact_delete AFTER DELETE ON contacts BEGIN
    UPDATE audience_counts SET n = n - 1 WHERE project_id = OLD.project_id AND kind = 0 AND key = '' AND value = '';
    DELETE FROM audience_counts WHERE project_id = OLD.project_id AND kind = 0 AND key = '' AND value = '' AND n = 0;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER audience_counts_value_insert AFTER INSERT ON contact_values BEGIN
    INSERT INTO audience_counts (project_id, kind, key, value, n) VALUES (NEW.project_id, 1, NEW.key, NEW.value, 1)
    ON CONFLICT DO UPDATE SET n = n + 1;
    INSERT INTO audience_counts (project_id, kind, key, value, n)
    SELECT NEW.project_id, 2, NEW.key, '', 1
    WHERE NOT EXISTS (SELECT 1 FROM contact_values INDEXED BY contact_values_by_contact
                      WHERE project_id = NEW.project_id AND key = NEW.key AND contact_id = NEW.contact_id
                        AND value <> NEW.value)
    ON CONFLICT DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER audience_counts_value_delete AFTER DELETE ON contact_values BEGIN
    UPDATE audience_counts SET n = n - 1
    WHERE project_id = OLD.project_id AND kind = 1 AND key = OLD.key AND value = OLD.value;
    DELETE FROM audience_counts
    WHERE project_id = OLD.project_id AND kind = 1 AND key = OLD.key AND value = OLD.value AND n = 0;
    UPDATE audience_counts SET n = n - 1
    WHERE project_id = OLD.project_id AND kind = 2 AND key = OLD.key AND value = ''
      AND NOT EXISTS (SELECT 1 FROM contact_values INDEXED BY contact_values_by_contact
                      WHERE project_id = OLD.project_id AND key = OLD.key AND contact_id = OLD.contact_id);
    DELETE FROM audience_counts
    WHERE project_id = OLD.project_id AND kind = 2 AND key = OLD.key AND value = '' AND n = 0;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER audience_counts_event_insert AFTER INSERT ON events WHEN NEW.contact_id IS NOT NULL BEGIN
    INSERT INTO audience_counts (project_id, kind, key, value, n)
    SELECT NEW.project_id, 3, NEW.name, '', 1
    WHERE NOT EXISTS (SELECT 1 FROM events INDEXED BY events_by_contact
                      WHERE contact_id = NEW.contact_id AND name = NEW.name AND project_id = NEW.project_id
                        AND id <> NEW.id)
    ON CONFLICT DO UPDATE SET n = n + 1;
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER audience_counts_event_delete AFTER DELETE ON events WHEN OLD.contact_id IS NOT NULL BEGIN
    UPDATE audience_counts SET n = n - 1
    WHERE project_id = OLD.project_id AND kind = 3 AND key = OLD.name AND value = ''
      AND NOT EXISTS (SELECT 1 FROM events INDEXED BY events_by_contact
                      WHERE contact_id = OLD.contact_id AND name = OLD.name AND project_id = OLD.project_id);
    DELETE FROM audience_counts
    WHERE project_id = OLD.project_id AND kind = 3 AND key = OLD.name AND value = '' AND n = 0;
END;
-- +goose StatementEnd
