#!/usr/bin/env bash
# annotate/run.sh TCPSIFT - tcpsift annotate / analyze --annotate: every
# per-frame verdict (--frames-csv) and every finding sits on its frame as a
# comment stock tshark shows, with its custom option; nothing else changed
# (a pcapng input block for block, byte for byte, but the annotated EPBs'
# appended options; a pcap input packet for packet: time, lengths, bytes);
# inputs that cannot be read twice and an output that is an input refused
# in one line, exit 2.
set -uo pipefail
cd "$(dirname "$0")/../.."
T_SUITE=annotate
. tests/lib.sh
bin=${1:?usage: run.sh TCPSIFT}
blocks=tests/annotate/blocks.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# check NAME IN [none]: annotate IN, then compare with its --frames-csv and
# JSON (none: a capture with no verdict, which must get no comment).
check() {
	local name=$1 in=$2 none=${3:-} out=$tmp/$1.pcapng
	if ! "$bin" annotate "$in" -o "$out" 2>"$tmp/$name.err"; then
		t_fail "$name: exit $? ($(head -1 "$tmp/$name.err"))"
		return
	fi
	grep -q "^tcpsift annotate: wrote $out: " "$tmp/$name.err" &&
		t_pass "$name: says what it wrote" || t_fail "$name: stderr: $(head -2 "$tmp/$name.err")"
	"$bin" analyze --frames-csv "$tmp/$name.csv" --json -o "$tmp/$name.json" "$in" 2>/dev/null
	python3 "$blocks" comments "$out" >"$tmp/$name.comments"
	# Every verdict on its frame: the CSV's (frame, type) pairs against the
	# custom options' (frame, type) pairs, and the events' first frames.
	python3 - "$tmp/$name.csv" "$tmp/$name.json" "$tmp/$name.comments" <<'PY' >"$tmp/$name.cmp"
import csv, json, sys
want = {}
for row in csv.DictReader(open(sys.argv[1])):
    want.setdefault((int(row["frame"]), row["type"]), 0)
    want[(int(row["frame"]), row["type"])] += 1
for e in json.load(open(sys.argv[2]))["events"]:
    if e.get("frames"):
        k = (e["frames"][0], e["type"])
        want[k] = want.get(k, 0) + 1
got, comments = {}, 0
for line in open(sys.argv[3]):
    frame, text = line.rstrip("\n").split("\t", 1)
    if text.startswith("custom:"):
        pen, tag = text[7:].split(":", 1)
        kv = dict(w.split("=", 1) for w in tag.split())
        if pen != "32473":
            print(f"frame {frame}: PEN {pen}")
        # A finding over frames is tagged on its first and its last.
        got.setdefault((int(frame), kv["type"]), 0)
        got[(int(frame), kv["type"])] += 1
    elif text.startswith("tcpsift: "):
        comments += 1
    else:
        print(f"frame {frame}: comment {text!r}")
missing = [k for k, n in want.items() if got.get(k, 0) < n]
print(f"want {sum(want.values())} got {comments} missing {len(missing)} {missing[:3]}")
PY
	if [ -n "$none" ]; then
		grep -q "^want 0 got 0 missing 0 " "$tmp/$name.cmp" &&
			t_pass "$name: no verdict, no comment" || t_fail "$name: $(head -3 "$tmp/$name.cmp")"
	elif grep -q "missing 0 " "$tmp/$name.cmp" && ! grep -q "^frame" "$tmp/$name.cmp" &&
		! grep -q "want 0 " "$tmp/$name.cmp"; then
		t_pass "$name: every verdict and finding on its frame ($(cut -d' ' -f1-4 "$tmp/$name.cmp"))"
	else
		t_fail "$name: $(head -3 "$tmp/$name.cmp")"
	fi
	# Stock tshark shows them, on the same frames.
	if [ -z "$none" ] && command -v tshark >/dev/null; then
		tshark -r "$out" -Y 'frame.comment contains "tcpsift"' -T fields -e frame.number \
			2>/dev/null | sort -n >"$tmp/$name.tshark"
		grep -P '\ttcpsift: ' "$tmp/$name.comments" | cut -f1 | sort -nu >"$tmp/$name.ours"
		if [ -s "$tmp/$name.ours" ] && cmp -s "$tmp/$name.tshark" "$tmp/$name.ours"; then
			t_pass "$name: tshark -Y 'frame.comment contains \"tcpsift\"' finds the $(wc -l <"$tmp/$name.ours") frames"
		else
			t_fail "$name: tshark finds $(wc -l <"$tmp/$name.tshark") frames, we wrote $(wc -l <"$tmp/$name.ours")"
		fi
	fi
	# Nothing else changed.
	python3 "$blocks" packets "$in" >"$tmp/$name.pin"
	python3 "$blocks" packets "$out" >"$tmp/$name.pout"
	cmp -s "$tmp/$name.pin" "$tmp/$name.pout" &&
		t_pass "$name: the same $(wc -l <"$tmp/$name.pin") packets (time, lengths, bytes)" ||
		t_fail "$name: the packets differ"
	if [ "$(head -c4 "$in" | od -An -tx1 | tr -d ' ')" = 0a0d0d0a ]; then
		local same
		same=$(python3 "$blocks" same "$in" "$out")
		case $same in
		same\ *) t_pass "$name: every block byte for byte but the EPBs' appended options ($same)" ;;
		*) t_fail "$name: $same" ;;
		esac
	fi
}

