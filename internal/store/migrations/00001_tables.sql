-- Version 1: result sets, their labels, benchmarks, metrics, runs and the
-- metric values of every run. The same SQL serves SQLite and PostgreSQL:
-- times are Unix nanoseconds (BIGINT), flags are 0/1 (INTEGER), and the
-- whole set is kept as JSON in sets.body so nothing the tables leave out
-- is lost.

-- +goose Up
CREATE TABLE sets (
    id       TEXT PRIMARY KEY,
    created  BIGINT NOT NULL,
    tool     TEXT NOT NULL,
    kernel   TEXT NOT NULL,
    complete INTEGER NOT NULL,
    body     TEXT NOT NULL
);

CREATE TABLE labels (
    set_id TEXT NOT NULL REFERENCES sets (id) ON DELETE CASCADE,
    name   TEXT NOT NULL,
    value  TEXT NOT NULL,
    PRIMARY KEY (set_id, name)
);

CREATE TABLE benchmarks (
    set_id   TEXT NOT NULL REFERENCES sets (id) ON DELETE CASCADE,
    bench    INTEGER NOT NULL,
    workload TEXT NOT NULL,
    params   TEXT NOT NULL, -- a JSON object
    skipped  TEXT NOT NULL,
    PRIMARY KEY (set_id, bench)
);

CREATE TABLE metrics (
    set_id TEXT NOT NULL,
    bench  INTEGER NOT NULL,
    pos    INTEGER NOT NULL,
    name   TEXT NOT NULL,
    unit   TEXT NOT NULL,
    better TEXT NOT NULL,
    PRIMARY KEY (set_id, bench, pos),
    FOREIGN KEY (set_id, bench) REFERENCES benchmarks (set_id, bench) ON DELETE CASCADE
);

CREATE TABLE runs (
    set_id  TEXT NOT NULL,
    bench   INTEGER NOT NULL,
    pos     INTEGER NOT NULL,
    run     INTEGER NOT NULL,
    warmup  INTEGER NOT NULL,
    status  TEXT NOT NULL,
    start   BIGINT NOT NULL,
    wall_s  DOUBLE PRECISION NOT NULL,
    user_s  DOUBLE PRECISION NOT NULL,
    sys_s   DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (set_id, bench, pos),
    FOREIGN KEY (set_id, bench) REFERENCES benchmarks (set_id, bench) ON DELETE CASCADE
);

CREATE TABLE run_values (
    set_id TEXT NOT NULL,
    bench  INTEGER NOT NULL,
    pos    INTEGER NOT NULL,
    metric TEXT NOT NULL,
    value  DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (set_id, bench, pos, metric),
    FOREIGN KEY (set_id, bench, pos) REFERENCES runs (set_id, bench, pos) ON DELETE CASCADE
);

CREATE INDEX sets_created ON sets (created);

-- +goose Down
DROP TABLE run_values;
DROP TABLE runs;
DROP TABLE metrics;
DROP TABLE benchmarks;
DROP TABLE labels;
DROP TABLE sets;
