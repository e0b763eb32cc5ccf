#!/usr/bin/env bash
# cli/run.sh TCPSIFT - the analyze text's connection part and the command line
# of the tcpdump family: the long form of a connection (--conn, --long) and its
# tshark filter, which must select exactly the connection's frames; --sort and
# --top checked by value against the JSON; a table whose columns start at the
# same place on every row (full IPv6 addresses, RTTs of seconds); singular and
# plural; -r, a trailing filter (the same report as -f), help VERB, -V on every
# verb, conflicting options one line and exit 2. A few seconds.
set -uo pipefail
cd "$(dirname "$0")/../.."
T_SUITE=cli
. tests/lib.sh
bin=${1:?usage: run.sh TCPSIFT}
export TZ=UTC LC_ALL=C
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
an() { "$bin" analyze --no-progress "$@"; }

# ---- a connection whose RTTs are 150 ms to 1.2 s, for the table's widths ----
cat >"$tmp/slow.txt" <<'EOF'
10:00:00.000000 IP 10.9.0.1.40000 > 10.9.0.2.80: S 1000:1000(0) win 65535 <mss 1460>
10:00:00.150000 IP 10.9.0.2.80 > 10.9.0.1.40000: S 5000:5000(0) ack 1001 win 65535 <mss 1460>
10:00:00.300000 IP 10.9.0.1.40000 > 10.9.0.2.80: . ack 5001 win 65535
10:00:00.300100 IP 10.9.0.1.40000 > 10.9.0.2.80: P 1001:1101(100) ack 5001 win 65535
10:00:00.450100 IP 10.9.0.2.80 > 10.9.0.1.40000: . ack 1101 win 65535
10:00:00.500000 IP 10.9.0.1.40000 > 10.9.0.2.80: P 1101:1201(100) ack 5001 win 65535
10:00:01.734500 IP 10.9.0.2.80 > 10.9.0.1.40000: . ack 1201 win 65535
10:00:01.800000 IP 10.9.0.1.40000 > 10.9.0.2.80: F 1201:1201(0) ack 5001 win 65535
10:00:01.950000 IP 10.9.0.2.80 > 10.9.0.1.40000: F 5001:5001(0) ack 1202 win 65535
10:00:02.100000 IP 10.9.0.1.40000 > 10.9.0.2.80: . ack 5002 win 65535
EOF
if python3 tests/tools/stall-tcpdump2pcap.py "$tmp/slow.txt" "$tmp/slow.pcap" 2>"$tmp/e"; then
	t_pass "generated a connection with RTTs from 150 ms to 1.2 s"
else
	t_fail "stall-tcpdump2pcap.py: $(head -2 "$tmp/e")"
fi

# ---- the table: every row's columns start where the head's do ----
# Several inputs: IPv6, RTTs of seconds, vantage points, many connections.
table_inputs=(samples/ipv6-bulk.pcap "$tmp/slow.pcap" samples/mtu-seed-2013.pcap
	samples/two-ifaces.pcapng samples/vlan-qinq.pcap samples/zero-window.pcap)
an "${table_inputs[@]}" >"$tmp/table.txt"
an --json "${table_inputs[@]}" >"$tmp/table.json"
# The rows: from the head line ("id client ...") to the first blank or note.
table_rows() { awk '/^id client/{on=1} on&&/^$/{exit} on&&/^  [*^]/{exit} on' "$1"; }
table_rows "$tmp/table.txt" >"$tmp/rows"
python3 - "$tmp/rows" >"$tmp/align" <<'EOF'
import re, sys
rows = open(sys.argv[1]).read().splitlines()
head = rows[0]
# Column k: a right-aligned number ends, a left-aligned text starts, where
# the head's does. Heads: id (right) client server (left) dur s c>s s>c bit/s
# retr loss% ooo (right) rtt (left) path (right) state (left).
names = ["id", "client", "server", "dur s", "c>s", "s>c", "bit/s", "retr", "loss%", "ooo",
         "rtt mn/av/mx", "path", "state"]
left = {"client", "server", "rtt mn/av/mx", "state"}
pos, at = [], 0
for n in names:
    i = head.index(n, at)
    pos.append(i if n in left else i + len(n))
    at = i + len(n)
