-- +goose Up
-- Workflows: a graph of steps joined by transitions, run per contact as
-- executions. Every execution, step execution and pending timer is a row,
-- so a restart loses nothing: an execution's due_at is when the engine
-- must look at it next (now for a RUNNING one that can go on, the resume
-- time of a DELAY, the timeout of a WAIT_FOR_EVENT, NULL while it waits on
-- an event without timeout or on a webhook job).
CREATE TABLE workflows (
    id             TEXT PRIMARY KEY,
    project_id     TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    name           TEXT NOT NULL,
    description    TEXT,
    enabled        INTEGER NOT NULL DEFAULT 0,
    allow_reentry  INTEGER NOT NULL DEFAULT 0,
    trigger_type   TEXT NOT NULL CHECK (trigger_type IN ('EVENT', 'MANUAL')),
    trigger_config TEXT NOT NULL, -- JSON
    event_name     TEXT,          -- trigger_config.eventName, for lookups
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL
);
CREATE INDEX workflows_by_project ON workflows (project_id, created_at, id);
CREATE INDEX workflows_by_event ON workflows (project_id, event_name);

CREATE TABLE workflow_steps (
    id          TEXT PRIMARY KEY,
    workflow_id TEXT NOT NULL REFERENCES workflows (id) ON DELETE CASCADE,
    type        TEXT NOT NULL,
    name        TEXT NOT NULL,
    position    TEXT NOT NULL, -- JSON {x, y}
    config      TEXT NOT NULL, -- JSON
    template_id TEXT,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
);
CREATE INDEX workflow_steps_by_workflow ON workflow_steps (workflow_id, created_at, id);
CREATE INDEX workflow_steps_by_template ON workflow_steps (template_id) WHERE template_id IS NOT NULL;

CREATE TABLE workflow_transitions (
    id           TEXT PRIMARY KEY,
    workflow_id  TEXT NOT NULL REFERENCES workflows (id) ON DELETE CASCADE,
    from_step_id TEXT NOT NULL REFERENCES workflow_steps (id) ON DELETE CASCADE,
    to_step_id   TEXT NOT NULL REFERENCES workflow_steps (id) ON DELETE CASCADE,
    branch       TEXT,
    wait_outcome TEXT,
    priority     INTEGER NOT NULL DEFAULT 0,
    created_at   INTEGER NOT NULL
);
CREATE INDEX workflow_transitions_by_workflow ON workflow_transitions (workflow_id, created_at, id);
CREATE INDEX workflow_transitions_from ON workflow_transitions (from_step_id);
CREATE INDEX workflow_transitions_to ON workflow_transitions (to_step_id);

CREATE TABLE workflow_executions (
    id              TEXT PRIMARY KEY,
    project_id      TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    workflow_id     TEXT NOT NULL REFERENCES workflows (id) ON DELETE CASCADE,
    contact_id      TEXT NOT NULL,
    contact_email   TEXT NOT NULL,
    status          TEXT NOT NULL CHECK (status IN ('RUNNING', 'WAITING', 'COMPLETED', 'EXITED', 'FAILED', 'CANCELLED')),
    current_step_id TEXT,
    context         TEXT NOT NULL, -- JSON object
    exit_reason     TEXT,
    source_event_id TEXT,
    due_at          INTEGER,       -- the engine's next look; see above
    wait_event      TEXT,          -- the event name a WAIT_FOR_EVENT step awaits
    started_at      INTEGER NOT NULL,
    completed_at    INTEGER,
    created_at      INTEGER NOT NULL
);
CREATE INDEX workflow_executions_by_workflow ON workflow_executions (workflow_id, id);
CREATE INDEX workflow_executions_by_status ON workflow_executions (workflow_id, status);
CREATE INDEX workflow_executions_by_contact ON workflow_executions (contact_id, workflow_id);
CREATE INDEX workflow_executions_due ON workflow_executions (due_at) WHERE due_at IS NOT NULL;
CREATE INDEX workflow_executions_waiting ON workflow_executions (contact_id, wait_event) WHERE wait_event IS NOT NULL;
-- At most one execution of a workflow per event, whatever retries happen.
CREATE UNIQUE INDEX workflow_executions_event ON workflow_executions (workflow_id, source_event_id)
    WHERE source_event_id IS NOT NULL;

CREATE TABLE workflow_step_executions (
    id            TEXT PRIMARY KEY,
    execution_id  TEXT NOT NULL REFERENCES workflow_executions (id) ON DELETE CASCADE,
    step_id       TEXT NOT NULL,
    step_name     TEXT NOT NULL, -- kept: the step may be deleted later
    step_type     TEXT NOT NULL,
    status        TEXT NOT NULL,
    output        TEXT,
    error         TEXT,
    execute_after INTEGER,
    started_at    INTEGER NOT NULL,
    completed_at  INTEGER
);
CREATE INDEX workflow_step_executions_by_execution ON workflow_step_executions (execution_id, id);
CREATE INDEX workflow_step_executions_scheduled ON workflow_step_executions (step_id, status);

-- Events waiting to enrol contacts or to end waits, written in the same
-- transaction as the event itself: an event that committed is never
-- forgotten by the engine, even across a kill.
CREATE TABLE workflow_inbox (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    project_id TEXT NOT NULL,
    event_id   TEXT NOT NULL,
    contact_id TEXT NOT NULL,
    name       TEXT NOT NULL,
    data       TEXT NOT NULL,
    created_at INTEGER NOT NULL
);

-- The execution and step execution an email of a SEND_EMAIL step belongs
-- to; the step execution is the email's idempotency key.
ALTER TABLE emails ADD COLUMN workflow_execution_id TEXT;
ALTER TABLE emails ADD COLUMN workflow_step_execution_id TEXT;
CREATE UNIQUE INDEX emails_workflow_step ON emails (workflow_step_execution_id)
    WHERE workflow_step_execution_id IS NOT NULL;

-- +goose Down
DROP INDEX emails_workflow_step;
ALTER TABLE emails DROP COLUMN workflow_step_execution_id;
ALTER TABLE emails DROP COLUMN workflow_execution_id;
DROP TABLE workflow_inbox;
DROP TABLE workflow_step_executions;
DROP TABLE workflow_executions;
DROP TABLE workflow_transitions;
DROP TABLE workflow_steps;
DROP TABLE workflows;
