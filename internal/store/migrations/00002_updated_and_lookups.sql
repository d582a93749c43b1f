-- Version 2: sets.updated, the time of the last write of a set that kdelta
-- run records run by run (an interrupted set shows when it stopped), and
-- indexes for the lookups that results ls and history make: sets by label
-- and benchmarks by workload.

-- +goose Up
ALTER TABLE sets ADD COLUMN updated BIGINT NOT NULL DEFAULT 0;
UPDATE sets SET updated = created;
CREATE INDEX labels_name_value ON labels (name, value);
CREATE INDEX benchmarks_workload ON benchmarks (workload);

-- +goose Down
DROP INDEX benchmarks_workload;
DROP INDEX labels_name_value;
ALTER TABLE sets DROP COLUMN updated;
