-- +goose Up
-- Campaigns: one message to an audience, sent now or at scheduled_for by
-- queue jobs. The per-recipient counts are not stored: they are read from
-- the campaign's email rows, so they can never disagree with them.
CREATE TABLE campaigns (
    id                 TEXT PRIMARY KEY,
    project_id         TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    name               TEXT NOT NULL,
    description        TEXT,
    subject            TEXT NOT NULL,
    body               TEXT NOT NULL,
    from_email         TEXT NOT NULL,
    from_domain        TEXT NOT NULL, -- A-labels, as sender domains are stored
    from_name          TEXT,
    reply_to           TEXT,
    type               TEXT NOT NULL CHECK (type IN ('TRANSACTIONAL', 'MARKETING', 'HEADLESS')),
    status             TEXT NOT NULL CHECK (status IN ('DRAFT', 'SCHEDULED', 'SENDING', 'SENT', 'CANCELLED')),
    audience_type      TEXT NOT NULL CHECK (audience_type IN ('ALL', 'SEGMENT', 'FILTERED')),
    segment_id         TEXT,
    audience_condition TEXT, -- JSON condition tree for FILTERED
    scheduled_for      INTEGER,
    sent_at            INTEGER, -- when sending started
    total_recipients   INTEGER NOT NULL DEFAULT 0,
    -- send_token names the current send: the jobs of a send carry it, and
    -- stop when it changed (cancelled, rescheduled), so a stale scheduled
    -- job can never start a later send early.
    send_token         TEXT,
    fanout_done        INTEGER NOT NULL DEFAULT 0, -- every recipient has an email row
    created_at         INTEGER NOT NULL,
    updated_at         INTEGER NOT NULL
);
CREATE INDEX campaigns_by_project ON campaigns (project_id, created_at, id);
CREATE INDEX campaigns_by_status ON campaigns (project_id, status, scheduled_for);
CREATE INDEX campaigns_by_segment ON campaigns (segment_id) WHERE segment_id IS NOT NULL;
CREATE INDEX campaigns_by_domain ON campaigns (project_id, from_domain);

-- A contact gets at most one email of a campaign: the fan-out's last
-- guard against sending anyone twice.
CREATE UNIQUE INDEX emails_campaign_contact ON emails (campaign_id, contact_id) WHERE campaign_id IS NOT NULL;

-- +goose Down
DROP INDEX emails_campaign_contact;
DROP TABLE campaigns;
