#!/usr/bin/env bash
# diff/run.sh TCPSIFT [--update] - tcpsift diff: no change where there is none
# (a capture against itself and against its own saved report), the deltas of a
# lossy against a clean transfer by value against analyze --json of each side,
# --fail-on's exit status, reruns (new ephemeral ports) paired by default by
# server endpoint and order, 4-tuples that recur paired by 4-tuple first, each
# --match mode, port reuse paired in order, unmatched connections and the hint
# when nothing pairs, limited_by and the loss rate of a PMTU black hole against
# its fixed run by value, the text against expected/*.out (--update rewrites
# them), every JSON output against man/tcpsift-diff.schema.json with its keys
# sorted, bad inputs (exit 3) and usage (exit 2), one line.
set -uo pipefail
cd "$(dirname "$0")/../.."
T_SUITE=diff
. tests/lib.sh
bin=${1:?usage: run.sh TCPSIFT [--update]}
update=${2:-}
export TZ=UTC LC_ALL=C
schema=man/tcpsift-diff.schema.json
exp=tests/diff/expected
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

valid() { # valid FILE WHAT: the diff JSON against its schema, its keys sorted
	if python3 -c 'import json, sys, jsonschema
def sorted_keys(v):
    if isinstance(v, dict):
        assert list(v) == sorted(v), "keys not sorted: %s" % list(v)
        any(sorted_keys(x) for x in v.values())
    elif isinstance(v, list):
        any(sorted_keys(x) for x in v)
d = json.load(open(sys.argv[2]))
jsonschema.validate(d, json.load(open(sys.argv[1])), cls=jsonschema.Draft202012Validator)
sorted_keys(d)' "$schema" "$1" 2>"$tmp/verr"; then
		t_pass "$2: valid against $schema"
	else
		t_fail "$2: $(tail -n 1 "$tmp/verr")"
	fi
}
jget() { # jget FILE EXPR: EXPR of the document d, a tuple's items space-separated
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); v = eval(sys.argv[2])
print(" ".join(map(str, v)) if isinstance(v, tuple) else v)' "$@"
}
expect_rc() { # expect_rc WANT GOT WHAT
	[ "$2" -eq "$1" ] && t_pass "$3: exit $1" || t_fail "$3: exit $2, want $1 ($(head -c 200 "$tmp/err"))"
}
golden() { # golden NAME: stdout of the last run ($tmp/out) against expected/NAME.out
	sed "s|$tmp/|TMP/|g" "$tmp/out" >"$tmp/out.norm"
	if [ "$update" = --update ]; then cp "$tmp/out.norm" "$exp/$1.out"; echo "updated $1"; fi
	if cmp -s "$tmp/out.norm" "$exp/$1.out"; then t_pass "$1: text as expected"; else
		t_fail "$1: text differs: $(diff "$exp/$1.out" "$tmp/out.norm" | head -5 | tr '\n' ' ')"; fi
}

# No change: a capture against itself, and against its own saved reports.
"$bin" diff samples/demo-http-loss.pcapng samples/demo-http-loss.pcapng >"$tmp/out" 2>"$tmp/err"
expect_rc 0 $? "same capture twice"
grep -q "no change in the" "$tmp/out" && grep -q "1 matched connection without a change" "$tmp/out" &&
	t_pass "same capture twice: no change" || t_fail "same capture twice: $(cat "$tmp/out")"
[ ! -s "$tmp/err" ] && t_pass "same capture twice: nothing on stderr" || t_fail "stderr: $(head -c 200 "$tmp/err")"
"$bin" analyze --json --no-progress samples/mtu-seed-2013.pcap >"$tmp/seed.json"
"$bin" analyze --ndjson --no-progress samples/mtu-seed-2013.pcap >"$tmp/seed.ndjson"
for r in seed.json seed.ndjson; do
	"$bin" diff --json --fail-on 'stall_time!=+0%,retransmissions!=0' samples/mtu-seed-2013.pcap \
		"$tmp/$r" >"$tmp/d.json" 2>"$tmp/err"
	expect_rc 0 $? "capture against its own $r"
	valid "$tmp/d.json" "capture against its own $r"
	[ "$(jget "$tmp/d.json" "d['changed'], d['pairs'], d['b']['kind'], d['a']['kind']")" = "False 3 report capture" ] &&
		t_pass "capture against its own $r: no change, 3 pairs, kinds told by content" ||
		t_fail "capture against its own $r: $(jget "$tmp/d.json" "d['changed'], d['pairs'], d['b']['kind']")"
