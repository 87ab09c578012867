-- +goose Up
-- Segments, their member lists, and the indexes the condition engine reads.
-- The engine compiles a condition tree to set operations (INTERSECT, UNION,
-- EXCEPT) over sorted streams of contact ids, each read from an index, so a
-- count never parses contact JSON or probes events once per contact.

CREATE TABLE segments (
    id               TEXT PRIMARY KEY,
    project_id       TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    name             TEXT NOT NULL,
    description      TEXT NOT NULL DEFAULT '',
    type             TEXT NOT NULL CHECK (type IN ('DYNAMIC', 'STATIC')),
    condition        TEXT, -- JSON condition tree; NULL for STATIC
    track_membership INTEGER NOT NULL DEFAULT 0,
    member_count     INTEGER NOT NULL DEFAULT 0,
    counted_at       INTEGER, -- when member_count was last computed
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL
);
CREATE INDEX segments_by_project ON segments (project_id, created_at, id);

-- The members of a STATIC segment, or the membership a tracked DYNAMIC
-- segment had at its last compute (the diff against it gives entry/exit).
CREATE TABLE segment_members (
    segment_id TEXT NOT NULL REFERENCES segments (id) ON DELETE CASCADE,
    contact_id TEXT NOT NULL REFERENCES contacts (id) ON DELETE CASCADE,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (segment_id, contact_id)
) WITHOUT ROWID;
CREATE INDEX segment_members_by_contact ON segment_members (contact_id);

-- contact_values indexes every top-level data value of every contact, so
-- that data.<key> filters are index range scans rather than a JSON parse per
-- contact. The rows of a contact are defined once, by the view below.
CREATE TABLE contact_values (
    project_id TEXT NOT NULL,
    key        TEXT NOT NULL,
    value      NOT NULL COLLATE NOCASE, -- no type, so no affinity: '0042' stays text
    contact_id TEXT NOT NULL,
    PRIMARY KEY (project_id, key, value, contact_id)
) WITHOUT ROWID;

-- One row per (key, value) of a contact's data: text as given (compared
-- case-insensitively through NOCASE), numbers as numbers, booleans as the
-- text 'true'/'false', each scalar element of an array, and x'' marking an
-- object, array or null so that exists sees the key. A text holding a JSON
-- number (CSV imports store "42") also gets a numeric row, so that number
-- comparisons find it.
CREATE VIEW contact_value_rows AS
SELECT c.project_id, je.key,
       CASE je.type WHEN 'true' THEN 'true' WHEN 'false' THEN 'false'
            WHEN 'object' THEN x'' WHEN 'array' THEN x'' WHEN 'null' THEN x'' ELSE je.atom END AS value,
       c.id AS contact_id
FROM contacts c, json_each(c.data) je
UNION ALL
SELECT c.project_id, je.key,
       CASE el.type WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' ELSE el.atom END,
       c.id
FROM contacts c, json_each(c.data) je, json_each(je.value) el
WHERE je.type = 'array' AND el.type IN ('true', 'false', 'text', 'integer', 'real')
UNION ALL
SELECT c.project_id, je.key, json_extract(je.value, '$'), c.id
FROM contacts c, json_each(c.data) je
WHERE je.type = 'text' AND CASE WHEN json_valid(je.value) THEN json_type(je.value) END IN ('integer', 'real');

