#!/usr/bin/env bash
# shard/run.sh TCPSIFT - `analyze --shard K/N` partitions connections: every
# sample (each alone, all merged as one stream) and a generated capture of
# 300 connections (tests/shard/mkcap.py) analysed in one pass and as 4
# shards; tests/shard/check.py compares connections, events and summary
# counters, and places each connection by the hash of tcpsift-analyze(1)
# reimplemented in tests/shard/shardhash.py. Then a 4-shard NDJSON job through
# GNU parallel; `tcpsift merge` of 1, 2 and 4 shards of every sample, of all
# of them, of both generated captures against the one-pass report (JSON and
# text byte for byte, NDJSON lines sorted), a 4-shard job through GNU
# parallel merged, what merge refuses; the text report's shard line and
# --shard's usage errors.
set -uo pipefail
cd "$(dirname "$0")/../.."
T_SUITE=shard
. tests/lib.sh
bin=${1:?usage: run.sh TCPSIFT}
export TZ=UTC LC_ALL=C
out=build/shard
rm -rf "$out"
mkdir -p "$out"
N=4

# compare NAME FORMAT ARGS...: one pass and N shards of `analyze FORMAT ARGS`.
compare() {
	local name=$1 fmt=$2 k rc krc
	shift 2
	"$bin" analyze --no-progress "--$fmt" "$@" >"$out/$name.one.$fmt" 2>"$out/$name.one.err"
	rc=$?
	for k in $(seq $N); do
		"$bin" analyze --no-progress "--$fmt" --shard "$k/$N" "$@" >"$out/$name.$k.$fmt" \
			2>"$out/$name.$k.err"
		krc=$?
		[ $krc = $rc ] || { t_fail "$name: shard $k/$N exits $krc, one pass $rc"; return; }
	done
	if python3 tests/shard/check.py "$fmt" "$out/$name.one.$fmt" \
		$(for k in $(seq $N); do echo "$out/$name.$k.$fmt"; done) >"$out/$name.check"; then
		t_pass "$name: $N shards = one pass"
	else
		t_fail "$name: $N shards differ from one pass:"
		head -5 "$out/$name.check"
	fi
}

