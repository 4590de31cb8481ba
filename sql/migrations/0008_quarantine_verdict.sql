-- 0008_quarantine_verdict: what shaped a quarantine's verdict (iocontend's version
-- and the settings the parsers read), so that an unchanged bad file is not parsed
-- again every night until its content, those settings or the version change. NULL
-- for the rows of earlier versions: such a file is parsed once more.
ALTER TABLE ingest_errors ADD COLUMN verdict text;
CREATE INDEX ingest_errors_verdict ON ingest_errors (content_hash, verdict);
