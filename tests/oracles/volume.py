#!/usr/bin/python3
"""volume.py: an independent reference for the volume metrics of METHOD.md §1-§4.

Reads a data folder laid out as iocontend-gen writes it (DIR/iocontend.conf,
DIR/iostat/<fs>/*.txt, DIR/darshan/**/*.parser.txt), computes per job m, t_d,
psi_d_read/write (eq. 4, 5), psi_read/write (eq. 2), psi_o_read/write (eq. 3) and
t_um, groups jobs by the default key of §4, and prints per group Pearson and
Spearman (scipy) of t_d against psi_d_read / psi_d_write and of t_um against
psi_o_read / psi_o_write, as JSON.

Shares no code with the C engine: numpy, scipy and the standard library only.
Run with Debian's interpreter: /usr/bin/python3 tests/oracles/volume.py DIR
[--jobs-csv OUT.csv].
"""

import argparse
import calendar
import configparser
import csv
import json
import math
import os
import re
import sys
import time
from collections import defaultdict

import numpy as np
from scipy import stats

DELTA_S = 60  # the grid of the generated data; every stamp lies on it
DEVICE_RE = re.compile(r"^(sd[a-z]+|vd[a-z]+|xvd[a-z]+|nvme[0-9]+n[0-9]+)$")
STAMP_RE = re.compile(r"^(\d\d)/(\d\d)/(\d\d) (\d\d):(\d\d):(\d\d)$")
HEADER_RE = re.compile(r"^# ([a-z_ ]+): (.*)$")
LAYERS = ("POSIX", "MPI-IO", "STDIO")
PREFIX = {"POSIX": "POSIX_", "MPI-IO": "MPIIO_", "STDIO": "STDIO_"}


# ---------------------------------------------------------------- darshan text


class Log:
    """One darshan-parser text: header fields and records by (module, rank, id)."""

    def __init__(self, path):
        self.path = path
        self.header = {}
        self.mounts = []
        self.records = {}  # (module, rank, record id) -> {counter: value}
        self.files = {}  # (module, rank, record id) -> (file name, mount point)
        self._read()

    def _read(self):
        with open(self.path, encoding="utf-8", errors="replace") as fp:
            for lineno, line in enumerate(fp, 1):
                line = line.rstrip("\n")
                if line.startswith("# mount entry:"):
                    parts = line.split("\t")
                    self.mounts.append((parts[1], parts[2]))
                elif line.startswith("#"):
                    m = HEADER_RE.match(line)
                    if m and m.group(1) not in self.header:
                        self.header[m.group(1)] = m.group(2)
                elif line.strip():
                    self._counter(line, lineno)

    def _counter(self, line, lineno):
        fields = line.split("\t")
        if len(fields) != 8:
            raise ValueError(f"{self.path}:{lineno}: expected 8 fields, got {len(fields)}")
        module, rank, rid, counter, value, name, mount, _fs_type = fields
        key = (module, int(rank), int(rid))
        try:
            v = float(value)
        except ValueError:
            v = value  # LUSTRE strings and the like
        self.records.setdefault(key, {})[counter] = v
        self.files[key] = (name, mount)

    def start_time(self):
        return int(self.header["start_time"])

    def run_time(self):
        """T_J: the header `run time` for format >= 3.41, else end - start (§2)."""
        version = float(self.header.get("darshan log version", "0"))
        if version >= 3.41:
            return float(self.header["run time"])
        return float(int(self.header["end_time"]) - int(self.header["start_time"]))


def count(rec, module, op):
    """Read or write calls of a record (op is READS or WRITES)."""
    if module == "MPI-IO":
        return sum(rec.get(f"MPIIO_{kind}_{op}", 0.0) for kind in ("INDEP", "COLL", "SPLIT", "NB"))
    return rec.get(f"{PREFIX[module]}{op}", 0.0)


