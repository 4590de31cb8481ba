#!/bin/bash
# history.sh: make bench, section "history" (issue 34, item 4): does `iocontend analyze`
# stay as fast and as small when the stored history grows and the jobs do not? The same
# 180 generated jobs (60 per group, seed 20240601) over 3, 30 and 365 days of 60 s
# samples and over 1 and 30 days of 1 s samples (8 servers: the generator's 2 file
# systems x 4), through the real path: iocontend-gen, ingest into an embedded cluster
# per size, `iocontend analyze --force`; then one more night on the longest history of
# each rate, and the coverage chart's query on it.
#
# Usage: bash bench/history.sh BUILD. Environment:
#   BENCH_HISTORY_SIZES       the histories, each <days>d<interval s> ("3d60 30d60
#                             365d60 1d1 30d1"); any days 1-400 and any divisor of 60,
#                             so "3d60 6d60 1d1" checks the section in a few minutes
#   BENCH_HISTORY_REPS        analyze runs per size, best kept (3)
#   BENCH_HISTORY_CHUNK_DAYS  days generated and loaded at a time (2 x the interval in
#                             s, at most 60: under ~1.2 GB of text at 70 MB per server
#                             per day of 1 s samples)
#
# Making a history is not what is measured and takes long at 1 s (30 days: about 16 GB
# of iostat text; 1 day took 29 s here, 930 MB of cluster), so each cluster is made once
# and kept under BUILD/bench/history/state-<days>d-<interval>s (30d1: 13.4 GB of
# cluster on 2026-12-07, all five 21 GB after their nights; `make clean` removes
# them), written and loaded a chunk of days at a time
# (--iostat-days F-L: the same bytes as the whole series' days), each chunk's text
# removed once loaded, so that the disk never holds more than one chunk; ingested.txt
# records how long that took. The cluster's iocontend.conf is the generator's with
# [ingest] max_file_bytes raised to 1 GiB: a server's day of 1 s samples (70 MB) is
# above the 64 MiB default.
#
# Measured: the whole `analyze --force` command (--force: it computes whatever is
# stored), best of BENCH_HISTORY_REPS, the runs alternating over the sizes (run 1 of
# every size, then run 2, ...) so that a slow spell of the machine hits all alike;
# peak RSS is the largest over the runs (bench_assoc maxrss), not the best run's. The
# runs' answers (the group and summary lines of analyze's log, without the times) must
# be the same.
#
# One more night, on the longest history of each rate: a separate one-day set,
# `iocontend-gen --days 1 --seed 7 --jobs-per-group 60 --interval-s S`, moved D days on
# so that it is the night after a D-day history: every set starts 2026-11-20, and
# loaded as it is its samples fall on the history's first day, where ingest keeps the
# first values ("loaded before with rates that differ ... the first values stay") and
# stores no new sample. The move rewrites the iostat timestamps (and the header's date)
# and the darshan logs' start and end times, and the files' mtimes (ingest sets aside
# an iostat stamp more than a day after its file's mtime); the rest of the bytes are
# the generator's.
# Its first report (00:00 of day D+1, the history's last) is iostat's since-boot
# one, which ingest drops, so the night adds 8 servers x 2 devices x 86400 / S samples
# and overlaps none of the history's (no "loaded before" warning). Timed: its ingest
# (iostat of both file systems, then darshan) and the nightly `analyze` (no --force:
# every group has new jobs), each and together. Then the night is unloaded
# (`iocontend unload --run` of its three ingest runs, newest first), `analyze --force`
# restores the stored results, and its answers are checked against those before the
# night: the kept cluster is left as it was, and no copy of it is needed.
set -u
build=${1:-build}
# shellcheck source=bench/lib.sh
. bench/lib.sh
sizes=${BENCH_HISTORY_SIZES:-3d60 30d60 365d60 1d1 30d1}
reps=${BENCH_HISTORY_REPS:-3}
seed=20240601
night_seed=7
jpg=60
epoch0=1795132800 # 2026-11-20 00:00:00 UTC, where every generated series starts
bin=$build/iocontend
gen=$build/iocontend-gen
runner=$build/bench/bench_assoc
base=$build/bench/history
dir=$base/run
failed=0
t_start=$(date +%s)

