-- The competition layer (docs/club.md, "Competitions"): facts only. Standings are
-- never stored as the truth: tractor_table.competition.standings.rank() derives
-- them from results + adjustments + scoring, live and into each publication.
-- Adjustments are append-only (a revoke is a new row); a publication is a new
-- version, never an update.

CREATE TABLE directors(
    director_id bigserial PRIMARY KEY,
    name text NOT NULL UNIQUE CHECK (length(name) BETWEEN 1 AND 100),
    kdf text NOT NULL,              -- 'scrypt$n$r$p$salt_hex$key_hex'
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE director_sessions(
    sid_sha256 bytea PRIMARY KEY,   -- the cookie is never stored, only its digest
    director_id bigint NOT NULL REFERENCES directors,
    csrf text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL
);

CREATE TABLE competitions(
    comp_id bigserial PRIMARY KEY,
    name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
    site text NOT NULL DEFAULT '',
    starts_on date NOT NULL DEFAULT current_date,
    movement text NOT NULL DEFAULT 'swiss' CHECK (movement IN ('swiss', 'round_robin')),
    scoring jsonb NOT NULL,         -- Scoring.to_dict()
    correction_minutes int NOT NULL DEFAULT 30 CHECK (correction_minutes >= 0),
    lots_seed bigint NOT NULL DEFAULT 0,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE comp_sessions(
    comp_session_id bigserial PRIMARY KEY,
    comp_id bigint NOT NULL REFERENCES competitions,
    no int NOT NULL CHECK (no >= 1),
    starts_at timestamptz,
    UNIQUE(comp_id, no)
);

CREATE TABLE rounds(
    round_id bigserial PRIMARY KEY,
    comp_id bigint NOT NULL REFERENCES competitions,
    comp_session_id bigint NOT NULL REFERENCES comp_sessions,
    no int NOT NULL CHECK (no >= 1),
    time_limit_min int CHECK (time_limit_min > 0),
    deal_limit int CHECK (deal_limit > 0),
    state text NOT NULL DEFAULT 'draft'
        CHECK (state IN ('draft', 'seated', 'playing', 'time_called', 'closed', 'published')),
    started_at timestamptz, time_called_at timestamptz, closed_at timestamptz,
    UNIQUE(comp_id, no)
);

CREATE TABLE players(
    player_id bigserial PRIMARY KEY,
    comp_id bigint NOT NULL REFERENCES competitions,
    key text NOT NULL,              -- '#member_no', or the name when there is none
    name text NOT NULL,
    member_no text NOT NULL DEFAULT '',
    club text NOT NULL DEFAULT '',
    UNIQUE(comp_id, key)
);

CREATE TABLE entries(
    entry_id bigserial PRIMARY KEY,
    comp_id bigint NOT NULL REFERENCES competitions,
    kind text NOT NULL CHECK (kind IN ('pair', 'team')),
    name text NOT NULL,
    seed_no int NOT NULL,
    UNIQUE(comp_id, name),
    UNIQUE(comp_id, seed_no)
);

CREATE TABLE entry_members(
    comp_id bigint NOT NULL REFERENCES competitions,
    entry_id bigint NOT NULL REFERENCES entries,
    player_id bigint NOT NULL REFERENCES players,
    pair_no int NOT NULL CHECK (pair_no >= 1),
    pos smallint NOT NULL CHECK (pos IN (0, 1)),
    PRIMARY KEY(entry_id, pair_no, pos),
    UNIQUE(comp_id, player_id)
);

-- the round's pairing as drawn (Swiss or Berger), side 0 first; entry_b NULL = a bye
CREATE TABLE pairings(
    comp_id bigint NOT NULL REFERENCES competitions,
    round_id bigint NOT NULL REFERENCES rounds,
    pos int NOT NULL,
    entry_a bigint NOT NULL REFERENCES entries,
    entry_b bigint REFERENCES entries,
    PRIMARY KEY(round_id, pos)
);

-- a table and its seats bound to entries for a round (by the table's label)
CREATE TABLE seatings(
    comp_id bigint NOT NULL REFERENCES competitions,
    round_id bigint NOT NULL REFERENCES rounds,
    table_label text NOT NULL,
    seat smallint NOT NULL CHECK (seat BETWEEN 0 AND 3),
    entry_id bigint NOT NULL REFERENCES entries,
    player_id bigint NOT NULL REFERENCES players,
    entered_by text NOT NULL,
    PRIMARY KEY(round_id, table_label, seat),
    UNIQUE(round_id, player_id)
);

-- a table's match result in a round: from the table's records ('table') or
-- entered by the director ('director'); the latest row per (round, table) counts
CREATE TABLE results(
    result_id bigserial PRIMARY KEY,
    comp_id bigint NOT NULL REFERENCES competitions,
    round_id bigint NOT NULL REFERENCES rounds,
    table_label text NOT NULL,
    status text NOT NULL CHECK (status IN ('finished', 'playing', 'not_played')),
    level0 smallint CHECK (level0 BETWEEN 0 AND 12),
    level1 smallint CHECK (level1 BETWEEN 0 AND 12),
    passed smallint CHECK (passed IN (0, 1)),
    deals int NOT NULL DEFAULT 0,
    source text NOT NULL CHECK (source IN ('table', 'director')),
    at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX results_latest ON results(round_id, table_label, result_id);

CREATE TABLE adjustments(
    adj_id bigserial PRIMARY KEY,
    comp_id bigint NOT NULL REFERENCES competitions,
    round_id bigint NOT NULL REFERENCES rounds,
    table_label text,
    entry_id bigint REFERENCES entries,
    kind text NOT NULL
        CHECK (kind IN ('score', 'level', 'penalty', 'forfeit', 'walkover', 'revoke')),
    value int NOT NULL DEFAULT 0,
    revokes bigint REFERENCES adjustments,
    reason text NOT NULL CHECK (length(reason) BETWEEN 1 AND 500),
    director text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX adjustments_revoked_once ON adjustments(revokes) WHERE revokes IS NOT NULL;

CREATE TABLE publications(
    pub_id bigserial PRIMARY KEY,
    comp_id bigint NOT NULL REFERENCES competitions,
    round_id bigint NOT NULL REFERENCES rounds,
    version int NOT NULL CHECK (version >= 1),
    published_at timestamptz NOT NULL DEFAULT now(),
    correction_until timestamptz NOT NULL,
    director text NOT NULL,
    standings jsonb NOT NULL,
    results_export text NOT NULL,   -- the strict per-match export form
    diff_from_prev text NOT NULL DEFAULT '',
    UNIQUE(round_id, version)
);
