/* test_derived.c: ν, ν^D, B^D and τ (METHOD.md §3), each worked by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../stats/stats.h"
#include "../support/testutil.h"

#include <math.h>
#include <string.h>

/* The grid of test_volume.c: B = J0·60 is a grid stamp, METHOD.md's interval i,
 * (B + 60(i − 1), B + 60i], is grid interval J0 + i. */
#define J0    INT64_C(28333333)
#define B     1699999980.0
#define DELTA 60.0
#define REL   1e-13

/* Hand-chosen rates of METHOD.md's worked example (bytes/s), intervals 1..3. */
static const double rate_r[3] = {2.385e7, 3.0e7, 4.125e7};
static const double rate_w[3] = {1.5e6, 2.0e6, 3.75e6};

static struct stats_series *example_series(void)
{
    struct stats_series *s = stats_series_new(DELTA, J0 + 1, 3);

    assert_non_null(s);
    for (size_t i = 0; i < 3; i++) {
        s->r[i] = rate_r[i];
        s->w[i] = rate_w[i];
        s->ro[i] = 417.25;
        s->wo[i] = 213.125;
        s->present[i] = 1;
    }
    return s;
}

/* A volume with every family present and the given values; the rest NAN. */
static struct stats_job_volume volume_of(double psi_r, double psi_w, double psi_d_r,
                                         double psi_d_w, double s_d)
{
    struct stats_job_volume v;

    memset(&v, 0, sizeof v);
    v.psi_excl = v.d_excl = v.i_excl = EXCL_NONE;
    v.psi_read = psi_r;
    v.psi_write = psi_w;
    v.psi_o_read = v.psi_o_write = NAN;
    v.m = 2;
    v.t_d = 120.0;
    v.psi_d_read = psi_d_r;
    v.psi_d_write = psi_d_w;
    v.psi_do_read = v.psi_do_write = NAN;
    v.s_d = s_d;
    v.t_i = v.psi_i_read = v.psi_i_write = NAN;
    return v;
}

static void worked_example_of_method_md_carried_to_b_d(void **state)
{
    /* Δ = 60, windows [10, 20] and [130, 135], the job over [5, 170]
     * (METHOD.md §3): Ψ^D_R = 50·R_1 + 15·R_3, |S^D| = 65 s. With R = (2.385e7,
     * 3e7, 4.125e7), W = (1.5e6, 2e6, 3.75e6) bytes/s:
     *   Ψ^D_R = 50·2.385e7 + 15·4.125e7 = 1.1925e9 + 6.1875e8 = 1.81125e9
     *   Ψ^D_W = 50·1.5e6 + 15·3.75e6 = 7.5e7 + 5.625e7 = 1.3125e8
     * and over the span, Ψ = 55·v_1 + 60·v_2 + 50·v_3:
     *   Ψ_R = 1.31175e9 + 1.8e9 + 2.0625e9 = 5.17425e9
     *   Ψ_W = 8.25e7 + 1.2e8 + 1.875e8 = 3.9e8.
     * The job moved η^mon = 2.5e8 read and 1e8 written bytes on monitored file
     * systems, η = 2^31 read and 2^29 written bytes in all (2.5 GiB), T = 11.925 s. */
    struct stats_series *s = example_series();
    const struct stats_window w[] = {{B + 10.0, B + 20.0, true},
                                     {B + 130.0, B + 135.0, true}};
    struct stats_job job = {
        .start_s = B + 5.0, .end_s = B + 170.0, .windows = w, .n_windows = 2};
    struct stats_job_log log = {.t = 11.925,
                                .eta_read = INT64_C(2147483648),
                                .eta_write = INT64_C(536870912),
                                .eta_mon_read = 250000000,
                                .eta_mon_write = 100000000};
    struct stats_job_volume v;
    struct stats_job_derived d;
    size_t scratch[4];

    (void)state;
    assert_int_equal(stats_job_volume(s, &job, scratch, &v, NULL), STATUS_OK);
    assert_int_equal(v.m, 2);
    assert_rel(v.t_d, 120.0, 0.0);
    assert_rel(v.s_d, 65.0, 1e-9);
    assert_rel(v.psi_d_read, 1.81125e9, REL * 1.81125e9);
    assert_rel(v.psi_d_write, 1.3125e8, REL * 1.3125e8);
    assert_rel(v.psi_read, 5.17425e9, REL * 5.17425e9);
    assert_rel(v.psi_write, 3.9e8, REL * 3.9e8);

    assert_int_equal(stats_job_derived(&v, &log, &d, NULL), STATUS_OK);
    assert_int_equal(d.nu_excl, EXCL_NONE);
    assert_rel(d.nu_read, 5.17425e9 - 2.5e8, REL * 5.17425e9); /* 4.92425e9 */
    assert_rel(d.nu_write, 3.9e8 - 1e8, REL * 3.9e8);          /* 2.9e8 */
    assert_int_equal(d.nu_d_excl, EXCL_NONE);
    assert_rel(d.nu_d_read, 1.56125e9, REL * 1.81125e9);
    assert_rel(d.nu_d_write, 3.125e7, REL * 1.3125e8);
    /* B^D = (1.81125e9 + 1.3125e8 − 2.5e8 − 1e8) / 65 = 1.5925e9 / 65 = 2.45e7 B/s */
    assert_int_equal(d.b_d_excl, EXCL_NONE);
    assert_rel(d.b_d, 2.45e7, REL * 2.45e7);
    /* τ = 11.925 / 2.5 = 4.77 s per GiB */
    assert_int_equal(d.tau_excl, EXCL_NONE);
    assert_rel(d.tau, 4.77, 4e-15);
    assert_int_equal(d.negative, 0);
    stats_series_free(s);
}