done

# A report short of events (--max-events): compared, with a warning.
"$bin" analyze --json --no-progress --max-events 5 samples/rr-nagle-delack.pcap >"$tmp/few.json"
"$bin" diff "$tmp/few.json" samples/rr-nagle-delack.pcap >"$tmp/out" 2>"$tmp/err"
expect_rc 0 $? "a report short of events"
grep -q "warning: .*few.json: 14 events not in the report" "$tmp/err" && [ "$(wc -l <"$tmp/err")" -eq 1 ] &&
	t_pass "a report short of events: one warning line" || t_fail "short of events: $(head -c 200 "$tmp/err")"
"$bin" diff -q "$tmp/few.json" samples/rr-nagle-delack.pcap >"$tmp/out" 2>"$tmp/err"
[ ! -s "$tmp/err" ] && t_pass "--quiet: no warning" || t_fail "--quiet: $(head -c 200 "$tmp/err")"

# A damaged report: two connections with one id, an event of a connection
# that is not there. Compared all the same (the event counts in the totals).
python3 - "$tmp/seed.json" "$tmp/odd.json" <<'PY'
import sys
s = open(sys.argv[1]).read()
i = s.index('"id": 2,'); s = s[:i] + '"id": 1,' + s[i + 8:]
i = s.index('"events"'); j = s.index('"conn": ', i); k = s.index(',', j)
open(sys.argv[2], "w").write(s[:j] + '"conn": 999' + s[k:])
PY
"$bin" diff --json "$tmp/odd.json" "$tmp/seed.json" >"$tmp/d.json" 2>"$tmp/err"
expect_rc 0 $? "a report with a repeated id and an orphan event"
valid "$tmp/d.json" "repeated id, orphan event"
[ "$(jget "$tmp/d.json" "d['pairs'], d['pairs_changed'], [r['metric'] for r in d['totals'] if r['changed']]")" = "3 1 []" ] &&
	t_pass "repeated id, orphan event: totals unchanged, one pair lacks its event" ||
	t_fail "repeated id, orphan event: $(jget "$tmp/d.json" "d['pairs'], d['pairs_changed']")"

# A lossy against a clean transfer (different ports: --match order): the
# deltas by value against analyze --json of each side.
"$bin" analyze --json --no-progress samples/ipv6-bulk.pcap >"$tmp/clean.json"
"$bin" analyze --json --no-progress samples/demo-http-loss.pcapng >"$tmp/lossy.json"
"$bin" diff --json --match order samples/ipv6-bulk.pcap samples/demo-http-loss.pcapng >"$tmp/d.json" 2>"$tmp/err"
expect_rc 0 $? "clean against lossy"
n=0
while IFS= read -r line; do
	case "$line" in
	PASS\ *) t_pass "clean against lossy: ${line#PASS }"; n=$((n + 1)) ;;
	*) t_fail "clean against lossy: ${line#FAIL }" ;;
	esac
done < <(python3 tests/diff/check.py "$schema" "$tmp/d.json" "$tmp/clean.json" "$tmp/lossy.json" 2>&1)
[ "$n" -ge 25 ] && t_pass "clean against lossy: $n values checked" || t_fail "only $n values checked"
[ "$(jget "$tmp/d.json" "[r['delta'] for r in d['totals'] if r['metric'] in ('retransmissions', 'sack_holes', 'fast')]")" = "[34, 34, 34]" ] &&
	t_pass "clean against lossy: +34 retransmissions, SACK holes, fast" || t_fail "clean against lossy: deltas"
"$bin" diff --match order --fail-on 'retransmissions>+5' samples/ipv6-bulk.pcap samples/demo-http-loss.pcapng >"$tmp/out" 2>"$tmp/err"
expect_rc 1 $? "--fail-on retransmissions>+5"
grep -q "^tcpsift diff: --fail-on matched: retransmissions>5 (A 0, B 34: +34)" "$tmp/err" &&
	[ "$(wc -l <"$tmp/err")" -eq 1 ] && t_pass "--fail-on: the matched rule on stderr, one line" ||
	t_fail "--fail-on stderr: $(cat "$tmp/err")"
