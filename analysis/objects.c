/* objects.c: the one JSON of the results, its shared part: the builder every
 * construction goes through (struct jb, which records the first failure, checked
 * once at the end), the readers of stored texts, and the pieces the front ends share.
 * Each object's rendering and reading is in its own objects_*.c. */
#include "objects.h"

#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ---- the builder ----------------------------------------------------------------- */

struct jb jb_object(void)
{
    struct jb b = {json_object(), false};

    b.failed = b.root == NULL;
    return b;
}

json_t *jb_finish(struct jb *b)
{
    if (b->failed) {
        json_decref(b->root);
        b->root = NULL;
    }
    return b->root;
}

void jb_set(struct jb *b, json_t *o, const char *key, json_t *v)
{
    if (json_object_set_new(o, key, v) != 0)
        b->failed = true;
}

void jb_append(struct jb *b, json_t *a, json_t *v)
{
    if (json_array_append_new(a, v) != 0)
        b->failed = true;
}

json_t *jb_item(struct jb *b, json_t *a, json_t *child)
{
    if (json_array_append_new(a, child) != 0) {
        b->failed = true;
        return NULL;
    }
    return child;
}

json_t *jb_child(struct jb *b, json_t *o, const char *key, json_t *child)
{
    if (json_object_set_new(o, key, child) != 0) {
        b->failed = true;
        return NULL;
    }
    return child;
}

json_t *jb_number_or_null(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

void jb_real(struct jb *b, json_t *o, const char *key, double v)
{
    jb_set(b, o, key, jb_number_or_null(v));
}

void jb_int(struct jb *b, json_t *o, const char *key, long long v)
{
    jb_set(b, o, key, json_integer((json_int_t)v));
}

void jb_text(struct jb *b, json_t *o, const char *key, const char *s)
{
    jb_set(b, o, key, s != NULL ? analysis_json_text(s) : json_null());
}

void jb_time(struct jb *b, json_t *o, const char *key, double epoch_s)
{
    char text[40], key_ms[64];

    snprintf(key_ms, sizeof key_ms, "%s_ms", key);
    if (!isfinite(epoch_s)) {
        jb_set(b, o, key, json_null());
        jb_set(b, o, key_ms, json_null());
        return;
    }
    time_format_rfc3339((int64_t)floor(epoch_s), text);
    jb_text(b, o, key, text);
    jb_int(b, o, key_ms, llround(epoch_s * 1000.0));
}

json_t *jb_numbers(struct jb *b, const double *v, size_t n)
{
    json_t *a = json_array();

    for (size_t i = 0; a != NULL && i < n; i++)
        jb_append(b, a, jb_number_or_null(v[i]));
    return a;
}

char *jb_dump(json_t *o)
{
    char *text = o != NULL ? json_dumps(o, STORE_FLAGS) : NULL;

    json_decref(o);
    return text;
}

/* ---- reading ---------------------------------------------------------------------- */

double obj_get_real(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);

    return json_is_number(v) ? json_number_value(v) : (double)NAN;
}

long long obj_get_int(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    long long n = json_is_integer(v) ? (long long)json_integer_value(v) : 0;

    return n > 0 ? n : 0;
}

const char *obj_get_text(const json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

bool obj_get_reals(const json_t *o, const char *key, double *v, size_t n)
{
    const json_t *a = json_object_get(o, key);

    if (!json_is_array(a) || json_array_size(a) != n)
        return false;
    for (size_t i = 0; i < n; i++) {
        const json_t *e = json_array_get(a, i);
        v[i] = json_is_number(e) ? json_number_value(e) : (double)NAN;
    }
    return true;
}

enum stats_reason obj_reason_of(const char *name)
{
    for (int r = REASON_NONE; name != NULL && r <= REASON_NOT_COMPUTED; r++) {
        if (strcmp(name, stats_reason_name((enum stats_reason)r)) == 0)
            return (enum stats_reason)r;
    }
    return REASON_NONE;
}

void obj_copy_text(char *out, size_t size, const char *s)
{
    snprintf(out, size, "%s", s != NULL ? s : "");
}

/* ---- pieces the front ends share ------------------------------------------------- */

json_t *analysis_json_text(const char *s)
{
    char copy[512];
    json_t *j = json_string(s);

    if (j != NULL)
        return j;
    /* A Darshan exe or a file system name can hold anything: bytes that are not
     * ASCII become '?' when the text is not valid UTF-8. */
    snprintf(copy, sizeof copy, "%s", s);
    for (char *p = copy; *p != '\0'; p++) {
        if ((unsigned char)*p >= 0x80)
            *p = '?';
    }
    return json_string(copy);
}
