#!/bin/bash
# sections.sh: make bench: runs the sections BENCH_ONLY names, in this order, then
# every section's verdict lines together.
#   assoc   bench/run.sh: the four core associations, d = 10^3 .. 10^6
#   kde     bench/kde.sh: the density grid and the conditional-quantile bands
#   signif  bench/signif.sh: 999 permutations of every coefficient at d = 10^4
#   sweep   bench/sweep.sh: the 20-step sweep over 10^5 jobs through the real path
#   rf      bench/rf.sh: the random forest at d = 10^3 .. 10^5 beside scikit-learn's
#   ingest  bench/ingest.sh: ingest of 10^5 darshan logs and of iostat text, beside a
#           binary COPY of the same rows into the same tables' clones
#   http    bench/http.sh: the server under wrk: the page, /health, a stored answer
#   history bench/history.sh: analyze over 3 days to a year of samples, the same jobs;
#           one more night on the longest; its data kept under BUILD/bench/history
# Usage: BENCH_ONLY="kde sweep" bash bench/sections.sh BUILD (default: all of them).
set -u
build=${1:-build}
only=${BENCH_ONLY:-assoc kde signif sweep rf ingest http history}
out=$build/bench/sections
failed=0
t_start=$(date +%s)

mkdir -p "$out" || exit 1
script_of() {
    case "$1" in
    assoc) echo bench/run.sh ;;
    kde | signif | sweep | rf | ingest | http | history) echo "bench/$1.sh" ;;
    *) return 1 ;;
    esac
}
for s in $only; do
    if ! script_of "$s" > /dev/null; then
        echo "bench: unknown section $s in BENCH_ONLY (assoc, kde, signif, sweep, rf, ingest, http, history)"
        exit 64
    fi
done
for s in $only; do
    script=$(script_of "$s")
    echo
    bash "$script" "$build" 2>&1 | tee "$out/$s.txt"
    [ "${PIPESTATUS[0]}" -eq 0 ] || failed=1
done

echo
echo "== every target ($only)"
for s in $only; do
    grep -E '^(PASS|MISS|NOT RUN) ' "$out/$s.txt" | sed "s/^/$s: /"
done
echo "bench: $(($(date +%s) - t_start)) s in all; outputs in $out"
if [ "$failed" -ne 0 ]; then
    echo "bench: a section failed (see its messages above)"
    exit 1
fi
