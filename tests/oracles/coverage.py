#!/usr/bin/python3
"""coverage.py: an independent reference for coverage (METHOD.md §7) and the group
tables (§4).

  coverage.py coverage --conf CONF --darshan DIR --iostat FS=PATH [...] --delta S
                       [--offset THETA]
      reads the darshan-parser texts under DIR and the iostat texts of each file
      system, and prints per scope ("all", "fs:NAME") D_i and S_i per interval and
      coverage = Σ D / Σ S over the intervals where both are present, as JSON.

  coverage.py table --jobs-csv CSV --darshan DIR --delta S
      reads `iocontend export jobs --format csv` and the logs (for the features) and
      prints per group the job count, features min / max, mean, sd (ddof 1) and n of
      every time metric over the jobs with t_j > 0 and the metric present, and the T^D
      histogram with bins of width Δ centred on the multiples of Δ (numpy.histogram).

Shares no code with the C engine: numpy and the parsers of volume.py (itself an
independent oracle) only. Run with Debian's interpreter: /usr/bin/python3.
"""

import argparse
import configparser
import csv
import json
import math
import os
import sys
from collections import defaultdict

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import volume  # noqa: E402  (the darshan and iostat text readers)

TIME_METRICS = ("t_j", "t_um", "t_urw", "t_s", "t_s_span", "t_s_slowest", "t", "t_fr",
                "t_fw", "t_d", "t_i")
LAYER_PREFIX = {"POSIX": "POSIX_", "MPI-IO": "MPIIO_", "STDIO": "STDIO_"}


# ---------------------------------------------------------------- inputs


def fs_map(conf_path):
    conf = configparser.ConfigParser(delimiters=("=",))
    conf.optionxform = str
    conf.read(conf_path)
    return dict(conf["filesystems"]) if conf.has_section("filesystems") else {}


def lookup(fsmap, path):
    """Longest prefix that ends on a path-component boundary."""
    best, best_len = None, -1
    for prefix, name in fsmap.items():
        if not path.startswith(prefix):
            continue
        if not prefix.endswith("/") and len(path) > len(prefix) and path[len(prefix)] != "/":
            continue
        if len(prefix) > best_len:
            best, best_len = name, len(prefix)
    return best


def find_logs(root):
    for base, _dirs, names in os.walk(root):
        for name in sorted(names):
            if name == "parser.txt" or name.endswith(".parser.txt"):
                yield os.path.join(base, name)


def log_windows(log, fsmap):
    """(start, end, bytes, fs) in absolute seconds per window (METHOD.md §2): a file's
    windows come from POSIX, else STDIO, else MPI-IO; a direction with operations
    and an end time has a window, [end, end] when its start is unusable."""
    recs = volume.layer_records(log)
    modules_of = defaultdict(set)
    for module, _rank, rid in recs:
        modules_of[rid].add(module)
    whole = log.start_time()
    out = []
    for key, rec in recs.items():
        module, _rank, rid = key
        mods = modules_of[rid]
        chosen = "POSIX" if "POSIX" in mods else "STDIO" if "STDIO" in mods else "MPI-IO"
        if module != chosen:
            continue
        name, mount = log.files[key]
        fs = lookup(fsmap, mount if mount and mount != "UNKNOWN" else name)
        p = LAYER_PREFIX[module]
        for op, stamp, counter in (("READS", "READ", "BYTES_READ"),
                                   ("WRITES", "WRITE", "BYTES_WRITTEN")):
            if volume.count(rec, module, op) <= 0:
                continue
            end = rec.get(f"{p}F_{stamp}_END_TIMESTAMP", 0.0)
            start = rec.get(f"{p}F_{stamp}_START_TIMESTAMP", 0.0)
            if not end > 0:
                continue
            a = start if 0 < start <= end else end
            out.append((whole + a, whole + end, max(0.0, rec.get(p + counter, 0.0)), fs))
    return out


def server_samples(path, delta, offset):
    """{k: R + W} of one server: sample stamped T covers (T + θ − Δ, T + θ], which must
    lie within Δ/4 of grid point kΔ (both data sets here do)."""
    out = {}
    for stream in volume.parse_iostat_reports(path):
        for stamp, devices in stream[1:]:  # the first report: the average since boot
            end = stamp + offset
            k = round(end / delta)
            if abs(end - k * delta) > delta / 4:
                raise ValueError(f"{path}: sample at {end} is off the {delta} s grid")
            out[k] = sum((v["rkB/s"] + v["wkB/s"]) * 1024.0
                         for name, v in devices.items() if volume.DEVICE_RE.match(name))
    return out


def grid_from(t, delta):
    """k with (k−1)Δ <= t < kΔ."""
    return math.floor(t / delta) + 1


def grid_to(t, delta):
    """Smallest k with kΔ >= t."""
    return math.ceil(t / delta)


# ---------------------------------------------------------------- coverage


