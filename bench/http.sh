#!/bin/bash
# http.sh: make bench, section "http": the server under wrk (Debian's), loopback,
# server and load on the same cores, 50 connections (issue 19 part 4, first half):
#   /         the page from memory: the ceiling
#   health    /api/v1/health, answered from the poller's snapshot
#   stored    a stored association (the largest group), answered from the cache
#   stored gz the same with Accept-Encoding: gzip
#   health+4  /api/v1/health while four association?permutations=999&rf=1 of the
#             largest group compute (each started again as soon as it answers)
#   slow      /api/v1/health from 127.0.0.2, one request at a time (curl), while
#             bench/slow_clients.py holds 2,000 trickling connections from 127.0.0.1
# req/s, p50 and p99 of each. Targets: stored >= 20,000 req/s with p99 <= 10 ms;
# health >= 10,000 req/s; health+4 p99 <= 50 ms; slow: every answer 200, p99 < 50 ms.
#
# Usage: bash bench/http.sh BUILD. Environment: BENCH_HTTP_S seconds per run (10).
# The sample data of `iocontend demo` (1260 jobs, 3 groups) in an embedded cluster
# under BUILD/bench/http (made once, kept; `make clean` removes it).
set -u
build=${1:-build}
# shellcheck source=bench/lib.sh
. bench/lib.sh
secs=${BENCH_HTTP_S:-10}
bin=$build/iocontend
base=$build/bench/http
port=18932
url=http://127.0.0.1:$port
section_header "iocontend serve under wrk (50 connections) beside its static page (the ceiling)" \
    "serve: 4 HTTP workers; wrk: 2 threads"
if ! command -v wrk > /dev/null; then
    echo "bench http: wrk is not installed (make deps installs it)"
    target "NOT RUN" "stored association >= 20000 req/s, p99 <= 10 ms"
    target "NOT RUN" "/health >= 10000 req/s"
    target "NOT RUN" "/health p99 <= 50 ms with four computations"
    target "NOT RUN" "/health p99 < 50 ms beside 2000 slow connections"
    exit 0
fi
mkdir -p "$base" || exit 1
state=$(cluster_state "$base/state" /var/tmp/iocontend-bench-http) || exit 1
export IOCONTEND_STATE_DIR=$state
pid=
loaders=()
cleanup() {
    rm -f "$base/computing"
    for l in "${loaders[@]}"; do kill "$l" 2> /dev/null; done
    [ -n "$pid" ] && kill "$pid" 2> /dev/null && wait "$pid" 2> /dev/null
    "$bin" db stop > /dev/null 2>&1
}
trap cleanup EXIT
# wrk's 50 connections all come from 127.0.0.1, above the default per-address limit
# (32): the bench raises it, so that the figures are the server's, not the gate's 503s.
printf '[serve]\nmax_connections_per_address = 128\n' > "$base/bench.conf"
# demo generates, ingests and analyses once (the state keeps them), then serves.
"$bin" --quiet --config "$base/bench.conf" demo --listen 127.0.0.1:$port \
    > "$base/serve.log" 2>&1 &
pid=$!
for _ in $(seq 1 300); do
    curl -s -o /dev/null -w '%{http_code}' "$url/api/v1/health" 2> /dev/null | grep -q 200 && break
    sleep 1
done
group=$(curl -s "$url/api/v1/groups" | sed -n 's/^{"groups":\[{"id":"\([^"]*\)".*/\1/p')
if [ -z "$group" ]; then
    echo "bench http: the server did not answer (see $base/serve.log)"
    exit 1
