/* darshan_format.c: what the binary Darshan reader's parts share (darshan_format.h):
 * the modules' names and the decoders' helpers. */
#include "darshan_format.h"

#include <stdarg.h>
#include <stdio.h>

static const char *const module_names[DBIN_MODULE_COUNT] = {
    "NULL",        "POSIX", "MPI-IO", "H5F",     "H5D",       "PNETCDF_FILE",
    "PNETCDF_VAR", "BG/Q",  "LUSTRE", "STDIO",   "DXT_POSIX", "DXT_MPIIO",
    "MDHIM",       "APXC",  "APMPI",  "HEATMAP", "DFS",       "DAOS"};

const char *dbin_module_name(enum dbin_module module)
{
    if ((int)module < 0 || module >= DBIN_MODULE_COUNT)
        return "<UNKNOWN>";
    return module_names[module];
}

uint64_t dmod_word(const struct dbin_region *r, size_t off)
{
    return dbin_u64(r->data + off, r->swap);
}

double dmod_double(const struct dbin_region *r, size_t off)
{
    return dbin_f64(r->data + off, r->swap);
}

void dmod_names(const struct dbin_region *r, uint64_t record_id, const char **file_name,
                const char **mount_point, const char **fs_type)
{
    if (r->names_lookup != NULL) {
        r->names_lookup(r->names, record_id, file_name, mount_point, fs_type);
        return;
    }
    *file_name = "(null)";
    *mount_point = "UNKNOWN";
    *fs_type = "UNKNOWN";
}

enum status dmod_fail(const struct dbin_region *r, size_t off, struct error *err,
                      const char *fmt, ...)
{
    char what[120];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    return error_at(err, STATUS_PARSE, r->path, 0, "%s record at offset %zu: %s",
                    dbin_module_name(r->module), off, what);
}
