/* cmd_serve.c: `iocontend serve` and `iocontend demo`. */
#include "internal.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

void cmd_serve_help(FILE *fp)
{
    fputs(
        "usage: iocontend serve [--listen ADDR:PORT]\n"
        "Serves the HTTP JSON API (/api/v1/...) and the dashboard page.\n"
        "--listen 127.0.0.1:0 picks a free port; the port is printed as\n"
        "'listening on 127.0.0.1:PORT'. Default: [serve] listen, else 127.0.0.1:8080.\n"
        "Connects as the read-only role [serve] db_user (" DB_READER_ROLE ") and never\n"
        "migrates: while the schema is behind, the data routes answer 503 schema_behind\n"
        "until 'iocontend db migrate'.\n",
        fp);
}

/* Whether address ("127.0.0.1:8080", "[::1]:8080", as serve_run bound it) is a
 * loopback one: 127.0.0.0/8, ::1 or ::ffff:127.0.0.0/104. A wildcard (0.0.0.0, ::)
 * or any other address is not. */
static bool loopback_address(const char *address)
{
    char host[INET6_ADDRSTRLEN + 2];
    const char *end;

    if (address[0] == '[') {
        address++;
        end = strchr(address, ']');
    } else {
        end = strrchr(address, ':');
    }
    if (end == NULL || (size_t)(end - address) >= sizeof host)
        return false;
    memcpy(host, address, (size_t)(end - address));
    host[end - address] = '\0';
    struct in_addr v4;
    struct in6_addr v6;
    if (inet_pton(AF_INET, host, &v4) == 1)
        return (ntohl(v4.s_addr) >> 24) == 127;
    if (inet_pton(AF_INET6, host, &v6) != 1)
        return false;
    if (IN6_IS_ADDR_LOOPBACK(&v6))
        return true;
    return IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127;
}

/* The line a caller waiting for the server reads (tests, scripts); and, when the
 * API is open (no token) on an address other hosts can reach, the risk said once
 * at the start (stderr: the log). arg: the serve_settings. */
static void print_listening(void *arg, const char *address)
{
    const struct serve_settings *s = arg;

    printf("listening on %s\n", address);
    fflush(stdout);
    if (s->token[0] == '\0' && !loopback_address(address)) {
        log_warn("serving on %s with no token: anyone who can reach it reads the API, "
                 "/metrics and the page (job ids, users, executables, paths); set "
                 "[serve] token (or IOCONTEND_TOKEN), or listen on 127.0.0.1 behind a "
                 "proxy that authenticates",
                 address);
    }
}

/* Serves on listen (NULL: [serve] listen) until a signal, or with check_only until
 * health answered; the exit status. */
static int serve(const struct app_config *cfg, const char *listen, bool check_only,
                 void (*on_listening)(void *arg, const char *address))
{
    struct serve_settings s = app_serve_settings(cfg, listen);
    struct error err = {0};

    s.check_only = check_only;
    s.on_listening = on_listening;
    s.arg = &s;
    enum status rc = serve_run(&s, &err);
    if (rc == STATUS_OK)
        return EXIT_OK;
    app_fail(NULL, rc, &err);
    return rc == STATUS_INVALID && strcmp(err.parameter, "listen") == 0
               ? EXIT_USAGE
               : EXIT_UNAVAILABLE;
}

int cmd_serve(struct app_config *cfg, int argc, char **argv)
{
    const char *listen = cfg->listen;
    const struct app_option opts[] = {{"listen", OPT_TEXT, &listen, 0, 0, NULL, 0},
                                      {NULL, OPT_FLAG, NULL, 0, 0, NULL, 0}};
    struct app_options p;

    app_options_init(&p, "serve", opts, cmd_serve_help, argc, argv);
    p.quiet_usage = true;
    if (app_options_all(&p) >= 0)
        return p.status;
    int code = app_db_existing(cfg);
    return code == EXIT_OK ? serve(cfg, listen, false, print_listening) : code;
}

