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

-- +goose Down
DROP INDEX contacts_unsubscribed;
DROP INDEX contact_values_by_contact;
