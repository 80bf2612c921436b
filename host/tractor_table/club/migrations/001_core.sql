-- The club's facts: tokens, hosts, tables, what each host's records hold
-- (sessions, notes, snapshots, events, verdicts), alerts. Facts are never
-- deleted: a superseded event is kept, marked (docs/club.md, "The schema").
-- comp_id is the competition a fact belongs to (0: open play); it is in every
-- fact table so a league can distribute them by it (docs/club.md, "Growing").

CREATE TABLE tokens(
    token_id bigserial PRIMARY KEY,
    name text NOT NULL UNIQUE CHECK (length(name) BETWEEN 1 AND 100),
    token_sha256 bytea NOT NULL UNIQUE,
    created_at timestamptz NOT NULL DEFAULT now(),
    revoked_at timestamptz
);

CREATE TABLE hosts(
    host_id uuid PRIMARY KEY,
    token_id bigint NOT NULL REFERENCES tokens,
    name text,
    sw_version text,
    first_seen timestamptz NOT NULL DEFAULT now(),
    last_seen timestamptz NOT NULL DEFAULT now(),
    clock_skew_ms bigint,
    acked_seq bigint NOT NULL DEFAULT 0 CHECK (acked_seq >= 0),
    heartbeat_at timestamptz,
    pending int
);

CREATE TABLE tables(
    table_id bigserial PRIMARY KEY,
    uid text NOT NULL UNIQUE,
    label text NOT NULL UNIQUE,
    first_seen timestamptz NOT NULL DEFAULT now(),
    last_seen timestamptz NOT NULL DEFAULT now()
);

-- the serialisation point of a table's chain: count = 1 + the highest current
-- index, head = its hash; host_* are what the last heartbeat said
CREATE TABLE table_heads(
    table_id bigint PRIMARY KEY REFERENCES tables,
    count int NOT NULL DEFAULT 0,
    head bigint NOT NULL DEFAULT 0,
    updated_at timestamptz NOT NULL DEFAULT now(),
    host_id uuid REFERENCES hosts,
    host_count int,
    host_head bigint,
    link_state text,
    host_seen_at timestamptz,
    host_pending int
);

CREATE TABLE sessions(
    session_pk bigserial PRIMARY KEY,
    comp_id bigint NOT NULL DEFAULT 0,
    host_id uuid NOT NULL REFERENCES hosts,
    local_id bigint NOT NULL,
    table_id bigint NOT NULL REFERENCES tables,
    boot_id bigint, fw_version text, rules_id text,
    source text, port text, host_version text, rules text,
    up_at text, synced_at text, down_at text, down_reason text,
    table_count int, table_head bigint, agree int,
    UNIQUE(host_id, local_id)
);

CREATE TABLE notes(
    comp_id bigint NOT NULL DEFAULT 0,
    host_id uuid NOT NULL REFERENCES hosts,
    local_id bigint NOT NULL,
    session_pk bigint REFERENCES sessions,
    at text NOT NULL,
    kind text NOT NULL,
    detail text NOT NULL,
    PRIMARY KEY(host_id, local_id)
);

CREATE TABLE snapshots(
    comp_id bigint NOT NULL DEFAULT 0,
    host_id uuid NOT NULL REFERENCES hosts,
    local_id bigint NOT NULL,
    table_id bigint NOT NULL REFERENCES tables,
    session_pk bigint REFERENCES sessions,
    count int NOT NULL CHECK (count >= 0),
    head bigint NOT NULL CHECK (head BETWEEN 0 AND 4294967295),
    data bytea,
    pushed boolean NOT NULL,
    received_at text NOT NULL,
    PRIMARY KEY(host_id, local_id)
);
CREATE INDEX snapshots_at ON snapshots(table_id, count);

CREATE TABLE events(
    event_pk bigserial PRIMARY KEY,
    comp_id bigint NOT NULL DEFAULT 0,
    table_id bigint NOT NULL REFERENCES tables,
    idx int NOT NULL CHECK (idx >= 0),
    hash bigint NOT NULL CHECK (hash BETWEEN 0 AND 4294967295),
    canon text NOT NULL,          -- the exact canonical JSON the chain hashed
    kind smallint NOT NULL,
    host_id uuid NOT NULL REFERENCES hosts,
    session_pk bigint REFERENCES sessions,
    received_at text NOT NULL,    -- the host's clock
    ingested_at timestamptz NOT NULL DEFAULT now(),
    current boolean NOT NULL DEFAULT true,
    superseded_at text,
    superseded_why text,
    replaces bigint REFERENCES events,
    UNIQUE(table_id, idx, hash)
);
CREATE UNIQUE INDEX events_current ON events(table_id, idx) WHERE current;

CREATE TABLE verdicts(
    comp_id bigint NOT NULL DEFAULT 0,
    host_id uuid NOT NULL REFERENCES hosts,
    event_pk bigint NOT NULL REFERENCES events,
    session_pk bigint NOT NULL REFERENCES sessions,
    verdict text NOT NULL CHECK (verdict IN ('agreed', 'disagreed', 'unchecked', 'not verified')),
    what text, host_event text, table_hash bigint, host_hash bigint, fields text,
    table_text text, host_text text,
    PRIMARY KEY(event_pk, session_pk)
);

CREATE TABLE alerts(
    alert_id bigserial PRIMARY KEY,
    at timestamptz NOT NULL DEFAULT now(),
    table_id bigint REFERENCES tables,
    host_id uuid,
    kind text NOT NULL,
    detail text NOT NULL,
    cleared_at timestamptz
);

-- requests refused for want of a valid token (who tried, from where)
CREATE TABLE refused(
    at timestamptz NOT NULL DEFAULT now(),
    remote text NOT NULL,
    method text NOT NULL,
    path text NOT NULL,
    why text NOT NULL
);

-- the table page reads the hand in progress and the hands' ends by kind
CREATE INDEX events_kind ON events(table_id, kind, idx) WHERE current;
CREATE INDEX alerts_open ON alerts(table_id) WHERE cleared_at IS NULL;
