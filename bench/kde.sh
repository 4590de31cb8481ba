#!/bin/bash
# kde.sh: make bench, section "kde": stats_kde_compute (bench_kde) beside scipy's
# gaussian_kde (the density grid) and statsmodels' conditional KDE (the bands).
#
# Usage: bash bench/kde.sh BUILD. Environment:
#   ORACLE_PY           the interpreter with numpy, scipy, statsmodels
#   BENCH_KDE_GRID_D    sizes of the density grid (default "10000 100000")
#   BENCH_KDE_BANDS_D   sizes of the bands alone (default "10000 100000 1000000")
#   REF_GRID_FULL_MAX_D largest d at which gaussian_kde is evaluated on all 128 x 128
#                       points (10000, about 2 s); above, on every 4th point of each
#                       axis (32 x 32) and its time scaled by 16 (printed as such)
#   REF_COND_D          sizes at which statsmodels computes the bands (default
#                       "10000 100000 1000000"; 10^6 takes about 30 s); at a d above
#                       the largest its time is extrapolated linearly in d (printed
#                       as such: each cdf call is a sum over the d jobs, the number
#                       of calls about the same; an estimate, which tends to
#                       overstate)
#
# Data: ref_assoc.py gen (the assoc section's: x = exp(27 + 2u), y = 100 exp(0.3u +
# 0.8v)), one file per d that both sides read; both fit (ln x, ln y). Seconds: the
# assoc section's sampling rule on both sides (best of up to 7 samples, 2 s budget,
# 3 samples of a call under 2 s), workspaces and imports made before timing.
# Ours, per d: "grid" is one stats_kde_compute with the density (product kernel, the
# default: the target), "grid_full" the same with the full kernel (scipy's, so the
# grids compare), "bands" without the density (as a sweep step or a permutation).
set -u
build=${1:-build}
py=${ORACLE_PY:-/usr/bin/python3}
# shellcheck source=bench/lib.sh
. bench/lib.sh
bin=$build/bench/bench_kde
dir=$build/bench/kde
grid_ds=${BENCH_KDE_GRID_D:-"10000 100000"}
bands_ds=${BENCH_KDE_BANDS_D:-"10000 100000 1000000"}
grid_full_max_d=${REF_GRID_FULL_MAX_D:-10000}
cond_ds=${REF_COND_D:-"10000 100000 1000000"}
seed=20240601
failed=0
t_start=$(date +%s)

in_list() { case " $2 " in *" $1 "*) return 0 ;; esac; return 1; }

