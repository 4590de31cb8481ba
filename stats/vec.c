/* vec.c: checks and sums over one array that several methods share. */
#include "internal.h"

#include <math.h>

bool stats_all_finite(const double *v, size_t d)
{
    for (size_t i = 0; i < d; i++) {
        if (!isfinite(v[i]))
            return false;
    }
    return true;
}

bool stats_all_equal(const double *v, size_t d)
{
    for (size_t i = 1; i < d; i++) {
        if (v[i] != v[0])
            return false;
    }
    return true;
}

double stats_mean(const double *v, size_t d)
{
    double s = 0.0, c = 0.0;

    for (size_t i = 0; i < d; i++)
        s += v[i];
    s /= (double)d;
    for (size_t i = 0; i < d; i++)
        c += v[i] - s;
    return s + c / (double)d;
}
