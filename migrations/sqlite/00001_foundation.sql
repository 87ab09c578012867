-- +goose Up
-- Times are Unix milliseconds (UTC); ids are UUIDv7 text, so they sort by
-- creation time and keep index inserts at the right-hand edge.

CREATE TABLE projects (
    id               TEXT PRIMARY KEY,
    name             TEXT NOT NULL,
    public_key       TEXT NOT NULL UNIQUE,
    secret_key       TEXT NOT NULL UNIQUE,
    tracking_enabled INTEGER NOT NULL DEFAULT 1,
    disabled         INTEGER NOT NULL DEFAULT 0,
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL
);

CREATE TABLE contacts (
    id         TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    email      TEXT NOT NULL,
    subscribed INTEGER NOT NULL,
    data       TEXT NOT NULL DEFAULT '{}',
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    UNIQUE (project_id, email)
);
CREATE INDEX contacts_by_created ON contacts (project_id, created_at, id);

-- Events are the highest-volume writes, so they carry few B-trees: the
-- table is clustered on (project_id, id), and since ids are UUIDv7 that is
-- also each project's events in the order they were recorded, which the
-- newest-first list reads directly. Name and condition lookups use
-- events_by_name_contact (migration 3); a contact's timeline and the cascade
-- on contact deletion use events_by_contact.
CREATE TABLE events (
    project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    id         TEXT NOT NULL,
    contact_id TEXT REFERENCES contacts (id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    data       TEXT NOT NULL DEFAULT '{}',
    created_at INTEGER NOT NULL,
    PRIMARY KEY (project_id, id)
) WITHOUT ROWID;
CREATE INDEX events_by_contact ON events (contact_id, name, created_at);

-- The durable work queue. A job is claimed by setting state 'active' and a
-- lease; a job whose lease ran out (its worker died) is claimable again.
CREATE TABLE jobs (
    id            TEXT PRIMARY KEY,
    project_id    TEXT REFERENCES projects (id) ON DELETE CASCADE,
    kind          TEXT NOT NULL,
    payload       BLOB NOT NULL,
    state         TEXT NOT NULL CHECK (state IN ('queued', 'active', 'completed', 'failed')),
    run_at        INTEGER NOT NULL,
    attempts      INTEGER NOT NULL DEFAULT 0,
    max_attempts  INTEGER NOT NULL,
    lease_until   INTEGER,
    progress      INTEGER NOT NULL DEFAULT 0,
    checkpoint    TEXT,
    result        TEXT,
    failed_reason TEXT,
    unique_key    TEXT UNIQUE,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL
);
-- A lane claims only its own kinds, so claims look jobs up by kind: with
-- thousands of deliveries queued, an import's lane must not scan them.
-- jobs_queued answers "when is the next job due" for the dispatcher's sleep.
CREATE INDEX jobs_queued ON jobs (run_at) WHERE state = 'queued';
CREATE INDEX jobs_queued_by_kind ON jobs (kind, run_at) WHERE state = 'queued';
CREATE INDEX jobs_leased ON jobs (kind, lease_until) WHERE state = 'active';
CREATE INDEX jobs_finished ON jobs (updated_at) WHERE state IN ('completed', 'failed');

-- Idempotency keys are claimed before the request runs (status_code NULL)
-- and completed with the response status; a 4xx response deletes the claim.
CREATE TABLE idempotency_keys (
    project_id  TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    key         TEXT NOT NULL,
    request     TEXT NOT NULL,
    status_code INTEGER,
    created_at  INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL,
    PRIMARY KEY (project_id, key)
) WITHOUT ROWID;
CREATE INDEX idempotency_expiry ON idempotency_keys (expires_at);

-- +goose Down
DROP TABLE idempotency_keys;
DROP TABLE jobs;
DROP TABLE events;
DROP TABLE contacts;
DROP TABLE projects;