def layer_records(log):
    """Records of the I/O layers only (POSIX, MPI-IO, STDIO)."""
    return {k: r for k, r in log.records.items() if k[0] in LAYERS}


def windows(log):
    """Activity windows in absolute seconds (§2): a file's windows come from POSIX,
    else from STDIO, else from MPI-IO. Returned as (start, end) pairs split into the
    whole epoch seconds of start_time and the relative part, to keep precision."""
    recs = layer_records(log)
    modules_of = defaultdict(set)
    for module, _rank, rid in recs:
        modules_of[rid].add(module)
    out = []
    for (module, _rank, rid), rec in recs.items():
        mods = modules_of[rid]
        chosen = "POSIX" if "POSIX" in mods else "STDIO" if "STDIO" in mods else "MPI-IO"
        if module != chosen:
            continue
        p = PREFIX[module]
        if count(rec, module, "READS") > 0:
            out.append((rec[f"{p}F_READ_START_TIMESTAMP"], rec[f"{p}F_READ_END_TIMESTAMP"]))
        if count(rec, module, "WRITES") > 0:
            out.append((rec[f"{p}F_WRITE_START_TIMESTAMP"], rec[f"{p}F_WRITE_END_TIMESTAMP"]))
    return out


def top_layer(recs, rank, rid):
    """The one layer a file contributes times and bytes from: MPI-IO, else POSIX, else STDIO."""
    for module in ("MPI-IO", "POSIX", "STDIO"):
        if (module, rank, rid) in recs:
            return module
    return None


def t_um(log):
    """T^U_M: metadata time of the slowest rank over its unique files (§2)."""
    recs = layer_records(log)
    per_rank = defaultdict(lambda: [0.0, 0.0])  # rank -> [U_r, meta]
    for rank, rid in {(k[1], k[2]) for k in recs if k[1] >= 0}:
        module = top_layer(recs, rank, rid)
        rec = recs[(module, rank, rid)]
        p = PREFIX[module]
        meta = rec.get(f"{p}F_META_TIME", 0.0)
        io = rec.get(f"{p}F_READ_TIME", 0.0) + rec.get(f"{p}F_WRITE_TIME", 0.0)
        per_rank[rank][0] += meta + io
        per_rank[rank][1] += meta
    if not per_rank:
        return 0.0
    slowest = min(per_rank, key=lambda r: (-per_rank[r][0], r))
    return per_rank[slowest][1]


def features(log):
    """Bytes read / written (one layer per file) and the unique / shared file counts."""
    recs = layer_records(log)
    read = written = 0.0
    unique, shared = set(), set()
    for rank, rid in {(k[1], k[2]) for k in recs}:
        module = top_layer(recs, rank, rid)
        rec = recs[(module, rank, rid)]
        read += rec.get(f"{PREFIX[module]}BYTES_READ", 0.0)
        written += rec.get(f"{PREFIX[module]}BYTES_WRITTEN", 0.0)
        (shared if rank < 0 else unique).add(rid)
    return read, written, len(unique), len(shared)


def size_bin(v):
    """b(v) of §4: 0 for 0, else 1 + floor(ln v / ln 1.2)."""
    return 0 if v <= 0 else 1 + int(math.floor(math.log(v) / math.log(1.2)))


def group_key(log):
    exe = log.header.get("exe", "").split()
    exe = os.path.basename(exe[0]) if exe else ""
    read, written, unique, shared = features(log)
    return (int(log.header["uid"]), exe, int(log.header["nprocs"]), size_bin(read),
            size_bin(written), size_bin(unique), size_bin(shared))


# ---------------------------------------------------------------- iostat text


def parse_stamp(text):
    m = STAMP_RE.match(text)
    mo, d, y, hh, mm, ss = (int(g) for g in m.groups())
    return calendar.timegm((2000 + y, mo, d, hh, mm, ss, 0, 0, 0))


