-- Version 3: the session noise of a host, as kdelta calibrate measures it
-- over back-to-back A/A sessions: per host, workload, parameters, run
-- conditions (CPUs allowed and scheduling policy) and metric, the spread
-- of a session's centre on the log scale (sd, floored at zero, and mean_sd,
-- the spread of the session means as measured with runs runs a session)
-- and its degrees of freedom (sessions − 1). A newer calibration of the
-- same key replaces the older.

-- +goose Up
CREATE TABLE session_noise (
    host       TEXT NOT NULL,
    workload   TEXT NOT NULL,
    params     TEXT NOT NULL,
    conditions TEXT NOT NULL,
    metric     TEXT NOT NULL,
    sd         DOUBLE PRECISION NOT NULL,
    mean_sd    DOUBLE PRECISION NOT NULL,
    runs       DOUBLE PRECISION NOT NULL,
    df         INTEGER NOT NULL,
    measured   BIGINT NOT NULL,
    PRIMARY KEY (host, workload, params, conditions, metric)
);

-- +goose Down
DROP TABLE session_noise;
