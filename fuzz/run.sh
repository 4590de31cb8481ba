#!/bin/sh
# make fuzz: libFuzzer over each corpus of fuzz/*.seeds, one at a time (the machine is
# shared), for SECONDS each; prints executions, crashes and corpus sizes per corpus.
# The corpus grows under BUILD/corpus/NAME across runs; the seeds are copied afresh
# into BUILD/seeds/NAME; a crash's input goes to BUILD/crashes/NAME/.
# Usage: sh fuzz/run.sh BUILD SECONDS [NAME...] (the names of fuzz/NAME.seeds; all
# when none).
set -u
build="$1"
seconds="$2"
shift 2
shared="${IOCONTEND_SHARED:-../shared}"

# NAME TARGET MAX_LEN: -max_len keeps the executions fast yet holds the structure of
# each format whole. 64 KiB holds most darshan logs of the shared data entire (20 to
# 50 KB: header, mounts, every module; the larger ones only repeat records). 8 KiB
# holds 15 to 20 one-device reports of iostat or sadf (text, CSV or JSON, 300 to 500
# bytes each): the since-boot drop, Δ's median and the set-aside rule all see several;
# a longer seed is cut there, which is the cut-document path. 4 KiB holds any
# configuration's every section (lines are at most 199 bytes). 16 KiB holds 63 of the
# 69 binary logs whole (0.8 to 13 KB: the 1328-byte header and its map, the job
# region, the name records, every module's compressed region); the six larger ones
# (31 KB to 1.1 MB) are cut inside a region, which is the region-past-the-end path.
# A region inflates up to 4096 times (darshan_bin.c's bound), so a longer input
# would mostly spend its time inflating and writing text. 64 KiB holds 12 of the 39
# DXT texts whole and 130 to 1 500 operation rows of any other: every column layout,
# a module banner or two, the Lustre stripe lines. 8 KiB holds every compressed seed
# whole (its header, blocks and trailer); a bomb in it inflates to the 1 MiB cap of
# fuzz_source at most. 8 KiB of sadf -j is 15 to 20 one-disk records, as iostat's.
corpora="darshan darshan 65536
darshan_bin darshan_bin 16384
dxt dxt 65536
iostat_text iostat 8192
iostat_json iostat 8192
iostat_sadf_d iostat 8192
iostat_sadf_j iostat 8192
config config 4096
source source 8192
sa sa 8192"

rm -f "$build/fuzz-failed"
echo "$corpora" | while read -r name target max_len; do
    if [ $# -gt 0 ]; then
        case " $* " in *" $name "*) ;; *) continue ;; esac
    fi
    seeds="$build/seeds/$name"
    corpus="$build/corpus/$name"
    crashes="$build/crashes/$name"
    log="$build/fuzz-$name.log"
    rm -rf "$seeds"
    mkdir -p "$seeds" "$corpus" "$crashes"
    grep -v -e '^#' -e '^$' "fuzz/$name.seeds" | sed "s|^\\\$DATA/|$shared/data/|" |
        while read -r pattern; do
            for f in $pattern; do
                [ -f "$f" ] && cp "$f" "$seeds/$(basename "$(dirname "$f")")_$(basename "$f")"
            done
        done
    before=$(ls "$crashes" | wc -l)
    echo "== $name: fuzz_$target, $seconds s, -max_len=$max_len, $(ls "$seeds" | wc -l) seeds"
    # timeout: a run wedged past its time (LeakSanitizer scanning a heap that an input
    # blew up, say) must not hold the shared machine.
    timeout -k 10 $((seconds + 120)) \
        "$build/fuzz/fuzz_$target" -max_total_time="$seconds" -max_len="$max_len" \
        -timeout=10 -print_final_stats=1 -artifact_prefix="$crashes/" \
        "$corpus" "$seeds" > "$log" 2>&1
    rc=$?
    found=$(($(ls "$crashes" | wc -l) - before))
    # A run that died without writing its input (killed, wedged) is a crash too.
    if [ "$rc" -ne 0 ] && [ "$found" -eq 0 ]; then
        found=1
    fi
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
    added=$(sed -n 's/^stat::new_units_added: *//p' "$log" | tail -n 1)
    echo "   executions ${execs:-?} (${speed:-?}/s), crashes $found," \
        "new units ${added:-?}, corpus $(ls "$corpus" | wc -l) files (log: $log)"
    if [ "$rc" -ne 0 ]; then
        grep -E 'ERROR:|SUMMARY:|contract broken|Test unit written' "$log" | head -8
        echo "   fuzz_$target exited $rc"
        echo "$name" >> "$build/fuzz-failed"
    fi
done
if [ -s "$build/fuzz-failed" ]; then
    echo "fuzz: crashes in $(tr '\n' ' ' < "$build/fuzz-failed")"
    rm -f "$build/fuzz-failed"
    exit 1
fi
echo "fuzz: no crash"
