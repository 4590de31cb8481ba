-- 0013_sample_queue: how congested a device was, per sample (issue 18, METHOD.md §11),
-- as the source printed it; NULL where the source lacks the column (iostat -d, old
-- sar), and in every row loaded before this version.
--   aqu_sz      aqu-sz (avgqu-sz before sysstat 12): the mean number of requests
--               queued or in service over the interval, requests
--   util_pct    %util (JSON util, sadf -j util-percent): percent of the interval the
--               device was busy, 0-100
--   r_await_ms  r_await: mean time a read request took, queue and service, ms
--   w_await_ms  w_await: the same for writes, ms
--   await_ms    await: reads and writes together, ms; only where the source gives no
--               r_await / w_await (sadf, old iostat -x without them)
ALTER TABLE samples ADD COLUMN aqu_sz double precision;
ALTER TABLE samples ADD COLUMN util_pct double precision;
ALTER TABLE samples ADD COLUMN r_await_ms double precision;
ALTER TABLE samples ADD COLUMN w_await_ms double precision;
ALTER TABLE samples ADD COLUMN await_ms double precision;
