/* config.c: the configuration: defaults, then the INI file, then the environment
 * (the command line is applied last by main). */
#include "internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_CONFIG_PATH "/etc/iocontend/iocontend.conf"

static char *trim(char *s)
{
    char *end;

    while (isspace((unsigned char)*s))
        s++;
    end = s + strlen(s);
    while (end > s && isspace((unsigned char)end[-1]))
        *--end = '\0';
    return s;
}

static enum status parse_double(const char *v, double *out, const char *path, long line,
                                struct error *err)
{
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    if (end == v || *end != '\0' || errno != 0)
        return error_at(err, STATUS_PARSE, path, line, "expected a number, got '%s'", v);
    *out = d;
    return STATUS_OK;
}

static enum status set_key(struct app_config *cfg, const char *section, const char *key,
                           const char *value, const char *path, long line,
                           struct error *err)
{
    if (strcmp(section, "filesystems") == 0)
        return ingest_fs_map_add(&cfg->fs_map, key, value, err);
    if (strcmp(section, "database") == 0 && strcmp(key, "conninfo") == 0) {
        snprintf(cfg->db_arg, sizeof cfg->db_arg, "%s", value);
        return STATUS_OK;
    }
    if (strcmp(section, "serve") == 0) {
        if (strcmp(key, "listen") == 0) {
            char host[256];
            int port = 0;
            struct error why = {0};
            if (serve_listen_parse(value, host, sizeof host, &port, &why) != STATUS_OK)
                return error_at(err, STATUS_PARSE, path, line, "[serve] %s", why.msg);
            snprintf(cfg->listen, sizeof cfg->listen, "%s", value);
        } else if (strcmp(key, "token") == 0) {
            snprintf(cfg->token, sizeof cfg->token, "%s", value);
        } else if (strcmp(key, "cors_origin") == 0) {
            snprintf(cfg->cors_origin, sizeof cfg->cors_origin, "%s", value);
        } else {
            return error_at(err, STATUS_PARSE, path, line,
                            "expected listen, token or cors_origin in [serve], got '%s'",
                            key);
        }
        return STATUS_OK;
    }
    if (strcmp(section, "devices") == 0 && strcmp(key, "include") == 0) {
        /* Compiled now, so that a typo stops the program naming the key rather than
         * quarantining every iostat file as unreadable. */
        regex_t re;
        int rc = regcomp(&re, value, REG_EXTENDED | REG_NOSUB);
        if (rc != 0) {
            char why[128];
            regerror(rc, &re, why, sizeof why);
            return error_at(err, STATUS_PARSE, path, line,
                            "expected a POSIX extended regex in [devices] include, got "
                            "'%.60s': %s",
                            value, why);
        }
        regfree(&re);
        if (strlen(value) >= sizeof cfg->device_include) {
            return error_at(err, STATUS_PARSE, path, line,
                            "[devices] include is longer than %zu bytes",
                            sizeof cfg->device_include - 1);
        }
        snprintf(cfg->device_include, sizeof cfg->device_include, "%s", value);
        return STATUS_OK;
    }
    if (strcmp(section, "samples") == 0 && strcmp(key, "sample_offset_s") == 0)
        return parse_double(value, &cfg->sample_offset_s, path, line, err);
    if (strcmp(section, "analysis") == 0 && strcmp(key, "sweep_phases") == 0) {
        if (strcmp(value, "all") != 0 && strcmp(value, "0") != 0) {
            return error_at(err, STATUS_PARSE, path, line,
                            "expected sweep_phases = 0 or all, got '%s'", value);
        }
        cfg->sweep_all_phases = strcmp(value, "all") == 0;
        return STATUS_OK;
    }
    if (strcmp(section, "analysis") == 0) {
        double v = 0;
        enum status rc = parse_double(value, &v, path, line, err);
        if (rc != STATUS_OK)
            return rc;
        if (strcmp(key, "d_min") == 0 && v >= 2) {
            cfg->d_min = (size_t)v;
        } else if (strcmp(key, "seed") == 0 && v >= 0) {
            cfg->seed = (unsigned long)v;
        } else if (strcmp(key, "granularity_s") == 0 && v >= 0) {
            cfg->granularity_s = v;
        } else if (strcmp(key, "sweep_k_max") == 0 && v >= 1 && v <= SWEEP_K_LIMIT &&
                   v == floor(v)) {
            cfg->sweep_k_max = (unsigned)v;
        } else if (strcmp(key, "permutations") == 0 && v >= 0 &&
                   v <= ANALYZE_PERMUTATIONS_MAX && v == floor(v)) {
            cfg->permutations = (size_t)v;
        } else {
            return error_at(err, STATUS_PARSE, path, line,
                            "expected d_min >= 2, seed, granularity_s, sweep_k_max "
                            "(1 to %d), permutations (0 to %d) or sweep_phases in "
                            "[analysis], got %s = %s",
                            SWEEP_K_LIMIT, ANALYZE_PERMUTATIONS_MAX, key, value);
        }
        return STATUS_OK;
    }
    if (strcmp(section, "groups") == 0 || strcmp(section, "database") == 0 ||
        strcmp(section, "devices") == 0)
        return STATUS_OK; /* keys for later work; accepted so that configs stay valid */
    return error_at(err, STATUS_PARSE, path, line, "unknown section or key [%s] %s",
                    section, key);
}

