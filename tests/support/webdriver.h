/* webdriver.h: Debian's chromedriver, headless chromium behind it, driven over HTTP
 * by the W3C WebDriver protocol (include after <cmocka.h>). */
#ifndef IOCONTEND_WEBDRIVER_H
#define IOCONTEND_WEBDRIVER_H

#include <jansson.h>
#include <sys/types.h>

#define WEBDRIVER_BIN "/usr/bin/chromedriver"

/* One chromedriver with one browser session. */
struct webdriver {
    pid_t pid;         /* chromedriver, leader of its own process group; 0: none */
    int port;          /* chromedriver's port on 127.0.0.1 */
    char session[128]; /* the session id, "" when none */
    char dir[512];     /* its profile and log folder */
};

/* Starts chromedriver on a free port and a headless chromium session (--no-sandbox,
 * a fresh profile under work_dir, the browser's console kept) with a window of
 * width × height px. 0 on success; -1 with the reason on stderr, having cleaned up. */
int webdriver_start(struct webdriver *wd, const char *work_dir, int width, int height);
/* Ends the session and kills chromedriver's process group (chromium with it). Safe to
 * call twice and on a wd that never started. */
void webdriver_stop(struct webdriver *wd);
/* Resizes the window. Fails the test when the browser refuses. */
void webdriver_resize(struct webdriver *wd, int width, int height);
/* Loads url and waits for its load event. Fails the test when it cannot. */
void webdriver_open(struct webdriver *wd, const char *url);
/* Runs script (a function body; the last of its arguments is the callback when async)
 * with args (a JSON array, borrowed; NULL: none) and returns its value, which the
 * caller json_decref's. Fails the test on a script error. */
json_t *webdriver_run(struct webdriver *wd, const char *script, const json_t *args,
                      int async);
/* The browser's console entries since the last call, as an array of {level, message,
 * source}; the caller json_decref's. */
json_t *webdriver_console(struct webdriver *wd);
/* The number of entries of a webdriver_console() array at level SEVERE, each printed. */
size_t webdriver_errors(const json_t *console);
/* Types text into the element css selects (its first match), as a person would: keys
 * "\xee\x80\x87" (U+E007) is Enter. Fails the test when there is no such element. */
void webdriver_type(struct webdriver *wd, const char *css, const char *text);
/* Clicks the element css selects. Fails the test when there is no such element. */
void webdriver_click(struct webdriver *wd, const char *css);
/* Drags the mouse with its left button down from (x0, y0) to (x1, y1), in CSS pixels
 * of the viewport. Fails the test when the browser refuses. */
void webdriver_drag(struct webdriver *wd, int x0, int y0, int x1, int y1);
/* Saves a PNG of the window into path. Fails the test when it cannot. */
void webdriver_screenshot(struct webdriver *wd, const char *path);

#endif
