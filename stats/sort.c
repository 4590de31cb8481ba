/* sort.c: the one sort that ranks, distance correlation and KSG share. A radix
 * argsort: sorting is the floor of every O(d log d) method here, and a comparison
 * sort through an index (gsl_sort_index is a heapsort) is several times slower at
 * d = 10^6 than six counting passes over contiguous keys. */
#include "internal.h"

#include <string.h>

#define SIGN_BIT UINT64_C(0x8000000000000000)

/* Order-preserving key: flip the sign bit of positives, every bit of negatives. */
static uint64_t key_of(double v)
{
    uint64_t u;

    if (v == 0.0)
        v = 0.0; /* −0 and +0 are one value */
    memcpy(&u, &v, sizeof u);
    return (u & SIGN_BIT) ? ~u : u | SIGN_BIT;
}

static double value_of(uint64_t k)
{
    const uint64_t u = (k & SIGN_BIT) ? k & ~SIGN_BIT : ~k;
    double v;

    memcpy(&v, &u, sizeof v);
    return v;
}

/* The keys of v into key, and the digit counts of every pass into ws->hist. */
static void count_digits(struct stats_ws *ws, const double *v, size_t d, uint64_t *key)
{
    const size_t radix = (size_t)1 << STATS_SORT_BITS;
    const uint64_t mask = radix - 1;

    memset(ws->hist, 0, STATS_SORT_PASSES * radix * sizeof *ws->hist);
    for (size_t i = 0; i < d; i++) {
        const uint64_t k = key_of(v[i]);
        key[i] = k;
        for (unsigned p = 0; p < STATS_SORT_PASSES; p++)
            ws->hist[p * radix + ((k >> (p * STATS_SORT_BITS)) & mask)]++;
    }
}

/* Turns pass p's digit counts into the first position of each digit. false when
 * every key has the same digit: the pass would not move anything. */
static bool digit_starts(struct stats_ws *ws, unsigned p, size_t d)
{
    const size_t radix = (size_t)1 << STATS_SORT_BITS;
    size_t *h = ws->hist + p * radix, sum = 0;
    bool moves = true;

    for (size_t b = 0; b < radix; b++) {
        const size_t c = h[b];
        if (c == d)
            moves = false;
        h[b] = sum;
        sum += c;
    }
    return moves;
}

const uint64_t *stats_argsort(struct stats_ws *ws, const double *v, size_t d,
                              size_t *order)
{
    const uint64_t mask = ((uint64_t)1 << STATS_SORT_BITS) - 1;
    uint64_t *key = ws->key, *key_tmp = ws->key_tmp;
    size_t *idx = order, *idx_tmp = ws->idx_tmp;

    count_digits(ws, v, d, key);
    for (size_t i = 0; i < d; i++)
        idx[i] = i;
    for (unsigned p = 0; p < STATS_SORT_PASSES; p++) {
        size_t *h = ws->hist + ((size_t)p << STATS_SORT_BITS);
        const unsigned shift = p * STATS_SORT_BITS;

        if (!digit_starts(ws, p, d))
            continue;
        for (size_t i = 0; i < d; i++) {
            size_t pos = h[(key[i] >> shift) & mask]++;
            key_tmp[pos] = key[i];
            idx_tmp[pos] = idx[i];
        }
        uint64_t *kt = key;
        key = key_tmp;
        key_tmp = kt;
        size_t *it = idx;
        idx = idx_tmp;
        idx_tmp = it;
    }
    if (idx != order)
        memcpy(order, idx, d * sizeof *order);
    return key;
}

void stats_sort_values(struct stats_ws *ws, const double *v, size_t d, uint64_t *key,
                       uint64_t *key_tmp, double *sorted)
{
    const uint64_t mask = ((uint64_t)1 << STATS_SORT_BITS) - 1;

    count_digits(ws, v, d, key);
    for (unsigned p = 0; p < STATS_SORT_PASSES; p++) {
        size_t *h = ws->hist + ((size_t)p << STATS_SORT_BITS);
        const unsigned shift = p * STATS_SORT_BITS;

        if (!digit_starts(ws, p, d))
            continue;
        for (size_t i = 0; i < d; i++)
            key_tmp[h[(key[i] >> shift) & mask]++] = key[i];
        uint64_t *kt = key;
        key = key_tmp;
        key_tmp = kt;
    }
    for (size_t i = 0; i < d; i++)
        sorted[i] = value_of(key[i]);
}

void stats_average_ranks(const uint64_t *sorted_keys, const size_t *order, size_t d,
                         double *rank)
{
    for (size_t i = 0; i < d;) {
        size_t j = i + 1;
        while (j < d && sorted_keys[j] == sorted_keys[i])
            j++;
        /* positions i..j−1 hold ranks i+1..j: their mean is (i + 1 + j) / 2 */
        double avg = 0.5 * (double)(i + 1 + j);
        for (size_t k = i; k < j; k++)
            rank[order[k]] = avg;
        i = j;
    }
}
