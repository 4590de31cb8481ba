"""ref_assoc.py: the Python stack beside bench_assoc (make bench), run with /usr/bin/python3.

Subcommands (every output line is "key value ..." for bench/run.sh to read):
  gen FILE D SEED   writes the bench data: D doubles x, then D doubles y, native
                    byte order, from numpy's PCG64 seeded with SEED:
                      u, v = rng.standard_normal(D), rng.standard_normal(D)
                      x = exp(27 + 2 u)                 (bytes, about 5e11, heavy tail)
                      y = 100 exp(0.3 u + 0.8 v)        (a monotone link plus noise)
                    tie-free, so KSG's jitter changes no neighbour (docs/method.md §5).
  selfcheck         the O(d log d) numpy distance correlation against the direct
                    O(d^2) formula at d = 500 (with and without ties).
  time FILE D SET.. each method set timed as bench_assoc does: the first call is
                    timed too; a sample repeats the call until it lasts >= 1 ms;
                    best of up to REPS samples, no new sample once BUDGET seconds
                    are spent, except that a call of at most BUDGET seconds gets
                    MIN_SAMPLES samples. Prints "time SET seconds samples calls" and
                    the values.
  one FILE D SET    loads the data and computes SET once (for max RSS, measured by
                    bench_assoc maxrss); SET "load" loads the data only.

Method sets: pearson (scipy.stats.pearsonr), spearman (scipy.stats.spearmanr),
dcor (dcor_fast below: numpy, O(d log d)), mi (sklearn mutual_info_regression,
n_neighbors=3) and all (the four in a row). A process imports only what its method
sets need, before timing them.
"""

import sys
import time

import numpy as np

SEED = 20240601  # STATS_DEFAULT_SEED, the KSG jitter's seed on both sides
REPS = 7
MIN_SAMPLES = 3
BUDGET_S = 2.0
MIN_SAMPLE_S = 1e-3


def load(path, d):
    v = np.fromfile(path, dtype=np.float64)
    if v.size != 2 * d:
        sys.exit(f"ref_assoc: {path}: expected {2 * d} doubles, got {v.size}")
    return v[:d].copy(), v[d:].copy()


def gen(path, d, seed):
    rng = np.random.default_rng(seed)
    u = rng.standard_normal(d)
    v = rng.standard_normal(d)
    x = np.exp(27.0 + 2.0 * u)
    y = 100.0 * np.exp(0.3 * u + 0.8 * v)
    np.concatenate([x, y]).astype(np.float64).tofile(path)


# ---- distance correlation, O(d log d) ---------------------------------------------


def _excl_cumsum(w):
    """Exclusive prefix sums along the last axis."""
    c = np.cumsum(w, axis=-1)
    return c - w


def _row_sums(v):
    """a_i. = sum_j |v_i - v_j| from one sort: for v_(k), k = 0..n-1 ascending,
    sum_j |v_(k) - v_j| = (2k - n) v_(k) + T - 2 P_k, P_k the sum of the k below."""
    n = v.size
    order = np.argsort(v, kind="stable")
    vs = v[order]
    k = np.arange(n, dtype=np.float64)
    s = (2.0 * k - n) * vs + vs.sum() - 2.0 * _excl_cumsum(vs)
    out = np.empty(n)
    out[order] = s
    return out, order


