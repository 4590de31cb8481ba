#!/bin/bash
# ingest.sh: make bench, section "ingest": `iocontend ingest` end to end, black-box,
# beside its ceiling, a plain binary COPY of the same rows into tables with the same
# indexes and constraints, on the same embedded server (fsync on, its default) in the
# same run:
#   darshan  10^5 generated logs of darshan-parser text into a database already
#            holding 10^5 other jobs: logs/s, MB/s of text, peak RSS of the process;
#   binary   the same 10^5 jobs as binary .darshan logs (iocontend-gen
#            --darshan-format binary: format 3.41, zlib), timed the same way (read,
#            decompress, metrics, load): logs/s, MB/s of .darshan, peak RSS;
#   dxt      BENCH_INGEST_DXT_LOGS other binary logs, each with a DXT_POSIX trace
#            (iocontend-gen --dxt-ops BENCH_INGEST_DXT_OPS), timed the same way:
#            operations/s and rows/s (jobs, job_windows, loaded_files, job_traces,
#            dxt_ops, job_x_windows), beside the COPY of the same rows;
#   iostat   generated iostat -x -t text of two file systems (8 servers, 2 devices
#            each, 60 s samples over BENCH_INGEST_DAYS) into empty samples: samples/s.
# Each is the best of BENCH_INGEST_REPS, every repetition from the same state.
#
# Usage: bash bench/ingest.sh BUILD. Environment:
#   BENCH_INGEST_LOGS  darshan logs timed, and jobs already there (100000; 3 groups,
#                      so rounded up to a multiple of 3: 100002)
#   BENCH_INGEST_DAYS  days of iostat samples, 1-60 (60: 1,382,310 samples)
#   BENCH_INGEST_REPS  repetitions, best kept (3)
#   BENCH_INGEST_DXT_LOGS  binary logs with DXT traces (10000; rounded up as above)
#   BENCH_INGEST_DXT_OPS   iocontend-gen --dxt-ops: at most this many reads and writes
#                      per file record (32)
#   INGEST_ARGS        more arguments for every `ingest darshan|iostat` (none); when
#                      `iocontend ingest --help` lists --threads (or, before issue 31,
#                      --jobs), that option with $(nproc) is added
#
# The database that already holds the jobs is made once: another seed's logs ingested
# (untimed) into a cluster kept under BUILD/bench/ingest/state-SEED-JPG (about 1 GB
# at 10^5 jobs; `make clean` removes it), as database iocontend_base. Each repetition
# starts from a copy of it (CREATE DATABASE iocontend TEMPLATE iocontend_base), which
# takes seconds where ingesting again would take minutes. The generated text is kept
# under BUILD/bench/ingest/gen-SEED-JPG-DAYS (about 2.5 GB at 10^5 logs), keyed by the
# generator's arguments, so that reruns skip generating it; the base's is removed
# once loaded. The binary logs are kept the same way, in gen-bin-SEED-JPG-DAYS.
#
# The ceiling: after the last repetition, the rows our ingest loaded (jobs,
# job_windows, loaded_files of the darshan run; samples) are written out with
# `COPY ... TO (FORMAT binary)` and read back with psql's \copy ... (FORMAT binary)
# into clones (CREATE TABLE ... (LIKE ... INCLUDING ALL): the primary keys, indexes,
# defaults, NOT NULLs; the foreign keys added by hand, job_windows' to the clone of
# jobs), the jobs' clones holding the base's rows first, as ours found them. The
# binary logs' ceiling is the same, on the rows their last repetition loaded (the
# same jobs and windows, their own loaded_files), measured after their runs.
set -u
build=${1:-build}
# shellcheck source=bench/lib.sh
. bench/lib.sh
logs=${BENCH_INGEST_LOGS:-100000}
days=${BENCH_INGEST_DAYS:-60}
reps=${BENCH_INGEST_REPS:-3}
dxt_logs=${BENCH_INGEST_DXT_LOGS:-10000}
dxt_ops=${BENCH_INGEST_DXT_OPS:-32}
for v in "$logs" "$days" "$reps" "$dxt_logs" "$dxt_ops"; do
    case "$v" in
    '' | *[!0-9]* | 0)
        echo "bench ingest: BENCH_INGEST_LOGS, _DAYS, _REPS, _DXT_LOGS and _DXT_OPS must be whole numbers >= 1"
        exit 2
        ;;
    esac
done
if [ "$days" -gt 60 ]; then
    echo "bench ingest: BENCH_INGEST_DAYS is at most 60 (iocontend-gen's --days)"
    exit 2