"$bin" diff --json --match order --fail-on 'sack_holes>+10' samples/ipv6-bulk.pcap samples/demo-http-loss.pcapng >"$tmp/d.json" 2>"$tmp/err"
expect_rc 1 $? "--json --fail-on sack_holes>+10"
valid "$tmp/d.json" "--json with --fail-on matched"
[ "$(jget "$tmp/d.json" "d['fail_on']['expr'], d['fail_on']['matched']")" = "sack_holes>+10 sack_holes>10 (A 0, B 34: +34)" ] &&
	t_pass "--json: fail_on names the expression and what matched" || t_fail "--json fail_on: $(jget "$tmp/d.json" "d['fail_on']")"
"$bin" diff --match order --fail-on 'retransmissions>+50,throughput<-80%,sack_holes<0' samples/ipv6-bulk.pcap \
	samples/demo-http-loss.pcapng >"$tmp/out" 2>"$tmp/err"
expect_rc 0 $? "--fail-on that does not match"
"$bin" diff --match order --fail-on 'sack_holes>+1000%' samples/ipv6-bulk.pcap samples/demo-http-loss.pcapng >"$tmp/out" 2>"$tmp/err"
expect_rc 1 $? "--fail-on relative from 0 (+inf)"
"$bin" diff --match order --fail-on 'throughput<-20%' samples/ipv6-bulk.pcap samples/demo-http-loss.pcapng >"$tmp/out" 2>"$tmp/err"
expect_rc 1 $? "--fail-on throughput<-20%"
"$bin" diff --match order --fail-on 'stall_time_s>+10%' samples/ipv6-bulk.pcap samples/demo-http-loss.pcapng >"$tmp/out" 2>"$tmp/err"
expect_rc 0 $? "--fail-on stall_time_s (0 to 0)"

# The seeds' good/bad shape: the 2013 trace against the collapse, text golden.
"$bin" diff --match order samples/mtu-seed-2013.pcap samples/mtu-collapse-63540.pcap >"$tmp/out" 2>"$tmp/err"
expect_rc 0 $? "seed against collapse"
golden seed-collapse
awk 'length > 100 { bad = 1 } END { exit bad }' "$tmp/out" && t_pass "text within 100 columns" ||
	t_fail "text wider than 100 columns"
"$bin" diff --match order --fail-on 'stall_time>+10%' samples/mtu-seed-2013.pcap samples/mtu-collapse-63540.pcap >"$tmp/out" 2>"$tmp/err"
expect_rc 1 $? "--fail-on stall_time>+10%"
grep -q "matched stall_time>+10%" "$tmp/out" && t_pass "--fail-on: the text says what matched" || t_fail "text: no fail-on line"

# The same run with another ephemeral port: paired by default (server
# endpoint and order), by --match order, not by --match tuple (with the hint).
python3 tests/diff/pcaptool.py ports samples/rr-nagle-delack.pcap "$tmp/port.pcap" 40800 41800
"$bin" diff --json samples/rr-nagle-delack.pcap "$tmp/port.pcap" >"$tmp/d.json" 2>"$tmp/err"
expect_rc 0 $? "another port, by default"
valid "$tmp/d.json" "another port, by default"
[ "$(jget "$tmp/d.json" "d['match'], d['pairs'], d['paired'][0]['match'], d['changed'], d['only_in_a'], d['only_in_b'], d['hint']")" = "auto 1 endpoint False [] [] None" ] &&
	t_pass "another port, by default: paired by server endpoint, no change" ||
	t_fail "another port by default: $(jget "$tmp/d.json" "d['match'], d['pairs'], d['paired'], d['changed']")"
"$bin" diff samples/rr-nagle-delack.pcap "$tmp/port.pcap" >"$tmp/out" 2>"$tmp/err"
golden port-auto
"$bin" diff --json --match tuple samples/rr-nagle-delack.pcap "$tmp/port.pcap" >"$tmp/d.json" 2>"$tmp/err"
expect_rc 0 $? "another port, --match tuple"
valid "$tmp/d.json" "another port, --match tuple"
[ "$(jget "$tmp/d.json" "d['pairs'], len(d['only_in_a']), len(d['only_in_b']), d['only_in_b'][0]['client'], d['changed'], d['match']")" = "0 1 1 10.0.0.1:41800 True tuple" ] &&
	t_pass "another port, --match tuple: unmatched, one only in each" || t_fail "another port by 4-tuple: $(jget "$tmp/d.json" "d['pairs'], d['only_in_b']")"
