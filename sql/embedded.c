/* embedded.c: the embedded server's life: its user and conninfo, init (its
 * directories, initdb, the authentication files), start, stop, running, and whether
 * a target's data directory is there. Which server a command talks to is target.c's,
 * which calls these; nothing here calls back. */
#include "internal.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <libpq-fe.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define EMBEDDED_PORT   5432
#define EMBEDDED_DBNAME "iocontend"
#define EMBEDDED_USER   "postgres"
#define SOCKET_GROUP    "iocontend"
#define IDENT_MAP       "iocontend"
/* The system user a service runs serve as: mapped to the read-only role only. */
#define SERVICE_USER "iocontend"

/* The embedded server runs as postgres when we are root (PostgreSQL refuses root),
 * else as us; a data directory made earlier by the other one keeps its owner. Any
 * other owner is not accepted: requirepeer then names the expected user and the
 * connection fails. */
static void server_user_for(struct db_target *t)
{
    struct passwd *pw = getpwnam(EMBEDDED_USER);
    /* getpwnam and getpwuid share one buffer: the uid is copied out first. */
    bool pg_known = pw != NULL;
    uid_t pg_uid = pg_known ? pw->pw_uid : 0;
    bool as_pg = geteuid() == 0;
    struct stat st;

    if (lstat(t->data_dir, &st) == 0 && S_ISDIR(st.st_mode)) {
        if (pg_known && st.st_uid == pg_uid) {
            as_pg = true;
        } else if (st.st_uid == geteuid()) {
            as_pg = false;
        }
    }
    pw = as_pg ? getpwnam(EMBEDDED_USER) : getpwuid(geteuid());
    /* No such user: a name no peer has, so that nothing connects. */
    snprintf(t->server_user, sizeof t->server_user, "%s",
             pw != NULL ? pw->pw_name : EMBEDDED_USER);
    t->server_uid = pw != NULL ? (unsigned)pw->pw_uid : (unsigned)-1;
}

/* requirepeer: libpq refuses a socket whose server process is not the embedded
 * server's user, whoever made the socket file. */
static void set_conninfo(struct db_target *t)
{
    snprintf(t->conninfo, sizeof t->conninfo,
             "host=%s port=%d dbname=%s user=%s requirepeer=%s", t->socket_dir,
             EMBEDDED_PORT, EMBEDDED_DBNAME, EMBEDDED_USER, t->server_user);
}

void embedded_server_user(struct db_target *t)
{
    server_user_for(t);
    set_conninfo(t);
}

/* An argument vector with its own storage: exec wants char *const[], and string
 * literals are const here. */
struct argv_buf {
    char store[12][720];
    char *ptr[13];
    size_t n;
};

static void argv_add(struct argv_buf *a, const char *fmt, ...) PRINTF_LIKE(2, 3);

static void argv_add(struct argv_buf *a, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    if (a->n < 12) {
        vsnprintf(a->store[a->n], sizeof a->store[a->n], fmt, ap);
        a->ptr[a->n] = a->store[a->n];
        a->n++;
        a->ptr[a->n] = NULL;
    }
    va_end(ap);
}

/* Cron's PATH is /usr/bin:/bin: every program run here is named by its absolute path
 * (no execvp, no runuser of /usr/sbin); the server's own binaries by pg_config's. */
#define PG_CONFIG_PATH "/usr/bin/pg_config"
#define GROUPADD_PATH  "/usr/sbin/groupadd"
#define MAX_GROUPS     64

/* Who a child runs as, looked up before fork (getpwnam is not async-signal-safe):
 * the postgres user when we are root (PostgreSQL refuses root), else nobody changes.
 * env is the caller's environment with HOME, USER, LOGNAME and SHELL of the new user,
 * as runuser set them. */
struct drop {
    bool on;
    uid_t uid;
    gid_t gid;
    gid_t groups[MAX_GROUPS];
    int n_groups;
    char vars[4][PATH_MAX + 16];
    char **env;
};

extern char **environ;

/* false when root's child has no postgres user to become. */
static bool drop_prepare(struct drop *d)
{
    memset(d, 0, sizeof *d);
    if (geteuid() != 0)
        return true;
    struct passwd *pw = getpwnam(EMBEDDED_USER);
    if (pw == NULL)
        return false;
    d->on = true;
    d->uid = pw->pw_uid;
    d->gid = pw->pw_gid;
    d->n_groups = MAX_GROUPS;
    /* Its supplementary groups, as runuser's initgroups gave them (ssl-cert). */
    if (getgrouplist(pw->pw_name, pw->pw_gid, d->groups, &d->n_groups) < 0) {
        d->groups[0] = pw->pw_gid;
        d->n_groups = 1;
    }
    snprintf(d->vars[0], sizeof d->vars[0], "HOME=%s", pw->pw_dir);
    snprintf(d->vars[1], sizeof d->vars[1], "USER=%s", pw->pw_name);
    snprintf(d->vars[2], sizeof d->vars[2], "LOGNAME=%s", pw->pw_name);
    snprintf(d->vars[3], sizeof d->vars[3], "SHELL=%s", pw->pw_shell);
    size_t n = 0;
    while (environ != NULL && environ[n] != NULL)
        n++;
    d->env = calloc(n + 5, sizeof *d->env);
    if (d->env == NULL)
        return true; /* the caller's environment unchanged */
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const char *v = environ[i];
        if (strncmp(v, "HOME=", 5) != 0 && strncmp(v, "USER=", 5) != 0 &&
            strncmp(v, "LOGNAME=", 8) != 0 && strncmp(v, "SHELL=", 6) != 0)
            d->env[k++] = environ[i];
    }
    for (size_t i = 0; i < 4; i++)
        d->env[k++] = d->vars[i];
    d->env[k] = NULL;
    return true;
}

