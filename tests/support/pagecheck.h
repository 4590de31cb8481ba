/* pagecheck.h: the dashboard page (web/index.html) checked whole in a browser: every
 * chart drawn, no console error, and every number it shows the API's (include after
 * <cmocka.h> and webdriver.h). For the page tests and for tests on other data sets. */
#ifndef IOCONTEND_PAGECHECK_H
#define IOCONTEND_PAGECHECK_H

#include <jansson.h>
#include <stddef.h>

struct webdriver;

/* What one check saw; the checks add to it. */
struct pagecheck_counts {
    size_t groups;         /* groups /api/v1/groups lists */
    size_t charts;         /* Vega views compared with the API */
    size_t tables;         /* tables compared with the API (coefficients, slowdowns,
                              prediction) */
    size_t numbers;        /* numbers compared */
    size_t mismatches;     /* numbers or rows that differ from the API's (each printed) */
    size_t missing;        /* charts or tables absent that the API's answers call for */
    size_t errors_shown;   /* <p class="error"> elements on the page (each printed) */
    size_t console_errors; /* the browser console's errors while the page ran */
    size_t points;         /* scatter points compared */
    size_t buckets;        /* coverage buckets compared */
    size_t sweeps;         /* stored sweep pairs compared */
};

/* Opens url in wd and waits (up to the driver's script timeout) until the page's
 * window.iocontendDone settles; adds the console's errors since the last read to
 * *console_errors (each printed). 0 when the promise resolved, -1 (the reason printed)
 * when it rejected. */
int pagecheck_open(struct webdriver *wd, const char *url, size_t *console_errors);

/* The page at http://127.0.0.1:port/path (e.g. "/"), opened in wd with token (NULL:
 * none; put into the page's session storage as its field would) and checked against
 * the API of the same server: each group's coefficient table, T^D histogram,
 * scatter (its points, the KDE's band, the forest where its OOB R² is above 0), the
 * sweep of every stored pair, drawn at once for a group at or above d_min and, for
 * one below, only once its button is clicked (pagecheck_groups clicks it);
 * the coverage buckets; the slowdown table; the prediction. counts (may be NULL)
 * receives what was seen. Returns 0 when every chart the API's answers call for was
 * drawn, with no error shown, no console error and no number off; -1 otherwise, each
 * problem printed. Fails the test when the browser or the server does not answer. */
int pagecheck_page(struct webdriver *wd, int port, const char *path, const char *token,
                   struct pagecheck_counts *counts);

/* The parts of pagecheck_page, on the page already open in wd (the API asked with
 * token, NULL: none); each adds to c and returns the problems it found (0: none).
 * pagecheck_views: all of them. */
size_t pagecheck_views(struct webdriver *wd, int port, const char *token,
                       struct pagecheck_counts *c);
size_t pagecheck_groups(struct webdriver *wd, int port, const char *token,
                        struct pagecheck_counts *c);
/* The coverage chart against /coverage?fs=all&points=N (and &from=&to= once a drag
 * zoomed it), N the figure's data-points. The sweep chart key (a Vega view of the page
 * or of `report sweep`) against every
 * pair group g (an object of /api/v1/groups) has stored: its stored.sweeps, or every
 * pair that answers when the list does not say. */
size_t pagecheck_sweep(struct webdriver *wd, int port, const char *token, const json_t *g,
                       const char *key, struct pagecheck_counts *c);
size_t pagecheck_coverage(struct webdriver *wd, int port, const char *token,
                          struct pagecheck_counts *c);
size_t pagecheck_slowdowns(struct webdriver *wd, int port, const char *token,
                           struct pagecheck_counts *c);
size_t pagecheck_prediction(struct webdriver *wd, int port, const char *token,
                            struct pagecheck_counts *c);

#endif