def parse_iostat_reports(path):
    """Reports as (stamp, {device: columns}) in file order, grouped in streams."""
    streams = []
    columns = None
    current = None
    with open(path, encoding="utf-8") as fp:
        for line in fp:
            line = line.rstrip("\n")
            if line.startswith("Linux "):
                streams.append([])
            elif STAMP_RE.match(line):
                if not streams:
                    streams.append([])
                current = (parse_stamp(line), {})
                streams[-1].append(current)
            elif line.startswith("Device"):
                columns = line.split()
            elif line.strip() and current is not None:
                parts = line.split()
                current[1][parts[0]] = dict(zip(columns[1:], (float(x) for x in parts[1:])))
    return streams


def server_series(path):
    """{stamp: array([R, W, RO, WO])} for one server file (bytes/s, ops/s)."""
    out = {}
    for stream in parse_iostat_reports(path):
        for stamp, devices in stream[1:]:  # the first report of a stream: since boot
            acc = np.zeros(4)
            for name, v in devices.items():
                if DEVICE_RE.match(name):
                    acc += [v["rkB/s"] * 1024.0, v["wkB/s"] * 1024.0, v["r/s"], v["w/s"]]
            if stamp % DELTA_S != 0:
                raise ValueError(f"{path}: stamp {stamp} is off the {DELTA_S} s grid")
            out[stamp] = acc
    return out


def monitored_filesystems(root):
    conf = configparser.ConfigParser(delimiters=("=",))
    conf.optionxform = str
    path = os.path.join(root, "iocontend.conf")
    if os.path.exists(path):
        conf.read(path)
    if conf.has_section("filesystems"):
        return sorted(set(conf["filesystems"].values()))
    return sorted(os.listdir(os.path.join(root, "iostat")))