-- The triggers keep contact_values in step with contacts.data inside the
-- writing transaction. Rows are removed by their exact primary key, read
-- from the view while the old data is still in place (BEFORE). Rows are
-- added from NEW.data directly: inserts and updates are the hot path, and
-- going through the view would read the contact back once per arm. Those
-- two bodies repeat the view's SELECT with NEW for c; keep all three the
-- same (storage's TestContactValuesFollowData compares table and view).
-- Empty data, the common case of imports and sends, skips the work.
-- +goose StatementBegin
CREATE TRIGGER contact_values_insert AFTER INSERT ON contacts
WHEN NEW.data <> '{}' BEGIN
    INSERT OR IGNORE INTO contact_values (project_id, key, value, contact_id)
    SELECT NEW.project_id, je.key,
           CASE je.type WHEN 'true' THEN 'true' WHEN 'false' THEN 'false'
                WHEN 'object' THEN x'' WHEN 'array' THEN x'' WHEN 'null' THEN x'' ELSE je.atom END,
           NEW.id
    FROM json_each(NEW.data) je
    UNION ALL
    SELECT NEW.project_id, je.key,
           CASE el.type WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' ELSE el.atom END,
           NEW.id
    FROM json_each(NEW.data) je, json_each(je.value) el
    WHERE je.type = 'array' AND el.type IN ('true', 'false', 'text', 'integer', 'real')
    UNION ALL
    SELECT NEW.project_id, je.key, json_extract(je.value, '$'), NEW.id
    FROM json_each(NEW.data) je
    WHERE je.type = 'text' AND CASE WHEN json_valid(je.value) THEN json_type(je.value) END IN ('integer', 'real');
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER contact_values_delete BEFORE DELETE ON contacts
WHEN OLD.data <> '{}' BEGIN
    DELETE FROM contact_values WHERE (project_id, key, value, contact_id) IN
        (SELECT project_id, key, value, contact_id FROM contact_value_rows WHERE contact_id = OLD.id);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER contact_values_update_old BEFORE UPDATE OF data ON contacts
WHEN OLD.data IS NOT NEW.data AND OLD.data <> '{}' BEGIN
    DELETE FROM contact_values WHERE (project_id, key, value, contact_id) IN
        (SELECT project_id, key, value, contact_id FROM contact_value_rows WHERE contact_id = OLD.id);
END;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE TRIGGER contact_values_update_new AFTER UPDATE OF data ON contacts
WHEN OLD.data IS NOT NEW.data AND NEW.data <> '{}' BEGIN
    INSERT OR IGNORE INTO contact_values (project_id, key, value, contact_id)
    SELECT NEW.project_id, je.key,
           CASE je.type WHEN 'true' THEN 'true' WHEN 'false' THEN 'false'
                WHEN 'object' THEN x'' WHEN 'array' THEN x'' WHEN 'null' THEN x'' ELSE je.atom END,
           NEW.id
    FROM json_each(NEW.data) je
    UNION ALL
    SELECT NEW.project_id, je.key,
           CASE el.type WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' ELSE el.atom END,
           NEW.id
    FROM json_each(NEW.data) je, json_each(je.value) el
    WHERE je.type = 'array' AND el.type IN ('true', 'false', 'text', 'integer', 'real')
    UNION ALL
    SELECT NEW.project_id, je.key, json_extract(je.value, '$'), NEW.id
    FROM json_each(NEW.data) je
    WHERE je.type = 'text' AND CASE WHEN json_valid(je.value) THEN json_type(je.value) END IN ('integer', 'real');
END;
-- +goose StatementEnd

-- Contacts that existed before this migration.
INSERT OR IGNORE INTO contact_values (project_id, key, value, contact_id)
SELECT project_id, key, value, contact_id FROM contact_value_rows;

-- event.<name> and email.<activity> filters: the contacts that had an event
-- of a name, in contact order, from the index alone (a semi-join, not one
-- probe per contact).
CREATE INDEX events_by_name_contact ON events (project_id, name, contact_id, created_at);

-- The project's contacts in id order with the columns filters test, so that
-- contact-field filters and complements ("not ...") stream from an index.
CREATE INDEX contacts_by_project_id ON contacts (project_id, id, subscribed, created_at, updated_at);

-- +goose Down
DROP INDEX contacts_by_project_id;
DROP INDEX events_by_name_contact;
DROP TRIGGER contact_values_update_new;
DROP TRIGGER contact_values_update_old;
DROP TRIGGER contact_values_delete;
DROP TRIGGER contact_values_insert;
DROP VIEW contact_value_rows;
DROP TABLE contact_values;
DROP TABLE segment_members;
DROP TABLE segments;
