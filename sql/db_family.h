/* db_family.h: the storage of a per-job metric family: its table, its columns and
 * their types, one descriptor per stored family, and every per-job table in one list
 * (what a scale-out partitions). SQL identifiers stay in sql/. */
#ifndef IOCONTEND_SQL_DB_FAMILY_H
#define IOCONTEND_SQL_DB_FAMILY_H

#include "../common/log_family.h"

#include <stdbool.h>
#include <stddef.h>

enum db_column_type { DB_COLUMN_F8, DB_COLUMN_I8 };

/* A stored value of a family: a column named as docs/method.md names the value. */
struct db_column {
    const char *name;
    enum db_column_type type; /* F8: a double, NaN is SQL NULL; I8: an int64_t */
    bool listed;              /* GET /jobs shows it */
};

/* A stored family: its values are columns of table, in one row per job (job_key). A
 * row carries them as union family_value vals[n_cols], in cols' order. */
struct db_family {
    const char *name;  /* the catalogue's family name */
    const char *table; /* "jobs" */
    const struct db_column *cols;
    size_t n_cols;
};

/* The log family (common/log_family.h): columns of jobs; cols[v] is value v. */
extern const struct db_family db_family_log;

/* Every table with a row per job (or per job and more), in one list: what is
 * partitioned, unloaded or counted per job is all of them. */
extern const char *const db_job_tables[];
extern const size_t db_n_job_tables;

/* The log family's column list for a SELECT, COPY or ROW(...), at compile time from
 * the same list as db_family_log: DB_LOG_COLUMNS is ", t_j, t_um, ...",
 * DB_LOG_COLUMNS_J the same with "j." before each. */
#define DB_LOG_COLUMN(NAME, name, type, listed)   ", " #name
#define DB_LOG_COLUMN_J(NAME, name, type, listed) ", j." #name
#define DB_LOG_COLUMNS                            LOG_VALUES(DB_LOG_COLUMN)
#define DB_LOG_COLUMNS_J                          LOG_VALUES(DB_LOG_COLUMN_J)

#endif
