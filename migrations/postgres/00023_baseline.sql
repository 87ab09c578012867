-- +goose Up
-- The PostgreSQL schema: SQLite's at version 23 (migrations/sqlite/00001
-- to 00023), translated, as one baseline numbered like the version it
-- translates. There is no PostgreSQL install older than it, so its history
-- is not replayed; from 00024 on, every change is a pair of files with the
-- same number, one per engine, and storage's parity test compares the two
-- schemas' tables, columns and index names.
--
-- The translation, in short (docs/decisions.md, "PostgreSQL schema"):
--   * the same tables, columns, names, checks, foreign keys and indexes,
--     partial ones included; WITHOUT ROWID tables are plain tables with the
--     same primary key;
--   * times stay Unix milliseconds in bigint, counters bigint, as the Go
--     side reads and writes them (int64); blobs are bytea; JSON stays text,
--     byte for byte as written;
--   * flags are boolean (SQLite's 0/1 integers): tracking_enabled,
--     disabled, subscribed, verified, track_membership, marketing,
--     fanout_done, enabled, allow_reentry, email_verified;
--   * every text column collates "C", byte order, as SQLite's BINARY, so
--     ids sort, page and merge the same way on both engines, and lower()
--     and LIKE fold ASCII only, as SQLite's do;
--   * contact_values' and audience_counts' untyped, NOCASE "value" becomes
--     a type (vtype: 0 text, 1 number, 2 the marker of an object, array or
--     null) and a fold: a text's ASCII lower case (NOCASE), a number's
--     canonical decimal (1, 1.0 and 1e0 are one number), '' for the
--     marker; numbers and date texts get their value as columns (num, ts)
--     where SQLite computed them in expressions and an expression index;
--   * the triggers are PL/pgSQL. The counters of audience_counts are
--     sharded by the writing connection (shard), and their rows are never
--     deleted at n = 0: a count is the sum of its shards' n, a version the
--     sum of their v (each v only grows), so concurrent writers do not
--     queue on one hot row and no version comes back (no audience_clock);
--   * contacts.num is a dense contact number (the bitmaps' bit, which is
--     the rowid on SQLite), copied into contact_values and events as
--     contact_num so that a set is read as integers.

-- ASCII lower case: SQLite's NOCASE, which folds A-Z only.
-- +goose StatementBegin
CREATE FUNCTION herald_fold(t text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN translate(t, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz');
-- +goose StatementEnd

-- A JSON number's text as a double, as SQLite reads it: beyond the range,
-- an infinity; below the smallest subnormal, zero.
-- +goose StatementBegin
CREATE FUNCTION herald_number(t text) RETURNS double precision
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN (SELECT CASE WHEN n > 1.7976931348623157e308 THEN 'Infinity'::float8
                    WHEN n < -1.7976931348623157e308 THEN '-Infinity'::float8
                    WHEN abs(n) < 4.9e-324 THEN 0::float8
                    ELSE n::float8 END
        FROM (SELECT t::numeric AS n) x);
-- +goose StatementEnd

-- The equality key of a contact value (see vtype above): texts fold as
-- NOCASE does, numbers compare by value.
-- +goose StatementBegin
CREATE FUNCTION herald_value_fold(vtype smallint, value text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
RETURN CASE vtype WHEN 0 THEN herald_fold(value)
                  WHEN 1 THEN trim_scale(value::numeric)::text
                  ELSE '' END;
-- +goose StatementEnd

-- The instant of a date text in Unix milliseconds, as SQLite's
-- CAST(round(unixepoch(value, 'subsec') * 1000) AS INTEGER) computes it
-- for a text starting YYYY-MM-DD (migration 00018's contact_values_dates),
-- step for step as SQLite's parseYyyyMmDd, parseHhMmSs, parseTimezone and
-- computeJD do: YYYY-MM-DD, then spaces or T, then optionally a time
-- HH:MM[:SS[.fff]] and after it optionally Z or ±HH:MM; a day past the
-- month's end runs on into the next month; the seconds are doubles, as
-- SQLite's are. NULL where SQLite's is NULL (storage's date test compares
-- the two on a list of texts).
-- +goose StatementBegin
CREATE FUNCTION herald_date_ms(t text) RETURNS bigint
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
    m text[];
    y int; mo int; d int; a int; b int;
    s double precision := 0;
    ms bigint;
    tz int := 0;
BEGIN
    m := regexp_match(t, '^([0-9]{4})-([0-9]{2})-([0-9]{2})[ \t\n\v\f\rT]*'
                         '(?:([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\.([0-9]+))?)?'
                         '[ \t\n\v\f\r]*(?:([Zz])|([+-])([0-9]{2}):([0-9]{2}))?[ \t\n\v\f\r]*)?$');
    IF m IS NULL THEN
        RETURN NULL;
    END IF;
    y := m[1]::int; mo := m[2]::int; d := m[3]::int;
    IF mo < 1 OR mo > 12 OR d < 1 OR d > 31 THEN
        RETURN NULL;
    END IF;
    IF m[4] IS NOT NULL THEN
        IF m[4]::int > 24 OR m[5]::int > 59 OR coalesce(m[6]::int, 0) > 59 THEN
            RETURN NULL;
        END IF;
        s := coalesce(m[6]::float8, 0);
        IF m[7] IS NOT NULL THEN
            -- SQLite caps the fraction at .999, so that rounding never
            -- carries into the next second.
            s := s + least(m[7]::numeric::float8 / (10::float8 ^ length(m[7])), 0.999::float8);
        END IF;
        IF m[4]::int = 24 AND (m[5]::int > 0 OR s > 0) THEN
            RETURN NULL; -- 24:00 is the day's end, nothing after it
        END IF;
    END IF;
    IF m[9] IS NOT NULL THEN
        IF m[10]::int > 14 OR m[11]::int > 59 THEN
            RETURN NULL;
        END IF;
        tz := (m[10]::int * 60 + m[11]::int) * (CASE m[9] WHEN '-' THEN -1 ELSE 1 END);
    END IF;
    -- computeJD, in milliseconds since the Unix epoch.
    IF mo <= 2 THEN
        y := y - 1; mo := mo + 12;
    END IF;
    a := y / 100;
    b := 2 - a + a / 4;
    ms := (((36525 * (y + 4716) / 100) + (306001 * (mo + 1) / 10000) + d + b)::numeric - 1524.5) * 86400000
          - 210866760000000;
    IF m[4] IS NOT NULL THEN
        ms := ms + m[4]::bigint * 3600000 + m[5]::bigint * 60000 + trunc(s * 1000 + 0.5)::bigint;
    END IF;
    ms := ms - tz::bigint * 60000;
    -- SQLite's validJulianDay: years 0000 to 9999.
    IF ms < -210866760000000 OR ms > 253402300799999 THEN
        RETURN NULL;
    END IF;
    RETURN ms;
END;
$$;
-- +goose StatementEnd

-- The rows of contact_values a contact's data gives, as SQLite's view
-- contact_value_rows (migration 00003) defines them: each top-level key's
-- scalar (a boolean as the text 'true'/'false'), the marker of an object,
-- array or null so that "exists" sees the key, each scalar element of an
-- array, and the number a text holding a JSON number also stands for.
-- +goose StatementBegin
CREATE FUNCTION herald_value_rows(data text)
RETURNS TABLE (key text, vtype smallint, value text)
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
BEGIN ATOMIC
    SELECT je.key COLLATE "C",
           (CASE json_typeof(je.value) WHEN 'string' THEN 0 WHEN 'boolean' THEN 0 WHEN 'number' THEN 1 ELSE 2 END)::smallint,
           CASE json_typeof(je.value) WHEN 'string' THEN je.value #>> '{}'
                WHEN 'number' THEN je.value::text WHEN 'boolean' THEN je.value::text ELSE '' END COLLATE "C"
    FROM json_each(data::json) je
    UNION ALL
    SELECT je.key COLLATE "C",
           (CASE json_typeof(el.value) WHEN 'number' THEN 1 ELSE 0 END)::smallint,
           CASE json_typeof(el.value) WHEN 'string' THEN el.value #>> '{}' ELSE el.value::text END COLLATE "C"
    FROM json_each(data::json) je, json_array_elements(je.value) el
    WHERE json_typeof(je.value) = 'array' AND json_typeof(el.value) IN ('string', 'number', 'boolean')
    UNION ALL
    SELECT je.key COLLATE "C", 1::smallint, btrim(je.value #>> '{}', E' \t\n\r') COLLATE "C"
    FROM json_each(data::json) je
    WHERE json_typeof(je.value) = 'string'
      AND (je.value #>> '{}') ~ '^[ \t\n\r]*-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?[ \t\n\r]*$';
END;
-- +goose StatementEnd

-- The shard of audience_counts a connection writes (see above).
-- +goose StatementBegin
CREATE FUNCTION herald_shard() RETURNS smallint
LANGUAGE sql STABLE PARALLEL SAFE
RETURN (pg_backend_pid() % 16)::smallint;
-- +goose StatementEnd

-- 00001 --------------------------------------------------------------------

CREATE TABLE projects (
    id                  text COLLATE "C" PRIMARY KEY,
    name                text COLLATE "C" NOT NULL,
    public_key          text COLLATE "C" NOT NULL UNIQUE,
    secret_key          text COLLATE "C" NOT NULL UNIQUE,
    tracking_enabled    boolean NOT NULL DEFAULT true,
    disabled            boolean NOT NULL DEFAULT false,
    created_at          bigint NOT NULL,
    updated_at          bigint NOT NULL,
    tracking            text COLLATE "C" NOT NULL DEFAULT 'ENABLED'
                        CHECK (tracking IN ('ENABLED', 'MARKETING_ONLY', 'DISABLED')),
    language            text COLLATE "C" NOT NULL DEFAULT 'en',
    disabled_reason     text COLLATE "C",
    limit_workflows     bigint,
    limit_campaigns     bigint,
    limit_transactional bigint,
    limit_inbound       bigint
);

CREATE TABLE contacts (
    id         text COLLATE "C" PRIMARY KEY,
    project_id text COLLATE "C" NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    email      text COLLATE "C" NOT NULL,
    subscribed boolean NOT NULL,
    data       text COLLATE "C" NOT NULL DEFAULT '{}',
    created_at bigint NOT NULL,
    updated_at bigint NOT NULL,
    num        bigint GENERATED BY DEFAULT AS IDENTITY,
    UNIQUE (project_id, email),
    CONSTRAINT contacts_num_key UNIQUE (num)
);
CREATE INDEX contacts_by_created ON contacts (project_id, created_at, id);
CREATE INDEX contacts_by_project_id ON contacts (project_id, id, subscribed, created_at, updated_at);
CREATE INDEX contacts_unsubscribed ON contacts (project_id, id) WHERE NOT subscribed;

-- Events keep SQLite's single secondary index (00022): the contact is
-- checked by a trigger, not a foreign key, which would need an index led
-- by contact_id for the cascade.
CREATE TABLE events (
    project_id  text COLLATE "C" NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    id          text COLLATE "C" NOT NULL,
    contact_id  text COLLATE "C",
    name        text COLLATE "C" NOT NULL,
    data        text COLLATE "C" NOT NULL DEFAULT '{}',
    created_at  bigint NOT NULL,
    contact_num bigint, -- contacts.num of contact_id, set by events_contact_check
    PRIMARY KEY (project_id, id)
);
CREATE INDEX events_by_name_contact ON events (project_id, name, contact_id, created_at) INCLUDE (contact_num);

CREATE TABLE jobs (
    id            text COLLATE "C" PRIMARY KEY,
    project_id    text COLLATE "C" REFERENCES projects (id) ON DELETE CASCADE,
    kind          text COLLATE "C" NOT NULL,
    payload       bytea NOT NULL,
    state         text COLLATE "C" NOT NULL CHECK (state IN ('queued', 'active', 'completed', 'failed')),
    run_at        bigint NOT NULL,
    attempts      bigint NOT NULL DEFAULT 0,
    max_attempts  bigint NOT NULL,
    lease_until   bigint,
    progress      bigint NOT NULL DEFAULT 0,
    checkpoint    text COLLATE "C",
    result        text COLLATE "C",
    failed_reason text COLLATE "C",
    unique_key    text COLLATE "C" UNIQUE,
    created_at    bigint NOT NULL,
    updated_at    bigint NOT NULL
);
CREATE INDEX jobs_queued_by_kind ON jobs (kind, run_at) WHERE state = 'queued';
CREATE INDEX jobs_leased ON jobs (kind, lease_until) WHERE state = 'active';
CREATE INDEX jobs_finished ON jobs (updated_at) WHERE state IN ('completed', 'failed');

CREATE TABLE idempotency_keys (
    project_id       text COLLATE "C" NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    key              text COLLATE "C" NOT NULL,
    request          text COLLATE "C" NOT NULL,
    status_code      bigint,
    created_at       bigint NOT NULL,
    expires_at       bigint NOT NULL,
    committed_status bigint,
    PRIMARY KEY (project_id, key)
);
CREATE INDEX idempotency_expiry ON idempotency_keys (expires_at);

-- 00002 --------------------------------------------------------------------

CREATE TABLE domains (
    id              text COLLATE "C" PRIMARY KEY,
    project_id      text COLLATE "C" NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    domain          text COLLATE "C" NOT NULL,
    verified        boolean NOT NULL DEFAULT false,
    dkim_algorithm  text COLLATE "C" NOT NULL,
    dkim_selector   text COLLATE "C" NOT NULL,
    dkim_key        text COLLATE "C" NOT NULL,
    check_status    text COLLATE "C" NOT NULL DEFAULT '{}',
    failures        bigint NOT NULL DEFAULT 0,
    last_checked_at bigint,
    created_at      bigint NOT NULL,
    updated_at      bigint NOT NULL,
    UNIQUE (project_id, domain)
);
CREATE INDEX domains_by_created ON domains (project_id, created_at, id);
CREATE INDEX domains_by_name ON domains (domain, verified);

CREATE TABLE templates (
    id          text COLLATE "C" PRIMARY KEY,
    project_id  text COLLATE "C" NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    name        text COLLATE "C" NOT NULL,
    description text COLLATE "C",
    subject     text COLLATE "C" NOT NULL,
    body        text COLLATE "C" NOT NULL,
    from_email  text COLLATE "C" NOT NULL,
    from_domain text COLLATE "C" NOT NULL,
    from_name   text COLLATE "C",
    reply_to    text COLLATE "C",
    type        text COLLATE "C" NOT NULL CHECK (type IN ('TRANSACTIONAL', 'MARKETING', 'HEADLESS')),
    created_at  bigint NOT NULL,
    updated_at  bigint NOT NULL
);
CREATE INDEX templates_by_created ON templates (project_id, created_at, id);
CREATE INDEX templates_by_from_domain ON templates (project_id, from_domain);

-- 00003, 00013, 00018 ------------------------------------------------------

CREATE TABLE segments (
    id               text COLLATE "C" PRIMARY KEY,
    project_id       text COLLATE "C" NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    name             text COLLATE "C" NOT NULL,
    description      text COLLATE "C" NOT NULL DEFAULT '',
    type             text COLLATE "C" NOT NULL CHECK (type IN ('DYNAMIC', 'STATIC')),
    condition        text COLLATE "C",
    track_membership boolean NOT NULL DEFAULT false,
    member_count     bigint NOT NULL DEFAULT 0,
    counted_at       bigint,
    created_at       bigint NOT NULL,
    updated_at       bigint NOT NULL
);
CREATE INDEX segments_by_project ON segments (project_id, created_at, id);

CREATE TABLE segment_members (
    segment_id text COLLATE "C" NOT NULL REFERENCES segments (id) ON DELETE CASCADE,
    contact_id text COLLATE "C" NOT NULL REFERENCES contacts (id) ON DELETE CASCADE,
    created_at bigint NOT NULL,
    PRIMARY KEY (segment_id, contact_id)
);
CREATE INDEX segment_members_by_contact ON segment_members (contact_id);

-- Every top-level data value of every contact (migration 00003), written
-- by the contacts triggers below. value is the value's text as given (a
-- number's JSON text, '' for the marker); fold, num and ts are computed
-- from it. The primary key holds one row per (key, value under equality,
-- contact), as SQLite's does under NOCASE; its rows of one value are in
-- contact order, which the equality test reads.
CREATE TABLE contact_values (
    project_id  text COLLATE "C" NOT NULL,
    key         text COLLATE "C" NOT NULL,
    value       text COLLATE "C" NOT NULL,
    contact_id  text COLLATE "C" NOT NULL,
    vtype       smallint NOT NULL CHECK (vtype IN (0, 1, 2)),
    fold        text COLLATE "C" GENERATED ALWAYS AS (herald_value_fold(vtype, value)) STORED,
    num         double precision GENERATED ALWAYS AS (CASE WHEN vtype = 1 THEN herald_number(value) END) STORED,
    ts          bigint GENERATED ALWAYS AS (
                    CASE WHEN vtype = 0 AND value ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}' THEN herald_date_ms(value) END) STORED,
    contact_num bigint NOT NULL,
    PRIMARY KEY (project_id, key, vtype, fold, contact_id) INCLUDE (contact_num)
);
CREATE INDEX contact_values_by_contact ON contact_values (project_id, key, contact_id) INCLUDE (vtype, num, contact_num);
CREATE INDEX contact_values_dates ON contact_values (project_id, key, contact_id, ts) INCLUDE (contact_num)
    WHERE ts IS NOT NULL;

CREATE VIEW contact_value_rows AS
SELECT c.project_id, r.key, r.value, c.id AS contact_id, r.vtype
FROM contacts c, LATERAL herald_value_rows(c.data) r;

-- Stored counts (00018, 00019): kind 0 the project's contacts, 1 the
-- contacts of a (key, value), 2 of a key, 3 of an event name, 4 the
-- unsubscribed. A count is sum(n) over the shards of (project_id, kind,
-- key, vtype, fold), its version sum(v); see the top of this file.
CREATE TABLE audience_counts (
    project_id text COLLATE "C" NOT NULL,
    kind       bigint NOT NULL,
    key        text COLLATE "C" NOT NULL,
    vtype      smallint NOT NULL,
    fold       text COLLATE "C" NOT NULL,
    shard      smallint NOT NULL,
    n          bigint NOT NULL,
    v          bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (project_id, kind, key, vtype, fold, shard)
);

-- 00004 to 00010, 00017, 00023 ---------------------------------------------

CREATE TABLE emails (
    id                         text COLLATE "C" PRIMARY KEY,
    project_id                 text COLLATE "C" NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    contact_id                 text COLLATE "C" REFERENCES contacts (id) ON DELETE SET NULL,
    campaign_id                text COLLATE "C",
    template_id                text COLLATE "C",
    workflow_id                text COLLATE "C",
    message_id                 text COLLATE "C" NOT NULL,
    sender                     text COLLATE "C" NOT NULL,
    recipient                  text COLLATE "C" NOT NULL,
    subject                    text COLLATE "C" NOT NULL,
    marketing                  boolean NOT NULL DEFAULT false,
    status                     text COLLATE "C" NOT NULL
                               CHECK (status IN ('PENDING', 'SENDING', 'SENT', 'DELIVERED', 'BOUNCED', 'FAILED', 'CANCELLED')),
    attempts                   bigint NOT NULL DEFAULT 0,
    last_code                  bigint,
    last_enhanced              text COLLATE "C",
    last_response              text COLLATE "C",
    mx_host                    text COLLATE "C",
    sent_at                    bigint,
    delivered_at               bigint,
    bounced_at                 bigint,
    failed_at                  bigint,
    opened_at                  bigint,
    clicked_at                 bigint,
    complained_at              bigint,
    created_at                 bigint NOT NULL,
    updated_at                 bigint NOT NULL,
    links                      text COLLATE "C",
    workflow_execution_id      text COLLATE "C",
    workflow_step_execution_id text COLLATE "C",
    due_at                     bigint
);
CREATE INDEX emails_by_created ON emails (project_id, created_at, id);
CREATE INDEX emails_by_contact ON emails (contact_id, created_at);
CREATE INDEX emails_by_campaign ON emails (campaign_id, status) WHERE campaign_id IS NOT NULL;
CREATE UNIQUE INDEX emails_by_message_id ON emails (message_id);
CREATE UNIQUE INDEX emails_campaign_contact ON emails (campaign_id, contact_id) WHERE campaign_id IS NOT NULL;
CREATE UNIQUE INDEX emails_workflow_step ON emails (workflow_step_execution_id)
    WHERE workflow_step_execution_id IS NOT NULL;
CREATE INDEX emails_due ON emails (due_at, status) WHERE due_at IS NOT NULL;

CREATE TABLE settings (
    key   text COLLATE "C" PRIMARY KEY,
    value text COLLATE "C" NOT NULL
);

CREATE TABLE campaigns (
    id                 text COLLATE "C" PRIMARY KEY,
    project_id         text COLLATE "C" NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    name               text COLLATE "C" NOT NULL,
    description        text COLLATE "C",
    subject            text COLLATE "C" NOT NULL,
    body               text COLLATE "C" NOT NULL,
    from_email         text COLLATE "C" NOT NULL,
    from_domain        text COLLATE "C" NOT NULL,
    from_name          text COLLATE "C",
    reply_to           text COLLATE "C",
    type               text COLLATE "C" NOT NULL CHECK (type IN ('TRANSACTIONAL', 'MARKETING', 'HEADLESS')),
    status             text COLLATE "C" NOT NULL CHECK (status IN ('DRAFT', 'SCHEDULED', 'SENDING', 'SENT', 'CANCELLED')),
    audience_type      text COLLATE "C" NOT NULL CHECK (audience_type IN ('ALL', 'SEGMENT', 'FILTERED')),
    segment_id         text COLLATE "C",
    audience_condition text COLLATE "C",
    scheduled_for      bigint,
    sent_at            bigint,
    total_recipients   bigint NOT NULL DEFAULT 0,
    send_token         text COLLATE "C",
    fanout_done        boolean NOT NULL DEFAULT false,
    created_at         bigint NOT NULL,
    updated_at         bigint NOT NULL
);
CREATE INDEX campaigns_by_project ON campaigns (project_id, created_at, id);
CREATE INDEX campaigns_by_status ON campaigns (project_id, status, scheduled_for);
CREATE INDEX campaigns_by_segment ON campaigns (segment_id) WHERE segment_id IS NOT NULL;
CREATE INDEX campaigns_by_domain ON campaigns (project_id, from_domain);

CREATE TABLE email_bodies (
    email_id text COLLATE "C" PRIMARY KEY REFERENCES emails (id) ON DELETE CASCADE,
    raw      bytea NOT NULL,
    codec    bigint NOT NULL DEFAULT 0
);

-- 00008, 00014 -------------------------------------------------------------

CREATE TABLE workflows (
    id             text COLLATE "C" PRIMARY KEY,
    project_id     text COLLATE "C" NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    name           text COLLATE "C" NOT NULL,
    description    text COLLATE "C",
    enabled        boolean NOT NULL DEFAULT false,
    allow_reentry  boolean NOT NULL DEFAULT false,
    trigger_type   text COLLATE "C" NOT NULL CHECK (trigger_type IN ('EVENT', 'MANUAL')),
    trigger_config text COLLATE "C" NOT NULL,
    event_name     text COLLATE "C",
    created_at     bigint NOT NULL,
    updated_at     bigint NOT NULL
);
CREATE INDEX workflows_by_project ON workflows (project_id, created_at, id);
CREATE INDEX workflows_by_event ON workflows (project_id, event_name);

CREATE TABLE workflow_steps (
    id          text COLLATE "C" PRIMARY KEY,
    workflow_id text COLLATE "C" NOT NULL REFERENCES workflows (id) ON DELETE CASCADE,
    type        text COLLATE "C" NOT NULL,
    name        text COLLATE "C" NOT NULL,
    position    text COLLATE "C" NOT NULL,
    config      text COLLATE "C" NOT NULL,
    template_id text COLLATE "C",
    created_at  bigint NOT NULL,
    updated_at  bigint NOT NULL
);
CREATE INDEX workflow_steps_by_workflow ON workflow_steps (workflow_id, created_at, id);
CREATE INDEX workflow_steps_by_template ON workflow_steps (template_id) WHERE template_id IS NOT NULL;

CREATE TABLE workflow_transitions (
    id           text COLLATE "C" PRIMARY KEY,
    workflow_id  text COLLATE "C" NOT NULL REFERENCES workflows (id) ON DELETE CASCADE,
    from_step_id text COLLATE "C" NOT NULL REFERENCES workflow_steps (id) ON DELETE CASCADE,
    to_step_id   text COLLATE "C" NOT NULL REFERENCES workflow_steps (id) ON DELETE CASCADE,
    branch       text COLLATE "C",
    wait_outcome text COLLATE "C",
    priority     bigint NOT NULL DEFAULT 0,
    created_at   bigint NOT NULL
);
CREATE INDEX workflow_transitions_by_workflow ON workflow_transitions (workflow_id, created_at, id);
CREATE INDEX workflow_transitions_from ON workflow_transitions (from_step_id);
CREATE INDEX workflow_transitions_to ON workflow_transitions (to_step_id);

CREATE TABLE workflow_executions (
    id              text COLLATE "C" PRIMARY KEY,
    project_id      text COLLATE "C" NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    workflow_id     text COLLATE "C" NOT NULL REFERENCES workflows (id) ON DELETE CASCADE,
    contact_id      text COLLATE "C" NOT NULL,
    contact_email   text COLLATE "C" NOT NULL,
    status          text COLLATE "C" NOT NULL
                    CHECK (status IN ('RUNNING', 'WAITING', 'COMPLETED', 'EXITED', 'FAILED', 'CANCELLED')),
    current_step_id text COLLATE "C",
    context         text COLLATE "C" NOT NULL,
    exit_reason     text COLLATE "C",
    source_event_id text COLLATE "C",
    due_at          bigint,
    wait_event      text COLLATE "C",
    started_at      bigint NOT NULL,
    completed_at    bigint,
    created_at      bigint NOT NULL
);
CREATE INDEX workflow_executions_by_workflow ON workflow_executions (workflow_id, id);
CREATE INDEX workflow_executions_by_status ON workflow_executions (workflow_id, status);
CREATE INDEX workflow_executions_by_contact ON workflow_executions (contact_id, workflow_id);
CREATE INDEX workflow_executions_due ON workflow_executions (due_at) WHERE due_at IS NOT NULL;
CREATE INDEX workflow_executions_waiting ON workflow_executions (contact_id, wait_event) WHERE wait_event IS NOT NULL;
CREATE UNIQUE INDEX workflow_executions_event ON workflow_executions (workflow_id, source_event_id)
    WHERE source_event_id IS NOT NULL;

CREATE TABLE workflow_step_executions (
    id            text COLLATE "C" PRIMARY KEY,
    execution_id  text COLLATE "C" NOT NULL REFERENCES workflow_executions (id) ON DELETE CASCADE,
    step_id       text COLLATE "C" NOT NULL,
    step_name     text COLLATE "C" NOT NULL,
    step_type     text COLLATE "C" NOT NULL,
    status        text COLLATE "C" NOT NULL,
    output        text COLLATE "C",
    error         text COLLATE "C",
    execute_after bigint,
    started_at    bigint NOT NULL,
    completed_at  bigint
);
CREATE INDEX workflow_step_executions_by_execution ON workflow_step_executions (execution_id, id);

-- SQLite's INTEGER PRIMARY KEY AUTOINCREMENT: never reused. BY DEFAULT,
-- so that a copy from SQLite keeps the numbers.
CREATE TABLE workflow_inbox (
    seq        bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
    project_id text COLLATE "C" NOT NULL,
    event_id   text COLLATE "C" NOT NULL,
    contact_id text COLLATE "C" NOT NULL,
    name       text COLLATE "C" NOT NULL,
    data       text COLLATE "C" NOT NULL,
    created_at bigint NOT NULL
);

-- 00009 --------------------------------------------------------------------

CREATE TABLE users (
    id             text COLLATE "C" PRIMARY KEY,
    email          text COLLATE "C" NOT NULL UNIQUE,
    password_hash  text COLLATE "C" NOT NULL,
    email_verified boolean NOT NULL DEFAULT false,
    created_at     bigint NOT NULL,
    updated_at     bigint NOT NULL
);

CREATE TABLE sessions (
    token_hash text COLLATE "C" PRIMARY KEY,
    user_id    text COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at bigint NOT NULL,
    expires_at bigint NOT NULL
);
CREATE INDEX sessions_by_user ON sessions (user_id);
CREATE INDEX sessions_by_expiry ON sessions (expires_at);

CREATE TABLE project_members (
    project_id text COLLATE "C" NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    user_id    text COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role       text COLLATE "C" NOT NULL CHECK (role IN ('OWNER', 'ADMIN', 'MEMBER')),
    created_at bigint NOT NULL,
    PRIMARY KEY (project_id, user_id)
);
CREATE INDEX members_by_user ON project_members (user_id, created_at);

CREATE TABLE user_tokens (
    token_hash text COLLATE "C" PRIMARY KEY,
    user_id    text COLLATE "C" NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind       text COLLATE "C" NOT NULL CHECK (kind IN ('verify', 'reset')),
    created_at bigint NOT NULL,
    expires_at bigint NOT NULL,
    used_at    bigint
);
CREATE INDEX user_tokens_by_user ON user_tokens (user_id, kind, created_at);

CREATE TABLE uploads (
    name         text COLLATE "C" PRIMARY KEY,
    project_id   text COLLATE "C" NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    content_type text COLLATE "C" NOT NULL,
    data         bytea NOT NULL,
    created_at   bigint NOT NULL
);
CREATE INDEX uploads_by_project ON uploads (project_id);

-- Triggers ------------------------------------------------------------------
--
-- SQLite fires a row's AFTER trigger right after that row; PostgreSQL
-- fires them all at the end of the statement, when every row of it is
-- visible, so a probe for "another row of this contact" would see the
-- statement's own rows. The counters are therefore kept by statement
-- triggers over transition tables, which also turn a batch into one
-- upsert per counter rather than one per row.

-- The contacts of a statement: their counts (kind 0, kind 4) and their
-- data's rows.
-- +goose StatementBegin
CREATE FUNCTION herald_contacts_inserted() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO audience_counts AS a (project_id, kind, key, vtype, fold, shard, n, v)
    SELECT project_id, 0, '', 0, '', herald_shard(), count(*), 0 FROM new_contacts GROUP BY project_id
    ON CONFLICT (project_id, kind, key, vtype, fold, shard) DO UPDATE SET n = a.n + excluded.n;
    INSERT INTO audience_counts AS a (project_id, kind, key, vtype, fold, shard, n, v)
    SELECT project_id, 4, '', 0, '', herald_shard(), count(*), 1 FROM new_contacts WHERE NOT subscribed
    GROUP BY project_id
    ON CONFLICT (project_id, kind, key, vtype, fold, shard) DO UPDATE SET n = a.n + excluded.n, v = a.v + 1;
    INSERT INTO contact_values (project_id, key, vtype, value, contact_id, contact_num)
    SELECT c.project_id, r.key, r.vtype, r.value, c.id, c.num
    FROM new_contacts c, LATERAL herald_value_rows(c.data) r
    WHERE c.data <> '{}'
    ON CONFLICT DO NOTHING;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER contacts_inserted AFTER INSERT ON contacts
    REFERENCING NEW TABLE AS new_contacts FOR EACH STATEMENT EXECUTE FUNCTION herald_contacts_inserted();

-- Deleted contacts: their counts, their data's rows (found by the keys of
-- their data, which contact_values_by_contact leads with) and their
-- events (SQLite's events_contact_delete, migration 00022: by the event
-- names the project's contacts have, which audience_counts lists).
-- +goose StatementBegin
CREATE FUNCTION herald_contacts_deleted() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO audience_counts AS a (project_id, kind, key, vtype, fold, shard, n, v)
    SELECT project_id, 0, '', 0, '', herald_shard(), -count(*), 1 FROM old_contacts
    WHERE EXISTS (SELECT 1 FROM projects p WHERE p.id = project_id) GROUP BY project_id
    ON CONFLICT (project_id, kind, key, vtype, fold, shard) DO UPDATE SET n = a.n + excluded.n, v = a.v + 1;
    INSERT INTO audience_counts AS a (project_id, kind, key, vtype, fold, shard, n, v)
    SELECT project_id, 4, '', 0, '', herald_shard(), -count(*), 1 FROM old_contacts
    WHERE NOT subscribed AND EXISTS (SELECT 1 FROM projects p WHERE p.id = project_id)
    GROUP BY project_id
    ON CONFLICT (project_id, kind, key, vtype, fold, shard) DO UPDATE SET n = a.n + excluded.n, v = a.v + 1;
    DELETE FROM contact_values cv
    USING old_contacts c, LATERAL (SELECT DISTINCT r.key FROM herald_value_rows(c.data) r) k
    WHERE c.data <> '{}' AND cv.project_id = c.project_id AND cv.key = k.key AND cv.contact_id = c.id;
    DELETE FROM events e
    USING old_contacts c,
          LATERAL (SELECT DISTINCT a.key FROM audience_counts a WHERE a.project_id = c.project_id AND a.kind = 3) names
    WHERE e.project_id = c.project_id AND e.name = names.key AND e.contact_id = c.id;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER contacts_deleted AFTER DELETE ON contacts
    REFERENCING OLD TABLE AS old_contacts FOR EACH STATEMENT EXECUTE FUNCTION herald_contacts_deleted();

-- A contact's data changed: remove the rows its new data no longer has
-- (compared by exact text, so a change of case replaces the row), add the
-- new ones (those already present are kept).
-- +goose StatementBegin
CREATE FUNCTION herald_contact_data_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF OLD.data <> '{}' THEN
        DELETE FROM contact_values cv
        USING (SELECT key, vtype, value FROM herald_value_rows(OLD.data)
               EXCEPT
               SELECT key, vtype, value FROM herald_value_rows(NEW.data)) gone
        WHERE cv.project_id = OLD.project_id AND cv.key = gone.key AND cv.contact_id = OLD.id
          AND cv.vtype = gone.vtype AND cv.fold = herald_value_fold(gone.vtype, gone.value);
    END IF;
    IF NEW.data <> '{}' THEN
        INSERT INTO contact_values (project_id, key, vtype, value, contact_id, contact_num)
        SELECT NEW.project_id, r.key, r.vtype, r.value, NEW.id, NEW.num FROM herald_value_rows(NEW.data) r
        ON CONFLICT DO NOTHING;
    END IF;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER contact_values_update AFTER UPDATE OF data ON contacts
    FOR EACH ROW WHEN (OLD.data IS DISTINCT FROM NEW.data) EXECUTE FUNCTION herald_contact_data_changed();

-- +goose StatementBegin
CREATE FUNCTION herald_contact_subscription_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO audience_counts AS a (project_id, kind, key, vtype, fold, shard, n, v)
    VALUES (NEW.project_id, 4, '', 0, '', herald_shard(), CASE WHEN NEW.subscribed THEN -1 ELSE 1 END, 1)
    ON CONFLICT (project_id, kind, key, vtype, fold, shard) DO UPDATE SET n = a.n + excluded.n, v = a.v + 1;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER audience_counts_contact_subscription AFTER UPDATE OF subscribed ON contacts
    FOR EACH ROW WHEN (OLD.subscribed IS DISTINCT FROM NEW.subscribed)
    EXECUTE FUNCTION herald_contact_subscription_changed();

-- Rows added to contact_values: kind 1 per value, and kind 2 per key,
-- whose n counts a contact when the statement gave it its first row of
-- the key (every row of the key moves the key's v, as on SQLite). Rows of
-- one contact change only under that contact's row lock (the contacts
-- triggers write them), so the probe cannot race another writer.
-- +goose StatementBegin
CREATE FUNCTION herald_values_inserted() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO audience_counts AS a (project_id, kind, key, vtype, fold, shard, n, v)
    SELECT project_id, 1, key, vtype, fold, herald_shard(), count(*), count(*) FROM new_values
    GROUP BY project_id, key, vtype, fold
    ON CONFLICT (project_id, kind, key, vtype, fold, shard) DO UPDATE SET n = a.n + excluded.n, v = a.v + excluded.v;
    INSERT INTO audience_counts AS a (project_id, kind, key, vtype, fold, shard, n, v)
    SELECT g.project_id, 2, g.key, 0, '', herald_shard(),
           count(*) FILTER (WHERE NOT EXISTS (
               SELECT 1 FROM contact_values cv
               WHERE cv.project_id = g.project_id AND cv.key = g.key AND cv.contact_id = g.contact_id
                 AND NOT EXISTS (SELECT 1 FROM new_values nv
                                 WHERE nv.project_id = cv.project_id AND nv.key = cv.key
                                   AND nv.contact_id = cv.contact_id AND nv.vtype = cv.vtype AND nv.fold = cv.fold))),
           sum(g.rows)
    FROM (SELECT project_id, key, contact_id, count(*) AS rows FROM new_values GROUP BY project_id, key, contact_id) g
    GROUP BY g.project_id, g.key
    ON CONFLICT (project_id, kind, key, vtype, fold, shard) DO UPDATE SET n = a.n + excluded.n, v = a.v + excluded.v;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER audience_counts_value_insert AFTER INSERT ON contact_values
    REFERENCING NEW TABLE AS new_values FOR EACH STATEMENT EXECUTE FUNCTION herald_values_inserted();

-- +goose StatementBegin
CREATE FUNCTION herald_values_deleted() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO audience_counts AS a (project_id, kind, key, vtype, fold, shard, n, v)
    SELECT project_id, 1, key, vtype, fold, herald_shard(), -count(*), count(*) FROM old_values
    WHERE EXISTS (SELECT 1 FROM projects p WHERE p.id = project_id)
    GROUP BY project_id, key, vtype, fold
    ON CONFLICT (project_id, kind, key, vtype, fold, shard) DO UPDATE SET n = a.n + excluded.n, v = a.v + excluded.v;
    INSERT INTO audience_counts AS a (project_id, kind, key, vtype, fold, shard, n, v)
    SELECT g.project_id, 2, g.key, 0, '', herald_shard(),
           -count(*) FILTER (WHERE NOT EXISTS (
               SELECT 1 FROM contact_values cv
               WHERE cv.project_id = g.project_id AND cv.key = g.key AND cv.contact_id = g.contact_id)),
           sum(g.rows)
    FROM (SELECT project_id, key, contact_id, count(*) AS rows FROM old_values GROUP BY project_id, key, contact_id) g
    WHERE EXISTS (SELECT 1 FROM projects p WHERE p.id = g.project_id)
    GROUP BY g.project_id, g.key
    ON CONFLICT (project_id, kind, key, vtype, fold, shard) DO UPDATE SET n = a.n + excluded.n, v = a.v + excluded.v;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER audience_counts_value_delete AFTER DELETE ON contact_values
    REFERENCING OLD TABLE AS old_values FOR EACH STATEMENT EXECUTE FUNCTION herald_values_deleted();

-- An event names an existing contact or none (SQLite's
-- events_contact_exists and events_contact_moved, same SQLSTATE as a
-- foreign key). The check locks the contact's row until the transaction
-- ends, so that events of one contact are written one transaction at a
-- time: the count of contacts with an event name (kind 3) probes for an
-- earlier event of the contact, which a concurrent, uncommitted writer
-- would otherwise hide. It also records the contact's number.
-- +goose StatementBegin
CREATE FUNCTION herald_event_contact_check() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    SELECT num INTO NEW.contact_num FROM contacts WHERE id = NEW.contact_id FOR NO KEY UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'FOREIGN KEY constraint failed' USING ERRCODE = 'foreign_key_violation',
            DETAIL = format('Key (contact_id)=(%s) is not present in table "contacts".', NEW.contact_id);
    END IF;
    RETURN NEW;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER events_contact_exists BEFORE INSERT ON events
    FOR EACH ROW WHEN (NEW.contact_id IS NOT NULL) EXECUTE FUNCTION herald_event_contact_check();
CREATE TRIGGER events_contact_moved BEFORE UPDATE OF contact_id ON events
    FOR EACH ROW WHEN (NEW.contact_id IS NOT NULL) EXECUTE FUNCTION herald_event_contact_check();

-- kind 3: a contact counts for a name with its first event of the name.
-- +goose StatementBegin
CREATE FUNCTION herald_events_inserted() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO audience_counts AS a (project_id, kind, key, vtype, fold, shard, n, v)
    SELECT g.project_id, 3, g.name, 0, '', herald_shard(), count(*), count(*)
    FROM (SELECT DISTINCT project_id, name, contact_id FROM new_events WHERE contact_id IS NOT NULL) g
    WHERE NOT EXISTS (SELECT 1 FROM events e
                      WHERE e.project_id = g.project_id AND e.name = g.name AND e.contact_id = g.contact_id
                        AND NOT EXISTS (SELECT 1 FROM new_events ne WHERE ne.project_id = e.project_id AND ne.id = e.id))
    GROUP BY g.project_id, g.name
    ON CONFLICT (project_id, kind, key, vtype, fold, shard) DO UPDATE SET n = a.n + excluded.n, v = a.v + excluded.v;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER audience_counts_event_insert AFTER INSERT ON events
    REFERENCING NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION herald_events_inserted();

-- +goose StatementBegin
CREATE FUNCTION herald_events_deleted() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO audience_counts AS a (project_id, kind, key, vtype, fold, shard, n, v)
    SELECT g.project_id, 3, g.name, 0, '', herald_shard(), -count(*), count(*)
    FROM (SELECT DISTINCT project_id, name, contact_id FROM old_events WHERE contact_id IS NOT NULL) g
    WHERE NOT EXISTS (SELECT 1 FROM events e
                      WHERE e.project_id = g.project_id AND e.name = g.name AND e.contact_id = g.contact_id)
      AND EXISTS (SELECT 1 FROM projects p WHERE p.id = g.project_id)
    GROUP BY g.project_id, g.name
    ON CONFLICT (project_id, kind, key, vtype, fold, shard) DO UPDATE SET n = a.n + excluded.n, v = a.v + excluded.v;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER audience_counts_event_delete AFTER DELETE ON events
    REFERENCING OLD TABLE AS old_events FOR EACH STATEMENT EXECUTE FUNCTION herald_events_deleted();

-- A deleted project's counters go with it (SQLite deletes each row as its
-- n reaches 0; here rows stay at n = 0). PostgreSQL may run the cascades
-- to its contacts and events before or after this trigger: the deletion
-- triggers above count nothing for a project that is gone.
-- +goose StatementBegin
CREATE FUNCTION herald_projects_deleted() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM audience_counts a USING old_projects p WHERE a.project_id = p.id;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER audience_counts_project_delete AFTER DELETE ON projects
    REFERENCING OLD TABLE AS old_projects FOR EACH STATEMENT EXECUTE FUNCTION herald_projects_deleted();

-- +goose Down
DROP VIEW contact_value_rows;
DROP TABLE uploads, user_tokens, project_members, sessions, users, workflow_inbox,
    workflow_step_executions, workflow_executions, workflow_transitions, workflow_steps, workflows,
    email_bodies, campaigns, settings, emails, audience_counts, contact_values, segment_members, segments,
    templates, domains, idempotency_keys, jobs, events, contacts, projects;
DROP FUNCTION herald_projects_deleted, herald_events_deleted, herald_events_inserted, herald_event_contact_check,
    herald_values_deleted, herald_values_inserted, herald_contact_subscription_changed,
    herald_contact_data_changed, herald_contacts_deleted, herald_contacts_inserted,
    herald_shard, herald_value_rows, herald_date_ms, herald_value_fold, herald_number, herald_fold;
