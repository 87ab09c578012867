-- +goose Up
-- Counts that answer the commonest segment shapes without reading the ids
-- they count (storage/audience_counts.go). A count of a condition streams
-- every index entry it selects, about 0.3 µs each, so at a million
-- contacts "plan equals pro", "has the key plan", "never purchased" or
-- "every contact" cost 100-300 ms however they are planned. These rows
-- hold the answers, kept in step by triggers in the same statement as the
-- write that changes them, so that they equal the SQL count after any
-- sequence of writes (the triggers cannot be bypassed: every path that
-- writes contacts, contact_values or events fires them).
--
-- kind 0: the project's contacts             (key '', value '')
-- kind 1: contact_values rows of (key, value) (one per contact: the
--         primary key of contact_values folds what equality folds)
-- kind 2: contacts that have data key `key`  (value '')
-- kind 3: contacts with an event named `key` (value '')
-- A row whose n falls to 0 is removed, so that values no contact holds any
-- more leave nothing behind.
CREATE TABLE audience_counts (
    project_id TEXT NOT NULL,
    kind       INTEGER NOT NULL,
    key        TEXT NOT NULL,
    value      NOT NULL COLLATE NOCASE, -- as contact_values.value: same equality
    n          INTEGER NOT NULL,
    PRIMARY KEY (project_id, kind, key, value)
) WITHOUT ROWID;

INSERT INTO audience_counts (project_id, kind, key, value, n)
SELECT project_id, 0, '', '', COUNT(*) FROM contacts GROUP BY project_id;
INSERT INTO audience_counts (project_id, kind, key, value, n)
SELECT project_id, 1, key, value, COUNT(*) FROM contact_values GROUP BY project_id, key, value;
INSERT INTO audience_counts (project_id, kind, key, value, n)
SELECT project_id, 2, key, '', COUNT(*)
FROM (SELECT DISTINCT project_id, key, contact_id FROM contact_values INDEXED BY contact_values_by_contact)
GROUP BY project_id, key;
INSERT INTO audience_counts (project_id, kind, key, value, n)
SELECT project_id, 3, name, '', COUNT(*)
FROM (SELECT DISTINCT project_id, name, contact_id FROM events INDEXED BY events_by_name_contact WHERE contact_id IS NOT NULL)
GROUP BY project_id, name;

-- Date tests on data (within, olderThan, before or after a date) read the
-- key's dates in contact order with each date's instant already parsed:
-- the instant is the index's last column, computed once when the row is
-- written, where the test used to parse every date it read (half of its
-- CPU at a million contacts). The expression and the partial index's
-- WHERE are those of storage/audience_sql.go's date test, word for word,
-- which is what lets SQLite use the index; an invalid date indexes NULL,
-- which no comparison selects.
CREATE INDEX contact_values_dates ON contact_values
    (project_id, key, contact_id, CAST(round(unixepoch(value, 'subsec') * 1000) AS INTEGER))
    WHERE value GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]*';

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

-- A contact's rows under one key: the key's count moves when the first
-- arrives and when the last leaves. The other rows of (key, contact) are
-- those whose value differs under the column's equality (the primary key
-- allows no two equal ones).
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

-- Events are only ever inserted and deleted (never updated). The probe for
-- another event of the name reads events_by_contact and stops at the first.
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

-- +goose Down
DROP TRIGGER audience_counts_event_delete;
DROP TRIGGER audience_counts_event_insert;
DROP TRIGGER audience_counts_value_delete;
DROP TRIGGER audience_counts_value_insert;
DROP TRIGGER audience_counts_contact_delete;
DROP TRIGGER audience_counts_contact_insert;
DROP TABLE audience_counts;
DROP INDEX contact_values_dates;