jget "$tmp/d.json" "d['hint']" | grep -q "^nothing paired: no 4-tuple is in both runs; --match auto" &&
	t_pass "--match tuple, nothing paired: the JSON's hint names --match auto" || t_fail "tuple hint: $(jget "$tmp/d.json" "d['hint']")"
"$bin" diff --json --match order samples/rr-nagle-delack.pcap "$tmp/port.pcap" >"$tmp/d.json" 2>"$tmp/err"
expect_rc 0 $? "another port, --match order"
valid "$tmp/d.json" "another port, --match order"
[ "$(jget "$tmp/d.json" "d['pairs'], d['pairs_changed'], d['changed'], d['match'], d['matched']['order']")" = "1 0 False order 1" ] &&
	t_pass "another port, --match order: paired, no change" || t_fail "--match order: $(jget "$tmp/d.json" "d['pairs'], d['changed']")"
"$bin" diff --match tuple samples/rr-nagle-delack.pcap "$tmp/port.pcap" >"$tmp/out" 2>"$tmp/err"
golden port-tuple
awk 'length > 100 { bad = 1 } END { exit bad }' "$tmp/out" && t_pass "the hint within 100 columns" ||
	t_fail "the hint is wider than 100 columns"

# A rerun of a workload of three connections, two to one server: every
# ephemeral port new. By default all three pair by server endpoint, the two
# to :8000 in their order; --match tuple pairs none, --match endpoint all.
r=samples/rr-nagle-delack.pcap m=samples/mtu-20532.pcap
python3 tests/diff/pcaptool.py cat "$tmp/run1.pcap" $r $m@5 $r@10:40800=40810
python3 tests/diff/pcaptool.py cat "$tmp/run2.pcap" $r:40800=41800 $m@5:40001=40005 $r@10:40800=41810
"$bin" diff --json "$tmp/run1.pcap" "$tmp/run2.pcap" >"$tmp/d.json" 2>"$tmp/err"
expect_rc 0 $? "a rerun, three connections"
valid "$tmp/d.json" "a rerun, three connections"
[ "$(jget "$tmp/d.json" "[(p['a'], p['b'], p['match']) for p in d['paired']], d['matched'], d['changed']")" = \
	"[(1, 1, 'endpoint'), (2, 2, 'endpoint'), (3, 3, 'endpoint')] {'endpoint': 3, 'order': 0, 'tuple': 0} False" ] &&
	t_pass "a rerun: the three pair in full by server endpoint and order, no change" ||
	t_fail "a rerun: $(jget "$tmp/d.json" "d['paired'], d['only_in_a'], d['only_in_b']")"
"$bin" diff "$tmp/run1.pcap" "$tmp/run2.pcap" >"$tmp/out" 2>"$tmp/err"
grep -qx "paired 0 by 4-tuple, 3 by server endpoint and order; 0 only in A, 0 only in B" "$tmp/out" &&
	grep -q "^3 matched connections without a change" "$tmp/out" && t_pass "a rerun: the text says how they paired" ||
	t_fail "a rerun, text: $(head -4 "$tmp/out" | tr '\n' ' ')"
for how in tuple:0 endpoint:3 order:3; do
	"$bin" diff --json --match "${how%:*}" "$tmp/run1.pcap" "$tmp/run2.pcap" >"$tmp/d.json" 2>"$tmp/err"
	[ "$(jget "$tmp/d.json" "d['pairs'], d['match']")" = "${how#*:} ${how%:*}" ] &&
		t_pass "a rerun, --match ${how%:*}: ${how#*:} pairs" || t_fail "a rerun --match ${how%:*}: $(jget "$tmp/d.json" "d['pairs']")"
done

# 4-tuples that recur: B has A#2's 4-tuple (the :5001 transfer) and A#1's,
# which comes third in B. They pair by 4-tuple, wherever they come; A#3 and
# B#1, left at :8000, by server endpoint. --match order would pair A#1, B#1.
python3 tests/diff/pcaptool.py cat "$tmp/run3.pcap" $r:40800=41800 $m@5 $r@10
"$bin" diff --json "$tmp/run1.pcap" "$tmp/run3.pcap" >"$tmp/d.json" 2>"$tmp/err"
expect_rc 0 $? "4-tuples that recur"
valid "$tmp/d.json" "4-tuples that recur"
[ "$(jget "$tmp/d.json" "[(p['a'], p['b'], p['match']) for p in d['paired']], d['matched'], d['changed']")" = \
	"[(1, 3, 'tuple'), (2, 2, 'tuple'), (3, 1, 'endpoint')] {'endpoint': 1, 'order': 0, 'tuple': 2} False" ] &&
	t_pass "4-tuples that recur: by 4-tuple first, the rest by server endpoint" ||
	t_fail "4-tuples that recur: $(jget "$tmp/d.json" "d['paired']")"
