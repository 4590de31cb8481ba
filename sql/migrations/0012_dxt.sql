-- 0012_dxt: DXT traces (issue 17, METHOD.md §10), from binary logs' DXT_POSIX and
-- DXT_MPIIO modules or from darshan-dxt-parser text. Keyed by the job's key (the hash
-- of its identity, computed from the trace's own header), with no foreign key: a
-- trace may arrive before its job and is joined when the job does.
--
-- job_traces: one row per job that has a trace; incomplete when darshan marks a DXT
-- module partial or darshan-dxt-parser's text stopped short (the _x metrics are then
-- null, reason incomplete_dxt). The first source of a job's trace wins.
CREATE TABLE job_traces (
    job_key     text PRIMARY KEY,
    incomplete  boolean NOT NULL,
    n_ops       bigint NOT NULL,
    source_hash text NOT NULL,
    source_path text NOT NULL,
    loaded_at   timestamptz NOT NULL DEFAULT now()
);

-- Every operation, for replay: one row per (job, module, file record, rank) holding
-- its operations packed (little-endian, 41 bytes each: is_write u8, offset i64,
-- length i64, start f64, end f64 in seconds after the job start, pthread id u64) and
-- zlib-compressed; n_ops of them, writes first as darshan stores them.
CREATE TABLE dxt_ops (
    job_key    text NOT NULL REFERENCES job_traces (job_key) ON DELETE CASCADE,
    module     text NOT NULL,          -- DXT_POSIX | DXT_MPIIO
    record_id  numeric(20) NOT NULL,   -- unsigned 64-bit
    rank       bigint NOT NULL,
    hostname   text NOT NULL,
    file_name  text NOT NULL,
    n_ops      integer NOT NULL,
    ops        bytea NOT NULL,
    PRIMARY KEY (job_key, module, record_id, rank)
);

-- The operations' windows (METHOD.md §10's layer rule applied: DXT_POSIX, and
-- DXT_MPIIO only of files without DXT_POSIX operations), absolute epoch seconds,
-- overlapping ones of the same direction and file system merged: what the _x metrics
-- need. A zero-length operation stays a window of its own unless inside another.
CREATE TABLE job_x_windows (
    job_key  text NOT NULL REFERENCES job_traces (job_key) ON DELETE CASCADE,
    is_write boolean NOT NULL,
    start_s  double precision NOT NULL,
    end_s    double precision NOT NULL,
    fs       text                      -- monitored file system, NULL when not
);
CREATE INDEX job_x_windows_job_idx ON job_x_windows (job_key);
