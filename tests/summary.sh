#!/bin/sh
# Adds up the results files of the plain and sanitizer runs into one closing line.
passed=0
failed=0
for f in "$@"; do
    if [ -f "$f" ]; then
        read -r p q < "$f"
        passed=$((passed + p))
        failed=$((failed + q))
    else
        echo "summary: $f missing (that run did not finish)"
        failed=$((failed + 1))
    fi
done
echo "$passed passed, $failed failed"
