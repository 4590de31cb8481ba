#!/usr/bin/python3
"""kde_ref.py: the KDE credible bands of METHOD.md §5 `kde`, the reference of
tests/stats/test_kde.c, from statsmodels and scipy (nothing shared with stats/kde.c).

  space       log when every x and y > 0 (or --space log), else linear
  hx, hy      normal reference h = s·d^(-1/6), s = numpy std with ddof=1, fitting space
  x_grid      numpy.quantile (type 7, "linear") of the fitted x at (i + 0.5)/16
  product kernel (default):
    density   statsmodels KDEMultivariate(var_type="cc", bw=[hx, hy]).pdf on the grid
    q05 ...   statsmodels KDEMultivariateConditional(dep "c", indep "c",
              bw=[hy, hx]).cdf solved for 0.05, 0.5, 0.95 by scipy.optimize.brentq
    marg_q*   statsmodels KDEMultivariate(var_type="c", bw=[hy]).cdf, brentq
  --kernel full:
    density   scipy.stats.gaussian_kde (Scott's factor: H = d^(-1/3)·cov) on the grid
    q05 ...   F(y|x) = integral of the kde's pdf(x, t) for t <= y (scipy quad) over
              kde.marginal(0).pdf(x), solved by brentq
    marg_q*   kde.marginal(1).integrate_box_1d, brentq
  grid        x0 dx y0 dy: [min - 3h, max + 3h] in 128 points per axis
  mean, sd, band, width_ratio, paper_width_ratio as METHOD.md (c), (d)

  --closed: the formulas of METHOD.md in numpy (log-sum-exp weights, ndtr, brentq;
    the density by direct sums), for the binned sizes (d > 5000) where the
    references above are too slow; their agreement is checked at small d.

Usage: /usr/bin/python3 kde_ref.py [--kernel product|full] [--space auto|log|linear]
           [--no-density] [--closed] FILE      (FILE: two columns x y, %.17g)
Prints one "name v1 v2 ..." line per quantity (fitting space unless said), with
repr precision; quantiles in fitting space.
"""
import argparse
import math

import numpy as np
from scipy import optimize, special, stats
from statsmodels.nonparametric.kernel_density import (KDEMultivariate,
                                                       KDEMultivariateConditional)

NG = 128
NQ = 16
PROBS = (0.05, 0.5, 0.95)


def solve(cdf, p, lo, hi, scale):
    """The y in [lo, hi] (stepped out if needed) where cdf(y) = p."""
    while cdf(lo) > p:
        lo -= scale
    while cdf(hi) < p:
        hi += scale
    return optimize.brentq(lambda t: cdf(t) - p, lo, hi, xtol=1e-13 * scale,
                           rtol=4 * np.finfo(float).eps, maxiter=500)


def product_kernel(u, v, hx, hy, xg, gx, gy, density):
    out = {}
    if density:
        kde = KDEMultivariate(data=[u, v], var_type="cc", bw=[hx, hy])
        pts = np.column_stack([np.repeat(gx, NG), np.tile(gy, NG)])
        out["density"] = kde.pdf(pts)
    cond = KDEMultivariateConditional(endog=[v], exog=[u], dep_type="c",
                                      indep_type="c", bw=[hy, hx])
    for p in PROBS:
        z = stats.norm.ppf(p)
        qs = []
        for x in xg:
            def cdf(t, x=x):
                return float(np.atleast_1d(cond.cdf(np.array([[t]]), np.array([[x]])))[0])
            qs.append(solve(cdf, p, v.min() + hy * z, v.max() + hy * z, hy))
        out["q%02d" % round(100 * p)] = qs
    marg = KDEMultivariate(data=[v], var_type="c", bw=[hy])
    for p in (0.05, 0.95):
        z = stats.norm.ppf(p)
        def mcdf(t):
            return float(np.atleast_1d(marg.cdf(np.array([[t]])))[0])
        out["marg_q%02d" % round(100 * p)] = [
            solve(mcdf, p, v.min() + hy * z, v.max() + hy * z, hy)]
    return out


def full_kernel(u, v, xg, gx, gy, density):
    out = {}
    kde = stats.gaussian_kde(np.vstack([u, v]))
    cov = kde.covariance
    hy = math.sqrt(cov[1, 1])
    if density:
        pts = np.vstack([np.repeat(gx, NG), np.tile(gy, NG)])
        out["density"] = kde(pts)
    mx = kde.marginal(0)
    beta = cov[0, 1] / cov[0, 0]
    sc = math.sqrt(cov[1, 1] - cov[0, 1] ** 2 / cov[0, 0])
    nodes, weights = np.polynomial.legendre.leggauss(24)
    for p in PROBS:
        out["q%02d" % round(100 * p)] = []
    for x in xg:
        # the kde's pdf(x, t) integrated in t by 24-point Gauss-Legendre on panels
        # a quarter of the conditional kernel's sd wide; nothing of the closed form
        fx = float(mx(x)[0])
        mu = v + beta * (x - u)
        edges = np.arange(mu.min() - 40 * sc, mu.max() + 40 * sc + sc / 4, sc / 4)
        half = 0.5 * (edges[1:] - edges[:-1])
        mid = 0.5 * (edges[1:] + edges[:-1])
        t = (mid[:, None] + half[:, None] * nodes[None, :]).ravel()
        f = kde(np.vstack([np.full(t.size, x), t])).reshape(mid.size, nodes.size)
        cum = np.concatenate([[0.0], np.cumsum((f * weights[None, :]).sum(1) * half)])

        def cdf(y, x=x, fx=fx, edges=edges, cum=cum):
            i = int(np.clip(np.searchsorted(edges, y) - 1, 0, edges.size - 2))
            h = 0.5 * (y - edges[i])
            tt = edges[i] + h + h * nodes
            part = float((kde(np.vstack([np.full(tt.size, x), tt])) * weights).sum() * h)
            return (cum[i] + part) / fx
        for p in PROBS:
            out["q%02d" % round(100 * p)].append(
                solve(cdf, p, mu.min() - 8 * sc, mu.max() + 8 * sc, sc))
    my = kde.marginal(1)
    for p in (0.05, 0.95):
        def mcdf(t):
            return float(my.integrate_box_1d(-np.inf, t))
        out["marg_q%02d" % round(100 * p)] = [
            solve(mcdf, p, v.min() - 8 * hy, v.max() + 8 * hy, hy)]
    return out


