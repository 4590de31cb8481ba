/* fuzz.h: what the libFuzzer targets of fuzz/ and their replay driver share. */
#ifndef IOCONTEND_FUZZ_H
#define IOCONTEND_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct dxt_trace;
struct ingest_fs_map;

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

/* Checks what a parsed DXT trace promises (ingest.h: per file write_count writes then
 * read_count reads, 0 <= start <= end, the operations summed in n_ops), then makes its
 * rows with map (trace_rows_make, ingest/internal.h) and checks them: one row per file,
 * the packed operations inflate back to 41 bytes each and read back as the trace's,
 * the merged windows are sorted per (direction, fs) and apart, and every operation
 * that counts lies inside a window of its kind. A broken promise aborts. */
void fuzz_check_trace(const struct dxt_trace *t, const struct ingest_fs_map *map);

#endif