bad = 0
for r in rows[1:]:
    cells = [(m.start(), m.end()) for m in re.finditer(r"\S+", r)]
    if len(cells) != len(names):
        print("cells", len(cells), r); bad += 1; continue
    for n, p, (s, e) in zip(names, pos, cells):
        if (s if n in left else e) != p:
            print("misaligned", n, r); bad += 1
print("rows", len(rows) - 1, "bad", bad)
EOF
if grep -q "bad 0$" "$tmp/align" && ! grep -q "^rows 0 " "$tmp/align"; then
	t_pass "table: $(tail -1 "$tmp/align" | cut -d' ' -f2) rows, every column where the head's is"
else
	t_fail "table alignment: $(head -3 "$tmp/align")"
fi
grep -q '\[fd00::1\]:40001' "$tmp/rows" && t_pass "table: the full IPv6 address" ||
	t_fail "table: IPv6 address cut: $(grep fd00 "$tmp/rows")"
grep -qE ' 150\.0/[0-9.]+/1234\.[0-9]ms ' "$tmp/rows" && t_pass "table: RTTs of 150 ms to 1.2 s in the column" ||
	t_fail "table: no 150 ms .. 1234 ms RTT cell: $(grep 10.9.0.1 "$tmp/rows")"

# ---- --sort and --top, checked by value against the JSON ----
for key in id bytes c2s s2c dur tput retr ooo rtt stall hole client; do
	an --sort "$key" "${table_inputs[@]}" >"$tmp/s.txt"
	table_rows "$tmp/s.txt" | awk 'NR>1{print $1}' >"$tmp/got"
	python3 - "$tmp/table.json" "$key" >"$tmp/want" <<'EOF'
import ipaddress, json, sys
conns = json.load(open(sys.argv[1]))["connections"]
key = sys.argv[2]
def best_rtt(c):  # the table's RTT: the direction with the most samples
    best = None
    for d in ("c2s", "s2c"):
        r = c[d]["rtt"] or c[d]["rtt_ts"]
        if r and (best is None or r["samples"] > best["samples"]):
            best = r
    if best:
        return best["avg_s"]
    return c["handshake_rtt_s"] if c["handshake_rtt_s"] is not None else -1
def ep(s):
    host, port = s.rsplit(":", 1)
    a = ipaddress.ip_address(host.strip("[]"))
    return (a.version, a.packed, int(port))
both = lambda c, m: c["c2s"][m] + c["s2c"][m]
val = {
    "bytes": lambda c: both(c, "payload_bytes"),
    "c2s": lambda c: c["c2s"]["payload_bytes"],
    "s2c": lambda c: c["s2c"]["payload_bytes"],
    "dur": lambda c: c["duration_s"],
    "tput": lambda c: int(both(c, "payload_bytes") * 8 / c["duration_s"]) if c["duration_s"] > 0 else -1,
    "retr": lambda c: both(c, "retransmissions"),
    "ooo": lambda c: both(c, "out_of_order"),
    "rtt": best_rtt,
    "stall": lambda c: c["stalls"]["count"],
    "hole": lambda c: c["sack"]["holes"],
}
if key == "id":
    order = sorted(conns, key=lambda c: c["id"])
elif key == "client":
    order = sorted(conns, key=lambda c: (ep(c["client"]), c["id"]))
else:
    order = sorted(conns, key=lambda c: (-val[key](c), c["id"]))
for c in order:
    print(c["id"])
EOF
	if [ -s "$tmp/got" ] && cmp -s "$tmp/got" "$tmp/want"; then
		t_pass "--sort $key: $(tr '\n' ' ' <"$tmp/got")"
	else
		t_fail "--sort $key: rows $(tr '\n' ' ' <"$tmp/got"), the JSON says $(tr '\n' ' ' <"$tmp/want")"
	fi
