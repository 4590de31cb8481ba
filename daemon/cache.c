/* cache.c: stored answers kept in memory while the data version says they are
 * current, with their ETag and gzip once; and the snapshot /health answers from. */
#include "internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#define CACHE_BUCKETS 1024
/* How often the data version and the health snapshot are read (issue 19: at most
 * once a second). */
#define POLL_S 1.0
/* A version read longer ago than this is not trusted: answers are read afresh. */
#define VERSION_TRUST_S 3.0

/* One kept answer: the body of a 200, its ETag and, once a client asked, its gzip. */
struct cache_entry {
    struct cache_entry *prev, *next; /* least recently used last */
    struct cache_entry *chain;       /* the next of its bucket */
    uint64_t hash;                   /* of key */
    char *key;                       /* the route and what it was asked */
    long long version;               /* the data version read before the answer */
    char *body;                      /* the JSON text */
    size_t body_len;
    char *gz; /* body gzip'd, NULL until a client accepted gzip (or not smaller) */
    size_t gz_len;
    bool gz_tried;
    char etag[17]; /* 16 hex digits of the body's hash */
    size_t bytes;  /* what it counts against the cap */
};

struct answer_cache {
    pthread_mutex_t lock; /* guards everything below */
    struct cache_entry *buckets[CACHE_BUCKETS];
    struct cache_entry *head, *tail;
    size_t bytes, max_bytes;
    /* The snapshot, written by the poller: */
    long long version;       /* the data version, 0 while unknown */
    int schema_version;      /* at the last read */
    double read_s;           /* CLOCK_MONOTONIC when it was read, 0 never */
    bool reachable;          /* the last read succeeded */
    struct db_health health; /* read when the version or the schema moved */
    bool health_ok;
    struct db_telemetry metrics; /* read with health, from DB_TELEMETRY_SCHEMA on */
    bool metrics_ok;
    /* The poller: */
    pthread_t thread;
    bool started, stop;
    pthread_cond_t wake; /* CLOCK_MONOTONIC: stop was set */
    struct db *db;       /* the poller's own connection, NULL when lost */
    const struct server *srv;
};

/* FNV-1a, 64 bits: a key's bucket and a body's ETag. */
static uint64_t fnv1a(const void *data, size_t n)
{
    const unsigned char *p = data;
    uint64_t h = 14695981039346656037ULL;

    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ULL;
    }
    return h;
}

static void entry_free(struct cache_entry *e)
{
    if (e == NULL)
        return;
    free(e->key);
    free(e->body);
    free(e->gz);
    free(e);
}

/* Takes e out of its bucket and the list and frees it. Under lock. */
static void entry_drop(struct answer_cache *c, struct cache_entry *e)
{
    struct cache_entry **pp = &c->buckets[e->hash % CACHE_BUCKETS];

    while (*pp != e)
        pp = &(*pp)->chain;
    *pp = e->chain;
    if (e->prev != NULL) {
        e->prev->next = e->next;
    } else {
        c->head = e->next;
    }
    if (e->next != NULL) {
        e->next->prev = e->prev;
    } else {
        c->tail = e->prev;
    }
    c->bytes -= e->bytes;
    entry_free(e);
}

static void flush_all(struct answer_cache *c)
{
    struct cache_entry *e = c->head;

    while (e != NULL) {
        struct cache_entry *next = e->next;
        entry_free(e);
        e = next;
    }
    memset(c->buckets, 0, sizeof c->buckets);
    c->head = c->tail = NULL;
    c->bytes = 0;
}

static struct cache_entry *find(struct answer_cache *c, const char *key, uint64_t h)
{
    for (struct cache_entry *e = c->buckets[h % CACHE_BUCKETS]; e != NULL; e = e->chain) {
        if (e->hash == h && strcmp(e->key, key) == 0)
            return e;
    }
    return NULL;
}

static void to_front(struct answer_cache *c, struct cache_entry *e)
{
    if (c->head == e)
        return;
    e->prev->next = e->next;
    if (e->next != NULL) {
        e->next->prev = e->prev;
    } else {
        c->tail = e->prev;
    }
    e->prev = NULL;
    e->next = c->head;
    c->head->prev = e;
    c->head = e;
}

