"""ref_signif.py: the Python stack beside bench_signif (make bench, section "signif"),
run with /usr/bin/python3.

  time FILE D B   measured: scipy.stats.permutation_test, B resamples, two-sided,
                  permutation_type="pairings" (x's order shuffled against y), with a
                  vectorized statistic (scipy's fast path): Pearson, and Spearman
                  (scipy.stats.rankdata of each permuted batch, then Pearson of the
                  ranks), each timed by ref_assoc.py's sampling rule; prints
                  "time ps S" (the two together) and their p-values.
                  One call of each statistic the others need, timed the same way:
                  ref_assoc.py's numpy dCor ("time one_dcor"), sklearn's
                  mutual_info_regression ("time one_mi") and the KDE's width_ratio by
                  statsmodels (ref_kde.py's bands: "time one_width_ratio"). A
                  permutation test of these is B + 1 such calls: "extrapolated four"
                  and "extrapolated five" are ps + (B + 1) x those calls, not measured.
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ref_assoc  # noqa: E402
import ref_kde  # noqa: E402


def main(argv):
    if len(argv) != 4 or argv[0] != "time":
        sys.exit(__doc__)
    from scipy import stats
    from sklearn.feature_selection import mutual_info_regression

    d, b = int(argv[2]), int(argv[3])
    x, y = ref_assoc.load(argv[1], d)
    yc = y - y.mean()
    ry = stats.rankdata(y)
    ryc = ry - ry.mean()

    def pearson(xx, axis=-1):
        xc = xx - xx.mean(axis=axis, keepdims=True)
        return (xc @ yc) / np.sqrt((xc * xc).sum(axis=axis) * (yc @ yc))

    def spearman(xx, axis=-1):
        rx = stats.rankdata(xx, axis=axis)
        rc = rx - rx.mean(axis=axis, keepdims=True)
        return (rc @ ryc) / np.sqrt((rc * rc).sum(axis=axis) * (ryc @ ryc))

    def test(stat):
        res = stats.permutation_test((x,), stat, vectorized=True, n_resamples=b,
                                     permutation_type="pairings",
                                     alternative="two-sided",
                                     random_state=ref_assoc.SEED)
        return (res.statistic, res.pvalue)

    total = 0.0
    for name, stat in (("pearson", pearson), ("spearman", spearman)):
        best, samples, calls, (value, p) = ref_assoc.time_set(lambda s=stat: test(s))
        total += best
        print(f"time perm_{name} {best:.9g} {samples} {calls}")
        print(f"value ps {name} {value:.17g} p {p:.6g}")
    print(f"time ps {total:.9g}")
    one = {
        "one_dcor": lambda: ref_assoc.dcor_fast(x, y),
        "one_mi": lambda: mutual_info_regression(x.reshape(-1, 1), y, n_neighbors=3,
                                                 random_state=ref_assoc.SEED),
        "one_width_ratio": lambda: ref_kde.bands(np.log(x), np.log(y)),
    }
    t = {}
    for name, fn in one.items():
        t[name], samples, calls, _ = ref_assoc.time_set(fn)
        print(f"time {name} {t[name]:.9g} {samples} {calls}")
    four = total + (b + 1) * (t["one_dcor"] + t["one_mi"])
    print(f"extrapolated four {four:.9g}")
    print(f"extrapolated five {four + (b + 1) * t['one_width_ratio']:.9g}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
