/* server.h: an iocontend server under test, a child process serving the database
 * of a pgfixture on a free port of 127.0.0.1 (include after <cmocka.h>). */
#ifndef IOCONTEND_SERVER_H
#define IOCONTEND_SERVER_H

#include "pgfixture.h"

#include <jansson.h>
#include <sys/types.h>

#define SERVER_HOST "127.0.0.1"

/* A server started as a child process. */
struct server {
    pid_t pid;  /* 0 when not running */
    int out_fd; /* read end of its stdout, kept open so a late write cannot SIGPIPE it */
    int port;   /* from its "listening on" line */
};

/* Starts `iocontend [--config conf] serve --listen 127.0.0.1:0` (conf may be NULL)
 * against db, which must be started, and waits up to 60 s for the "listening on"
 * line. 0 on success; -1 with the reason on stderr. */
int server_start(struct server *s, const struct pgfixture *db, const char *conf);
/* SIGTERM, up to 15 s for it to exit, then SIGKILL. Returns its exit status, -1 when
 * it was not running or had to be killed. Safe to call twice. */
int server_stop(struct server *s);
/* GET path with extra header lines (NULL or "Name: value\r\n"...); the body parsed as
 * JSON, which the caller json_decref's. Fails the test unless the status is want and
 * the body is a JSON object. */
json_t *server_get_json(const struct server *s, const char *path, const char *headers,
                        int want);
/* The id of the first group /api/v1/groups lists (the most jobs) into out; 0 on
 * success, -1 when there is none. */
int server_first_group(const struct server *s, char *out, size_t size);
/* Waits (up to 5 s) until the server read the data version after this call began,
 * as /health's snapshot_age_s tells: its stored answers are then those of what was
 * written before the call. Fails the test when it never does. */
void server_await_data(const struct server *s);

#endif
