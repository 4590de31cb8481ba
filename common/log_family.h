/* log_family.h: the log family (docs/method.md §2), the one list of the per-job values a
 * Darshan log alone gives. Every floor sees common/, and each uses the list its own way:
 * ingest/ declares them as fields of struct job_metrics and computes them
 * (ingest/metrics.c), sql/ stores them as the columns of jobs named so
 * (sql/db_family.c), analysis/ names each in its catalogue (analysis/catalogue.c). A
 * new log value is a line here, its computation, its catalogue row and a migration. */
#ifndef IOCONTEND_LOG_FAMILY_H
#define IOCONTEND_LOG_FAMILY_H

#include <stdint.h>

/* X(NAME, name, type, listed): type F8 (seconds, a double; NaN: SQL NULL) or I8 (bytes,
 * an int64_t, carried exactly); listed: 1 when GET /jobs shows it. The order is the
 * jobs fingerprint's (sql/db_results.c) and the /jobs rows': do not reorder. */
#define LOG_VALUES(X)                                                                    \
    /* run time: header for format >= 3.41, else end - start */                          \
    X(T_J, t_j, F8, 1)                                                                   \
    /* the slowest rank's unique-file meta and read+write time */                        \
    X(T_UM, t_um, F8, 1)                                                                 \
    X(T_URW, t_urw, F8, 1)                                                               \
    X(T_S, t_s, F8, 1)                                                                   \
    X(T, t, F8, 1) /* t_um + t_urw + t_s */                                              \
    /* read / write window spans; -1 when the job never read / wrote */                  \
    X(T_FR, t_fr, F8, 1)                                                                 \
    X(T_FW, t_fw, F8, 1)                                                                 \
    /* all file systems, one layer per file */                                           \
    X(ETA_READ, eta_read, I8, 1)                                                         \
    X(ETA_WRITE, eta_write, I8, 1)                                                       \
    /* monitored file systems only */                                                    \
    X(ETA_MON_READ, eta_mon_read, I8, 1)                                                 \
    X(ETA_MON_WRITE, eta_mon_write, I8, 1)                                               \
    X(T_S_SPAN, t_s_span, F8, 0)                                                         \
    X(T_S_SLOWEST, t_s_slowest, F8, 0)

#define LOG_CTYPE_F8 double
#define LOG_CTYPE_I8 int64_t

/* One stored value of a family: .f8 for an F8 value, .i8 for an I8 one. A byte count
 * stays an int64_t from ingest to the database and back (a double would round it
 * above 2^53). LOG_CELL_F8 / LOG_CELL_I8 name the member of a type. */
union family_value {
    double f8;
    int64_t i8;
};
#define LOG_CELL_F8 f8
#define LOG_CELL_I8 i8

/* LOG_T_J, ...: a value's index into a row's log[LOG_N]. */
#define LOG_ENUM_ITEM(NAME, name, type, listed) LOG_##NAME,
enum log_value { LOG_VALUES(LOG_ENUM_ITEM) LOG_N };
#undef LOG_ENUM_ITEM

/* Whether value v is an I8 (else an F8): its bit in a mask the list builds. */
#define LOG_I8_BIT_F8                        0u
#define LOG_I8_BIT_I8                        1u
#define LOG_I8_BIT(NAME, name, type, listed) | (LOG_I8_BIT_##type << LOG_##NAME)
static inline int log_is_i8(enum log_value v)
{
    return v < LOG_N && (((0u LOG_VALUES(LOG_I8_BIT)) >> v) & 1u) != 0;
}
#undef LOG_I8_BIT

/* Value v of a row's log[] as a double, whatever its type (a byte count above 2^53
 * rounds, as every metric does on its way into a statistic). */
static inline double log_double(const union family_value *log, enum log_value v)
{
    return log_is_i8(v) ? (double)log[v].i8 : log[v].f8;
}

#endif