static void drop_free(struct drop *d)
{
    free(d->env);
    d->env = NULL;
}

/* In the child: async-signal-safe calls only. Groups first, then the group, then the
 * user: after that nothing more may be changed. setreuid with both IDs (POSIX, no
 * _GNU_SOURCE for setresuid) sets the saved ID too, since the real one changes: no
 * way back to root. */
static bool drop_apply(const struct drop *d)
{
    if (!d->on)
        return true;
    return setgroups((size_t)d->n_groups, d->groups) == 0 &&
           setregid(d->gid, d->gid) == 0 && setreuid(d->uid, d->uid) == 0;
}

static void write_str(int fd, const char *s)
{
    ssize_t w = write(fd, s, strlen(s));
    (void)w;
}

/* Runs the command, its first word an absolute path (as the postgres user when we are
 * root: PostgreSQL refuses root), with its output to log_fd when that is not -1.
 * Returns the exit status (126: the user could not be taken, 127: the program could
 * not run, both said in the log), -1 when it could not start. */
static int run_as_owner(const struct argv_buf *cmd, int log_fd)
{
    struct drop d;
    pid_t pid;
    int status;

    if (cmd->n == 0 || !drop_prepare(&d))
        return -1;
    pid = fork();
    if (pid < 0) {
        drop_free(&d);
        return -1;
    }
    if (pid == 0) {
        /* The log was opened safely by the parent; the child only inherits it. */
        if (log_fd >= 0 &&
            (dup2(log_fd, STDOUT_FILENO) < 0 || dup2(log_fd, STDERR_FILENO) < 0))
            _exit(127);
        /* A caller's blocked signals (the demo holds SIGINT while the server
         * starts) are not the server's. */
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        if (!drop_apply(&d)) {
            write_str(STDERR_FILENO, "iocontend: cannot become the user " EMBEDDED_USER
                                     " (setgroups, setregid or setreuid refused)\n");
            _exit(126);
        }
        execve(cmd->store[0], cmd->ptr, d.env != NULL ? d.env : environ);
        write_str(STDERR_FILENO, "iocontend: cannot run ");
        write_str(STDERR_FILENO, cmd->store[0]);
        write_str(STDERR_FILENO, "\n");
        _exit(127);
    }
    drop_free(&d);
    if (waitpid(pid, &status, 0) < 0)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* PostgreSQL's server binaries are not on PATH in Debian: ask pg_config (run
 * directly, no shell). */
static enum status pg_bindir(char *out, size_t size, struct error *err)
{
    int fds[2];
    char line[PATH_MAX] = "";
    pid_t pid;
    int status = 0;

