/* objects.h: the JSON builder and readers the objects_*.c files share (objects.c);
 * included by analysis/objects*.c only, the one place jansson is. */
#ifndef IOCONTEND_ANALYSIS_OBJECTS_H
#define IOCONTEND_ANALYSIS_OBJECTS_H

#include "internal.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* The flags of the stored text: compact, reals that read back as the same double. */
#define STORE_FLAGS (JSON_COMPACT | JSON_REAL_PRECISION(17))

/* A JSON value under construction: the first failed allocation or insertion sets
 * failed, and jb_finish then gives NULL (jansson's setters return -1 on failure, and
 * a NULL value or parent makes them fail, so one check at the end covers them all). */
struct jb {
    json_t *root;
    bool failed;
};

struct jb jb_object(void);
/* The value built, or NULL (everything released) when any step failed. */
json_t *jb_finish(struct jb *b);
/* Sets key of o to v (taken). */
void jb_set(struct jb *b, json_t *o, const char *key, json_t *v);
void jb_append(struct jb *b, json_t *a, json_t *v);
/* A new object or array appended to a; borrowed, NULL when that failed (the array
 * released it then, and every jb_* on NULL only records the failure). */
json_t *jb_item(struct jb *b, json_t *a, json_t *child);
/* A new object or array set as key of o; borrowed, NULL when that failed. */
json_t *jb_child(struct jb *b, json_t *o, const char *key, json_t *child);
/* A JSON real, or null when v is not finite (docs/interfaces.md: non-finite is null). */
json_t *jb_number_or_null(double v);
void jb_real(struct jb *b, json_t *o, const char *key, double v);
void jb_int(struct jb *b, json_t *o, const char *key, long long v);
void jb_text(struct jb *b, json_t *o, const char *key, const char *s);
/* An epoch time as RFC 3339 (whole seconds) and as *_ms: both keys into o, null
 * when the time is NAN (open). */
void jb_time(struct jb *b, json_t *o, const char *key, double epoch_s);
/* An array of n reals (null where not finite). */
json_t *jb_numbers(struct jb *b, const double *v, size_t n);
char *jb_dump(json_t *o);
/* A number of o, NAN when absent or null. */
double obj_get_real(const json_t *o, const char *key);
/* Every integer of the stored objects counts something or is a seed: a negative one
 * (damage) reads as 0 rather than wrapping to a huge size. */
long long obj_get_int(const json_t *o, const char *key);
const char *obj_get_text(const json_t *o, const char *key);
/* n reals of the array key of o into v (NAN for null); false unless it has n. */
bool obj_get_reals(const json_t *o, const char *key, double *v, size_t n);
enum stats_reason obj_reason_of(const char *name);
void obj_copy_text(char *out, size_t size, const char *s);

/* ---- pieces of the association object the sweep's shares (objects_assoc.c) ------- */

/* space, hx, hy, x_grid, q05, q50, q95, marg_q05, marg_q95, mean, sd, width_ratio and
 * paper_width_ratio (null where not finite; the four arrays null unless fitted). */
void put_kde_bands(struct jb *b, json_t *o, const struct kde_bands *k, bool fitted);
/* The excluded counts: "total" and each reason (columns: the two an input file can
 * have). */
void put_excluded(struct jb *b, json_t *parent, const char *key,
                  const size_t counts[EXCL_COUNT], bool every_reason);

#endif
