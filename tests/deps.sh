#!/bin/sh
# Installs, on Debian 12, what iocontend needs to build, test, fuzz and run the demo.
# Packages already present are left alone, so a prepared machine pays nothing.
set -eu
pkgs="build-essential pkg-config libgsl-dev libpq-dev libjansson-dev libmicrohttpd-dev
libcmocka-dev libinih-dev zlib1g-dev libbz2-dev liblzma-dev sysstat postgresql-15 postgresql-client-15 clang-format clang-tidy cppcheck
clang-14 libclang-rt-14-dev
python3-numpy python3-scipy python3-sklearn python3-statsmodels python3-jsonschema curl ca-certificates
util-linux procps time chromium chromium-driver libjs-vega libjs-requirejs tzdata wrk systemd man-db groff-base"
# promtool and a Prometheus server for the /metrics tests (a service the policy below
# keeps from starting).
pkgs="$pkgs prometheus"
missing=""
for p in $pkgs; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done
if [ -z "$missing" ]; then
    echo "deps: all packages present"
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "deps: missing Debian packages:$missing" >&2
    echo "deps: run 'make deps' as root, or install them with apt-get" >&2
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
