#!/usr/bin/python3
"""bw_ref.py: the Sheather-Jones (1991) solve-the-equation bandwidth of a Gaussian
kernel, the reference of tests/stats/test_bandwidth.c, written from the paper's
formulas with exact O(d^2) double sums (nothing shared with stats/bandwidth.c).

  S(g) = sum_ij phi4((v_i - v_j)/g) / (d(d-1) g^5)     estimates psi_4
  T(g) = -sum_ij phi6((v_i - v_j)/g) / (d(d-1) g^7)    estimates -psi_6
  (i = j included; phi_r(z) = He_r(z) phi(z), He the probabilists' Hermite
  polynomials of scipy.special)
  pilots: the AMSE-optimal g_r = [2 K^(r)(0) / (-psi_(r+2) d)]^(1/(r+3)) with psi_6,
  psi_8 of a normal of scale lam = min(sd, IQR/1.349) (sd ddof=1, numpy's linear
  quantiles; lam = sd when the IQR is 0), psi_r = (-1)^(r/2) r! / ((2 lam)^(r+1)
  (r/2)! sqrt(pi)); a = g_4, b = g_6
  gamma(h) = [2 K^(4)(0) S(a) / (R(K) T(b))]^(1/7) h^(5/7), R(K) = 1/(2 sqrt(pi))
  h solves h = [R(K) / (d S(gamma(h)))]^(1/5): scipy.optimize.brentq on R's bracket
  [0.1 h_max, h_max], h_max = 1.144 lam d^(-1/5), widened by 1.2 (up, down, ...)

Usage: /usr/bin/python3 bw_ref.py FILE...   (FILE: columns "v ignored", %.17g)
Prints one line per file: "h h_R", h as above and h_R with R's rounded constants
(a = 1.24 lam d^(-1/7), b = 1.23 lam d^(-1/9), 1.357 for gamma's constant).
       /usr/bin/python3 bw_ref.py --csv FILE XCOL YCOL
Prints "hx hy" of the two columns of a CSV file with a header line, as
`iocontend assoc` fits them: rows with an empty or non-finite x or y dropped, then
(ln x, ln y) when every value is > 0 (space auto), else as they are.
"""
import csv
import math
import sys

import numpy as np
from scipy import optimize, special

SQRT_2PI = math.sqrt(2.0 * math.pi)


def phi_r(r, z):
    """The r-th derivative of the standard normal density (r even)."""
    return special.eval_hermitenorm(r, z) * np.exp(-0.5 * z * z) / SQRT_2PI


def psi_normal(r, lam):
    """psi_r of a normal with sd lam (r even)."""
    return ((-1) ** (r // 2) * math.factorial(r)
            / ((2.0 * lam) ** (r + 1) * math.factorial(r // 2) * math.sqrt(math.pi)))


def sj_ste(v, r_constants=False):
    n = v.size
    diff = (v[:, None] - v[None, :]).ravel()
    nn = n * (n - 1.0)

    def s_hat(g):
        return phi_r(4, diff / g).sum() / (nn * g ** 5)

    def t_hat(g):
        return -phi_r(6, diff / g).sum() / (nn * g ** 7)

    sd = np.std(v, ddof=1)
    iqr = np.quantile(v, 0.75) - np.quantile(v, 0.25)
    lam = min(sd, iqr / 1.349) if iqr > 0 else sd
    k4 = phi_r(4, 0.0)
    k6 = phi_r(6, 0.0)
    rk = 1.0 / (2.0 * math.sqrt(math.pi))
    if r_constants:
        a = 1.24 * lam * n ** (-1.0 / 7.0)
        b = 1.23 * lam * n ** (-1.0 / 9.0)
        c_gamma = 1.357
    else:
        a = (2.0 * k4 / (-psi_normal(6, lam) * n)) ** (1.0 / 7.0)
        b = (2.0 * k6 / (-psi_normal(8, lam) * n)) ** (1.0 / 9.0)
        c_gamma = (2.0 * k4 / rk) ** (1.0 / 7.0)
    tb = t_hat(b)
    gamma_c = c_gamma * (s_hat(a) / tb) ** (1.0 / 7.0)

    def f(h):
        return (rk / (n * s_hat(gamma_c * h ** (5.0 / 7.0)))) ** 0.2 - h

    h_max = 1.144 * lam * n ** (-0.2)
    lo, hi = 0.1 * h_max, h_max
    tries = 1
    while f(lo) * f(hi) > 0:
        if tries % 2:
            hi *= 1.2
        else:
            lo /= 1.2
        tries += 1
    return optimize.brentq(f, lo, hi, xtol=1e-15 * hi, rtol=4 * np.finfo(float).eps,
                           maxiter=500)


def csv_bandwidths(path, xcol, ycol):
    def number(text):
        try:
            return float(text)
        except ValueError:
            return math.nan

    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    x = np.array([number(r[xcol]) for r in rows])
    y = np.array([number(r[ycol]) for r in rows])
    keep = np.isfinite(x) & np.isfinite(y)
    x, y = x[keep], y[keep]
    if np.all(x > 0) and np.all(y > 0):
        x, y = np.log(x), np.log(y)
    print(repr(sj_ste(x)), repr(sj_ste(y)))


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "--csv":
        csv_bandwidths(sys.argv[2], sys.argv[3], sys.argv[4])
        return
    for path in sys.argv[1:]:
        v = np.loadtxt(path, ndmin=2)[:, 0]
        print(repr(sj_ste(v)), repr(sj_ste(v, r_constants=True)))


if __name__ == "__main__":
    main()
