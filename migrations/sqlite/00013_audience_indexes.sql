-- +goose Up
-- Indexes for the condition engine's set algebra (storage/audience_sql.go),
-- which merges sorted streams of contact ids.

-- data.<key> tests other than equality (ranges, dates, contains, exists)
-- read a key's rows in contact order, so that their ids merge with the
-- other operands and need no sort and no DISTINCT pass: a scan of the
-- key's rows in a fixed order costs at most the number of contacts that
-- have the key, where a value range followed by a sort grew as n log n.
CREATE INDEX contact_values_by_contact ON contact_values (project_id, key, contact_id, value);

-- "subscribed" intersected with other tests is computed as the subtraction
-- of the unsubscribed contacts, the few, which this partial index holds.
CREATE INDEX contacts_unsubscribed ON contacts (project_id, id) WHERE subscribed = 0;

-- An update of a contact's data removes only the rows that its new data no
-- longer has (00003 removed them all and added them all back): a tracked
-- event that changes one key of a contact rewrites that key's rows, not
-- every key's, in both of contact_values' B-trees. The AFTER trigger still
-- adds every row of the new data; those already present are ignored. The
-- three arms repeat the insert trigger's SELECT with NEW for c; the
-- comparison is binary, so a value that changes only in case is replaced.
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

-- +goose Down
DROP TRIGGER contact_values_update_old;
-- +goose StatementBegin
CREATE TRIGGER contact_values_update_old BEFORE UPDATE OF data ON contacts
WHEN OLD.data IS NOT NEW.data AND OLD.data <> '{}' BEGIN
    DELETE FROM contact_values WHERE (project_id, key, value, contact_id) IN
        (SELECT project_id, key, value, contact_id FROM contact_value_rows WHERE contact_id = OLD.id);
END;
-- +goose StatementEnd
DROP INDEX contacts_unsubscribed;
DROP INDEX contact_values_by_contact;
