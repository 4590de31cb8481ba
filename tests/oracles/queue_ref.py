#!/usr/bin/python3
"""queue_ref.py: an independent reference for the queue metrics of METHOD.md §11.

  queue_ref.py jobs --conf CONF --darshan DIR --iostat PATH --delta S [--offset THETA]
      reads the darshan-parser texts under DIR and one iostat -x text (one server),
      and prints per job id q_d, u_d and await_d over the job's active intervals A
      (§3: every window, the interval holding its start to the last one it overlaps),
      as JSON: {"JOBID": {"q_d", "u_d", "await_d", "m"}}.

  queue_ref.py assoc --csv CSV --y Y --x X [--x X ...]
      reads `iocontend export jobs --format csv` and prints scipy's Pearson and
      Spearman of (Y, X) over the rows where both are numbers, as JSON.

Shares no code with the C engine: the parsers of volume.py and coverage.py (both
independent oracles) and scipy. Run with Debian's interpreter: /usr/bin/python3.
"""
import argparse
import csv
import json
import math
import os
import sys

from scipy import stats

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import coverage as cov  # noqa: E402  (the window and grid rules)
import volume  # noqa: E402  (the darshan and iostat text readers)


def queue_samples(path, delta, offset):
    """{k: (Q, U, AW numerator in s·ops/s, AW weight in ops/s)} of one server: the
    sample stamped T covers (T + θ − Δ, T + θ], within Δ/4 of grid point kΔ."""
    out = {}
    for stream in volume.parse_iostat_reports(path):
        for stamp, devices in stream[1:]:  # the first report: the average since boot
            end = stamp + offset
            k = round(end / delta)
            if abs(end - k * delta) > delta / 4:
                raise ValueError(f"{path}: sample at {end} is off the {delta} s grid")
            devs = [v for name, v in devices.items() if volume.DEVICE_RE.match(name)]
            q = sum(v["aqu-sz"] for v in devs)
            u = sum(v["%util"] / 100.0 for v in devs) / len(devs)
            num = sum(v["r/s"] * v["r_await"] + v["w/s"] * v["w_await"] for v in devs) / 1000.0
            den = sum(v["r/s"] + v["w/s"] for v in devs)
            out[k] = (q, u, num, den)
    return out


def jobs(args):
    fsmap = cov.fs_map(args.conf)
    series = queue_samples(args.iostat, args.delta, args.offset)
    out = {}
    for path in cov.find_logs(args.darshan):
        log = volume.Log(path)
        active = set()
        for a, b, _bytes, _fs in cov.log_windows(log, fsmap):
            lo = cov.grid_from(a, args.delta)
            hi = cov.grid_to(b, args.delta) if b > a else lo
            active.update(range(lo, hi + 1))
        if not active or any(k not in series for k in active):
            continue
        vals = [series[k] for k in sorted(active)]
        den = sum(v[3] for v in vals)
        out[log.header["jobid"]] = {
            "m": len(vals),
            "q_d": sum(v[0] for v in vals) / len(vals),
            "u_d": sum(v[1] for v in vals) / len(vals),
            "await_d": sum(v[2] for v in vals) / den if den > 0 else None,
        }
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")


def number(text):
    try:
        v = float(text)
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def assoc(args):
    with open(args.csv, encoding="utf-8") as fp:
        rows = list(csv.DictReader(fp))
    out = {}
    for x in args.x:
        pairs = [(number(r[args.y]), number(r[x])) for r in rows]
        pairs = [(a, b) for a, b in pairs if a is not None and b is not None]
        ys, xs = [p[0] for p in pairs], [p[1] for p in pairs]
        out[x] = {"d": len(pairs), "pearson": float(stats.pearsonr(ys, xs)[0]),
                  "spearman": float(stats.spearmanr(ys, xs)[0])}
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    j = sub.add_parser("jobs")
    j.add_argument("--conf", required=True)
    j.add_argument("--darshan", required=True)
    j.add_argument("--iostat", required=True)
    j.add_argument("--delta", type=float, required=True)
    j.add_argument("--offset", type=float, default=0.0)
    a = sub.add_parser("assoc")
    a.add_argument("--csv", required=True)
    a.add_argument("--y", required=True)
    a.add_argument("--x", action="append", required=True)
    args = ap.parse_args()
    jobs(args) if args.cmd == "jobs" else assoc(args)


if __name__ == "__main__":
    main()
