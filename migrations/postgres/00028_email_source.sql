-- +goose Up
-- SMTP submission (issue 25). source says which path made an email: "api"
-- (/v1/send), "smtp" (the submission listener), "campaign", "workflow".
-- Rows from before this migration have none: storage reads them as the
-- path their campaign_id or workflow_id names, else "api".
ALTER TABLE emails ADD COLUMN source text COLLATE "C";
-- message_id is the Message-ID field the email is sent with. Herald's own
-- are unique, but a message submitted over SMTP keeps the client's, which
-- names every recipient's copy: so it is unique per recipient. A client
-- that sends the same message to the same recipient again (its 250 was
-- lost) finds its email there and is answered with it (docs/decisions.md,
-- "SMTP submission: the Message-ID").
DROP INDEX emails_by_message_id;
CREATE UNIQUE INDEX emails_by_message_id ON emails (message_id, recipient);

-- +goose Down
-- Fails while two emails share a Message-ID: emails submitted over SMTP
-- to several recipients must be deleted first.
DROP INDEX emails_by_message_id;
CREATE UNIQUE INDEX emails_by_message_id ON emails (message_id);
ALTER TABLE emails DROP COLUMN source;