section_header "iocontend analyze over 3 days to a year of stored samples, the same 180 jobs"
mkdir -p "$dir" || exit 1
rm -rf "${dir:?}"/*

# The sizes: "<days>d<interval>", checked before anything is made.
tags=
for s in $sizes; do
    if ! [[ $s =~ ^([0-9]+)d([0-9]+)$ ]] || [ "${BASH_REMATCH[1]}" -lt 1 ] ||
        [ "${BASH_REMATCH[1]}" -gt 400 ] || [ "${BASH_REMATCH[2]}" -lt 1 ] ||
        [ $((60 % BASH_REMATCH[2])) -ne 0 ]; then
        echo "bench history: BENCH_HISTORY_SIZES: $s is not <days 1-400>d<a divisor of 60>"
        exit 64
    fi
    tags="$tags $s"
done
days_of() { echo "${1%d*}"; }
ival_of() { echo "${1#*d}"; }

declare -A state
serve_pid=
# Every cluster and the server stop however the section ends.
cleanup() {
    [ -n "$serve_pid" ] && kill "$serve_pid" 2> /dev/null && wait "$serve_pid" 2> /dev/null
    serve_pid=
    local t
    for t in "${!state[@]}"; do
        IOCONTEND_STATE_DIR=${state[$t]} "$bin" db stop > /dev/null 2>&1
    done
}
trap cleanup EXIT

# ioc TAG ARGS...: iocontend on that size's cluster, with its configuration
ioc() {
    local t=$1
    shift
    IOCONTEND_STATE_DIR=${state[$t]} "$bin" --config "${state[$t]}/iocontend.conf" "$@"
}

# json_n FILE KEY: a number of ingest's --json summary, 0 when absent
json_n() {
    sed -n "s/.*\"$2\":\([0-9]*\).*/\1/p" "$1" | awk '{ n += $1 } END { print n + 0 }'
}

elapsed() { awk -v a="$(date +%s.%N)" -v b="$1" 'BEGIN { printf "%.1f\n", a - b }'; }

