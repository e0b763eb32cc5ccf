#!/usr/bin/env bash
# reader/run.sh BUILD_DIR - our pcap/pcapng reader yields exactly what
# libpcap yields (count, timestamps, lengths, bytes) on every sample and,
# when present, every public capture; compressed copies read the same; the
# JSON reports are valid against the schema.
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

# Compressed input is decoded by the reader and must give the same report.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src=samples/demo-http-loss.pcapng
# Each report as written (*.raw.json) is validated against the schema below.
"$dir/tcpsift" analyze --json "$src" | tee "$tmp/plain.raw.json" |
	sed 's/"path": "[^"]*"/"path": ""/; s/"compressed": [a-z]*/"compressed": x/' >"$tmp/plain.json"
for z in gzip bzip2 xz; do
	command -v $z >/dev/null || { t_skip "$z not installed"; continue; }
	$z -c "$src" >"$tmp/c.$z"
	"$dir/tcpsift" analyze --json "$tmp/c.$z" | tee "$tmp/$z.raw.json" |
		sed 's/"path": "[^"]*"/"path": ""/; s/"compressed": [a-z]*/"compressed": x/' >"$tmp/$z.json"
	if cmp -s "$tmp/plain.json" "$tmp/$z.json"; then t_pass "$z input"; else
		t_fail "$z input gives a different report"; fi
done
# Standard input, plain and compressed.
if "$dir/tcpsift" analyze --json - <"$src" | tee "$tmp/stdin.raw.json" |
	sed 's/"path": "[^"]*"/"path": ""/; s/"compressed": [a-z]*/"compressed": x/' | cmp -s - "$tmp/plain.json"; then
	t_pass "stdin"
else
	t_fail "stdin gives a different report"
fi

# Several inputs merge by time: the demo split into odd and even frames,
# read as two queues, gives the single file's counts, with queues [0, 1].
if command -v tshark >/dev/null; then
	tshark -r "$src" -Y 'frame.number % 2 == 0' -w "$tmp/even.pcapng" 2>/dev/null
	tshark -r "$src" -Y '!(frame.number % 2 == 0)' -w "$tmp/odd.pcapng" 2>/dev/null
	"$dir/tcpsift" analyze --json "$src" >"$tmp/single.json"
	"$dir/tcpsift" analyze --json --queue-per-file "$tmp/even.pcapng" "$tmp/odd.pcapng" >"$tmp/merged.json"
	if python3 - "$tmp/single.json" "$tmp/merged.json" <<'PY'; then
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
keys = ["packets", "tcp_packets", "connections"]
ok = all(a["summary"][k] == b["summary"][k] for k in keys)
ok &= a["summary"]["counts"] == b["summary"]["counts"]
ok &= a["summary"]["findings"] == b["summary"]["findings"]
ok &= [c["queues"] for c in b["connections"]] == [[0, 1]] * len(b["connections"])
for x, y in zip(a["connections"], b["connections"]):
    for d in ("c2s", "s2c"):
        for k in ("retransmissions", "unique_bytes", "dup_acks", "out_of_order"):
            ok &= x[d][k] == y[d][k]
sys.exit(0 if ok else 1)
PY
		t_pass "two inputs merged by time equal the single file"
	else
		t_fail "two inputs merged by time differ from the single file"
	fi
else
	t_skip "tshark missing: merge test not run"
fi
reports=("$tmp"/*.raw.json)
[ -f "$tmp/merged.json" ] && reports+=("$tmp/single.json" "$tmp/merged.json")
if scripts/schema.py validate "${reports[@]}" >"$tmp/schema" 2>&1; then
	t_pass "schema: the ${#reports[@]} JSON reports are valid"
else
	t_fail "schema: $(head -c 300 "$tmp/schema")"
fi
t_done