static void nu_is_the_server_volume_less_the_monitored_bytes(void **state)
{
    /* Ψ_R = 2.385e9, η^mon_R = 1.113e9: ν_R = 1.272e9. Ψ_W = 7.5e8 below
     * η^mon_W = 9.25e8 (write-back not yet on the servers): ν_W = −1.75e8, kept. */
    struct stats_job_volume v = volume_of(2.385e9, 7.5e8, 1.5e9, 6.0e8, 42.5);
    struct stats_job_log log = {.t = 3.5,
                                .eta_read = 1113000000,
                                .eta_write = 925000000,
                                .eta_mon_read = 1113000000,
                                .eta_mon_write = 925000000};
    struct stats_job_derived d;

    (void)state;
    assert_int_equal(stats_job_derived(&v, &log, &d, NULL), STATUS_OK);
    assert_rel(d.nu_read, 1.272e9, 1e-6);
    assert_rel(d.nu_write, -1.75e8, 1e-7);
    /* ν^D: 1.5e9 − 1.113e9 = 3.87e8; 6e8 − 9.25e8 = −3.25e8 */
    assert_rel(d.nu_d_read, 3.87e8, 1e-7);
    assert_rel(d.nu_d_write, -3.25e8, 1e-7);
    assert_int_equal(d.negative, NEGATIVE_NU_WRITE | NEGATIVE_NU_D_WRITE);
    /* B^D = (2.1e9 − 2.038e9) / 42.5 = 6.2e7 / 42.5 = 1458823.5294117647 */
    assert_rel(d.b_d, 6.2e7 / 42.5, 1e-8);
    assert_int_equal(d.b_d_excl, EXCL_NONE);
}

