-- 0014_data_version: one row that every commit changing data moves on, so that the
-- server knows a cached answer is current by reading one row, never jobs or samples.
--   version     bumped once by each transaction that wrote any table below
--   changed_at  when that transaction wrote
-- A statement-level trigger bumps it on the first write of a transaction only (a
-- transaction-local setting remembers it), so a transaction of many statements
-- updates the row once and holds its lock from then until it commits.
CREATE TABLE data_version (
    id boolean PRIMARY KEY DEFAULT true CHECK (id),
    version bigint NOT NULL,
    changed_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO data_version (version) VALUES (1);

CREATE FUNCTION data_version_bump() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('iocontend.data_bumped', true) IS DISTINCT FROM '1' THEN
        UPDATE data_version SET version = version + 1, changed_at = now();
        PERFORM set_config('iocontend.data_bumped', '1', true);
    END IF;
    RETURN NULL;
END
$$;

DO $$
DECLARE t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['ingest_runs', 'loaded_files', 'app_groups', 'jobs',
        'job_windows', 'samples', 'results', 'analysis_runs', 'group_inputs',
        'coverage', 'coverage_intervals', 'group_members', 'derived_inputs',
        'job_traces', 'dxt_ops', 'job_x_windows'] LOOP
        EXECUTE format('CREATE TRIGGER data_version_bump AFTER INSERT OR UPDATE OR '
                       'DELETE OR TRUNCATE ON %I FOR EACH STATEMENT '
                       'EXECUTE FUNCTION data_version_bump()', t);
    END LOOP;
END
$$;
