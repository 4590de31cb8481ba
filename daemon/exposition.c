/* exposition.c: GET /metrics, Prometheus's text exposition (format 0.0.4): what the HTTP
 * threads and the compute pool count, and what the poller last read of the runs. */
#include "internal.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define METRICS_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* Routes and statuses are claimed slots: a route's label is a literal of http.c, so
 * they are bounded by the code, and a status by HTTP's few. */
#define ROUTES_MAX 32
#define CODES_MAX  16

/* Upper bounds of the latency buckets, seconds: from a stored answer from memory
 * (well under a millisecond) to a computation stopped at the longest deadline one
 * would configure. */
static const double bucket_le[] = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                                   0.25,   0.5,   1,      2.5,   5,    10,    30,   60};
#define N_BUCKETS (sizeof bucket_le / sizeof bucket_le[0])

/* One route's counters. name is claimed once (NULL to the label) and never changes;
 * then the counts only grow. */
struct route_stats {
    _Atomic(const char *) name;
    atomic_uint code[CODES_MAX]; /* claimed once, 0 to the status */
    atomic_ullong by_code[CODES_MAX];
    atomic_ullong bucket[N_BUCKETS + 1]; /* not cumulative; the last one is +Inf's */
    atomic_ullong sum_ns;                /* latency, nanoseconds */
};

/* Process-wide, as the counters of a Prometheus client library are: updated by every
 * HTTP thread without a lock, read by a scrape while they move (each value is atomic). */
static struct {
    struct route_stats routes[ROUTES_MAX];
    atomic_ullong routes_overflow; /* requests of a route past ROUTES_MAX */
    atomic_llong connections_open;
    atomic_ullong connections;
    atomic_ullong refused; /* answered by the gate (400, 408, 431, 503) */
    atomic_ullong compute[METRICS_COMPUTE_COUNT];
    atomic_llong start_s; /* epoch seconds when serve started, 0 before */
} m;

void metrics_started(void)
{
    long long zero = 0;

    atomic_compare_exchange_strong(&m.start_s, &zero, (long long)time(NULL));
}

/* The slot of name, claimed when it has none; NULL when every slot is another's. The
 * slots fill in order and are never given back, so two HTTP threads claiming the same
 * name meet at the same slot. */
static struct route_stats *route_slot(const char *name)
{
    for (size_t i = 0; i < ROUTES_MAX; i++) {
        const char *have = atomic_load(&m.routes[i].name);
        if (have == NULL &&
            atomic_compare_exchange_strong(&m.routes[i].name, &have, name))
            return &m.routes[i];
        if (have == name || strcmp(have, name) == 0)
            return &m.routes[i];
    }
    return NULL;
}

static atomic_ullong *code_slot(struct route_stats *r, unsigned code)
{
    for (size_t i = 0; i < CODES_MAX; i++) {
        unsigned have = atomic_load(&r->code[i]);
        if (have == 0 && atomic_compare_exchange_strong(&r->code[i], &have, code))
            return &r->by_code[i];
        if (have == code)
            return &r->by_code[i];
    }
    return NULL;
}

void metrics_request_done(const char *route, unsigned code, double seconds)
{
    struct route_stats *r = route_slot(route != NULL ? route : "none");
    size_t b = 0;

    if (r == NULL) {
        atomic_fetch_add_explicit(&m.routes_overflow, 1, memory_order_relaxed);
        return;
    }
    atomic_ullong *c = code_slot(r, code);
    if (c != NULL)
        atomic_fetch_add_explicit(c, 1, memory_order_relaxed);
    if (!(seconds >= 0))
        seconds = 0;
    while (b < N_BUCKETS && seconds > bucket_le[b])
        b++;
    atomic_fetch_add_explicit(&r->bucket[b], 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&r->sum_ns, (unsigned long long)llround(seconds * 1e9),
                              memory_order_relaxed);
}

void metrics_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
                        enum MHD_ConnectionNotificationCode toe)
{
    (void)cls;
    (void)conn;
    (void)socket_context;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        atomic_fetch_add_explicit(&m.connections, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&m.connections_open, 1, memory_order_relaxed);
    } else if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
        atomic_fetch_sub_explicit(&m.connections_open, 1, memory_order_relaxed);
    }
}

