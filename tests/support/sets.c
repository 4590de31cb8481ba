/* sets.c: the lab run and 45 generated days, loaded and analysed for a test. */
#include "sets.h"
#include "sample.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DAYS45_SEED 20240601UL
/* d = 40 per group clears d_min with room for the planted hole; more jobs would not
 * change what the page is tested on, 45 days of samples, and analyze's cost is the
 * samples'. */
#define DAYS45_GEN "--days 45 --jobs-per-group 40"

/* analyze and then analyze --sweep, as the page needs both: the tables, coverage and
 * associations of the one, the stored sweeps of the other. Exit 1 only says that
 * groups or jobs were excluded (below d_min, a hole). */
static int analyze_both(const struct pgfixture *db, const char *conf)
{
    static const char *const runs[] = {"analyze --permutations 0", "analyze --sweep"};

    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        const double t0 = testutil_now_s();
        char args[1024];
        int rc = -1;
        snprintf(args, sizeof args, "--quiet --config '%s' %s", conf, runs[i]);
        free(pgfixture_run(db, args, &rc)); /* its stderr goes to the test's log */
        if (rc != 0 && rc != 1) {
            fprintf(stderr, "sets: `%s` exited %d\n", runs[i], rc);
            return -1;
        }
        printf("sets: %s: %.1f s\n", runs[i], testutil_now_s() - t0);
    }
    return 0;
}

int sets_lab(const struct pgfixture *db, char *conf, size_t size)
{
    char lab[512];
    FILE *fp;

    snprintf(lab, sizeof lab, "%s",
             testutil_path(testutil_shared_data(), "lab/run1_queue_depth"));
    snprintf(conf, size, "%s/lab.conf", db->state_dir);
    fp = fopen(conf, "w");
    if (fp == NULL) {
        perror(conf);
        return -1;
    }
    /* The lab's clock is 0.9 s behind its jobs' (tests/cases/golden/lab/manifest). */
    fprintf(fp, "[filesystems]\n/ = lab\n[samples]\nsample_offset_s = 0.9\n"
                "[group " SETS_LAB_GROUP "]\nexecutable = ^labjob$\n");
    if (fclose(fp) != 0) {
        perror(conf);
        return -1;
    }
    if (pgfixture_cmd(db, "--quiet --config '%s' ingest darshan '%s/darshan'", conf,
                      lab) != 0 ||
        pgfixture_cmd(db, "--quiet --config '%s' ingest iostat --fs lab '%s/iostat/%s'",
                      conf, lab, "iostat_dxt.txt") != 0)
        return -1;
    return analyze_both(db, conf);
}

int sets_days45(const struct pgfixture *db, const char *dir, char *conf, size_t size)
{
    char iostat[600];
    double t0 = testutil_now_s();

    sample_conf(dir, conf, size);
    if (sample_generate(dir, DAYS45_SEED, DAYS45_GEN) != 0)
        return -1;
    printf("sets: iocontend-gen %s: %.1f s\n", DAYS45_GEN, testutil_now_s() - t0);
    t0 = testutil_now_s();
    if (pgfixture_cmd(db, "--quiet --config '%s' ingest darshan '%s/darshan'", conf,
                      dir) != 0)
        return -1;
    for (int fs = 1; fs <= 2; fs++) { /* the generator's two file systems */
        snprintf(iostat, sizeof iostat, "%s/iostat/scratch%d", dir, fs);
        if (pgfixture_cmd(db, "--quiet --config '%s' ingest iostat --fs scratch%d '%s'",
                          conf, fs, iostat) != 0)
            return -1;
    }
    printf("sets: ingest: %.1f s\n", testutil_now_s() - t0);
    return analyze_both(db, conf);
}
