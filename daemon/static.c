/* static.c: the dashboard page's files: where they are, what they are, and never a
 * file outside their folder. */
#include "internal.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *content_type_of(const char *name)
{
    static const char *const types[][2] = {
        {".html", "text/html; charset=utf-8"},
        {".css", "text/css; charset=utf-8"},
        {".js", "text/javascript; charset=utf-8"},
        {".mjs", "text/javascript; charset=utf-8"},
        {".json", JSON_CONTENT_TYPE},
        {".map", JSON_CONTENT_TYPE},
        {".svg", "image/svg+xml"},
        {".png", "image/png"},
        {".jpg", "image/jpeg"},
        {".jpeg", "image/jpeg"},
        {".ico", "image/x-icon"},
        {".txt", "text/plain; charset=utf-8"},
        {".csv", "text/csv; charset=utf-8"},
        {".woff2", "font/woff2"},
    };
    const char *dot = strrchr(name, '.');

    for (size_t i = 0; dot != NULL && i < sizeof types / sizeof types[0]; i++) {
        if (strcasecmp(dot, types[i][0]) == 0)
            return types[i][1];
    }
    return "application/octet-stream";
}

/* Whether rel may be joined to a folder: nothing that could leave it or reach hidden
 * files: "..", absolute paths, empty components, dot files, backslashes. */
static bool rel_ok(const char *rel)
{
    return rel[0] != '\0' && rel[0] != '/' && rel[0] != '.' &&
           strstr(rel, "..") == NULL && strstr(rel, "//") == NULL &&
           strstr(rel, "/.") == NULL && strchr(rel, '\\') == NULL;
}

/* The regular file at path opened for reading, its size in *size; -1 when none. */
static int open_regular(const char *path, int flags, off_t *size)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC | flags);
    if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
        close(fd);
        fd = -1;
    }
    if (fd >= 0)
        *size = st.st_size;
    return fd;
}

/* rel is the path under the page's folder, already percent-decoded. */
void route_static(struct server *srv, struct request *req, const struct route_args *a)
{
    const char *rel = a->rest;
    char path[PATH_MAX + 256];
    off_t size = 0;
    int fd = -1;

    if (srv->web_dir[0] != '\0' && rel_ok(rel) &&
        snprintf(path, sizeof path, "%s/%s", srv->web_dir, rel) < (int)sizeof path)
        fd = open_regular(path, 0, &size);
    if (fd < 0) {
        answer_error(req, STATUS_NOT_FOUND, NULL, "no file %s", rel);
        return;
    }
    req->code = 200;
    req->file_fd = fd;
    req->file_size = size;
    req->content_type = content_type_of(rel);
}

/* The folders of SERVE_JS_DIR the page may load: Vega and what it needs. */
static const char *const js_packages[] = {"vega/", "requirejs/", "topojson-client/"};

const char *serve_js_dir(void)
{
    const char *env = getenv("IOCONTEND_JS_DIR");
    return env != NULL && env[0] != '\0' ? env : SERVE_JS_DIR;
}

int serve_js_open(const char *rel, off_t *size, struct error *err)
{
    const char *dir = serve_js_dir();
    char pkg[PATH_MAX], real_pkg[PATH_MAX], path[PATH_MAX + 256], real[PATH_MAX];
    const char *ext = strrchr(rel, '.');
    size_t i = 0, n = 0;

    while (i < sizeof js_packages / sizeof js_packages[0] &&
           strncmp(rel, js_packages[i], n = strlen(js_packages[i])) != 0)
        i++;
    if (i == sizeof js_packages / sizeof js_packages[0] || !rel_ok(rel) || ext == NULL ||
        strcmp(ext, ".js") != 0 || strchr(rel + n, '/') != NULL) {
        error_set(err, STATUS_NOT_FOUND, "no library file %s", rel);
        return -1;
    }
    /* The file, symbolic links resolved, must still lie in its package's folder:
     * a link out of it is refused as if absent. */
    snprintf(pkg, sizeof pkg, "%s/%.*s", dir, (int)(n - 1), rel);
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    size_t len = 0;
    bool inside = realpath(pkg, real_pkg) != NULL && realpath(path, real) != NULL &&
                  strncmp(real, real_pkg, len = strlen(real_pkg)) == 0 &&
                  real[len] == '/';
    /* O_NOFOLLOW: a link put in its place since realpath is not followed either */
    int fd = inside ? open_regular(real, O_NOFOLLOW, size) : -1;
    if (fd < 0)
        error_set(err, STATUS_NOT_FOUND, "no library file %s under %s", rel, dir);
    return fd;
}

void route_lib(struct server *srv, struct request *req, const struct route_args *a)
{
    const char *rel = a->rest;

    (void)srv;
    struct error err = {0};
    off_t size = 0;
    int fd = serve_js_open(rel, &size, &err);

    if (fd < 0) {
        answer_error(req, STATUS_NOT_FOUND, NULL, "%s", err.msg);
        return;
    }
    req->code = 200;
    req->file_fd = fd;
    req->file_size = size;
    req->content_type = content_type_of(rel);
}

static bool page_in(const char *dir, char *out, size_t size)
{
    char index[PATH_MAX + 32];

    int n = snprintf(index, sizeof index, "%s/index.html", dir);
    if (n < 0 || (size_t)n >= sizeof index || access(index, R_OK) != 0 ||
        realpath(dir, out) == NULL)
        return false;
    (void)size; /* out is PATH_MAX, what realpath needs */
    return true;
}

void serve_web_dir_find(char out[PATH_MAX])
{
    const char *env = getenv("IOCONTEND_WEB_DIR");
    char dir[PATH_MAX], candidate[PATH_MAX + 32];
    ssize_t n;

    out[0] = '\0';
    if (env != NULL && env[0] != '\0') {
        if (!page_in(env, out, PATH_MAX))
            log_warn("IOCONTEND_WEB_DIR=%s holds no readable index.html", env);
        return;
    }
    n = readlink("/proc/self/exe", dir, sizeof dir - 1);
    if (n <= 0)
        return;
    dir[n] = '\0';
    for (char *slash = strrchr(dir, '/'); slash != NULL; slash = strrchr(dir, '/')) {
        *slash = '\0';
        snprintf(candidate, sizeof candidate, "%s/web", dir);
        if (page_in(candidate, out, PATH_MAX))
            return;
        snprintf(candidate, sizeof candidate, "%s/share/iocontend/web", dir);
        if (page_in(candidate, out, PATH_MAX))
            return;
    }
}
