#!/usr/bin/env bash
# scale/run.sh BUILD_DIR - memory grows with live connections, not with the
# connections or packets a capture holds (issue 12's bound, on generated
# captures; ground truth from the generators, peak RSS from /usr/bin/time).
#
# 1. 60 000 SYNs 1 ms apart, each its own connection, --idle-timeout 1 (at
#    most ~1 000 live): text and JSON list all 60 000. With the connection
#    summaries kept in 8 MiB (--report-memory 8) the rest spill to $TMPDIR:
#    the report must be byte-identical to keeping them all in memory, and
#    the peak RSS far below that run's (the in-memory run must need at
#    least 40 MiB more: otherwise the test proves nothing).
# 2. bench/gen at a fixed 2 000 live connections, 300 000 and 600 000
#    packets: peak RSS within 10 % + 4 MiB when the packets double.
# 3. No churn (issue 12): 10 000 connections in lockstep, each SACKing ever
#    more holes (sackflood.py), under --max-flows 1000, in JSON, NDJSON and
#    text: 10 000 connections (ids), not one a packet; peak RSS under a cap.
#    With twice the rounds (1.9x the packets) the RSS stays within 35 % + 2 MiB
#    (each connection has twice the holes open: the SACK tables grow with
#    them, to 512 a direction, where they were cut at 12 and the rest lost),
#    and (text, one run each) the instructions executed within 2.2x: counted
#    work under callgrind, the same on every run, where CPU seconds on a
#    shared machine are not.
# 4. (The SYN flood under --max-memory: tests/hostile/floods.sh.)
# 5. Bytes per live connection, from the growth of --ndjson's peak RSS
#    between a small and a large live count (so the fixed costs cancel):
#    active (bench/gen, 2 000 -> 20 000 live, 30 packets a connection) at
#    most ACTIVE_MAX bytes; idle (syns.py --idle: handshake, 100 bytes,
#    ACK, then silence; 4 000 -> 40 000 live) at most IDLE_MAX. Issue 12's
#    targets are 2 048 and 1 024; the bounds are what the code reaches
#    plus ~8 % (2 401 and 1 590 bytes at the "slim" branch, 3 011 and
#    2 400 at "compact", 4 175 and 3 400 before it; bench/RESULTS.md
#    "Scale"), so a regression fails. Issue 16 added two detectors with
#    state per live connection that carries data: the limit detector's
#    912-byte block (16 time slices and 8 shares a direction) and
#    ackpat's, taken at the first data segment / the receiver's 17th
#    advancing ACK: 3 394 and 2 526 bytes measured, bounds 3 670 and 2 730
#    (the limit block is the next thing to shrink). Issue 23 (truth on real
#    paths) added per connection the recovery episode and the IP ID steps
#    (tcp_half, 16 B), the stall detector's loop and ID state, the SACK
#    tables that grow with open holes (returned when none is open), and the
#    limit detector's ring of R's ACKs and windows a loop back (96 B a
#    direction, for captures away from the sender): 3 885 and 2 823 bytes
#    measured, bounds 4 200 and 3 050 (bench/budget.conf since). Since
#    idle connections are parked (--park-after, 10 s by default: the 30 000
#    idle longest of the 40 000), the idle figure is mostly a parked one's,
#    and the same run without parking says what parking saves.
# 6. What --threads 2 adds to one thread's memory (1.-5. are the engine's
#    bounds: --threads 1).
set -uo pipefail
cd "$(dirname "$0")/../.."
# The bounds are the repository's budget (bench/budget.conf).
. bench/budget.conf
ACTIVE_MAX=${ACTIVE_MAX:-$ACTIVE_BYTES_PER_CONN}
IDLE_MAX=${IDLE_MAX:-$IDLE_BYTES_PER_CONN}
T_SUITE=scale
. tests/lib.sh
dir=${1:?usage: run.sh BUILD_DIR}
bin=$dir/tcpsift gen=$dir/bench/gen
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TMPDIR=$tmp

