-- 0001_init: jobs, their activity windows, server samples, ingest bookkeeping and
-- stored results. Names follow METHOD.md; times are epoch seconds unless *_at.

CREATE TABLE schema_version (
    version    integer PRIMARY KEY,
    name       text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE ingest_runs (
    id          bigserial PRIMARY KEY,
    kind        text NOT NULL,              -- darshan | iostat
    started_at  timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz,
    files       integer NOT NULL DEFAULT 0,
    loaded      integer NOT NULL DEFAULT 0,
    skipped     integer NOT NULL DEFAULT 0,
    quarantined integer NOT NULL DEFAULT 0,
    jobs        integer NOT NULL DEFAULT 0,
    samples     bigint  NOT NULL DEFAULT 0
);

-- The quarantine list: a file that could not be loaded, and why.
CREATE TABLE ingest_errors (
    path         text NOT NULL,
    content_hash text NOT NULL,
    line         bigint,
    status       text NOT NULL,
    message      text NOT NULL,
    first_seen   timestamptz NOT NULL DEFAULT now(),
    last_seen    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (path, content_hash)
);

-- Files loaded, by content: loading the same content again is a no-op.
CREATE TABLE loaded_files (
    content_hash text PRIMARY KEY,
    path         text NOT NULL,
    kind         text NOT NULL,
    run_id       bigint REFERENCES ingest_runs (id),
    loaded_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE app_groups (
    group_id text PRIMARY KEY,       -- stable hash of key
    name     text NOT NULL,
    key      text NOT NULL
);

CREATE TABLE jobs (
    job_key        text PRIMARY KEY, -- hash of (jobid, uid, start, end, nprocs, exe)
    jobid          text NOT NULL,
    uid            bigint NOT NULL,
    exe            text NOT NULL,
    executable     text NOT NULL,
    nprocs         bigint NOT NULL,
    start_time     bigint NOT NULL,
    end_time       bigint NOT NULL,
    run_time       double precision NOT NULL,
    log_version    double precision NOT NULL,
    group_id       text NOT NULL REFERENCES app_groups (group_id),
    source_hash    text NOT NULL,
    source_path    text NOT NULL,
    t_j            double precision NOT NULL,
    t_um           double precision,
    t_urw          double precision,
    t_s            double precision,
    t_s_span       double precision,
    t_s_slowest    double precision,
    t              double precision,
    t_fr           double precision,  -- -1: never read
    t_fw           double precision,
    eta_read       bigint NOT NULL,
    eta_write      bigint NOT NULL,
    eta_mon_read   bigint NOT NULL,
    eta_mon_write  bigint NOT NULL,
    n_unique_files bigint NOT NULL,
    n_shared_files bigint NOT NULL,
    loaded_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX jobs_group_idx ON jobs (group_id, start_time);
CREATE INDEX jobs_start_idx ON jobs (start_time, job_key);

CREATE TABLE job_windows (
    job_key  text NOT NULL REFERENCES jobs (job_key) ON DELETE CASCADE,
    is_write boolean NOT NULL,
    start_s  double precision NOT NULL,  -- absolute epoch seconds
    end_s    double precision NOT NULL,
    bytes    bigint NOT NULL,
    fs       text                         -- monitored file system, NULL when not
);
CREATE INDEX job_windows_job_idx ON job_windows (job_key);

CREATE TABLE samples (
    fs           text NOT NULL,
    server       text NOT NULL,
    device       text NOT NULL,
    stamp_s      bigint NOT NULL,             -- as printed; θ is applied at analysis
    interval_s   double precision NOT NULL,   -- the source's Δ
    r_bps        double precision NOT NULL,
    w_bps        double precision NOT NULL,
    ro_ps        double precision,            -- NULL: only tps known
    wo_ps        double precision,
    ops_total_ps double precision NOT NULL,
    source_hash  text NOT NULL,
    PRIMARY KEY (fs, server, device, stamp_s)
);

CREATE TABLE results (
    group_id      text NOT NULL REFERENCES app_groups (group_id),
    y             text NOT NULL,
    x             text NOT NULL,
    granularity_s double precision NOT NULL,
    space         text NOT NULL,
    scope         text NOT NULL,
    result        jsonb NOT NULL,
    computed_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (group_id, y, x, granularity_s, space, scope)
);

CREATE TABLE analysis_runs (
    id          bigserial PRIMARY KEY,
    finished_at timestamptz NOT NULL DEFAULT now(),
    groups      integer NOT NULL,
    jobs        integer NOT NULL,
    excluded    integer NOT NULL,
    seconds     double precision NOT NULL
);
