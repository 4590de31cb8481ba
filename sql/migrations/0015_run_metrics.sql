-- 0015_run_metrics: what the server's /metrics says of the nightly runs, read cheaply.
--   ingest_runs.failed            the run ended with an error (finished_at is still
--                                 set); false in every row before this version
--   ingest_runs.seconds           the run's wall time as ingest measured it (its files'
--                                 listing included); NULL before this version
--   analysis_runs.kind            'association' (analyze) or 'sweep' (analyze --sweep);
--                                 'association' in every row before this version,
--                                 whichever it was
--   analysis_runs.excluded_by_reason
--                                 {"hole": 3, "no_io": 1, …}: the jobs the run left out
--                                 of its first pair, by reason (every reason, 0
--                                 included); NULL when not recorded (a sweep, and every
--                                 row before this version)
--   jobs_end_idx                  the newest job's end is one index probe
ALTER TABLE ingest_runs ADD COLUMN failed boolean NOT NULL DEFAULT false;
ALTER TABLE ingest_runs ADD COLUMN seconds double precision;
ALTER TABLE analysis_runs ADD COLUMN kind text NOT NULL DEFAULT 'association';
ALTER TABLE analysis_runs ADD COLUMN excluded_by_reason jsonb;
CREATE INDEX jobs_end_idx ON jobs (end_time);
