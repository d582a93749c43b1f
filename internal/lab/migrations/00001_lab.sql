-- Version 1: the lab's own tables beside River's and the store's. The same
-- SQL serves SQLite and PostgreSQL; times are Unix nanoseconds.
--
-- lab_agents holds each agent's heartbeat: who it is, what it runs on and
-- which job it is running. lab_sets and lab_runs are what a job measured,
-- written as it measures: the result set of each of the job's cells
-- without its runs (the first attempt's), and every run under its
-- idempotency key (job, cell, benchmark, warm-up, run index), inserted
-- once whatever River's at-least-once delivery runs again. They are only
-- ever inserted into.

-- +goose Up
CREATE TABLE lab_agents (
    name      TEXT PRIMARY KEY,
    client_id TEXT NOT NULL,
    queue     TEXT NOT NULL,
    labels    TEXT NOT NULL,
    kernel    TEXT NOT NULL,
    boot_id   TEXT NOT NULL,
    load      DOUBLE PRECISION NOT NULL,
    job_id    BIGINT NOT NULL,
    lease_ns  BIGINT NOT NULL,
    started   BIGINT NOT NULL,
    seen      BIGINT NOT NULL,
    stopped   INTEGER NOT NULL
);

CREATE TABLE lab_sets (
    job_id BIGINT NOT NULL,
    cell   TEXT NOT NULL,
    set_id TEXT NOT NULL,
    body   TEXT NOT NULL,
    PRIMARY KEY (job_id, cell)
);

CREATE TABLE lab_runs (
    job_id  BIGINT NOT NULL,
    cell    TEXT NOT NULL,
    bench   INTEGER NOT NULL,
    warmup  INTEGER NOT NULL,
    run     INTEGER NOT NULL,
    attempt INTEGER NOT NULL,
    agent   TEXT NOT NULL,
    start   BIGINT NOT NULL,
    body    TEXT NOT NULL,
    PRIMARY KEY (job_id, cell, bench, warmup, run)
);

-- lab_attempts records each attempt that completed a job, for jobs show
-- and bench/lab.sh: when River claimed it, when the agent started it and
-- when it finished.
CREATE TABLE lab_attempts (
    job_id   BIGINT NOT NULL,
    attempt  INTEGER NOT NULL,
    agent    TEXT NOT NULL,
    claimed  BIGINT NOT NULL,
    started  BIGINT NOT NULL,
    finished BIGINT NOT NULL,
    PRIMARY KEY (job_id, attempt)
);

-- +goose Down
DROP TABLE lab_attempts;
DROP TABLE lab_runs;
DROP TABLE lab_sets;
DROP TABLE lab_agents;