fi
seed=20240601      # the logs and samples timed
seed_base=20240602 # the jobs already there
jpg=$(((logs + 2) / 3))
darshan_days=3
bin=$build/iocontend
gen=$build/iocontend-gen
base=$build/bench/ingest
dir=$base/run
set_darshan=$base/gen-$seed-$jpg-$darshan_days
set_binary=$base/gen-bin-$seed-$jpg-$darshan_days
jpg_dxt=$(((dxt_logs + 2) / 3))
seed_dxt=20240603 # the logs with traces: jobs neither of the others holds
set_dxt=$base/gen-dxt-$seed_dxt-$jpg_dxt-$darshan_days-$dxt_ops
set_iostat=$base/gen-$seed-1-$days
state=$base/state-$seed_base-$jpg
failed=0
t_start=$(date +%s)

# The pipeline's parallelism, when this binary has it; else one process, one thread.
ingest_args=${INGEST_ARGS:-}
threads="one (this iocontend ingest has no --threads)"
# (nproc counts OMP_NUM_THREADS, which lib.sh pins to 1 for the references.)
cores=$(env -u OMP_NUM_THREADS nproc)
for opt in --threads --jobs; do
    if "$bin" ingest --help 2>&1 | grep -q -e "$opt"; then
        ingest_args="$opt $cores $ingest_args"
        threads="ingest $opt $cores"
        break
    fi
done
section_header "iocontend ingest (ours) beside a plain binary COPY of the same rows (the ceiling)" \
    "$threads"
echo "ingest arguments: ${ingest_args:-(none)}"
mkdir -p "$dir" || exit 1
rm -f "$dir"/*
state=$(cluster_state "$state" "/var/tmp/iocontend-bench-ingest-$seed_base-$jpg") || exit 1
export IOCONTEND_STATE_DIR=$state
# The server's psql: Debian keeps it off PATH.
psql_bin=$(pg_config --bindir 2> /dev/null)/psql
[ -x "$psql_bin" ] || psql_bin=/usr/lib/postgresql/15/bin/psql
[ -x "$psql_bin" ] || psql_bin=psql
socket=
# sql DATABASE ARGS...: psql as the embedded cluster's superuser, stopping at an error
sql() {
    local db=$1
    shift
    PGOPTIONS="-c client_min_messages=warning" \
        "$psql_bin" -X -q -A -t -v ON_ERROR_STOP=1 -h "$socket" -U postgres -d "$db" "$@"
}
cleanup() {
    [ -n "$socket" ] && sql postgres -c "DROP DATABASE IF EXISTS iocontend WITH (FORCE)" \
        > /dev/null 2>&1
    "$bin" db stop > /dev/null 2>&1
    rm -f "$dir"/*.bin
}
trap cleanup EXIT

now() { date +%s.%N; }
elapsed() { awk -v a="$2" -v b="$1" 'BEGIN { printf "%.3f\n", a - b }'; }
# best OLD NEW: the smaller of two times, "-" being none
best_of() { awk -v o="$1" -v n="$2" 'BEGIN { print (o == "-" || n < o) ? n : o }'; }
# json_n FILE KEY: a number of ingest's --json summary
json_n() { sed -n 's/.*"'"$2"'":\([0-9.]*\).*/\1/p' "$1"; }
text_bytes() { find "$1" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }'; }

