/* sets.h: the browser's data sets beside the demo (issue 21), each loaded into a
 * pgfixture's database and analysed as an administrator would (analyze, then
 * analyze --sweep): the lab run with one hand-made group, and 45 generated days. */
#ifndef IOCONTEND_SETS_H
#define IOCONTEND_SETS_H

#include "pgfixture.h"

#include <stddef.h>

/* The hand-made group of the lab run: every one of its 30 jobs (README.md's
 * [group NAME] sections). */
#define SETS_LAB_GROUP "lab"

/* Writes db->state_dir/lab.conf (the lab's file system, its clock offset and the
 * group SETS_LAB_GROUP; its path into conf), ingests the lab run
 * (../shared/data/lab/run1_queue_depth: its darshan folder and iostat -x capture)
 * and analyses it. 0 on success; -1 with the reason on stderr. */
int sets_lab(const struct pgfixture *db, char *conf, size_t size);

/* Generates 45 days of 60 s samples into dir (iocontend-gen --days 45, a few jobs
 * per group: the samples, not the jobs, are what costs), ingests and analyses them;
 * dir/iocontend.conf into conf. Each step's seconds are printed. 0 on success; -1
 * with the reason on stderr. */
int sets_days45(const struct pgfixture *db, const char *dir, char *conf, size_t size);

#endif
