-- +goose Up
-- The targets of an email's tracked links, as a JSON array: a click token
-- names its link by index instead of carrying the URL, which keeps tracked
-- messages small.
ALTER TABLE emails ADD COLUMN links TEXT;

-- +goose Down
ALTER TABLE emails DROP COLUMN links;
