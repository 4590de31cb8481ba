-- 0018_coverage_days: the coverage (METHOD.md §7) kept a day at a time, so that
-- analyze recomputes only the days whose inputs changed (issue 34, item 3): a night
-- adds a day of samples and the days its jobs touch, not the history.
--   coverage_days  per scope and UTC day of T_{i-1} that holds kept intervals: key,
--                  an md5 of what the day's D_i and S_i are computed from (the jobs'
--                  windows and spans that reach the day, the logged span there, Δ,
--                  the gap rule, and the stored series days within its reach), and
--                  the day's sums over its intervals with D and S present. Its
--                  intervals are the rows of coverage_intervals in that day.
-- Empty after the upgrade: the first analyze computes every day (a scope with no day
-- rows has its intervals recomputed).
CREATE TABLE coverage_days (
    scope       text NOT NULL REFERENCES coverage (scope) ON DELETE CASCADE,
    day         bigint NOT NULL,
    key         text NOT NULL,
    sum_d_bytes double precision NOT NULL,
    sum_s_bytes double precision NOT NULL,
    intervals   bigint NOT NULL,
    PRIMARY KEY (scope, day)
);

CREATE TRIGGER data_version_bump AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE
    ON coverage_days FOR EACH STATEMENT EXECUTE FUNCTION data_version_bump();
