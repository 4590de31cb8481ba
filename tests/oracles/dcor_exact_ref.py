#!/usr/bin/python3
"""dcor_exact_ref.py: the exact distance correlation of data with few distinct values,
the reference of tests/stats/test_dcor.c at sizes the O(d^2) formula cannot reach.

With K distinct x and L distinct y, every sum of the dCov identities runs over the
K x L table of counts N[k, l] instead of the d^2 pairs:

  S1 = sum_ij a_ij b_ij         = sum N[k,l] N[k',l'] |x_k - x_k'| |y_l - y_l'|
  S2 = sum_i a_i. b_i.          = sum N[k,l] ra[k] rb[l],  ra[k] = sum_k' n_k' |x_k - x_k'|
  S3 = a.. b..
  dCov^2_V = S1/d^2 - 2 S2/d^3 + S3/d^4             (Szekely, Rizzo & Bakirov 2007)
  dCov^2_U ~ S1 - 2 S2/(d-2) + S3/((d-1)(d-2))       (Szekely & Rizzo 2014; a_ii = 0)

in rational arithmetic on the exact values of the doubles (fractions.Fraction), so
the only rounding is the last one: the square roots in 60-digit decimals. Nothing is
shared with the O(d log d) code under test.

Usage: /usr/bin/python3 dcor_exact_ref.py FILE...   (each FILE: two columns x y, %.17g)
Prints "dcor_v <v> dcor2_u <u>" per FILE; refuses (exit 1) more than 400 distinct
values on a side.
"""
import sys
from decimal import Decimal, getcontext
from fractions import Fraction

import numpy as np

MAX_LEVELS = 400
getcontext().prec = 60


def dec(f):
    return Decimal(f.numerator) / Decimal(f.denominator)


def margin(values, counts):
    """Row sums ra[k], a.. and sum_ij a_ij^2 of one side, exactly."""
    ra = [sum(int(c) * abs(v - w) for w, c in zip(values, counts)) for v in values]
    total = sum(int(c) * r for r, c in zip(ra, counts))
    sq = sum(int(c) * int(c2) * (v - w) ** 2
             for v, c in zip(values, counts) for w, c2 in zip(values, counts))
    rows_sq = sum(int(c) * r * r for r, c in zip(ra, counts))
    return ra, total, sq, rows_sq


def dcor_exact(x, y):
    d = len(x)
    xs, xi = np.unique(x, return_inverse=True)
    ys, yi = np.unique(y, return_inverse=True)
    if len(xs) > MAX_LEVELS or len(ys) > MAX_LEVELS:
        sys.exit("dcor_exact_ref: more than %d distinct values on a side" % MAX_LEVELS)
    table = np.zeros((len(xs), len(ys)), dtype=np.int64)
    np.add.at(table, (xi, yi), 1)
    xv = [Fraction(float(v)) for v in xs]
    yv = [Fraction(float(v)) for v in ys]
    ra, a_all, a_sq, a_rows = margin(xv, table.sum(axis=1))
    rb, b_all, b_sq, b_rows = margin(yv, table.sum(axis=0))
    cells = [(k, l, int(table[k, l])) for k in range(len(xv)) for l in range(len(yv))
             if table[k, l] > 0]
    s1 = sum(c * c2 * abs(xv[k] - xv[k2]) * abs(yv[l] - yv[l2])
             for k, l, c in cells for k2, l2, c2 in cells)
    s2 = sum(c * ra[k] * rb[l] for k, l, c in cells)
    n = Fraction(d)

    def v_form(p, q, r):
        return p / n**2 - 2 * q / n**3 + r / n**4

    cov = v_form(s1, s2, a_all * b_all)
    var_x, var_y = v_form(a_sq, a_rows, a_all**2), v_form(b_sq, b_rows, b_all**2)
    dcor_v = float((max(dec(cov), Decimal(0)) / (dec(var_x) * dec(var_y)).sqrt()).sqrt())
    if d < 4:
        return dcor_v, float("nan")

    def u_form(p, q, r):
        return p - 2 * q / (n - 2) + r / ((n - 1) * (n - 2))

    ucov = u_form(s1, s2, a_all * b_all)
    ux, uy = u_form(a_sq, a_rows, a_all**2), u_form(b_sq, b_rows, b_all**2)
    if ux <= 0 or uy <= 0:
        return dcor_v, float("nan")
    return dcor_v, float(dec(ucov) / (dec(ux) * dec(uy)).sqrt())


def main():
    for path in sys.argv[1:]:
        data = np.loadtxt(path, dtype=np.float64, ndmin=2)
        v, u = dcor_exact(data[:, 0], data[:, 1])
        print("dcor_v %r dcor2_u %r" % (v, u))


if __name__ == "__main__":
    main()