done
an --sort bytes --top 3 "${table_inputs[@]}" >"$tmp/top.txt"
table_rows "$tmp/top.txt" | awk 'NR>1{print $1}' >"$tmp/got"
an --sort bytes "${table_inputs[@]}" | table_rows /dev/stdin | awk 'NR>1{print $1}' | head -3 >"$tmp/want"
n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["connections"]))' "$tmp/table.json")
if cmp -s "$tmp/got" "$tmp/want" && [ "$(wc -l <"$tmp/got")" = 3 ] &&
	grep -q "the first 3 of $n, sorted by bytes" "$tmp/top.txt"; then
	t_pass "--top 3: the first 3 of $n rows of --sort bytes, said in the head"
else
	t_fail "--top 3: $(tr '\n' ' ' <"$tmp/got") vs $(tr '\n' ' ' <"$tmp/want")"
fi

# ---- singular and plural ----
an samples/ipv6-bulk.pcap >"$tmp/one.txt"
head -1 "$tmp/one.txt" | grep -qE ': 1 input, 688 packets \(688 TCP, 0 malformed\), 1 connection$' &&
	t_pass "plural: 1 input, 1 connection" || t_fail "plural: $(head -1 "$tmp/one.txt")"
head -1 "$tmp/table.txt" | grep -qE ": 6 inputs, [0-9]+ packets .*, $n connections$" &&
	t_pass "plural: 6 inputs, $n connections" || t_fail "plural: $(head -1 "$tmp/table.txt")"
an samples/zero-window.pcap >"$tmp/zw.txt"
grep -q "zero window: 2 advertisements, 1 episode," "$tmp/zw.txt" &&
	grep -q "D-SACK: 1 block:" "$tmp/zw.txt" && grep -q "1 segment re-sent" "$tmp/zw.txt" &&
	t_pass "plural: 1 episode, 1 block, 1 segment" || t_fail "plural: $(grep -E 'zero window:|D-SACK:|re-sent' "$tmp/zw.txt")"
