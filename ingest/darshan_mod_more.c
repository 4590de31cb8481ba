/* darshan_mod_more.c: the decoders of the modules darshan_mod.c leaves (H5F, H5D,
 * PNETCDF, BG/Q, LUSTRE, HEATMAP, DFS, DAOS, DXT). A placeholder until they land. */
#include "darshan_bin.h"

enum status dbin_module_decode_more(const struct dbin_region *r,
                                    const struct dbin_sink *sink, struct error *err)
{
    (void)sink;
    return error_at(err, STATUS_NOT_FOUND, r->path, 0,
                    "%s module (version %u): not decoded yet",
                    dbin_module_name(r->module), (unsigned)r->version);
}
