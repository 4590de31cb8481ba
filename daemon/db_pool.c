/* db_pool.c: the server's database connections, one lent to each route that needs one
 * and each reconnecting on its own when it was lost: at once, in the statement that
 * found it lost (db_retry_lost_set), or at the next acquire when that failed. */
#include "internal.h"

#include <stdlib.h>

bool db_pool_init(struct server *srv, size_t n)
{
    srv->slots = calloc(n, sizeof *srv->slots);
    srv->n_slots = srv->slots != NULL ? n : 0;
    return srv->slots != NULL;
}

void db_pool_close(struct server *srv)
{
    pthread_mutex_lock(&srv->db_lock);
    for (size_t i = 0; i < srv->n_slots; i++) {
        db_close(srv->slots[i].db);
        srv->slots[i].db = NULL;
    }
    free(srv->slots);
    srv->slots = NULL;
    srv->n_slots = 0;
    pthread_mutex_unlock(&srv->db_lock);
}

/* A free slot, an open connection rather than a closed one; NULL when all are lent.
 * Under db_lock. */
static struct db_slot *free_slot(struct server *srv)
{
    struct db_slot *closed = NULL;

    for (size_t i = 0; i < srv->n_slots; i++) {
        if (srv->slots[i].busy)
            continue;
        if (srv->slots[i].db != NULL)
            return &srv->slots[i];
        if (closed == NULL)
            closed = &srv->slots[i];
    }
    return closed;
}

void db_pool_cancel(struct server *srv)
{
    pthread_mutex_lock(&srv->db_lock);
    for (size_t i = 0; i < srv->n_slots; i++) {
        if (srv->slots[i].busy && srv->slots[i].db != NULL)
            db_cancel(srv->slots[i].db);
    }
    pthread_mutex_unlock(&srv->db_lock);
}

/* Every query of the server's is bounded by its deadline: the database stops one
 * that outlives it, whatever the route does with the rows. */
static enum status limit_statements(struct server *srv, struct db *db, struct error *err)
{
    const double ms = srv->s->limits.deadline_s * 1000.0;

    return db_statement_timeout_set(db, ms < 1 ? 1 : (unsigned long)ms, err);
}

/* Every route only reads: a statement that a restarted server's dropped connection
 * failed runs once more on a new one, instead of one 503 for each connection of the
 * pool after each restart (at the first use of each, however late). Set at each
 * loan, so that the first connection (serve_run's, made before the pool) has it. */
static struct db *lend(struct db *db)
{
    db_retry_lost_set(db, true);
    return db;
}

struct db *pool_acquire(struct server *srv, struct error *err)
{
    struct db_slot *slot;

    if (atomic_load(&srv->stopping)) {
        error_set(err, STATUS_DB, "the server is stopping");
        return NULL;
    }
    pthread_mutex_lock(&srv->db_lock);
    while ((slot = free_slot(srv)) == NULL && !atomic_load(&srv->stopping))
        pthread_cond_wait(&srv->db_free, &srv->db_lock);
    if (slot == NULL) {
        pthread_mutex_unlock(&srv->db_lock);
        error_set(err, STATUS_DB, "the server is stopping");
        return NULL;
    }
    slot->busy = true;
    pthread_mutex_unlock(&srv->db_lock);
    if (slot->db != NULL && !slot->limited) {
        if (limit_statements(srv, slot->db, err) != STATUS_OK) {
            pool_release(srv, slot->db, STATUS_DB);
            return NULL;
        }
        slot->limited = true;
    }
    if (slot->db != NULL)
        return lend(slot->db);
    /* Outside the lock: while the database is down, a connection attempt must not
     * hold up the routes that have a connection. The connection is the slot's only
     * once it is whole, under the lock: db_pool_cancel reads slot->db under it. */
    struct db *fresh = NULL;
    enum status rc = srv->target_ok ? db_open(&srv->target, &fresh, err)
                                    : error_set(err, STATUS_DB, "no database target");
    if (rc == STATUS_OK) {
        rc = limit_statements(srv, fresh, err);
        if (rc != STATUS_OK) {
            db_close(fresh);
            fresh = NULL;
        }
    }
    if (rc == STATUS_OK) {
        pthread_mutex_lock(&srv->db_lock);
        slot->db = fresh;
        slot->limited = true;
        pthread_mutex_unlock(&srv->db_lock);
        if (slot->opened) {
            log_info("database connection re-established");
        } else {
            log_debug("database connection %zu opened", (size_t)(slot - srv->slots));
        }
        slot->opened = true;
        return lend(slot->db);
    }
    pthread_mutex_lock(&srv->db_lock);
    slot->db = NULL;
    slot->busy = false;
    pthread_cond_signal(&srv->db_free);
    pthread_mutex_unlock(&srv->db_lock);
    return NULL;
}

void pool_release(struct server *srv, struct db *db, enum status rc)
{
    struct db *dead = NULL;

    pthread_mutex_lock(&srv->db_lock);
    for (size_t i = 0; i < srv->n_slots; i++) {
        if (srv->slots[i].db != db || !srv->slots[i].busy)
            continue;
        if (rc == STATUS_DB) {
            dead = db;
            srv->slots[i].db = NULL;
        }
        srv->slots[i].busy = false;
        break;
    }
    pthread_cond_signal(&srv->db_free);
    pthread_mutex_unlock(&srv->db_lock);
    db_close(dead);
}