def _below_before_sum(p, xs, ys):
    """sum over pairs j < k with p[j] < p[k] of (x_k - x_j)(y_k - y_j), p a
    permutation of 0..n-1. p[j] < p[k] exactly when, at the highest bit l where
    they differ, p[j] has 0 and p[k] has 1, the bits above l being equal. So walk
    the bits from the top (an MSD radix sort, vectorised): the arrangement at bit l
    is sorted by (p >> (l + 1), position); in each such group every element with
    bit l set pairs with the earlier ones with bit l clear, through the prefix sums
    of 1, x, y, xy of those. A group's elements are the p values
    g << (l + 1) .. + 2^(l + 1) - 1, so it starts at index g << (l + 1); the stable
    partition on bit l puts an element at ((p >> l) << l) + its rank among the
    elements of its own bit in its group. log2(n) levels of O(n): O(n log n)."""
    n = p.size
    total = 0.0
    idx = np.arange(n)
    c = np.zeros((4, n + 1))  # c[:, k]: sums over the bit-clear elements before k
    for lvl in range(max(1, int(n - 1).bit_length()) - 1, -1, -1):
        one = ((p >> lvl) & 1).astype(bool)
        start = (p >> (lvl + 1)) << (lvl + 1)
        zero = ~one
        np.cumsum(zero, out=c[0, 1:])
        np.cumsum(np.where(zero, xs, 0.0), out=c[1, 1:])
        np.cumsum(np.where(zero, ys, 0.0), out=c[2, 1:])
        np.cumsum(np.where(zero, xs * ys, 0.0), out=c[3, 1:])
        k1, s1 = idx[one], start[one]
        n0, sx, sy, sxy = (row[k1] - row[s1] for row in c)  # within the group
        xo, yo = xs[one], ys[one]
        total += float(np.sum(n0 * xo * yo - xo * sy - yo * sx + sxy))
        zeros_before = (c[0, :n] - c[0, start]).astype(np.int64)
        rank = np.where(one, idx - start - zeros_before, zeros_before)
        pos = ((p >> lvl) << lvl) + rank
        p_new, x_new, y_new = np.empty_like(p), np.empty_like(xs), np.empty_like(ys)
        p_new[pos], x_new[pos], y_new[pos] = p, xs, ys
        p, xs, ys = p_new, x_new, y_new
    return total


def dcor_fast(x, y):
    """dCor_V and dCor^2_U (docs/method.md §5) in O(d log d) (Huo & Szekely 2016;
    Chaudhuri & Hu 2019): row sums from one sort each; the cross term
    sum_ij |dx||dy| as 2 sum over pairs j before i in x order of
    s_ij (x_i - x_j)(y_i - y_j), s = +1 when y_j ranks below y_i, else -1,
    = 2 sum_i (2 D_i - A_i), A over every earlier j, D over the earlier j ranked
    below in y, each from sums of 1, x, y, xy."""
    n = x.size
    x = (x - x.mean()) / x.std()  # dCor is invariant; centring keeps sums small
    y = (y - y.mean()) / y.std()
    a_row, ox = _row_sums(x)
    b_row, oy = _row_sums(y)
    yrank = np.empty(n, dtype=np.int64)
    yrank[oy] = np.arange(n)
    xs, ys, p = x[ox], y[ox], yrank[ox]
    k = np.arange(n, dtype=np.float64)
    every = float(np.sum(k * xs * ys - xs * _excl_cumsum(ys) - ys * _excl_cumsum(xs)
                         + _excl_cumsum(xs * ys)))
    cross = 2.0 * (2.0 * _below_before_sum(p, xs, ys) - every)
    a_dd, b_dd = float(a_row.sum()), float(b_row.sum())
    ab = float(a_row @ b_row)
    a2 = 2.0 * n * float(x @ x) - 2.0 * float(x.sum()) ** 2  # sum_ij (x_i - x_j)^2
    b2 = 2.0 * n * float(y @ y) - 2.0 * float(y.sum()) ** 2
    aa, bb = float(a_row @ a_row), float(b_row @ b_row)

    def v_stat(c, s, t1, t2):
        return c / n**2 - 2.0 * s / n**3 + t1 * t2 / n**4

    def u_stat(c, s, t1, t2):
        return (c / (n * (n - 3)) - 2.0 * s / (n * (n - 2) * (n - 3))
                + t1 * t2 / (n * (n - 1) * (n - 2) * (n - 3)))

    dcov_v = v_stat(cross, ab, a_dd, b_dd)
    dvar_v = np.sqrt(v_stat(a2, aa, a_dd, a_dd) * v_stat(b2, bb, b_dd, b_dd))
    dcov_u = u_stat(cross, ab, a_dd, b_dd)
    dvar_u = np.sqrt(u_stat(a2, aa, a_dd, a_dd) * u_stat(b2, bb, b_dd, b_dd))
    return float(np.sqrt(max(0.0, dcov_v / dvar_v))), float(dcov_u / dvar_u)


