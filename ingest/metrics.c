/* metrics.c: log-only job metrics, activity windows and size bins (docs/method.md §2,
 * §4). */
#include "ingest.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- b(v) ----------------------------------------------------------------- */

/* ceil(1.2^k) for k = 1, 2, ...: the smallest integer in bin k + 1 (b(v) = 1 + k for
 * 1.2^k <= v < 1.2^(k+1)). Exact, from Python's fractions:
 *   [-((-(6**k)) // 5**k) for k in range(1, 244)]
 * The formula 1 + floor(ln v / ln 1.2) in double misplaces integers next to an edge
 * from about 1.4e13 up (bytes of a large job), e.g. floor(1.2^166) = 13934354140733
 * lands in bin 167 instead of 166; group ids must not depend on such rounding. */
/* clang-format off */
static const uint64_t bin_edges[] = {
    2u, 2u, 2u, 3u, 3u, 3u, 4u, 5u, 6u, 7u, 8u, 9u, 11u, 13u, 16u, 19u, 23u, 27u, 32u,
    39u, 47u, 56u, 67u, 80u, 96u, 115u, 138u, 165u, 198u, 238u, 285u, 342u, 411u, 493u,
    591u, 709u, 851u, 1021u, 1225u, 1470u, 1764u, 2117u, 2540u, 3048u, 3658u, 4389u,
    5267u, 6320u, 7584u, 9101u, 10921u, 13105u, 15726u, 18871u, 22645u, 27174u, 32609u,
    39131u, 46957u, 56348u, 67618u, 81141u, 97369u, 116843u, 140211u, 168253u, 201904u,
    242284u, 290741u, 348889u, 418667u, 502401u, 602881u, 723457u, 868148u, 1041777u,
    1250133u, 1500159u, 1800191u, 2160229u, 2592275u, 3110729u, 3732875u, 4479450u,
    5375340u, 6450408u, 7740490u, 9288587u, 11146305u, 13375566u, 16050679u, 19260814u,
    23112977u, 27735573u, 33282687u, 39939224u, 47927069u, 57512483u, 69014979u,
    82817975u, 99381570u, 119257884u, 143109460u, 171731352u, 206077623u, 247293147u,
    296751777u, 356102132u, 427322558u, 512787070u, 615344484u, 738413380u, 886096056u,
    1063315267u, 1275978321u, 1531173985u, 1837408782u, 2204890538u, 2645868645u,
    3175042374u, 3810050849u, 4572061019u, 5486473222u, 6583767867u, 7900521440u,
    9480625728u, 11376750873u, 13652101048u, 16382521257u, 19659025509u, 23590830611u,
    28308996733u, 33970796079u, 40764955295u, 48917946354u, 58701535624u, 70441842749u,
    84530211299u, 101436253558u, 121723504270u, 146068205124u, 175281846148u,
    210338215378u, 252405858453u, 302887030144u, 363464436172u, 436157323407u,
    523388788088u, 628066545706u, 753679854847u, 904415825816u, 1085298990979u,
    1302358789174u, 1562830547009u, 1875396656411u, 2250475987693u, 2700571185232u,
    3240685422278u, 3888822506733u, 4666587008080u, 5599904409696u, 6719885291635u,
    8063862349962u, 9676634819954u, 11611961783945u, 13934354140734u, 16721224968880u,
    20065469962656u, 24078563955187u, 28894276746224u, 34673132095469u, 41607758514563u,
    49929310217476u, 59915172260971u, 71898206713165u, 86277848055797u,
    103533417666957u, 124240101200348u, 149088121440417u, 178905745728501u,
    214686894874201u, 257624273849041u, 309149128618849u, 370978954342619u,
    445174745211142u, 534209694253371u, 641051633104045u, 769261959724854u,
    923114351669824u, 1107737222003789u, 1329284666404547u, 1595141599685456u,
    1914169919622547u, 2297003903547056u, 2756404684256467u, 3307685621107761u,
    3969222745329313u, 4763067294395175u, 5715680753274210u, 6858816903929052u,
    8230580284714862u, 9876696341657834u, 11852035609989401u, 14222442731987281u,
    17066931278384737u, 20480317534061684u, 24576381040874021u, 29491657249048825u,
    35389988698858590u, 42467986438630308u, 50961583726356370u, 61153900471627644u,
    73384680565953172u, 88061616679143807u, 105673940014972568u, 126808728017967082u,
    152170473621560498u, 182604568345872597u, 219125482015047117u, 262950578418056540u,
    315540694101667848u, 378648832922001417u, 454378599506401700u, 545254319407682040u,
    654305183289218448u, 785166219947062138u, 942199463936474565u, 1130639356723769478u,
    1356767228068523374u, 1628120673682228049u, 1953744808418673658u,
    2344493770102408390u, 2813392524122890068u, 3376071028947468081u,
    4051285234736961698u, 4861542281684354037u, 5833850738021224844u,
    7000620885625469813u, 8400745062750563775u, 10080894075300676530u,
    12097072890360811836u, 14516487468432974204u, 17419784962119569044u
};
/* clang-format on */

