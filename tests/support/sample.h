/* sample.h: the sample data of iocontend-gen, generated, then ingested through the
 * real parsers and analysed in a pgfixture's database, as `iocontend demo` does. */
#ifndef IOCONTEND_SAMPLE_H
#define IOCONTEND_SAMPLE_H

#include "pgfixture.h"

#include <stddef.h>

/* Runs `$IOCONTEND_GEN --out dir --seed seed gen_args` (gen_args: further options,
 * e.g. "--coupling 0 --days 1", or ""; $IOCONTEND_GEN defaults to
 * build/iocontend-gen). 0 on success; the generator's output on stderr otherwise. */
int sample_generate(const char *dir, unsigned long seed, const char *gen_args);

/* The configuration the generator wrote, dir/iocontend.conf, into out. */
void sample_conf(const char *dir, char *out, size_t size);

/* With --config dir/iocontend.conf: `ingest darshan dir/darshan`, then for every
 * folder dir/iostat/FS `ingest iostat --fs FS dir/iostat/FS`, then
 * `analyze analyze_args`. 0 when every ingest loaded everything (exit 0) and analyze
 * finished (exit 0, or 1 when it excluded jobs, e.g. for the planted hole); -1
 * otherwise, the output on stderr. */
int sample_load_analyze(const struct pgfixture *db, const char *dir,
                        const char *analyze_args);

/* The ingests of sample_load_analyze alone: jobs and samples, nothing analysed.
 * 0 when every ingest loaded everything; -1 otherwise. */
int sample_ingest(const struct pgfixture *db, const char *dir);

/* sample_load_analyze with "--permutations 0": every result but the significance,
 * whose 999 permutations cost about 6 s per pair at 420 jobs; a test that needs a
 * stored significance runs analyze for it. */
int sample_load(const struct pgfixture *db, const char *dir);

#endif
