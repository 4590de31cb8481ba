/* darshan_mod_bgq.c: the BG/Q record's counters and its older layout (the field lists
 * of darshan's log-format headers). */
#include "darshan_mod_fixed.h"

static const char *const bgq_counters[] = {
    "BGQ_CSJOBID", "BGQ_NNODES", "BGQ_RANKSPERNODE", "BGQ_DDRPERNODE",
    "BGQ_INODES",  "BGQ_ANODES", "BGQ_BNODES",       "BGQ_CNODES",
    "BGQ_DNODES",  "BGQ_ENODES", "BGQ_TORUSENABLED",
};
static const char *const bgq_f_counters[] = {
    "BGQ_F_TIMESTAMP",
};

/* BG/Q 1 had 8 bytes of padding after the base record. */
static const struct dmod_old_layout bgq_old[] = {{1, 120, NULL, 1, false}};

const struct dmod_fixed_spec dmod_bgq = SPEC(DBIN_BGQ, 2, bgq, NULL, 0, bgq_old);