def closed_form(u, v, hx, hy, beta, sc, xg, gx, gy, density):
    """The formulas of METHOD.md §5 in numpy (log-sum-exp weights, scipy's ndtr):
    for cases too large for the references above (binned, d > 5000)."""
    out = {}
    if density:
        kx = np.exp(-0.5 * ((gx[:, None] - u[None, :]) / hx) ** 2)
        ky = np.exp(-0.5 * ((gy[:, None] - v[None, :]) / hy) ** 2)
        out["density"] = (kx @ ky.T).ravel() / (2 * math.pi * hx * hy * u.size)
    for p in PROBS:
        out["q%02d" % round(100 * p)] = []
    for x in xg:
        lw = -0.5 * ((x - u) / hx) ** 2
        w = np.exp(lw - lw.max())
        mu = v + beta * (x - u)

        def cdf(y, w=w, mu=mu):
            return float((w * special.ndtr((y - mu) / sc)).sum() / w.sum())
        for p in PROBS:
            z = stats.norm.ppf(p)
            out["q%02d" % round(100 * p)].append(
                solve(cdf, p, mu.min() + sc * z, mu.max() + sc * z, sc))
    for p in (0.05, 0.95):
        z = stats.norm.ppf(p)

        def mcdf(y):
            return float(special.ndtr((y - v) / hy).mean())
        out["marg_q%02d" % round(100 * p)] = [
            solve(mcdf, p, v.min() + hy * z, v.max() + hy * z, hy)]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernel", default="product", choices=["product", "full"])
    ap.add_argument("--space", default="auto", choices=["auto", "log", "linear"])
    ap.add_argument("--no-density", action="store_true")
    ap.add_argument("--closed", action="store_true",
                    help="the numpy formulas instead of statsmodels / gaussian_kde")
    ap.add_argument("file")
    a = ap.parse_args()
    data = np.loadtxt(a.file, dtype=np.float64, ndmin=2)
    x, y = data[:, 0], data[:, 1]
    d = len(x)
    space = a.space
    if space == "auto":
        space = "log" if (x > 0).all() and (y > 0).all() else "linear"
    u, v = (np.log(x), np.log(y)) if space == "log" else (x, y)
    hx = np.std(u, ddof=1) * d ** (-1.0 / 6.0)
    hy = np.std(v, ddof=1) * d ** (-1.0 / 6.0)
    xg = np.quantile(u, (np.arange(NQ) + 0.5) / NQ)
    gx = np.linspace(u.min() - 3 * hx, u.max() + 3 * hx, NG)
    gy = np.linspace(v.min() - 3 * hy, v.max() + 3 * hy, NG)
    if a.closed:
        beta, sc = 0.0, hy
        if a.kernel == "full":
            cov = np.cov(u, v) * d ** (-1.0 / 3.0)
            beta = cov[0, 1] / cov[0, 0]
            sc = math.sqrt(cov[1, 1] - cov[0, 1] ** 2 / cov[0, 0])
        res = closed_form(u, v, hx, hy, beta, sc, xg, gx, gy,
                          not a.no_density and a.kernel == "product")
    elif a.kernel == "product":
        res = product_kernel(u, v, hx, hy, xg, gx, gy, not a.no_density)
    else:
        res = full_kernel(u, v, xg, gx, gy, not a.no_density)

    back = np.exp if space == "log" else (lambda t: np.asarray(t))
    width = back(np.array(res["q95"])) - back(np.array(res["q05"]))
    marg = float(back(res["marg_q95"][0]) - back(res["marg_q05"][0]))
    mean, sd = float(np.mean(y)), float(np.std(y, ddof=1))
    res.update({
        "hx": [hx], "hy": [hy], "x_grid": xg,
        "grid": [gx[0], gx[1] - gx[0], gy[0], gy[1] - gy[0]],
        "mean": [mean], "sd": [sd],
        "width_ratio": [float(np.mean(width / marg))],
        "paper_width_ratio": [float(np.mean(width) / (2 * 1.645 * sd))],
    })
    print("space", space)
    for name, vals in res.items():
        print(name, " ".join(repr(float(t)) for t in vals))


if __name__ == "__main__":
    main()