def coverage(args):
    fsmap = fs_map(args.conf)
    servers = defaultdict(list)  # fs -> [ {k: bytes/s} per server ]
    for spec in args.iostat:
        fs, path = spec.split("=", 1)
        servers[fs].append(server_samples(path, args.delta, args.offset))
    windows, lo, hi = [], math.inf, -math.inf
    for path in find_logs(args.darshan):
        log = volume.Log(path)
        lo = min(lo, log.start_time())
        hi = max(hi, log.start_time() + log.run_time())
        windows.extend(log_windows(log, fsmap))
    d_lo, d_hi = grid_from(lo, args.delta), max(grid_to(hi, args.delta), grid_from(lo, args.delta))
    scopes = {"all": sorted(servers)}
    scopes.update({f"fs:{fs}": [fs] for fs in servers})
    out = {}
    for scope, members in scopes.items():
        series = [s for fs in members for s in servers[fs]]
        ks = sorted(set().union(*(set(s) for s in series)))
        present = set.intersection(*(set(s) for s in series))
        d = defaultdict(float)
        for a, b, nbytes, fs in windows:
            if fs not in members:
                continue
            if b <= a:
                d[grid_from(a, args.delta)] += nbytes
                continue
            for k in range(grid_from(a, args.delta), grid_to(b, args.delta) + 1):
                piece = min(b, k * args.delta) - max(a, (k - 1) * args.delta)
                if piece > 0:
                    d[k] += nbytes * piece / (b - a)
        rows, sum_d, sum_s, both = [], 0.0, 0.0, 0
        for k in range(ks[0], ks[-1] + 1):
            dk = d[k] if d_lo <= k <= d_hi else None
            sk = sum(s[k] for s in series) * args.delta if k in present else None
            if dk is not None and sk is not None:
                sum_d += dk
                sum_s += sk
                both += 1
            rows.append([k * args.delta, dk, sk])
        out[scope] = {"coverage": sum_d / sum_s if sum_s > 0 else None, "sum_d_bytes": sum_d,
                      "sum_s_bytes": sum_s, "intervals": both,
                      "d_total_bytes": sum(w[2] for w in windows if w[3] in members),
                      "rows": rows}
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")


# ---------------------------------------------------------------- group tables


def table(args):
    rows = defaultdict(list)
    with open(args.jobs_csv, newline="", encoding="utf-8") as fp:
        for r in csv.DictReader(fp):
            rows[r["group"]].append(r)
    feats = {}
    for path in find_logs(args.darshan):
        log = volume.Log(path)
        read, written, unique, shared = volume.features(log)
        feats[log.header["jobid"]] = {"uid": int(log.header["uid"]),
                                      "nprocs": int(log.header["nprocs"]),
                                      "n_unique_files": unique, "n_shared_files": shared,
                                      "eta_read": read, "eta_write": written}
    out = {}
    for group, jobs in rows.items():
        g = {"jobs": len(jobs), "features": {}, "metrics": {}}
        for name in ("uid", "nprocs", "n_unique_files", "n_shared_files", "eta_read",
                     "eta_write"):
            v = [feats[j["jobid"]][name] for j in jobs]
            g["features"][name] = {"min": min(v), "max": max(v)}
        for name in TIME_METRICS:
            v = np.array([float(j[name]) for j in jobs
                          if j[name] != "" and float(j["t_j"]) > 0], dtype=float)
            g["metrics"][name] = {"n": int(v.size),
                                  "mean": float(np.mean(v)) if v.size else None,
                                  "sd": float(np.std(v, ddof=1)) if v.size > 1 else None}
        td = np.array([float(j["t_d"]) for j in jobs
                       if j["t_d"] != "" and float(j["t_j"]) > 0], dtype=float)
        k = np.floor(td / args.delta + 0.5)
        edges = (np.arange(k.min(), k.max() + 2) - 0.5) * args.delta
        counts, _ = np.histogram(td, bins=edges)
        mean, sd = float(np.mean(td)), float(np.std(td, ddof=1))
        g["td_histogram"] = {"first_edge_s": float(edges[0]), "counts": counts.tolist(),
                             "mean": mean, "band_low": mean - 1.645 * sd,
                             "band_high": mean + 1.645 * sd}
        out[group] = g
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("coverage")
    c.add_argument("--conf", required=True)
    c.add_argument("--darshan", required=True)
    c.add_argument("--iostat", action="append", required=True, help="FS=PATH")
    c.add_argument("--delta", type=float, required=True)
    c.add_argument("--offset", type=float, default=0.0)
    t = sub.add_parser("table")
    t.add_argument("--jobs-csv", required=True)
    t.add_argument("--darshan", required=True)
    t.add_argument("--delta", type=float, required=True)
    args = ap.parse_args()
    coverage(args) if args.cmd == "coverage" else table(args)


if __name__ == "__main__":
    main()
