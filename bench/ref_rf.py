"""ref_rf.py: scikit-learn's random forest beside bench_rf (make bench, section "rf"),
run with /usr/bin/python3.

  gen FILE D SEED   writes the bench data: D doubles x, then D doubles y, native byte
                    order, from numpy's PCG64 seeded with SEED:
                      u, v = rng.standard_normal(D), rng.standard_normal(D)
                      x = exp(27 + 2 u)                 (bytes, about 5e11, heavy tail)
                      y = 60 (2 + sin(2 u)) + 20 v      (seconds: a wavy link, noise)
                    OOB R² about 0.6 and steady from seed to seed, so that one forest a
                    side compares.
  time FILE D OURS  RandomForestRegressor(n_estimators=100, oob_score=True, n_jobs=1,
                    random_state=SEED) fitted on x (one feature) and y, timed whole
                    (the fit computes the OOB predictions) with ref_assoc.py's rule
                    (best of up to 7 samples, 2 s budget, 3 samples of a call under
                    2 s; at d = 10^5 one call of about 20 s: one sample). Prints
                    "time rf S samples calls", "value oob_r2 V", "value leaves_mean V",
                    and against OURS (bench_rf's output): "diff oob_r2 V" (|ours −
                    sklearn|) and "diff curve V", the RMS of our curve minus sklearn's
                    predict() at our 256 x_curve points, over the sd of y.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ref_assoc  # noqa: E402  (load, time_set)

SEED = 20240601


def gen(path, d, seed):
    rng = np.random.default_rng(seed)
    u = rng.standard_normal(d)
    v = rng.standard_normal(d)
    x = np.exp(27.0 + 2.0 * u)
    y = 60.0 * (2.0 + np.sin(2.0 * u)) + 20.0 * v
    np.concatenate([x, y]).astype(np.float64).tofile(path)


def ours(path):
    """bench_rf's "value NAME v..." lines: NAME -> the words after it."""
    out = {}
    with open(path) as fp:
        for line in fp:
            f = line.split()
            if len(f) >= 3 and f[0] == "value":
                out[f[1]] = f[2:]
    return out


def time_rf(path, d, ours_path):
    from sklearn.ensemble import RandomForestRegressor

    x, y = ref_assoc.load(path, d)
    X = x.reshape(-1, 1)
    fitted = []

    def fit():
        rf = RandomForestRegressor(n_estimators=100, oob_score=True, n_jobs=1,
                                   random_state=SEED)
        rf.fit(X, y)
        fitted.append(rf)
        return (rf.oob_score_,)

    best, samples, calls, vals = ref_assoc.time_set(fit)
    rf = fitted[-1]
    print(f"time rf {best:.9g} {samples} {calls}")
    print(f"value oob_r2 {vals[0]:.17g}")
    print(f"value leaves_mean {np.mean([t.get_n_leaves() for t in rf.estimators_]):.17g}")
    o = ours(ours_path)
    if "oob_r2" in o and "x_curve" in o and "fit_curve" in o:
        xc = np.array([float(t) for t in o["x_curve"]])
        fc = np.array([float(t) for t in o["fit_curve"]])
        ref = rf.predict(xc.reshape(-1, 1))
        print(f"diff oob_r2 {abs(float(o['oob_r2'][0]) - vals[0]):.3g}")
        print(f"diff curve {np.sqrt(np.mean((fc - ref) ** 2)) / np.std(y, ddof=1):.3g}")


def main(argv):
    if len(argv) == 4 and argv[0] == "gen":
        gen(argv[1], int(argv[2]), int(argv[3]))
        return 0
    if len(argv) == 4 and argv[0] == "time":
        time_rf(argv[1], int(argv[2]), argv[3])
        return 0
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
