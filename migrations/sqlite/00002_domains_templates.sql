-- +goose Up
-- Sender domains with their DKIM key, and message templates.

-- A project's sender domain. The private key stays in the database (the
-- data directory is the secret store of a self-hosted Herald). check_status
-- is a JSON object of DNS record purpose -> "pending" | "verified" |
-- "failed"; failures counts consecutive definite DKIM failures, so that a
-- verified domain is only un-verified by a second one in a row.
CREATE TABLE domains (
    id              TEXT PRIMARY KEY,
    project_id      TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    domain          TEXT NOT NULL,
    verified        INTEGER NOT NULL DEFAULT 0,
    dkim_algorithm  TEXT NOT NULL,
    dkim_selector   TEXT NOT NULL,
    dkim_key        TEXT NOT NULL,
    check_status    TEXT NOT NULL DEFAULT '{}',
    failures        INTEGER NOT NULL DEFAULT 0,
    last_checked_at INTEGER,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL,
    UNIQUE (project_id, domain)
);
CREATE INDEX domains_by_created ON domains (project_id, created_at, id);
CREATE INDEX domains_by_name ON domains (domain, verified);

-- from_domain is the A-label domain of from_email, kept apart so that the
-- "is this sender domain in use" check is an index lookup.
CREATE TABLE templates (
    id          TEXT PRIMARY KEY,
    project_id  TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    name        TEXT NOT NULL,
    description TEXT,
    subject     TEXT NOT NULL,
    body        TEXT NOT NULL,
    from_email  TEXT NOT NULL,
    from_domain TEXT NOT NULL,
    from_name   TEXT,
    reply_to    TEXT,
    type        TEXT NOT NULL CHECK (type IN ('TRANSACTIONAL', 'MARKETING', 'HEADLESS')),
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL
);
CREATE INDEX templates_by_created ON templates (project_id, created_at, id);
CREATE INDEX templates_by_from_domain ON templates (project_id, from_domain);

-- +goose Down
DROP TABLE templates;
DROP TABLE domains;
