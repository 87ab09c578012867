-- +goose Up
-- The installation's administrator: the first user made on it. An
-- installation upgraded with users already in it makes its oldest user
-- the administrator. There is at most one (the partial unique index), so
-- two first sign-ups at once cannot both become it.
ALTER TABLE users ADD COLUMN admin INTEGER NOT NULL DEFAULT 0;
UPDATE users SET admin = 1 WHERE id = (SELECT id FROM users ORDER BY created_at, id LIMIT 1);
CREATE UNIQUE INDEX users_one_admin ON users (admin) WHERE admin = 1;

-- An invitation to a project for an email that has no account yet, found
-- by the SHA-256 of its token (the token itself is only in the link).
-- Taking it makes the account and the membership in one write.
CREATE TABLE invitations (
    token_hash TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    email      TEXT NOT NULL,
    role       TEXT NOT NULL CHECK (role IN ('OWNER', 'ADMIN', 'MEMBER')),
    invited_by TEXT REFERENCES users (id) ON DELETE SET NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    used_at    INTEGER
) WITHOUT ROWID;
CREATE INDEX invitations_by_project ON invitations (project_id, email, created_at);
CREATE INDEX invitations_by_expiry ON invitations (expires_at);

-- The sandbox's mailbox (herald serve --sandbox): every message Herald
-- would have sent, as the recipient's server would have received it.
-- project_id and email_id name the email whose Message-ID the message
-- carries (NULL when none matches). Kept bounded: the newest messages
-- only (app/sandbox).
CREATE TABLE sandbox_messages (
    id          TEXT PRIMARY KEY,
    project_id  TEXT REFERENCES projects (id) ON DELETE CASCADE,
    email_id    TEXT,
    mail_from   TEXT NOT NULL, -- the envelope sender (return path)
    header_from TEXT NOT NULL, -- the From field, decoded
    recipients  TEXT NOT NULL, -- JSON array of the envelope recipients
    subject     TEXT NOT NULL,
    dkim        TEXT NOT NULL CHECK (dkim IN ('pass', 'fail')),
    size        INTEGER NOT NULL,
    raw         BLOB NOT NULL,
    created_at  INTEGER NOT NULL
);
CREATE INDEX sandbox_messages_by_project ON sandbox_messages (project_id, created_at, id);
CREATE INDEX sandbox_messages_by_created ON sandbox_messages (created_at, id);

-- +goose Down
DROP TABLE sandbox_messages;
DROP TABLE invitations;
DROP INDEX users_one_admin;
ALTER TABLE users DROP COLUMN admin;
