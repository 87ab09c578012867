-- +goose Up
-- The signed bytes of an email waiting for delivery get a table of their
-- own. In the emails row they made every read or update of the row walk
-- their overflow pages (the columns after them could only be reached
-- through them), and a status change rewrite them.
CREATE TABLE email_bodies (
    email_id TEXT PRIMARY KEY REFERENCES emails (id) ON DELETE CASCADE,
    raw      BLOB NOT NULL
);
INSERT INTO email_bodies (email_id, raw) SELECT id, raw FROM emails WHERE raw IS NOT NULL;
ALTER TABLE emails DROP COLUMN raw;

-- +goose Down
ALTER TABLE emails ADD COLUMN raw BLOB;
UPDATE emails SET raw = (SELECT raw FROM email_bodies WHERE email_id = emails.id);
DROP TABLE email_bodies;
