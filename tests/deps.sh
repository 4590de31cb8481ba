#!/bin/sh
# Installs, on Debian 12, what iocontend needs, only the packages missing, so that a
# prepared machine pays nothing. sh tests/deps.sh [run|test]:
#   run   (make deps, make demo) building the program and running it: the compiler,
#         the libraries, PostgreSQL, sadf and the page's Vega;
#   test  (make test) that and the tests' tools: cmocka, lint, the fuzzer's clang,
#         the Python oracles, chromium, prometheus, systemd, man, wrk...
set -eu
set_name=${1:-test}
run_pkgs="build-essential pkg-config libgsl-dev libpq-dev libjansson-dev libmicrohttpd-dev
libinih-dev zlib1g-dev libbz2-dev liblzma-dev sysstat postgresql-15 postgresql-client-15
libjs-vega libjs-requirejs tzdata"
# promtool and a Prometheus server for the /metrics tests (a service the policy below
# keeps from starting).
test_pkgs="libcmocka-dev clang-format clang-tidy cppcheck clang-14 libclang-rt-14-dev
python3-numpy python3-scipy python3-sklearn python3-statsmodels python3-jsonschema curl
ca-certificates util-linux procps time chromium chromium-driver wrk systemd man-db
groff-base prometheus"
case $set_name in
run) pkgs=$run_pkgs ;;
test) pkgs="$run_pkgs $test_pkgs" ;;
*)
    echo "deps: run or test, got '$set_name'" >&2
    exit 64
    ;;
esac
missing=""
for p in $pkgs; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
if [ -z "$missing" ]; then
    echo "deps: all packages present ($set_name)"
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "deps: missing Debian packages:$missing" >&2
    echo "deps: run 'make $([ "$set_name" = run ] && echo deps || echo test-deps)' as root, or install them with apt-get" >&2
    exit 1
fi
echo "deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
# The postgresql package would create and start a system cluster; iocontend runs its
# own, so keep the package from starting services inside containers and chroots.
if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
    chmod 755 /usr/sbin/policy-rc.d
    trap 'rm -f /usr/sbin/policy-rc.d' EXIT
fi
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing
