/* sadf.c: sysstat's binary sa files (saDD) through Debian's sadf itself, never a
 * reader of ours: the file's bytes (decompressed already, when they came
 * compressed) are handed to `sadf -j /dev/stdin -- -d` on a memory file (sadf
 * seeks in its input: a pipe will not do), and its JSON goes to the sadf -j parser
 * of iostat.c. An sa file of an older sysstat is converted by `sadf -c` first, in
 * memory too. sadf runs by fork and exec (no shell), with a time limit, its output
 * bounded by the size cap and its stderr kept for the message. */
#include "../internal.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/memfd.h>
#include <linux/sched.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* What sadf may take over one file: a day of 1 s records converts in seconds. */
#define SADF_TIMEOUT_S 120
/* sadf reads an untrusted file: its memory, CPU time and core dumps are bounded so
 * that a hostile file cannot take the machine (or the OOM killer take us). */
#define SADF_MAX_AS_BYTES ((rlim_t)2 << 30)
/* sa files of sysstat 12.x (Debian 12's 12.6.1) are of this format; a larger one
 * is of a newer sysstat. */
#define SA_FORMAT_12 0x2175
#define SA_MAGIC     0xd596
/* The exit status of a child that could not hide this host's /sys from sadf. */
#define SADF_NOT_ISOLATED 125

/* The first bytes of an sa file (sysstat's struct file_magic). */
struct sa_magic {
    unsigned format;                   /* format_magic, in the file's byte order */
    unsigned version, patch, sublevel; /* the sysstat that wrote it */
};

static bool sa_magic_read(const unsigned char *b, size_t n, struct sa_magic *m)
{
    bool little;

    if (n < 8)
        return false;
    if (b[0] == (SA_MAGIC & 0xFF) && b[1] == SA_MAGIC >> 8) {
        little = true;
    } else if (b[0] == SA_MAGIC >> 8 && b[1] == (SA_MAGIC & 0xFF)) {
        little = false;
    } else {
        return false;
    }
    m->format = little ? (unsigned)b[2] | (unsigned)b[3] << 8
                       : (unsigned)b[3] | (unsigned)b[2] << 8;
    m->version = b[4];
    m->patch = b[5];
    m->sublevel = b[6];
    /* Every sa format since sysstat 8 starts 0x21..: anything else is not one. */
    return (m->format >> 8) == 0x21;
}

bool sa_is_file(const unsigned char *data, size_t len)
{
    struct sa_magic m;
    return sa_magic_read(data, len, &m);
}

/* The sadf on PATH into out; false when there is none. */
static bool find_sadf(char *out, size_t size)
{
    const char *path = getenv("PATH");
    const char *p = path != NULL && path[0] != '\0' ? path : "/usr/bin:/bin";

    while (*p != '\0') {
        size_t n = strcspn(p, ":");
        if (n > 0 && (size_t)snprintf(out, size, "%.*s/sadf", (int)n, p) < size &&
            access(out, X_OK) == 0)
            return true;
        p += n;
        if (*p == ':')
            p++;
    }
    return false;
}

/* A file in memory holding data[0, len) (a deleted file in a private directory
 * where memory files are not to be had), read from its start; -1 with err set. */
