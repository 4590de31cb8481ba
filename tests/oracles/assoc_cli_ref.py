#!/usr/bin/python3
"""assoc_cli_ref.py: fresh CSVs and their reference associations for
tests/integration/test_assoc_cli.c (the `iocontend assoc --json` accuracy test).

Usage: /usr/bin/python3 assoc_cli_ref.py OUTDIR [SEED]

Writes OUTDIR/<case>.csv (header "job,load,time,note"; two extra rows whose load is
"nan" or empty, which `assoc` must drop and count), OUTDIR/<case>.xy (the used pairs,
"x y" per line, for kde_ref.py) and prints one line per case:

  <case> <d> <pearson> <spearman> <dcor_v> <dcor2_u> <mi_ksg> <mi_linfoot> <sklearn_mi>
      <p_pearson> <p_spearman>

(the last two: scipy's two-sided p-values of Pearson's and Spearman's r, the
references of the permutation p-values)

from independent references: scipy.stats for Pearson and Spearman, the direct O(d^2)
double-centred (V) and U-centred (Székely & Rizzo 2014) distance correlation in
numpy, ksg_ref.ksg (cKDTree + digamma) for KSG, and scikit-learn's
mutual_info_regression as a cross-check of the KSG reference. The data are drawn
fresh from SEED (default: the day's date) with unround values and no ties, so the
test runs on data nobody tuned it to.
"""
import datetime
import math
import os
import sys

import numpy as np
from scipy import stats

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dcor_ref  # noqa: E402
import ksg_ref  # noqa: E402


def cases(rng):
    """(name, load, time): the shapes the test covers, unround and tie-free."""
    out = []
    d = 1500
    load = rng.lognormal(27.0, 1.1, d)  # bytes, about 5e11
    out.append(("independent", load, 600.0 + 97.3 * rng.standard_normal(d)))
    load = rng.uniform(1.3e10, 7.9e12, 1200)
    out.append(("linear", load, 2.385e-10 * load + 41.7 * rng.standard_normal(1200)))
    load = rng.uniform(0.1, 6.0, 1000)
    out.append(("monotone", load,
                np.exp(1.3 * load) + 0.9 * np.exp(load) * rng.standard_normal(1000)))
    load = rng.lognormal(26.0, 0.8, 170)  # a group of the paper's size
    out.append(("small", load,
                120.0 * (load / 1e11) ** 0.4 * np.exp(0.3 * rng.standard_normal(170))))
    i = np.arange(800, dtype=np.float64)
    load = 1e15 + 2.385e3 * i  # the cancellation case of METHOD.md §5
    out.append(("cancellation", load,
                np.sin(i / 37.0) + 1e-3 * i + 0.05 * rng.standard_normal(800)))
    load = rng.lognormal(26.0, 0.8, 200)  # nothing to find: time ignores load
    out.append(("null", load, 300.0 * np.exp(0.25 * rng.standard_normal(200))))
    return out


def write_xy(path, load, time):
    with open(path, "w") as f:
        for xv, yv in zip(load, time):
            f.write("%r %r\n" % (float(xv), float(yv)))


def write_csv(path, load, time):
    with open(path, "w") as f:
        f.write("job,load,time,note\n")
        for j, (xv, yv) in enumerate(zip(load, time)):
            f.write("j%d,%r,%r,ok\n" % (j, float(xv), float(yv)))
            if j == 3:
                f.write("bad1,nan,%r,dropped\n" % float(yv))
            if j == 7:
                f.write("bad2,,%r,\"empty, dropped\"\n" % float(yv))


def main():
    outdir = sys.argv[1]
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else int(
        datetime.date.today().strftime("%Y%m%d"))
    rng = np.random.default_rng(seed)
    for name, load, time in cases(rng):
        if len(np.unique(load)) != len(load) or len(np.unique(time)) != len(time):
            raise SystemExit("%s: ties in the generated data" % name)
        write_csv(os.path.join(outdir, name + ".csv"), load, time)
        write_xy(os.path.join(outdir, name + ".xy"), load, time)
        r, p_r = stats.pearsonr(load, time)
        rho, p_rho = stats.spearmanr(load, time)
        dv, du = dcor_ref.dcor_direct(load, time)
        mi = ksg_ref.ksg(load, time)
        sk = ksg_ref.sklearn_mi(load, time)
        print("%s %d %r %r %r %r %r %r %r %r %r" % (
            name, len(load), float(r), float(rho), dv, du, mi,
            math.sqrt(-math.expm1(-2.0 * mi)), sk, float(p_r), float(p_rho)))


if __name__ == "__main__":
    main()