# rss CMD...: run CMD (stdout to $tmp/out), print its peak RSS in KiB.
rss() {
	local rc=0
	/usr/bin/time -f '%M' -o "$tmp/rss" "$@" >"$tmp/out" 2>"$tmp/err" || rc=$?
	# Exit 3 with the one line that says the report is partial (packets no
	# connection could take under --max-flows) is what a flood gets.
	if [ "$rc" != 0 ] && ! { [ "$rc" = 3 ] && [ "$(grep -cv '^Command exited' "$tmp/err")" = 1 ] &&
		grep -q '^tcpsift analyze: the report is partial: ' "$tmp/err"; }; then
		echo "exit $rc: $(head -2 "$tmp/err")" >&2
		return 1
	fi
	grep -v '^Command exited' "$tmp/rss"
}



[ -x /usr/bin/time ] || { t_skip "no /usr/bin/time (package time)"; t_done; exit; }
# The bounds are the engine's: one thread. What --threads adds (batches and
# their results in flight) is checked at the end.
one="--threads 1"
n=60000
tests/scale/syns.py "$tmp/syns.pcap" "$n" || { t_fail "syns.py failed"; t_done; exit; }
for fmt in --json ""; do
	what=${fmt:-text}
	spill=$(rss "$bin" analyze $one $fmt --no-progress --idle-timeout 1 --report-memory 8 \
		"$tmp/syns.pcap") && mv "$tmp/out" "$tmp/spill.$what" || { t_fail "$what: spilled run failed"; continue; }
	inmem=$(rss "$bin" analyze $one $fmt --no-progress --idle-timeout 1 --report-memory 4096 \
		"$tmp/syns.pcap") && mv "$tmp/out" "$tmp/mem.$what" || { t_fail "$what: in-memory run failed"; continue; }
	if cmp -s "$tmp/spill.$what" "$tmp/mem.$what"; then
		t_pass "$what: $n connections spilled to a file give the same report as in memory"
	else
		t_fail "$what: the spilled report differs from the in-memory one"
	fi
	if [ "$inmem" -gt $((spill + 40 * 1024)) ] && [ "$spill" -lt $((48 * 1024)) ]; then
		t_pass "$what: peak RSS $((spill / 1024)) MiB spilled, $((inmem / 1024)) MiB all in memory"
	else
		t_fail "$what: peak RSS $((spill / 1024)) MiB spilled (want < 48), $((inmem / 1024)) MiB in memory (want 40 more)"
	fi
done
# The counts, and the schema on the first and last 50 connections (all of
# them takes minutes): one read of the large document for both.
got=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["summary"]["connections"], len(d["connections"]), d["connections"][-1]["id"])
d["connections"]=d["connections"][:50]+d["connections"][-50:]; json.dump(d, open(sys.argv[2], "w"))' \
	"$tmp/spill.--json" "$tmp/part.json" 2>/dev/null)
if [ "$got" = "$n $n $n" ]; then t_pass "JSON lists all $n connections in id order"; else
	t_fail "JSON connections/listed/last id: $got (want $n $n $n)"
fi
[ -s "$tmp/part.json" ] && scripts/schema.py validate "$tmp/part.json" >"$tmp/schema" &&
	t_pass "spilled JSON matches the schema" || t_fail "spilled JSON: $(head -2 "$tmp/schema")"

# RSS flat when the packets double at a fixed live count.
if [ -x "$gen" ]; then
	for p in 300000 600000; do
		"$gen" -o "$tmp/live-$p.pcap" --packets "$p" --connections 2000 --concurrent 2000 2>/dev/null ||
			t_fail "gen $p failed"
	done
	a=$(rss "$bin" analyze $one --json --no-progress "$tmp/live-300000.pcap") &&
		b=$(rss "$bin" analyze $one --json --no-progress "$tmp/live-600000.pcap")
	if [ -n "${b:-}" ] && [ "$b" -le $((a + a / 10 + 4096)) ]; then
		t_pass "2 000 live connections: peak RSS $((a / 1024)) MiB at 300 000 packets, $((b / 1024)) MiB at 600 000"
	else
		t_fail "2 000 live connections: peak RSS $((a / 1024)) -> $((${b:-0} / 1024)) MiB when the packets doubled"
	fi
	# 3. active: bytes per live connection.
	for l in 2000 20000; do
		"$gen" -o "$tmp/active-$l.pcap" --packets $((30 * l)) --connections "$l" --concurrent "$l" \
			2>/dev/null || t_fail "gen $l live failed"
	done
	a=$(rss "$bin" analyze $one --ndjson --no-progress "$tmp/active-2000.pcap") &&
		b=$(rss "$bin" analyze $one --ndjson --no-progress "$tmp/active-20000.pcap")
	per=$(((${b:-0} - ${a:-0}) * 1024 / 18000))
	if [ -n "${b:-}" ] && [ "$per" -le "$ACTIVE_MAX" ]; then
		t_pass "active: $per bytes per live connection (2 000 -> 20 000 live; bound $ACTIVE_MAX)"
	else
		t_fail "active: $per bytes per live connection (want <= $ACTIVE_MAX)"
	fi
	rm -f "$tmp"/active-*.pcap "$tmp"/live-*.pcap
