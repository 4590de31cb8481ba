#!/usr/bin/python3
"""ksg_ref.py: reference KSG mutual information for tests/stats/test_mi.c.

Kraskov, Stögbauer & Grassberger (2004), algorithm 1, k = 3, max-norm, written
independently of scikit-learn on scipy.spatial.cKDTree and scipy.special.digamma:

  x, y divided by their sd (d in the denominator), the sd correctly rounded
  (exact rational sums, then one rounding) so that the C code, which also rounds
  it correctly, sees the same scaled values bit for bit;
  eps_i    = max-norm distance to the k-th neighbour, i itself excluded
             (cKDTree.query, k + 1 points, p = inf: the first is a distance 0);
  n_x(i)   = #{j != i : |x_j - x_i| < eps_i}, strictly: scikit-learn's
             radius nextafter(eps_i, 0) with <= (cKDTree.query_ball_point),
             and 0 when eps_i = 0 (where scikit-learn counts the duplicates);
  I        = psi(d) + psi(k) - mean psi(n_x + 1) - mean psi(n_y + 1), clipped at 0.

No jitter of its own: the tests compare on tie-free data, where scikit-learn's
jitter of 1e-10 changes no neighbour, or give the jitter's normal draws. With
--jitter each FILE has two more columns zx zy, and the scaled values get
v += 1e-10 * max(1, mean|v|) * z (mean|v| summed in file order, as the C code
sums it), so that ties are broken exactly as there and the counts can be compared.

Usage: /usr/bin/python3 ksg_ref.py [--no-sklearn] [--brute] [--jitter] FILE...
Each FILE holds whitespace-separated columns x y (%.17g). For each FILE one
line: "mi <I> linfoot <sqrt(1 - exp(-2I))> sklearn <I>", the last from
sklearn.feature_selection.mutual_info_regression(n_neighbors=3, random_state=0),
which adds its own jitter ("nan" with --no-sklearn). --brute checks the counts
and eps against an O(d^2) search first and fails (exit 1) if they differ.
Run with Debian's interpreter, /usr/bin/python3.
"""
import math
import sys
from decimal import Decimal, getcontext
from fractions import Fraction

import numpy as np
from scipy.spatial import cKDTree
from scipy.special import digamma

K = 3


def sd_exact(v):
    """Population sd (d in the denominator), correctly rounded to a double."""
    f = [Fraction(float(a)) for a in v]
    m = sum(f) / len(f)
    var = sum((a - m) ** 2 for a in f) / len(f)
    getcontext().prec = 80
    return float((Decimal(var.numerator) / Decimal(var.denominator)).sqrt())


def scaled(v):
    s = sd_exact(v)
    return v / (s if s != 0.0 else 1.0)


def neighbour_eps(x, y):
    pts = np.column_stack((x, y))
    dist, _ = cKDTree(pts).query(pts, k=K + 1, p=np.inf)
    return dist[:, K]


def strict_counts(v, eps):
    radius = np.nextafter(eps, 0.0)
    n = cKDTree(v[:, None]).query_ball_point(v[:, None], radius, p=np.inf,
                                              return_length=True)
    # eps = 0 (k + 1 identical points, only without jitter): strictly closer than
    # 0 is nobody; scikit-learn's radius 0 would count the duplicates.
    return np.where(eps > 0.0, np.asarray(n, dtype=np.float64) - 1.0, 0.0)


def brute_check(x, y, eps, nx, ny):
    d = len(x)
    for i in range(d):
        dx = np.abs(x - x[i])
        dy = np.abs(y - y[i])
        dist = np.maximum(dx, dy)
        dist[i] = np.inf
        e = np.sort(dist)[K - 1]
        dx[i] = np.inf
        dy[i] = np.inf
        if e != eps[i] or (dx < e).sum() != nx[i] or (dy < e).sum() != ny[i]:
            sys.exit("brute force disagrees at point %d" % i)


def jittered(v, z):
    total = 0.0
    for a in v:
        total += abs(float(a))
    amp = 1e-10 * max(1.0, total / len(v))
    return v + amp * z


def ksg(x, y, brute=False, z=None):
    d = len(x)
    xs, ys = scaled(x), scaled(y)
    if z is not None:
        xs, ys = jittered(xs, z[0]), jittered(ys, z[1])
    eps = neighbour_eps(xs, ys)
    nx, ny = strict_counts(xs, eps), strict_counts(ys, eps)
    if brute:
        brute_check(xs, ys, eps, nx, ny)
    mi = (digamma(d) + digamma(K) - np.mean(digamma(nx + 1.0))
          - np.mean(digamma(ny + 1.0)))
    return max(0.0, float(mi))


def sklearn_mi(x, y):
    from sklearn.feature_selection import mutual_info_regression

    return float(mutual_info_regression(x[:, None], y, n_neighbors=K,
                                        random_state=0)[0])


def main():
    args = sys.argv[1:]
    use_sklearn = "--no-sklearn" not in args
    brute = "--brute" in args
    jitter = "--jitter" in args
    files = [a for a in args if not a.startswith("--")]
    for path in files:
        data = np.loadtxt(path, dtype=np.float64, ndmin=2)
        x, y = data[:, 0].copy(), data[:, 1].copy()
        z = (data[:, 2].copy(), data[:, 3].copy()) if jitter else None
        mi = ksg(x, y, brute, z)
        sk = sklearn_mi(x, y) if use_sklearn else math.nan
        print("mi %r linfoot %r sklearn %r"
              % (mi, math.sqrt(-math.expm1(-2.0 * mi)), sk))


if __name__ == "__main__":
    main()
