#!/bin/bash
# signif.sh: make bench, section "signif": stats_signif_compute (bench_signif) with
# B = 999 permutations at d = 10^4 beside scipy.stats.permutation_test (ref_signif.py).
#
# Usage: bash bench/signif.sh BUILD. Environment:
#   ORACLE_PY        the interpreter with numpy, scipy, sklearn, statsmodels
#   BENCH_SIGNIF_D   the size (10000)
#   BENCH_SIGNIF_B   the permutations (999, docs/method.md's B)
#
# Data: ref_assoc.py gen at d (the assoc section's). Ours, one stats_signif_compute
# call each: "ps" Pearson + Spearman; "four" the four core coefficients (pearson,
# spearman, dcor_v, mi_linfoot: one stats_assoc_compute per permutation); "five" the
# four and the KDE's width_ratio (stats_kde_width_ratio_stat as an extra statistic):
# docs/method.md's "every coefficient (pearson, spearman, dcor_v, mi_linfoot,
# width_ratio)", the target. "boot" (2000 BCa resamples of Pearson and Spearman) and
# "jackknife" are printed beside, without a reference. The reference measures Pearson
# and Spearman by scipy.stats.permutation_test; dCor, KSG MI and width_ratio are one
# call each times B + 1, an extrapolation, printed as one. The two sides' permutations
# differ (GSL's MT19937, numpy's PCG64), so their p-values agree only in law.
set -u
build=${1:-build}
py=${ORACLE_PY:-/usr/bin/python3}
# shellcheck source=bench/lib.sh
. bench/lib.sh
bin=$build/bench/bench_signif
dir=$build/bench/signif
d=${BENCH_SIGNIF_D:-10000}
b=${BENCH_SIGNIF_B:-999}
seed=20240601
failed=0
t_start=$(date +%s)

section_header "stats_signif_compute (ours) beside scipy.stats.permutation_test (ref)"
mkdir -p "$dir" || exit 1
rm -f "$dir"/*
data="$dir/data_$d.bin"
echo "-- d = $d, B = $b"
"$py" bench/ref_assoc.py gen "$data" "$d" "$seed" || exit 1
"$bin" time "$data" "$d" "$b" ps four five boot jackknife > "$dir/ours.txt" || failed=1
"$py" bench/ref_signif.py time "$data" "$d" "$b" > "$dir/ref.txt" || failed=1
rm -f "$data"

extrap() { awk -v k="$1" '$1 == "extrapolated" && $2 == k { print $3 }' "$dir/ref.txt"; }
row() { # work, ours s, ref s (may end in *)
    local q
    q=$(ratio "$2" "${3%\*}")
    [ "${3%\*}" != "$3" ] && [ "$q" != - ] && q="$q*"
    printf "%-44s  %10s  %10s  %8s\n" "$1" "$(fmt_s "$2")" "$3" "$q"
}
star() { [ -z "$1" ] && echo "-" || echo "$(fmt_s "$1")*"; }

echo
echo "== results at d = $d (seconds: best per call; ratio = ref / ours; * = extrapolated)"
printf "%-44s  %10s  %10s  %8s\n" work "ours s" "ref s" ratio
row "$b permutations: pearson + spearman" "$(seconds "$dir/ours.txt" ps)" \
    "$(fmt_s "$(seconds "$dir/ref.txt" ps)")"
row "$b permutations: the four core" "$(seconds "$dir/ours.txt" four)" \
    "$(star "$(extrap four)")"
row "$b permutations: the four + width_ratio" "$(seconds "$dir/ours.txt" five)" \
    "$(star "$(extrap five)")"
row "2000 BCa resamples: pearson + spearman" "$(seconds "$dir/ours.txt" boot)" -
row "jackknife: pearson + spearman" "$(seconds "$dir/ours.txt" jackknife)" -
echo "ref, measured: permutation_test (vectorized) of Pearson $(fmt_s "$(seconds "$dir/ref.txt" perm_pearson)") s, of Spearman $(fmt_s "$(seconds "$dir/ref.txt" perm_spearman)") s;"
echo "  one call of numpy dCor $(fmt_s "$(seconds "$dir/ref.txt" one_dcor)") s, sklearn MI $(fmt_s "$(seconds "$dir/ref.txt" one_mi)") s, statsmodels width_ratio $(fmt_s "$(seconds "$dir/ref.txt" one_width_ratio)") s."
echo "* extrapolated: the measured Pearson + Spearman test + ($b + 1) x one call of each other statistic."

echo
echo "== p-values (each side's own permutations: alike in law, not in value)"
for c in pearson spearman; do
    awk -v c="$c" '$1 == "value" && $2 == "ps" && $3 == c { print $6 }' "$dir/ours.txt" |
        while read -r o; do
            r=$(awk -v c="$c" '$1 == "value" && $2 == "ps" && $3 == c { print $6 }' "$dir/ref.txt")
            printf "%-12s ours p = %s, ref p = %s\n" "$c" "$o" "${r:--}"
        done
done
awk '$1 == "value" && $2 == "five" { printf "%-12s ours p = %s, noise floor %s\n", $3, $6, $8 }' \
    "$dir/ours.txt" | grep -v -E '^(pearson|spearman) '

echo
echo "== targets"
target_below "$(seconds "$dir/ours.txt" five)" 10 \
    "$b permutations of every coefficient (four core + width_ratio) at d=$d under 10 s" s
target_below "$(seconds "$dir/ours.txt" four)" 10 \
    "$b permutations of the four core coefficients at d=$d under 10 s" s
echo
echo "bench signif: $(($(date +%s) - t_start)) s; load average at end: $(cut -d ' ' -f 1-3 /proc/loadavg); raw outputs in $dir"
[ "$failed" -eq 0 ]