check demo samples/demo-http-loss.pcapng
check two-ifaces samples/two-ifaces.pcapng none
check pcap-us samples/rr-nagle-delack.pcap
check pcap-ns samples/nanosec.pcap none
check zero-window samples/zero-window.pcap

# analyze --annotate: the report as usual, and the same capture.
"$bin" analyze --annotate "$tmp/a.pcapng" samples/demo-http-loss.pcapng >"$tmp/a.txt" 2>"$tmp/a.err" &&
	grep -q '^Findings' "$tmp/a.txt" && cmp -s "$tmp/a.pcapng" "$tmp/demo.pcapng" &&
	t_pass "analyze --annotate: the report, and the capture annotate writes" ||
	t_fail "analyze --annotate: $(head -2 "$tmp/a.err")"

# Two inputs: two sections, the verdicts of each on its own frames.
"$bin" annotate samples/vpair-loss-a.pcap samples/vpair-loss-b.pcap -o "$tmp/two.pcapng" \
	2>"$tmp/two.err"
p=$(($(python3 "$blocks" packets samples/vpair-loss-a.pcap | wc -l) + $(python3 "$blocks" packets samples/vpair-loss-b.pcap | wc -l)))
if [ "$(python3 "$blocks" packets "$tmp/two.pcapng" | wc -l)" = "$p" ] &&
	[ "$(tshark -r "$tmp/two.pcapng" 2>/dev/null | wc -l)" = "$p" ]; then
	t_pass "two inputs: one file, $p packets, tshark reads them all"
else
	t_fail "two inputs: $(head -2 "$tmp/two.err")"
fi

# Refused in one line, exit 2, nothing written.
expect_usage() {
	local what=$1
	shift
	rm -f "$tmp/x.pcapng"
	"$bin" "$@" >/dev/null 2>"$tmp/u.err"
	local rc=$?
	if [ "$rc" = 2 ] && [ "$(wc -l <"$tmp/u.err")" = 1 ]; then
		t_pass "$what: exit 2, $(cat "$tmp/u.err")"
	else
		t_fail "$what: exit $rc, $(head -2 "$tmp/u.err")"
	fi
}
expect_usage "standard input" annotate - -o "$tmp/x.pcapng" <samples/zero-window.pcap
cp samples/zero-window.pcap "$tmp/in.pcap"
expect_usage "output is the input" annotate "$tmp/in.pcap" -o "$tmp/in.pcap"
cmp -s "$tmp/in.pcap" samples/zero-window.pcap && t_pass "the input left alone" ||
	t_fail "the input was overwritten"
expect_usage "no -o" annotate samples/zero-window.pcap
"$bin" annotate samples/zero-window.pcap -o /nonexistent/x.pcapng 2>"$tmp/d.err"
rc=$?
[ "$rc" = 3 ] && grep -q "cannot write /nonexistent/x.pcapng" "$tmp/d.err" &&
	t_pass "unwritable output: exit 3, $(head -1 "$tmp/d.err")" || t_fail "unwritable output: exit $rc"
t_done
