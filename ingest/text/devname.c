/* devname.c: the names of devices that an sa file knows by number only. An sa file
 * keeps a disk's major and minor numbers, never its name. sadf names a device from
 * the /sys of the machine it runs on, the ingesting host, not the server that wrote
 * the file; so it runs where it sees no /sys (sadf.c) and names only the devices of
 * fixed majors, from sysstat's own table (SCSI sdX, Xen xvdX: the same on every
 * host). The others (virtio-blk, NVMe's blkext 259: majors given out at boot) come as
 * sysstat's "devMAJ-MIN" and are named here from `[devices] names`. */
#include "../ingest.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads a decimal number of at most 7 digits at *s; false if there is none. */
static bool read_number(const char **s, unsigned *out)
{
    unsigned v = 0;
    int digits = 0;

    while (isdigit((unsigned char)**s) && digits < 8) {
        v = v * 10 + (unsigned)(**s - '0');
        (*s)++;
        digits++;
    }
    *out = v;
    return digits > 0 && digits < 8;
}

/* "devMAJ-MIN" (all of it) into its numbers. */
static bool sysstat_numbers(const char *device, unsigned *major, unsigned *minor)
{
    const char *s = device;

    if (strncmp(s, "dev", 3) != 0)
        return false;
    s += 3;
    if (!read_number(&s, major) || *s != '-')
        return false;
    s++;
    return read_number(&s, minor) && *s == '\0';
}

bool device_numbered(const char *device)
{
    unsigned major, minor;
    return sysstat_numbers(device, &major, &minor);
}

static bool name_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.' || c == ':';
}

/* One "MAJ:MIN=NAME" at *s into its parts; *s moves past it. */
static bool read_pair(const char **s, unsigned *major, unsigned *minor, const char **name,
                      size_t *name_len)
{
    if (!read_number(s, major) || **s != ':')
        return false;
    (*s)++;
    if (!read_number(s, minor) || **s != '=')
        return false;
    (*s)++;
    *name = *s;
    while (name_char(**s))
        (*s)++;
    *name_len = (size_t)(*s - *name);
    return *name_len > 0;
}

static const char *skip_separators(const char *s)
{
    while (*s == ',' || isspace((unsigned char)*s))
        s++;
    return s;
}

enum status device_names_check(const char *names, struct error *err)
{
    const char *s = skip_separators(names != NULL ? names : "");

    while (*s != '\0') {
        const char *start = s, *name;
        unsigned major, minor;
        size_t len;

        if (!read_pair(&s, &major, &minor, &name, &len) ||
            (*s != '\0' && *s != ',' && !isspace((unsigned char)*s))) {
            return error_set(err, STATUS_INVALID,
                             "expected MAJOR:MINOR=NAME (e.g. 254:0=vda), got '%.40s'",
                             start);
        }
        if (len >= DEVICE_NAME_MAX) {
            return error_set(err, STATUS_INVALID,
                             "expected a device name of at most %d characters, got %zu",
                             DEVICE_NAME_MAX - 1, len);
        }
        s = skip_separators(s);
    }
    return STATUS_OK;
}

bool device_name_of(const char *device, const char *names, char *out, size_t size)
{
    unsigned major, minor;
    const char *s = skip_separators(names != NULL ? names : "");

    if (!sysstat_numbers(device, &major, &minor))
        return false;
    while (*s != '\0') {
        unsigned ma, mi;
        const char *name;
        size_t len;

        if (!read_pair(&s, &ma, &mi, &name, &len))
            break; /* checked when the configuration was read */
        if (ma == major && mi == minor && len < size) {
            memcpy(out, name, len);
            out[len] = '\0';
            return true;
        }
        s = skip_separators(s);
    }
    return false;
}
