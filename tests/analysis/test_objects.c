/* test_objects.c: the coefficient table, and the JSON of analysis/objects*.c read
 * back: stored association and sweep objects (the recorded answers of
 * tests/cases/) parse into their structs and render as the same values; the page's
 * list of curves is the table's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../analysis/analysis.h"
#include "../support/testutil.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *load(const char *rel)
{
    const char *path = testutil_repo_file(rel);
    json_error_t jerr;

    if (path == NULL)
        fail_msg("%s not found", rel);
    json_t *o = json_load_file(path, 0, &jerr);
    if (o == NULL)
        fail_msg("%s: %s", rel, jerr.text);
    return o;
}

/* Each name once, and each getter at its own member. */
static void every_coefficient_is_named_once_and_found_by_its_getter(void **state)
{
    struct stats_assoc a;
    struct stats_signif s;

    (void)state;
    for (size_t c = 0; c < COEF_COUNT; c++) {
        for (size_t k = c + 1; k < COEF_COUNT; k++)
            assert_string_not_equal(analysis_coefs[c].name, analysis_coefs[k].name);
    }
    assert_ptr_equal(analysis_coef_of(&a, COEF_PEARSON), &a.pearson);
    assert_ptr_equal(analysis_coef_of(&a, COEF_DCOR2_U), &a.dcor2_u);
    assert_ptr_equal(analysis_coef_of(&a, COEF_MI_LINFOOT), &a.mi_linfoot);
    assert_ptr_equal(analysis_coef_signif(&s, COEF_SPEARMAN), &s.spearman);
    assert_ptr_equal(analysis_coef_signif(&s, COEF_MI_LINFOOT), &s.mi_linfoot);
    assert_null(analysis_coef_signif(&s, COEF_MI_KSG_NATS));
}

/* The names of a JS or JSON list of strings that starts after marker in file (a file
 * of the repository), checked against the coefficients the table marks as watched, in
 * their order: every watched one, and only they. */
static void list_is_the_watched_coefficients(const char *file, const char *marker)
{
    const char *path = testutil_repo_file(file);
    char *text = NULL;
    size_t cap = 0;

    assert_non_null(path);
    FILE *fp = fopen(path, "r");
    assert_non_null(fp);
    ssize_t len = getdelim(&text, &cap, '\0', fp);
    fclose(fp);
    assert_true(len > 0);
    const char *p = strstr(text, marker);
    if (p == NULL) {
        free(text);
        fail_msg("%s has no %s", file, marker);
    }
    p += strlen(marker);
    const char *end = strchr(p, ']');
    assert_non_null(end);
    size_t c = 0;
    while (c < COEF_COUNT && !analysis_coefs[c].watched)
        c++;
    /* each entry: "name" */
    while ((p = strchr(p, '"')) != NULL && p < end) {
        p++;
        size_t n = strcspn(p, "\"");
        assert_true(c < COEF_COUNT);
        assert_int_equal(n, strlen(analysis_coefs[c].name));
        assert_memory_equal(p, analysis_coefs[c].name, n);
        do
            c++;
        while (c < COEF_COUNT && !analysis_coefs[c].watched);
        p += n + 1;
    }
    assert_int_equal(c, COEF_COUNT); /* every watched one drawn */
    free(text);
}

/* The page's charts (web/iocontend-charts.js, COEFS) and the sweep's chart
 * (web/sweep.vg.json, its choice of coefficient) keep their own lists: the sweep's
 * curves, which must be the coefficients the table marks as watched, in its order. */
static void page_draws_the_coefficients_the_table_watches(void **state)
{
    (void)state;
    list_is_the_watched_coefficients("web/iocontend-charts.js", "const COEFS = [");
    list_is_the_watched_coefficients("web/sweep.vg.json", "\"options\": [");
}

/* An object as analyze stores it: the served one's stored provenance back at the top,
 * without "stored" (the API adds it). */
static json_t *as_stored(json_t *served)
{
    json_t *stored = json_object_get(served, "stored");
    json_t *prov = json_object_get(stored, "provenance");

    if (prov != NULL)
        json_object_set(served, "provenance", prov);
    json_object_del(served, "stored");
    return served;
}

static void reads_back_as_itself(const char *rel)
{
    json_t *want = as_stored(load(rel));
    char *text = json_dumps(want, JSON_COMPACT | JSON_REAL_PRECISION(17));
    struct assoc_result *r = NULL;
    struct error err = {0};

    assert_int_equal(analysis_assoc_parse(text, &r, &err), STATUS_OK);
    json_t *got = analysis_assoc_json(r);
    assert_non_null(got);
    if (!json_equal(got, want)) {
        char *g = json_dumps(got, JSON_COMPACT | JSON_SORT_KEYS);
        print_error("%s read back as %.2000s\n", rel, g);
        free(g);
    }
    assert_true(json_equal(got, want));
    json_decref(got);
    json_decref(want);
    assoc_result_free(r);
    free(text);
}

/* Stored by the old version (with significance and forest), from the API and from
 * `assoc --json` (columns, with significance). */
static void association_objects_read_back_as_themselves(void **state)
{
    (void)state;
    reads_back_as_itself("tests/cases/upgrade/assoc_esb.json");
    reads_back_as_itself("tests/cases/upgrade/assoc_npc_um_read.json");
    reads_back_as_itself("tests/cases/golden/lab/assoc.json");
    reads_back_as_itself("tests/cases/golden/lab/assoc_signif.json");
}

