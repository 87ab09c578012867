-- +goose Up
-- The twin of migrations/sqlite/00026_admin_invitations_sandbox.sql: the
-- installation's administrator (the first user; on upgrade the oldest),
-- invitations, and the sandbox's mailbox.
ALTER TABLE users ADD COLUMN admin boolean NOT NULL DEFAULT false;
UPDATE users SET admin = true WHERE id = (SELECT id FROM users ORDER BY created_at, id LIMIT 1);
CREATE UNIQUE INDEX users_one_admin ON users (admin) WHERE admin;

CREATE TABLE invitations (
    token_hash text COLLATE "C" PRIMARY KEY,
    project_id text COLLATE "C" NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    email      text COLLATE "C" NOT NULL,
    role       text COLLATE "C" NOT NULL CHECK (role IN ('OWNER', 'ADMIN', 'MEMBER')),
    invited_by text COLLATE "C" REFERENCES users (id) ON DELETE SET NULL,
    created_at bigint NOT NULL,
    expires_at bigint NOT NULL,
    used_at    bigint
);
CREATE INDEX invitations_by_project ON invitations (project_id, email, created_at);
CREATE INDEX invitations_by_expiry ON invitations (expires_at);

CREATE TABLE sandbox_messages (
    id          text COLLATE "C" PRIMARY KEY,
    project_id  text COLLATE "C" REFERENCES projects (id) ON DELETE CASCADE,
    email_id    text COLLATE "C",
    mail_from   text COLLATE "C" NOT NULL,
    header_from text COLLATE "C" NOT NULL,
    recipients  text COLLATE "C" NOT NULL,
    subject     text COLLATE "C" NOT NULL,
    dkim        text COLLATE "C" NOT NULL CHECK (dkim IN ('pass', 'fail')),
    size        bigint NOT NULL,
    raw         bytea NOT NULL,
    created_at  bigint NOT NULL
);
CREATE INDEX sandbox_messages_by_project ON sandbox_messages (project_id, created_at, id);
CREATE INDEX sandbox_messages_by_created ON sandbox_messages (created_at, id);

-- +goose Down
DROP TABLE sandbox_messages;
DROP TABLE invitations;
DROP INDEX users_one_admin;
ALTER TABLE users DROP COLUMN admin;
