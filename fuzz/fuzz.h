/* fuzz.h: what the libFuzzer targets of fuzz/ and their replay driver share. */
#ifndef IOCONTEND_FUZZ_H
#define IOCONTEND_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The entry libFuzzer calls with each input (and fuzz/replay.c with each file): data
 * is borrowed for the call. Returns 0; a broken contract aborts. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A stream reading a copy of data, as the loader reads a file (fmemopen over the
 * bytes). *copy is the new buffer behind it: the caller fcloses the stream, then
 * frees *copy. NULL (and *copy NULL) when out of memory. */
FILE *fuzz_stream(const uint8_t *data, size_t size, char **copy);

/* Aborts naming what: a parser broke its own contract, which libFuzzer then reports
 * as a crash with its input. */
_Noreturn void fuzz_fail(const char *what);
#define FUZZ_CHECK(cond, what)                                                           \
    do {                                                                                 \
        if (!(cond))                                                                     \
            fuzz_fail(what);                                                             \
    } while (0)

#endif
