/* fuzz.c: the helpers of the fuzz targets: a stream over the input, contract checks. */
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

FILE *fuzz_stream(const uint8_t *data, size_t size, char **copy)
{
    /* A copy of exactly size bytes: ASan then catches a read past the input, and
     * fmemopen's "r" never writes to it. */
    *copy = malloc(size > 0 ? size : 1);
    if (*copy == NULL)
        return NULL;
    if (size > 0)
        memcpy(*copy, data, size);
    FILE *fp = fmemopen(*copy, size, "r");
    if (fp == NULL) {
        free(*copy);
        *copy = NULL;
    }
    return fp;
}

void fuzz_fail(const char *what)
{
    fprintf(stderr, "fuzz: contract broken: %s\n", what);
    abort();
}
