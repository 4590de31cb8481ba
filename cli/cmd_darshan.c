/* cmd_darshan.c: `iocontend darshan dump [--show-incomplete | --dxt] LOG`: a binary
 * Darshan log as darshan-parser (or darshan-dxt-parser) prints it, without darshan-util.
 */
#include "internal.h"

#include <stdio.h>
#include <string.h>

void cmd_darshan_help(FILE *fp)
{
    fprintf(fp,
            "usage: iocontend darshan dump [--show-incomplete | --dxt] LOG\n"
            "Prints the binary Darshan log LOG (log formats 3.00 to 3.41, either byte\n"
            "order, zlib, bzip2 or uncompressed) as darshan-parser 3.5.0 prints it: the\n"
            "header, the log file regions, the mount table and every counter of every\n"
            "module it reads (times in UTC). No database is used.\n"
            "  --show-incomplete  print the modules the log marks incomplete too (else\n"
            "                     the dump stops at the first one, as darshan-parser)\n"
            "  --dxt              print the DXT traces instead, as darshan-dxt-parser\n"
            "                     3.5.0 prints them (stops after the banner of a DXT\n"
            "                     module the log marks incomplete)\n"
            "exit: 0 printed; 64 usage; 65 LOG cannot be read as a Darshan log, or a\n"
            "      module is incomplete; 66 LOG does not exist or cannot be opened.\n");
}

int cmd_darshan(struct app_config *cfg, int argc, char **argv)
{
    bool show_incomplete = false, dxt = false;
    const struct app_option opts[] = {
        {"show-incomplete", OPT_FLAG, &show_incomplete, 0, 0, NULL, 0},
        {"dxt", OPT_FLAG, &dxt, 0, 0, NULL, 0},
        {NULL, OPT_FLAG, NULL, 0, 0, NULL, 0}};
    struct app_options p;
    struct error err = {0};
    enum status rc;
    (void)cfg;

    if (argc < 2 || strcmp(argv[1], "dump") != 0) {
        fprintf(stderr, "iocontend darshan: expected 'dump'\n");
        cmd_darshan_help(stderr);
        return EXIT_USAGE;
    }
    argc--;
    argv++;
    app_options_init(&p, "darshan", opts, cmd_darshan_help, argc, argv);
    if (app_options_all(&p) >= 0)
        return p.status;
    int log = app_options_rest(&p);
    if (argc - log != 1) {
        fprintf(stderr, "iocontend darshan dump: expected one LOG\n");
        cmd_darshan_help(stderr);
        return EXIT_USAGE;
    }
    if (dxt && show_incomplete) {
        fprintf(stderr, "iocontend darshan dump: --dxt and --show-incomplete exclude "
                        "each other\n");
        return EXIT_USAGE;
    }
    if (dxt) {
        rc = ingest_darshan_dump_dxt(stdout, argv[log], &err);
    } else {
        rc = ingest_darshan_dump(stdout, argv[log], show_incomplete, &err);
    }
    if (fflush(stdout) != 0 && rc == STATUS_OK)
        rc = error_set(&err, STATUS_INTERNAL, "stdout: write error");
    if (rc == STATUS_OK)
        return EXIT_OK;
    /* here a log that cannot be read is bad data (65), not a usage error */
    if (rc == STATUS_PARSE) {
        (void)app_fail("darshan dump", rc, &err);
        return EXIT_DATAERR;
    }
    return app_fail("darshan dump", rc, &err);
}
