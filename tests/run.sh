#!/bin/sh
# Runs test binaries, reads cmocka's summaries and writes "passed failed" totals to
# $BUILD/test-results.txt; prints one closing "N passed, N failed" line.
# A binary that dies without a summary counts as one failure.
build="$1"
shift
results="$build/test-results.txt"
logdir="$build/test-logs"
mkdir -p "$logdir"
passed=0
failed=0
export IOCONTEND_BIN="$build/iocontend"
export IOCONTEND_GEN="$build/iocontend-gen"
for t in "$@"; do
    name=$(echo "$t" | sed "s|^$build/tests/||; s|/|_|g")
    log="$logdir/$name.log"
    echo "== $t"
    "$t" > "$log" 2>&1
    rc=$?
    # A binary may run several cmocka groups, each with its own summary: all count.
    p=$(sed -n 's/^\[  PASSED  \] \([0-9][0-9]*\) test.*/\1/p' "$log" | awk '{ s += $1 } END { print s + 0 }')
    f=$(sed -n 's/^\[  FAILED  \] \([0-9][0-9]*\) test.*/\1/p' "$log" | awk '{ s += $1 } END { print s + 0 }')
    p=${p:-0}
    f=${f:-0}
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        f=1
        echo "   $t exited $rc without a failing test: counted as one failure"
    fi
    if [ "$f" -gt 0 ]; then
        grep -E '^\[  (FAILED|  ERROR  ) \]|^\[  ERROR   \]|error:|ERROR|Sanitizer|runtime error' "$log" | head -40
        echo "   (log: $log)"
    fi
    echo "   $p passed, $f failed"
    passed=$((passed + p))
    failed=$((failed + f))
done
echo "$passed $failed" > "$results"
echo "$build: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
