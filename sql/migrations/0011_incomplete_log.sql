-- 0011_incomplete_log: a log darshan marks incomplete loads with its complete modules
-- instead of being quarantined (issue 17). incomplete_modules lists the incomplete
-- ones, comma-separated in log order (NULL: the log is whole); incomplete_log says one
-- of them is POSIX, MPI-IO or STDIO, so every metric but t_j lacks records: analyses
-- that need them exclude the job with reason incomplete_log (METHOD.md §3).
ALTER TABLE jobs ADD COLUMN incomplete_modules text;
ALTER TABLE jobs ADD COLUMN incomplete_log boolean NOT NULL DEFAULT false;
