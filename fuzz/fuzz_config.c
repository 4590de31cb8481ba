/* fuzz_config.c: libFuzzer target of the configuration file (cli/config.c on libinih),
 * read over the defaults as app_config_load reads --config, without the environment. */
#include "../cli/internal.h"
#include "../common/common.h"
#include "fuzz.h"

#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct app_config cfg;
    struct error err = {0};
    char *copy = NULL;
    FILE *fp;
    enum status rc;

    log_set_level(LOG_ERROR);
    fp = fuzz_stream(data, size, &copy);
    if (fp == NULL)
        return 0;
    app_config_defaults(&cfg);
    rc = app_config_read_stream(&cfg, fp, "fuzz.conf", &err);
    FUZZ_CHECK(rc == STATUS_OK || rc == STATUS_PARSE || rc == STATUS_NOMEM,
               "config: a status other than ok, parse or nomem");
    FUZZ_CHECK(rc == STATUS_OK || err.code == rc, "config: err holds the status");
    FUZZ_CHECK(rc != STATUS_PARSE || err.line > 0, "config: a parse error names no line");
    app_config_clear(&cfg);
    fclose(fp);
    free(copy);
    return 0;
}
