-- 0004_group_inputs: what each group's stored results were computed from, so that
-- `analyze` recomputes a group only when its inputs changed and every stored result
-- can say which jobs, which samples and which settings it came from.
CREATE TABLE group_inputs (
    group_id    text NOT NULL REFERENCES app_groups (group_id) ON DELETE CASCADE,
    kind        text NOT NULL,            -- 'association' or 'sweep', as results.kind
    fingerprint text NOT NULL,            -- md5 of the four below and the settings
    jobs        integer NOT NULL,
    jobs_md5    text NOT NULL,            -- md5 of the group's job keys, sorted
    samples     bigint NOT NULL,          -- samples within a day of the group's span
    samples_md5 text NOT NULL,            -- md5 of their distinct source files, sorted
    settings    text NOT NULL,            -- version, seed, d_min, θ, granularity, ...
    analyzed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (group_id, kind)
);

-- The inputs query reads samples by time over every file system.
CREATE INDEX samples_stamp_idx ON samples (stamp_s);