static void negative_background_is_kept_and_flagged(void **state)
{
    /* Ψ^D = 1.2e8 + 3.0e7 below η^mon = 1.25e8 + 6.25e7: B^D = −3.75e7 / 12.5 =
     * −3e6 B/s; ν_R = 5e8 − 1.25e8 = 3.75e8 stays unflagged. */
    struct stats_job_volume v = volume_of(5.0e8, 2.0e8, 1.2e8, 3.0e7, 12.5);
    struct stats_job_log log = {.t = 7.25,
                                .eta_read = 125000000,
                                .eta_write = 62500000,
                                .eta_mon_read = 125000000,
                                .eta_mon_write = 62500000};
    struct stats_job_derived d;

    (void)state;
    assert_int_equal(stats_job_derived(&v, &log, &d, NULL), STATUS_OK);
    assert_int_equal(d.b_d_excl, EXCL_NONE);
    assert_rel(d.b_d, -3.0e6, 1e-9);
    assert_rel(d.nu_read, 3.75e8, 0.0);
    assert_rel(d.nu_d_read, -5.0e6, 0.0);
    assert_rel(d.nu_d_write, -3.25e7, 0.0);
    assert_int_equal(d.negative, NEGATIVE_B_D | NEGATIVE_NU_D_READ | NEGATIVE_NU_D_WRITE);
}

static void tau_uses_bytes_on_every_file_system(void **state)
{
    /* Nothing on monitored file systems, 3·2^28 = 0.75 GiB elsewhere, T = 2.385 s:
     * τ = 2.385 / 0.75 = 3.18 s per GiB. */
    struct stats_job_volume v = volume_of(1.0e9, 2.0e9, 3.0e8, 4.0e8, 30.5);
    struct stats_job_log log = {
        .t = 2.385, .eta_read = INT64_C(536870912), .eta_write = INT64_C(268435456)};
    struct stats_job_derived d;

    (void)state;
    assert_int_equal(stats_job_derived(&v, &log, &d, NULL), STATUS_OK);
    assert_int_equal(d.tau_excl, EXCL_NONE);
    assert_rel(d.tau, 3.18, 4e-15);
    /* η^mon = 0: ν is Ψ itself. */
    assert_rel(d.nu_read, 1.0e9, 0.0);
    assert_rel(d.b_d, 7.0e8 / 30.5, 1e-8);
}

static void tau_without_bytes_is_excluded_as_no_io(void **state)
{
    struct stats_job_volume v = volume_of(1.0e9, 2.0e9, 3.0e8, 4.0e8, 30.5);
    struct stats_job_log log = {.t = 2.385};
    struct stats_job_derived d;

    (void)state;
    assert_int_equal(stats_job_derived(&v, &log, &d, NULL), STATUS_OK);
    assert_int_equal(d.tau_excl, EXCL_NO_IO);
    assert_true(isnan(d.tau));
    /* T not finite: excluded as nonfinite. */
    log.t = NAN;
    log.eta_read = 1024;
    assert_int_equal(stats_job_derived(&v, &log, &d, NULL), STATUS_OK);
    assert_int_equal(d.tau_excl, EXCL_NONFINITE);
    assert_true(isnan(d.tau));
}

static void excluded_families_carry_their_reason(void **state)
{
    struct stats_job_volume v = volume_of(NAN, NAN, NAN, NAN, 65.0);
    struct stats_job_log log = {.t = 1.5,
                                .eta_read = 1000,
                                .eta_write = 2000,
                                .eta_mon_read = 500,
                                .eta_mon_write = 1500};
    struct stats_job_derived d;

    (void)state;
    v.psi_excl = EXCL_HOLE;
    v.d_excl = EXCL_NO_IO;
    assert_int_equal(stats_job_derived(&v, &log, &d, NULL), STATUS_OK);
    assert_int_equal(d.nu_excl, EXCL_HOLE);
    assert_true(isnan(d.nu_read) && isnan(d.nu_write));
    assert_int_equal(d.nu_d_excl, EXCL_NO_IO);
    assert_int_equal(d.b_d_excl, EXCL_NO_IO);
    assert_true(isnan(d.nu_d_read) && isnan(d.nu_d_write) && isnan(d.b_d));
    assert_int_equal(d.negative, 0);
    /* τ needs only the log. */
    assert_int_equal(d.tau_excl, EXCL_NONE);
    assert_rel(d.tau, 1.5 / (3000.0 / 1073741824.0), 1e-9);
}

