-- +goose Up
-- The status a request under an Idempotency-Key will answer, written in the
-- same transaction as its effect. A key still in progress at start (the
-- process died mid-request) is answered with it when the effect committed,
-- and released when it did not.
ALTER TABLE idempotency_keys ADD COLUMN committed_status INTEGER;

-- +goose Down
ALTER TABLE idempotency_keys DROP COLUMN committed_status;
