-- +goose Up
-- No INSERT trigger on events (docs/performance.md, "The recorded event's
-- SQL, fifth pass"). Any trigger that fires on an INSERT makes SQLite open
-- a statement journal for it (the statement is then a "multi-write" one
-- that may abort: NOT NULL columns, the primary key, the project's foreign
-- key), and every tracked, opened or clicked event paid for that journal,
-- for the trigger programs' frames and for a larger statement.
--
-- What the two triggers did is now done by the storage functions that
-- insert events (storage/events_insert.go), in the same transaction, with
-- the same outcome:
--   * events_contact_exists: an event names an existing contact of its
--     project or none; InsertEvent and InsertEvents fail with the foreign
--     key's message, InsertEventIfContact and the workflow batch store no
--     contact, InsertContactEvent stores nothing and says so;
--   * audience_counts_event_insert: a contact's first event of a name
--     counts it in the name's row (kind 3), probed in the same index
--     before the event is inserted.
-- The triggers on DELETE and on UPDATE of events stay: they do not fire on
-- an INSERT, and events are deleted by cascades that only SQL sees.
DROP TRIGGER audience_counts_event_insert;
DROP TRIGGER events_contact_exists;

-- +goose Down
-- +goose StatementBegin
CREATE TRIGGER events_contact_exists BEFORE INSERT ON events
WHEN NEW.contact_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM contacts WHERE id = NEW.contact_id) BEGIN
    SELECT RAISE(ABORT, 'FOREIGN KEY constraint failed');
END;
-- +goose StatementEnd

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