/* Stored before the plug-in bandwidth and the full kernel existed: normal, product. */
static void an_old_kde_without_kernel_or_bandwidth_reads_as_product_normal(void **state)
{
    json_t *o = as_stored(load("tests/cases/upgrade/assoc_esb.json"));
    struct assoc_result *r = NULL;
    struct error err = {0};

    (void)state;
    json_object_del(json_object_get(o, "kde"), "bandwidth");
    json_object_del(json_object_get(o, "kde"), "kernel");
    char *text = json_dumps(o, JSON_COMPACT);
    assert_int_equal(analysis_assoc_parse(text, &r, &err), STATUS_OK);
    assert_non_null(r->kde);
    assert_int_equal(r->kde->bandwidth, KDE_BW_NORMAL);
    assert_int_equal(r->kde->kernel, KDE_KERNEL_PRODUCT);
    assert_true(r->has_provenance);
    assoc_result_free(r);
    free(text);
    json_decref(o);
}

static void text_that_is_no_association_object_is_a_parse_error(void **state)
{
    struct assoc_result *r = NULL;
    struct error err = {0};

    (void)state;
    assert_int_equal(analysis_assoc_parse("{\"d\": 3", &r, &err), STATUS_PARSE);
    assert_null(r);
    assert_int_equal(analysis_assoc_parse("[1, 2]", &r, &err), STATUS_PARSE);
    assert_null(r);
}

/* A damaged or odd stored object (keys missing, numbers as text, negative counts) is
 * either a parse error or renders: never a NULL render that the API would answer as
 * 500. */
static void odd_stored_objects_render_or_fail_to_parse(void **state)
{
    static const char *const odd[] = {
        "{\"group\":\"g\",\"y\":\"t_d\",\"x\":\"psi_d_read\"}",
        "{\"group\":\"g\",\"y\":\"t_d\",\"x\":\"psi_d_read\",\"granularity_s\":\"60\","
        "\"base_granularity_s\":null,\"d\":-5,\"pearson\":\"0.5\",\"spearman\":null,"
        "\"excluded\":{\"hole\":-3,\"total\":\"x\"},\"kde\":7,\"significance\":[]}",
        "{\"group\":\"g\",\"y\":\"t_d\",\"x\":\"psi_d_read\",\"granularity_s\":true,"
        "\"excluded\":[],\"reasons\":{\"pearson\":\"no_such_reason\"},\"pearson\":null}",
    };

    size_t rendered = 0;

    (void)state;
    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++) {
        struct assoc_result *r = NULL;
        struct error err = {0};
        enum status rc = analysis_assoc_parse(odd[i], &r, &err);
        assert_true(rc == STATUS_OK || rc == STATUS_PARSE);
        if (rc != STATUS_OK) {
            assert_null(r);
            continue;
        }
        assert_true(r->coefs.d == 0); /* absent or negative: no jobs, not 2^64 - 5 */
        assert_true(r->excluded[EXCL_HOLE] == 0);
        json_t *got = analysis_assoc_json(r);
        assert_non_null(got);
        assert_true(json_is_null(json_object_get(got, "granularity_s")));
        /* A coefficient stored as text is not served as a number. */
        assert_false(json_is_number(json_object_get(got, "pearson")));
        json_decref(got);
        assoc_result_free(r);
        rendered++;
    }
    assert_int_equal(rendered, sizeof odd / sizeof odd[0]); /* all read as objects */
}

/* A stored sweep: every step's coefficients and the verdicts. */
static void sweep_object_reads_back_its_steps_and_verdicts(void **state)
{
    json_t *o = load("tests/cases/upgrade/sweep_esb.json");
    char *text = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(17));
    struct sweep_result r = {0};
    struct error err = {0};

    (void)state;
    assert_int_equal(analysis_sweep_parse(text, &r, &err), STATUS_OK);
    const json_t *steps = json_object_get(o, "steps");
    size_t compared = 0;
    assert_int_equal(r.k_max, json_array_size(steps));
    for (size_t i = 0; i < r.k_max; i++) {
        const json_t *s = json_array_get(steps, i);
        assert_int_equal(r.points[i].k, json_integer_value(json_object_get(s, "k")));
        for (size_t c = 0; c < COEF_COUNT; c++) {
            const json_t *v = json_object_get(s, analysis_coefs[c].name);
            if (json_is_number(v)) {
                assert_true(r.points[i].c[c] == json_number_value(v));
                compared++;
            } else {
                assert_true(isnan(r.points[i].c[c]));
            }
        }
    }
    /* The recording has a defined value of every coefficient at every k. */
    assert_int_equal(compared, r.k_max * COEF_COUNT);
    const json_t *v = json_object_get(o, "verdicts");
    assert_int_equal(r.verdicts.recommended_k,
                     json_integer_value(json_object_get(v, "recommended_k")));
    assert_true(r.verdicts.tolerance ==
                json_number_value(json_object_get(v, "tolerance")));
    assert_string_equal(r.y, "t_d");
    sweep_result_clear(&r);
    free(text);
    json_decref(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_coefficient_is_named_once_and_found_by_its_getter),
        cmocka_unit_test(page_draws_the_coefficients_the_table_watches),
        cmocka_unit_test(association_objects_read_back_as_themselves),
        cmocka_unit_test(an_old_kde_without_kernel_or_bandwidth_reads_as_product_normal),
        cmocka_unit_test(text_that_is_no_association_object_is_a_parse_error),
        cmocka_unit_test(odd_stored_objects_render_or_fail_to_parse),
        cmocka_unit_test(sweep_object_reads_back_its_steps_and_verdicts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
