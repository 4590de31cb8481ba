-- 0019_coverage_pre: the coverage's intervals pre-bucketed, so that a chart of a long
-- range (/coverage?points=) reads a bucket per pre-bucket and not every interval
-- (issue 34, item 3: a year of 1 s is 3.2·10^7 intervals a scope).
--   coverage_pre  per scope, level (a pre-bucket width: 10, 60, 600, 3600 or 21600 s,
--                 those at least 4 intervals wide that the grid divides, on grids that
--                 divide a day) and pre-bucket b: the intervals whose middle
--                 T_i − Δ/2 lies in [b·level, (b + 1)·level), their count, those with
--                 D and S present and the sums over them (in end_s order), the least
--                 and most D and S, and the first and last T_i. Written with the
--                 intervals, a day at a time (a pre-bucket never crosses midnight).
CREATE TABLE coverage_pre (
    scope       text NOT NULL REFERENCES coverage (scope) ON DELETE CASCADE,
    level_s     double precision NOT NULL,
    b           bigint NOT NULL,
    n           bigint NOT NULL,
    both_n      bigint NOT NULL,
    sum_d_bytes double precision NOT NULL,
    sum_s_bytes double precision NOT NULL,
    d_min       double precision,
    d_max       double precision,
    s_min       double precision,
    s_max       double precision,
    first_end_s double precision NOT NULL,
    last_end_s  double precision NOT NULL,
    PRIMARY KEY (scope, level_s, b)
);

CREATE TRIGGER data_version_bump AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
    ON coverage_pre FOR EACH STATEMENT EXECUTE FUNCTION data_version_bump();

-- The intervals stored before have none: they are computed whole once more (a scope
-- without day rows has its intervals recomputed, migration 0018).
DELETE FROM coverage_days;
