#!/usr/bin/env bash
# deps.sh build|check|bench - install the Debian packages a target needs,
# only those missing, so a fresh Debian 12 machine gets there in one step.
set -euo pipefail

build_pkgs="gcc make pkg-config libpcap-dev libtrace3-dev libwandio1-dev
            libjansson-dev libncurses-dev zlib1g-dev libbz2-dev liblzma-dev"
check_pkgs="$build_pkgs clang clang-format tshark tcpdump tcptrace iproute2 curl
            nftables ethtool iperf3 tmux python3 python3-jsonschema procps groff-base man-db
            parallel time cppcheck clang-tidy binutils chromium python3-scapy valgrind
            prometheus libclang-rt-14-dev"
# prometheus (with promtool): tests/metrics starts its own server in a test
# namespace; the package's system service is not needed.
# libclang-rt-14-dev: clang's sanitizer runtimes, for the ThreadSanitizer
# build of the threads test (only recommended by clang, and recommends are
# not installed here).
bench_pkgs="$check_pkgs time linux-perf" # linux-perf: bench/profile.sh

case "${1:-build}" in
build) want=$build_pkgs ;;
check) want=$check_pkgs ;;
bench) want=$bench_pkgs ;;
*) echo "usage: $0 build|check|bench" >&2; exit 2 ;;
esac

missing=()
for p in $want; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "deps: installing ${missing[*]}" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null || {
		echo "deps: need root to install: ${missing[*]}" >&2
		exit 1
	}
	sudo=sudo
fi
export DEBIAN_FRONTEND=noninteractive
# tshark asks whether non-root users may capture; answer no, never prompt.
echo "wireshark-common wireshark-common/install-setuid boolean false" |
	$sudo debconf-set-selections 2>/dev/null || true
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
