# shellcheck shell=bash
# lib.sh: what the make bench sections after bench/run.sh share (sourced, not run):
# number formats, the ratio, the verdict line, and the threads pinned to one.
# The conventions are bench/run.sh's: seconds to 3 significant digits, ratio = ref /
# ours, MB = 10^6 bytes, one "PASS" / "MISS" / "NOT RUN" line per target.

export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1

# "time NAME seconds ..." of a driver's output file: the seconds, or "-" when absent.
seconds() {
    [ -f "$1" ] || { echo "-"; return; }
    awk -v s="$2" '$1 == "time" && $2 == s { print $3; f = 1 } END { if (!f) print "-" }' "$1"
}

# "NAME value" lines (or any "KEY NAME value"): the value, or "-".
field() {
    [ -f "$1" ] || { echo "-"; return; }
    awk -v k="$2" -v n="$3" '$1 == k && $2 == n { print $3; f = 1; exit } END { if (!f) print "-" }' "$1"
}

fmt_s() {
    case "$1" in
    n/a | -) echo "$1" ;;
    *) awk -v t="$1" 'BEGIN { printf "%.3g\n", t }' ;;
    esac
}

# a rate as printed: whole from 100 up, else 3 significant digits
fmt_n() {
    case "$1" in
    - | n/a) echo "$1" ;;
    *) awk -v x="$1" 'BEGIN { if (x >= 100) printf "%.0f\n", x; else printf "%.3g\n", x }' ;;
    esac
}

ratio() {
    if [ "$1" = n/a ] || [ "$1" = - ] || [ "$2" = n/a ] || [ "$2" = - ]; then
        echo "-"
    else
        awk -v o="$1" -v r="$2" 'BEGIN { printf "%.1f\n", r / o }'
    fi
}

# max RSS in MB of a bench_assoc maxrss output, or "-"
rss_mb() {
    [ -f "$1" ] || { echo "-"; return; }
    awk '$1 == "maxrss_kb" { kb = $2 } END { if (kb == "") print "-";
         else printf "%.1f\n", kb * 1024 / 1e6 }' "$1"
}

target() { # verdict line: PASS / MISS / NOT RUN, then the text
    printf "%-7s %s\n" "$1" "$2"
}

# target_when TEST VALUE LIMIT TEXT SHOWN: PASS when the awk TEST of x = VALUE and l =
# LIMIT holds, then "TEXT: SHOWN"
target_when() {
    case "$2" in
    n/a | -) target MISS "$4: not measured" ;;
    *) target "$(awk -v x="$2" -v l="$3" "BEGIN { print ($1) ? \"PASS\" : \"MISS\" }")" "$4: $5" ;;
    esac
}

# target_below VALUE LIMIT TEXT UNIT: PASS when VALUE < LIMIT
target_below() { target_when "x < l" "$1" "$2" "$3" "$(fmt_s "$1") $4"; }

# target_at_least VALUE LIMIT TEXT UNIT: PASS when VALUE >= LIMIT
target_at_least() { target_when "x >= l" "$1" "$2" "$3" "$(fmt_n "$1") $4"; }

# cluster_state DIR FALLBACK: the state directory of a section's embedded cluster, DIR
# made absolute; as root the cluster runs as postgres, who must enter its path, so
# FALLBACK when postgres cannot enter DIR (said on stderr).
cluster_state() {
    local d
    d=$(realpath -m "$1")
    if [ "$(id -u)" -eq 0 ]; then
        mkdir -p "$d" || return 1
        if ! runuser -u postgres -- test -x "$d" 2> /dev/null; then
            echo "postgres cannot enter $d; the cluster goes to $2" >&2
            d=$2
        fi
    fi
    echo "$d"
}

section_header() { # the lines every section starts with; $2: ours' threads, when not one
    echo "== bench: $1"
    echo "cpu: $(getconf _NPROCESSORS_ONLN) x $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
    echo "load average at start: $(cut -d ' ' -f 1-3 /proc/loadavg) (other work on the machine skews times)"
    echo "threads: ref one (OMP / OpenBLAS / MKL pinned to 1); ours ${2:-one}"
}
