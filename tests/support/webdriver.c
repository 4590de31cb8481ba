/* webdriver.c: a browser for the page tests: chromedriver started here, spoken to in
 * W3C WebDriver's JSON over a plain HTTP/1.1 socket, always killed at the end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "webdriver.h"

#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* A port of 127.0.0.1 free a moment ago (the kernel's choice for port 0). */
static int free_port(void)
{
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    int port = -1, fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

    if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
        getsockname(fd, (struct sockaddr *)&a, &len) == 0)
        port = ntohs(a.sin_port);
    if (fd >= 0)
        close(fd);
    return port;
}

/* method path with body (NULL: none) to chromedriver; the answer's JSON, or NULL when
 * there was none (*status 0). The caller json_decref's. */
static json_t *call(const struct webdriver *wd, const char *method, const char *path,
                    const char *body, int *status)
{
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
                            .sin_port = htons((uint16_t)wd->port)};
    struct timeval tv = {.tv_sec = 120};
    size_t blen = body != NULL ? strlen(body) : 0, cap = 1 << 16, used = 0;
    size_t head = 0, want = SIZE_MAX; /* the answer's body offset and end, once known */
    char req[512];
    char *buf = NULL;
    json_t *answer = NULL;

    *status = 0;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return NULL;
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    int hlen = snprintf(req, sizeof req,
                        "%s %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: close\r\n"
                        "Content-Type: application/json; charset=utf-8\r\n"
                        "Content-Length: %zu\r\n\r\n",
                        method, path, wd->port, blen);
    if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0 ||
        send(fd, req, (size_t)hlen, MSG_NOSIGNAL) != hlen ||
        (blen > 0 && send(fd, body, blen, MSG_NOSIGNAL) != (ssize_t)blen))
        goto out;
    /* chromedriver keeps the connection open whatever the request says: the answer
     * ends where its Content-Length says */
    buf = malloc(cap);
    while (buf != NULL && used < want) {
        if (used + 1 == cap) {
            char *more = realloc(buf, cap *= 2);
            if (more == NULL)
                goto out;
            buf = more;
        }
        ssize_t n = recv(fd, buf + used, cap - used - 1, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        used += (size_t)n;
        buf[used] = '\0';
        const char *end = head == 0 ? strstr(buf, "\r\n\r\n") : NULL;
        if (end != NULL) {
            head = (size_t)(end + 4 - buf);
            for (const char *line = strstr(buf, "\r\n"); line != NULL && line < end;
                 line = strstr(line + 2, "\r\n")) {
                if (strncasecmp(line + 2, "Content-Length:", 15) == 0)
                    want = head + strtoul(line + 17, NULL, 10);
            }
        }
    }
    if (buf == NULL || head == 0 || strncmp(buf, "HTTP/1.", 7) != 0)
        goto out;
    *status = atoi(buf + 9);
    answer = json_loads(buf + head, JSON_DECODE_ANY, NULL);
out:
    free(buf);
    close(fd);
    return answer;
}

/* call() that must answer 200: its "value", which the caller json_decref's. */
static json_t *value_of(const struct webdriver *wd, const char *method, const char *what,
                        const json_t *body)
{
    char path[256], *text = NULL;
    int status = 0;

    snprintf(path, sizeof path, "/session/%s%s", wd->session, what);
    if (body != NULL)
        text = json_dumps(body, JSON_COMPACT | JSON_ENCODE_ANY);
    json_t *answer = call(wd, method, path, text, &status);
    free(text);
    json_t *value = json_incref(json_object_get(answer, "value"));
    if (status != 200) {
        char *shown = answer != NULL ? json_dumps(answer, JSON_COMPACT) : NULL;
        print_error("webdriver %s %s: HTTP %d %.2000s\n", method, what, status,
                    shown != NULL ? shown : "(no answer)");
        free(shown);
        json_decref(answer);
        json_decref(value);
        fail_msg("chromedriver refused %s %s", method, what);
    }
    json_decref(answer);
    return value;
}

static void kill_group(struct webdriver *wd)
{
    if (wd->pid <= 0)
        return;
    kill(-wd->pid, SIGTERM);
    for (int i = 0; i < 50; i++) {
        if (waitpid(wd->pid, NULL, WNOHANG) == wd->pid)
            break;
        struct timespec ms100 = {.tv_nsec = 100000000L};
        nanosleep(&ms100, NULL);
    }
    /* chromium's own processes may outlive chromedriver; they are in its group */
    kill(-wd->pid, SIGKILL);
    waitpid(wd->pid, NULL, WNOHANG);
    wd->pid = 0;
}