"$bin" diff "$tmp/run1.pcap" "$tmp/run3.pcap" >"$tmp/out" 2>"$tmp/err"
grep -qx "paired 2 by 4-tuple, 1 by server endpoint and order; 0 only in A, 0 only in B" "$tmp/out" &&
	t_pass "4-tuples that recur: the text's summary line" || t_fail "recur, text: $(sed -n 3p "$tmp/out")"

# Nothing in common (another server, another address family): said, with
# the option that pairs them anyway.
"$bin" diff samples/ipv6-bulk.pcap samples/demo-http-loss.pcapng >"$tmp/out" 2>"$tmp/err"
expect_rc 0 $? "nothing in common"
grep -qx "nothing paired: no server address and port is in both runs;" "$tmp/out" &&
	grep -qx "  --match order pairs connections by first packet alone" "$tmp/out" &&
	t_pass "nothing in common: said, --match order named" || t_fail "nothing in common: $(sed -n 3,5p "$tmp/out" | tr '\n' ' ')"

# What limited the transfer, and the loss rate: the PMTU black hole (RTO
# stalls until the segments shrink) against the same transfer whose ICMP
# too-big messages got through, run again from another port. By value
# against analyze --json of each side (check.py), and the text.
python3 tests/diff/pcaptool.py ports samples/mtu-pmtu-blackhole.pcap "$tmp/blackhole.pcap" 40001 40002
"$bin" analyze --json --no-progress samples/mtu-pmtu-icmp.pcap >"$tmp/icmp.json"
"$bin" analyze --json --no-progress "$tmp/blackhole.pcap" >"$tmp/blackhole.json"
"$bin" diff --json samples/mtu-pmtu-icmp.pcap "$tmp/blackhole.pcap" >"$tmp/d.json" 2>"$tmp/err"
expect_rc 0 $? "PMTU fixed against black hole"
valid "$tmp/d.json" "PMTU fixed against black hole"
[ "$(jget "$tmp/d.json" "d['connections'][0]['match'], d['connections'][0]['b_client'], d['limited_by']['a']['dominant'], d['limited_by']['b']['dominant'], d['limited_by']['dominant_changed']")" = \
	"endpoint 10.0.1.1:40002 sender_app stall True" ] &&
	t_pass "PMTU: paired by server endpoint, the run's dominant limit sender_app -> stall" ||
	t_fail "PMTU: $(jget "$tmp/d.json" "d['limited_by'], d['paired']")"
[ "$(jget "$tmp/d.json" "[(k, v['a']['dominant'], v['b']['dominant'], v['dominant_changed']) for k, v in d['connections'][0]['limited_by'].items() if v['a']]")" = \
	"[('c2s', 'sender_app', 'stall', True)]" ] && t_pass "PMTU: the pair's c2s limit changed, s2c had no data" ||
	t_fail "PMTU pair limited_by: $(jget "$tmp/d.json" "d['connections'][0]['limited_by']")"
[ "$(jget "$tmp/d.json" "[(round(r['a'], 4), round(r['b'], 4)) for r in d['totals'] if r['metric'] == 'loss_rate']")" = "[(0.058, 0.1256)]" ] &&
	t_pass "PMTU: loss rate 5.80 % -> 12.56 % (12 of 207, 28 of 223 segments)" ||
	t_fail "PMTU loss rate: $(jget "$tmp/d.json" "[r for r in d['totals'] if r['metric'] == 'loss_rate']")"
n=0
while IFS= read -r line; do
	case "$line" in
	PASS\ *limited_by*) t_pass "PMTU: ${line#PASS }"; n=$((n + 1)) ;;
	PASS\ *) n=$((n + 1)) ;;
	*) t_fail "PMTU: ${line#FAIL }" ;;
	esac
done < <(python3 tests/diff/check.py "$schema" "$tmp/d.json" "$tmp/icmp.json" "$tmp/blackhole.json" 2>&1)
[ "$n" -ge 40 ] && t_pass "PMTU: $n values checked against analyze" || t_fail "PMTU: only $n values checked"
"$bin" diff samples/mtu-pmtu-icmp.pcap "$tmp/blackhole.pcap" >"$tmp/out" 2>"$tmp/err"
golden pmtu-limit
grep -qx "  limited_by c>s: sender_app 84.3 % -> stall 99.7 % (the dominant limit changed)" "$tmp/out" &&
	t_pass "PMTU: the text says the pair's limit changed" || t_fail "PMTU text: no limited_by c>s line"