/* gzip (RFC 1952) of e's body, once; left NULL when it fails or is not smaller. */
static void make_gzip(struct cache_entry *e)
{
    z_stream z = {0};
    uLong bound;

    e->gz_tried = true;
    if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return;
    bound = deflateBound(&z, (uLong)e->body_len) + 32;
    e->gz = malloc(bound);
    if (e->gz != NULL) {
        z.next_in = (Bytef *)e->body;
        z.avail_in = (uInt)e->body_len;
        z.next_out = (Bytef *)e->gz;
        z.avail_out = (uInt)bound;
        if (deflate(&z, Z_FINISH) == Z_STREAM_END && z.total_out < e->body_len) {
            e->gz_len = z.total_out;
        } else {
            free(e->gz);
            e->gz = NULL;
        }
    }
    deflateEnd(&z);
}

/* Whether the client accepts gzip: a "gzip" coding in Accept-Encoding, not q=0. */
static bool accepts_gzip(struct MHD_Connection *conn)
{
    const char *ae = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
                                                 MHD_HTTP_HEADER_ACCEPT_ENCODING);
    const char *p = ae != NULL ? strstr(ae, "gzip") : NULL;

    if (p == NULL)
        return false;
    p += 4;
    while (*p == ' ')
        p++;
    if (*p != ';')
        return true;
    const char *q = strstr(p, "q=");
    return q == NULL || strtod(q + 2, NULL) > 0;
}

/* Whether If-None-Match names etag (either representation's) or is "*". */
static bool etag_matches(struct MHD_Connection *conn, const char *etag)
{
    const char *inm =
        MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_IF_NONE_MATCH);

    if (inm == NULL)
        return false;
    if (strchr(inm, '*') != NULL)
        return true;
    for (const char *p = strchr(inm, '"'); p != NULL; p = strchr(p + 1, '"')) {
        if (strncmp(p + 1, etag, 16) == 0 && (p[17] == '"' || p[17] == '-'))
            return true;
    }
    return false;
}

/* Answers req from e (under lock): 304 when the client has it, else the body, gzip'd
 * when accepted. */
static void answer_from(struct answer_cache *c, struct MHD_Connection *conn,
                        struct request *req, struct cache_entry *e)
{
    const bool gzip = accepts_gzip(conn);

    if (gzip && !e->gz_tried) {
        make_gzip(e);
        e->bytes += e->gz_len; /* within the cap from the next keep on */
        c->bytes += e->gz_len;
    }
    const bool use_gz = gzip && e->gz != NULL;
    snprintf(req->etag, sizeof req->etag, "\"%s%s\"", e->etag, use_gz ? "-gz" : "");
    req->vary_encoding = true;
    json_decref(req->json);
    req->json = NULL;
    free(req->text);
    req->text = NULL;
    if (etag_matches(conn, e->etag)) {
        req->code = 304;
        req->no_body = true;
        return;
    }
    const char *src = use_gz ? e->gz : e->body;
    const size_t n = use_gz ? e->gz_len : e->body_len;
    req->text = malloc(n + 1);
    if (req->text == NULL) {
        req->code = 500;
        return;
    }
    memcpy(req->text, src, n);
    req->text[n] = '\0';
    req->text_len = n;
    req->gzip = use_gz;
    req->code = 200;
}

long long cache_version(struct server *srv)
{
    struct answer_cache *c = srv->cache;
    long long v;

    pthread_mutex_lock(&c->lock);
    v = c->reachable && monotonic_s() - c->read_s <= VERSION_TRUST_S ? c->version : 0;
    pthread_mutex_unlock(&c->lock);
    return v;
}

bool cache_serve(struct server *srv, struct MHD_Connection *conn, struct request *req,
                 const char *key, long long version)
{
    struct answer_cache *c = srv->cache;
    const uint64_t h = fnv1a(key, strlen(key));
    bool hit = false;

    if (version == 0)
        return false;
    pthread_mutex_lock(&c->lock);
    struct cache_entry *e = find(c, key, h);
    if (e != NULL && e->version != version) {
        entry_drop(c, e);
        e = NULL;
    }
    if (e != NULL) {
        to_front(c, e);
        answer_from(c, conn, req, e);
        hit = true;
    }
    pthread_mutex_unlock(&c->lock);
    return hit;
}