#define N_BIN_EDGES (sizeof bin_edges / sizeof bin_edges[0])

int ingest_size_bin(double v)
{
    size_t lo = 0, hi = N_BIN_EDGES;

    if (!(v > 0)) /* 0, and also NaN and the impossible negatives */
        return 0;
    /* Counts and bytes are integers: count the edges at or below v, exactly. */
    if (v == floor(v) && v < 18446744073709551616.0) {
        uint64_t u = (uint64_t)v;

        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;

            if (bin_edges[mid] <= u) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return 1 + (int)lo;
    }
    /* Non-integers (and v >= 2^64) follow the formula as written; b(1.2) is 2 because
     * both logarithms are of the same double, although that double is just below 6/5. */
    return 1 + (int)floor(log(v) / log(1.2));
}

/* ---- helpers -------------------------------------------------------------- */

struct file_ref { /* records ordered by file (record id) */
    uint64_t id;
    size_t idx;
};

struct rank_time { /* one unique-file record's contribution to its rank */
    int64_t rank;
    size_t idx; /* record order, so that sums run in a fixed order */
    double io_s, meta_s;
};

static int cmp_file_ref(const void *a, const void *b)
{
    const struct file_ref *x = a, *y = b;

    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int cmp_rank_time(const void *a, const void *b)
{
    const struct rank_time *x = a, *y = b;

    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int cmp_window(const void *a, const void *b)
{
    const struct job_window *x = a, *y = b;

    if (x->start_s != y->start_s)
        return x->start_s < y->start_s ? -1 : 1;
    if (x->end_s != y->end_s)
        return x->end_s < y->end_s ? -1 : 1;
    return (int)x->is_write - (int)y->is_write;
}

/* Counts and bytes of -1 ("not collected") add nothing; saturate, never overflow. */
static int64_t add_count(int64_t sum, int64_t v)
{
    if (v <= 0)
        return sum;
    return v > INT64_MAX - sum ? INT64_MAX : sum + v;
}

/* The monitored file system of a record: by its mount point, or by its file name when
 * darshan did not know the mount (UNKNOWN, empty). NULL when none or no map. */
static const char *fs_of(const struct ingest_fs_map *map, const struct darshan_record *r)
{
    const char *where = r->mount_point;

    if (where == NULL || where[0] == '\0' || strcmp(where, "UNKNOWN") == 0)
        where = r->file_name;
    return ingest_fs_lookup(map, where);
}

/* The window of one direction of a record, in seconds after the job start: false when
 * it has none. Darshan writes 0 for "never" (and -1 for "not collected"), so:
 * - no operations: no window;
 * - operations but no end time (the vpicio log's <STDERR> has 65 writes and both
 *   timestamps 0): no window, since placing it at the job start would mark an interval
 *   active that may have seen nothing; T^F still counts such a record with span 0;
 * - an end but no usable start (0, or after the end): the zero-length window [end,
 *   end], the one instant known to have seen I/O. */
static bool window_of(int64_t count, double start, double end, double *a, double *b)
{
    if (count <= 0 || !(end > 0))
        return false;
    *b = end;
    *a = start > 0 && start <= end ? start : end;
    return true;
}

/* basename of the first whitespace-separated token of exe (docs/method.md §4), as
 * basename(1): trailing slashes do not count, "/" stays "/". */
static void executable_of(const char *exe, char *out, size_t size)
{
    const char *tok = exe != NULL ? exe : "";
    const char *end, *base;
    size_t n;

    while (*tok == ' ' || *tok == '\t')
        tok++;
    end = tok;
    while (*end != '\0' && *end != ' ' && *end != '\t')
        end++;
    while (end - tok > 1 && end[-1] == '/')
        end--;
    base = tok;
    for (const char *c = tok; c + 1 < end; c++) {
        if (*c == '/')
            base = c + 1;
    }
    n = (size_t)(end - base);
    if (n >= size)
        n = size - 1;
    memcpy(out, base, n);
    out[n] = '\0';
}

static void hash_field(struct hash128 *h, const char *s, bool last)
{
    hash128_update(h, s, strlen(s));
    if (!last)
        hash128_update(h, "\x1f", 1);
}

/* Identity of a job (docs/interfaces.md "Ingest"): (jobid, uid, start, end, nprocs, exe)
 * as decimal text joined by the unit separator 0x1f. */
void ingest_job_key(const char *jobid, uint64_t uid, int64_t start_time_s,
                    int64_t end_time_s, int64_t nprocs, const char *exe, char out[33])
{
    struct hash128 h;
    char num[32];

    hash128_init(&h);
    hash_field(&h, jobid, false);
    snprintf(num, sizeof num, "%" PRIu64, uid);
    hash_field(&h, num, false);
    snprintf(num, sizeof num, "%" PRId64, start_time_s);
    hash_field(&h, num, false);
    snprintf(num, sizeof num, "%" PRId64, end_time_s);
    hash_field(&h, num, false);
    snprintf(num, sizeof num, "%" PRId64, nprocs);
    hash_field(&h, num, false);
    hash_field(&h, exe, true);
    hash128_hex(&h, out);
}

static void job_key_of(const struct darshan_log *log, char out[33])
{
    ingest_job_key(log->jobid, log->uid, log->start_time_s, log->end_time_s, log->nprocs,
                   log->exe != NULL ? log->exe : "", out);
}

/* ---- the metrics ---------------------------------------------------------- */

struct acc { /* running sums of one pass over the files */
    double t_s, span_first_open, span_last_io, t_s_slowest;
    bool any_shared_io;
    struct rank_time *ranks;
    size_t n_ranks;
};

/* A record of the layer that speaks for its file (MPI-IO, else POSIX, else STDIO). */
static void add_chosen(struct job_metrics *m, struct acc *acc,
                       const struct darshan_record *r, size_t idx, bool monitored)
{
    m->eta_read = add_count(m->eta_read, r->bytes_read);
    m->eta_write = add_count(m->eta_write, r->bytes_written);
    if (monitored) {
        m->eta_mon_read = add_count(m->eta_mon_read, r->bytes_read);
        m->eta_mon_write = add_count(m->eta_mon_write, r->bytes_written);
    }
    if (r->rank >= 0) {
        struct rank_time *rt = &acc->ranks[acc->n_ranks++];

        rt->rank = r->rank;
        rt->idx = idx;
        rt->io_s = r->meta_time + r->read_time + r->write_time;
        rt->meta_s = r->meta_time;
        return;
    }
    /* Shared file: darshan-parser's time_by_open_lastio, its prose twin (span) and the
     * sum of the slowest ranks' times (time_by_slowest). */
    if (r->reads > 0 || r->writes > 0) {
        double last_io = fmax(r->read_end, r->write_end);

        acc->t_s += fmax(0.0, last_io - r->open_start);
        if (!acc->any_shared_io || r->open_start < acc->span_first_open)
            acc->span_first_open = r->open_start;
        if (!acc->any_shared_io || last_io > acc->span_last_io)
            acc->span_last_io = last_io;
        acc->any_shared_io = true;
    }
    if (r->slowest_rank_time >= 0)
        acc->t_s_slowest += r->slowest_rank_time;
}

/* One direction of a record of the layer whose windows count for its file (POSIX,
 * else STDIO, else MPI-IO: the one closest to the storage). */
static void add_direction(struct job_metrics *m, double t0, int64_t count, double start,
                          double end, bool is_write, int64_t bytes, const char *fs)
{
    double a, b, span;
    bool has;

    if (count <= 0)
        return;
    has = window_of(count, start, end, &a, &b);
    span = has ? b - a : 0.0;
    if (is_write) {
        m->t_fw = fmax(m->t_fw, span);
    } else {
        m->t_fr = fmax(m->t_fr, span);
    }
    if (has) {
        struct job_window *w = &m->windows[m->n_windows++];

        w->start_s = t0 + a;
        w->end_s = t0 + b;
        w->is_write = is_write;
        w->monitored = fs != NULL;
        w->bytes = add_count(0, bytes);
        w->fs = fs;
    }
}

/* darshan-parser's calc_perf: the slowest rank starts as "rank 0 with no time" and is
 * replaced only by a strictly larger sum, so ties go to the lowest rank and ranks
 * whose sums are negative (clock glitches: vpicio's <STDERR> write time is -2662 s)
 * never win over ranks that did nothing. */
static void slowest_rank(struct job_metrics *m, struct acc *acc)
{
    double best_io = 0.0, best_meta = 0.0;

    if (acc->n_ranks > 1)
        qsort(acc->ranks, acc->n_ranks, sizeof *acc->ranks, cmp_rank_time);
    for (size_t i = 0; i < acc->n_ranks;) {
        double io = 0.0, meta = 0.0;
        size_t j = i;

        for (; j < acc->n_ranks && acc->ranks[j].rank == acc->ranks[i].rank; j++) {
            io += acc->ranks[j].io_s;
            meta += acc->ranks[j].meta_s;
        }
        if (io > best_io) {
            best_io = io;
            best_meta = meta;
        }
        i = j;
    }
    m->t_um = best_meta;
    m->t_urw = best_io - best_meta;
}

static void group_of(const struct darshan_log *log, struct job_metrics *m)
{
    struct hash128 h;
    char hex[33];

    snprintf(m->group_key, sizeof m->group_key, "%" PRIu64 "|%s|%" PRId64 "|%d|%d|%d|%d",
             log->uid, m->executable, log->nprocs, ingest_size_bin((double)m->eta_read),
             ingest_size_bin((double)m->eta_write),
             ingest_size_bin((double)m->n_unique_files),
             ingest_size_bin((double)m->n_shared_files));
    hash128_init(&h);
    hash128_update(&h, m->group_key, strlen(m->group_key));
    hash128_hex(&h, hex);
    memcpy(m->group_id, hex, 16);
    m->group_id[16] = '\0';
}

enum status ingest_job_metrics(const struct darshan_log *log,
                               const struct ingest_fs_map *map, struct job_metrics *out,
                               struct error *err)
{
    const size_t n = log != NULL ? log->n_records : 0;
    struct file_ref *refs = NULL;
    struct acc acc = {0};
    enum status rc = STATUS_OK;
    double t0;

    if (out == NULL || log == NULL)
        return error_set(err, STATUS_INVALID, "ingest_job_metrics: no log or output");
    memset(out, 0, sizeof *out);
    out->t_fr = out->t_fw = -1.0;
    t0 = (double)log->start_time_s;
    job_key_of(log, out->job_key);
    executable_of(log->exe, out->executable, sizeof out->executable);
    /* 3.41 stores nanosecond start and end and prints their difference; older formats
     * print end - start + 1, which the paper did not use. */
    out->t_j = log->log_version >= 3.405 ? log->run_time_s
                                         : (double)(log->end_time_s - log->start_time_s);

    if (n > 0) {
        refs = malloc(n * sizeof *refs);
        acc.ranks = malloc(n * sizeof *acc.ranks);
        out->windows = malloc(2 * n * sizeof *out->windows);
        if (refs == NULL || acc.ranks == NULL || out->windows == NULL) {
            rc =
                error_set(err, STATUS_NOMEM, "metrics of %s", log->path ? log->path : "");
            goto out;
        }
    }
    for (size_t i = 0; i < n; i++)
        refs[i] = (struct file_ref){log->records[i].record_id, i};
    if (n > 1)
        qsort(refs, n, sizeof *refs, cmp_file_ref);

    /* One file (record id) at a time: the layer rule of docs/method.md §2 needs to know
     * which layers recorded it. */
    for (size_t i = 0; i < n;) {
        bool has[LAYER_COUNT] = {false, false, false};
        bool shared = false;
        enum ingest_layer chosen, windowed;
        size_t j = i;

        for (; j < n && refs[j].id == refs[i].id; j++)
            has[log->records[refs[j].idx].layer] = true;
        chosen = has[LAYER_MPIIO]   ? LAYER_MPIIO
                 : has[LAYER_POSIX] ? LAYER_POSIX
                                    : LAYER_STDIO;
        windowed = has[LAYER_POSIX]   ? LAYER_POSIX
                   : has[LAYER_STDIO] ? LAYER_STDIO
                                      : LAYER_MPIIO;
        for (size_t k = i; k < j; k++) {
            const struct darshan_record *r = &log->records[refs[k].idx];
            const char *fs;

            if (r->layer != chosen && r->layer != windowed)
                continue;
            fs = fs_of(map, r);
            if (r->layer == chosen) {
                add_chosen(out, &acc, r, refs[k].idx, fs != NULL);
                shared = shared || r->rank == -1;
            }
            if (r->layer == windowed) {
                add_direction(out, t0, r->reads, r->read_start, r->read_end, false,
                              r->bytes_read, fs);
                add_direction(out, t0, r->writes, r->write_start, r->write_end, true,
                              r->bytes_written, fs);
            }
        }
        if (shared) {
            out->n_shared_files++;
        } else {
            out->n_unique_files++;
        }
        i = j;
    }

    slowest_rank(out, &acc);
    out->t_s = acc.t_s;
    out->t_s_span =
        acc.any_shared_io ? fmax(0.0, acc.span_last_io - acc.span_first_open) : 0.0;
    out->t_s_slowest = acc.t_s_slowest;
    out->t = out->t_um + out->t_urw + out->t_s;
    if (out->n_windows > 0) {
        if (out->n_windows > 1)
            qsort(out->windows, out->n_windows, sizeof *out->windows, cmp_window);
    } else {
        free(out->windows);
        out->windows = NULL;
    }
    group_of(log, out);
out:
    free(refs);
    free(acc.ranks);
    if (rc != STATUS_OK)
        job_metrics_clear(out);
    return rc;
}

void job_metrics_clear(struct job_metrics *m)
{
    if (m == NULL)
        return;
    free(m->windows);
    memset(m, 0, sizeof *m);
}
