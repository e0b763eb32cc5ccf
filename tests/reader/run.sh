#!/usr/bin/env bash
# reader/run.sh BUILD_DIR - our pcap/pcapng reader yields exactly what
# libpcap yields (count, timestamps, lengths, bytes) on every sample and,
# when present, every public capture; compressed copies read the same.
set -uo pipefail
cd "$(dirname "$0")/../.."
T_SUITE=reader
. tests/lib.sh
dir=${1:?usage: run.sh BUILD_DIR}
cmp=$dir/tests/tools/pcapcmp
pub=${TCPSIFT_PUBLIC:-../shared/pcaps/public}
files=(samples/*.pcap samples/*.pcapng)
[ -d "$pub" ] && files+=("$pub"/*.pcap "$pub"/*.pcapng "$pub"/fuzz/*.pcapng)
for f in "${files[@]}"; do
	[ -f "$f" ] || continue
	if out=$("$cmp" "$f" 2>&1); then
		t_pass "$out"
	else
		t_fail "$f: $out"
	fi
done

# Compressed input goes through libwandio and must give the same report.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src=samples/demo-http-loss.pcapng
"$dir/tcpsift" analyze --json "$src" | sed 's/"path": "[^"]*"/"path": ""/; s/"compressed": [a-z]*/"compressed": x/' >"$tmp/plain.json"
for z in gzip bzip2 xz; do
	command -v $z >/dev/null || { t_skip "$z not installed"; continue; }
	$z -c "$src" >"$tmp/c.$z"
	"$dir/tcpsift" analyze --json "$tmp/c.$z" |
		sed 's/"path": "[^"]*"/"path": ""/; s/"compressed": [a-z]*/"compressed": x/' >"$tmp/$z.json"
	if cmp -s "$tmp/plain.json" "$tmp/$z.json"; then t_pass "$z input"; else
		t_fail "$z input gives a different report"; fi
done
# Standard input, plain and compressed.
if "$dir/tcpsift" analyze --json - <"$src" |
	sed 's/"path": "[^"]*"/"path": ""/; s/"compressed": [a-z]*/"compressed": x/' | cmp -s - "$tmp/plain.json"; then
	t_pass "stdin"
else
	t_fail "stdin gives a different report"
fi
t_done
