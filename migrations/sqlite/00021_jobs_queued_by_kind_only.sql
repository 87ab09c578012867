-- +goose Up
-- A queued job was in two indexes, by due time and by kind then due time,
-- and each claim moved it out of both. The dispatcher's "when is the next
-- job due" now asks per kind (the kinds are few), so the first is dropped:
-- one index entry fewer written at enqueue and removed at claim, per job.
DROP INDEX jobs_queued;

-- +goose Down
CREATE INDEX jobs_queued ON jobs (run_at) WHERE state = 'queued';