samples=()
for s in samples/*.pcap samples/*.pcapng samples/bad/lying-headers.pcap; do
	samples+=("$s")
	compare "$(basename "$s")" json "$s"
done
# Several inputs merged by time are one stream: connections of one input end
# idle while another's packets come (capture times years apart).
compare all-merged json "${samples[@]}"
compare queues-merged json --queue-per-file samples/reorder-queues-q0.pcap \
	samples/reorder-queues-q1.pcap

python3 tests/shard/mkcap.py "$out/gen.pcap" || t_fail "mkcap.py"
# --idle-timeout 2: connections that pause 3 s end and come back in every shard alike.
compare gen json --frames --idle-timeout 2 "$out/gen.pcap"
compare gen-nd ndjson --idle-timeout 2 "$out/gen.pcap"
# The connections spread over the shards (a hash taking one byte's low bits would not).
for k in $(seq $N); do
	c=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["connections"])' \
		"$out/gen.$k.json")
	[ "$c" -ge 50 ] && t_pass "gen: shard $k has $c connections" ||
		t_fail "gen: shard $k has only $c of 343 connections"
done

# The job as tcpsift-analyze(1) shows it: GNU parallel runs the shards.
if command -v parallel >/dev/null; then
	par=$out/parallel
	mkdir -p "$par"
	if parallel --will-cite -j4 "$bin" analyze --no-progress --ndjson --idle-timeout 2 \
		--shard {}/4 "$out/gen.pcap" '>' "$par/shard{}.ndjson" ::: 1 2 3 4 2>"$par/err" &&
		python3 tests/shard/check.py ndjson "$out/gen-nd.one.ndjson" "$par"/shard{1,2,3,4}.ndjson \
			>"$par/check"; then
		t_pass "GNU parallel: 4 shards = one pass"
	else
		t_fail "GNU parallel: $(head -c 300 "$par/err" "$par/check" 2>/dev/null)"
	fi
else
	t_fail "GNU parallel not installed (scripts/deps.sh check installs it)"
fi

# merge: the shards' reports back into the one-pass report (tcpsift-merge(1)):
# byte for byte for JSON and text, flows.max_live included (the one-pass
# peak, from when each connection was live); NDJSON's lines sorted.
# --frames so that the text's example frames are in the reports.
mdir=$out/merge
mkdir -p "$mdir"
# merge_cmp NAME ARGS...: for N = 1, 2, 4.
merge_cmp() {
	local name=$1 n k bad=""
	shift
	local d=$mdir/$name
	mkdir -p "$d"
	"$bin" analyze --no-progress --frames --json "$@" >"$d/one.json" 2>/dev/null
	"$bin" analyze --no-progress --frames "$@" >"$d/one.txt" 2>/dev/null
	"$bin" analyze --no-progress --ndjson "$@" 2>/dev/null | sort >"$d/one.ndjson"
	for n in 1 2 4; do
		for k in $(seq $n); do
			"$bin" analyze --no-progress --frames --json --shard "$k/$n" "$@" >"$d/s$k-$n.json" 2>/dev/null
			"$bin" analyze --no-progress --ndjson --shard "$k/$n" "$@" >"$d/s$k-$n.ndjson" 2>/dev/null
		done
		if ! "$bin" merge --json -o "$d/m$n.json" $(seq -f "$d/s%g-$n.json" $n) 2>"$d/m$n.err"; then
			bad+=" N=$n: merge failed: $(head -c 200 "$d/m$n.err");"
			continue
		fi
		"$bin" merge $(seq -f "$d/s%g-$n.json" $n) >"$d/m$n.txt" 2>>"$d/m$n.err"
		"$bin" merge --ndjson $(seq -f "$d/s%g-$n.ndjson" $n) 2>>"$d/m$n.err" |
			sort >"$d/m$n.ndjson"
		cmp -s "$d/one.json" "$d/m$n.json" || bad+=" N=$n: JSON differs;"
		cmp -s "$d/one.txt" "$d/m$n.txt" || bad+=" N=$n: text differs;"
		cmp -s "$d/one.ndjson" "$d/m$n.ndjson" || bad+=" N=$n: NDJSON lines differ;"
	done
	if [ -z "$bad" ]; then t_pass "merge $name: N = 1, 2, 4 give the one-pass report"; else
		t_fail "merge $name:$bad"; fi
}
for s in samples/*.pcap samples/*.pcapng samples/bad/lying-headers.pcap; do
	merge_cmp "$(basename "$s")" "$s"
done
merge_cmp all-merged "${samples[@]}"
merge_cmp queues-merged --queue-per-file samples/reorder-queues-q0.pcap samples/reorder-queues-q1.pcap
merge_cmp filtered -f 'tcp port 80' samples/demo-http-loss.pcapng samples/zero-window.pcap
merge_cmp gen --idle-timeout 2 "$out/gen.pcap"
# One packet in 20 of it 3 s back in time: a one-pass run reads the file in
# its order, and merge numbers the connections of one input the same way.
python3 - "$out/gen.pcap" "$out/backwards.pcap" <<'PY'
import random, struct, sys
d = open(sys.argv[1], "rb").read()
recs, off = [], 24
while off < len(d):
    caplen = struct.unpack("<I", d[off + 8:off + 12])[0]
    recs.append(bytearray(d[off:off + 16 + caplen]))
    off += 16 + caplen
random.seed(7)
for i in random.sample(range(len(recs)), len(recs) // 20):
    sec = struct.unpack("<I", recs[i][:4])[0]
    recs[i][:4] = struct.pack("<I", sec - 3)
open(sys.argv[2], "wb").write(d[:24] + b"".join(recs))
PY
merge_cmp backwards --idle-timeout 2 "$out/backwards.pcap"
gen=$(dirname "$bin")/bench/gen
if [ -x "$gen" ] && "$gen" -o "$out/bench-gen.pcap" --packets 20000 --connections 500 \
	--concurrent 100 >/dev/null 2>&1; then
	merge_cmp bench-gen "$out/bench-gen.pcap"
else
	t_skip "no $gen: the bench generator's capture not merged"
fi

# The job across machines as tcpsift-analyze(1) shows it, here on one: GNU parallel
# runs 4 shards writing JSON and NDJSON, merge puts them together.
if command -v parallel >/dev/null; then
	par=$mdir/parallel
	mkdir -p "$par"
	one=$mdir/bench-gen
	[ -f "$one/one.json" ] || one=$mdir/gen
	src=$out/bench-gen.pcap
	[ -f "$src" ] || src=$out/gen.pcap
	[ "$one" = "$mdir/gen" ] && extra="--idle-timeout 2" || extra=""
	if parallel --will-cite -j4 "$bin" analyze --no-progress --frames --json $extra --shard {}/4 \
		"$src" '>' "$par/shard{}.json" ::: 1 2 3 4 2>"$par/err" &&
		parallel --will-cite -j4 "$bin" analyze --no-progress --ndjson $extra --shard {}/4 \
			"$src" '>' "$par/shard{}.ndjson" ::: 1 2 3 4 2>>"$par/err" &&
		"$bin" merge --json "$par"/shard*.json >"$par/m.json" 2>>"$par/err" &&
		"$bin" merge "$par"/shard*.json >"$par/m.txt" 2>>"$par/err" &&
		"$bin" merge --ndjson "$par"/shard*.ndjson 2>>"$par/err" | sort >"$par/m.ndjson" &&
		cmp -s "$one/one.json" "$par/m.json" && cmp -s "$one/one.txt" "$par/m.txt" &&
		cmp -s "$one/one.ndjson" "$par/m.ndjson"; then
		t_pass "GNU parallel: 4 shards merged = one pass (JSON, text, NDJSON sorted)"
	else
		t_fail "GNU parallel + merge: $(head -c 300 "$par/err")"
	fi
	# NDJSON shards, in any order, give the one-pass JSON.
	"$bin" analyze --no-progress --json $extra "$src" >"$par/one.json" 2>/dev/null
	ls "$par"/shard*.ndjson | sort -r | xargs "$bin" merge --json -o "$par/mn.json" 2>"$par/err2" &&
		cmp -s "$par/one.json" "$par/mn.json" &&
		t_pass "merge: NDJSON shards in any order give the JSON" ||
		t_fail "merge NDJSON shards: $(head -c 300 "$par/err2")"
fi

# Every shard's, one-pass and merged report above follows the schema
# (summary.shard and the connections' "live" too), in one call (the sorted
# NDJSON copies aside: lines out of order).
"$bin" merge --ndjson "$mdir"/gen/s?-4.ndjson >"$mdir/gen/m4-all.ndjson" 2>/dev/null
reports=("$out"/*.json "$out"/*.ndjson "$mdir"/*/one.json "$mdir"/*/s*-*.json "$mdir"/*/s*-*.ndjson
	"$mdir"/*/m?.json "$mdir/gen/m4-all.ndjson")
[ -d "${par:-}" ] && reports+=("$par"/*.json "$par"/shard*.ndjson) # m.ndjson: sorted
if scripts/schema.py validate "${reports[@]}" >"$mdir/schema.log" 2>&1; then
	t_pass "schema: the ${#reports[@]} shard, one-pass and merged reports are valid"
else
	t_fail "schema: $(head -c 300 "$mdir/schema.log")"
fi

# What merge refuses: one line on stderr, exit 3.
g=$mdir/gen
refuse() { # WHAT PATTERN FILE...
	local what=$1 pat=$2 rc
	shift 2
	"$bin" merge --json "$@" >/dev/null 2>"$mdir/refuse.err"
	rc=$?
	if [ $rc -eq 3 ] && [ "$(wc -l <"$mdir/refuse.err")" -eq 1 ] && grep -q "$pat" "$mdir/refuse.err"; then
		t_pass "merge refuses $what"
	else
		t_fail "merge $what: exit $rc, $(head -c 200 "$mdir/refuse.err")"
	fi
}
refuse "a missing shard" "shard 3 of 4 is missing" "$g/s1-4.json" "$g/s2-4.json" "$g/s4-4.json"
refuse "a shard twice" "both shard 2 of 4" "$g"/s{1,2,3,4}-4.json "$g/s2-4.ndjson"
refuse "shards of different N" "not one job" "$g/s1-2.json" "$g/s2-4.json"
refuse "a report of no shard" "not a shard's report" "$g/one.json"
refuse "what is no report" "not a tcpsift" "$out/gen.pcap"
head -n -1 "$g/s2-4.ndjson" >"$mdir/trunc.ndjson"
refuse "NDJSON without its summary line" "truncated" "$g/s1-4.ndjson" "$mdir/trunc.ndjson" \
	"$g/s3-4.ndjson" "$g/s4-4.ndjson"
sed 's/"schema": 2/"schema": 3/' "$g/s1-2.json" >"$mdir/schema3.json"
refuse "another schema" "schema 3" "$mdir/schema3.json" "$g/s2-2.json"
refuse "shards of other inputs" "not of one run" "$g/s1-2.json" "$mdir/all-merged/s2-2.json"
"$bin" analyze --no-progress --json -f 'tcp port 80' --idle-timeout 2 --shard 2/2 "$out/gen.pcap" \
	>"$mdir/filtered2.json" 2>/dev/null
refuse "shards of another filter" "not of one run" "$g/s1-2.json" "$mdir/filtered2.json"
printf '{"kind":"connection","id":1}\n' >"$mdir/bad.ndjson"
refuse "a broken connection line" "line 1" "$mdir/bad.ndjson"
"$bin" merge >/dev/null 2>"$mdir/e"
[ $? -eq 2 ] && [ "$(wc -l <"$mdir/e")" -eq 1 ] && t_pass "merge without reports: usage error" ||
	t_fail "merge without reports: $(head -c 200 "$mdir/e")"

# Text: a shard says so (and how many packets it left); one pass does not.
"$bin" analyze --no-progress --shard 3/4 "$out/gen.pcap" >"$out/text.3" 2>&1
grep -qE '^  shard 3 of 4: [0-9]+ packets left to the other shards' "$out/text.3" &&
	t_pass "text: the shard line" || t_fail "text: no shard line: $(head -3 "$out/text.3")"
"$bin" analyze --no-progress "$out/gen.pcap" >"$out/text.one" 2>&1
grep -qE 'shard [0-9]+ of' "$out/text.one" && t_fail "text: one pass mentions shards" ||
	t_pass "text: no shard line without --shard"

for v in 0/4 5/4 1/0 4 /4 1/ 1/65537 a/b -1/4 "1/4/2"; do
	"$bin" analyze --shard "$v" "$out/gen.pcap" >/dev/null 2>"$out/e"
	rc=$?
	if [ $rc -eq 2 ] && [ "$(wc -l <"$out/e")" -eq 1 ]; then t_pass "--shard $v: usage error"; else
		t_fail "--shard $v: exit $rc, $(head -c 200 "$out/e")"; fi
done
"$bin" analyze --no-progress --json --shard 65536/65536 "$out/gen.pcap" >/dev/null &&
	t_pass "--shard 65536/65536" || t_fail "--shard 65536/65536"
t_done
