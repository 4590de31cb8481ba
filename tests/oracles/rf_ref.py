#!/usr/bin/python3
"""rf_ref.py: scikit-learn's random forest, the reference of tests/stats/test_rf.c
(METHOD.md §5 `rf`); nothing is shared with stats/rf.c.

  x_curve   numpy.linspace(numpy.percentile(x, 1), numpy.percentile(x, 99), 256)
            (type 7, numpy's default "linear")
  per seed s = 1 .. SEEDS (unless --curve-only):
    RandomForestRegressor(n_estimators=100, oob_score=True, random_state=s,
    n_jobs=1) fitted on x (one feature) and y, the library's defaults otherwise
    oob_r2    its oob_score_, one value per seed
    leaves    the mean of get_n_leaves() over its trees, one value per seed
    fit_s     its predict() at x_curve (one line per seed)

Usage: /usr/bin/python3 rf_ref.py [--seeds N] [--curve-only] FILE
       (FILE: two columns x y, %.17g). Prints "name v1 v2 ..." lines, repr precision.
"""
import argparse

import numpy as np

NC = 256


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--curve-only", action="store_true")
    ap.add_argument("file")
    a = ap.parse_args()
    data = np.loadtxt(a.file, ndmin=2)
    x, y = data[:, 0], data[:, 1]
    x_curve = np.linspace(np.percentile(x, 1), np.percentile(x, 99), NC)
    print("x_curve " + " ".join(repr(float(v)) for v in x_curve))
    if a.curve_only:
        return
    from sklearn.ensemble import RandomForestRegressor

    oob, leaves, fits = [], [], []
    for s in range(1, a.seeds + 1):
        rf = RandomForestRegressor(n_estimators=100, oob_score=True, random_state=s,
                                   n_jobs=1)
        rf.fit(x.reshape(-1, 1), y)
        oob.append(rf.oob_score_)
        leaves.append(np.mean([t.get_n_leaves() for t in rf.estimators_]))
        fits.append(rf.predict(x_curve.reshape(-1, 1)))
    print("oob_r2 " + " ".join(repr(float(v)) for v in oob))
    print("leaves " + " ".join(repr(float(v)) for v in leaves))
    for s, f in enumerate(fits, 1):
        print(f"fit_{s} " + " ".join(repr(float(v)) for v in f))


if __name__ == "__main__":
    main()
