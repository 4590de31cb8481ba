-- 0010_sample_ledger: the sample files loaded so far, by path, so that a file that
-- grew since loads only its new complete reports. A row says how far the file was
-- loaded (length: the bytes through its last complete report, and their hash) and
-- what the parser needs to continue there; the next ingest of the path continues
-- only when the file is the same one (file_id) and those bytes are unchanged, and
-- otherwise parses the file whole. JSON files are always parsed whole: they have no
-- row. host and header are the input's raw bytes (they need not be UTF-8).
CREATE TABLE sample_ledger (
    path           text PRIMARY KEY,           -- as loaded_files.path (escaped)
    file_id        text NOT NULL,              -- "st_dev:st_ino"
    length         bigint NOT NULL,            -- bytes through the last complete report
    prefix_hash    text NOT NULL,              -- content hash of those bytes
    lines          bigint NOT NULL,            -- lines in those bytes
    verdict        text NOT NULL,              -- what shaped the parse (as ingest_errors)
    format         text NOT NULL,              -- iostat | sadf
    host           bytea NOT NULL,             -- the host so far
    accepted_stamp bigint,                     -- the last accepted report; NULL: none
    gap_s          bigint NOT NULL,            -- its distance to the one before
    interval_s     double precision NOT NULL,  -- the file's Δ as first computed
    stream_reports integer NOT NULL,           -- iostat: reports since the banner
    header         bytea NOT NULL,             -- sadf -d: the header line in force
    resync         boolean NOT NULL,           -- a cut tail was set aside before length
    cut_pending    boolean NOT NULL,           -- after length, a cut last report waits
    changed_at     timestamptz NOT NULL DEFAULT now()
);