void metrics_gate(unsigned code)
{
    (void)code;
    atomic_fetch_add_explicit(&m.refused, 1, memory_order_relaxed);
}

void metrics_compute(enum metrics_compute what)
{
    atomic_fetch_add_explicit(&m.compute[what], 1, memory_order_relaxed);
}

/* ---- the text ------------------------------------------------------------------- */

/* A sample value: integers as such, NaN and infinities as Prometheus spells them. */
static void put_value(FILE *f, double v)
{
    if (isnan(v)) {
        fputs("NaN", f);
    } else if (isinf(v)) {
        fputs(v > 0 ? "+Inf" : "-Inf", f);
    } else if (v == floor(v) && fabs(v) < 9007199254740992.0) {
        fprintf(f, "%.0f", v);
    } else {
        /* The shortest of 15, 16, 17 digits that reads back as v, as Go's 'g', -1 of
         * Prometheus's own clients: 0.1 stays 0.1, a timestamp keeps its
         * microseconds. */
        char s[32];
        for (int digits = 15; digits <= 17; digits++) {
            snprintf(s, sizeof s, "%.*g", digits, v);
            if (strtod(s, NULL) == v)
                break;
        }
        fputs(s, f);
    }
}

/* A label value: backslash, double quote and line feed escaped. */
static void put_label_value(FILE *f, const char *s)
{
    for (; *s != '\0'; s++) {
        if (*s == '\\' || *s == '"') {
            fputc('\\', f);
            fputc(*s, f);
        } else if (*s == '\n') {
            fputs("\\n", f);
        } else {
            fputc(*s, f);
        }
    }
}