section_header "stats_kde_compute (ours) beside scipy gaussian_kde / statsmodels (ref)"
"$py" -c 'import numpy, scipy, statsmodels, sys; print("ref: python %s, numpy %s, scipy %s, statsmodels %s" % (sys.version.split()[0], numpy.__version__, scipy.__version__, statsmodels.__version__))' || exit 1
mkdir -p "$dir" || exit 1
rm -f "$dir"/*

# shellcheck disable=SC2086 # the lists are words
ds=$(printf "%s\n" $grid_ds $bands_ds | sort -n -u)
for d in $ds; do
    data="$dir/data_$d.bin"
    echo "-- d = $d"
    "$py" bench/ref_assoc.py gen "$data" "$d" "$seed" || exit 1
    variants=bands
    in_list "$d" "$grid_ds" && variants="grid grid_full bands"
    # shellcheck disable=SC2086
    "$bin" time "$data" "$d" $variants > "$dir/ours_$d.txt" || failed=1
    if in_list "$d" "$grid_ds"; then
        step=1
        [ "$d" -gt "$grid_full_max_d" ] && step=4
        "$py" bench/ref_kde.py grid "$data" "$d" "$step" "$dir/ours_$d.txt" \
            > "$dir/ref_grid_$d.txt" || failed=1
    fi
    if in_list "$d" "$cond_ds"; then
        "$py" bench/ref_kde.py cond "$data" "$d" "$dir/ours_$d.txt" \
            > "$dir/ref_cond_$d.txt" || failed=1
    fi
    rm -f "$data" "$data".*.density
done

# The reference grid's time on all 128 x 128 points: measured, or scaled from a
# coarser grid (then marked *).
ref_grid() {
    local f="$dir/ref_grid_$1.txt" t n
    t=$(seconds "$f" grid)
    n=$(awk '$1 == "points" { print $2 }' "$f" 2> /dev/null)
    if [ "$t" = - ] || [ -z "$n" ]; then
        echo "-"
    elif [ "$n" -eq 16384 ]; then
        fmt_s "$t"
    else
        echo "$(fmt_s "$(awk -v t="$t" -v n="$n" 'BEGIN { print t * 16384 / n }')")*"
    fi
}

# The reference bands' time at d: measured, or extrapolated from the largest d
# measured (then marked *).
# shellcheck disable=SC2086
cond_max=$(printf "%s\n" $cond_ds | sort -n | tail -n 1)
ref_cond() {
    local t
    if in_list "$1" "$cond_ds"; then
        fmt_s "$(seconds "$dir/ref_cond_$1.txt" cond)"
    else
        t=$(seconds "$dir/ref_cond_$cond_max.txt" cond)
        [ "$t" = - ] && { echo "-"; return; }
        echo "$(fmt_s "$(awk -v t="$t" -v d="$1" -v m="$cond_max" 'BEGIN { print t * d / m }')")*"
    fi
}

echo
echo "== results (seconds: best per call; ratio = ref / ours; * = scaled or extrapolated)"
printf "%8s  %-34s  %10s  %10s  %8s\n" d "work (ours / ref)" "ours s" "ref s" ratio
for d in $ds; do
    if in_list "$d" "$grid_ds"; then
        printf "%8s  %-34s  %10s  %10s  %8s\n" "$d" "grid + bands, product / -" \
            "$(fmt_s "$(seconds "$dir/ours_$d.txt" grid)")" - -
        o=$(seconds "$dir/ours_$d.txt" grid_full)
        r=$(ref_grid "$d")
        q=$(ratio "$o" "${r%\*}")
        [ "${r%\*}" != "$r" ] && [ "$q" != - ] && q="$q*"
        printf "%8s  %-34s  %10s  %10s  %8s\n" "$d" "grid + bands, full / gaussian_kde" \
            "$(fmt_s "$o")" "$r" "$q"
    fi
    if in_list "$d" "$bands_ds"; then
        o=$(seconds "$dir/ours_$d.txt" bands)
        r=$(ref_cond "$d")
        q=$(ratio "$o" "${r%\*}")
        [ "${r%\*}" != "$r" ] && [ "$q" != - ] && q="$q*"
        printf "%8s  %-34s  %10s  %10s  %8s\n" "$d" "bands / statsmodels + brentq" \
            "$(fmt_s "$o")" "$r" "$q"
    fi
done
echo "grid: our 128 x 128 density (binned, FFT) plus the bands in one call; its density"
echo "  part is about grid - bands. gaussian_kde sums every job at every grid point."
for d in $grid_ds; do
    n=$(awk '$1 == "points" { print $2 }' "$dir/ref_grid_$d.txt" 2> /dev/null)
    if [ -n "$n" ] && [ "$n" -ne 16384 ]; then
        echo "* d = $d: gaussian_kde evaluated on $n points (every 4th of each axis), its time x 16384 / $n"
    fi
done
for d in $bands_ds; do
    in_list "$d" "$cond_ds" ||
        echo "* d = $d: statsmodels not run (not in REF_COND_D); its time at d = $cond_max x $d / $cond_max, extrapolated"
done
echo "bands: ours is exact up to d = 5000 and binned (512 y bins) above; statsmodels is"
echo "  exact. Both: 16 x 3 conditional quantiles and the marginal's Q05, Q95."

echo
echo "== same values on both sides (tolerances of docs/method.md §5 \"Accuracy\")"
for d in $grid_ds; do
    v=$(field "$dir/ref_grid_$d.txt" diff grid_full)
    [ "$v" = - ] && continue
    awk -v v="$v" -v d="$d" 'BEGIN { printf "%-12s %s  max diff %.2g of the max (d = %s), tolerance 1e-3\n",
        "density", (v <= 1e-3 ? "same" : "DIFFER"), v, d }'
done
for d in $cond_ds; do
    v=$(field "$dir/ref_cond_$d.txt" diff bands_hy)
    w=$(field "$dir/ref_cond_$d.txt" diff width_ratio)
    [ "$v" = - ] && continue
    tol=5e-3
    [ "$d" -le 5000 ] && tol=1e-8
    awk -v v="$v" -v w="$w" -v d="$d" -v t="$tol" 'BEGIN {
        printf "%-12s %s  max diff %.2g h_y (d = %s), tolerance %s h_y; width_ratio differs by %.2g\n",
        "bands", (v <= t ? "same" : "DIFFER"), v, d, t, w }'
done

echo
echo "== targets"
if in_list 100000 "$grid_ds"; then
    target_below "$(seconds "$dir/ours_100000.txt" grid)" 0.05 \
        "density grid (with the bands) at d=10^5 under 50 ms" s
else
    target "NOT RUN" "density grid at d=10^5 under 50 ms: 10^5 not in BENCH_KDE_GRID_D"
fi
if in_list 1000000 "$bands_ds"; then
    target_below "$(seconds "$dir/ours_1000000.txt" bands)" 0.5 \
        "binned conditional quantiles (no density) at d=10^6 under 0.5 s" s
else
    target "NOT RUN" "bands at d=10^6 under 0.5 s: 10^6 not in BENCH_KDE_BANDS_D"
fi
echo
echo "bench kde: $(($(date +%s) - t_start)) s; load average at end: $(cut -d ' ' -f 1-3 /proc/loadavg); raw outputs in $dir"
[ "$failed" -eq 0 ]
