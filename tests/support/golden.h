/* golden.h: recorded outputs ("golden files") of the program and of its HTTP API,
 * listed in a manifest, replayed against the binary under test and compared after
 * masking what changes from run to run (tests/cases/golden/README.md). Include after
 * <cmocka.h>. */
#ifndef IOCONTEND_GOLDEN_H
#define IOCONTEND_GOLDEN_H

#include "pgfixture.h"
#include "server.h"

#include <jansson.h>
#include <stdbool.h>

/* What a manifest's cases run against. The strings are borrowed. */
struct golden_env {
    const struct pgfixture *db; /* started; its state directory is masked */
    const char *dir;            /* the manifest's folder, holding the expected files */
    const char *work;           /* a scratch folder: @WORK@, and @OUT@ is work/<file> */
    const char *data;           /* @DATA@: the data set's folder ("" when none) */
    const char *conf;           /* @CONF@: its iocontend.conf, also serve's; "" none */
    struct server srv; /* started by the first HTTP case, stopped by the caller */
};

/* true when IOCONTEND_GOLDEN_RECORD is set to 1: the cases write the expected files
 * instead of comparing with them. */
bool golden_recording(void);

/* The folder tests/cases/<rel> of the checkout (found from the working directory
 * upwards) into out; false when there is none. */
bool golden_case_dir(const char *rel, char *out, size_t size);

/* Runs every case of env->dir/manifest in order and compares each one's status and
 * output with the expected (or records them). Prints each difference; returns how
 * many cases differed (0: all as recorded). */
int golden_run_manifest(struct golden_env *env);

/* Masks run-dependent values in place: every object member named computed_at or
 * seconds, starting with last_ or ending in _at or _at_ms becomes "<masked>", and
 * in every string env's folders become <STATE>, <WORK>, <DATA>, <SHARED>. */
void golden_mask_json(const struct golden_env *env, json_t *j);

/* Stops env's server when the cases started one. */
void golden_stop(struct golden_env *env);

#endif
