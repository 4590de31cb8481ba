/* cmd_darshan.c: `iocontend darshan dump [--show-incomplete | --dxt] LOG`: a binary
 * Darshan log as darshan-parser (or darshan-dxt-parser) prints it, without darshan-util.
 */
#include "internal.h"

#include <getopt.h>
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
    static const struct option longopts[] = {{"show-incomplete", no_argument, NULL, 's'},
                                             {"dxt", no_argument, NULL, 'x'},
                                             {"help", no_argument, NULL, 'h'},
                                             {NULL, 0, NULL, 0}};
    bool show_incomplete = false, dxt = false;
    struct error err = {0};
    enum status rc;
    int c;
    (void)cfg;

    if (argc < 2 || strcmp(argv[1], "dump") != 0) {
        fprintf(stderr, "iocontend darshan: expected 'dump'\n");
        cmd_darshan_help(stderr);
        return EXIT_USAGE;
    }
    argc--;
    argv++;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 's': show_incomplete = true; break;
        case 'x': dxt = true; break;
        case 'h': cmd_darshan_help(stdout); return EXIT_OK;
        default: cmd_darshan_help(stderr); return EXIT_USAGE;
        }
    }
    if (argc - optind != 1) {
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
        rc = ingest_darshan_dump_dxt(stdout, argv[optind], &err);
    } else {
        rc = ingest_darshan_dump(stdout, argv[optind], show_incomplete, &err);
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
