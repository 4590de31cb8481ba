/* migrations.h: the compiled-in schema migrations (generated from sql/migrations). */
#ifndef IOCONTEND_SQL_MIGRATIONS_H
#define IOCONTEND_SQL_MIGRATIONS_H

#include <stddef.h>

struct migration {
    int version;      /* NNNN of NNNN_what.sql */
    const char *name; /* NNNN_what */
    const char *sql;
};

extern const struct migration migrations[];
extern const size_t n_migrations;

#endif
