/* guard.c: the checks on the embedded server's folders that every connection and
 * every run makes before it starts: the socket folder is the server's (nobody else
 * can put a PostgreSQL behind it), and the disk has room. Apart from embedded.c so
 * that db.c and pq.c, which embedded.c calls, need nothing back from it. */
#include "internal.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

enum status socket_dir_check(const struct db_target *t, struct error *err)
{
    struct stat st;

    if (lstat(t->socket_dir, &st) != 0) {
        return error_at(err, STATUS_DB, t->socket_dir, 0,
                        "no socket directory (%s): is the server started?",
                        strerror(errno));
    }
    if (!S_ISDIR(st.st_mode)) {
        return error_at(err, STATUS_DB, t->socket_dir, 0,
                        "the socket directory is not a directory: refusing to connect");
    }
    if (st.st_uid != t->server_uid && st.st_uid != 0) {
        return error_at(err, STATUS_DB, t->socket_dir, 0,
                        "the socket directory belongs to uid %u, not to %s: refusing "
                        "to connect",
                        (unsigned)st.st_uid, t->server_user);
    }
    if ((st.st_mode & 022) != 0) {
        return error_at(err, STATUS_DB, t->socket_dir, 0,
                        "the socket directory is writable by others (mode %04o): "
                        "refusing to connect",
                        (unsigned)(st.st_mode & 07777));
    }
    return STATUS_OK;
}

bool free_bytes(const char *path, unsigned long long *out)
{
    struct statvfs vfs;

    if (statvfs(path, &vfs) != 0)
        return false;
    *out = (unsigned long long)vfs.f_bavail * (unsigned long long)vfs.f_frsize;
    return true;
}
