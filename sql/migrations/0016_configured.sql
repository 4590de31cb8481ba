-- 0016_configured: what the configuration said when analyze last read it, so that a
-- run whose configuration leaves something out keeps it and says so instead of
-- removing it (issue 30: `analyze` without --config removed a hand-made group).
--   app_groups.missing_since  when the first analyze whose configuration lacked this
--                             hand-made group ran: the group, its members and its
--                             results are kept, not recomputed, until it is back in
--                             the configuration (NULL again) or `analyze --prune`
--                             removes it; NULL while configured, and for a default
--                             group
--   analysis_config           one row: the settings every kind of run reads from the
--                             configuration ("d_min=10;seed=…;sample_offset_s=…;
--                             granularity_s=…"), as the last analyze read them, and
--                             the file it read them from ('' when none). Empty
--                             until the first analyze of this version.
ALTER TABLE app_groups ADD COLUMN missing_since timestamptz;

CREATE TABLE analysis_config (
    id boolean PRIMARY KEY DEFAULT true CHECK (id),
    settings text NOT NULL,
    config_path text NOT NULL,
    analyzed_at timestamptz NOT NULL DEFAULT now()
);