int webdriver_start(struct webdriver *wd, const char *work_dir, int width, int height)
{
    static int runs; /* each gets its own profile */
    char log[600], caps[2048];
    int status = 0;

    memset(wd, 0, sizeof *wd);
    if (access(WEBDRIVER_BIN, X_OK) != 0) {
        print_error("%s is missing: run 'make deps' (chromium-driver)\n", WEBDRIVER_BIN);
        return -1;
    }
    snprintf(wd->dir, sizeof wd->dir, "%s/webdriver-%d", work_dir, runs++);
    mkdir(wd->dir, 0700);
    snprintf(log, sizeof log, "%s/chromedriver.log", wd->dir);
    wd->port = free_port();
    char port_arg[32];
    snprintf(port_arg, sizeof port_arg, "--port=%d", wd->port);
    wd->pid = fork();
    if (wd->pid < 0) {
        wd->pid = 0;
        return -1;
    }
    if (wd->pid == 0) {
        setsid(); /* its own group: webdriver_stop kills chromium with it */
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        /* --verbose: the log says which command hung when a test fails */
        execl(WEBDRIVER_BIN, WEBDRIVER_BIN, port_arg, "--verbose", (char *)NULL);
        _exit(127);
    }
    for (int i = 0; i < 200 && status != 200; i++) {
        json_decref(call(wd, "GET", "/status", NULL, &status));
        if (status != 200) {
            struct timespec ms100 = {.tv_nsec = 100000000L};
            nanosleep(&ms100, NULL);
        }
    }
    if (status != 200) {
        print_error("chromedriver did not answer on port %d (see %s)\n", wd->port, log);
        kill_group(wd);
        return -1;
    }
    /* --no-sandbox: the tests run as root, where chromium's sandbox refuses to start */
    snprintf(caps, sizeof caps,
             "{\"capabilities\":{\"alwaysMatch\":{\"browserName\":\"chrome\","
             "\"goog:chromeOptions\":{\"args\":[\"--headless=new\",\"--no-sandbox\","
             "\"--disable-gpu\",\"--disable-dev-shm-usage\",\"--no-first-run\","
             "\"--disable-background-networking\",\"--disable-component-update\","
             "\"--disable-sync\",\"--disable-crash-reporter\",\"--disable-breakpad\","
             "\"--window-size=%d,%d\",\"--user-data-dir=%s/profile\"]},"
             "\"goog:loggingPrefs\":{\"browser\":\"ALL\"},"
             "\"timeouts\":{\"script\":90000,\"pageLoad\":90000}}}}",
             width, height, wd->dir);
    json_t *answer = call(wd, "POST", "/session", caps, &status);
    const char *id =
        json_string_value(json_object_get(json_object_get(answer, "value"), "sessionId"));
    if (status != 200 || id == NULL) {
        char *shown = answer != NULL ? json_dumps(answer, JSON_COMPACT) : NULL;
        print_error("chromedriver made no session: HTTP %d %.2000s\n", status,
                    shown != NULL ? shown : "");
        free(shown);
        json_decref(answer);
        kill_group(wd);
        return -1;
    }
    snprintf(wd->session, sizeof wd->session, "%s", id);
    json_decref(answer);
    return 0;
}

void webdriver_stop(struct webdriver *wd)
{
    int status = 0;
    char path[256];

    if (wd->pid > 0 && wd->session[0] != '\0') {
        snprintf(path, sizeof path, "/session/%s", wd->session);
        json_decref(call(wd, "DELETE", path, NULL, &status));
    }
    wd->session[0] = '\0';
    kill_group(wd);
}

void webdriver_resize(struct webdriver *wd, int width, int height)
{
    json_t *body = json_pack("{s:i,s:i}", "width", width, "height", height);
    json_decref(value_of(wd, "POST", "/window/rect", body));
    json_decref(body);
}

void webdriver_open(struct webdriver *wd, const char *url)
{
    json_t *body = json_pack("{s:s}", "url", url);
    json_decref(value_of(wd, "POST", "/url", body));
    json_decref(body);
}