# make_set DIR SEED JPG DAYS [GEN_ARGS...]: iocontend-gen's data set in DIR/sample,
# made once.
make_set() {
    if [ -f "$1/done" ]; then
        echo "data set $(basename "$1"): kept from an earlier run"
        return 0
    fi
    rm -rf "$1"
    mkdir -p "$1" || return 1
    local t0 t1
    t0=$(now)
    "$gen" --out "$1/sample" --seed "$2" --jobs-per-group "$3" --days "$4" "${@:5}" \
        > "$1/gen.log" 2>&1 ||
        { cat "$1/gen.log"; return 1; }
    t1=$(now)
    # The series run past today's date; a file is last written at its last report (the
    # parser sets aside stamps more than a day after the file's mtime).
    local f last
    for f in "$1"/sample/iostat/*/*; do
        last=$(tail -n 20 "$f" | grep -E '^[0-9]{2}/[0-9]{2}/[0-9]{2} [0-9:]{8}$' | tail -n 1)
        touch -d "@$(($(date -u -d "$last" +%s) + 60))" "$f" || return 1
    done
    # The 60-day files are about 70 MB, over the default 64 MiB limit.
    { cat "$1/sample/iocontend.conf"; printf '\n[ingest]\nmax_file_bytes = 268435456\n'; } \
        > "$1/iocontend.conf" || return 1
    echo "data set $(basename "$1"): $(find "$1/sample/darshan" -type f | wc -l) logs," \
        "$(find "$1/sample/iostat" -type f | wc -l) iostat files," \
        "$(du -sm "$1/sample" | cut -f 1) MiB, generated in $(fmt_s "$(elapsed "$t0" "$t1")") s"
    touch "$1/done"
}

# ingest_timed NAME KIND [--fs FS] PATH: one ingest, wall time in $dir/NAME.s, --json
# summary in NAME.json, /usr/bin/time -v in NAME.time, log in NAME.log.
ingest_timed() {
    local name=$1 t0 t1 rc
    shift
    t0=$(now)
    # shellcheck disable=SC2086 # ingest_args: words
    /usr/bin/time -v -o "$dir/$name.time" "$bin" --config "$conf" ingest "$1" --json \
        $ingest_args "${@:2}" > "$dir/$name.json" 2> "$dir/$name.log"
    rc=$?
    t1=$(now)
    elapsed "$t0" "$t1" > "$dir/$name.s"
    if [ "$rc" -ne 0 ]; then
        echo "bench ingest: ingest $* exited $rc:"
        tail -n 5 "$dir/$name.log"
        return 1
    fi
}
rss_kb() { awk -F': ' '/Maximum resident set size/ { print $2 }' "$1"; }

make_set "$set_darshan" "$seed" "$jpg" "$darshan_days" || exit 1
make_set "$set_iostat" "$seed" 1 "$days" || exit 1
make_set "$set_binary" "$seed" "$jpg" "$darshan_days" --darshan-format binary || exit 1
make_set "$set_dxt" "$seed_dxt" "$jpg_dxt" "$darshan_days" --darshan-format binary \
    --dxt-ops "$dxt_ops" || exit 1
conf=$set_iostat/iocontend.conf
n_logs=$(find "$set_darshan/sample/darshan" -type f | wc -l)
darshan_bytes=$(text_bytes "$set_darshan/sample/darshan")
n_bin=$(find "$set_binary/sample/darshan" -type f -name '*.darshan' | wc -l)
bin_bytes=$(text_bytes "$set_binary/sample/darshan")
n_dxt=$(find "$set_dxt/sample/darshan" -type f -name '*.darshan' | wc -l)
dxt_bytes=$(text_bytes "$set_dxt/sample/darshan")
iostat_bytes=$(text_bytes "$set_iostat/sample/iostat")

# The database already holding the jobs, made once.
if [ ! -f "$state/base.txt" ]; then
    set_base=$base/gen-$seed_base-$jpg-$darshan_days
    rm -rf "$state"
    mkdir -p "$state" && chmod 755 "$state" || exit 1
    make_set "$set_base" "$seed_base" "$jpg" "$darshan_days" || exit 1
    "$bin" --quiet db start || exit 1
    socket=$("$bin" db status 2> /dev/null | sed -n 's/^socket directory: //p')
    echo "loading the jobs already there, once (untimed; kept in $state)"
    conf_base=$conf
    conf=$set_base/iocontend.conf
    ingest_timed base darshan "$set_base/sample/darshan" || exit 1
    conf=$conf_base
    sql postgres -c "ALTER DATABASE iocontend RENAME TO iocontend_base" || exit 1
    printf 'jobs %s\nload_s %s\n' "$(json_n "$dir/base.json" jobs)" "$(cat "$dir/base.s")" \
        > "$state/base.txt"
    rm -rf "$set_base"
else
    "$bin" --quiet db start || exit 1
    socket=$("$bin" db status 2> /dev/null | sed -n 's/^socket directory: //p')
    # A newer binary's migrations are applied to the base once, untimed.
    sql postgres -c "DROP DATABASE IF EXISTS iocontend WITH (FORCE)" \
        -c "ALTER DATABASE iocontend_base RENAME TO iocontend" || exit 1
    "$bin" --quiet db migrate > "$dir/migrate.log" 2>&1 || { cat "$dir/migrate.log"; exit 1; }
    sql postgres -c "ALTER DATABASE iocontend RENAME TO iocontend_base" || exit 1
fi
base_jobs=$(awk '$1 == "jobs" { print $2 }' "$state/base.txt")
awk '$1 == "jobs" { printf "jobs already there: %s (", $2 } $1 == "load_s" {
    printf "ingested in %.0f s when the base was made)\n", $2 }' "$state/base.txt"
echo "server: fsync $(sql postgres -c 'SHOW fsync'), synchronous_commit" \
    "$(sql postgres -c 'SHOW synchronous_commit'), wal_level $(sql postgres -c 'SHOW wal_level')," \
    "shared_buffers $(sql postgres -c 'SHOW shared_buffers')"
echo "darshan text: $n_logs logs, $(awk -v b="$darshan_bytes" 'BEGIN { printf "%.0f", b / 1e6 }') MB" \
    "(seed $seed, $jpg jobs per group); iostat text: $days days," \
    "$(awk -v b="$iostat_bytes" 'BEGIN { printf "%.0f", b / 1e6 }') MB"
echo "darshan binary: $n_bin logs of the same jobs," \
    "$(awk -v b="$bin_bytes" 'BEGIN { printf "%.0f", b / 1e6 }') MB (format 3.41, zlib)"
echo "darshan binary with DXT: $n_dxt logs (seed $seed_dxt, --dxt-ops $dxt_ops)," \
    "$(awk -v b="$dxt_bytes" 'BEGIN { printf "%.0f", b / 1e6 }') MB"

# Ours, each repetition from a fresh copy of the base, checkpointed.
best_d=-
best_s=-
rss_d=0
rss_s=0
for r in $(seq 1 "$reps"); do
    sql postgres -c "DROP DATABASE IF EXISTS iocontend WITH (FORCE)" \
        -c "CREATE DATABASE iocontend TEMPLATE iocontend_base STRATEGY FILE_COPY" \
        -c "CHECKPOINT" || { failed=1; break; }
    ingest_timed "darshan_$r" darshan "$set_darshan/sample/darshan" || { failed=1; break; }
    # Files, not jobs: a generated log may be a job the base already holds (same key).
    loaded=$(json_n "$dir/darshan_$r.json" loaded)
    if [ "$loaded" != "$n_logs" ]; then
        echo "bench ingest: run $r loaded $loaded of $n_logs logs"
        failed=1
    fi
    new_jobs=$(json_n "$dir/darshan_$r.json" jobs)
    t_d=$(cat "$dir/darshan_$r.s")
    best_d=$(best_of "$best_d" "$t_d")
    rss_d=$(awk -v a="$rss_d" -v b="$(rss_kb "$dir/darshan_$r.time")" 'BEGIN { print (b > a) ? b : a }')
    sql iocontend -c "CHECKPOINT" || { failed=1; break; }
    t_s=0
    n_samples=0
    for fs in "$set_iostat"/sample/iostat/*; do
        f=$(basename "$fs")
        ingest_timed "iostat_${r}_$f" iostat --fs "$f" "$fs" || { failed=1; break 2; }
        t_s=$(awk -v a="$t_s" -v b="$(cat "$dir/iostat_${r}_$f.s")" 'BEGIN { print a + b }')
        n_samples=$((n_samples + $(json_n "$dir/iostat_${r}_$f.json" samples)))
        rss_s=$(awk -v a="$rss_s" -v b="$(rss_kb "$dir/iostat_${r}_$f.time")" 'BEGIN { print (b > a) ? b : a }')
    done
    best_s=$(best_of "$best_s" "$t_s")
    printf "ours, run %d: darshan %s s (%.0f logs/s, %s new jobs), iostat %s s (%d samples, %.0f /s)\n" "$r" \
        "$(fmt_s "$t_d")" "$(awk -v n="$n_logs" -v t="$t_d" 'BEGIN { print n / t }')" \
        "$new_jobs" "$(fmt_s "$t_s")" "$n_samples" \
        "$(awk -v n="$n_samples" -v t="$t_s" 'BEGIN { print n / t }')"
done

# export_rows TAG SAMPLES: the rows the last darshan run loaded (jobs, job_windows,
# loaded_files; job_traces, dxt_ops and job_x_windows when TAG is dxt), and the
# samples when SAMPLES is "samples", to $dir/TAG_*.bin; sets run_id and new (the query
# of that run's content hashes).
run_id=-
new=
export_rows() {
    run_id=$(sql iocontend -c "SELECT max(id) FROM ingest_runs WHERE kind = 'darshan'")
    new="SELECT content_hash FROM loaded_files WHERE run_id = $run_id"
    sql iocontend \
        -c "\\copy (SELECT * FROM jobs WHERE source_hash IN ($new)) TO '$dir/$1_jobs.bin' (FORMAT binary)" \
        -c "\\copy (SELECT w.* FROM job_windows w JOIN jobs j USING (job_key) WHERE j.source_hash IN ($new)) TO '$dir/$1_job_windows.bin' (FORMAT binary)" \
        -c "\\copy (SELECT * FROM loaded_files WHERE run_id = $run_id) TO '$dir/$1_loaded_files.bin' (FORMAT binary)" ||
        return 1
    if [ "$1" = dxt ]; then
        local traces="SELECT job_key FROM job_traces WHERE source_hash IN ($new)"
        sql iocontend \
            -c "\\copy (SELECT * FROM job_traces WHERE source_hash IN ($new)) TO '$dir/dxt_job_traces.bin' (FORMAT binary)" \
            -c "\\copy (SELECT * FROM dxt_ops WHERE job_key IN ($traces)) TO '$dir/dxt_dxt_ops.bin' (FORMAT binary)" \
            -c "\\copy (SELECT * FROM job_x_windows WHERE job_key IN ($traces)) TO '$dir/dxt_job_x_windows.bin' (FORMAT binary)" ||
            return 1
    fi
    if [ "$2" = samples ]; then
        sql iocontend -c "\\copy samples TO '$dir/samples.bin' (FORMAT binary)" || return 1
    fi
}

# ceiling TAG SAMPLES: the best of $reps binary COPYs of export_rows' files into
# clones, in best_cd (jobs, job_windows, loaded_files) and best_cs (samples, when
# SAMPLES is "samples", else "-"); 1 when a step failed.
ceiling() {
    local r t0 t1 t2 shown
    best_cd=-
    best_cs=-
    for r in $(seq 1 "$reps"); do
        sql iocontend > /dev/null <<EOF || return 1
DROP TABLE IF EXISTS c_job_windows, c_jobs, c_loaded_files, c_samples, c_dxt_ops,
    c_job_x_windows, c_job_traces;
CREATE TABLE c_jobs (LIKE jobs INCLUDING ALL);
ALTER TABLE c_jobs ADD FOREIGN KEY (group_id) REFERENCES app_groups (group_id);
CREATE TABLE c_job_windows (LIKE job_windows INCLUDING ALL);
ALTER TABLE c_job_windows ADD FOREIGN KEY (job_key) REFERENCES c_jobs (job_key)
    ON DELETE CASCADE;
CREATE TABLE c_loaded_files (LIKE loaded_files INCLUDING ALL);
ALTER TABLE c_loaded_files ADD FOREIGN KEY (run_id) REFERENCES ingest_runs (id);
CREATE TABLE c_samples (LIKE samples INCLUDING ALL);
CREATE TABLE c_job_traces (LIKE job_traces INCLUDING ALL);
CREATE TABLE c_dxt_ops (LIKE dxt_ops INCLUDING ALL);
ALTER TABLE c_dxt_ops ADD FOREIGN KEY (job_key) REFERENCES c_job_traces (job_key)
    ON DELETE CASCADE;
CREATE TABLE c_job_x_windows (LIKE job_x_windows INCLUDING ALL);
ALTER TABLE c_job_x_windows ADD FOREIGN KEY (job_key) REFERENCES c_job_traces (job_key)
    ON DELETE CASCADE;
INSERT INTO c_job_traces SELECT * FROM job_traces WHERE source_hash NOT IN ($new);
INSERT INTO c_dxt_ops SELECT o.* FROM dxt_ops o JOIN c_job_traces USING (job_key);
INSERT INTO c_job_x_windows SELECT w.* FROM job_x_windows w JOIN c_job_traces USING (job_key);
INSERT INTO c_jobs SELECT * FROM jobs WHERE source_hash NOT IN ($new);
INSERT INTO c_job_windows SELECT w.* FROM job_windows w JOIN c_jobs USING (job_key);
INSERT INTO c_loaded_files SELECT * FROM loaded_files WHERE run_id IS DISTINCT FROM $run_id;
VACUUM ANALYZE c_jobs, c_job_windows, c_loaded_files, c_job_traces, c_dxt_ops,
    c_job_x_windows;
CHECKPOINT;
EOF
        t0=$(now)
        sql iocontend -c "\\copy c_jobs FROM '$dir/$1_jobs.bin' (FORMAT binary)" \
            -c "\\copy c_job_windows FROM '$dir/$1_job_windows.bin' (FORMAT binary)" \
            -c "\\copy c_loaded_files FROM '$dir/$1_loaded_files.bin' (FORMAT binary)" || return 1
        if [ "$1" = dxt ]; then
            sql iocontend -c "\\copy c_job_traces FROM '$dir/dxt_job_traces.bin' (FORMAT binary)" \
                -c "\\copy c_dxt_ops FROM '$dir/dxt_dxt_ops.bin' (FORMAT binary)" \
                -c "\\copy c_job_x_windows FROM '$dir/dxt_job_x_windows.bin' (FORMAT binary)" ||
                return 1
        fi
        t1=$(now)
        best_cd=$(best_of "$best_cd" "$(elapsed "$t0" "$t1")")
        shown="$1: jobs + job_windows + loaded_files$([ "$1" = dxt ] &&
            echo " + job_traces + dxt_ops + job_x_windows") $(fmt_s "$(elapsed "$t0" "$t1")") s"
        if [ "$2" = samples ]; then
            sql iocontend -c "CHECKPOINT" || return 1
            sql iocontend -c "\\copy c_samples FROM '$dir/samples.bin' (FORMAT binary)" || return 1
            t2=$(now)
            best_cs=$(best_of "$best_cs" "$(elapsed "$t1" "$t2")")
            shown="$shown, samples $(fmt_s "$(elapsed "$t1" "$t2")") s"
        fi
        echo "ceiling, run $r: $shown"
    done
    rows=$(sql iocontend -c "SELECT (SELECT count(*) FROM c_jobs) - $base_jobs,
        (SELECT count(*) FROM c_job_windows), (SELECT count(*) FROM c_samples)" | tr '|' ' ')
    echo "ceiling rows ($1): $rows (new jobs, all windows, samples)"
}

# The ceiling, on what the last repetition loaded.
best_cd=-
best_cs=-
key=-
if [ "$failed" -eq 0 ]; then
    key=$(sql iocontend -c "SELECT pg_get_constraintdef(oid) FROM pg_constraint
        WHERE conrelid = 'samples'::regclass AND contype = 'p'")
    { export_rows text samples && ceiling text samples; } || failed=1
fi

# fresh_run TAG SET N: one timed ingest of SET's logs into a fresh copy of the base,
# which must load N files; sets t_run (s) and rss_run (kB); 1 when a step failed.
fresh_run() {
    sql postgres -c "DROP DATABASE IF EXISTS iocontend WITH (FORCE)" \
        -c "CREATE DATABASE iocontend TEMPLATE iocontend_base STRATEGY FILE_COPY" \
        -c "CHECKPOINT" || return 1
    ingest_timed "$1" darshan "$2/sample/darshan" || return 1
    loaded=$(json_n "$dir/$1.json" loaded)
    if [ "$loaded" != "$3" ]; then
        echo "bench ingest: $1 loaded $loaded of $3 logs"
        return 1
    fi
    t_run=$(cat "$dir/$1.s")
    rss_run=$(rss_kb "$dir/$1.time")
}
max_of() { awk -v a="$1" -v b="$2" 'BEGIN { print (b > a) ? b : a }'; }
# ceiling_of TAG: ceiling TAG none, its time in best_c_of, leaving the text's best_cd
# and best_cs as they were.
ceiling_of() {
    local cd=$best_cd cs=$best_cs rc=0
    { export_rows "$1" none && ceiling "$1" none; } || rc=1
    best_c_of=$best_cd
    best_cd=$cd
    best_cs=$cs
    return $rc
}

# The binary logs of the same jobs, each repetition from a fresh copy of the base,
# then their ceiling on what their last repetition loaded.
best_b=-
best_cb=-
rss_b=0
for r in $(seq 1 "$reps"); do
    [ "$failed" -eq 0 ] || break
    fresh_run "binary_$r" "$set_binary" "$n_bin" || { failed=1; break; }
    best_b=$(best_of "$best_b" "$t_run")
    rss_b=$(max_of "$rss_b" "$rss_run")
    printf "ours, run %d: darshan binary %s s (%.0f logs/s, %s new jobs)\n" "$r" "$(fmt_s "$t_run")" \
        "$(awk -v n="$n_bin" -v t="$t_run" 'BEGIN { print n / t }')" "$(json_n "$dir/binary_$r.json" jobs)"
done
if [ "$failed" -eq 0 ]; then
    ceiling_of binary || failed=1
    best_cb=$best_c_of
fi

# The logs with DXT traces, the same way: each repetition from a fresh copy of the
# base, then the ceiling on the rows their last repetition loaded.
best_x=-
best_cx=-
rss_x=0
dxt_n_ops=0
dxt_rows=0
for r in $(seq 1 "$reps"); do
    [ "$failed" -eq 0 ] || break
    fresh_run "dxt_$r" "$set_dxt" "$n_dxt" || { failed=1; break; }
    best_x=$(best_of "$best_x" "$t_run")
    rss_x=$(max_of "$rss_x" "$rss_run")
    run_id=$(sql iocontend -c "SELECT max(id) FROM ingest_runs WHERE kind = 'darshan'")
    new="SELECT content_hash FROM loaded_files WHERE run_id = $run_id"
    counts=$(sql iocontend -c "WITH t AS (SELECT job_key, n_ops FROM job_traces
            WHERE source_hash IN ($new)), j AS (SELECT job_key FROM jobs
            WHERE source_hash IN ($new))
        SELECT (SELECT coalesce(sum(n_ops), 0) FROM t), (SELECT count(*) FROM t),
            (SELECT count(*) FROM dxt_ops WHERE job_key IN (SELECT job_key FROM t)),
            (SELECT count(*) FROM job_x_windows WHERE job_key IN (SELECT job_key FROM t)),
            (SELECT count(*) FROM j),
            (SELECT count(*) FROM job_windows WHERE job_key IN (SELECT job_key FROM j)),
            (SELECT count(*) FROM loaded_files WHERE run_id = $run_id)") || { failed=1; break; }
    read -r dxt_n_ops n_traces n_dxt_rows n_xw n_jobs_x n_jw_x n_lf_x <<< "$(echo "$counts" | tr '|' ' ')"
    dxt_rows=$((n_traces + n_dxt_rows + n_xw + n_jobs_x + n_jw_x + n_lf_x))
    printf "ours, run %d: DXT %s s (%.0f logs/s, %.0f operations/s, %.0f rows/s)\n" "$r" \
        "$(fmt_s "$t_run")" "$(awk -v n="$n_dxt" -v t="$t_run" 'BEGIN { print n / t }')" \
        "$(awk -v n="$dxt_n_ops" -v t="$t_run" 'BEGIN { print n / t }')" \
        "$(awk -v n="$dxt_rows" -v t="$t_run" 'BEGIN { print n / t }')"
done
if [ "$failed" -eq 0 ]; then
    echo "DXT rows of a run: $dxt_n_ops operations in $n_traces job_traces, $n_dxt_rows" \
        "dxt_ops (one per job, file, rank; $(awk -v n="$dxt_n_ops" -v r="$n_dxt_rows" \
        'BEGIN { printf "%.1f", n / r }') operations each), $n_xw job_x_windows;" \
        "$n_jobs_x jobs, $n_jw_x job_windows, $n_lf_x loaded_files"
    echo "dxt_ops bytes: $(sql iocontend -c "SELECT pg_size_pretty(sum(pg_column_size(ops)))
        FROM dxt_ops") of ops, $(sql iocontend -c "SELECT round(sum(pg_column_size(ops))::numeric
        / greatest(sum(n_ops), 1), 2) FROM dxt_ops") bytes per operation stored (41 packed)"
    ceiling_of dxt || failed=1
    best_cx=$best_c_of
fi
cleanup
trap - EXIT

# rate N SECONDS [SCALE]: N / SECONDS / SCALE, or "-"
rate() {
    case "$2" in
    - | n/a) echo "-" ;;
    *) awk -v n="$1" -v t="$2" -v s="${3:-1}" 'BEGIN { printf "%.6g\n", n / t / s }' ;;
    esac
}
pct() {
    if [ "$1" = - ] || [ "$2" = - ]; then echo "-"; else
        awk -v o="$1" -v c="$2" 'BEGIN { printf "%.1f\n", 100 * o / c }'
    fi
}
logs_s=$(rate "$n_logs" "$best_d")
mb_s=$(rate "$darshan_bytes" "$best_d" 1e6)
samples_s=$(rate "${n_samples:-0}" "$best_s")
c_logs_s=$(rate "$n_logs" "$best_cd")
c_mb_s=$(rate "$darshan_bytes" "$best_cd" 1e6)
c_samples_s=$(rate "${n_samples:-0}" "$best_cs")
bin_logs_s=$(rate "$n_bin" "$best_b")
bin_mb_s=$(rate "$bin_bytes" "$best_b" 1e6)
c_bin_logs_s=$(rate "$n_bin" "$best_cb")
c_bin_mb_s=$(rate "$bin_bytes" "$best_cb" 1e6)
dxt_logs_s=$(rate "$n_dxt" "$best_x")
dxt_ops_s=$(rate "$dxt_n_ops" "$best_x")
dxt_rows_s=$(rate "$dxt_rows" "$best_x")
c_dxt_ops_s=$(rate "$dxt_n_ops" "$best_cx")
c_dxt_rows_s=$(rate "$dxt_rows" "$best_cx")
echo
echo "== results (best of $reps; MB = 10^6 bytes; ceiling = binary COPY of the same rows)"
printf "%-40s  %9s  %11s  %11s  %11s  %8s\n" work "ours s" "ours /s" "ceiling s" "ceiling /s" "ours %"
printf "%-40s  %9s  %11s  %11s  %11s  %8s\n" "darshan text, $n_logs logs (logs/s)" \
    "$(fmt_s "$best_d")" "$(fmt_n "$logs_s")" "$(fmt_s "$best_cd")" "$(fmt_n "$c_logs_s")" \
    "$(pct "$logs_s" "$c_logs_s")"
printf "%-40s  %9s  %11s  %11s  %11s  %8s\n" "  the same, MB/s of text" "" "$(fmt_n "$mb_s")" "" "$(fmt_n "$c_mb_s")" ""
printf "%-40s  %9s  %11s  %11s  %11s  %8s\n" "darshan binary, $n_bin logs (logs/s)" \
    "$(fmt_s "$best_b")" "$(fmt_n "$bin_logs_s")" "$(fmt_s "$best_cb")" "$(fmt_n "$c_bin_logs_s")" \
    "$(pct "$bin_logs_s" "$c_bin_logs_s")"
printf "%-40s  %9s  %11s  %11s  %11s  %8s\n" "  the same, MB/s of .darshan" "" "$(fmt_n "$bin_mb_s")" "" "$(fmt_n "$c_bin_mb_s")" ""
printf "%-40s  %9s  %11s\n" "  binary / text, logs/s" "" "$(ratio "$logs_s" "$bin_logs_s")"
printf "%-40s  %9s  %11s  %11s  %11s  %8s\n" "binary with DXT, $n_dxt logs (ops/s)" \
    "$(fmt_s "$best_x")" "$(fmt_n "$dxt_ops_s")" "$(fmt_s "$best_cx")" "$(fmt_n "$c_dxt_ops_s")" \
    "$(pct "$dxt_ops_s" "$c_dxt_ops_s")"
printf "%-40s  %9s  %11s  %11s  %11s  %8s\n" "  the same, rows/s ($dxt_rows rows)" "" \
    "$(fmt_n "$dxt_rows_s")" "" "$(fmt_n "$c_dxt_rows_s")" "$(pct "$dxt_rows_s" "$c_dxt_rows_s")"
printf "%-40s  %9s  %11s\n" "  the same, logs/s" "" "$(fmt_n "$dxt_logs_s")"
printf "%-40s  %9s  %11s  %11s  %11s  %8s\n" "iostat text, ${n_samples:-0} samples (/s)" \
    "$(fmt_s "$best_s")" "$(fmt_n "$samples_s")" "$(fmt_s "$best_cs")" "$(fmt_n "$c_samples_s")" \
    "$(pct "$samples_s" "$c_samples_s")"
echo "peak RSS of one ingest process: darshan $(awk -v k="$rss_d" 'BEGIN { printf "%.1f", k * 1024 / 1e6 }') MB," \
    "binary $(awk -v k="$rss_b" 'BEGIN { printf "%.1f", k * 1024 / 1e6 }') MB," \
    "DXT $(awk -v k="$rss_x" 'BEGIN { printf "%.1f", k * 1024 / 1e6 }') MB," \
    "iostat $(awk -v k="$rss_s" 'BEGIN { printf "%.1f", k * 1024 / 1e6 }') MB (/usr/bin/time -v)"
echo "ours: the whole command (start, parse, load, commit) into a copy of the base (darshan,"
echo "      one process) and into empty samples (iostat, one process per file system)."
echo "ceiling: psql \\copy ... (FORMAT binary) of the rows ours loaded (darshan: jobs,"
echo "      job_windows, loaded_files, into clones already holding the base's $base_jobs jobs;"
echo "      binary: the same for the rows its last run loaded; DXT: the same with"
echo "      job_traces, dxt_ops, job_x_windows into empty clones;"
echo "      iostat: samples into an empty clone), same server, checkpointed before."
echo "sample key: ${key:-?}"
echo
echo "== targets"
at="at $n_logs logs"
[ "$n_logs" -lt 100000 ] && at="at $n_logs logs (the target's size is 10^5)"
target_at_least "$logs_s" 3000 \
    "darshan text end to end >= 3,000 logs/s ($at, into as many jobs)" "logs/s"
target_at_least "$bin_logs_s" 5000 \
    "darshan binary end to end >= 5,000 logs/s ($at, into as many jobs)" "logs/s"
target_at_least "$(pct "$dxt_rows_s" "$c_dxt_rows_s")" 50 \
    "binary with DXT end to end >= 50 % of the ceiling's rows/s ($(fmt_n "$c_dxt_rows_s") rows/s, $(fmt_n "$c_dxt_ops_s") operations/s)" \
    "%"
target_at_least "$(rate "${n_samples:-0}" "$best_s" 1e6)" 0.25 "iostat text >= 0.25 M samples/s" \
    "M samples/s"
target_at_least "$(pct "$samples_s" "$c_samples_s")" 70 \
    "iostat text >= 70 % of the ceiling ($(fmt_n "$c_samples_s") samples/s)" "%"
target_at_least "$(rate "${n_samples:-0}" "$best_s" 1e6)" 0.5 \
    "iostat text >= 0.5 M samples/s, if the key changes (key now: ${key#PRIMARY KEY })" \
    "M samples/s"
rss_mb_d=$(awk -v k="$rss_d" 'BEGIN { if (k == 0) print "-"; else printf "%.1f\n", k * 1024 / 1e6 }')
target_when "x <= l" "$rss_mb_d" 200 "peak RSS of ingest darshan <= 200 MB $at" "$rss_mb_d MB"
echo
echo "bench ingest: $(($(date +%s) - t_start)) s; load average at end: $(cut -d ' ' -f 1-3 /proc/loadavg); raw outputs in $dir"
[ "$failed" -eq 0 ]