if grep -rhE '(^|[^0-9])1 (connections|packets|segments|inputs|episodes|blocks|events)\b' \
	tests/golden/expected/*.out "$tmp"/*.txt >"$tmp/plurals"; then
	t_fail "plural after 1: $(head -3 "$tmp/plurals")"
else
	t_pass "no '1 connections' (or packets, segments ...) in the golden text reports"
fi

# ---- several inputs: frames are FILE:#N everywhere ----
an --queue-per-file samples/reorder-queues-q0.pcap samples/reorder-queues-q1.pcap >"$tmp/q.txt"
if grep -q "frames samples/reorder-queues-q0.pcap:#8, #9," "$tmp/q.txt" &&
	! grep -qE 'frames [0-9]+:[0-9]' "$tmp/q.txt"; then
	t_pass "several inputs: frames named samples/reorder-queues-q0.pcap:#8, #9 ..."
else
	t_fail "several inputs: $(grep frames "$tmp/q.txt" | head -2)"
fi

# ---- the long form and its tshark filter ----
# conn:packets:sample; the filter must select exactly the packets the report
# counts, no frame more (ICMP quoting the connection, the same 4-tuple at
# another vantage point) and none less.
if command -v tshark >/dev/null; then
	for spec in "1 samples/demo-http-loss.pcapng" "1 samples/ipv6-bulk.pcap" \
		"2 samples/two-ifaces.pcapng" "1 samples/mtu-pmtu-icmp.pcap" "2 samples/vlan-qinq.pcap"; do
		set -- $spec
		id=$1 f=$2
		an --conn "$id" "$f" >"$tmp/long.txt"
		an --conn "$id" --json "$f" >"$tmp/long.json"
		want=$(python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["connections"][0]; print(c["c2s"]["packets"]+c["s2c"]["packets"])' "$tmp/long.json")
		filt=$(grep -m1 "^  tshark -r '$f' -Y '" "$tmp/long.txt" | sed "s/^  tshark -r '[^']*' -Y '//; s/'\$//")
		got=$(timeout 60 tshark -n -r "$f" -Y "$filt" 2>/dev/null | wc -l)
		if [ -n "$filt" ] && [ "$got" = "$want" ]; then
			t_pass "long form of conn $id of $f: its tshark filter selects its $want frames"
		else
			t_fail "conn $id of $f: tshark selects $got frames, the report counts $want: $filt"
		fi
	done
else
	t_skip "no tshark: the long form's filter not checked"
fi
# Every per-direction member of the JSON is a row of the long form.
an --conn 1 --json samples/demo-http-loss.pcapng >"$tmp/d.json"
an --conn 1 samples/demo-http-loss.pcapng >"$tmp/d.txt"
python3 - "$tmp/d.json" "$tmp/d.txt" >"$tmp/rowcheck" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))["connections"][0]
rows = {}
for line in open(sys.argv[2]):
    w = line.split()
    if line.startswith("  ") and len(w) >= 3:
        rows.setdefault(w[0], w[1:])
missing = [k for k in c["c2s"] if k not in rows]
# Counts match the JSON's exactly, both ways.
wrong = [k for k in c["c2s"] if k in rows and isinstance(c["c2s"][k], int)
         and not isinstance(c["c2s"][k], bool)
         and rows[k][:2] != [str(c["c2s"][k]), str(c["s2c"][k])]]
print(len(c["c2s"]), "missing", missing, "wrong", wrong)
EOF
if grep -q "missing \[\] wrong \[\]" "$tmp/rowcheck"; then
	t_pass "long form: all $(cut -d' ' -f1 "$tmp/rowcheck") per-direction members, counts as in the JSON"
else
	t_fail "long form rows: $(cat "$tmp/rowcheck")"
fi
grep -qE '^    \+0\.[0-9]{6}  565 +s>c  retransmission \(fast, filled a capture gap\)' "$tmp/d.txt" &&
	t_pass "long form: events with their frames (retransmission in frame 565)" ||
	t_fail "long form: no retransmission event at frame 565"
n=$(grep -c '^    +' "$tmp/d.txt")
[ "$n" -ge 148 ] && t_pass "long form: $n events and verdicts of conn 1" ||
	t_fail "long form: only $n event lines"
an --long samples/mtu-seed-2013.pcap >"$tmp/all.txt"
[ "$(grep -c '^Connection [0-9]*:' "$tmp/all.txt")" = 3 ] && t_pass "--long: the 3 connections in long form" ||
	t_fail "--long: $(grep -c '^Connection [0-9]*:' "$tmp/all.txt") blocks"

# ---- -r, a trailing filter, help, -V ----
an --json samples/demo-http-loss.pcapng >"$tmp/a.json"
an --json -r samples/demo-http-loss.pcapng >"$tmp/b.json"
cmp -s "$tmp/a.json" "$tmp/b.json" && t_pass "-r FILE: the same report as FILE" || t_fail "-r FILE differs"
an --json -r samples/ipv6-bulk.pcap -r samples/demo-http-loss.pcapng >"$tmp/a.json"
an --json samples/ipv6-bulk.pcap samples/demo-http-loss.pcapng >"$tmp/b.json"
cmp -s "$tmp/a.json" "$tmp/b.json" && t_pass "-r twice: both inputs, in order" || t_fail "-r twice differs"
an --json -f 'tcp port 5001' samples/demo-http-loss.pcapng samples/ipv6-bulk.pcap >"$tmp/a.json"
an --json samples/demo-http-loss.pcapng samples/ipv6-bulk.pcap tcp port 5001 >"$tmp/b.json"
an --json -r samples/demo-http-loss.pcapng -r samples/ipv6-bulk.pcap tcp port 5001 >"$tmp/c.json"
if cmp -s "$tmp/a.json" "$tmp/b.json" && cmp -s "$tmp/a.json" "$tmp/c.json" &&
	grep -q '"filter": "tcp port 5001"' "$tmp/a.json"; then
	t_pass "a trailing filter (after FILE... or -r) is -f's"
else
	t_fail "trailing filter: reports differ from -f's"
fi
# A missing file later on is taken as a filter word: the error says so.
an samples/ipv6-bulk.pcap no-such.pcap >/dev/null 2>"$tmp/e"
rc=$?
[ $rc = 2 ] && [ "$(wc -l <"$tmp/e")" = 1 ] && grep -q "from 'no-such.pcap' on were taken as a filter" "$tmp/e" &&
	t_pass "a missing second file: one line saying it was read as a filter, exit 2" ||
	t_fail "missing second file: exit $rc, $(cat "$tmp/e")"
for verb in analyze annotate capture diff merge tui; do
	"$bin" "$verb" --help >"$tmp/h1"
	"$bin" help "$verb" >"$tmp/h2"
	[ -s "$tmp/h1" ] && cmp -s "$tmp/h1" "$tmp/h2" && t_pass "help $verb = $verb --help" ||
		t_fail "help $verb differs from $verb --help"
	v=$("$bin" "$verb" -V) && [ "$v" = "$("$bin" --version)" ] && [ "$("$bin" "$verb" --version)" = "$v" ] &&
		t_pass "$verb -V, --version: $v" || t_fail "$verb -V: '$v'"
done
got=$(PATH="$(cd "$(dirname "$bin")" && pwd):$PATH" bash -c '. completion/tcpsift.bash
	COMP_WORDS=(tcpsift help ana); COMP_CWORD=2; _tcpsift; echo "${COMPREPLY[*]}"
	COMP_WORDS=(tcpsift he); COMP_CWORD=1; _tcpsift; echo "${COMPREPLY[*]}"' 2>&1 | tr '\n' ' ')
[ "$got" = "analyze help " ] && t_pass "completion: tcpsift help ana<TAB>, tcpsift he<TAB>" ||
	t_fail "completion of help: '$got'"
# --metrics (capture, tui): its options from --help, nothing offered for its value.
got=$(PATH="$(cd "$(dirname "$bin")" && pwd):$PATH" bash -c '. completion/tcpsift.bash
	for v in capture tui; do
		COMP_WORDS=(tcpsift "$v" --metr); COMP_CWORD=2; _tcpsift; echo "${COMPREPLY[*]}"
	done
	COMP_WORDS=(tcpsift capture --metrics ""); COMP_CWORD=3; _tcpsift; echo "[${COMPREPLY[*]}]"' 2>&1 |
	tr '\n' ' ')
[ "$got" = "--metrics --metrics-top --metrics --metrics-top [] " ] &&
	t_pass "completion: capture/tui --metr<TAB>, nothing after --metrics" ||
	t_fail "completion of --metrics: '$got'"

# Option values: for every verb, each option whose --help lists a fixed set
# (as its argument, "--format pcapng|pcap", or a line of its own after the
# options, "--sort columns: id, client, ...") completes to exactly that set
# (read here from --help by a parser of its own), after "--opt " and
# "--opt=", and the verb takes every value (a bogus one is a usage error).
verbs=$("$bin" --help | awk '/^  [a-z]+ / && $1 != "tcpsift" { print $1 }')
for verb in $verbs; do
	"$bin" "$verb" --help | python3 -c '
import re, sys
verb = sys.argv[1]
for line in sys.stdin:
    m = re.match(r"^ +(?:-\w, )?(--[\w-]+) ([a-z0-9_-]+(?:\|[a-z0-9_-]+)+) ", line)
    if m:
        print(verb, m.group(1), " ".join(m.group(2).split("|")))
    m = re.match(r"^(--[\w-]+) [a-z]+: (.*)$", line.rstrip("\n"))
    if m:
        print(verb, m.group(1), " ".join(re.sub(r" *\(.*\)$", "", v) for v in m.group(2).split(", ")))
' "$verb"
done >"$tmp/values"
listed=$(awk '{ printf "%s %s,", $1, $2 }' "$tmp/values")
for want in "analyze --sort" "analyze --fail-on" "capture --fanout-mode" "capture --format" \
	"capture --priority" "diff --match" "diff --fail-on" "tui --fanout-mode"; do
	[[ ",$listed" == *",$want,"* ]] && t_pass "--help lists the values of $want" ||
		t_fail "--help lists no values for $want (listed: $listed)"
done
while read -r verb opt values; do
	got=$(PATH="$(cd "$(dirname "$bin")" && pwd):$PATH" bash -c '. completion/tcpsift.bash
		COMP_WORDS=(tcpsift "$1" "$2" ""); COMP_CWORD=3; _tcpsift; echo "${COMPREPLY[*]}"
		COMP_WORDS=(tcpsift "$1" "$2" = ""); COMP_CWORD=4; _tcpsift; echo "${COMPREPLY[*]}"' _ "$verb" "$opt" 2>&1)
	if [ "$got" = "$values"$'\n'"$values" ]; then
		t_pass "completion: $verb $opt <TAB> and $opt=<TAB> offer --help's $(wc -w <<<"$values") values"
	else
		t_fail "completion: $verb $opt <TAB>: '$(head -c 200 <<<"$got")', --help lists '$(head -c 200 <<<"$values")'"
	fi
	# Run on samples where the verb reads them (diff checks --fail-on only
	# then); --help after the option for the live verbs. Exit 2: refused.
	case $verb in
	analyze) run=(samples/nanosec.pcap) ;;
	diff) run=(samples/nanosec.pcap samples/nanosec.pcap) ;;
	*) run=(--help) ;;
	esac
	bad=""
	for v in $values; do
		arg=$v
		[ "$opt" = --fail-on ] && arg="$v>0"
		"$bin" "$verb" "$opt" "$arg" "${run[@]}" >/dev/null 2>"$tmp/e"
		[ $? != 2 ] || bad+=" $v($(head -c 80 "$tmp/e"))"
	done
	[ -z "$bad" ] && t_pass "$verb $opt takes each value completion offers" || t_fail "$verb $opt refuses:$bad"
	"$bin" "$verb" "$opt" zz-not-a-value "${run[@]}" >/dev/null 2>&1
	rc=$?
	[ $rc = 2 ] && t_pass "$verb $opt zz-not-a-value: exit 2" || t_fail "$verb $opt zz-not-a-value: exit $rc"
done <"$tmp/values"
# --fail-on: the metric of the item being typed, after a comma too; nothing
# after its operator. Files where a file goes, as before.
comp() { # WORDS...: what completing the last word offers
	PATH="$(cd "$(dirname "$bin")" && pwd):$PATH" bash -c '. completion/tcpsift.bash
		COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _tcpsift; echo "${COMPREPLY[*]}"' _ tcpsift "$@" 2>&1
}
want_comp() { # WANT WORDS...
	local want=$1 got
	shift
	got=$(comp "$@")
	[ "$got" = "$want" ] && t_pass "completion: $* <TAB> -> '$want'" ||
		t_fail "completion: $* <TAB> -> '$got', want '$want'"
}
want_comp "stall>0,sack_holes" analyze --fail-on "stall>0,sack_h"
want_comp "" analyze --fail-on "stall>"
want_comp "retr rtt" analyze --sort r
want_comp "samples/demo-http-loss.pcapng" analyze samples/demo-http
want_comp "samples/ipv6-bulk.pcap" analyze -r samples/ipv6-b
want_comp "samples/ipv6-bulk.pcap" diff samples/demo-http-loss.pcapng samples/ipv6-b
want_comp "samples/zero-window.pcap" diff -o samples/zero-w
want_comp "samples/zero-window.pcap" capture -w samples/zero-w
want_comp "samples/zero-window.pcap" merge samples/zero-w
"$bin" help | grep -q "help VERB" && [ "$("$bin" -V)" = "$("$bin" --version)" ] &&
	t_pass "tcpsift help, tcpsift -V" || t_fail "tcpsift help / -V"

# Every JSON report above against the documented schema.
if scripts/schema.py validate "$tmp"/*.json >"$tmp/schema" 2>&1; then
	t_pass "schema: the $(ls "$tmp"/*.json | wc -l) JSON reports valid"
else
	t_fail "schema: $(head -3 "$tmp/schema")"
fi

# ---- usage errors: one line, exit 2 ----
usage_err() { # DESCRIPTION ARGS...: one line on stderr, exit 2, nothing on stdout
	local what=$1
	shift
	"$bin" "$@" >"$tmp/o" 2>"$tmp/e"
	local rc=$?
	if [ $rc = 2 ] && [ "$(wc -l <"$tmp/e")" = 1 ] && [ ! -s "$tmp/o" ]; then
		t_pass "usage error, one line: $what"
	else
		t_fail "$what: exit $rc, $(wc -l <"$tmp/e") lines: $(head -2 "$tmp/e")"
	fi
}
s=samples/ipv6-bulk.pcap
usage_err "--json --ndjson" analyze --json --ndjson "$s"
usage_err "--ndjson --json" analyze --ndjson --json "$s"
usage_err "--sort with --json" analyze --sort rtt --json "$s"
usage_err "--top with --ndjson" analyze --ndjson --top 3 "$s"
usage_err "--long with --json" analyze --long --json "$s"
usage_err "--frames-csv - with the report on stdout" analyze --frames-csv - "$s"
usage_err "--sort NAME unknown" analyze --sort nope "$s"
usage_err "--top 0" analyze --top 0 "$s"
usage_err "-f and a trailing filter" analyze -f tcp "$s" port 80
usage_err "-r without a file" analyze -r
usage_err "help of no verb" help nope
usage_err "merge --json --ndjson" merge --json --ndjson x.json
usage_err "capture --analyze --analyze-json" capture --analyze --analyze-json -i lo -w "$tmp/x.pcapng"
usage_err "tui --speed --max" tui -r "$s" --speed 2 --max
usage_err "tui -i with --max" tui -i lo --max
usage_err "--vantage-pair with one input" analyze --vantage-pair "$s"
usage_err "--vantage-pair with three inputs" analyze --vantage-pair "$s" samples/zero-window.pcap samples/nanosec.pcap
usage_err "--vantage-pair with the same file twice" analyze --vantage-pair "$s" "$s"
usage_err "--vantage-pair with the same file by two names" analyze --vantage-pair "$s" "./$s"
usage_err "--vantage-pair with --html" analyze --vantage-pair --html "$s" samples/zero-window.pcap
usage_err "--vantage-window without --vantage-pair" analyze --vantage-window 100 "$s"
usage_err "--vantage-max-offset 0" analyze --vantage-pair --vantage-max-offset 0 "$s" samples/zero-window.pcap
usage_err "capture -f and a trailing filter" capture -i lo -w "$tmp/x.pcapng" -f tcp port 80
# A Wireshark display filter where BPF is taken: one line naming it, with
# the BPF to type (a lone address or port comparison translated), exit 2.
dfilter() { # DESCRIPTION WANT ARGS...: usage error, one line, saying WANT
	local what=$1 want=$2
	shift 2
	usage_err "display filter: $what" "$@"
	grep -qF -- "that looks like a Wireshark display filter; tcpsift takes BPF (tcpdump syntax), e.g. '$want'" "$tmp/e" &&
		t_pass "display filter: $what: hint e.g. '$want'" || t_fail "display filter: $what: $(head -1 "$tmp/e")"
}
dfilter "analyze trailing tcp.port == 80" "tcp port 80" analyze "$s" 'tcp.port == 80'
dfilter "analyze -f ip.addr==1.2.3.4" "host 1.2.3.4" analyze -f 'ip.addr==1.2.3.4' "$s"
dfilter "analyze tcp.analysis.retransmission" "tcp port 80" analyze "$s" tcp.analysis.retransmission
dfilter "analyze -f 'ipv6.src eq 2001:db8::1'" "src host 2001:db8::1" analyze -f 'ipv6.src eq 2001:db8::1' "$s"
dfilter "analyze two comparisons" "tcp port 80" analyze -f 'tcp.dstport == 80 && ip.src == 10.0.0.1' "$s"
dfilter "diff -f tcp.port==80" "tcp port 80" diff -f 'tcp.port==80' "$s" "$s"
if [ "$(id -u)" = 0 ] && [ -e /sys/class/net/lo ]; then
	# The filter is compiled on the opened socket: root, loopback, nothing captured.
	dfilter "capture -f tcp.port == 80" "tcp port 80" capture -q -i lo -w "$tmp/df.pcapng" -f 'tcp.port == 80'
	dfilter "capture trailing ip.dst == 10.1.2.3" "dst host 10.1.2.3" capture -q -i lo -w "$tmp/df.pcapng" ip.dst == 10.1.2.3
	[ ! -e "$tmp/df.pcapng" ] && t_pass "display filter: capture wrote no file" ||
		t_fail "display filter: capture left $tmp/df.pcapng"
else
	t_skip "display filter in capture: needs root and lo"
fi
# A BPF typo is libpcap's error, no display-filter hint.
"$bin" analyze -f 'tcp prot 80' "$s" >/dev/null 2>"$tmp/e"
rc=$?
[ $rc = 2 ] && grep -q "syntax error" "$tmp/e" && ! grep -q Wireshark "$tmp/e" &&
	t_pass "a BPF typo: libpcap's error, no display-filter hint" || t_fail "a BPF typo: exit $rc, $(head -1 "$tmp/e")"
usage_err "a verb misspelt" analyse "$s"
usage_err "an option misspelt" analyze --jsn "$s"
# "did you mean": the nearest verb or option when it is near, else --help.
suggest() { # DESCRIPTION WANT ARGS...: stderr says WANT
	local what=$1 want=$2
	shift 2
	"$bin" "$@" >/dev/null 2>"$tmp/e"
	grep -qF -- "$want" "$tmp/e" && t_pass "$what: $want" || t_fail "$what: $(head -1 "$tmp/e")"
}
suggest "verb analyse" "did you mean analyze?" analyse "$s"
suggest "verb tiu" "did you mean tui?" tiu
suggest "verb frobnicate" "(try tcpsift --help)" frobnicate
suggest "option --jsn" "did you mean --json?" analyze --jsn "$s"
suggest "option --max-flwos=10" "did you mean --max-flows?" analyze --max-flwos=10 "$s"
suggest "option --fanuot" "did you mean --fanout?" capture -i lo --fanuot 2 -w "$tmp/x.pcapng"
suggest "option --colour" "(try --help)" analyze --colour "$s"
# tcpdump's habits: -c N stops after N packets, -n is accepted.
got=$("$bin" analyze --json -n -c 100 "$s" | python3 -c 'import json,sys; print(json.load(sys.stdin)["summary"]["packets"])')
[ "$got" = 100 ] && t_pass "-n -c 100: 100 packets read, exit 0" || t_fail "-n -c 100: '$got'"
usage_err "-c 0" analyze -c 0 "$s"
# tcpdump's flags tcpsift does not take: a usage error that says what to do.
usage_err "-v" analyze -v "$s"
suggest "tcpdump's -v" "tcpdump's -v: the report already says it all; analyze --long" analyze -v "$s"
suggest "tcpdump's -vv" "unknown option '-v' (tcpdump's -v" analyze -vv "$s"
suggest "tcpdump's -X" "tcpsift reads headers only" analyze -X "$s"
suggest "tcpdump's -i on analyze" "tcpsift capture -i IFACE" analyze -i eth0
suggest "tcpdump's -w on analyze" "tcpsift annotate" analyze -w out.pcap "$s"
suggest "no hint for an option tcpdump lacks" "unknown option '-K' (try --help)" analyze -K "$s"
# --conn that names no connection: a usage error, no report.
usage_err "--conn 99 (the sample holds 1)" analyze --conn 99 "$s"
usage_err "--json --conn 5-9" analyze --json --conn 5-9 "$s"
suggest "--conn 99 names what there is" "no such connection (the input holds 1: ids 1 to 1)" \
	analyze --conn 99 "$s"
# Nothing readable: its one line, exit 3, no empty text report (JSON keeps
# its document with the error: tests/hostile/reads.sh).
"$bin" analyze "$tmp/no-such.pcap" >"$tmp/o" 2>"$tmp/e"
rc=$?
[ $rc = 3 ] && [ ! -s "$tmp/o" ] && [ "$(wc -l <"$tmp/e")" = 1 ] &&
	t_pass "missing input: one line, exit 3, no report" ||
	t_fail "missing input: exit $rc, $(wc -l <"$tmp/o") report lines, $(wc -l <"$tmp/e") on stderr"
"$bin" analyze "$tmp/no-such.pcap" "$s" >"$tmp/o" 2>/dev/null
[ $? = 3 ] && grep -q "not read" "$tmp/o" && t_pass "one of two inputs missing: the report, exit 3" ||
	t_fail "one of two inputs missing: $(head -2 "$tmp/o")"
t_done
