/* static.c: the dashboard page's files: where they are, what they are, and never a
 * file outside their folder. */
#include "internal.h"

#include <fcntl.h>
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

/* rel is the path under the page's folder, already percent-decoded. */
void route_static(const struct server *srv, struct request *req, const char *rel)
{
    char path[PATH_MAX + 256];
    struct stat st;

    /* Refuse anything that could leave the folder or reach hidden files: "..",
     * absolute paths, empty components, dot files. */
    if (srv->web_dir[0] == '\0' || rel[0] == '\0' || rel[0] == '/' || rel[0] == '.' ||
        strstr(rel, "..") != NULL || strstr(rel, "//") != NULL ||
        strstr(rel, "/.") != NULL || strchr(rel, '\\') != NULL) {
        answer_error(req, STATUS_NOT_FOUND, NULL, "no file %s", rel);
        return;
    }
    snprintf(path, sizeof path, "%s/%s", srv->web_dir, rel);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        if (fd >= 0)
            close(fd);
        answer_error(req, STATUS_NOT_FOUND, NULL, "no file %s", rel);
        return;
    }
    req->code = 200;
    req->file_fd = fd;
    req->file_size = st.st_size;
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

/* The page's folder: $IOCONTEND_WEB_DIR, else the first web/ holding index.html
 * from the binary's folder upwards (build/iocontend finds ../web in the source
 * tree), else share/iocontend/web beside an installed bin/. */
void find_web_dir(char out[PATH_MAX])
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
