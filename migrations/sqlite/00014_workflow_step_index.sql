-- +goose Up
-- No query reads step executions by (step_id, status): every read goes by
-- execution (workflow_step_executions_by_execution) or by id. The index
-- only cost the engine a B-tree write per step started and two per step
-- ended, the bulk of a wave of DELAYs ending together.
DROP INDEX workflow_step_executions_scheduled;

-- +goose Down
CREATE INDEX workflow_step_executions_scheduled ON workflow_step_executions (step_id, status);