def dcor_direct(x, y):
    """The O(d^2) definitions: double-centred (V) and U-centred distance matrices."""
    n = x.size
    a = np.abs(x[:, None] - x[None, :])
    b = np.abs(y[:, None] - y[None, :])

    def v_centre(m):
        return m - m.mean(0)[None, :] - m.mean(1)[:, None] + m.mean()

    def u_centre(m):
        r = m - m.sum(0)[None, :] / (n - 2) - m.sum(1)[:, None] / (n - 2)
        r += m.sum() / ((n - 1) * (n - 2))
        np.fill_diagonal(r, 0.0)
        return r

    av, bv = v_centre(a), v_centre(b)
    dcov_v = (av * bv).mean()
    dcor_v = np.sqrt(max(0.0, dcov_v / np.sqrt((av * av).mean() * (bv * bv).mean())))
    au, bu = u_centre(a), u_centre(b)
    dcor2_u = (au * bu).sum() / np.sqrt((au * au).sum() * (bu * bu).sum())
    return float(dcor_v), float(dcor2_u)


def selfcheck():
    rng = np.random.default_rng(7)
    ok = True
    u, v = rng.standard_normal(500), rng.standard_normal(500)
    cases = {
        "tie-free": (np.exp(27.0 + 2.0 * u), 100.0 * np.exp(0.3 * u + 0.8 * v)),
        "ties": (np.round(3.0 * u) * 2.385, np.round(2.0 * (u * u + v))),
    }
    for name, (x, y) in cases.items():
        fast, direct = dcor_fast(x, y), dcor_direct(x, y)
        diff = max(abs(f - g) for f, g in zip(fast, direct))
        good = diff <= 1e-9
        ok = ok and good
        print(f"selfcheck dcor_{name} {diff:.3g} {'PASS' if good else 'FAIL'}")
    return ok


# ---- timing -------------------------------------------------------------------


def methods(x, y, names):
    """name -> a call computing that method as the Python stack does. Imports only
    what names need, before any timing."""
    want = set(names)
    if want & {"pearson", "spearman", "all"}:
        from scipy import stats
    if want & {"mi", "all"}:
        from sklearn.feature_selection import mutual_info_regression

    def pearson():
        return (stats.pearsonr(x, y)[0],)

    def spearman():
        return (stats.spearmanr(x, y)[0],)

    def dcor():
        return dcor_fast(x, y)

    def mi():
        return (mutual_info_regression(x.reshape(-1, 1), y, n_neighbors=3,
                                       random_state=SEED)[0],)

    def all4():
        return pearson() + spearman() + dcor() + mi()

    return {"pearson": pearson, "spearman": spearman, "dcor": dcor, "mi": mi,
            "all": all4}


VALUE_NAMES = {"pearson": ["pearson"], "spearman": ["spearman"],
               "dcor": ["dcor_v", "dcor2_u"], "mi": ["mi_ksg_nats"]}


def time_set(fn):
    """Best seconds per call, samples, calls per sample, and the values."""
    t0 = time.perf_counter()
    vals = fn()
    first = time.perf_counter() - t0
    spent = first
    best = first
    calls = 1 if first >= MIN_SAMPLE_S else int(np.ceil(MIN_SAMPLE_S / max(first, 1e-9)))
    samples = 1
    while samples < REPS and (spent + best * calls <= BUDGET_S
                              or (samples < MIN_SAMPLES and best <= BUDGET_S)):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        dt = time.perf_counter() - t0
        spent += dt
        best = min(best, dt / calls)
        samples += 1
    return best, samples, calls, vals


def main(argv):
    if len(argv) >= 4 and argv[0] == "gen":
        gen(argv[1], int(argv[2]), int(argv[3]))
        return 0
    if argv == ["selfcheck"]:
        return 0 if selfcheck() else 1
    if len(argv) >= 4 and argv[0] in ("time", "one"):
        d = int(argv[2])
        x, y = load(argv[1], d)
        table = methods(x, y, argv[3:])
        for name in argv[3:]:
            if name == "load":
                continue
            if name not in table:
                sys.exit(f"ref_assoc: unknown method set {name}")
            if argv[0] == "one":
                table[name]()
                continue
            best, samples, calls, vals = time_set(table[name])
            print(f"time {name} {best:.9g} {samples} {calls}", flush=True)
            if name != "all":
                for vname, val in zip(VALUE_NAMES[name], vals):
                    print(f"value {vname} {val:.17g}")
        return 0
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
