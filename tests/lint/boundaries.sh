#!/bin/sh
# Fails when an #include crosses a boundary of ARCHITECTURE.md ("what never depends
# on what"), or when a folder below cli/ handles argv, exits or writes to stdout.
# Run from the repository root (make lint does).
status=0

# forbid FOLDER PATTERN WHY: every include line of FOLDER's files (its sub-folders'
# too: ingest/darshan/ includes "../../common/", hence the leading "../"s) that
# matches.
forbid() {
    hits=$(grep -n -E "^[[:space:]]*#[[:space:]]*include[[:space:]]*[<\"](\.\./)*($2)" \
        "$1"/*.c "$1"/*.h "$1"/*/*.c "$1"/*/*.h 2>/dev/null)
    if [ -n "$hits" ]; then
        echo "$hits" | sed "s|\$|   <- $3|"
        status=1
    fi
}

higher='\.\./(sql|ingest|stats|analysis|daemon|cli)/'
forbid common "$higher|\.\./data/" "common/ includes nothing of the project"
forbid stats '\.\./(sql|ingest|analysis|daemon|cli)/|jansson|libpq|microhttpd' \
    "stats/ knows only common/ and GSL"
forbid sql '\.\./(ingest|stats|analysis|daemon|cli)/|jansson|microhttpd' \
    "sql/ knows only common/ and libpq"
forbid ingest '\.\./(stats|analysis|daemon|cli)/|microhttpd' \
    "ingest/ never reaches stats/, analysis/ or the front ends"
forbid analysis '\.\./(daemon|cli|ingest)/|microhttpd' \
    "analysis/ never reaches the front ends"
# Within analysis/, only objects*.c (and their objects.h) render and read JSON
# (REDESIGN.md §4.4 rule 4): the computing files fill structs.
hits=$(grep -n -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]jansson' \
    analysis/*.c analysis/*.h 2>/dev/null | grep -v -E '^analysis/objects(_[a-z]+)?\.[ch]:')
if [ -n "$hits" ]; then
    echo "$hits" | sed "s|\$|   <- within analysis/, only objects*.c includes jansson|"
    status=1
fi
# Within analysis/, only fam_*.c compute a job's families (their compute functions,
# named by the catalogue's rows): the other files read what they computed.
hits=$(grep -n -E '\<stats_(job_volume|job_derived|union_measure)[[:space:]]*\(' \
    analysis/*.c 2>/dev/null | grep -v -E '^analysis/fam_[a-z]+\.c:|^\S+:[0-9]+:\s*(/\*|\*)')
if [ -n "$hits" ]; then
    echo "$hits" | sed "s|\$|   <- within analysis/, only fam_*.c compute families|"
    status=1
fi
forbid daemon '\.\./(cli|stats|ingest)/' \
    "daemon/ never reaches cli/, and stats/ only through analysis/"
# The Darshan reader (ingest/darshan/), the text parsers (ingest/text/) and the log's
# metrics never see the database, nor internal.h, which brings sql/db.h: only the
# loaders (ingest/load/) do.
for parser in ingest/darshan/*.[ch] ingest/text/*.[ch] ingest/metrics.c ingest/fsmap.c; do
    if grep -n -E '#[[:space:]]*include[[:space:]]*"(\.\./)*(sql/|internal\.h)' "$parser"; then
        echo "   <- $parser: the parsers never see the database (only the loaders: ingest/load/)"
        status=1
    fi
done

# Only cli/ sees argv, exits the process, uses sysexits or writes to stdout.
for dir in common stats sql ingest analysis daemon; do
    hits=$(grep -n -E '\<(argv|argc)\>|[^_a-z]exit\(|sysexits|\<stdout\>|(^|[^a-z_])(printf|puts|putchar)\(' \
        "$dir"/*.c "$dir"/*.h "$dir"/*/*.c "$dir"/*/*.h 2>/dev/null |
        grep -v -E '^\S+:[0-9]+:\s*(/\*|\*)')
    if [ -n "$hits" ]; then
        echo "$hits" | sed "s|\$|   <- only cli/ has argv, exit, sysexits and stdout|"
        status=1
    fi
done

# Below cli/ a message goes through log_* (common/'s logger is the one writer).
for dir in stats sql ingest analysis daemon; do
    hits=$(grep -n -E '\<stderr\>' "$dir"/*.c "$dir"/*.h "$dir"/*/*.c "$dir"/*/*.h 2>/dev/null |
        grep -v -E '^\S+:[0-9]+:\s*(/\*|\*)')
    if [ -n "$hits" ]; then
        echo "$hits" | sed "s|\$|   <- below cli/, messages go through log_*|"
        status=1
    fi
done

if [ "$status" -eq 0 ]; then
    echo "boundaries: clean"
fi
exit "$status"