json_t *webdriver_run(struct webdriver *wd, const char *script, const json_t *args,
                      int async)
{
    json_t *none = json_array();
    json_t *body =
        json_pack("{s:s,s:O}", "script", script, "args", args != NULL ? args : none);
    json_t *v = value_of(wd, "POST", async ? "/execute/async" : "/execute/sync", body);
    json_decref(body);
    json_decref(none);
    return v;
}

json_t *webdriver_console(struct webdriver *wd)
{
    json_t *body = json_pack("{s:s}", "type", "browser");
    json_t *v = value_of(wd, "POST", "/se/log", body);
    json_decref(body);
    return v;
}

size_t webdriver_errors(const json_t *console)
{
    const json_t *e;
    size_t i, n = 0;

    json_array_foreach(console, i, e)
    {
        const char *level = json_string_value(json_object_get(e, "level"));
        if (level != NULL && strcmp(level, "SEVERE") == 0) {
            print_error("console: %s\n",
                        json_string_value(json_object_get(e, "message")));
            n++;
        }
    }
    return n;
}

/* The WebDriver id of the first element css selects; fails the test when none. The
 * caller frees. */
static char *element(struct webdriver *wd, const char *css)
{
    json_t *body = json_pack("{s:s,s:s}", "using", "css selector", "value", css);
    json_t *v = value_of(wd, "POST", "/element", body);
    const char *id = NULL, *key;
    json_t *e;

    json_decref(body);
    json_object_foreach(v, key, e) id = json_string_value(e); /* one key, spec-named */
    char *out = id != NULL ? strdup(id) : NULL;
    json_decref(v);
    if (out == NULL)
        fail_msg("webdriver: no element %s", css);
    return out;
}

void webdriver_type(struct webdriver *wd, const char *css, const char *text)
{
    char *id = element(wd, css), what[300];
    json_t *body = json_pack("{s:s}", "text", text);

    snprintf(what, sizeof what, "/element/%s/value", id);
    json_decref(value_of(wd, "POST", what, body));
    json_decref(body);
    free(id);
}

void webdriver_click(struct webdriver *wd, const char *css)
{
    char *id = element(wd, css), what[300];
    json_t *body = json_object();

    snprintf(what, sizeof what, "/element/%s/click", id);
    json_decref(value_of(wd, "POST", what, body));
    json_decref(body);
    free(id);
}

void webdriver_drag(struct webdriver *wd, int x0, int y0, int x1, int y1)
{
    json_t *body = json_pack(
        "{s:[{s:s,s:s,s:{s:s},s:[{s:s,s:i,s:i,s:s},{s:s,s:i},{s:s,s:i,s:i,s:i,s:s},"
        "{s:s,s:i}]}]}",
        "actions", "type", "pointer", "id", "mouse", "parameters", "pointerType", "mouse",
        "actions", "type", "pointerMove", "x", x0, "y", y0, "origin", "viewport", "type",
        "pointerDown", "button", 0, "type", "pointerMove", "x", x1, "y", y1, "duration",
        200, "origin", "viewport", "type", "pointerUp", "button", 0);
    json_decref(value_of(wd, "POST", "/actions", body));
    json_decref(body);
}

/* The value of one base64 digit, -1 for anything else. */
static int digit64(int c)
{
    static const char set[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const char *at = c != '\0' ? strchr(set, c) : NULL;
    return at != NULL ? (int)(at - set) : -1;
}

void webdriver_screenshot(struct webdriver *wd, const char *path)
{
    json_t *v = value_of(wd, "GET", "/screenshot", NULL);
    const char *b64 = json_string_value(v);
    size_t len = b64 != NULL ? strlen(b64) : 0, o = 0;
    unsigned char *png = malloc(len / 4 * 3 + 3);
    unsigned acc = 0;
    int bits = 0;

    assert_non_null(b64);
    assert_non_null(png);
    for (size_t i = 0; i < len; i++) {
        int d = digit64(b64[i]);
        if (d < 0)
            continue; /* '=' padding */
        acc = (acc << 6) | (unsigned)d;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            png[o++] = (unsigned char)(acc >> bits);
            acc &= (1u << bits) - 1;
        }
    }
    json_decref(v);
    assert_true(o > 8 && memcmp(png, "\x89PNG", 4) == 0);
    assert_int_equal(testutil_write_file(path, (const char *)png, o), 0);
    free(png);
}