void cache_keep(struct server *srv, struct MHD_Connection *conn, struct request *req,
                const char *key, long long version)
{
    struct answer_cache *c = srv->cache;
    struct cache_entry *e = NULL;

    if (req->code != 200 || req->no_body)
        return;
    if (req->text == NULL && req->json != NULL) {
        req->text = json_dumps(req->json, ANSWER_JSON_FLAGS);
        /* The text is the answer now: send_answer would dump the JSON again over it
         * (and leak it) when the answer is not kept. */
        if (req->text != NULL) {
            json_decref(req->json);
            req->json = NULL;
        }
    }
    if (req->text == NULL)
        return;
    const size_t n = strlen(req->text);
    const size_t bytes = n + strlen(key) + sizeof *e;
    /* An answer above a quarter of the cap would push out most others. */
    if (version == 0 || bytes > c->max_bytes / 4 || (e = calloc(1, sizeof *e)) == NULL)
        return;
    e->key = strdup(key);
    e->body = malloc(n + 1);
    if (e->key == NULL || e->body == NULL) {
        entry_free(e);
        return;
    }
    memcpy(e->body, req->text, n + 1);
    e->body_len = n;
    e->hash = fnv1a(key, strlen(key));
    e->version = version;
    e->bytes = bytes;
    snprintf(e->etag, sizeof e->etag, "%016llx", (unsigned long long)fnv1a(e->body, n));
    pthread_mutex_lock(&c->lock);
    struct cache_entry *old = find(c, key, e->hash);
    if (old != NULL)
        entry_drop(c, old);
    /* entry_drop unlinks before it frees: tail is never a freed entry (the analyzer
     * cannot follow the list). */
    while (c->tail != NULL && c->bytes + bytes > c->max_bytes)
        entry_drop(c, c->tail); // NOLINT(clang-analyzer-unix.Malloc)
    e->chain = c->buckets[e->hash % CACHE_BUCKETS];
    c->buckets[e->hash % CACHE_BUCKETS] = e;
    e->next = c->head;
    if (c->head != NULL)
        c->head->prev = e;
    c->head = e;
    if (c->tail == NULL)
        c->tail = e;
    c->bytes += bytes;
    answer_from(c, conn, req, e);
    pthread_mutex_unlock(&c->lock);
}

bool cache_health(struct server *srv, struct db_health *out, double *age_s)
{
    struct answer_cache *c = srv->cache;
    bool ok;

    pthread_mutex_lock(&c->lock);
    ok = c->reachable && c->health_ok;
    *out = c->health;
    *age_s = c->read_s > 0 ? monotonic_s() - c->read_s : -1;
    pthread_mutex_unlock(&c->lock);
    return ok;
}

bool cache_metrics(struct server *srv, struct db_telemetry *out)
{
    struct answer_cache *c = srv->cache;
    bool ok;

    pthread_mutex_lock(&c->lock);
    ok = c->reachable && c->metrics_ok;
    if (ok)
        *out = c->metrics;
    pthread_mutex_unlock(&c->lock);
    return ok;
}

/* ---- the poller: the data version and health, once a second ---------------------- */

/* The schema version whose migration (0014_data_version) made the data_version row. */
#define DATA_VERSION_SCHEMA 14

