/* sample.c: generate, ingest and analyse the sample data set for a test. */
#include "sample.h"
#include "testutil.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int sample_generate(const char *dir, unsigned long seed, const char *gen_args)
{
    const char *gen = getenv("IOCONTEND_GEN");
    char cmd[2048];
    int rc = -1;

    if (gen == NULL || gen[0] == '\0')
        gen = "build/iocontend-gen";
    snprintf(cmd, sizeof cmd, "'%s' --out '%s' --seed %lu %s 2>&1", gen, dir, seed,
             gen_args);
    char *out = testutil_run(cmd, &rc);
    if (out != NULL && rc != 0)
        fprintf(stderr, "sample: `%s` exited %d:\n%s\n", cmd, rc, out);
    free(out);
    return out != NULL && rc == 0 ? 0 : -1;
}

void sample_conf(const char *dir, char *out, size_t size)
{
    snprintf(out, size, "%s/iocontend.conf", dir);
}

int sample_load(const struct pgfixture *db, const char *dir)
{
    return sample_load_analyze(db, dir, "--permutations 0");
}

int sample_ingest(const struct pgfixture *db, const char *dir)
{
    char conf[1024], iostat[1024];
    const struct dirent *e;
    int rc;

    sample_conf(dir, conf, sizeof conf);
    rc =
        pgfixture_cmd(db, "--quiet --config '%s' ingest darshan '%s/darshan'", conf, dir);
    if (rc != 0)
        return -1;
    /* One folder per monitored file system, named as the file system (gen.c). */
    snprintf(iostat, sizeof iostat, "%s/iostat", dir);
    DIR *d = opendir(iostat);
    if (d == NULL) {
        fprintf(stderr, "sample: no folder %s\n", iostat);
        return -1;
    }
    while (rc == 0 && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        rc = pgfixture_cmd(db, "--quiet --config '%s' ingest iostat --fs '%s' '%s/%s'",
                           conf, e->d_name, iostat, e->d_name);
    }
    closedir(d);
    return rc != 0 ? -1 : 0;
}

int sample_load_analyze(const struct pgfixture *db, const char *dir,
                        const char *analyze_args)
{
    char conf[1024];
    int rc;

    if (sample_ingest(db, dir) != 0)
        return -1;
    sample_conf(dir, conf, sizeof conf);
    /* Its per-group lines (stderr) go to the test's log; exit 1 only says that jobs
     * were excluded, which the generator plants (a hole in the samples). */
    char args[2200];
    snprintf(args, sizeof args, "--config '%s' analyze %s", conf, analyze_args);
    char *out = pgfixture_run(db, args, &rc);
    bool ran = out != NULL;
    free(out);
    if (!ran || (rc != 0 && rc != 1)) {
        fprintf(stderr, "sample: analyze exited %d\n", rc);
        return -1;
    }
    return 0;
}
