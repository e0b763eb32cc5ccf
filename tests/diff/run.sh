#!/usr/bin/env bash
# diff/run.sh TCPSIFT [--update] - tcpsift diff: no change where there is none
# (a capture against itself and against its own saved report), the deltas of a
# lossy against a clean transfer by value against analyze --json of each side,
# --fail-on's exit status, --match order on the same run with another port,
# port reuse paired in order, unmatched connections, the text against
# expected/*.out (--update rewrites them), every JSON output against
# man/tcpsift-diff.schema.json, bad inputs (exit 3) and usage (exit 2), one line.
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

valid() { # valid FILE WHAT: the diff JSON against its schema
	if python3 -c 'import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])),
                    cls=jsonschema.Draft202012Validator)' "$schema" "$1" 2>"$tmp/verr"; then
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

# --match order: the same run with another ephemeral port.
python3 tests/diff/pcaptool.py ports samples/rr-nagle-delack.pcap "$tmp/port.pcap" 40800 41800
"$bin" diff --json samples/rr-nagle-delack.pcap "$tmp/port.pcap" >"$tmp/d.json" 2>"$tmp/err"
expect_rc 0 $? "another port, by 4-tuple"
valid "$tmp/d.json" "another port, by 4-tuple"
[ "$(jget "$tmp/d.json" "d['pairs'], len(d['only_in_a']), len(d['only_in_b']), d['only_in_b'][0]['client'], d['changed']")" = "0 1 1 10.0.0.1:41800 True" ] &&
	t_pass "another port, by 4-tuple: unmatched, one only in each" || t_fail "another port by 4-tuple: $(jget "$tmp/d.json" "d['pairs'], d['only_in_b']")"
"$bin" diff --json --match order samples/rr-nagle-delack.pcap "$tmp/port.pcap" >"$tmp/d.json" 2>"$tmp/err"
expect_rc 0 $? "another port, --match order"
valid "$tmp/d.json" "another port, --match order"
[ "$(jget "$tmp/d.json" "d['pairs'], d['pairs_changed'], d['changed'], d['match']")" = "1 0 False order" ] &&
	t_pass "another port, --match order: paired, no change" || t_fail "--match order: $(jget "$tmp/d.json" "d['pairs'], d['changed']")"
"$bin" diff samples/rr-nagle-delack.pcap "$tmp/port.pcap" >"$tmp/out" 2>"$tmp/err"
golden port-tuple

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