static enum status read_file(struct app_config *cfg, const char *path, struct error *err)
{
    FILE *fp = fopen(path, "r");
    char *line = NULL;
    size_t cap = 0;
    long lineno = 0;
    char section[64] = "";
    enum status rc = STATUS_OK;

    if (fp == NULL) {
        return error_at(err, STATUS_NOT_FOUND, path, 0, "cannot open: %s",
                        strerror(errno));
    }
    while (rc == STATUS_OK && getline(&line, &cap, fp) != -1) {
        char *s = trim(line);
        lineno++;
        if (*s == '\0' || *s == '#' || *s == ';')
            continue;
        if (*s == '[') {
            char *close = strchr(s, ']');
            if (close == NULL) {
                rc = error_at(err, STATUS_PARSE, path, lineno,
                              "expected ']' after section");
                break;
            }
            *close = '\0';
            snprintf(section, sizeof section, "%s", trim(s + 1));
            continue;
        }
        char *eq = strchr(s, '=');
        if (eq == NULL) {
            rc = error_at(err, STATUS_PARSE, path, lineno,
                          "expected key = value, got '%.60s'", s);
            break;
        }
        *eq = '\0';
        rc = set_key(cfg, section, trim(s), trim(eq + 1), path, lineno, err);
    }
    free(line);
    fclose(fp);
    if (rc == STATUS_OK)
        snprintf(cfg->config_path, sizeof cfg->config_path, "%s", path);
    return rc;
}

enum status app_config_load(struct app_config *cfg, const char *path, struct error *err)
{
    const char *env;
    enum status rc;

    memset(cfg, 0, sizeof *cfg);
    snprintf(cfg->listen, sizeof cfg->listen, "127.0.0.1:8080");
    snprintf(cfg->device_include, sizeof cfg->device_include, "%s",
             INGEST_DEFAULT_DEVICE_INCLUDE);
    cfg->d_min = 10;
    cfg->seed = 20240601UL;
    cfg->sweep_k_max = 20;
    cfg->permutations = 999;
    if (path == NULL && access(DEFAULT_CONFIG_PATH, R_OK) == 0)
        path = DEFAULT_CONFIG_PATH;
    if (path != NULL) {
        rc = read_file(cfg, path, err);
        if (rc != STATUS_OK)
            return rc;
    }
    env = getenv("IOCONTEND_LISTEN");
    if (env != NULL && env[0] != '\0')
        snprintf(cfg->listen, sizeof cfg->listen, "%s", env);
    env = getenv("IOCONTEND_TOKEN");
    if (env != NULL && env[0] != '\0')
        snprintf(cfg->token, sizeof cfg->token, "%s", env);
    env = getenv("IOCONTEND_SAMPLE_OFFSET_S");
    if (env != NULL && env[0] != '\0') {
        return parse_double(env, &cfg->sample_offset_s, "IOCONTEND_SAMPLE_OFFSET_S", 0,
                            err);
    }
    return STATUS_OK;
}

enum status app_config_read(struct app_config *cfg, const char *path, struct error *err)
{
    return read_file(cfg, path, err);
}

void app_config_clear(struct app_config *cfg)
{
    ingest_fs_map_clear(&cfg->fs_map);
}

void app_config_print(const struct app_config *cfg, FILE *fp)
{
    struct db_target t;
    struct error err = {0};

    fprintf(fp, "# effective configuration (file: %s)\n",
            cfg->config_path[0] != '\0' ? cfg->config_path : "none");
    fprintf(fp, "[database]\n");
    if (db_target_resolve(cfg->db_arg, &t, &err) == STATUS_OK) {
        fprintf(fp, "# %s\n", t.reason);
        /* Comments: what was decided, not keys to read back; a conninfo may hold a
         * password, so only whether it is set is shown. */
        if (t.embedded) {
            fprintf(fp, "# state_dir: %s\n# socket_dir: %s\n", t.state_dir, t.socket_dir);
        } else {
            fprintf(fp, "# conninfo: %s\n",
                    t.conninfo[0] != '\0' ? "(set, not shown)" : "(PG* variables)");
        }
    }
    fprintf(fp, "\n[serve]\nlisten = %s\n", cfg->listen);
    if (cfg->token[0] != '\0') {
        fprintf(fp, "# token: (set, not shown)\n");
    } else {
        fprintf(fp, "token =\n");
    }
    fprintf(fp, "cors_origin = %s\n", cfg->cors_origin);
    fprintf(fp, "\n[filesystems]\n");
    for (size_t i = 0; i < cfg->fs_map.n; i++) {
        fprintf(fp, "%s = %s\n", cfg->fs_map.entries[i].prefix,
                cfg->fs_map.entries[i].fs_name);
    }
    fprintf(fp, "\n[devices]\ninclude = %s\n", cfg->device_include);
    fprintf(fp, "\n[samples]\nsample_offset_s = %.17g\n", cfg->sample_offset_s);
    fprintf(fp, "\n[analysis]\nd_min = %zu\nseed = %lu\ngranularity_s = %.17g\n",
            cfg->d_min, cfg->seed, cfg->granularity_s);
    fprintf(fp, "sweep_k_max = %u\nsweep_phases = %s\npermutations = %zu\n",
            cfg->sweep_k_max, cfg->sweep_all_phases ? "all" : "0", cfg->permutations);
}
