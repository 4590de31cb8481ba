/* schema.c: serve never migrates: whether the database's schema is behind this
 * binary's migrations, for /health and the data routes. */
#include "internal.h"

void schema_health_add(struct server *srv, struct request *req)
{
    json_t *v = json_object_get(req->json, "schema_version");

    if (req->code != 200 || !json_is_integer(v))
        return;
    int version = (int)json_integer_value(v);
    int latest = db_schema_latest();
    atomic_store(&srv->schema_version, version);
    /* Without memory for it the answer goes without the object, as before. */
    json_object_set_new(req->json, "schema",
                        json_pack("{s:i, s:i, s:b}", "version", version, "expected",
                                  latest, "behind", version < latest));
}

/* Reads the schema's version, at most once a second and by one HTTP thread at a time (the
 * others go on with the last one read); a database that does not answer leaves it
 * as it was. */
static void schema_read(struct server *srv)
{
    struct error err = {0};
    int version = 0;

    if (pthread_mutex_trylock(&srv->schema_lock) != 0)
        return;
    double now = monotonic_s();
    if (srv->schema_read_s == 0 || now - srv->schema_read_s >= 1.0) {
        srv->schema_read_s = now;
        struct db *db = pool_acquire(srv, &err);
        if (db != NULL) {
            enum status rc = db_schema_version(db, &version, &err);
            pool_release(srv, db, rc);
            if (rc == STATUS_OK)
                atomic_store(&srv->schema_version, version);
        }
    }
    pthread_mutex_unlock(&srv->schema_lock);
}

bool schema_ready(struct server *srv, struct request *req)
{
    int latest = db_schema_latest();
    int version = atomic_load(&srv->schema_version);

    if (version >= latest)
        return true;
    schema_read(srv);
    version = atomic_load(&srv->schema_version);
    if (version < 0 || version >= latest)
        return true;
    answer_error_code(req, 503, "schema_behind", NULL,
                      "the database schema is at version %d and this server needs %d: "
                      "run 'iocontend db migrate'",
                      version, latest);
    return false;
}
