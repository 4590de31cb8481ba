-- 0005_group_table_coverage: results hold a third kind, 'group_table' (METHOD.md §4:
-- a group's job count, features, time metrics and T^D histogram; granularity_s is
-- the base Δ, y, x and space are ''). Coverage (METHOD.md §7) belongs to a file
-- system, not a group, so it has its own tables: one row per scope ('all', or
-- 'fs:NAME' as the scope parameter says) and its per-interval volumes.
ALTER TABLE results DROP CONSTRAINT results_kind_check;
ALTER TABLE results ADD CONSTRAINT results_kind_check
    CHECK (kind IN ('association', 'sweep', 'group_table'));

CREATE TABLE coverage (
    scope         text PRIMARY KEY,           -- 'all' or 'fs:NAME'
    granularity_s double precision NOT NULL,  -- Δ of the grid
    coverage      double precision,           -- Σ D / Σ S; NULL when Σ S = 0
    sum_d_bytes   double precision NOT NULL,  -- over intervals with D and S present
    sum_s_bytes   double precision NOT NULL,
    intervals     integer NOT NULL,           -- those intervals
    d_total_bytes double precision NOT NULL,  -- every window byte of the scope
    log_start_s   double precision NOT NULL,  -- the span the logs cover
    log_end_s     double precision NOT NULL,
    computed_at   timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE coverage_intervals (
    scope   text NOT NULL REFERENCES coverage (scope) ON DELETE CASCADE,
    end_s   double precision NOT NULL,  -- T_i: the interval is (T_i − Δ, T_i]
    d_bytes double precision,           -- D_i; NULL outside the logged span
    s_bytes double precision,           -- S_i = (R_i + W_i)·Δ; NULL at a hole
    PRIMARY KEY (scope, end_s)
);
