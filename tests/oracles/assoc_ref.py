#!/usr/bin/python3
"""assoc_ref.py: reference Pearson and Spearman r for tests/stats/test_assoc.c.

Reads a text file of two whitespace-separated columns (x y, one job a line, values
printed with %.17g so they round-trip) and prints, one "name value" a line, with
repr precision:
  pearson         scipy.stats.pearsonr
  spearman        scipy.stats.spearmanr
  pearson_exact   Pearson r in exact rational arithmetic (fractions), rounded once
  spearman_exact  the same on scipy.stats.rankdata average ranks
The exact values decide when scipy itself rounds (its pearsonr centres on a rounded
mean and does not correct for it; that matters for x near 1e15).
Run with Debian's interpreter: /usr/bin/python3 assoc_ref.py FILE
"""
import sys
from decimal import Decimal, getcontext
from fractions import Fraction

import numpy as np
from scipy import stats


def exact_pearson(x, y):
    """Pearson r with every sum exact; one rounding at the end (50 digits)."""
    fx = [Fraction(v) for v in x]
    fy = [Fraction(v) for v in y]
    n = len(fx)
    mx = sum(fx) / n
    my = sum(fy) / n
    sxx = sum((v - mx) ** 2 for v in fx)
    syy = sum((v - my) ** 2 for v in fy)
    sxy = sum((a - mx) * (b - my) for a, b in zip(fx, fy))
    getcontext().prec = 50
    r2 = sxy * sxy / (sxx * syy)
    r = (Decimal(r2.numerator) / Decimal(r2.denominator)).sqrt()
    return float(r if sxy >= 0 else -r)


def main():
    data = np.loadtxt(sys.argv[1], dtype=np.float64, ndmin=2)
    x, y = data[:, 0], data[:, 1]
    print("pearson", repr(float(stats.pearsonr(x, y)[0])))
    print("spearman", repr(float(stats.spearmanr(x, y)[0])))
    print("pearson_exact", repr(exact_pearson(x, y)))
    rx = stats.rankdata(x, method="average")
    ry = stats.rankdata(y, method="average")
    print("spearman_exact", repr(exact_pearson(rx, ry)))


if __name__ == "__main__":
    main()
