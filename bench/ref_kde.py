"""ref_kde.py: the Python stack beside bench_kde (make bench, section "kde"), run with
/usr/bin/python3. Both sides fit (ln x, ln y) of the bench data (ref_assoc.py gen: every
value is positive, so the KDE's auto space is log).

  grid FILE D STEP OURS   scipy.stats.gaussian_kde (Scott's factor: H = d^(-1/3)·cov,
                          the kernel of our grid_full) evaluated on our 128 x 128 grid
                          (read from OURS, bench_kde's output), every STEP-th point of
                          each axis: (128 / STEP)^2 points. Prints "time grid S samples
                          calls", "points N", and "diff grid_full X": max |ours - ref|
                          over those points / the largest ref value.
  cond FILE D OURS        the bands (docs/method.md §5 (b), (d)) with statsmodels:
                          KDEMultivariateConditional(bw=[h_y, h_x]).cdf solved for
                          0.05, 0.5, 0.95 at the 16 x values by scipy's brentq, and the
                          marginal's Q05, Q95 by KDEMultivariate(bw=[h_y]).cdf; the
                          product kernel, h = s·d^(-1/6). Timed whole (the fits, the 48 +
                          2 roots). Prints "time cond S samples calls", and the largest
                          |ours - ref| of the bands in units of h_y, and of width_ratio,
                          against OURS' "bands".

Timing: ref_assoc.py's sampling rule (best of up to 7, 2 s budget, 3 samples of a call
under 2 s).
"""

import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ref_assoc  # noqa: E402  (load, time_set)

NG = 128
NQ = 16
PROBS = (0.05, 0.5, 0.95)


def ours(path, variant):
    """bench_kde's "value VARIANT NAME v..." lines: NAME -> the words after it."""
    out = {}
    with open(path) as fp:
        for line in fp:
            f = line.split()
            if len(f) >= 3 and f[0] == "value" and f[1] == variant:
                out[f[2]] = f[3:]
    return out


def grid(path, d, step, ours_path):
    from scipy import stats

    x, y = ref_assoc.load(path, d)
    u, v = np.log(x), np.log(y)
    o = ours(ours_path, "grid_full")
    x0, dx, y0, dy = (float(t) for t in o["grid"][:4])
    mine = np.fromfile(o["grid"][4], dtype=np.float64).reshape(NG, NG)
    idx = np.arange(0, NG, step)
    gx, gy = x0 + idx * dx, y0 + idx * dy
    pts = np.vstack([np.repeat(gx, idx.size), np.tile(gy, idx.size)])
    kde = stats.gaussian_kde(np.vstack([u, v]))
    best, samples, calls, vals = ref_assoc.time_set(lambda: (kde(pts),))
    ref = vals[0].reshape(idx.size, idx.size)
    diff = np.abs(mine[np.ix_(idx, idx)] - ref).max() / ref.max()
    print(f"time grid {best:.9g} {samples} {calls}")
    print(f"points {idx.size ** 2}")
    print(f"diff grid_full {diff:.3g}")


def solve(cdf, p, lo, hi, scale):
    from scipy import optimize

    while cdf(lo) > p:
        lo -= scale
    while cdf(hi) < p:
        hi += scale
    return optimize.brentq(lambda t: cdf(t) - p, lo, hi, xtol=1e-10 * scale,
                           maxiter=500)


def bands(u, v):
    from scipy import stats
    from statsmodels.nonparametric.kernel_density import (
        KDEMultivariate, KDEMultivariateConditional)

    d = u.size
    hx = np.std(u, ddof=1) * d ** (-1.0 / 6.0)
    hy = np.std(v, ddof=1) * d ** (-1.0 / 6.0)
    xg = np.quantile(u, (np.arange(NQ) + 0.5) / NQ)
    cond = KDEMultivariateConditional(endog=[v], exog=[u], dep_type="c",
                                      indep_type="c", bw=[hy, hx])
    q = {}
    for p in PROBS:
        z = stats.norm.ppf(p)
        q[p] = [solve(lambda t, x=x: float(np.atleast_1d(
            cond.cdf(np.array([[t]]), np.array([[x]])))[0]), p,
            v.min() + hy * z, v.max() + hy * z, hy) for x in xg]
    marg = KDEMultivariate(data=[v], var_type="c", bw=[hy])
    m = [solve(lambda t: float(np.atleast_1d(marg.cdf(np.array([[t]])))[0]), p,
               v.min() + hy * stats.norm.ppf(p), v.max() + hy * stats.norm.ppf(p), hy)
         for p in (0.05, 0.95)]
    width = np.exp(np.array(q[0.95])) - np.exp(np.array(q[0.05]))
    wr = float(np.mean(width / (math.exp(m[1]) - math.exp(m[0]))))
    return hy, xg, q, m, wr


def cond(path, d, ours_path):
    x, y = ref_assoc.load(path, d)
    u, v = np.log(x), np.log(y)
    best, samples, calls, vals = ref_assoc.time_set(lambda: bands(u, v))
    hy, xg, q, m, wr = vals
    o = ours(ours_path, "bands")
    worst = max(abs(float(a) - b) for a, b in zip(o["x_grid"], xg))
    print(f"time cond {best:.9g} {samples} {calls}")
    print(f"diff x_grid {worst:.3g}")
    worst = 0.0
    for p, name in zip(PROBS, ("q05", "q50", "q95")):
        worst = max(worst, max(abs(float(a) - b) for a, b in zip(o[name], q[p])))
    worst = max(worst, max(abs(float(a) - b) for a, b in zip(o["marg"], m)))
    print(f"diff bands_hy {worst / hy:.3g}")
    print(f"diff width_ratio {abs(float(o['width_ratio'][0]) - wr):.3g}")


def main(argv):
    if len(argv) == 5 and argv[0] == "grid":
        grid(argv[1], int(argv[2]), int(argv[3]), argv[4])
        return 0
    if len(argv) == 4 and argv[0] == "cond":
        cond(argv[1], int(argv[2]), argv[3])
        return 0
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
