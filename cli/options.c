/* options.c: a command's options from its table: getopt_long driven by the rows, the
 * flags, texts and bounded whole numbers set here, the rest handed back to the
 * command's own switch. */
#include "internal.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* getopt_long's value for --help: past every row's (1 to APP_OPTIONS_MAX). */
#define HELP (APP_OPTIONS_MAX + 1)

void app_options_init(struct app_options *p, const char *cmd,
                      const struct app_option *opts, void (*help)(FILE *fp), int argc,
                      char **argv)
{
    size_t n = 0;

    memset(p, 0, sizeof *p);
    p->cmd = cmd;
    p->opts = opts;
    p->help = help;
    p->argc = argc;
    p->argv = argv;
    p->status = -1;
    for (; n < APP_OPTIONS_MAX && opts[n].name != NULL; n++) {
        p->longopts[n] = (struct option){
            opts[n].name, opts[n].kind == OPT_FLAG ? no_argument : required_argument,
            NULL, (int)n + 1};
    }
    p->longopts[n++] = (struct option){"help", no_argument, NULL, HELP};
    p->longopts[n] = (struct option){NULL, 0, NULL, 0};
    optind = 1;
}

/* A whole number of the row's range (strtol's syntax), into *out. */
static bool whole_arg(const struct app_option *o, const char *arg, long *out)
{
    char *end;
    long v = strtol(arg, &end, 10);

    if (end == arg || *end != '\0' || v < o->min || v > o->max)
        return false;
    *out = v;
    return true;
}

int app_options_next(struct app_options *p)
{
    int c;

    while ((c = getopt_long(p->argc, p->argv, "", p->longopts, NULL)) != -1) {
        if (c == HELP) {
            p->help(stdout);
            p->status = EXIT_OK;
            return 0;
        }
        if (c < 1 || c > APP_OPTIONS_MAX) {
            if (!p->quiet_usage)
                p->help(stderr);
            p->status = EXIT_USAGE;
            return 0;
        }
        const struct app_option *o = &p->opts[c - 1];
        p->arg = optarg;
        switch (o->kind) {
        case OPT_FLAG: *(bool *)o->field = true; break;
        case OPT_TEXT: *(const char **)o->field = optarg; break;
        case OPT_WHOLE:
            if (!whole_arg(o, optarg, o->field)) {
                fprintf(stderr, "iocontend %s: --%s takes %s%ld to %ld, got '%s'\n",
                        p->cmd, o->name, o->what, o->min, o->max, optarg);
                p->status = EXIT_USAGE;
                return 0;
            }
            break;
        case OPT_OWN:
        default: return o->id;
        }
        if (o->id != 0)
            return o->id;
    }
    return 0;
}

int app_options_all(struct app_options *p)
{
    while (app_options_next(p) != 0)
        continue;
    return p->status;
}

/* The index in argv of the first word that is not an option, once app_options_next
 * has returned 0. */
int app_options_rest(const struct app_options *p)
{
    (void)p;
    return optind;
}