static int stage(const char *data, size_t len, const char *path, struct error *err)
{
    int fd = (int)syscall(SYS_memfd_create, "iocontend-sa", (unsigned)MFD_CLOEXEC);

    if (fd < 0) {
        const char *tmp = getenv("TMPDIR");
        char dir[512], file[600];
        snprintf(dir, sizeof dir, "%s/iocontend-sa-XXXXXX",
                 tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
        if (mkdtemp(dir) == NULL) {
            error_at(err, STATUS_NOT_FOUND, path, 0, "no room for sadf's input: %s",
                     strerror(errno));
            return -1;
        }
        snprintf(file, sizeof file, "%s/sa", dir);
        fd = open(file, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        /* Gone by name at once: nothing is left behind, whatever happens next. */
        unlink(file);
        rmdir(dir);
        if (fd < 0) {
            error_at(err, STATUS_NOT_FOUND, path, 0, "no room for sadf's input: %s",
                     strerror(errno));
            return -1;
        }
    }
    for (size_t done = 0; done < len;) {
        ssize_t w = write(fd, data + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            error_at(err, STATUS_NOT_FOUND, path, 0, "no room for sadf's input: %s",
                     w < 0 ? strerror(errno) : "short write");
            close(fd);
            return -1;
        }
        done += (size_t)w;
    }
    if (lseek(fd, 0, SEEK_SET) != 0) {
        error_at(err, STATUS_NOT_FOUND, path, 0, "sadf's input: %s", strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

/* What one run of sadf gave. */
struct run {
    char *out;       /* what sadf printed, owned, NUL-terminated */
    size_t len, cap; /* cap: bytes at out */
    char msg[512];   /* the start of its error output */
    size_t msg_len;
    int status;     /* waitpid's, when reaped */
    bool reaped;    /* waitpid said how it ended */
    bool timed_out; /* killed at the time limit */
    bool too_large; /* its output passed max: killed */
    bool nomem;     /* no memory for its output: killed */
};

/* Spawns serialised: a pipe is made close-on-exec before another thread forks. */
static pthread_mutex_t spawn_lock = PTHREAD_MUTEX_INITIALIZER;

/* In the child, before sadf: this host's /sys out of its sight, in a mount namespace
 * of its own. Mounts copied into a namespace owned by a new user namespace are
 * slaves (mount_namespaces(7)): the empty /sys mounted there never reaches the host.
 * Where user namespaces are refused (a chroot) but we are root, /sys is made private
 * in a new mount namespace and detached there. false: /sys/dev/block stays in sight. */
static bool hide_sys(void)
{
    if (syscall(SYS_unshare, CLONE_NEWUSER | CLONE_NEWNS) == 0) {
        return mount("none", "/sys", "tmpfs",
                     MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=4k") == 0;
    }
    if (syscall(SYS_unshare, CLONE_NEWNS) == 0 &&
        mount(NULL, "/sys", NULL, MS_REC | MS_PRIVATE, NULL) == 0)
        return umount2("/sys", MNT_DETACH) == 0;
    return access("/sys/dev/block", F_OK) != 0;
}

/* Forks sadf with words (its argument vector), in_fd as its standard input; pipes for
 * its output and its messages, whose reading ends go to *out_fd and *err_fd. isolate:
 * sadf runs in mount and user namespaces of its own with an empty /sys, so that it
 * names devices as on any host (devname.c); the child exits SADF_NOT_ISOLATED where
 * the kernel refuses them. */
static pid_t spawn(const char *sadf, const char *const words[], int in_fd, bool isolate,
                   int *out_fd, int *err_fd)
{
    static const char *const envp[] = {"LC_ALL=C", "TZ=UTC", NULL};
    const char *const *envp_c = envp;
    int po[2] = {-1, -1}, pe[2] = {-1, -1};
    pid_t pid = -1;

    /* exec takes char *const[]: the strings are never written. */
    char *const *args = NULL, *const *env = NULL;
    memcpy(&args, &words, sizeof args);
    memcpy(&env, &envp_c, sizeof env);

    pthread_mutex_lock(&spawn_lock);
    if (pipe(po) == 0 && pipe(pe) == 0) {
        for (int i = 0; i < 2; i++) {
            (void)fcntl(po[i], F_SETFD, FD_CLOEXEC);
            (void)fcntl(pe[i], F_SETFD, FD_CLOEXEC);
        }
        pid = fork();
        if (pid == 0) {
            /* The child: async-signal-safe calls only (the parent has threads). */
            const struct rlimit as = {SADF_MAX_AS_BYTES, SADF_MAX_AS_BYTES};
            const struct rlimit cpu = {SADF_TIMEOUT_S + 1, SADF_TIMEOUT_S + 1};
            const struct rlimit core = {0, 0};
            if (dup2(in_fd, 0) < 0 || dup2(po[1], 1) < 0 || dup2(pe[1], 2) < 0 ||
                setrlimit(RLIMIT_AS, &as) != 0 || setrlimit(RLIMIT_CPU, &cpu) != 0 ||
                setrlimit(RLIMIT_CORE, &core) != 0)
                _exit(126);
            if (isolate && !hide_sys())
                _exit(SADF_NOT_ISOLATED);
            execve(sadf, args, env);
            _exit(127);
        }
    }
    pthread_mutex_unlock(&spawn_lock);
    if (po[1] >= 0)
        close(po[1]);
    if (pe[1] >= 0)
        close(pe[1]);
    if (pid < 0) {
        if (po[0] >= 0)
            close(po[0]);
        if (pe[0] >= 0)
            close(pe[0]);
        return -1;
    }
    *out_fd = po[0];
    *err_fd = pe[0];
    return pid;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Reads what is ready on fd into r (stdout when is_out, else stderr's start);
 * false at its end. */
static bool drain(int fd, bool is_out, size_t max, struct run *r)
{
    char buf[65536];
    ssize_t n = read(fd, buf, sizeof buf);

    if (n < 0)
        return errno == EINTR || errno == EAGAIN;
    if (n == 0)
        return false;
    if (!is_out) {
        size_t room = sizeof r->msg - 1 - r->msg_len;
        size_t take = (size_t)n < room ? (size_t)n : room;
        memcpy(r->msg + r->msg_len, buf, take);
        r->msg_len += take;
        r->msg[r->msg_len] = '\0';
        return true;
    }
    if (r->len + (size_t)n > max) {
        r->too_large = true;
        return false;
    }
    if (r->len + (size_t)n + 1 > r->cap) {
        size_t cap = r->cap > 0 ? r->cap : 262144;
        while (cap < r->len + (size_t)n + 1)
            cap *= 2;
        char *p = realloc(r->out, cap);
        if (p == NULL) {
            r->nomem = true;
            return false;
        }
        r->out = p;
        r->cap = cap;
    }
    memcpy(r->out + r->len, buf, (size_t)n);
    r->len += (size_t)n;
    r->out[r->len] = '\0';
    return true;
}

/* Runs sadf with words on in_fd (isolated or not, see spawn); STATUS_OK once it ran
 * (r says how it ended), STATUS_NOMEM, STATUS_NOT_FOUND when it cannot be started. */
static enum status run_once(const char *sadf, const char *const words[], int in_fd,
                            bool isolate, size_t max, const char *path, struct run *r,
                            struct error *err)
{
    int fds[2];
    pid_t pid = spawn(sadf, words, in_fd, isolate, &fds[0], &fds[1]);
    bool open_fd[2] = {true, true};
    double deadline = now_s() + SADF_TIMEOUT_S;

    memset(r, 0, sizeof *r);
    if (pid < 0) {
        return error_at(err, STATUS_NOT_FOUND, path, 0, "cannot run sadf: %s",
                        strerror(errno));
    }
    while ((open_fd[0] || open_fd[1]) && !r->timed_out && !r->too_large && !r->nomem) {
        struct pollfd p[2];
        nfds_t n = 0;
        int which[2];
        for (int i = 0; i < 2; i++) {
            if (open_fd[i]) {
                p[n] = (struct pollfd){.fd = fds[i], .events = POLLIN};
                which[n++] = i;
            }
        }
        double left = deadline - now_s();
        if (left <= 0) {
            r->timed_out = true;
            break;
        }
        int ready = poll(p, n, (int)(left * 1000) + 1);
        if (ready < 0 && errno != EINTR)
            break;
        for (nfds_t k = 0; ready > 0 && k < n; k++) {
            if ((p[k].revents & (POLLIN | POLLHUP | POLLERR)) == 0)
                continue;
            if (!drain(fds[which[k]], which[k] == 0, max, r)) {
                close(fds[which[k]]);
                open_fd[which[k]] = false;
            }
        }
    }
    for (int i = 0; i < 2; i++) {
        if (open_fd[i])
            close(fds[i]);
    }
    /* One that closed its output and runs on is killed at the time limit too. */
    while (!r->timed_out && !r->too_large && !r->nomem) {
        pid_t got = waitpid(pid, &r->status, WNOHANG);
        if (got == pid || (got < 0 && errno != EINTR)) {
            r->reaped = got == pid;
            break;
        }
        if (now_s() >= deadline) {
            r->timed_out = true;
            break;
        }
        struct timespec tick = {0, 10000000L}; /* 10 ms */
        nanosleep(&tick, NULL);
    }
    if (r->timed_out || r->too_large || r->nomem) {
        kill(pid, SIGKILL);
        int got;
        while ((got = waitpid(pid, &r->status, 0)) < 0 && errno == EINTR) {
        }
        r->reaped = got == pid;
    }
    if (r->nomem) {
        free(r->out);
        r->out = NULL;
        return error_set(err, STATUS_NOMEM, "sadf's output of %s", path);
    }
    return STATUS_OK;
}

/* run_once isolated; where the kernel gives no namespaces, once more as it is, with a
 * warning: the devices are then named as this host names them. */
static enum status run_sadf(const char *sadf, const char *const words[], int in_fd,
                            size_t max, const char *path, struct run *r,
                            struct error *err)
{
    enum status rc = run_once(sadf, words, in_fd, true, max, path, r, err);

    if (rc != STATUS_OK || !r->reaped || !WIFEXITED(r->status) ||
        WEXITSTATUS(r->status) != SADF_NOT_ISOLATED)
        return rc;
    log_warn("%s: sadf cannot run apart from this host's /sys (no user namespaces): "
             "its devices are named as this host names them",
             path);
    free(r->out);
    r->out = NULL;
    if (lseek(in_fd, 0, SEEK_SET) != 0) {
        return error_at(err, STATUS_NOT_FOUND, path, 0, "sadf's input: %s",
                        strerror(errno));
    }
    return run_once(sadf, words, in_fd, false, max, path, r, err);
}

/* The first line of sadf's message, for an error. */
static const char *first_line(struct run *r)
{
    r->msg[strcspn(r->msg, "\n")] = '\0';
    return r->msg[0] != '\0' ? r->msg : "no message";
}

/* What a run that did not succeed means, in err. */
static enum status run_failed(const struct run *r_in, const char *what, const char *path,
                              size_t max, struct error *err)
{
    struct run r = *r_in;

    if (r.timed_out) {
        return error_at(err, STATUS_PARSE, path, 0, "%s did not finish in %d s", what,
                        SADF_TIMEOUT_S);
    }
    if (!r.reaped) {
        return error_at(err, STATUS_INTERNAL, path, 0, "%s: cannot tell how it ended: %s",
                        what, strerror(errno));
    }
    if (r.too_large) {
        return error_at(err, STATUS_PARSE, path, 0,
                        "too large: %s printed more than %zu bytes ([ingest] "
                        "max_file_bytes)",
                        what, max);
    }
    if (WIFSIGNALED(r.status)) {
        return error_at(err, STATUS_PARSE, path, 0, "%s died of signal %d: %.80s", what,
                        WTERMSIG(r.status), first_line(&r));
    }
    return error_at(err, STATUS_PARSE, path, 0, "%s exited %d: %.100s", what,
                    WEXITSTATUS(r.status), first_line(&r));
}

static bool run_ok(const struct run *r)
{
    return r->reaped && !r->timed_out && !r->too_large && WIFEXITED(r->status) &&
           WEXITSTATUS(r->status) == 0;
}

/* The version of the sadf at path ("sysstat version 12.6.1" from sadf -V) into
 * have; false when it cannot be told. fd: any readable file for its input. */
static bool sadf_version(const char *sadf, int fd, unsigned have[3])
{
    static const char *const words_v[] = {"sadf", "-V", NULL};
    struct run r;
    struct error ignored = {0};
    static const char lead[] = "sysstat version ";
    bool ok = run_sadf(sadf, words_v, fd, 4096, "sadf -V", &r, &ignored) == STATUS_OK &&
              run_ok(&r) && r.out != NULL && strncmp(r.out, lead, sizeof lead - 1) == 0;
    const char *s = ok ? r.out + sizeof lead - 1 : "";

    for (int i = 0; ok && i < 3; i++) {
        char *end;
        unsigned long v = strtoul(s, &end, 10);
        ok = end != s && v < 1000 && (i == 2 || *end == '.');
        have[i] = (unsigned)v;
        s = end + 1;
    }
    free(r.out);
    return ok;
}

/* Whether the sysstat that wrote m is later than have. */
static bool version_after(const struct sa_magic *m, const unsigned have[3])
{
    const unsigned file[3] = {m->version, m->patch, m->sublevel};

    for (int i = 0; i < 3; i++) {
        if (file[i] != have[i])
            return file[i] > have[i];
    }
    return false;
}

enum status sa_to_json(const char *data, size_t len, const char *path, size_t max,
                       char **json, size_t *json_len, struct error *err)
{
    /* No -p: sadf would name devices from this host's /sys (see devname.c). */
    static const char *const words_j[] = {"sadf", "-j", "/dev/stdin", "--", "-d", NULL};
    static const char *const words_c[] = {"sadf", "-c", "/dev/stdin", NULL};
    char sadf[1024];
    struct sa_magic m;
    struct run r;
    int fd;
    enum status rc;

    *json = NULL;
    *json_len = 0;
    if (!sa_magic_read((const unsigned char *)data, len, &m))
        return error_at(err, STATUS_PARSE, path, 0, "expected an sa file's magic");
    if (!find_sadf(sadf, sizeof sadf)) {
        return error_at(err, STATUS_NOT_FOUND, path, 0,
                        "an sa file needs sadf, not found on PATH: install Debian's "
                        "sysstat package (apt-get install sysstat)");
    }
    fd = stage(data, len, path, err);
    if (fd < 0)
        return err != NULL ? err->code : STATUS_NOT_FOUND;
    rc = run_sadf(sadf, words_j, fd, max, path, &r, err);
    if (rc == STATUS_OK && !run_ok(&r) &&
        strstr(r.msg, "cannot read the format") != NULL) {
        unsigned have[3];
        if (m.format > SA_FORMAT_12 && sadf_version(sadf, fd, have) &&
            !version_after(&m, have)) {
            free(r.out);
            close(fd);
            return error_at(err, STATUS_PARSE, path, 0,
                            "an sa file whose header says format %#x of sysstat "
                            "%u.%u.%u, which this sadf (%u.%u.%u) would read: not "
                            "that sysstat's file",
                            m.format, m.version, m.patch, m.sublevel, have[0], have[1],
                            have[2]);
        }
        if (m.format > SA_FORMAT_12) {
            free(r.out);
            close(fd);
            return error_at(err, STATUS_NOT_FOUND, path, 0,
                            "an sa file of sysstat %u.%u.%u (format %#x), newer than "
                            "this sadf reads: it needs sysstat %u.%u.%u or later "
                            "(Debian 12 has 12.6.1)",
                            m.version, m.patch, m.sublevel, m.format, m.version, m.patch,
                            m.sublevel);
        }
        /* An older format: sadf -c writes it anew, then sadf -j reads that. */
        free(r.out);
        rc = run_sadf(sadf, words_c, fd, max, path, &r, err);
        if (rc == STATUS_OK && !run_ok(&r)) {
            rc = run_failed(&r, "sadf -c", path, max, err);
        } else if (rc == STATUS_OK) {
            int fd2 = stage(r.out != NULL ? r.out : "", r.len, path, err);
            free(r.out);
            r.out = NULL;
            rc = fd2 < 0 ? STATUS_NOT_FOUND
                         : run_sadf(sadf, words_j, fd2, max, path, &r, err);
            if (fd2 >= 0)
                close(fd2);
        }
    }
    close(fd);
    if (rc == STATUS_OK && !run_ok(&r))
        rc = run_failed(&r, "sadf -j", path, max, err);
    if (rc == STATUS_OK && r.out == NULL)
        rc = error_at(err, STATUS_PARSE, path, 0, "sadf -j printed nothing");
    if (rc != STATUS_OK) {
        free(r.out);
        return rc;
    }
    *json = r.out;
    *json_len = r.len;
    return STATUS_OK;
}

enum status sa_samples_after(const char *json, size_t len, const char *path,
                             const struct iostat_parse_opts *opts, const int64_t *after_s,
                             struct iostat_data **out, struct error *err)
{
    void *bytes = NULL;
    memcpy(&bytes, &json, sizeof bytes); /* fmemopen's "r" only reads */
    FILE *fp = fmemopen(bytes, len, "r");
    struct iostat_data *d = NULL;
    enum status rc;

    *out = NULL;
    if (fp == NULL)
        return error_set(err, STATUS_NOMEM, "reading %s", path);
    /* sadf runs with TZ=UTC and -j marks its stamps "utc": the zone is never needed */
    const struct iostat_parse_opts po = {.device_include = opts->device_include,
                                         .device_names = opts->device_names,
                                         .mtime_s = opts->mtime_s,
                                         .now_s = INT64_MAX};
    rc = ingest_iostat_parse_from(fp, path, &po, NULL, &d, err);
    fclose(fp);
    if (rc != STATUS_OK)
        return rc;
    if (d->resume.format != IOSTAT_FORMAT_JSON) {
        iostat_data_free(d);
        return error_at(err, STATUS_PARSE, path, 0, "expected sadf -j output (JSON)");
    }
    if (after_s != NULL) {
        size_t k = 0;
        for (size_t i = 0; i < d->n; i++) {
            if (d->samples[i].stamp_s > *after_s)
                d->samples[k++] = d->samples[i];
        }
        d->n = k;
    }
    *out = d;
    return STATUS_OK;
}
