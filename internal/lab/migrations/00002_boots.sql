-- Version 2: the boots of kexec jobs. An agent inserts a job's row in
-- the transaction before it reboots into the job's kernel: the release
-- and command line the kernel must come up with, the boot id it left, and
-- the deadline of its return; base is the command line the job's
-- arguments were appended to, which the next boot step appends to again,
-- whatever kernel runs then. After the boot the agent finds the row,
-- checks the running kernel against it, and completes the boot step in
-- the transaction that queues the measuring step. Rows are only ever
-- inserted.

-- +goose Up
CREATE TABLE lab_boots (
    job_id   BIGINT PRIMARY KEY,
    agent    TEXT NOT NULL,
    kernel   TEXT NOT NULL,
    release  TEXT NOT NULL,
    cmdline  TEXT NOT NULL,
    base     TEXT NOT NULL,
    boot_id  TEXT NOT NULL,
    deadline BIGINT NOT NULL,
    recorded BIGINT NOT NULL
);

-- +goose Down
DROP TABLE lab_boots;
