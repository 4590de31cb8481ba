/* test_cli.c: what the command line promises beyond the golden outputs: --help
 * never acts and never reads the configuration, config show prints a file that
 * loads back, a bad [devices] regex stops at the configuration naming its line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../support/pgfixture.h"
#include "../support/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct pgfixture fx;

static int setup(void **state)
{
    (void)state;
    if (pgfixture_start(&fx) != 0)
        return -1;
    /* A running, migrated database for the tests to leave running. */
    return pgfixture_cmd(&fx, "db migrate") == 0 ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    pgfixture_stop(&fx);
    return 0;
}

/* Writes text to a file in the fixture's state directory; its path into out. */
static void write_conf(const char *name, const char *text, char *out, size_t size)
{
    snprintf(out, size, "%s/%s", fx.state_dir, name);
    FILE *fp = fopen(out, "w");
    assert_non_null(fp);
    assert_int_equal(fputs(text, fp) >= 0, 1);
    assert_int_equal(fclose(fp), 0);
}

static void db_stop_help_leaves_a_running_database_running(void **state)
{
    static const char *const asks[] = {"db stop --help",    "db stop -h",
                                       "db --help stop",    "db init --help",
                                       "db migrate --help", "db start --help"};
    int rc = -1;

    (void)state;
    for (size_t i = 0; i < sizeof asks / sizeof asks[0]; i++) {
        char *out = pgfixture_run(&fx, asks[i], &rc);
        assert_non_null(out);
        assert_int_equal(rc, 0);
        assert_non_null(
            strstr(out, "usage: iocontend db init|start|stop|status|migrate"));
        free(out);
        out = pgfixture_run(&fx, "db status", &rc);
        assert_non_null(out);
        assert_int_equal(rc, 0); /* 69 when the server stopped */
        assert_non_null(strstr(out, "server: reachable"));
        free(out);
    }
}

static void help_never_reads_the_configuration(void **state)
{
    static const char *const commands[] = {"analyze", "ingest", "serve", "demo",
                                           "config",  "export", "assoc", "report"};
    char conf[512], args[700];
    int rc = -1;

    (void)state;
    /* A file that fails to load, and one that does not exist: neither is read. */
    write_conf("broken.conf", "[nosuchsection]\nkey = value\n", conf, sizeof conf);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        snprintf(args, sizeof args, "--config '%s' %s --help", conf, commands[i]);
        char *out = pgfixture_run(&fx, args, &rc);
        assert_non_null(out);
        assert_int_equal(rc, 0);
        assert_non_null(strstr(out, "usage: iocontend"));
        free(out);
        snprintf(args, sizeof args, "--config /nonexistent/iocontend.conf %s -h",
                 commands[i]);
        out = pgfixture_run(&fx, args, &rc);
        assert_non_null(out);
        assert_int_equal(rc, 0);
        free(out);
    }
    /* Without --help the broken file stops the program with a usage status. */
    snprintf(args, sizeof args, "--config '%s' config show", conf);
    free(pgfixture_run(&fx, args, &rc));
    assert_int_equal(rc, 64);
}

/* The printed configuration, without its first line (which names the file read). */
static char *shown(const char *conf)
{
    char args[700];
    int rc = -1;

    snprintf(args, sizeof args, "--config '%s' config show", conf);
    char *out = pgfixture_run(&fx, args, &rc);
    assert_non_null(out);
    assert_int_equal(rc, 0);
    char *body = strchr(out, '\n');
    assert_non_null(body);
    memmove(out, body + 1, strlen(body + 1) + 1);
    return out;
}

static void config_show_prints_a_file_that_loads_back(void **state)
{
    char conf[512], again[512];

    (void)state;
    write_conf("first.conf",
               "[serve]\nlisten = 127.0.0.1:9090\ncors_origin = https://dash.example\n"
               "[filesystems]\n/scratch1 = scratch1\n/lus/home = home\n"
               "[devices]\ninclude = ^(sd[a-z]+|md[0-9]+)$\n"
               "[samples]\nsample_offset_s = 0.123456789012345\n"
               "[analysis]\nd_min = 12\nseed = 7\ngranularity_s = 2.385\n"
               "sweep_k_max = 9\nsweep_phases = all\npermutations = 0\n",
               conf, sizeof conf);
    char *first = shown(conf);
    assert_non_null(strstr(first, "sample_offset_s = 0.123456789012345"));
    assert_non_null(strstr(first, "/lus/home = home"));
    write_conf("again.conf", first, again, sizeof again);
    char *second = shown(again);
    assert_string_equal(second, first);
    free(first);
    free(second);
}

static void a_bad_device_regex_stops_at_the_configuration_naming_its_line(void **state)
{
    char conf[512], args[700];
    int rc = -1;

    (void)state;
    write_conf("regex.conf",
               "[samples]\nsample_offset_s = 0\n[devices]\ninclude = ^(sd\n", conf,
               sizeof conf);
    snprintf(args, sizeof args, "--config '%s' ingest iostat --fs x /nonexistent 2>&1",
             conf);
    char *out = pgfixture_run(&fx, args, &rc);
    assert_non_null(out);
    assert_int_equal(rc, 64);
    assert_non_null(strstr(out, "regex.conf:4:"));
    assert_non_null(strstr(out, "[devices] include"));
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(db_stop_help_leaves_a_running_database_running),
        cmocka_unit_test(help_never_reads_the_configuration),
        cmocka_unit_test(config_show_prints_a_file_that_loads_back),
        cmocka_unit_test(a_bad_device_regex_stops_at_the_configuration_naming_its_line),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
