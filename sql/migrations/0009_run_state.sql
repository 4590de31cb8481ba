-- 0009_run_state: a run that never ended is told apart from one still running, and
-- what the group tables and the coverage were computed from is kept, so that an
-- `analyze` killed after its last group and before them recomputes them.
--
-- interrupted_at: set by the next run of the kind, which holds the run lock and so
-- knows that no run left without a finished_at is still alive.
ALTER TABLE ingest_runs ADD COLUMN interrupted_at timestamptz;

-- One row per thing `analyze` derives from every group at once: 'tables' (the group
-- tables of METHOD.md §4 and the coverage of §7). fingerprint: md5 of every group's
-- association fingerprint (group_inputs) and the settings the tables read.
CREATE TABLE derived_inputs (
    name        text PRIMARY KEY,
    fingerprint text NOT NULL,
    computed_at timestamptz NOT NULL DEFAULT now()
);
