-- +goose Up
-- Accounts: people who log in to the dashboard, their sessions, their
-- roles in projects, and what a project's owners set for it (tracking,
-- language, billing caps). Secrets (passwords, session and mail tokens) are
-- stored only as hashes.

CREATE TABLE users (
    id             TEXT PRIMARY KEY,
    email          TEXT NOT NULL UNIQUE,
    password_hash  TEXT NOT NULL, -- PHC string: $argon2id$v=19$m=..,t=..,p=..$salt$hash
    email_verified INTEGER NOT NULL DEFAULT 0,
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL
);

-- A session is found by the SHA-256 of its cookie value; the value itself
-- is never stored.
CREATE TABLE sessions (
    token_hash TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX sessions_by_user ON sessions (user_id);
CREATE INDEX sessions_by_expiry ON sessions (expires_at);

CREATE TABLE project_members (
    project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role       TEXT NOT NULL CHECK (role IN ('OWNER', 'ADMIN', 'MEMBER')),
    created_at INTEGER NOT NULL,
    PRIMARY KEY (project_id, user_id)
) WITHOUT ROWID;
CREATE INDEX members_by_user ON project_members (user_id, created_at);

-- One-time tokens of platform mail (verify, reset), by their SHA-256.
-- Rows also count the mails sent, for the per-user hourly cap.
CREATE TABLE user_tokens (
    token_hash TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind       TEXT NOT NULL CHECK (kind IN ('verify', 'reset')),
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    used_at    INTEGER
) WITHOUT ROWID;
CREATE INDEX user_tokens_by_user ON user_tokens (user_id, kind, created_at);

-- Uploaded images live in the database, so that a backup of it holds them.
CREATE TABLE uploads (
    name         TEXT PRIMARY KEY, -- <random>.<ext>, the path under /uploads/
    project_id   TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    content_type TEXT NOT NULL,
    data         BLOB NOT NULL,
    created_at   INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX uploads_by_project ON uploads (project_id);

ALTER TABLE projects ADD COLUMN tracking TEXT NOT NULL DEFAULT 'ENABLED'
    CHECK (tracking IN ('ENABLED', 'MARKETING_ONLY', 'DISABLED'));
ALTER TABLE projects ADD COLUMN language TEXT NOT NULL DEFAULT 'en';
ALTER TABLE projects ADD COLUMN disabled_reason TEXT;
-- Billing caps per category; NULL is no cap.
ALTER TABLE projects ADD COLUMN limit_workflows INTEGER;
ALTER TABLE projects ADD COLUMN limit_campaigns INTEGER;
ALTER TABLE projects ADD COLUMN limit_transactional INTEGER;
ALTER TABLE projects ADD COLUMN limit_inbound INTEGER;
UPDATE projects SET tracking = CASE WHEN tracking_enabled THEN 'ENABLED' ELSE 'DISABLED' END;

-- +goose Down
ALTER TABLE projects DROP COLUMN limit_inbound;
ALTER TABLE projects DROP COLUMN limit_transactional;
ALTER TABLE projects DROP COLUMN limit_campaigns;
ALTER TABLE projects DROP COLUMN limit_workflows;
ALTER TABLE projects DROP COLUMN disabled_reason;
ALTER TABLE projects DROP COLUMN language;
ALTER TABLE projects DROP COLUMN tracking;
DROP TABLE uploads;
DROP TABLE user_tokens;
DROP TABLE project_members;
DROP TABLE sessions;
DROP TABLE users;
