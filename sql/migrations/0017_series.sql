-- 0017_series: the system-wide series of each file system (docs/method.md §1), kept
-- from the samples so that an analysis reads the intervals it needs instead of every
-- sample of the history (issue 34). The samples stay the source of truth: the series
-- is recomputed from them a day at a time, and `iocontend db rebuild-series` does it
-- for every day.
--   series_settings  one row: the θ and the configured Δ (0: each file system's
--                    coarsest sampling interval) the series were built with. No row:
--                    never built; the first refresh builds every day.
--   series_fs        per file system: interval_s, the coarsest sampling interval of
--                    its samples (kept by the trigger below), and delta_s, the grid Δ
--                    its stored series are on (0: none stored yet).
--   series           per file system and grid interval j, (T_{j-1}, T_j] with
--                    T_j = j·delta_s: the sums over its devices of R, W, RO, WO
--                    (B/s, ops/s), Q (aqu-sz), U (%util / 100: a sum, the mean is
--                    u / series_days.devices), Σ ops·await (s/s) and Σ ops; how many
--                    devices and servers covered it fully; present when every
--                    expected device did. NULL: unknown (a device without RO, WO or
--                    the queue columns). Only intervals some sample touches.
--   series_days      per file system and UTC day of T_{j-1}: the devices and servers
--                    expected that day (those with a usable sample in it: a server
--                    absent all day is not expected), the samples read, and a digest
--                    of the day's series rows.
--   series_dirty     the (file system, day) pairs whose samples changed since their
--                    series was computed: written by the trigger in the transaction
--                    that changed the samples, removed when the day is recomputed.
CREATE TABLE series_settings (
    id boolean PRIMARY KEY DEFAULT true CHECK (id),
    theta_s double precision NOT NULL,
    delta_s double precision NOT NULL,
    built_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE series_fs (
    fs text PRIMARY KEY,
    interval_s double precision NOT NULL,
    delta_s double precision NOT NULL DEFAULT 0
);

CREATE TABLE series (
    fs text NOT NULL,
    j bigint NOT NULL,
    r double precision NOT NULL,
    w double precision NOT NULL,
    ro double precision,
    wo double precision,
    q double precision,
    u double precision,
    aw_num double precision,
    aw_den double precision,
    devices integer NOT NULL,
    servers integer NOT NULL,
    present boolean NOT NULL,
    PRIMARY KEY (fs, j)
);

CREATE TABLE series_days (
    fs text NOT NULL,
    day bigint NOT NULL,
    devices integer NOT NULL,
    servers integer NOT NULL,
    samples bigint NOT NULL,
    digest text NOT NULL,
    PRIMARY KEY (fs, day)
);

-- gen: a new number at each change of the day, never reused (a day made dirty again
-- after its row went gets a new one): a refresh stores only what it computed from the
-- gen it read, and leaves the day dirty otherwise.
CREATE SEQUENCE series_dirty_gen;
CREATE TABLE series_dirty (
    fs text NOT NULL,
    day bigint NOT NULL,
    gen bigint NOT NULL DEFAULT nextval('series_dirty_gen'),
    PRIMARY KEY (fs, day)
);

-- The days a changed sample can reach: the day of its end T + θ, and the days before
-- and after when its interval, or the grid interval it snaps to, can cross midnight
-- (twice the larger of its Δ and its file system's grid Δ back, one forward).
CREATE FUNCTION series_mark(stamp_s bigint, interval_s double precision,
                            grid_s double precision, theta_s double precision)
RETURNS SETOF bigint LANGUAGE sql IMMUTABLE AS $$
    SELECT DISTINCT d FROM (VALUES
        (floor(($1 + $4) / 86400.0)::bigint),
        (floor(($1 + $4 - 2 * greatest($2, $3)) / 86400.0)::bigint),
        (floor(($1 + $4 + greatest($2, $3)) / 86400.0)::bigint)) v(d)
$$;

CREATE FUNCTION series_samples_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    th double precision := coalesce((SELECT theta_s FROM series_settings), 0);
BEGIN
    IF TG_OP <> 'DELETE' THEN
        INSERT INTO series_fs (fs, interval_s)
        SELECT n.fs, max(n.interval_s) FROM new_rows n GROUP BY n.fs
        ON CONFLICT (fs) DO UPDATE
        SET interval_s = greatest(series_fs.interval_s, EXCLUDED.interval_s)
        WHERE series_fs.interval_s < EXCLUDED.interval_s;
        INSERT INTO series_dirty (fs, day)
        SELECT DISTINCT n.fs, m.d FROM new_rows n LEFT JOIN series_fs f USING (fs),
        LATERAL series_mark(n.stamp_s, n.interval_s, f.delta_s, th) m(d)
        ON CONFLICT (fs, day) DO UPDATE SET gen = nextval('series_dirty_gen');
    END IF;
    IF TG_OP <> 'INSERT' THEN
        INSERT INTO series_dirty (fs, day)
        SELECT DISTINCT o.fs, m.d FROM old_rows o LEFT JOIN series_fs f USING (fs),
        LATERAL series_mark(o.stamp_s, o.interval_s, f.delta_s, th) m(d)
        ON CONFLICT (fs, day) DO UPDATE SET gen = nextval('series_dirty_gen');
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER series_samples_inserted AFTER INSERT ON samples
    REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION series_samples_changed();
CREATE TRIGGER series_samples_updated AFTER UPDATE ON samples
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION series_samples_changed();
CREATE TRIGGER series_samples_deleted AFTER DELETE ON samples
    REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION series_samples_changed();