"$bin" diff --fail-on 'limited_by_stall>+0.5' samples/mtu-pmtu-icmp.pcap "$tmp/blackhole.pcap" >"$tmp/out" 2>"$tmp/err"
expect_rc 1 $? "--fail-on limited_by_stall>+0.5"

# Port reuse: one 4-tuple twice in A pairs in order; the second is only in A.
python3 tests/diff/pcaptool.py twice samples/rr-nagle-delack.pcap "$tmp/twice.pcap" 10
"$bin" diff --json "$tmp/twice.pcap" "$tmp/twice.pcap" >"$tmp/d.json" 2>"$tmp/err"
expect_rc 0 $? "port reuse against itself"
valid "$tmp/d.json" "port reuse against itself"
[ "$(jget "$tmp/d.json" "d['pairs'], d['changed']")" = "2 False" ] && t_pass "port reuse: 2 pairs, no change" ||
	t_fail "port reuse: $(jget "$tmp/d.json" "d['pairs'], d['changed']")"
"$bin" diff --json "$tmp/twice.pcap" samples/rr-nagle-delack.pcap >"$tmp/d.json" 2>"$tmp/err"
valid "$tmp/d.json" "port reuse against one"
[ "$(jget "$tmp/d.json" "d['pairs'], d['pairs_changed'], [c['id'] for c in d['only_in_a']], d['only_in_b']")" = "1 0 [2] []" ] &&
	t_pass "port reuse against one: A#1 = B#1, A#2 only in A" ||
	t_fail "port reuse against one: $(jget "$tmp/d.json" "d['pairs'], d['only_in_a']")"

# Bad inputs: one line, exit 3; usage: one line, exit 2.
echo '{"a": 1}' >"$tmp/other.json"
: >"$tmp/empty"
for bad in /nonexistent/a.pcap samples/bad/not-a-capture.txt "$tmp/other.json" "$tmp/empty" samples/truncated.pcap samples; do
	for order in ab ba; do
		if [ $order = ab ]; then set -- "$bad" samples/rr-nagle-delack.pcap; else set -- samples/rr-nagle-delack.pcap "$bad"; fi
		"$bin" diff "$@" >"$tmp/out" 2>"$tmp/err"
		rc=$?
		if [ $rc -eq 3 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "^tcpsift diff: .*${bad##*/}" "$tmp/err" && [ ! -s "$tmp/out" ]; then
			t_pass "bad side $bad ($order): exit 3, one line naming it"
		else
			t_fail "bad side $bad ($order): exit $rc, $(head -c 300 "$tmp/err")"
		fi
	done
done
s=samples/rr-nagle-delack.pcap
for args in "" "$s" "$s $s $s" "--match nope $s $s" "--fail-on nope>1 $s $s" "--fail-on retransmissions>x $s $s" \
	"--fail-on retransmissions $s $s" "--threads 0 $s $s" "-f tcp_port_80 $s $s" "--nope $s $s" "- $s" "--json"; do
	# shellcheck disable=SC2086
	"$bin" diff $args >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ]; then t_pass "usage error: '$args'"; else
		t_fail "usage '$args': exit $rc, $(wc -l <"$tmp/err") lines: $(head -c 200 "$tmp/err")"; fi
done
# The filter is passed to analyze: no connection left on either side.
"$bin" diff --json -f 'tcp port 9' "$s" "$s" >"$tmp/d.json" 2>"$tmp/err"
expect_rc 0 $? "--filter passed to analyze"
valid "$tmp/d.json" "--filter"
[ "$(jget "$tmp/d.json" "d['a']['connections'], d['b']['connections']")" = "0 0" ] &&
	t_pass "--filter: what analyze -f leaves" || t_fail "--filter: $(jget "$tmp/d.json" "d['a']")"
"$bin" diff --help | grep -q -- "--fail-on metrics: connections, stalls, stall_time (seconds)" &&
	t_pass "--help lists the metrics" || t_fail "--help: no metrics line"
"$bin" --help | grep -q "^  diff A B" && t_pass "tcpsift --help lists diff" || t_fail "tcpsift --help lacks diff"
t_done