else
	t_skip "no $gen (make tests builds it)"
fi

# 3. No churn: 10 000 live connections through a table of 1 000.
n=10000
tests/scale/sackflood.py "$tmp/sack10.pcap" $n 10 && tests/scale/sackflood.py "$tmp/sack20.pcap" $n 20 ||
	t_fail "sackflood.py failed"
# conns FILE FORMAT: "connections-in-summary distinct-ids records" of a report.
conns() {
	python3 - "$@" <<'PY'
import json, re, sys
path, fmt = sys.argv[1], sys.argv[2]
if fmt == "json":
    d = json.load(open(path))
    print(d["summary"]["connections"], len({c["id"] for c in d["connections"]}), len(d["connections"]))
elif fmt == "ndjson":
    ids, recs, summ = set(), 0, None
    for line in open(path):
        o = json.loads(line)
        if o.get("kind") == "connection":
            ids.add(o["id"]); recs += 1
        elif o.get("kind") == "summary":
            summ = o["connections"]
    print(summ, len(ids), recs)
else:
    head = open(path).readline()
    m = re.search(r"(\d+) connections$", head.strip())
    rows = sum(1 for l in open(path) if re.match(r"^ *\d+ \d+\.\d+\.\d+\.\d+:\d+ ", l))
    print(m.group(1) if m else "?", rows, rows)
PY
}
for fmt in --json --ndjson ""; do
	what=${fmt:-text} f=${fmt#--}
	r10=$(rss "$bin" analyze $one $fmt --no-progress --max-flows 1000 "$tmp/sack10.pcap") &&
		got=$(conns "$tmp/out" "${f:-text}") || { t_fail "$what: sackflood run failed"; continue; }
	set -- $got
	# NDJSON writes a record per part: resumes happen only during the
	# handshakes (half-open connections give way), so at most 3 a connection.
	if [ "$1" = $n ] && [ "$2" = $n ] && [ "$3" -le $((3 * n)) ]; then
		t_pass "$what: $n connections in lockstep under --max-flows 1000: $1 connections, $3 records"
	else
		t_fail "$what: summary/ids/records $got (want $n $n <= $((3 * n)))"
	fi
	r20=$(rss "$bin" analyze $one $fmt --no-progress --max-flows 1000 "$tmp/sack20.pcap") || {
		t_fail "$what: sackflood (20 rounds) failed"
		continue
	}
	set -- $r10 $r20
	if [ "$1" -lt $((64 * 1024)) ] && [ "$2" -le $(($1 + $1 * 35 / 100 + 2048)) ]; then
		t_pass "$what: peak RSS $(($1 / 1024)) -> $(($2 / 1024)) MiB at 230 000 -> 430 000 packets"
	else
		t_fail "$what: peak RSS $(($1 / 1024)) -> $(($2 / 1024)) MiB (want < 64, +35 % + 2)"
	fi
done
i10=$(t_instr "$bin" analyze $one --no-progress --max-flows 1000 "$tmp/sack10.pcap")
i20=$(t_instr "$bin" analyze $one --no-progress --max-flows 1000 "$tmp/sack20.pcap")
if [ -n "$i10" ] && [ -n "$i20" ] && [ "$i20" -le $((i10 * 22 / 10)) ]; then
	t_pass "sackflood text: $i10 -> $i20 instructions at 230 000 -> 430 000 packets (<= 2.2x)"
else
	t_fail "sackflood text: ${i10:-?} -> ${i20:-?} instructions at 230 000 -> 430 000 packets (want <= 2.2x: linear)"
fi
# Exit 3: the packets of connections that found no room make it partial.
"$bin" analyze $one --json --no-progress --max-flows 1000 "$tmp/sack10.pcap" >"$tmp/sack.json" \
	2>"$tmp/sack.err"
[ $? = 3 ] && grep -q '^tcpsift analyze: the report is partial: ' "$tmp/sack.err" &&
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); f=d["summary"]["flows"]; c=d["connections"]
assert f["resumed"] > 0 and f["evicted_forgotten"] == 0, f
d["connections"] = [x for x in c if x["evicted_and_resumed"]][:20]; json.dump(d, open(sys.argv[2], "w"))' \
		"$tmp/sack.json" "$tmp/part.json" && scripts/schema.py validate "$tmp/part.json" >"$tmp/schema" &&
	t_pass "sackflood JSON: resumed connections, none forgotten, schema valid, exit 3 (partial)" ||
	t_fail "sackflood JSON: $(head -2 "$tmp/schema" 2>/dev/null)"