static void family(FILE *f, const char *name, const char *type, const char *help)
{
    fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* name{l1="v1",l2="v2"} value; labels NULL-terminated pairs (none: NULL). */
static void sample(FILE *f, const char *name, const char *const *labels, double v)
{
    fputs(name, f);
    for (size_t i = 0; labels != NULL && labels[i] != NULL; i += 2) {
        fprintf(f, "%s%s=\"", i == 0 ? "{" : ",", labels[i]);
        put_label_value(f, labels[i + 1]);
        fputc('"', f);
    }
    if (labels != NULL && labels[0] != NULL)
        fputc('}', f);
    fputc(' ', f);
    put_value(f, v);
    fputc('\n', f);
}

/* A family of one sample without labels. */
static void single(FILE *f, const char *name, const char *type, const char *help,
                   double v)
{
    family(f, name, type, help);
    sample(f, name, NULL, v);
}

static double load_u(atomic_ullong *a)
{
    return (double)atomic_load_explicit(a, memory_order_relaxed);
}

static void put_http(FILE *f)
{
    char code_s[16];

    family(f, "iocontend_http_requests_total", "counter",
           "HTTP requests answered, by route and status code.");
    for (size_t i = 0; i < ROUTES_MAX; i++) {
        struct route_stats *r = &m.routes[i];
        const char *name = atomic_load(&r->name);
        for (size_t c = 0; name != NULL && c < CODES_MAX; c++) {
            unsigned code = atomic_load(&r->code[c]);
            if (code == 0)
                continue;
            snprintf(code_s, sizeof code_s, "%u", code);
            const char *labels[] = {"route", name, "code", code_s, NULL};
            sample(f, "iocontend_http_requests_total", labels, load_u(&r->by_code[c]));
        }
    }
    family(f, "iocontend_http_request_duration_seconds", "histogram",
           "Time from a request's headers to its answer being queued, by route; a "
           "computed association's includes its computation.");
    for (size_t i = 0; i < ROUTES_MAX; i++) {
        struct route_stats *r = &m.routes[i];
        const char *name = atomic_load(&r->name);
        char le[32];
        double cumulative = 0;
        if (name == NULL)
            continue;
        /* _count is the +Inf bucket read here, so that the two always agree. */
        for (size_t b = 0; b <= N_BUCKETS; b++) {
            cumulative += load_u(&r->bucket[b]);
            if (b < N_BUCKETS) {
                snprintf(le, sizeof le, "%g", bucket_le[b]);
            } else {
                snprintf(le, sizeof le, "+Inf");
            }
            const char *labels[] = {"route", name, "le", le, NULL};
            sample(f, "iocontend_http_request_duration_seconds_bucket", labels,
                   cumulative);
        }
        const char *labels[] = {"route", name, NULL};
        sample(f, "iocontend_http_request_duration_seconds_sum", labels,
               load_u(&r->sum_ns) * 1e-9);
        sample(f, "iocontend_http_request_duration_seconds_count", labels, cumulative);
    }
    single(f, "iocontend_http_requests_unrouted_total", "counter",
           "Requests not counted by route: every route slot was taken.",
           load_u(&m.routes_overflow));
    single(f, "iocontend_http_connections_open", "gauge", "HTTP connections open now.",
           (double)atomic_load_explicit(&m.connections_open, memory_order_relaxed));
    single(f, "iocontend_http_connections_total", "counter", "HTTP connections accepted.",
           load_u(&m.connections));
    single(f, "iocontend_http_connections_refused_total", "counter",
           "HTTP connections answered before their request reached a route: too many "
           "from one address, headers too slow, too large or malformed.",
           load_u(&m.refused));
}

static void put_compute(FILE *f, const struct server *srv)
{
    const double started = load_u(&m.compute[METRICS_COMPUTE_STARTED]);
    const double finished = load_u(&m.compute[METRICS_COMPUTE_FINISHED]);

    single(f, "iocontend_compute_threads", "gauge",
           "Threads that compute associations on request ([serve] compute_threads).",
           (double)srv->s->limits.compute_threads);
    single(f, "iocontend_computations_running", "gauge",
           "Associations being computed on request now.",
           started > finished ? started - finished : 0);
    single(f, "iocontend_computations_started_total", "counter",
           "Associations a computing thread started.", started);
    single(f, "iocontend_computations_refused_total", "counter",
           "Associations refused with 503 busy: every computing thread had one.",
           load_u(&m.compute[METRICS_COMPUTE_REFUSED]));
    single(f, "iocontend_computations_deadline_exceeded_total", "counter",
           "Associations stopped at [serve] deadline_s and answered 503 deadline.",
           load_u(&m.compute[METRICS_COMPUTE_DEADLINE]));
    family(f, "iocontend_computations_cancelled_total", "counter",
           "Associations stopped before their end, by reason: the client closed its "
           "connection, or the server stopped.");
    const char *gone[] = {"reason", "client_gone", NULL};
    const char *shutdown[] = {"reason", "shutdown", NULL};
    sample(f, "iocontend_computations_cancelled_total", gone,
           load_u(&m.compute[METRICS_COMPUTE_GONE]));
    sample(f, "iocontend_computations_cancelled_total", shutdown,
           load_u(&m.compute[METRICS_COMPUTE_SHUTDOWN]));
}

/* A gauge per run kind, read from a field of the run's struct. */
enum field_type { FIELD_DOUBLE, FIELD_LONG, FIELD_LLONG, FIELD_BOOL };
struct run_gauge {
    const char *name, *help;
    size_t offset; /* of the field in db_telemetry_ingest or db_telemetry_analysis */
    enum field_type type;
};

static double field_of(const void *run, const struct run_gauge *g)
{
    const char *p = (const char *)run + g->offset;

    switch (g->type) {
    case FIELD_DOUBLE: return *(const double *)(const void *)p;
    case FIELD_LONG: return (double)*(const long *)(const void *)p;
    case FIELD_LLONG: return (double)*(const long long *)(const void *)p;
    case FIELD_BOOL: return *(const bool *)(const void *)p ? 1 : 0;
    }
    return NAN;
}

/* Each gauge of gauges, a sample per run: n runs of size bytes from runs, each
 * starting with its kind. */
static void put_run_gauges(FILE *f, const struct run_gauge *gauges, size_t n_gauges,
                           const void *runs, size_t size, size_t n)
{
    for (size_t g = 0; g < n_gauges; g++) {
        family(f, gauges[g].name, "gauge", gauges[g].help);
        for (size_t i = 0; i < n; i++) {
            const char *run = (const char *)runs + i * size;
            const char *labels[] = {"kind", run, NULL};
            sample(f, gauges[g].name, labels, field_of(run, &gauges[g]));
        }
    }
}

_Static_assert(offsetof(struct db_telemetry_ingest, kind) == 0 &&
                   offsetof(struct db_telemetry_analysis, kind) == 0,
               "put_run_gauges reads a run's kind at its start");

#define INGEST_FIELD(field, type) offsetof(struct db_telemetry_ingest, field), type
static const struct run_gauge ingest_gauges[] = {
    {"iocontend_ingest_last_success_timestamp_seconds",
     "When the newest ingest run of the kind that did not fail ended, unix time.",
     INGEST_FIELD(last_success_s, FIELD_DOUBLE)},
    {"iocontend_ingest_last_run_timestamp_seconds",
     "When the newest ingest run of the kind that ended (failed or not) ended, unix "
     "time; the last_run metrics describe that run.",
     INGEST_FIELD(last_end_s, FIELD_DOUBLE)},
    {"iocontend_ingest_last_run_failed", "1 when that run ended with an error, else 0.",
     INGEST_FIELD(failed, FIELD_BOOL)},
    {"iocontend_ingest_last_run_duration_seconds", "Wall time of that run.",
     INGEST_FIELD(seconds, FIELD_DOUBLE)},
    {"iocontend_ingest_last_run_jobs", "Jobs that run loaded.",
     INGEST_FIELD(jobs, FIELD_LONG)},
    {"iocontend_ingest_last_run_samples", "Samples that run loaded.",
     INGEST_FIELD(samples, FIELD_LLONG)},
};

#define ANALYSIS_FIELD(field, type) offsetof(struct db_telemetry_analysis, field), type
static const struct run_gauge analysis_gauges[] = {
    {"iocontend_analyze_last_success_timestamp_seconds",
     "When the newest analyze run of the kind (association: analyze; sweep: analyze "
     "--sweep) ended, unix time; only runs that succeed are recorded.",
     ANALYSIS_FIELD(finished_s, FIELD_DOUBLE)},
    {"iocontend_analyze_last_run_duration_seconds", "Wall time of that run.",
     ANALYSIS_FIELD(seconds, FIELD_DOUBLE)},
    {"iocontend_analyze_last_run_groups",
     "Groups that run computed (groups whose inputs had not changed are kept, not "
     "counted).",
     ANALYSIS_FIELD(groups, FIELD_LONG)},
    {"iocontend_analyze_last_run_jobs",
     "Jobs used by that run's groups (their first pair, t_d with psi_d_read).",
     ANALYSIS_FIELD(jobs, FIELD_LONG)},
};

static void put_ingest(FILE *f, const struct db_telemetry *d)
{
    static const char *const results[] = {"loaded", "skipped", "quarantined"};

    put_run_gauges(f, ingest_gauges, sizeof ingest_gauges / sizeof ingest_gauges[0],
                   d->ingest, sizeof d->ingest[0], d->n_ingest);
    family(f, "iocontend_ingest_last_run_files", "gauge",
           "Files of that run by result: loaded, skipped (already loaded or not an "
           "input); quarantined: the files of that kind the quarantine list holds, "
           "over every run and file system (newly or still: known bad and unchanged), "
           "until they load or are retried or forgotten.");
    for (size_t i = 0; i < d->n_ingest; i++) {
        const long n[] = {d->ingest[i].loaded, d->ingest[i].skipped,
                          d->ingest[i].quarantined};
        for (size_t k = 0; k < 3; k++) {
            const char *labels[] = {"kind", d->ingest[i].kind, "result", results[k],
                                    NULL};
            sample(f, "iocontend_ingest_last_run_files", labels, (double)n[k]);
        }
    }
}

static void put_analysis(FILE *f, const struct db_telemetry *d)
{
    put_run_gauges(f, analysis_gauges, sizeof analysis_gauges / sizeof analysis_gauges[0],
                   d->analysis, sizeof d->analysis[0], d->n_analysis);
    family(f, "iocontend_analyze_last_run_jobs_excluded", "gauge",
           "Jobs that run's groups left out of their first pair, by reason (the method's "
           "exclusions); reason=\"unrecorded\" holds the total of a run that did not "
           "record them by reason (a sweep, whose total includes the jobs dropped as "
           "not valid at every k).");
    for (size_t i = 0; i < d->n_analysis; i++) {
        const struct db_telemetry_analysis *a = &d->analysis[i];
        if (!a->by_reason) {
            const char *labels[] = {"kind", a->kind, "reason", "unrecorded", NULL};
            sample(f, "iocontend_analyze_last_run_jobs_excluded", labels,
                   (double)a->excluded);
        }
        for (size_t k = 0; a->by_reason && k < a->n_reasons; k++) {
            const char *labels[] = {"kind", a->kind, "reason", a->reasons[k].name, NULL};
            sample(f, "iocontend_analyze_last_run_jobs_excluded", labels,
                   (double)a->reasons[k].jobs);
        }
    }
}

static void put_database(FILE *f, struct server *srv)
{
    struct db_health h;
    double age_s = -1;
    bool up = cache_health(srv, &h, &age_s);
    struct db_telemetry *d = up ? malloc(sizeof *d) : NULL;

    single(f, "iocontend_database_up", "gauge",
           "1 when the server's last read of the database (once a second) succeeded; "
           "the metrics of the data are left out while it is 0.",
           up ? 1 : 0);
    single(f, "iocontend_database_snapshot_age_seconds", "gauge",
           "Seconds since the server last read the database.", age_s);
    single(f, "iocontend_binary_schema_version", "gauge",
           "The newest schema migration this binary knows.", (double)db_schema_latest());
    if (!up)
        return;
    single(f, "iocontend_database_schema_version", "gauge",
           "The database's schema version; the data routes answer 503 schema_behind "
           "while it is below iocontend_binary_schema_version.",
           (double)h.schema_version);
    single(f, "iocontend_database_jobs", "gauge", "Jobs in the database.",
           (double)h.jobs);
    single(f, "iocontend_database_samples", "gauge", "Server samples in the database.",
           (double)h.samples);
    if (d == NULL || !cache_metrics(srv, d)) {
        free(d);
        return;
    }
    put_ingest(f, d);
    put_analysis(f, d);
    single(f, "iocontend_newest_job_end_timestamp_seconds", "gauge",
           "The end of the newest job loaded, unix time (NaN: none).",
           d->newest_job_end_s);
    family(f, "iocontend_newest_sample_timestamp_seconds", "gauge",
           "The stamp of the newest server sample loaded, by file system, unix time.");
    for (size_t i = 0; i < d->n_fs; i++) {
        const char *labels[] = {"fs", d->fs[i].fs, NULL};
        sample(f, "iocontend_newest_sample_timestamp_seconds", labels, d->fs[i].newest_s);
    }
    free(d);
}

void route_metrics(struct server *srv, struct request *req, const struct route_args *a)
{
    (void)a;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);

    if (f == NULL) {
        answer_json_take(req, 500, NULL);
        return;
    }
    family(f, "iocontend_build_info", "gauge", "Always 1; version is iocontend's.");
    const char *version[] = {"version", IOCONTEND_VERSION, NULL};
    sample(f, "iocontend_build_info", version, 1);
    single(f, "process_start_time_seconds", "gauge",
           "When the server started, unix time.",
           (double)atomic_load_explicit(&m.start_s, memory_order_relaxed));
    put_http(f);
    put_compute(f, srv);
    put_database(f, srv);
    if (fclose(f) != 0 || text == NULL) {
        free(text);
        answer_json_take(req, 500, NULL);
        return;
    }
    json_decref(req->json);
    req->json = NULL;
    free(req->text);
    req->text = text;
    req->code = 200;
    req->content_type = METRICS_CONTENT_TYPE;
}
