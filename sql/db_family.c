/* db_family.c: the stored families' descriptors and the per-job tables; the generic
 * COPY and load of a family's values. */
#include "internal.h"

#define LOG_COLUMN(NAME, name, type, listed)                                             \
    [LOG_##NAME] = {#name, DB_COLUMN_##type, listed},
static const struct db_column log_columns[LOG_N] = {LOG_VALUES(LOG_COLUMN)};
#undef LOG_COLUMN

const struct db_family db_family_log = {"log", "jobs", log_columns, LOG_N};

const char *const db_job_tables[] = {"jobs",    "job_windows",   "job_traces",
                                     "dxt_ops", "job_x_windows", "group_members"};
const size_t db_n_job_tables = sizeof db_job_tables / sizeof db_job_tables[0];

void db_family_copy(struct bincopy *c, const struct db_family *f,
                    const union family_value *vals)
{
    for (size_t i = 0; i < f->n_cols; i++) {
        if (f->cols[i].type == DB_COLUMN_I8) {
            bincopy_int8(c, vals[i].i8);
        } else {
            bincopy_float8(c, vals[i].f8);
        }
    }
}

void db_family_load(const struct db_family *f, const PGresult *r, int row, int col,
                    union family_value *vals)
{
    for (size_t i = 0; i < f->n_cols; i++) {
        int at = col + (int)i;
        if (f->cols[i].type == DB_COLUMN_I8) {
            vals[i].i8 = get_int64(r, row, at);
        } else {
            vals[i].f8 = get_double(r, row, at);
        }
    }
}