# 5. idle: bytes per live idle connection (all live at the end).
for l in 4000 40000; do
	tests/scale/syns.py "$tmp/idle-$l.pcap" "$l" --idle || t_fail "syns.py --idle $l failed"
done
a=$(rss "$bin" analyze $one --ndjson --no-progress "$tmp/idle-4000.pcap") &&
	b=$(rss "$bin" analyze $one --ndjson --no-progress "$tmp/idle-40000.pcap")
live=$(tail -1 "$tmp/out" | python3 -c 'import json,sys; print(json.load(sys.stdin)["flows"]["max_live"])' 2>/dev/null)
[ "$live" = 40000 ] || t_fail "idle: $live connections live at the peak (want 40000)"
per=$(((${b:-0} - ${a:-0}) * 1024 / 36000))
if [ -n "${b:-}" ] && [ "$per" -le "$IDLE_MAX" ]; then
	t_pass "idle: $per bytes per live idle connection (4 000 -> 40 000 live; bound $IDLE_MAX)"
else
	t_fail "idle: $per bytes per live idle connection (want <= $IDLE_MAX)"
fi
# The same without parking (--park-after 0; 30 000 of the 40 000 are parked
# at the end by default, idle 10 s): parking must save at least a third of
# the flow entry (968 bytes) a parked connection.
c=$(rss "$bin" analyze $one --ndjson --no-progress --park-after 0 "$tmp/idle-40000.pcap")
whole=$(((${c:-0} - ${a:-0}) * 1024 / 36000))
saved=$(((whole - per) * 40 / 30))
if [ -n "${c:-}" ] && [ "$saved" -ge 323 ]; then
	t_pass "idle: parking saves $saved bytes a parked connection ($whole bytes per live idle connection without)"
else
	t_fail "idle: parking saves $saved bytes a parked connection, want >= 323 ($whole without, $per with)"
fi

# 6. --threads 2: the same report, and on top of one thread's memory only
#    the batches in flight and their results (a sweep ending a thousand
#    connections at once: 1.6 KB a summary) and each worker's own fixed
#    costs (its pools' partly used slabs, its table's chunk), at most
#    32 MiB, which do not grow with connections: the 60 000 SYNs of 1. (1 000 end every second) and
#    the flood of 4. under --max-memory 64M (each worker has half of it,
#    so which connections are evicted may differ: not compared).
for spec in "1 syns.pcap --idle-timeout 1" "0 flood.pcap --max-memory 64M"; do
	set -- $spec
	same=$1 f=$2
	shift 2
	[ -f "$tmp/$f" ] || continue
	for fmt in --ndjson ""; do
		what="${fmt:-text} $f"
		a=$(rss "$bin" analyze --threads 1 $fmt --no-progress "$@" "$tmp/$f") && mv "$tmp/out" "$tmp/t1" &&
			b=$(rss "$bin" analyze --threads 2 $fmt --no-progress "$@" "$tmp/$f") || {
			t_fail "$what: a --threads run failed"
			continue
		}
		if [ "$same" = 1 ] && ! cmp -s "$tmp/t1" "$tmp/out"; then
			t_fail "$what: --threads 2 gives another report than --threads 1"
		elif [ "$b" -le $((a + 32 * 1024)) ]; then
			t_pass "$what: --threads 2 peak RSS $((b / 1024)) MiB, one thread $((a / 1024)) MiB (at most +32)"
		else
			t_fail "$what: --threads 2 peak RSS $((b / 1024)) MiB, one thread $((a / 1024)) MiB (want at most +32)"
		fi
	done
done
t_done
