/* server.c: `iocontend serve` as a child process of an integration test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "server.h"

#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LISTENING "listening on " SERVER_HOST ":"

int server_start(struct server *s, const struct pgfixture *db, const char *conf)
{
    int fds[2];
    char line[512];
    size_t used = 0;

    memset(s, 0, sizeof *s);
    s->out_fd = -1;
    if (pipe(fds) != 0)
        return -1;
    s->pid = fork();
    if (s->pid < 0) {
        close(fds[0]);
        close(fds[1]);
        s->pid = 0;
        return -1;
    }
    if (s->pid == 0) {
        dup2(fds[1], STDOUT_FILENO);
        close(fds[0]);
        close(fds[1]);
        if (conf != NULL) {
            execl(db->bin, db->bin, "--config", conf, "serve", "--listen",
                  SERVER_HOST ":0", (char *)NULL);
        } else {
            execl(db->bin, db->bin, "serve", "--listen", SERVER_HOST ":0", (char *)NULL);
        }
        _exit(127);
    }
    close(fds[1]);
    s->out_fd = fds[0];
    /* The line comes once the socket listens; a server that never says it failed. */
    for (;;) {
        struct pollfd p = {.fd = s->out_fd, .events = POLLIN};
        if (poll(&p, 1, 60000) <= 0)
            break;
        ssize_t n = read(s->out_fd, line + used, sizeof line - 1 - used);
        if (n <= 0)
            break;
        used += (size_t)n;
        line[used] = '\0';
        const char *at = strstr(line, LISTENING);
        if (at != NULL && strchr(at, '\n') != NULL) {
            s->port = (int)strtol(at + strlen(LISTENING), NULL, 10);
            if (s->port > 0)
                return 0;
            break;
        }
        if (used == sizeof line - 1)
            break;
    }
    fprintf(stderr, "server: %s did not say where it listens (got \"%.*s\")\n", db->bin,
            (int)used, line);
    server_stop(s);
    return -1;
}

int server_stop(struct server *s)
{
    int status = 0, code = -1;

    if (s->pid <= 0)
        return -1;
    kill(s->pid, SIGTERM);
    for (int i = 0; i < 300; i++) {
        pid_t done = waitpid(s->pid, &status, WNOHANG);
        if (done == s->pid) {
            code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
            break;
        }
        struct timespec ts = {0, 50L * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    if (code == -1 && waitpid(s->pid, &status, WNOHANG) == 0) {
        kill(s->pid, SIGKILL);
        waitpid(s->pid, &status, 0);
    }
    if (s->out_fd >= 0)
        close(s->out_fd);
    s->pid = 0;
    s->out_fd = -1;
    return code;
}

json_t *server_get_json(const struct server *s, const char *path, const char *headers,
                        int want)
{
    int status = 0;
    char *body = NULL;
    json_error_t jerr;
    json_t *j = NULL;

    assert_int_equal(http_get(SERVER_HOST, s->port, path, headers, &status, &body), 0);
    if (status != want) {
        print_error("GET %s answered %d: %s\n", path, status, body);
    } else {
        j = json_loads(body, 0, &jerr);
        if (j == NULL)
            print_error("GET %s: not JSON (%s): %s\n", path, jerr.text, body);
    }
    free(body); /* before the asserts: a failing one jumps out */
    assert_int_equal(status, want);
    assert_non_null(j);
    bool object = json_is_object(j);
    if (!object)
        json_decref(j);
    assert_true(object);
    return j;
}

static double monotonic_now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void server_await_data(const struct server *s)
{
    const double t0 = monotonic_now_s();

    for (;;) {
        json_t *h = server_get_json(s, "/api/v1/health", NULL, 200);
        const double age = json_number_value(json_object_get(h, "snapshot_age_s"));
        json_decref(h);
        /* The snapshot was read at now - age; 10 ms for its rounding. */
        const double now = monotonic_now_s();
        if (now - age > t0 + 0.01)
            return;
        if (now - t0 > 5.0)
            fail_msg("the server did not read the data version again within 5 s");
        struct timespec ts = {0, 50000000L};
        nanosleep(&ts, NULL);
    }
}

int server_first_group(const struct server *s, char *out, size_t size)
{
    json_t *g = server_get_json(s, "/api/v1/groups", NULL, 200);
    const char *id = json_string_value(
        json_object_get(json_array_get(json_object_get(g, "groups"), 0), "id"));

    out[0] = '\0';
    if (id != NULL)
        snprintf(out, size, "%s", id);
    json_decref(g);
    return out[0] != '\0' ? 0 : -1;
}
