#!/bin/sh
# iocontend-nightly: the night's work of iocontend-nightly.service: ingest the new
# Darshan logs and server samples, then analyze (and sweep). What to ingest comes
# from @SYSCONFDIR@/iocontend/nightly.conf (IOCONTEND_NIGHTLY_CONF: another file),
# read as sh, so that cron can run this as systemd does:
#   IOCONTEND_DARSHAN  Darshan log directories. One laid out by darshan's
#                      darshan-mk-log-dirs (DIR/YYYY/M/D) gives only the days of
#                      IOCONTEND_DAYS back (default 2: yesterday and today, for the
#                      jobs that ended after the last run); another is walked whole.
#   IOCONTEND_IOSTAT   FS=PATH pairs: iostat / sadf / sa files or directories of the
#                      file system FS (a grown file loads only its new reports).
#   IOCONTEND_JOBS     files ingest reads at a time (--threads; default 4, so that
#                      the unit's MemoryMax holds whatever the processor count).
#   IOCONTEND_STEP_TIMEOUT  how long one step may take (timeout(1): 2h by default,
#                      0 for no limit): a step over it is stopped (status 124), so
#                      that a file that never ends costs that step, not the night.
#   IOCONTEND_SWEEP    1: also analyze --sweep (default 0).
#   IOCONTEND_REPORT_DIR  a directory: at the end, `report night` of the last 24
#                      hours into DIR/night-YYYY-MM-DD.html (UTC; default: none).
#   IOCONTEND_OPTIONS  global options for every command (e.g. --config PATH).
# Every step runs even when one before it failed; the exit status is the first
# that says a step did not run (64 and up), else 1 when inputs were quarantined or
# jobs excluded, else 0.
set -u
conf=${IOCONTEND_NIGHTLY_CONF:-@SYSCONFDIR@/iocontend/nightly.conf}
if [ -r "$conf" ]; then
    # shellcheck source=/dev/null
    . "$conf"
fi
bin=${IOCONTEND_NIGHTLY_BIN:-@BINDIR@/iocontend}
days=${IOCONTEND_DAYS:-2}
jobs=${IOCONTEND_JOBS:-4}
step_timeout=${IOCONTEND_STEP_TIMEOUT:-2h}
worst=0

# Keeps the status that matters most: a failure (64 and up) over a partial run (1).
note() {
    if [ "$1" -ge 64 ]; then
        [ "$worst" -ge 64 ] || worst=$1
    elif [ "$1" -ne 0 ] && [ "$worst" -eq 0 ]; then
        worst=$1
    fi
}

run() {
    echo "iocontend-nightly: $*"
    # SIGTERM at the limit (iocontend stops cleanly), SIGKILL a minute later.
    # shellcheck disable=SC2086 # the options are words
    timeout --kill-after=60 "$step_timeout" "$bin" ${IOCONTEND_OPTIONS:-} "$@"
    note $?
}

case $days in
'' | *[!0-9]*)
    echo "iocontend-nightly: IOCONTEND_DAYS must be a number of days, got '$days'" >&2
    exit 64
    ;;
esac
case $jobs in
'' | 0* | *[!0-9]*)
    echo "iocontend-nightly: IOCONTEND_JOBS must be a number of threads, got '$jobs'" >&2
    exit 64
    ;;
esac
case $step_timeout in
'' | *[!0-9smhd]* | [!0-9]* | *[smhd]?*)
    echo "iocontend-nightly: IOCONTEND_STEP_TIMEOUT must be a duration (2h, 30m), got" \
        "'$step_timeout'" >&2
    exit 64
    ;;
esac

# The day directories of a darshan log tree, the oldest first; the tree itself when
# it is not laid out by day.
darshan_paths() {
    if ! ls -d "$1"/[0-9][0-9][0-9][0-9] >/dev/null 2>&1; then
        printf '%s\n' "$1"
        return
    fi
    n=$((days - 1))
    while [ "$n" -ge 0 ]; do
        d="$1/$(date -d "$n days ago" +%Y/%-m/%-d)"
        [ -d "$d" ] && printf '%s\n' "$d"
        n=$((n - 1))
    done
}

newline='
'
for dir in ${IOCONTEND_DARSHAN:-}; do
    paths=$(darshan_paths "$dir")
    if [ -z "$paths" ]; then
        echo "iocontend-nightly: $dir: no log directory of the last $days days"
        continue
    fi
    # One path a line (darshan_paths'): split on newlines only.
    IFS=$newline
    # shellcheck disable=SC2086
    set -- $paths
    unset IFS
    run ingest darshan --threads "$jobs" "$@"
done

for pair in ${IOCONTEND_IOSTAT:-}; do
    fs=${pair%%=*}
    path=${pair#*=}
    if [ "$fs" = "$pair" ] || [ -z "$fs" ] || [ -z "$path" ]; then
        echo "iocontend-nightly: IOCONTEND_IOSTAT takes FS=PATH pairs, got '$pair'" >&2
        note 64
        continue
    fi
    run ingest iostat --fs "$fs" --threads "$jobs" "$path"
done

run analyze
if [ "${IOCONTEND_SWEEP:-0}" = 1 ]; then
    run analyze --sweep
fi
if [ -n "${IOCONTEND_REPORT_DIR:-}" ]; then
    run report night --out "$IOCONTEND_REPORT_DIR/night-$(date -u +%Y-%m-%d).html"
fi
exit "$worst"
