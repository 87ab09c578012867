-- +goose Up
-- A campaign's email is its own delivery queue entry (app/campaign_queue.go):
-- due_at is when it is due (status PENDING) or when the lease of its
-- running attempt runs out (status SENDING), and NULL once it is no longer
-- queued. It replaces a jobs row per recipient, whose table, id, unique
-- key and state indexes each message wrote, moved and deleted; this is one
-- entry in one index, moved at the claim and removed at the outcome.
-- status is in the key so that the claim and the metrics' counts read the
-- index alone.
ALTER TABLE emails ADD COLUMN due_at INTEGER;
CREATE INDEX emails_due ON emails (due_at, status) WHERE due_at IS NOT NULL;

-- +goose Down
-- The queued emails go back to delivery jobs (email.deliver, with the
-- default retry policy's 14 attempts), so that none is left unsent.
INSERT INTO jobs (id, project_id, kind, payload, state, run_at, max_attempts, created_at, updated_at)
    SELECT 'requeued-' || id, project_id, 'email.deliver', json_object('emailId', id), 'queued', due_at, 14, created_at, updated_at
    FROM emails WHERE due_at IS NOT NULL;
DROP INDEX emails_due;
ALTER TABLE emails DROP COLUMN due_at;
