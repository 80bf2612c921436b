-- A round's play at each table, from the tables' own uploads (docs/club.md,
-- "Competitions"): where the round starts in each table's chain, and the
-- commands the club server has for a table (a new match at the round's start,
-- time called), delivered to its host in the upload's replies.

-- when the director starts a round, each seated table's chain index then:
-- the round's match at that table is the first new match from there on, up
-- to the next round's mark at the same table
CREATE TABLE round_marks(
    comp_id bigint NOT NULL REFERENCES competitions,
    round_id bigint NOT NULL REFERENCES rounds,
    table_label text NOT NULL,
    table_id bigint REFERENCES tables,   -- NULL: no table of that label heard yet
    start_idx int NOT NULL DEFAULT 0 CHECK (start_idx >= 0),
    marked_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY(round_id, table_label)
);
CREATE INDEX round_marks_table ON round_marks(table_id, start_idx);

-- a command for a table, offered to the host that last uploaded the table
-- until that host acknowledges it (done_at, with the table's reply)
CREATE TABLE table_commands(
    cmd_id bigserial PRIMARY KEY,
    comp_id bigint NOT NULL REFERENCES competitions,
    round_id bigint NOT NULL REFERENCES rounds,
    table_id bigint NOT NULL REFERENCES tables,
    kind text NOT NULL CHECK (kind IN ('new_match', 'call_time')),
    created_at timestamptz NOT NULL DEFAULT now(),
    offered_at timestamptz,
    done_at timestamptz,
    ok boolean,
    reply text,
    UNIQUE(round_id, table_id, kind)
);
CREATE INDEX table_commands_open ON table_commands(table_id) WHERE done_at IS NULL;

-- every hand's record of a published round, in the strict export form
-- (competition.store.export_hands), beside the per-match one
ALTER TABLE publications ADD COLUMN hands_export text NOT NULL DEFAULT '';