def system_series(root):
    """The system-wide series of §1: the sum over every server of every monitored file
    system; an interval is present only when every server reported it. Returns
    {k: array} with k = stamp / Δ (interval k is ((k-1)Δ, kΔ])."""
    servers = []
    for fs in monitored_filesystems(root):
        folder = os.path.join(root, "iostat", fs)
        for name in sorted(os.listdir(folder)):
            if name.endswith(".txt"):
                servers.append(server_series(os.path.join(folder, name)))
    common = set.intersection(*(set(s) for s in servers))
    return {stamp // DELTA_S: sum(s[stamp] for s in servers) for stamp in common}


# ---------------------------------------------------------------- metrics (§3)


def interval_of(whole, rel):
    """k of the interval ((k-1)Δ, kΔ] a time starts, for whole + rel seconds: a time on a
    boundary belongs to the interval that starts there."""
    q, r = divmod(whole, DELTA_S)
    return q + int(math.floor((r + rel) / DELTA_S)) + 1


def interval_of_end(whole, rel):
    """Smallest k with kΔ >= whole + rel."""
    q, r = divmod(whole, DELTA_S)
    return q + int(math.ceil((r + rel) / DELTA_S))


def span_integral(series, whole, a_rel, b_rel, col):
    """∫ over [whole + a_rel, whole + b_rel] of a series column (eq. 2, 3); None on a hole."""
    k_first = interval_of(whole, a_rel)
    k_last = max(interval_of_end(whole, b_rel), k_first)
    ks = range(k_first, k_last + 1)
    if any(k not in series for k in ks):
        return None
    t0 = (k_first - 1) * DELTA_S - whole  # relative T_0 and T_n
    tn = k_last * DELTA_S - whole
    total = DELTA_S * sum(series[k][col] for k in ks)
    return total - (a_rel - t0) * series[k_first][col] - (tn - b_rel) * series[k_last][col]


def active_set(whole, wins):
    """A of §3: intervals with a positive overlap with a window, or holding a
    zero-length one."""
    active = set()
    for a, b in wins:
        if b > a:
            active.update(range(interval_of(whole, a), interval_of_end(whole, b) + 1))
        else:
            active.add(interval_of(whole, a))
    return active


def psi_d(series, whole, wins, active, col):
    """Ψ^D of eq. 4 over the active intervals; None on a hole."""
    ks = sorted(active)
    if any(k not in series for k in ks):
        return None
    start = min(a for a, _ in wins)
    end = max(b for _, b in wins)
    t0 = (ks[0] - 1) * DELTA_S - whole
    tm = ks[-1] * DELTA_S - whole
    total = DELTA_S * sum(series[k][col] for k in ks)
    return total - (start - t0) * series[ks[0]][col] - (tm - end) * series[ks[-1]][col]


def job_metrics(log, series):
    whole = log.start_time()
    tj = log.run_time()
    wins = windows(log)
    active = active_set(whole, wins) if wins else set()
    row = {
        "jobid": log.header["jobid"],
        "start_time": whole,
        "t_j": tj,
        "t_um": t_um(log),
        "m": len(active),
        "t_d": len(active) * DELTA_S if active else None,
    }
    for name, col in (("psi_read", 0), ("psi_write", 1), ("psi_o_read", 2), ("psi_o_write", 3)):
        row[name] = span_integral(series, whole, 0.0, tj, col) if tj > 0 else None
    for name, col in (("psi_d_read", 0), ("psi_d_write", 1)):
        row[name] = psi_d(series, whole, wins, active, col) if active else None
    return row


# ---------------------------------------------------------------- groups (§4, §5)


def associate(rows, y, x):
    pairs = [(r[y], r[x]) for r in rows if r[y] is not None and r[x] is not None]
    out = {"d": len(pairs), "excluded": len(rows) - len(pairs)}
    if len(pairs) < 10:
        return out
    ys = np.array([p[0] for p in pairs], dtype=float)
    xs = np.array([p[1] for p in pairs], dtype=float)
    if np.ptp(ys) == 0 or np.ptp(xs) == 0:
        return out
    out["pearson"] = float(stats.pearsonr(xs, ys)[0])
    out["spearman"] = float(stats.spearmanr(xs, ys)[0])
    return out


PAIRS = (("t_d", "psi_d_read"), ("t_d", "psi_d_write"), ("t_um", "psi_o_read"),
         ("t_um", "psi_o_write"))


def find_logs(root):
    for base, _dirs, names in os.walk(os.path.join(root, "darshan")):
        for name in sorted(names):
            if name == "parser.txt" or name.endswith(".parser.txt"):
                yield os.path.join(base, name)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--jobs-csv", help="write every job's metrics here")
    args = ap.parse_args()
    began = time.time()
    series = system_series(args.dir)
    groups = defaultdict(list)
    for path in find_logs(args.dir):
        log = Log(path)
        row = job_metrics(log, series)
        row["key"] = group_key(log)
        groups[row["key"]].append(row)
    out = {"dir": args.dir, "intervals": len(series), "groups": []}
    for key in sorted(groups, key=lambda k: (k[1], k)):
        rows = groups[key]
        g = {"key": list(key), "exe": key[1], "jobs": len(rows)}
        for y, x in PAIRS:
            g[f"{y}~{x}"] = associate(rows, y, x)
        g["mean_t_d"] = float(np.mean([r["t_d"] for r in rows if r["t_d"] is not None]))
        g["mean_t_um"] = float(np.mean([r["t_um"] for r in rows]))
        out["groups"].append(g)
    out["seconds"] = round(time.time() - began, 2)
    if args.jobs_csv:
        cols = ["jobid", "exe", "start_time", "t_j", "m", "t_d", "psi_d_read", "psi_d_write",
                "psi_read", "psi_write", "psi_o_read", "psi_o_write", "t_um"]
        with open(args.jobs_csv, "w", newline="", encoding="utf-8") as fp:
            w = csv.writer(fp)
            w.writerow(cols)
            for key, rows in groups.items():
                for r in rows:
                    w.writerow([key[1] if c == "exe" else ("" if r[c] is None else r[c])
                                for c in cols])
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
