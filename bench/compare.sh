#!/bin/bash
# compare.sh: make bench-compare BASE=REV: this tree's assoc and ingest figures beside
# an earlier commit's, for a refactor that must not move them. The earlier commit is
# a git worktree under BUILD/base/src, built into BUILD/base/src/build by its own
# Makefile. ROUNDS rounds, each timing both sides, the order flipped every round so
# that a burst of other load hits both alike; per figure the median over the rounds,
# the ratio ours / base, and PASS when ours takes at most TOL % more time.
#   assoc   each side's bench_assoc at d = COMPARE_D on the same data file: the
#           seconds of each method set (best per call, bench/run.sh's rule);
#   ingest  this tree's bench/ingest.sh (a black box around BUILD/iocontend) run
#           against each side's binary with the same small sizes, one repetition:
#           the seconds of darshan text, darshan binary, DXT and iostat.
#
# Usage: bash bench/compare.sh BUILD BASE. Environment:
#   COMPARE_ROUNDS  rounds (5)
#   COMPARE_TOL     percent more time still PASS (10)
#   COMPARE_D       the assoc size (100000)
#   COMPARE_ONLY    "assoc ingest" (both) or one of them
#   BENCH_INGEST_*  handed to bench/ingest.sh (defaults here: 10000 logs, 7 days,
#                   2000 DXT logs, 1 repetition)
#   ORACLE_PY       the interpreter that writes the assoc data (/usr/bin/python3)
set -u
build=${1:?usage: compare.sh BUILD BASE}
rev=${2:?usage: compare.sh BUILD BASE (a commit)}
rounds=${COMPARE_ROUNDS:-5}
tol=${COMPARE_TOL:-10}
d=${COMPARE_D:-100000}
only=${COMPARE_ONLY:-assoc ingest}
py=${ORACLE_PY:-/usr/bin/python3}
export BENCH_INGEST_LOGS=${BENCH_INGEST_LOGS:-10000} BENCH_INGEST_DAYS=${BENCH_INGEST_DAYS:-7}
export BENCH_INGEST_DXT_LOGS=${BENCH_INGEST_DXT_LOGS:-2000} BENCH_INGEST_REPS=${BENCH_INGEST_REPS:-1}
for v in "$rounds" "$tol" "$d"; do
    case "$v" in
    '' | *[!0-9]* | 0) echo "bench compare: COMPARE_ROUNDS, _TOL and _D must be whole numbers >= 1"; exit 2 ;;
    esac
done
# shellcheck source=bench/lib.sh
. bench/lib.sh
sha=$(git rev-parse --verify --quiet "$rev^{commit}") || {
    echo "bench compare: $rev is not a commit of this repository"
    exit 2
}
head=$(git rev-parse --short HEAD)
src=$build/base/src
out=$build/base/compare
mkdir -p "$out" || exit 1
rm -f "$out"/*

if [ "$(git -C "$src" rev-parse HEAD 2> /dev/null)" != "$sha" ]; then
    rm -rf "$src"
    git worktree prune
    git worktree add --detach "$src" "$sha" > /dev/null || exit 1
fi
# ../shared beside the base's tree, as beside this one (tests and the demo read it).
[ -e "$src/../shared" ] || [ ! -d ../shared ] || ln -s "$(cd ../shared && pwd)" "$src/../shared"
echo "== bench compare: $head (ours) beside $(git rev-parse --short "$sha") (base), $rounds rounds, PASS within $tol %"
echo "building the base in $src/build"
make -C "$src" --no-print-directory -j"$(env -u OMP_NUM_THREADS nproc)" all bench-build \
    > "$out/base-build.log" 2>&1 || {
    echo "bench compare: the base did not build; see $out/base-build.log"
    exit 1
}
base_build=$(cd "$src/build" && pwd)
ours_build=$(cd "$build" && pwd)
echo "load average at start: $(cut -d ' ' -f 1-3 /proc/loadavg) (other work on the machine skews times)"

sets="pearson spearman dcor mi all"
data=$out/assoc_$d.bin
case " $only " in *" assoc "*) "$py" bench/ref_assoc.py gen "$data" "$d" 20240601 || exit 1 ;; esac

# run SIDE ROUND: one side's figures of one round as "NAME SECONDS" lines.
run() {
    local b f=$out/$1_r$2.txt
    b=$([ "$1" = base ] && echo "$base_build" || echo "$ours_build")
    : > "$f"
    case " $only " in *" assoc "*)
        # shellcheck disable=SC2086
        "$b/bench/bench_assoc" time "$data" "$d" $sets > "$out/$1_assoc_r$2.txt" || return 1
        for s in $sets; do echo "assoc_$s $(seconds "$out/$1_assoc_r$2.txt" "$s")"; done >> "$f"
        ;;
    esac
    case " $only " in *" ingest "*)
        bash bench/ingest.sh "$b" > "$out/$1_ingest_r$2.txt" 2>&1 || return 1
        sed -n -e 's/^ours, run 1: darshan \([0-9.e+-]*\) s .* iostat \([0-9.e+-]*\) s .*/ingest_darshan \1\ningest_iostat \2/p' \
            -e 's/^ours, run 1: darshan binary \([0-9.e+-]*\) s.*/ingest_binary \1/p' \
            -e 's/^ours, run 1: DXT \([0-9.e+-]*\) s.*/ingest_dxt \1/p' \
            "$out/$1_ingest_r$2.txt" >> "$f"
        ;;
    esac
}

for r in $(seq "$rounds"); do
    if [ $((r % 2)) -eq 1 ]; then order="base ours"; else order="ours base"; fi
    for side in $order; do
        run "$side" "$r" || {
            echo "bench compare: $side, round $r failed; see $out"
            exit 1
        }
    done
    echo "round $r done ($order)"
done

median() { # the median of the numbers on stdin, "-" when there are none
    sort -g | awk '{ v[NR] = $1 } END { if (!NR) print "-"; else if (NR % 2) print v[(NR + 1) / 2];
                   else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

echo
echo "== results (seconds, median of $rounds rounds; ratio = ours / base)"
printf "%-18s  %10s  %10s  %7s  %s\n" figure "base s" "ours s" ratio verdict
failed=0
for name in $(awk '{ print $1 }' "$out/ours_r1.txt"); do
    b=$(cat "$out"/base_r*.txt | awk -v n="$name" '$1 == n { print $2 }' | median)
    o=$(cat "$out"/ours_r*.txt | awk -v n="$name" '$1 == n { print $2 }' | median)
    if [ "$b" = - ] || [ "$o" = - ]; then
        printf "%-18s  %10s  %10s  %7s  %s\n" "$name" "$b" "$o" - MISS
        failed=1
        continue
    fi
    q=$(awk -v o="$o" -v b="$b" 'BEGIN { printf "%.3f", o / b }')
    v=$(awk -v q="$q" -v t="$tol" 'BEGIN { print (q <= 1 + t / 100 ? "PASS" : "MISS") }')
    [ "$v" = PASS ] || failed=1
    printf "%-18s  %10s  %10s  %7s  %s\n" "$name" "$(fmt_s "$b")" "$(fmt_s "$o")" "$q" "$v"
done
echo "ingest sizes: BENCH_INGEST_LOGS=$BENCH_INGEST_LOGS, _DAYS=$BENCH_INGEST_DAYS, _DXT_LOGS=$BENCH_INGEST_DXT_LOGS, _REPS=$BENCH_INGEST_REPS; assoc d = $d"
echo "load average at end: $(cut -d ' ' -f 1-3 /proc/loadavg); raw outputs in $out"
rm -f "$data"
exit "$failed"