fi
# run NAME PATH [HEADER]: "NAME req/s p50_ms p99_ms" into $base/NAME.txt
run() {
    local extra=()
    [ $# -ge 3 ] && extra=(-H "$3")
    curl -s -o /dev/null "$url$2" # the first answer fills the cache
    wrk -t2 -c50 -d"${secs}s" --latency "${extra[@]}" "$url$2" > "$base/$1.wrk" 2>&1
    awk -v n="$1" '
        function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0;
                         if (v ~ /s$/) return v * 1000; return v }
        $1 == "50%" { p50 = ms($2) } $1 == "99%" { p99 = ms($2) }
        $1 == "Requests/sec:" { r = $2 } /Non-2xx/ { bad = $NF }
        END { printf "%s %s %s %s %s\n", n, r, p50, p99, bad + 0 }' "$base/$1.wrk" > "$base/$1.txt"
}
run page /
run health /api/v1/health
run stored "/api/v1/groups/$group/association"
run stored_gz "/api/v1/groups/$group/association" "Accept-Encoding: gzip"
# health+4: four computations of the largest group in flight the whole time.
largest=$(curl -s "$url/api/v1/groups" | /usr/bin/python3 -c '
import json, sys
print(max(json.load(sys.stdin)["groups"], key=lambda g: g["jobs"])["id"])')
compute="$url/api/v1/groups/$largest/association?permutations=999&rf=1"
touch "$base/computing"
: > "$base/computed.txt"
for _ in 1 2 3 4; do
    (while [ -f "$base/computing" ]; do
        curl -s -o /dev/null -w '%{http_code} %{time_total}\n' "$compute" >> "$base/computed.txt"
    done) &
    loaders+=($!)
done
sleep 2
run health_4 /api/v1/health
rm -f "$base/computing"
for l in "${loaders[@]}"; do wait "$l" 2> /dev/null; done
loaders=()
computed=$(awk '$1 == 200 { n++ } END { print n + 0 }' "$base/computed.txt")
computed_bad=$(awk '$1 != 200 { n++ } END { print n + 0 }' "$base/computed.txt")
computed_s=$(awk '$1 == 200 { s += $2; n++ } END { printf "%.2f", n ? s / n : 0 }' "$base/computed.txt")
# slow: 2,000 trickling connections from 127.0.0.1; /health from 127.0.0.2.
/usr/bin/python3 bench/slow_clients.py 127.0.0.1 127.0.0.1 "$port" 2000 "$((secs + 4))" \
    > "$base/slow_clients.txt" 2>&1 &
loaders+=($!)
sleep 2
: > "$base/slow_health.txt"
end=$((SECONDS + secs))
while [ $SECONDS -lt $end ]; do
    curl -s -o /dev/null --interface 127.0.0.2 -w '%{http_code} %{time_total}\n' \
        "$url/api/v1/health" >> "$base/slow_health.txt"
done
wait "${loaders[@]}" 2> /dev/null
loaders=()
sort -k2 -n "$base/slow_health.txt" | awk '
    { code[NR] = $1; t[NR] = $2 * 1000; if ($1 != 200) bad++ }
    END { i50 = int(NR * 0.50); i99 = int(NR * 0.99); if (i50 < 1) i50 = 1; if (i99 < 1) i99 = 1
          printf "slow %.0f %.2f %.2f %d\n", NR / '"$secs"', t[i50], t[i99], bad + 0 }' > "$base/slow.txt"
# One request from the slow clients' own address: refused or served, it says which.
from_slow=$(curl -s -o /dev/null -m 5 -w '%{http_code}' "$url/api/v1/health" 2> /dev/null)

echo
printf "%-28s %10s %9s %9s %8s\n" route "req/s" "p50 ms" "p99 ms" "non-2xx"
for n in page health stored stored_gz health_4 slow; do
    read -r _ r p50 p99 bad < "$base/$n.txt"
    printf "%-28s %10s %9.2f %9.2f %8s\n" "$n" "$(fmt_n "$r")" "$p50" "$p99" "$bad"
done
read -r _ sr _ sp99 sbad < "$base/stored.txt"
read -r _ hr _ _ hbad < "$base/health.txt"
read -r _ _ _ h4p99 h4bad < "$base/health_4.txt"
read -r _ _ _ slp99 slbad < "$base/slow.txt"
echo
echo "health_4: $computed computed associations answered 200 meanwhile (mean $computed_s s each), $computed_bad not"
echo "slow: $(cat "$base/slow_clients.txt"); /health from 127.0.0.1 after them: $from_slow"
if [ "$sbad" -ne 0 ] || [ "$hbad" -ne 0 ] || [ "$h4bad" -ne 0 ]; then
    echo "bench http: some answers were not 2xx (see $base/*.wrk)"
fi
target_at_least "$sr" 20000 "stored association >= 20000 req/s" "req/s"
target_when "x <= l" "$sp99" 10 "stored association p99 <= 10 ms" "$sp99 ms"
target_at_least "$hr" 10000 "/health >= 10000 req/s" "req/s"
if [ "$computed_bad" -eq 0 ]; then
    target_when "x <= l" "$h4p99" 50 "/health p99 <= 50 ms with four computations" "$h4p99 ms"
else
    target "MISS" "/health with four computations: $computed_bad of them not answered 200"
fi
if [ "$slbad" -eq 0 ]; then
    target_when "x < l" "$slp99" 50 "/health p99 < 50 ms beside 2000 slow connections" "$slp99 ms"
else
    target "MISS" "/health beside 2000 slow connections: $slbad answers not 200"
fi
