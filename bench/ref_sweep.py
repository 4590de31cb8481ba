"""ref_sweep.py: the Python stack beside `iocontend analyze --sweep` (bench/sweep.sh),
run with /usr/bin/python3.

  time CSV      CSV is `iocontend export jobs --format csv` at the base granularity
                (k = 1). Per group, over the jobs valid for t_d ~ psi_d_read (excluded_d
                empty, t_j > 0, both values present: the sweep's at_base job set),
                times once, after the imports: scipy's pearsonr and spearmanr, the
                O(d log d) numpy dCor of ref_assoc.py and sklearn's
                mutual_info_regression (n_neighbors=3) of x = psi_d_read, y = t_d.
                Prints "group ID d D seconds S", "value ID NAME V" and
                "time one_pair_one_k S" (the sum over the groups).
  compare REF SWEEP.json...
                the sweeps' at_base values against REF's, per group: the largest
                difference per coefficient and its tolerance.
"""

import csv
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ref_assoc  # noqa: E402  (its dCor and its KSG seed)

NAMES = ["pearson", "spearman", "dcor_v", "dcor2_u", "mi_ksg_nats"]
# docs/method.md §5's, but KSG's: t_d is a multiple of Δ, so its ties are many and both
# sides' jitter (GSL's mt19937 here, numpy's there) moves neighbours: the two are
# estimates of the same I, not the same number.
TOL = {"pearson": 1e-12, "spearman": 1e-12, "dcor_v": 1e-9, "dcor2_u": 1e-9,
       "mi_ksg_nats": 2e-2}


def load(path):
    groups = {}
    with open(path, newline="") as fp:
        for row in csv.DictReader(fp):
            if row["excluded_d"] or not row["t_d"] or not row["psi_d_read"]:
                continue
            if not row["t_j"] or float(row["t_j"]) <= 0:
                continue
            g = groups.setdefault(row["group"], ([], []))
            g[0].append(float(row["psi_d_read"]))
            g[1].append(float(row["t_d"]))
    return {k: (np.array(x), np.array(y)) for k, (x, y) in groups.items()}


def time_groups(path):
    from scipy import stats
    from sklearn.feature_selection import mutual_info_regression

    total = 0.0
    for gid, (x, y) in sorted(load(path).items()):
        t0 = time.perf_counter()
        r = stats.pearsonr(x, y)[0]
        rho = stats.spearmanr(x, y)[0]
        dv, du = ref_assoc.dcor_fast(x, y)
        mi = mutual_info_regression(x.reshape(-1, 1), y, n_neighbors=3,
                                    random_state=ref_assoc.SEED)[0]
        dt = time.perf_counter() - t0
        total += dt
        print(f"group {gid} d {x.size} seconds {dt:.6g}")
        for name, v in zip(NAMES, (r, rho, dv, du, mi)):
            print(f"value {gid} {name} {v:.17g}")
        print(f"value {gid} d {x.size}")
    print(f"time one_pair_one_k {total:.9g}")


def compare(ref_path, sweeps):
    ref = {}
    with open(ref_path) as fp:
        for line in fp:
            f = line.split()
            if f[0] == "value":
                ref[(f[1], f[2])] = float(f[3])
    worst = {n: (0.0, None) for n in NAMES}
    ok = True
    for path in sweeps:
        with open(path) as fp:
            s = json.load(fp)
        gid, base = s["group"], s["at_base"]
        if base["d"] != ref.get((gid, "d")):
            print(f"group {gid}: d {base['d']} in the sweep, {ref.get((gid, 'd'))} in the export")
            ok = False
            continue
        for n in NAMES:
            diff = abs(base[n] - ref[(gid, n)])
            if diff >= worst[n][0]:
                worst[n] = (diff, gid)
    for n in NAMES:
        diff, gid = worst[n]
        same = diff <= TOL[n]
        ok = ok and same
        print(f"{n:<12} {'same' if same else 'DIFFER'}  max diff {diff:.2g} (group {gid}), "
              f"tolerance {TOL[n]:g}")
    return ok


def main(argv):
    if len(argv) == 2 and argv[0] == "time":
        time_groups(argv[1])
        return 0
    if len(argv) >= 3 and argv[0] == "compare":
        return 0 if compare(argv[1], argv[2:]) else 1
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
