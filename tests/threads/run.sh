#!/usr/bin/env bash
# threads/run.sh TCPSIFT - `analyze --threads N` gives the report of one
# thread, byte for byte: every sample (each alone and all merged as one
# stream), the public captures when present, and a generated capture whose
# connections pause and end idle (tests/shard/mkcap.py), in text, JSON and
# NDJSON with per-frame verdicts (also as CSV), combined with --shard and
# with sweeps every second (--idle-timeout 1); the generated capture again
# with malformed, fragmented, tagged and non-IP copies of its packets
# (mknoise.py); 1 500 connections of bench/gen, more than a round of the
# report's parallel writers, and both with connections loaded ahead
# (--prefetch-from 0); every JSON and NDJSON report valid against the schema. Then
# --threads' usage errors.
set -uo pipefail
cd "$(dirname "$0")/../.."
# (T_SUITE names the suite and its folder: tsan.sh runs it as threads-tsan.)
T_SUITE=${T_SUITE:-threads}
. tests/lib.sh
bin=${1:?usage: run.sh TCPSIFT}
export TZ=UTC LC_ALL=C
out=build/$T_SUITE
rm -rf "$out"
mkdir -p "$out"

# same NAME ARGS...: `analyze ARGS` with --threads 1, 2 and 3: same bytes, same exit.
same() {
	local name=$1 t rc trc
	shift
	"$bin" analyze --no-progress --threads 1 "$@" >"$out/$name.1" 2>"$out/$name.1.err"
	rc=$?
	for t in 2 3; do
		"$bin" analyze --no-progress --threads $t "$@" >"$out/$name.$t" 2>"$out/$name.$t.err"
		trc=$?
		t_agree "$name" "--threads $t" "$out/$name.1" $rc "$out/$name.$t" $trc "--threads 1"
	done
}

samples=()
for s in samples/*.pcap samples/*.pcapng; do
	samples+=("$s")
	b=$(basename "$s")
	same "$b.json" --json --frames "$s"
	same "$b.txt" "$s"
done
same all-merged.ndjson --ndjson --frames "${samples[@]}"
same all-merged.txt "${samples[@]}"

if public=$(t_public_dir); then
	for s in "$public"/*.pcap "$public"/*.pcapng; do
		same "public-$(basename "$s").json" --json --frames "$s"
	done
else
	t_skip "public captures: not here"
fi

python3 tests/shard/mkcap.py "$out/gen.pcap" || t_fail "mkcap.py"
same gen.json --json --frames --idle-timeout 2 "$out/gen.pcap"
same gen.ndjson --ndjson --frames --idle-timeout 1 "$out/gen.pcap"
same gen.txt --idle-timeout 1 "$out/gen.pcap"
same gen-shard.json --json --shard 2/3 "$out/gen.pcap"
same gen-shard.ndjson --ndjson --frames --shard 1/3 --idle-timeout 2 "$out/gen.pcap"
# The framings the reader routes by a peek or hands to a full decode
# (VLAN tags, fragments, IPv6 extension headers, bad and cut headers, not
# IP): each counted once, by one worker, whatever N.
python3 tests/threads/mknoise.py "$out/gen.pcap" "$out/noise.pcap" || t_fail "mknoise.py"
same noise.json --json --frames --idle-timeout 1 "$out/noise.pcap"
same noise.txt "$out/noise.pcap"
same noise-shard.ndjson --ndjson --frames --shard 3/4 --idle-timeout 2 "$out/noise.pcap"
for t in 1 2; do
	"$bin" analyze --no-progress --threads $t --frames-csv "$out/gen.$t.csv" "$out/gen.pcap" \
		>/dev/null 2>&1
done
cmp -s "$out/gen.1.csv" "$out/gen.2.csv" && [ -s "$out/gen.1.csv" ] &&
	t_pass "gen: --frames-csv the same rows with 2 threads" ||
	t_fail "gen: --frames-csv differs with 2 threads (or is empty)"
# Enough connections that both workers hold many (a symmetric 4-tuple hash).
c=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["connections"])' \
	"$out/gen.json.1")
[ "${c:-0}" -ge 100 ] && t_pass "gen: $c connections" || t_fail "gen: only ${c:-0} connections"

# More connections and events than the report's writers render in one
# round (analyze/report/parjson.h): rendered by the threads, spliced in
# order; the text table's widths and lines the same way.
gen=$(dirname "$bin")/bench/gen
if "$gen" -o "$out/many.pcap" --packets 30000 --connections 1500 --concurrent 1500 \
	--seed 3 2>/dev/null; then
	same many.json --json --frames "$out/many.pcap"
	same many.txt "$out/many.pcap"
	same many-sorted.txt --sort rtt --top 700 "$out/many.pcap"
	# Connections loaded ahead from the first (the default waits for
	# 32 768 live): one thread decodes packets ahead (workers_ahead.c),
	# the workers load the blocks their connections point to.
	same many-ahead.ndjson --ndjson --frames --prefetch-from 0 "$out/many.pcap"
	same gen-ahead.json --json --frames --prefetch-from 0 --idle-timeout 1 "$out/gen.pcap"
	"$bin" analyze --no-progress --threads 1 --ndjson --frames "$out/many.pcap" >"$out/many-direct.ndjson"
	cmp -s "$out/many-direct.ndjson" "$out/many-ahead.ndjson.1" &&
		t_pass "many: the same bytes with connections loaded ahead and without" ||
		t_fail "many: --prefetch-from 0 changes the report"
else
	t_fail "many: $gen failed"
fi

# Every JSON and NDJSON report above follows the schema: one validation of
# the --threads 1 copies (the others are the same bytes).
reports=("$out"/*.json.1 "$out"/*.ndjson.1)
if [ "${#reports[@]}" -lt 30 ]; then
	t_fail "schema: only ${#reports[@]} JSON/NDJSON reports"
elif scripts/schema.py validate "${reports[@]}" >"$out/schema.log" 2>&1; then
	t_pass "schema: the ${#reports[@]} JSON/NDJSON reports are valid"
else
	t_fail "schema: $(head -c 300 "$out/schema.log")"
fi

for bad in 0 65 x -1; do
	"$bin" analyze --threads "$bad" samples/zero-window.pcap >/dev/null 2>"$out/bad.err"
	rc=$?
	[ $rc = 2 ] && [ "$(wc -l <"$out/bad.err")" = 1 ] &&
		t_pass "--threads $bad: usage error" || t_fail "--threads $bad: exit $rc"
done
t_done
