#!/usr/bin/python3
"""signif_ref.py: reference BCa intervals for tests/stats/test_signif.c.

scipy.stats.bootstrap(method='BCa', paired=True, confidence_level=0.95) of
Pearson's r and Spearman's r (ties given their average rank), 20000 resamples,
numpy's default_rng(20240601): Efron's bias correction z0 from the share of
resampled values below the estimate (ties counted half) and the acceleration
from the leave-one-out (jackknife) values; the interval is np.percentile
(linear, type 7) of the resampled values at the adjusted levels. Independent
of the C code: another generator, scipy's own jackknife.

Usage: /usr/bin/python3 signif_ref.py FILE...   (each FILE: two columns x y, %.17g)
Prints per FILE: "pearson <lo> <hi> spearman <lo> <hi>".
"""
import sys

import numpy as np
from scipy import stats

N_RESAMPLES = 20000
SEED = 20240601


def pearson(x, y, axis=-1):
    dx = x - x.mean(axis=axis, keepdims=True)
    dy = y - y.mean(axis=axis, keepdims=True)
    return (dx * dy).sum(axis=axis) / np.sqrt((dx * dx).sum(axis=axis)
                                              * (dy * dy).sum(axis=axis))


def spearman(x, y, axis=-1):
    return pearson(stats.rankdata(x, axis=axis), stats.rankdata(y, axis=axis),
                   axis=axis)


def main():
    for path in sys.argv[1:]:
        data = np.loadtxt(path, ndmin=2)
        x, y = data[:, 0], data[:, 1]
        out = []
        for name, fn in (("pearson", pearson), ("spearman", spearman)):
            res = stats.bootstrap((x, y), fn, paired=True, vectorized=True,
                                  method="BCa", confidence_level=0.95,
                                  n_resamples=N_RESAMPLES,
                                  random_state=np.random.default_rng(SEED))
            ci = res.confidence_interval
            out.append("%s %.17g %.17g" % (name, ci.low, ci.high))
        print(" ".join(out))


if __name__ == "__main__":
    main()