/* The generator sits beside this binary (build/iocontend-gen). */
static enum status sibling_program(const char *name, char *out, size_t size,
                                   struct error *err)
{
    char self[2048];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);

    if (n <= 0)
        return error_set(err, STATUS_INTERNAL, "cannot find this program's path");
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (slash != NULL)
        *slash = '\0';
    snprintf(out, size, "%s/%s", self, name);
    if (access(out, X_OK) != 0)
        return error_set(err, STATUS_NOT_FOUND, "%s not found: run 'make all'", out);
    return STATUS_OK;
}

static int run_program(const char *prog, const char *out_dir)
{
    pid_t pid = fork();
    int status;

    if (pid < 0)
        return -1;
    if (pid == 0) {
        execl(prog, prog, "--out", out_dir, (char *)NULL);
        _exit(127);
    }
    if (waitpid(pid, &status, 0) < 0)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int demo_ingest(const struct app_config *cfg, struct db *db, const char *sample)
{
    char path[4096 + 512];
    struct ingest_summary s;
    struct error err = {0};
    struct ingest_opts o = {.fs_map = &cfg->fs_map,
                            .device_include = cfg->device_include,
                            .device_names =
                                cfg->device_names[0] != '\0' ? cfg->device_names : NULL};
    enum status rc;

    snprintf(path, sizeof path, "%s/darshan", sample);
    char *paths[1] = {path};
    rc = ingest_darshan_paths(db, paths, 1, &o, &s, &err);
    log_info("demo: darshan: %ld files, %ld loaded, %ld skipped, %ld quarantined, %ld "
             "new jobs",
             s.files, s.loaded, s.skipped, s.quarantined, s.jobs);
    ingest_summary_clear(&s);
    if (rc != STATUS_OK) {
        return app_fail("demo: ingest", rc, &err);
    }
    char iostat_dir[4096];
    snprintf(iostat_dir, sizeof iostat_dir, "%s/iostat", sample);
    DIR *d = opendir(iostat_dir);
    if (d == NULL) {
        log_error("demo: %s: %s", iostat_dir, strerror(errno));
        return EXIT_NOINPUT;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        /* One folder per file system, named as the file system. */
        snprintf(path, sizeof path, "%s/%s", iostat_dir, e->d_name);
        o.fs = e->d_name;
        rc = ingest_iostat_paths(db, paths, 1, &o, &s, &err);
        log_info("demo: iostat %s: %ld files, %ld loaded, %ld skipped, %lld new samples",
                 e->d_name, s.files, s.loaded, s.skipped, s.samples);
        ingest_summary_clear(&s);
        if (rc != STATUS_OK) {
            closedir(d);
            return app_fail("demo: ingest", rc, &err);
        }
    }
    closedir(d);
    return EXIT_OK;
}

/* The demo's line once it serves: the page's URL (a wildcard address shown as the
 * loopback one, which reaches it from this machine). */
static void print_demo_ready(void *arg, const char *address)
{
    print_listening(arg, address);
    const char *port = strrchr(address, ':');
    const char *host = strncmp(address, "0.0.0.0:", 8) == 0 ? "127.0.0.1"
                       : strncmp(address, "[::]:", 5) == 0  ? "[::1]"
                                                            : NULL;
    if (host != NULL && port != NULL) {
        printf("demo: ready: the page is at http://%s%s/ (Ctrl-C stops the demo and "
               "its database)\n",
               host, port);
    } else {
        printf("demo: ready: the page is at http://%s/ (Ctrl-C stops the demo and its "
               "database)\n",
               address);
    }
    fflush(stdout);
}

/* The demo starts a PostgreSQL server nobody asked for: a child stops it when the
 * demo ends, however it ends. Ctrl-C during ingest or analyze kills the demo before
 * serve blocks the signal, and the terminal's SIGINT reaches the demo's process
 * group, not the server, which pg_ctl put in a session of its own. The child ignores
 * SIGINT, SIGTERM and SIGHUP and waits for the end of a pipe whose writing end only
 * the demo holds (close-on-exec: pg_ctl and the server never get it). Returns that
 * end, -1 when no child could be made. */
static int stopper_start(const struct db_target *t, pid_t *pid)
{
    int fds[2];

    *pid = -1;
    if (pipe(fds) != 0)
        return -1;
    if (fcntl(fds[1], F_SETFD, FD_CLOEXEC) != 0 ||
        fcntl(fds[0], F_SETFD, FD_CLOEXEC) != 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    /* Nothing buffered is written twice. */
    fflush(stdout);
    fflush(stderr);
    *pid = fork();
    if (*pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (*pid == 0) {
        char c;
        ssize_t n;
        close(fds[1]);
        signal(SIGINT, SIG_IGN);
        signal(SIGTERM, SIG_IGN);
        signal(SIGHUP, SIG_IGN);
        do {
            n = read(fds[0], &c, 1);
        } while (n < 0 && errno == EINTR);
        if (db_embedded_running(t)) {
            struct error err = {0};
            if (db_embedded_stop(t, &err) == STATUS_OK) {
                log_info("demo: stopped the embedded server of %s", t->state_dir);
            } else {
                log_error("demo: could not stop the embedded server (%s); stop it with: "
                          "iocontend --state-dir '%s' db stop",
                          err.msg, t->state_dir);
            }
        }
        _exit(0);
    }
    close(fds[0]);
    return fds[1];
}

/* The demo's normal end: the child stops the server; the demo waits for it, so that
 * the server is gone when the demo returns. */
static void stopper_finish(int fd, pid_t pid)
{
    int status;

    if (fd >= 0)
        close(fd);
    if (pid > 0) {
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            continue;
    }
}

void cmd_demo_help(FILE *fp)
{
    fputs("usage: iocontend demo [--check] [--listen ADDR:PORT]\n"
          "Generates the sample data (in STATE/sample: the state directory of\n"
          "--state-dir, $IOCONTEND_STATE_DIR, [database] state_dir or the default),\n"
          "ingests it through the real parsers, analyses it and serves the API and\n"
          "the page on --listen (default: [serve] listen, else 127.0.0.1:8080; e.g.\n"
          "0.0.0.0:8080 for other machines), printing the page's URL when ready.\n"
          "Ctrl-C (SIGINT) or SIGTERM stops it and the embedded server it started.\n"
          "--check exits 0 as soon as the API answers.\n",
          fp);
}

static int demo_run(struct app_config *cfg, struct db_target *t, bool check,
                    const char *listen);

int cmd_demo(struct app_config *cfg, int argc, char **argv)
{
    bool check = false;
    const char *listen = NULL;
    const struct app_option opts[] = {{"check", OPT_FLAG, &check, 0, 0, NULL, 0},
                                      {"listen", OPT_TEXT, &listen, 0, 0, NULL, 0},
                                      {NULL, OPT_FLAG, NULL, 0, 0, NULL, 0}};
    struct app_options p;
    struct db_target t;
    struct error err = {0};

    app_options_init(&p, "demo", opts, cmd_demo_help, argc, argv);
    p.quiet_usage = true;
    if (app_options_all(&p) >= 0)
        return p.status;
    const struct db_state_opts state = app_state_opts(cfg);
    enum status resolved = db_target_resolve(cfg->db_arg, &state, &t, &err);
    if (resolved == STATUS_OK && t.state_dir[0] == '\0')
        resolved = error_set(&err, STATUS_INVALID, "no state directory for the sample");
    if (resolved != STATUS_OK)
        return app_fail("demo", resolved, &err);
    /* The embedded server's checks make the state directory safely; a configured
     * server's demo only needs the folder. */
    if (t.embedded) {
        resolved = db_embedded_init(&t, &err);
        if (resolved != STATUS_OK)
            return app_fail("demo", resolved, &err);
    } else if (mkdir(t.state_dir, 0755) != 0 && errno != EEXIST) {
        log_error("demo: cannot create %s: %s", t.state_dir, strerror(errno));
        return EXIT_CANTCREAT;
    }
    /* A server running before the demo (a serve of the same state directory, say) is
     * not the demo's to stop. */
    pid_t stopper = -1;
    int stopper_fd = -1;
    bool ours = t.embedded && !db_embedded_running(&t);
    if (ours) {
        stopper_fd = stopper_start(&t, &stopper);
        if (stopper_fd < 0) {
            log_warn("demo: cannot watch the embedded server (%s): once stopped, stop "
                     "it with: iocontend --state-dir '%s' db stop",
                     strerror(errno), t.state_dir);
        }
    }
    int code = demo_run(cfg, &t, check, listen);
    if (ours) {
        stopper_finish(stopper_fd, stopper);
    } else if (t.embedded) {
        log_info("demo: the embedded server of %s was running before the demo and is "
                 "left running (iocontend --state-dir '%s' db stop stops it)",
                 t.state_dir, t.state_dir);
    }
    return code;
}

/* The demo once its state directory is ready: the sample, ingest, analyze, serve. */
static int demo_run(struct app_config *cfg, struct db_target *tp, bool check,
                    const char *listen)
{
    const struct db_target t = *tp;
    char sample[2048], conf[2048 + 32], gen[4096];
    struct error err = {0};
    struct db *db = NULL;

    snprintf(sample, sizeof sample, "%s/sample", t.state_dir);
    snprintf(conf, sizeof conf, "%s/iocontend.conf", sample);
    if (access(conf, R_OK) != 0) {
        if (sibling_program("iocontend-gen", gen, sizeof gen, &err) != STATUS_OK) {
            log_error("demo: %s", err.msg);
            return EXIT_SOFTWARE;
        }
        log_info("demo: generating the sample data in %s", sample);
        if (run_program(gen, sample) != 0) {
            log_error("demo: %s failed", gen);
            return EXIT_SOFTWARE;
        }
    }
    if (cfg->fs_map.n == 0 && app_config_read(cfg, conf, &err) != STATUS_OK) {
        log_error("demo: %s: %s", conf, err.msg);
        return EXIT_SOFTWARE;
    }
    /* The server starts here: a Ctrl-C while pg_ctl starts it would leave it starting
     * after the demo and its stopper are gone. Held until it answers, the signal
     * then ends the demo, and the stopper finds the server to stop. */
    sigset_t stop_signals, old_mask;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGINT);
    sigaddset(&stop_signals, SIGTERM);
    sigaddset(&stop_signals, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &stop_signals, &old_mask);
    int code = app_db_create(cfg, &db);
    pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
    if (code != EXIT_OK)
        return code;
    code = demo_ingest(cfg, db, sample);
    if (code == EXIT_OK || code == EXIT_PARTIAL) {
        /* Exclusions are facts about the data, not a demo failure: only a run that
         * did not finish stops the demo. The sweep too, so that
         * /api/v1/groups/{id}/sweep answers. */
        const struct analysis_settings settings = app_analysis_settings(cfg);
        const struct analyze_select all = {0};
        struct analyze_summary sum;
        enum status rc = analyze_run(db, &settings, NULL, 0, &all, NULL, &sum, &err);
        if (rc == STATUS_OK)
            rc = analyze_sweep_run(db, &settings, NULL, &all, NULL, &sum, &err);
        code = rc == STATUS_OK ? EXIT_OK : app_fail("demo: analyze", rc, &err);
    }
    db_close(db);
    if (code != EXIT_OK)
        return code;
    if (listen == NULL && check)
        listen = "127.0.0.1:0";
    fflush(stdout);
    return serve(cfg, listen, check, check ? print_listening : print_demo_ready);
}
