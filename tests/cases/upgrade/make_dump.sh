#!/bin/sh
# make_dump.sh: builds the database tests/integration/test_upgrade.c restores, with
# the iocontend of this checkout, and writes it as tests/cases/upgrade/sample.sql.gz.
# Run from the checkout after `make -j2 all`: sh tests/cases/upgrade/make_dump.sh
# The data: iocontend-gen --seed 20240601 --days 1 --victims 0 (the data the dump
# was first made from, before the generator planted victims), ingested, analysed with 19
# permutations (so a significance is stored), then analyze --sweep: associations,
# significance, forests, sweeps, group tables and coverage are all stored.
set -eu
build=${BUILD:-build}
here=$(cd "$(dirname "$0")" && pwd)
bin=$(pwd)/$build/iocontend
gen=$(pwd)/$build/iocontend-gen
work=$(mktemp -d "${TMPDIR:-/tmp}/iocontend-dump-XXXXXX")
chmod 755 "$work" # as root the cluster runs as postgres, who must enter
export IOCONTEND_STATE_DIR="$work/state"
unset IOCONTEND_DB PGHOST PGHOSTADDR PGPORT PGDATABASE PGSERVICE
mkdir -m 755 "$IOCONTEND_STATE_DIR"
cleanup() {
    "$bin" --quiet db stop || true
    rm -rf "$work"
}
trap cleanup EXIT

"$gen" --out "$work/sample" --seed 20240601 --days 1 --victims 0 >/dev/null
conf="$work/sample/iocontend.conf"
"$bin" --quiet db start
"$bin" --quiet --config "$conf" ingest darshan "$work/sample/darshan"
for fs in scratch1 scratch2; do
    "$bin" --quiet --config "$conf" ingest iostat --fs "$fs" "$work/sample/iostat/$fs"
done
"$bin" --quiet --config "$conf" analyze --permutations 19 || [ $? -eq 1 ]
"$bin" --quiet --config "$conf" analyze --sweep || [ $? -eq 1 ]

# The embedded cluster's connection, as `db status` names it.
socket=$("$bin" db status | sed -n 's/^socket directory: //p')
# Plain SQL without owners or grants, so that it restores into any database;
# --clean --if-exists: also over a database `db migrate` already made.
# pg_dump 15.14 and later fence the script with \restrict / \unrestrict, which an
# older psql refuses; the dump is ours, so the fence goes.
"$(pg_config --bindir)/pg_dump" --no-owner --no-privileges --clean --if-exists \
    "host=$socket port=5432 dbname=iocontend user=postgres" |
    grep -v -E '^\\(un)?restrict ' | gzip -9n >"$here/sample.sql.gz"
cp "$conf" "$here/iocontend.conf"
ls -l "$here/sample.sql.gz"