/* One read of the version and, when it or the schema moved, of health. */
static void poll_once(struct answer_cache *c)
{
    struct error err = {0};
    long long version = 0;
    int schema = 0;
    struct db_health h = {0};
    struct db_telemetry *m = NULL;
    bool metrics_ok = false;
    const double t0 = monotonic_s();
    enum status rc = STATUS_OK;

    if (c->db == NULL) {
        rc = c->srv->target_ok ? db_open(&c->srv->target, &c->db, &err)
                               : error_set(&err, STATUS_DB, "no database target");
    }
    if (rc == STATUS_OK)
        rc = db_schema_version(c->db, &schema, &err);
    /* A database behind the data_version row (a schema before 0014) has health, not
     * a version: /health then says the schema is behind, and nothing is cached. */
    if (rc == STATUS_OK && schema >= DATA_VERSION_SCHEMA)
        rc = db_data_version(c->db, &version, &err);
    pthread_mutex_lock(&c->lock);
    const bool moved =
        rc == STATUS_OK && (version != c->version || schema != c->schema_version);
    const bool want_metrics = rc == STATUS_OK && schema >= DB_TELEMETRY_SCHEMA;
    const bool need_health =
        rc == STATUS_OK && (moved || !c->health_ok || (want_metrics && !c->metrics_ok));
    const bool metrics_were_ok = c->metrics_ok || c->read_s == 0;
    pthread_mutex_unlock(&c->lock);
    if (need_health)
        rc = db_health_get(c->db, &h, &err);
    /* /metrics's reading of the runs moves with the same data: read with health. A
     * failure leaves health standing and is read again with it. */
    if (need_health && rc == STATUS_OK && want_metrics &&
        (m = malloc(sizeof *m)) != NULL) {
        struct error merr = {0};
        metrics_ok = db_telemetry_get(c->db, m, &merr) == STATUS_OK;
        if (!metrics_ok && metrics_were_ok) {
            char detail[512];
            error_format(&merr, detail, sizeof detail);
            log_warn("metrics of the runs: %s", detail);
        }
    }
    pthread_mutex_lock(&c->lock);
    if (rc == STATUS_OK && moved && version != c->version)
        flush_all(c);
    if (rc == STATUS_OK) {
        c->version = version;
        c->schema_version = schema;
        if (need_health) {
            c->health = h;
            c->health_ok = true;
            c->metrics_ok = metrics_ok; /* when not, read again with health */
            if (metrics_ok)
                c->metrics = *m;
        }
    }
    if (rc != STATUS_OK && c->reachable) {
        char detail[512];
        error_format(&err, detail, sizeof detail);
        log_warn("data version: %s", detail);
    }
    c->reachable = rc == STATUS_OK;
    c->read_s = t0;
    pthread_mutex_unlock(&c->lock);
    free(m);
    if (rc != STATUS_OK) {
        db_close(c->db); /* reconnect on the next read */
        c->db = NULL;
    }
}

static void *poller(void *arg)
{
    struct answer_cache *c = arg;

    pthread_mutex_lock(&c->lock);
    while (!c->stop) {
        const double next_s = c->read_s + POLL_S;
        struct timespec ts = {(time_t)next_s,
                              (long)((next_s - (double)(time_t)next_s) * 1e9)};
        if (monotonic_s() < next_s) {
            pthread_cond_timedwait(&c->wake, &c->lock, &ts);
            continue;
        }
        pthread_mutex_unlock(&c->lock);
        poll_once(c);
        pthread_mutex_lock(&c->lock);
    }
    pthread_mutex_unlock(&c->lock);
    return NULL;
}

bool cache_start(struct server *srv, size_t max_bytes)
{
    struct answer_cache *c = calloc(1, sizeof *c);
    pthread_condattr_t attr;

    if (c == NULL)
        return false;
    c->max_bytes = max_bytes;
    c->srv = srv;
    pthread_mutex_init(&c->lock, NULL);
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&c->wake, &attr);
    pthread_condattr_destroy(&attr);
    srv->cache = c;
    poll_once(c); /* the first /health answers from a snapshot already */
    c->started = pthread_create(&c->thread, NULL, poller, c) == 0;
    return c->started;
}

void cache_stop(struct server *srv)
{
    struct answer_cache *c = srv->cache;

    if (c == NULL)
        return;
    if (c->started) {
        pthread_mutex_lock(&c->lock);
        c->stop = true;
        pthread_cond_signal(&c->wake);
        pthread_mutex_unlock(&c->lock);
        pthread_join(c->thread, NULL);
    }
    flush_all(c);
    db_close(c->db);
    pthread_cond_destroy(&c->wake);
    pthread_mutex_destroy(&c->lock);
    free(c);
    srv->cache = NULL;
}
