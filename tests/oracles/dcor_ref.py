#!/usr/bin/python3
"""dcor_ref.py: distance correlation by its O(d^2) definitions, the reference of
tests/stats/test_dcor.c and test_assoc_cli.c.

  dCor_V  = sqrt(max(0, dCov²_V / sqrt(dVar²_V(x)·dVar²_V(y)))) with the
            double-centred distance matrices (Székely, Rizzo & Bakirov 2007);
  dCor²_U = the U-centred version (Székely & Rizzo 2014), as it is (may be < 0).

Distances are taken of the raw values in double precision, as the definition
reads; nothing is shared with the O(d log d) code under test.

Usage: /usr/bin/python3 dcor_ref.py FILE...   (each FILE: two columns x y, %.17g)
Prints "dcor_v <v> dcor2_u <u>" per FILE ("nan" for dcor2_u when d < 4).
"""
import math
import sys

import numpy as np


def dcor_direct(x, y):
    d = len(x)
    a = np.abs(x[:, None] - x[None, :])
    b = np.abs(y[:, None] - y[None, :])

    def v_centre(m):
        return m - m.mean(axis=0)[None, :] - m.mean(axis=1)[:, None] + m.mean()

    av, bv = v_centre(a), v_centre(b)
    dcov, dvx, dvy = (av * bv).mean(), (av * av).mean(), (bv * bv).mean()
    dcor_v = math.sqrt(max(0.0, dcov / math.sqrt(dvx * dvy)))
    if d < 4:
        return dcor_v, math.nan

    def u_centre(m):
        c = (m - m.sum(axis=0)[None, :] / (d - 2) - m.sum(axis=1)[:, None] / (d - 2)
             + m.sum() / ((d - 1) * (d - 2)))
        np.fill_diagonal(c, 0.0)
        return c

    au, bu = u_centre(a), u_centre(b)
    k = d * (d - 3)
    ucov, uvx, uvy = (au * bu).sum() / k, (au * au).sum() / k, (bu * bu).sum() / k
    # 0/0 when a U-centred matrix is zero (a series constant but for its extremes)
    return dcor_v, ucov / math.sqrt(uvx * uvy) if uvx * uvy > 0 else math.nan


def main():
    for path in sys.argv[1:]:
        data = np.loadtxt(path, dtype=np.float64, ndmin=2)
        v, u = dcor_direct(data[:, 0].copy(), data[:, 1].copy())
        print("dcor_v %r dcor2_u %r" % (v, u))


if __name__ == "__main__":
    main()