# make_history TAG: the cluster of TAG made from nothing, a chunk of days at a time.
make_history() {
    local t=$1 st=${state[$1]} d s chunk out f l rc t0 t_all tg=0 ti=0 td samples=0 mb=0 jobs c
    d=$(days_of "$t")
    s=$(ival_of "$t")
    chunk=${BENCH_HISTORY_CHUNK_DAYS:-$((2 * s > 60 ? 60 : 2 * s))}
    out=$base/chunk-$t
    rm -rf "$st" "$out"
    mkdir -p "$st" && chmod 755 "$st" || return 1
    echo "making $t: $d days of $s s samples, $jpg jobs per group, $chunk days a chunk (kept in $st)"
    t_all=$(date +%s.%N)
    f=1
    while [ "$f" -le "$d" ]; do
        l=$((f + chunk - 1 > d ? d : f + chunk - 1))
        t0=$(date +%s.%N)
        "$gen" --out "$out" --seed "$seed" --days "$d" --interval-s "$s" \
            --jobs-per-group "$jpg" --iostat-days "$f-$l" > "$dir/gen-$t.log" 2>&1 || {
            echo "bench history: iocontend-gen exited $? on days $f-$l of $t:"
            tail -n 5 "$dir/gen-$t.log"
            rm -rf "$out"
            return 1
        }
        tg=$(awk -v a="$tg" -v b="$(elapsed "$t0")" 'BEGIN { print a + b }')
        # A day of 1 s samples is 70 MB a server, a chunk's file twice that: above
        # ingest's 64 MiB default cap on one input, which a site with 1 s sampling
        # raises the same way.
        if [ ! -f "$st/iocontend.conf" ]; then
            { cat "$out/iocontend.conf" && printf "\n[ingest]\nmax_file_bytes = 1073741824\n"; } \
                > "$st/iocontend.conf" || return 1
        fi
        mb=$((mb + $(du -sm "$out/iostat" | cut -f 1)))
        t0=$(date +%s.%N)
        for fs in "$out/iostat"/*; do
            ioc "$t" --quiet ingest iostat --json --fs "$(basename "$fs")" "$fs" \
                > "$dir/ingest-$t.json" 2> "$dir/ingest-$t.log"
            rc=$?
            if [ "$rc" -ne 0 ]; then
                echo "bench history: ingest iostat of days $f-$l of $t exited $rc:"
                tail -n 5 "$dir/ingest-$t.log"
                grep -o '"message":"[^"]*"' "$dir/ingest-$t.json" | head -n 3
                rm -rf "$out"
                return 1
            fi
            samples=$((samples + $(json_n "$dir/ingest-$t.json" samples)))
        done
        ti=$(awk -v a="$ti" -v b="$(elapsed "$t0")" 'BEGIN { print a + b }')
        # the text of a chunk goes once loaded; the darshan logs (the same each
        # chunk) of the last are loaded below
        rm -rf "$out/iostat"
        echo "  $t: days $l / $d loaded, $(elapsed "$t_all") s"
        f=$((l + 1))
    done
    t0=$(date +%s.%N)
    ioc "$t" --quiet ingest darshan --json "$out/darshan" > "$dir/ingest-$t.json" 2> "$dir/ingest-$t.log"
    rc=$?
    td=$(elapsed "$t0")
    if [ "$rc" -ne 0 ]; then
        echo "bench history: ingest darshan of $t exited $rc:"
        tail -n 5 "$dir/ingest-$t.log"
        grep -o '"message":"[^"]*"' "$dir/ingest-$t.json" | head -n 3
        rm -rf "$out"
        return 1
    fi
    jobs=$(json_n "$dir/ingest-$t.json" jobs)
    c=$(du -sm "$st" | cut -f 1)
    rm -rf "$out"
    printf "days %s\ninterval_s %s\njobs %s\nsamples %s\ntext_mb %s\ncluster_mb %s\ngen_s %.1f\ningest_iostat_s %.1f\ningest_darshan_s %s\n" \
        "$d" "$s" "$jobs" "$samples" "$mb" "$c" "$tg" "$ti" "$td" > "$st/ingested.txt"
}

# The clusters: kept from an earlier run, else made; a size that cannot be made is
# left out (its targets say NOT RUN) and the section fails.
present=
for t in $tags; do
    st="$(days_of "$t")d-$(ival_of "$t")s"
    st=$(cluster_state "$base/state-$st" "/var/tmp/iocontend-bench-history-$st") || exit 1
    state[$t]=$st
    if [ -f "$st/ingested.txt" ]; then
        echo "$t: kept from an earlier run in $st"
    elif ! make_history "$t"; then
        failed=1
        IOCONTEND_STATE_DIR=$st "$bin" db stop > /dev/null 2>&1
        unset "state[$t]"
        continue
    fi
    if ! IOCONTEND_STATE_DIR=$st "$bin" db start > /dev/null 2>&1; then
        echo "bench history: the cluster of $t does not start"
        failed=1
        unset "state[$t]"
        continue
    fi
    awk '{ printf "%s ", $0 } END { print "" }' "$st/ingested.txt" | sed "s/^/ingest record $t: /"
    present="$present $t"
done

# analyze's answers without the times, the log's timestamps and how many of the
# coverage's days it computed (all on a first run, 0 then): the same every run
answers() {
    sed -n 's/^[^ ]* iocontend: info: //p' "$1" | grep -E '^(group |analyze: )' |
        sed 's/; [0-9.]* s$//; s/ ([0-9]* days of the scopes, [0-9]* computed, the rest as stored)$//'
}

# analyze --force on every size, run r of each before run r + 1 of any.
declare -A best rss
for t in $present; do best[$t]=-; rss[$t]=0; done
for r in $(seq 1 "$reps"); do
    for t in $present; do
        t0=$(date +%s.%N)
        IOCONTEND_STATE_DIR=${state[$t]} "$runner" maxrss "$bin" --config "${state[$t]}/iocontend.conf" \
            analyze --force > "$dir/rss-$t-$r.txt" 2> "$dir/analyze-$t-$r.log"
        rc=$?
        dt=$(elapsed "$t0")
        if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ]; then # 1: some jobs excluded
            echo "bench history: analyze of $t exited $rc:"
            tail -n 5 "$dir/analyze-$t-$r.log"
            failed=1
            continue
        fi
        best[$t]=$(awk -v t="$dt" -v b="${best[$t]}" 'BEGIN { print (b == "-" || t < b) ? t : b }')
        kb=$(awk '$1 == "maxrss_kb" { print $2 }' "$dir/rss-$t-$r.txt")
        [ "${kb:-0}" -gt "${rss[$t]}" ] && rss[$t]=$kb
        answers "$dir/analyze-$t-$r.log" > "$dir/answers-$t-$r.txt"
        if [ "$r" -gt 1 ] && ! cmp -s "$dir/answers-$t-1.txt" "$dir/answers-$t-$r.txt"; then
            echo "bench history: run $r of $t answered otherwise than run 1:"
            diff "$dir/answers-$t-1.txt" "$dir/answers-$t-$r.txt" | head -n 6
            failed=1
        fi
        echo "$t, run $r: $(fmt_s "$dt") s, $(tail -n 1 "$dir/answers-$t-$r.txt")"
    done
done
rss_of() { [ "${rss[$1]:-0}" -gt 0 ] && awk -v kb="${rss[$1]}" 'BEGIN { printf "%.1f\n", kb * 1024 / 1e6 }' || echo -; }

# The shortest and the longest history of each rate among those measured.
shortest() { for t in $present; do [ "$(ival_of "$t")" = "$1" ] && echo "$(days_of "$t") $t"; done | sort -n | head -n 1 | cut -d ' ' -f 2; }
longest() { for t in $present; do [ "$(ival_of "$t")" = "$1" ] && echo "$(days_of "$t") $t"; done | sort -n | tail -n 1 | cut -d ' ' -f 2; }
rates=$(for t in $present; do ival_of "$t"; done | sort -rn | uniq)

# The coverage chart's query on a size over the API, best of 3, each from a server of
# its own: serve keeps an answer in memory, so a second request would time the cache.
declare -A cov
coverage() {
    local t=$1 port=$((18500 + $$ % 400)) b=- x r
    for r in 1 2 3; do
        # the binary itself in the background (not ioc's subshell), so that kill ends it
        IOCONTEND_STATE_DIR=${state[$t]} "$bin" --config "${state[$t]}/iocontend.conf" \
            serve --listen "127.0.0.1:$port" > "$dir/serve-$t-$r.log" 2>&1 &
        serve_pid=$!
        for _ in $(seq 1 100); do
            curl -s -o /dev/null "http://127.0.0.1:$port/api/v1/health" && break
            sleep 0.1
        done
        x=$(curl -s -o "$dir/coverage-$t.json" -w '%{http_code} %{time_total}' \
            "http://127.0.0.1:$port/api/v1/coverage?points=1400")
        kill "$serve_pid" 2> /dev/null && wait "$serve_pid" 2> /dev/null
        serve_pid=
        if [ "${x% *}" != 200 ]; then
            echo "bench history: /coverage on $t answered ${x% *}"
            failed=1
            b=-
            break
        fi
        b=$(awk -v t="${x#* }" -v b="$b" 'BEGIN { print (b == "-" || t < b) ? t : b }')
    done
    cov[$t]=$b
}

# One more night on TAG (see the header): made, moved, loaded, analyzed, unloaded.
declare -A n_ingest n_analyze n_total
run_id() { sed -n 's/.*iocontend: info: ingest run \([0-9]*\):.*/\1/p' "$1" | tail -n 1; }
# move_file F: F.moved in place of F, written as much later as its content moved:
# ingest sets aside iostat stamps more than a day after their file was last written,
# and a night moved past the generator's mtime (now) would load none
move_file() {
    touch -d "@$(($(stat -c %Y "$1") + shift_s))" "$1.moved" && mv "$1.moved" "$1"
}
night() {
    local t=$1 d s out shift_s t0 t1 t2 rc=0 ids='' id f
    d=$(days_of "$t")
    s=$(ival_of "$t")
    out=$(realpath -m "$base/night-$t") # as the quarantine list names its files
    shift_s=$((d * 86400))
    rm -rf "$out"
    "$gen" --out "$out" --seed "$night_seed" --days 1 --interval-s "$s" \
        --jobs-per-group "$jpg" > "$dir/gen-night-$t.log" 2>&1 || return 1
    for f in "$out"/iostat/*/*; do
        awk -v sh="$shift_s" -v t0="$epoch0" 'BEGIN {
                for (i = 0; i < 2; i++)
                    m[strftime("%m/%d/%y", t0 + i * 86400, 1)] = strftime("%m/%d/%y", t0 + i * 86400 + sh, 1) }
            NR == 1 || /^[0-9][0-9]\/[0-9][0-9]\/[0-9][0-9] / {
                for (k in m) if (index($0, k)) { sub(k, m[k]); break } }
            { print }' "$f" > "$f.moved" && move_file "$f" || return 1
    done
    for f in "$out"/darshan/*/*; do
        awk -v sh="$shift_s" '
            /^# (start|end)_time: / { w = $3 + sh; printf "%s %s %.0f\n", $1, $2, w; next }
            /^# (start|end)_time_asci: / { printf "%s %s %s\n", $1, $2, strftime("%a %b %e %H:%M:%S %Y", w, 1); next }
            { print }' "$f" > "$f.moved" && move_file "$f" || return 1
    done
    t0=$(date +%s.%N)
    for f in "$out/iostat"/*; do
        ioc "$t" ingest iostat --fs "$(basename "$f")" "$f" > /dev/null 2> "$dir/night-$t-iostat.log"
        rc=$?
        cat "$dir/night-$t-iostat.log" >> "$dir/night-$t.log"
        id=$(run_id "$dir/night-$t-iostat.log")
        [ -n "$id" ] && ids="$ids $id"
        [ "$rc" -eq 0 ] || { echo "bench history: night ingest iostat on $t exited $rc:"; tail -n 5 "$dir/night-$t-iostat.log"; break; }
    done
    if [ "$rc" -eq 0 ]; then
        ioc "$t" ingest darshan "$out/darshan" > /dev/null 2> "$dir/night-$t-darshan.log"
        rc=$?
        cat "$dir/night-$t-darshan.log" >> "$dir/night-$t.log"
        id=$(run_id "$dir/night-$t-darshan.log")
        [ -n "$id" ] && ids="$ids $id"
        [ "$rc" -eq 0 ] || { echo "bench history: night ingest darshan on $t exited $rc:"; tail -n 5 "$dir/night-$t-darshan.log"; }
    fi
    t1=$(date +%s.%N)
    if [ "$rc" -eq 0 ]; then
        ioc "$t" analyze > /dev/null 2> "$dir/night-$t-analyze.log"
        rc=$?
        t2=$(date +%s.%N)
        if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ]; then
            echo "bench history: night analyze on $t exited $rc:"
            tail -n 5 "$dir/night-$t-analyze.log"
        else
            rc=0
            n_ingest[$t]=$(awk -v a="$t1" -v b="$t0" 'BEGIN { print a - b }')
            n_analyze[$t]=$(awk -v a="$t2" -v b="$t1" 'BEGIN { print a - b }')
            n_total[$t]=$(awk -v a="$t2" -v b="$t0" 'BEGIN { print a - b }')
            grep -h -E 'new jobs|analyze: [0-9]+ groups' "$dir/night-$t.log" "$dir/night-$t-analyze.log" |
                sed "s/^[^ ]* iocontend: info: /  night $t: /"
        fi
    fi
    # The undo, whatever happened: every run the night made, newest first.
    for id in $(echo "$ids" | tr ' ' '\n' | sort -rn); do
        ioc "$t" unload --run "$id" > "$dir/unload-$t-$id.txt" 2>&1 || {
            echo "bench history: unload --run $id on $t exited $?:"
            tail -n 3 "$dir/unload-$t-$id.txt"
            failed=1
        }
        echo "  undo $t: run $id: $(tail -n 1 "$dir/unload-$t-$id.txt")"
    done
    # a night file ingest refused would stay on the quarantine list, and be skipped
    # by the next run's night as known bad
    ioc "$t" quarantine list --json 2> /dev/null | grep -o "\"path\":\"$out/[^\"]*\"" |
        sed 's/^"path":"//; s/"$//' > "$dir/quarantined-$t.txt"
    if [ -s "$dir/quarantined-$t.txt" ]; then
        IOCONTEND_STATE_DIR=${state[$t]} xargs -d '\n' "$bin" --config "${state[$t]}/iocontend.conf" quarantine forget \
            < "$dir/quarantined-$t.txt" > "$dir/forget-$t.txt" 2>&1
        echo "  undo $t: $(tail -n 1 "$dir/forget-$t.txt")"
    fi
    rm -rf "$out"
    ioc "$t" analyze --force > /dev/null 2> "$dir/after-night-$t.log"
    answers "$dir/after-night-$t.log" > "$dir/answers-after-night-$t.txt"
    if cmp -s "$dir/answers-$t-1.txt" "$dir/answers-after-night-$t.txt"; then
        echo "  undo $t: analyze after the unload answers as before the night"
    else
        echo "bench history: after the night's unload $t answers otherwise than before it:"
        diff "$dir/answers-$t-1.txt" "$dir/answers-after-night-$t.txt" | head -n 6
        failed=1
    fi
    [ "$rc" -eq 0 ]
}

echo
for s in $rates; do
    t=$(longest "$s")
    coverage "$t"
    echo "$t: /coverage?points=1400 best of 3: $(fmt_s "${cov[$t]}") s"
    echo "$t: one more night ($jpg jobs per group, a day of $s s samples, seed $night_seed)"
    night "$t" || failed=1
done
cleanup

echo
echo "== results (seconds, best of $reps; RSS: MB = 10^6 bytes, the largest of the runs)"
printf "%-8s %5s %6s %12s %10s %9s %9s %9s\n" size days "Δ s" samples "analyze s" "RSS MB" "x time" "x RSS"
for s in $rates; do
    short=$(shortest "$s")
    for t in $present; do
        [ "$(ival_of "$t")" = "$s" ] || continue
        printf "%-8s %5s %6s %12s %10s %9s %9s %9s\n" "$t" "$(days_of "$t")" "$s" \
            "$(awk '$1 == "samples" { print $2 }' "${state[$t]}/ingested.txt")" \
            "$(fmt_s "${best[$t]}")" "$(rss_of "$t")" \
            "$(ratio "${best[$short]}" "${best[$t]}")" "$(ratio "$(rss_of "$short")" "$(rss_of "$t")")"
    done
done
echo "samples: the device samples loaded (2 data devices a server); x: over the shortest"
echo "history of the same interval. Analyze: the whole command (database reads, series,"
echo "metrics, coefficients, KDE, significance, store)."
for s in $rates; do
    t=$(longest "$s")
    [ -n "${n_total[$t]:-}" ] &&
        echo "one more night on $t: ingest $(fmt_s "${n_ingest[$t]}") s + analyze $(fmt_s "${n_analyze[$t]}") s = $(fmt_s "${n_total[$t]}") s"
done

# target pair LONG SHORT LABEL: analyze time and RSS of the longest beside the shortest
pair_targets() {
    local l=$1 s=$2 what=$3
    if [ -z "$l" ] || [ -z "$s" ] || [ "$l" = "$s" ]; then
        target "NOT RUN" "analyze on the longest $what history <= 1.5x the shortest's or <= 2 s more"
        target "NOT RUN" "peak RSS on the longest $what history <= 1.5x the shortest's or <= 30 MB more"
        return
    fi
    target_when "x <= 1.5 * l || x <= l + 2" "${best[$l]}" "${best[$s]}" \
        "analyze on $l <= 1.5x $s's or <= 2 s more" "$(fmt_s "${best[$l]}") s vs $(fmt_s "${best[$s]}") s"
    target_when "x <= 1.5 * l || x <= l + 30" "$(rss_of "$l")" "$(rss_of "$s")" \
        "peak RSS on $l <= 1.5x $s's or <= 30 MB more" "$(rss_of "$l") MB vs $(rss_of "$s") MB"
}
# has_rate RATE: whether any size of that rate was measured
has_rate() { echo "$rates" | grep -qx "$1"; }
echo
echo "== targets"
for s in 60 1; do
    if has_rate "$s"; then
        pair_targets "$(longest "$s")" "$(shortest "$s")" "$s s"
    else
        pair_targets "" "" "$s s"
    fi
done
for s in 60 1; do
    if has_rate "$s"; then
        t=$(longest "$s")
        target_when "x <= l" "${n_total[$t]:--}" 60 "one more night on $t (ingest + analyze) <= 60 s" \
            "$(fmt_s "${n_total[$t]:--}") s"
        target_when "x <= l" "${cov[$t]:--}" 2 "/coverage?points=1400 on $t <= 2 s" "$(fmt_s "${cov[$t]:--}") s"
    else
        target "NOT RUN" "one more night on the longest $s s history <= 60 s"
        target "NOT RUN" "/coverage?points=1400 on the longest $s s history <= 2 s"
    fi
done
echo
echo "bench history: $(($(date +%s) - t_start)) s; load average at end: $(cut -d ' ' -f 1-3 /proc/loadavg); raw outputs in $dir"
[ "$failed" -eq 0 ]
