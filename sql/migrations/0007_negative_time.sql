-- 0007_negative_time: a job whose log has a time counter below 0 other than -1 (not
-- collected), e.g. STDIO_F_WRITE_TIME = -2662.746634 in a real log. Such counters are
-- read as absent (METHOD.md §9, "Rules common to A, B and C"); the flag says so.
ALTER TABLE jobs ADD COLUMN negative_time boolean NOT NULL DEFAULT false;
