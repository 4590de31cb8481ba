#!/bin/sh
# ARCHITECTURE.md names every source file: fails naming each .c and .h outside tests/,
# bench/ and fuzz/ that it does not name as `FOLDER/FILE` (its path from the root, in
# backquotes), each folder holding one that it does not name as `FOLDER/`, and each
# .c or .h it names that is not there (a name with a slash from the root, a bare name
# as some file's name). Files git tracks and new ones it does not ignore are counted.
# Run from the repository root (make lint does).
doc=ARCHITECTURE.md
if [ ! -f "$doc" ]; then
    echo "architecture: $doc is missing"
    exit 1
fi

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    all=$(git ls-files --cached --others --exclude-standard -- '*.c' '*.h' | sort -u)
else
    all=$(find . -path './build*' -prune -o -path ./.git -prune -o \
        -type f \( -name '*.c' -o -name '*.h' \) -print | sed 's|^\./||' | sort -u)
fi
# Only those that are there: git lists a tracked file deleted from the work tree.
present=$(for f in $all; do [ -f "$f" ] && echo "$f"; done)
sources=$(echo "$present" | grep -v -E '^(tests|bench|fuzz)/')

# Every backquoted word of the page, one a line.
quoted=$(grep -o '`[^`]*`' "$doc" | tr -d '`')
# Every .c or .h the page names, anywhere in it: placeholders (NAME, NNNN) and
# globs (cmd_*.c) are not names.
named=$(grep -o -E '[A-Za-z0-9_./-]+\.[ch]([^A-Za-z0-9_]|$)' "$doc" |
    sed -E 's/[^A-Za-z0-9_]$//; s|^(\.{0,2}/)+||' | grep -v '[A-Z]' | sort -u)

{
    echo '@present'; echo "$present"
    echo '@quoted'; echo "$quoted"
    echo '@sources'; echo "$sources"
    echo '@named'; echo "$named"
} | awk -v doc="$doc" '
/^@/ { part = $0; next }
$0 == "" { next }
part == "@present" {
    is_file[$0] = 1
    base = $0; sub(/.*\//, "", base); is_base[base] = 1
    next
}
part == "@quoted" { said[$0] = 1; next }
part == "@sources" {
    if (!($0 in said)) {
        print "architecture: " doc " does not name `" $0 "`"
        bad = 1
    }
    dir = $0; sub(/\/[^\/]*$/, "/", dir)
    if (!(dir in said) && !(dir in told)) {
        print "architecture: " doc " does not name the folder `" dir "`"
        told[dir] = 1
        bad = 1
    }
    next
}
part == "@named" {
    if (index($0, "/") ? !($0 in is_file) : !($0 in is_base)) {
        print "architecture: " doc " names " $0 ", which is not there"
        bad = 1
    }
}
END {
    if (!bad)
        print "architecture: " doc " names every source file and folder"
    exit bad
}'