    if (pipe(fds) != 0)
        return error_set(err, STATUS_INTERNAL, "pipe: %s", strerror(errno));
    pid = fork();
    if (pid == 0) {
        close(fds[0]);
        if (dup2(fds[1], STDOUT_FILENO) < 0)
            _exit(127);
        execl(PG_CONFIG_PATH, PG_CONFIG_PATH, "--bindir", (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    ssize_t got = pid > 0 ? read(fds[0], line, sizeof line - 1) : -1;
    close(fds[0]);
    if (pid > 0)
        waitpid(pid, &status, 0);
    if (got <= 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        return error_set(err, STATUS_NOT_FOUND,
                         PG_CONFIG_PATH " did not answer: install postgresql-15 and "
                                        "libpq-dev");
    }
    line[got] = '\0';
    line[strcspn(line, "\n")] = '\0';
    snprintf(out, size, "%s", line);
    char probe[PATH_MAX + 16];
    snprintf(probe, sizeof probe, "%s/initdb", out);
    if (access(probe, X_OK) != 0) {
        return error_set(err, STATUS_NOT_FOUND,
                         "%s/initdb not found: install the postgresql-15 server package",
                         out);
    }
    return STATUS_OK;
}

/* Who the embedded server belongs to: postgres as root (PostgreSQL refuses root), else
 * us; the socket directory's group is iocontend when there is one we may use. */
struct owner {
    uid_t uid;
    gid_t gid;
    gid_t socket_gid;
    char name[64];
};

/* As root a missing iocontend group is created (groupadd, run directly). */
static void ensure_socket_group(void)
{
    struct argv_buf cmd = {.n = 0};
    pid_t pid;
    int status;

    if (geteuid() != 0 || getgrnam(SOCKET_GROUP) != NULL)
        return;
    argv_add(&cmd, GROUPADD_PATH);
    argv_add(&cmd, "--system");
    argv_add(&cmd, SOCKET_GROUP);
    pid = fork();
    if (pid == 0) {
        execv(cmd.store[0], cmd.ptr);
        _exit(127);
    }
    if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0) {
        log_warn("could not create the group %s: the socket directory keeps the "
                 "group of %s",
                 SOCKET_GROUP, EMBEDDED_USER);
    }
}

static enum status server_owner(struct owner *o, struct error *err)
{
    struct passwd *pw;
    struct group *gr;

    if (geteuid() == 0) {
        pw = getpwnam(EMBEDDED_USER);
        if (pw == NULL) {
            return error_set(err, STATUS_NOT_FOUND,
                             "no '%s' user: install the postgresql-15 package",
                             EMBEDDED_USER);
        }
    } else {
        pw = getpwuid(geteuid());
        if (pw == NULL) {
            return error_set(err, STATUS_INVALID,
                             "uid %u has no name: peer "
                             "authentication needs one",
                             (unsigned)geteuid());
        }
    }
    o->uid = pw->pw_uid;
    o->gid = pw->pw_gid;
    snprintf(o->name, sizeof o->name, "%s", pw->pw_name);
    ensure_socket_group();
    gr = getgrnam(SOCKET_GROUP);
    o->socket_gid = gr != NULL ? gr->gr_gid : o->gid;
    return STATUS_OK;
}

/* Opens a directory without following a final symbolic link. */
static int open_dir_at(int at, const char *name)
{
    return openat(at, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* Who may hold a folder on the state directory's path: root, us, the server. */
static bool trusted_uid(uid_t uid, const struct owner *o)
{
    return uid == 0 || uid == geteuid() || uid == o->uid;
}

/* Whether st's group is its owner's private group (a user private group: the owner's
 * primary group, of the owner's name, with no other members), as on systems whose
 * users keep umask 002: its write bit lets no one else in. */
static bool private_group(const struct stat *st)
{
    struct passwd pw, *pwp = NULL;
    struct group gr, *grp = NULL;
    char pbuf[4096], gbuf[4096];

    if (getpwuid_r(st->st_uid, &pw, pbuf, sizeof pbuf, &pwp) != 0 || pwp == NULL ||
        pw.pw_gid != st->st_gid)
        return false;
    if (getgrgid_r(st->st_gid, &gr, gbuf, sizeof gbuf, &grp) != 0 || grp == NULL)
        return false;
    return strcmp(gr.gr_name, pw.pw_name) == 0 &&
           (gr.gr_mem == NULL || gr.gr_mem[0] == NULL);
}

/* dir, a parent on the state directory's path, and child, the entry in it that the
 * path goes through: refused when a user we do not trust owns dir or may write in
 * it (anyone who may write in a folder may rename what is in it), unless dir is
 * sticky (/tmp): then only the child's owner may move it, and a child directory's
 * owner is checked next (as a parent, or as the state directory itself); a link
 * there must be a trusted user's. Group write is trusted for group root and for the
 * owner's private group only. */
static enum status parent_check(const char *dir, const char *child, const struct owner *o,
                                struct error *err)
{
    struct stat st, cst;

    if (stat(dir, &st) != 0) {
        return error_os(err, STATUS_INVALID, errno, dir,
                        "a parent of the state directory: %s", strerror(errno));
    }
    if (!trusted_uid(st.st_uid, o)) {
        return error_os(
            err, STATUS_INVALID, EPERM, dir,
            "this parent of the state directory belongs to uid %u, who "
            "could move it away: refusing it; use a folder of yours or root's",
            (unsigned)st.st_uid);
    }
    bool others_write =
        (st.st_mode & 002) != 0 ||
        ((st.st_mode & 020) != 0 && st.st_gid != 0 && !private_group(&st));
    if (!others_write)
        return STATUS_OK;
    /* A missing child is made by us next. */
    if ((st.st_mode & S_ISVTX) != 0 &&
        (lstat(child, &cst) != 0 || !S_ISLNK(cst.st_mode) || trusted_uid(cst.st_uid, o)))
        return STATUS_OK;
    return error_os(err, STATUS_INVALID, EPERM, dir,
                    "this parent of the state directory is writable by others (mode "
                    "%04o), who could move it away: refusing it; chmod go-w it or use "
                    "another --state-dir",
                    (unsigned)(st.st_mode & 07777));
}

/* Every parent on path checked (parent_check); with make, the missing ones made
 * (0755) on the way down. */
static enum status parents_walk(const char *path, const struct owner *o, bool make,
                                struct error *err)
{
    char dir[PATH_MAX], child[PATH_MAX];
    size_t len = strlen(path);

    if (len >= sizeof dir || path[0] != '/')
        return error_set(err, STATUS_INVALID, "state directory %s: not absolute", path);
    for (size_t i = 0; i < len;) {
        size_t next = i + 1;
        while (next < len && path[next] != '/')
            next++;
        /* dir: path up to i ("/" for the root); child: up to next. */
        memcpy(dir, path, i == 0 ? 1 : i);
        dir[i == 0 ? 1 : i] = '\0';
        memcpy(child, path, next);
        child[next] = '\0';
        enum status rc = parent_check(dir, child, o, err);
        if (rc != STATUS_OK)
            return rc;
        if (make && mkdir(child, 0755) != 0 && errno != EEXIST) {
            return error_os(err, STATUS_INVALID, errno, child,
                            "cannot create state directory: %s", strerror(errno));
        }
        i = next;
    }
    return STATUS_OK;
}

/* The state directory, made when missing (with its parents), opened without
 * following a link, and refused when another user owns it or others may write in
 * it or in a parent: whoever can write there could plant links where root writes,
 * or move it away. Refused too when it is read-only (for us: the server writes its
 * logs there). Returns its descriptor, -1 with err set. */
static int open_state_dir(const struct db_target *t, const struct owner *o,
                          struct error *err)
{
    char real[PATH_MAX];
    struct stat st;
    struct statvfs vfs;

    /* The path as given (its links' folders), then the real one (their targets'). */
    if (parents_walk(t->state_dir, o, true, err) != STATUS_OK)
        return -1;
    if (realpath(t->state_dir, real) == NULL) {
        error_os(err, STATUS_INVALID, errno, t->state_dir, "state directory: %s",
                 strerror(errno));
        return -1;
    }
    if (strcmp(real, t->state_dir) != 0 && parents_walk(real, o, false, err) != STATUS_OK)
        return -1;
    int fd = open_dir_at(AT_FDCWD, t->state_dir);
    if (fd < 0) {
        error_os(err, STATUS_INVALID, errno, t->state_dir,
                 "state directory: %s (a symbolic link is refused: name the real "
                 "directory)",
                 strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) != 0 || (st.st_uid != geteuid() && st.st_uid != o->uid)) {
        error_os(err, STATUS_INVALID, EPERM, t->state_dir,
                 "the state directory belongs to uid %u, not to you or %s: refusing it; "
                 "chown it or use a directory of your own",
                 (unsigned)st.st_uid, o->name);
        close(fd);
        return -1;
    }
    if ((st.st_mode & 022) != 0) {
        error_os(err, STATUS_INVALID, EPERM, t->state_dir,
                 "the state directory is writable by others (mode %04o): refusing it; "
                 "chmod go-w it",
                 (unsigned)(st.st_mode & 07777));
        close(fd);
        return -1;
    }
    if (fstatvfs(fd, &vfs) == 0 && (vfs.f_flag & ST_RDONLY) != 0) {
        error_os(err, STATUS_INVALID, EROFS, t->state_dir,
                 "the state directory is on a read-only file system: remount it "
                 "read-write or use another --state-dir");
        close(fd);
        return -1;
    }
    if (geteuid() != 0 && faccessat(fd, ".", W_OK, AT_EACCESS) != 0) {
        error_os(err, STATUS_INVALID, errno, t->state_dir,
                 "the state directory is not writable for you (mode %04o): chmod u+w "
                 "it",
                 (unsigned)(st.st_mode & 07777));
        close(fd);
        return -1;
    }
    return fd;
}

/* A directory that the embedded server's user must own: made (and given to that user)
 * when missing, else refused when someone else owns it or its mode is looser than
 * mode. Never follows a link. */
static enum status owned_dir(int at, const char *name, const char *path, const char *what,
                             mode_t mode, gid_t gid, const struct owner *o,
                             struct error *err)
{
    struct stat st;
    bool made = mkdirat(at, name, 0700) == 0;

    if (!made && errno != EEXIST) {
        return error_os(err, STATUS_INVALID, errno, path, "cannot create the %s: %s",
                        what, strerror(errno));
    }
    int fd = open_dir_at(at, name);
    if (fd < 0) {
        return error_os(err, STATUS_INVALID, errno, path,
                        "%s: %s (a symbolic link is refused)", what, strerror(errno));
    }
    enum status rc = STATUS_OK;
    if (fstat(fd, &st) != 0) {
        rc = error_at(err, STATUS_INVALID, path, 0, "%s: %s", what, strerror(errno));
    } else if (made) {
        /* Ours since mkdir: give it away through the descriptor, never the path. */
        if (geteuid() == 0 && fchown(fd, o->uid, gid) != 0) {
            rc = error_at(err, STATUS_INVALID, path, 0, "cannot give the %s to %s: %s",
                          what, o->name, strerror(errno));
        } else if (geteuid() != 0 && gid != st.st_gid &&
                   fchown(fd, (uid_t)-1, gid) != 0) {
            log_debug("%s keeps group %u: %s", path, (unsigned)st.st_gid,
                      strerror(errno));
        }
        if (rc == STATUS_OK && fchmod(fd, mode) != 0)
            rc = error_at(err, STATUS_INVALID, path, 0, "chmod: %s", strerror(errno));
    } else if (st.st_uid != o->uid) {
        rc = error_os(err, STATUS_INVALID, EPERM, path,
                      "the %s belongs to uid %u, not to %s: refusing it; remove it and "
                      "start again",
                      what, (unsigned)st.st_uid, o->name);
    } else if ((st.st_mode & 07777 & ~mode) != 0) {
        rc =
            error_os(err, STATUS_INVALID, EPERM, path,
                     "the %s has mode %04o, looser than %04o: refusing it; remove it and "
                     "start again",
                     what, (unsigned)(st.st_mode & 07777), (unsigned)mode);
    }
    close(fd);
    return rc;
}

/* The socket directory, STATE/run: the embedded server's, 0750, group iocontend. It stays
 * where it is across restarts, so a running serve finds the server again. */
static enum status socket_dir_prepare(int state_fd, struct db_target *t,
                                      const struct owner *o, struct error *err)
{
    return owned_dir(state_fd, "run", t->socket_dir, "socket directory", 0750,
                     o->socket_gid, o, err);
}

/* A log file in the state directory, opened for appending without following a
 * link, mode 0600, refused when it is not a plain file of ours (or of the embedded
 * server's user) with one name. give: hand it to the embedded server's user (the server
 * writes it itself). Returns the descriptor, -1 with err set. */
static int open_log(int state_fd, const struct db_target *t, const char *name,
                    const struct owner *o, bool give, struct error *err)
{
    struct stat st;
    int fd =
        openat(state_fd, name,
               O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0600);

    if (fd < 0) {
        error_at(err, STATUS_INVALID, t->state_dir, 0,
                 "cannot open the log %s: %s (a symbolic link is refused: remove it)",
                 name, strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1 ||
        (st.st_uid != geteuid() && st.st_uid != o->uid)) {
        error_at(err, STATUS_INVALID, t->state_dir, 0,
                 "the log %s is not a plain file of ours: refusing it; remove it", name);
        close(fd);
        return -1;
    }
    if (fchmod(fd, 0600) != 0 ||
        (give && geteuid() == 0 && fchown(fd, o->uid, o->gid) != 0)) {
        error_at(err, STATUS_INVALID, t->state_dir, 0, "cannot set up the log %s: %s",
                 name, strerror(errno));
        close(fd);
        return -1;
    }
    return fd;
}

/* Whether the postgres user can reach and write the data directory, found in a child
 * that becomes it (no program run): the exit status is 0, or 126 when it could not
 * become it, 125 when the data directory is not writable, else k (1..120): the k-th
 * folder of the path (counting the root) is not searchable. */
#define REACH_NO_USER   126
#define REACH_NO_WRITE  125
#define REACH_MAX_DEPTH 120

static int reach_probe(const char *data_dir)
{
    struct drop d;
    pid_t pid;
    int status;

    if (!drop_prepare(&d))
        return REACH_NO_USER;
    drop_free(&d); /* the child runs no program: no environment */
    pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        char prefix[PATH_MAX];
        size_t len = strlen(data_dir);
        int depth = 0;
        if (!drop_apply(&d))
            _exit(REACH_NO_USER);
        if (len >= sizeof prefix)
            _exit(REACH_NO_WRITE);
        for (size_t i = 0; i <= len && depth < REACH_MAX_DEPTH; i++) {
            if (i != 0 && data_dir[i] != '/' && data_dir[i] != '\0')
                continue;
            depth++;
            memcpy(prefix, data_dir, i == 0 ? 1 : i);
            prefix[i == 0 ? 1 : i] = '\0';
            if (access(prefix, X_OK) != 0)
                _exit(depth);
        }
        _exit(access(data_dir, W_OK) == 0 ? 0 : REACH_NO_WRITE);
    }
    if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
        return -1;
    return WEXITSTATUS(status);
}

/* The k-th folder of path (1: "/"), as reach_probe counts them. */
static void nth_folder(const char *path, int k, char *out, size_t size)
{
    size_t len = strlen(path);
    int depth = 0;

    snprintf(out, size, "%s", path);
    for (size_t i = 0; i <= len; i++) {
        if (i != 0 && path[i] != '/' && path[i] != '\0')
            continue;
        if (++depth == k) {
            size_t n = i == 0 ? 1 : i;
            if (n < size) {
                memcpy(out, path, n);
                out[n] = '\0';
            }
            return;
        }
    }
}

/* reach_probe's answer as an error naming what failed. */
static enum status reach_check(const struct db_target *t, struct error *err)
{
    int k = reach_probe(t->data_dir);
    char folder[PATH_MAX];
    struct stat st;

    if (k == 0)
        return STATUS_OK;
    if (k < 0) {
        return error_at(err, STATUS_INTERNAL, t->state_dir, 0,
                        "could not check what the %s user can reach: fork or wait failed",
                        EMBEDDED_USER);
    }
    if (k == REACH_NO_USER) {
        return error_at(err, STATUS_INVALID, t->state_dir, 0,
                        "cannot become the %s user to check the data directory (no such "
                        "user, or setreuid refused): install postgresql-15",
                        EMBEDDED_USER);
    }
    if (k == REACH_NO_WRITE) {
        return error_os(err, STATUS_INVALID, EACCES, t->data_dir,
                        "the %s user cannot write the data directory", EMBEDDED_USER);
    }
    nth_folder(t->data_dir, k, folder, sizeof folder);
    unsigned mode = stat(folder, &st) == 0 ? (unsigned)(st.st_mode & 07777) : 0;
    return error_os(
        err, STATUS_INVALID, EACCES, t->state_dir,
        "the %s user cannot reach it: %.300s (mode %04o) is not searchable by "
        "it; make it searchable (chmod o+x) or use --state-dir",
        EMBEDDED_USER, folder, mode);
}

/* The embedded server's directories, checked and made; returns the state directory's
 * descriptor (-1 with err set). As root postgres must be able to reach it. */
static int prepare_dirs(struct db_target *t, const struct owner *o, struct error *err)
{
    int state_fd = open_state_dir(t, o, err);

    if (state_fd < 0)
        return -1;
    enum status rc =
        owned_dir(state_fd, "pg", t->data_dir, "data directory", 0700, o->gid, o, err);
    if (rc == STATUS_OK)
        rc = socket_dir_prepare(state_fd, t, o, err);
    if (rc == STATUS_OK && geteuid() == 0)
        rc = reach_check(t, err);
    if (rc != STATUS_OK) {
        close(state_fd);
        return -1;
    }
    return state_fd;
}

/* pg_ctl ACTION --wait --pgdata=DIR; the action's own options follow. */
static void pg_ctl_args(struct argv_buf *cmd, const char *bindir, const char *action,
                        const struct db_target *t)
{
    argv_add(cmd, "%s/pg_ctl", bindir);
    argv_add(cmd, "%s", action);
    argv_add(cmd, "--wait");
    argv_add(cmd, "--pgdata=%s", t->data_dir);
}

/* Runs a pg_ctl command as the embedded server's owner, its output in
 * state_dir/pg_ctl.log. */
static enum status run_pg_ctl(const struct argv_buf *cmd, const struct db_target *t,
                              const struct owner *o, int *exit_status, struct error *err)
{
    int state_fd = open_dir_at(AT_FDCWD, t->state_dir);
    int log_fd = state_fd >= 0 ? open_log(state_fd, t, "pg_ctl.log", o, false, err) : -1;

    if (state_fd >= 0)
        close(state_fd);
    if (log_fd < 0) {
        return state_fd < 0  ? error_set(err, STATUS_INVALID, "state directory %s: %s",
                                         t->state_dir, strerror(errno))
               : err != NULL ? err->code
                             : STATUS_INVALID;
    }
    *exit_status = run_as_owner(cmd, log_fd);
    close(log_fd);
    return STATUS_OK;
}

static bool data_dir_exists(const struct db_target *t)
{
    char path[700];
    snprintf(path, sizeof path, "%s/PG_VERSION", t->data_dir);
    return access(path, F_OK) == 0;
}

/* The default state directory holds no embedded server but ./var/pg (the old default)
 * does: starting an empty one would lose the database silently. */
static enum status old_default_check(const struct db_target *t, struct error *err)
{
    char cwd[PATH_MAX], old[PATH_MAX + 32];

    if (!t->state_default || data_dir_exists(t) || getcwd(cwd, sizeof cwd) == NULL)
        return STATUS_OK;
    snprintf(old, sizeof old, "%s/var/pg/PG_VERSION", cwd);
    if (access(old, F_OK) != 0)
        return STATUS_OK;
    old[strlen(old) - strlen("/pg/PG_VERSION")] = '\0';
    /* Too long for one struct error: the paths and the way out are logged whole. */
    /* The error below points here: shown under --quiet too. */
    log_alert(
        "%s/pg holds an embedded server, but the state directory is now %s (%s), which "
        "holds none.",
        old, t->state_dir, t->state_why);
    log_alert("To keep using it, pass --state-dir %s (or set IOCONTEND_STATE_DIR=%s), or "
              "move it: iocontend --state-dir %s db stop; mv %s %s",
              old, old, old, old, t->state_dir);
    return error_set(
        err, STATUS_INVALID,
        "not starting an empty embedded server while ./var/pg holds one: see the "
        "warnings above");
}

/* Writes a file initdb made in the data directory, refusing anything but a plain
 * file of the embedded server's user with one name (as root: never through a link). */
static enum status write_conf(const struct db_target *t, const char *name,
                              const struct owner *o, const char *text, struct error *err)
{
    char path[700];
    struct stat st;

    snprintf(path, sizeof path, "%s/%s", t->data_dir, name);
    int fd = open(path, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1 ||
        st.st_uid != o->uid) {
        if (fd >= 0)
            close(fd);
        return error_at(err, STATUS_INVALID, path, 0,
                        "not a plain file of %s: refusing it", o->name);
    }
    size_t n = strlen(text);
    bool ok = ftruncate(fd, 0) == 0 && write(fd, text, n) == (ssize_t)n;
    close(fd);
    return ok ? STATUS_OK
              : error_set(err, STATUS_INVALID, "cannot write %s: %s", path,
                          strerror(errno));
}

/* Local connections by peer authentication only: root and the embedded server's user are
 * mapped to the superuser role, and they and the service's system user (SERVICE_USER)
 * to the read-only role serve connects as; everyone else, and TCP, is rejected. */
static enum status write_auth(const struct db_target *t, const struct owner *o,
                              struct error *err)
{
    char ident[1024];
    static const char hba[] =
        "# pg_hba.conf, written by iocontend at every start: local connections by\n"
        "# peer authentication through the " IDENT_MAP " map of pg_ident.conf; no TCP.\n"
        "local all all peer map=" IDENT_MAP "\n"
        "host all all all reject\n";

    snprintf(
        ident, sizeof ident,
        "# pg_ident.conf, written by iocontend at every start: the system users\n"
        "# who may connect, as the superuser role or as the read-only role of serve.\n"
        "%s root %s\n%s %s %s\n"
        "%s root %s\n%s %s %s\n%s %s %s\n",
        IDENT_MAP, EMBEDDED_USER, IDENT_MAP, o->name, EMBEDDED_USER, IDENT_MAP,
        DB_READER_ROLE, IDENT_MAP, o->name, DB_READER_ROLE, IDENT_MAP, SERVICE_USER,
        DB_READER_ROLE);
    enum status rc = write_conf(t, "pg_hba.conf", o, hba, err);
    return rc == STATUS_OK ? write_conf(t, "pg_ident.conf", o, ident, err) : rc;
}

/* init's work once the owner is known and the directories checked. */
static enum status server_initdb(struct db_target *t, const struct owner *o, int state_fd,
                                 struct error *err)
{
    char bindir[PATH_MAX];
    enum status rc;

    if (data_dir_exists(t))
        return write_auth(t, o, err);
    rc = pg_bindir(bindir, sizeof bindir, err);
    if (rc != STATUS_OK)
        return rc;
    int log_fd = open_log(state_fd, t, "initdb.log", o, false, err);
    if (log_fd < 0)
        return err != NULL ? err->code : STATUS_INVALID;
    struct argv_buf cmd = {.n = 0};
    argv_add(&cmd, "%s/initdb", bindir);
    argv_add(&cmd, "--pgdata=%s", t->data_dir);
    argv_add(&cmd, "--username=%s", EMBEDDED_USER);
    argv_add(&cmd, "--auth-local=peer");
    argv_add(&cmd, "--auth-host=reject");
    argv_add(&cmd, "--encoding=UTF8");
    argv_add(&cmd, "--locale=C.UTF-8");
    argv_add(&cmd, "--no-instructions");
    int code = run_as_owner(&cmd, log_fd);
    close(log_fd);
    if (code != 0)
        return error_at(err, STATUS_DB, t->state_dir, 0, "initdb failed: see initdb.log");
    log_info("created the embedded server in %s", t->data_dir);
    return write_auth(t, o, err);
}

/* A run that starts on a nearly full disk stops halfway (and a server whose WAL
 * cannot grow panics): refused before it starts, naming the folder. */
static enum status space_check(const struct db_target *t, struct error *err)
{
    char wal[sizeof t->data_dir + 8];
    /* pg_wal may be a link to another disk: statvfs follows it. */
    snprintf(wal, sizeof wal, "%s/pg_wal", t->data_dir);
    const char *const dirs[] = {t->state_dir, t->data_dir, wal};

    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        unsigned long long avail = 0;
        if (!free_bytes(dirs[i], &avail) || avail >= DB_MIN_FREE_BYTES)
            continue;
        log_error("%s: %llu bytes free, below the %llu a run needs", dirs[i], avail,
                  (unsigned long long)DB_MIN_FREE_BYTES);
        return error_os(err, STATUS_DB, ENOSPC, dirs[i],
                        "%llu bytes free, below the %llu MiB a run needs: free some "
                        "space",
                        avail, (unsigned long long)(DB_MIN_FREE_BYTES >> 20));
    }
    return STATUS_OK;
}

/* What init and start share: the embedded target's owner, its directories made or
 * checked (*state_fd: the state directory, open, the caller's to close; -1 on a
 * failure before it) and the data directory created when absent. */
static enum status server_ready(struct db_target *t, struct owner *o, int *state_fd,
                                struct error *err)
{
    enum status rc;

    *state_fd = -1;
    if (!t->embedded) {
        return error_set(err, STATUS_INVALID,
                         "a configured database is not managed here (%s)", t->reason);
    }
    rc = old_default_check(t, err);
    if (rc == STATUS_OK)
        rc = server_owner(o, err);
    if (rc != STATUS_OK)
        return rc;
    *state_fd = prepare_dirs(t, o, err);
    if (*state_fd < 0)
        return err != NULL ? err->code : STATUS_INVALID;
    /* The data directory is there now: its owner is the server's user. */
    embedded_server_user(t);
    rc = space_check(t, err);
    return rc == STATUS_OK ? server_initdb(t, o, *state_fd, err) : rc;
}

enum status db_embedded_init(struct db_target *t, struct error *err)
{
    struct owner o = {0};
    int state_fd;
    enum status rc = server_ready(t, &o, &state_fd, err);

    if (state_fd >= 0)
        close(state_fd);
    return rc;
}

bool db_embedded_running(const struct db_target *t)
{
    PGconn *c;
    char conninfo[400];
    bool ok;

    if (t->socket_dir[0] == '\0' || socket_dir_check(t, NULL) != STATUS_OK)
        return false;
    snprintf(conninfo, sizeof conninfo,
             "host=%s port=%d dbname=postgres user=%s requirepeer=%s connect_timeout=2",
             t->socket_dir, EMBEDDED_PORT, EMBEDDED_USER, t->server_user);
    c = PQconnectdb(conninfo);
    ok = PQstatus(c) == CONNECTION_OK;
    PQfinish(c);
    return ok;
}

static enum status ensure_database(const struct db_target *t, struct error *err)
{
    char conninfo[400];
    PGconn *c;
    PGresult *r;
    enum status rc = STATUS_OK;

    rc = socket_dir_check(t, err);
    if (rc != STATUS_OK)
        return rc;
    snprintf(conninfo, sizeof conninfo,
             "host=%s port=%d dbname=postgres user=%s requirepeer=%s", t->socket_dir,
             EMBEDDED_PORT, EMBEDDED_USER, t->server_user);
    c = PQconnectdb(conninfo);
    if (PQstatus(c) != CONNECTION_OK) {
        rc = error_set(err, STATUS_DB, "embedded server: %s", PQerrorMessage(c));
        PQfinish(c);
        return rc;
    }
    const char *params[] = {EMBEDDED_DBNAME};
    r = PQexecParams(c, "SELECT 1 FROM pg_database WHERE datname = $1", 1, NULL, params,
                     NULL, NULL, 0);
    if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 0) {
        PQclear(r);
        r = PQexec(c, "CREATE DATABASE " EMBEDDED_DBNAME);
        if (PQresultStatus(r) != PGRES_COMMAND_OK)
            rc = error_set(err, STATUS_DB, "create database: %s", PQerrorMessage(c));
    } else if (PQresultStatus(r) != PGRES_TUPLES_OK) {
        rc = error_set(err, STATUS_DB, "embedded server: %s", PQerrorMessage(c));
    }
    PQclear(r);
    /* serve's role exists from the start, so that serve over a database never
     * migrated logs in and says the schema is behind; db migrate grants it. */
    if (rc == STATUS_OK) {
        r = PQexec(c,
                   "DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = "
                   "'" DB_READER_ROLE "') THEN CREATE ROLE " DB_READER_ROLE
                   " LOGIN; END IF; EXCEPTION WHEN duplicate_object THEN NULL; END $$");
        if (PQresultStatus(r) != PGRES_COMMAND_OK)
            rc = error_set(err, STATUS_DB, "create role: %s", PQerrorMessage(c));
        PQclear(r);
    }
    PQfinish(c);
    return rc;
}

/* A postmaster.pid left by a killed server (or a machine restart) would stop pg_ctl;
 * the server is not answering, so it is stale unless its pid lives. */
static void clear_stale_pid(const struct db_target *t)
{
    char pid_path[700], first[32] = "";

    snprintf(pid_path, sizeof pid_path, "%s/postmaster.pid", t->data_dir);
    int fd = open(pid_path, O_RDONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return;
    ssize_t got = read(fd, first, sizeof first - 1);
    close(fd);
    first[got > 0 ? got : 0] = '\0';
    long pid = strtol(first, NULL, 10);
    if (pid <= 0 || kill((pid_t)pid, 0) != 0) {
        unlink(pid_path);
        log_warn("removed a stale %s", pid_path);
    }
}

enum status db_embedded_start(struct db_target *t, struct error *err)
{
    char bindir[PATH_MAX];
    struct owner o = {0};
    int state_fd;
    enum status rc = server_ready(t, &o, &state_fd, err);

    if (state_fd < 0)
        return rc;
    if (rc == STATUS_OK && db_embedded_running(t)) {
        close(state_fd);
        return ensure_database(t, err);
    }
    if (rc == STATUS_OK)
        rc = pg_bindir(bindir, sizeof bindir, err);
    /* The server (running as postgres) appends to its log itself: made here, safely,
     * and handed to it. */
    int log_fd =
        rc == STATUS_OK ? open_log(state_fd, t, "postgresql.log", &o, true, err) : -1;
    close(state_fd);
    if (log_fd < 0)
        return rc != STATUS_OK ? rc : err != NULL ? err->code : STATUS_INVALID;
    close(log_fd);
    clear_stale_pid(t);
    struct argv_buf cmd = {.n = 0};
    pg_ctl_args(&cmd, bindir, "start", t);
    argv_add(&cmd, "--timeout=60");
    argv_add(&cmd, "--log=%s/postgresql.log", t->state_dir);
    argv_add(&cmd, "-o");
    /* No TCP: the embedded server is reached through its socket only. The socket
     * keeps the server's default mode: its directory (0750, group iocontend) decides
     * who reaches it, and peer authentication who gets in. */
    argv_add(&cmd,
             "-c listen_addresses='' -c unix_socket_directories='%s' -c port=%d "
             "-c max_connections=40",
             t->socket_dir, EMBEDDED_PORT);
    int code = -1;
    rc = run_pg_ctl(&cmd, t, &o, &code, err);
    if (rc != STATUS_OK)
        return rc;
    if (code != 0) {
        return error_at(err, STATUS_DB, t->state_dir, 0,
                        "the embedded server did not start: see postgresql.log");
    }
    log_info("started the embedded server (socket in %s)", t->socket_dir);
    return ensure_database(t, err);
}

enum status db_embedded_stop(const struct db_target *t, struct error *err)
{
    char bindir[PATH_MAX];
    struct owner o = {0};
    enum status rc;

    if (!t->embedded) {
        return error_set(err, STATUS_INVALID,
                         "a configured database is not managed here (%s)", t->reason);
    }
    if (!data_dir_exists(t) || !db_embedded_running(t))
        return STATUS_OK;
    rc = server_owner(&o, err);
    if (rc == STATUS_OK)
        rc = pg_bindir(bindir, sizeof bindir, err);
    if (rc != STATUS_OK)
        return rc;
    struct argv_buf cmd = {.n = 0};
    pg_ctl_args(&cmd, bindir, "stop", t);
    argv_add(&cmd, "--mode=fast");
    int code = -1;
    rc = run_pg_ctl(&cmd, t, &o, &code, err);
    if (rc != STATUS_OK)
        return rc;
    if (code != 0) {
        return error_set(err, STATUS_DB, "pg_ctl stop failed for %s: see %s/pg_ctl.log",
                         t->data_dir, t->state_dir);
    }
    log_info("stopped the embedded server");
    return STATUS_OK;
}

enum status db_target_existing(const struct db_target *t, struct error *err)
{
    char path[700];
    struct stat st;

    if (!t->embedded)
        return STATUS_OK;
    enum status rc = old_default_check(t, err);
    if (rc != STATUS_OK)
        return rc;
    /* Only a name that is not there says "no embedded server": a data directory closed to
     * this user (the service's, under root's state directory) may well hold one. */
    snprintf(path, sizeof path, "%s/PG_VERSION", t->data_dir);
    if (stat(path, &st) == 0 || (errno != ENOENT && errno != ENOTDIR))
        return STATUS_OK;
    return error_at(err, STATUS_NOT_FOUND, t->state_dir, 0, "no database here (%s)",
                    t->state_why);
}
