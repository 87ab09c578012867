-- +goose Up
-- One row per message to one recipient. The signed bytes are stored at
-- send time, so every delivery attempt sends identical bytes; they are
-- dropped once the email reaches a final state.
CREATE TABLE emails (
    id            TEXT PRIMARY KEY,
    project_id    TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    contact_id    TEXT REFERENCES contacts (id) ON DELETE SET NULL,
    campaign_id   TEXT,
    template_id   TEXT,
    workflow_id   TEXT,
    message_id    TEXT NOT NULL,
    sender        TEXT NOT NULL,
    recipient     TEXT NOT NULL,
    subject       TEXT NOT NULL,
    marketing     INTEGER NOT NULL DEFAULT 0,
    status        TEXT NOT NULL CHECK (status IN ('PENDING', 'SENDING', 'SENT', 'DELIVERED', 'BOUNCED', 'FAILED', 'CANCELLED')),
    raw           BLOB,
    attempts      INTEGER NOT NULL DEFAULT 0,
    last_code     INTEGER,
    last_enhanced TEXT,
    last_response TEXT,
    mx_host       TEXT,
    sent_at       INTEGER,
    delivered_at  INTEGER,
    bounced_at    INTEGER,
    failed_at     INTEGER,
    opened_at     INTEGER,
    clicked_at    INTEGER,
    complained_at INTEGER,
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL
);
CREATE INDEX emails_by_created ON emails (project_id, created_at, id);
CREATE INDEX emails_by_contact ON emails (contact_id, created_at);
CREATE INDEX emails_by_campaign ON emails (campaign_id, status) WHERE campaign_id IS NOT NULL;
CREATE UNIQUE INDEX emails_by_message_id ON emails (message_id);

-- Install-wide settings, such as the secret that signs tracking and
-- unsubscribe links.
CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

-- +goose Down
DROP TABLE settings;
DROP TABLE emails;
