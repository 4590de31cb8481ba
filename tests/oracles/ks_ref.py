"""ks_ref.py: the one-sample Kolmogorov-Smirnov test of values against U(0, 1), by
Debian's scipy (run with /usr/bin/python3). Reads one value per line from the file
named by argv[1]; prints "ks D p n"."""
import sys

from scipy import stats

values = [float(line) for line in open(sys.argv[1]) if line.strip()]
r = stats.kstest(values, "uniform")
print("ks %.17g %.17g %d" % (r.statistic, r.pvalue, len(values)))