static void b_d_of_a_zero_length_s_d_is_excluded(void **state)
{
    /* One zero-length window: m = 1, |S^D| = 0, Ψ^D = 0; ν^D = −η^mon still. */
    struct stats_job_volume v = volume_of(2.0e8, 1.0e8, 0.0, 0.0, 0.0);
    struct stats_job_log log = {
        .t = 0.5, .eta_read = 4096, .eta_write = 0, .eta_mon_read = 4096};
    struct stats_job_derived d;

    (void)state;
    assert_int_equal(stats_job_derived(&v, &log, &d, NULL), STATUS_OK);
    assert_int_equal(d.nu_d_excl, EXCL_NONE);
    assert_rel(d.nu_d_read, -4096.0, 0.0);
    assert_rel(d.nu_d_write, 0.0, 0.0);
    assert_int_equal(d.b_d_excl, EXCL_NONFINITE);
    assert_true(isnan(d.b_d));
    assert_int_equal(d.negative, NEGATIVE_NU_D_READ); /* 0 is not negative */
}

static void inconsistent_bytes_are_invalid(void **state)
{
    struct stats_job_volume v = volume_of(1.0e9, 2.0e9, 3.0e8, 4.0e8, 30.5);
    struct stats_job_log log = {.t = 1.5, .eta_read = 1000, .eta_mon_read = 1001};
    struct stats_job_derived d;
    struct error err = {0};

    (void)state;
    assert_int_equal(stats_job_derived(&v, &log, &d, &err), STATUS_INVALID);
    assert_int_equal(err.code, STATUS_INVALID);
    assert_true(isnan(d.nu_read) && isnan(d.b_d) && isnan(d.tau));
    assert_int_equal(d.nu_excl, EXCL_NONFINITE);
    log.eta_mon_read = 0;
    log.eta_write = -1;
    assert_int_equal(stats_job_derived(&v, &log, &d, NULL), STATUS_INVALID);
}

static void missing_pointers_are_invalid(void **state)
{
    struct stats_job_volume v = volume_of(1.0e9, 2.0e9, 3.0e8, 4.0e8, 30.5);
    struct stats_job_log log = {.t = 1.5, .eta_read = 1000};
    struct stats_job_derived d;

    (void)state;
    assert_int_equal(stats_job_derived(NULL, &log, &d, NULL), STATUS_INVALID);
    assert_true(isnan(d.tau));
    assert_int_equal(stats_job_derived(&v, NULL, &d, NULL), STATUS_INVALID);
    assert_int_equal(stats_job_derived(&v, &log, NULL, NULL), STATUS_INVALID);
}

static void negative_bits_have_metric_names(void **state)
{
    (void)state;
    assert_string_equal(stats_negative_name(NEGATIVE_NU_READ), "nu_read");
    assert_string_equal(stats_negative_name(NEGATIVE_NU_WRITE), "nu_write");
    assert_string_equal(stats_negative_name(NEGATIVE_NU_D_READ), "nu_d_read");
    assert_string_equal(stats_negative_name(NEGATIVE_NU_D_WRITE), "nu_d_write");
    assert_string_equal(stats_negative_name(NEGATIVE_B_D), "b_d");
    assert_string_equal(stats_negative_name(0), "");
    assert_string_equal(stats_negative_name(NEGATIVE_NU_READ | NEGATIVE_B_D), "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(worked_example_of_method_md_carried_to_b_d),
        cmocka_unit_test(nu_is_the_server_volume_less_the_monitored_bytes),
        cmocka_unit_test(negative_background_is_kept_and_flagged),
        cmocka_unit_test(tau_uses_bytes_on_every_file_system),
        cmocka_unit_test(tau_without_bytes_is_excluded_as_no_io),
        cmocka_unit_test(excluded_families_carry_their_reason),
        cmocka_unit_test(b_d_of_a_zero_length_s_d_is_excluded),
        cmocka_unit_test(inconsistent_bytes_are_invalid),
        cmocka_unit_test(missing_pointers_are_invalid),
        cmocka_unit_test(negative_bits_have_metric_names),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
