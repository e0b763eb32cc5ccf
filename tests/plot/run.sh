#!/usr/bin/env bash
# plot/run.sh TCPSIFT - analyze --plot DIR and --xplot DIR: the SVG and .xpl
# files against the --json --frames report of the same run, by value
# (tests/plot/check_plot.py), on every sample; the same files with
# --threads 1 and 2; tcptrace's own .xpl segments when tcptrace is
# installed; --conn and --plot-max; bad directories; and a generated
# million-packet connection (bench/gen, piped, never stored) whose SVGs stay
# bounded with every anomaly counted. About 10 s on a debug build.
set -uo pipefail
cd "$(dirname "$0")/../.."
T_SUITE=plot
. tests/lib.sh
bin=${1:?usage: run.sh TCPSIFT}
gen=$(dirname "$bin")/bench/gen
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Run check_plot.py, its PASS/FAIL lines as cases.
checker() {
	local line
	while IFS= read -r line; do
		case "$line" in
		PASS\ *) t_pass "${line#PASS }" ;;
		FAIL\ *) t_fail "${line#FAIL }" ;;
		*) t_fail "check_plot.py: $line" ;;
		esac
	done < <(python3 tests/plot/check_plot.py "$@" 2>&1)
}

# plot NAME [--expect ...] -- ANALYZE-ARGS...: graphs and report of one run,
# checked; the same run with --threads 2 must give the same files.
plot() {
	local name=$1 expect=()
	shift
	while [ "$1" != -- ]; do
		expect+=("$1")
		shift
	done
	shift
	local d=$tmp/$name
	local rc
	"$bin" analyze --no-progress --threads 1 --json --frames -o "$d.json" \
		--plot "$d.svg" --xplot "$d.xpl" "$@" 2>"$d.err"
	rc=$?
	# 3: an input cut short (samples/truncated.pcap): graphs of what was read.
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ] || [ ! -s "$d.json" ]; then
		t_fail "$name: analyze --plot exit $rc ($(head -c 200 "$d.err"))"
		return 1
	fi
	checker svg "$d.svg" "$d.json" "${expect[@]}"
	checker xpl "$d.xpl" "$d.json"
	"$bin" analyze --no-progress --threads 2 -o /dev/null --plot "$d.svg2" --xplot "$d.xpl2" "$@" 2>/dev/null
	# The graphs only: index.html and report.json follow the report's options
	# (this run has no --frames), tests/html checks them.
	local x="-x index.html -x report.json"
	if diff -r $x "$d.svg" "$d.svg2" >/dev/null && diff -r $x "$d.xpl" "$d.xpl2" >/dev/null; then
		t_pass "$name: --threads 1 and 2 write the same files"
	else
		t_fail "$name: --threads 2 differs: $( (diff -rq $x "$d.svg" "$d.svg2"; diff -rq $x "$d.xpl" "$d.xpl2") | head -2)"
	fi
}

plot loss --expect 1:s2c:retrans:34 --expect 1:s2c:hole:34 --expect 1:s2c:gap:34 \
	-- samples/demo-http-loss.pcapng
plot nagle --expect 1:c2s:stall:19 -- samples/rr-nagle-delack.pcap
plot zerowin --expect 1:c2s:zwin-span:1 -- samples/zero-window.pcap
plot queues -- --queue-per-file samples/reorder-queues-q0.pcap samples/reorder-queues-q1.pcap
for f in samples/*.pcap samples/*.pcapng; do
	case $f in */demo-http-loss* | */rr-nagle* | */zero-window* | */reorder-queues*) continue ;; esac
	plot "$(basename "${f%%.*}")" -- "$f"
done
# Every sample in one run: connections of many captures, merged by time.
# Not the two-point pairs (vpair-*-a/-b): each pair is one connection seen
# twice, which one vantage makes one connection with two frames numbered N
# (marks carry frame numbers, not inputs).
all=()
for f in samples/*.pcap samples/*.pcapng; do
	case $f in */vpair-*) ;; *) all+=("$f") ;; esac
done
plot all -- "${all[@]}"

# RX queues as colours: both queues' segments, each in its colour.
if grep -q 'class="seg q0"' "$tmp/queues.svg/conn-1-s2c-tseq.svg" 2>/dev/null &&
	grep -q 'class="seg q1"' "$tmp/queues.svg/conn-1-s2c-tseq.svg"; then
	t_pass "queues: segments of queue 0 and 1 in their colours"
else
	t_fail "queues: no per-queue segment paths in conn-1-s2c-tseq.svg"
fi

# The checker can fail: a retransmission mark moved by 5 pixels.
mkdir -p "$tmp/moved"
cp "$tmp/loss.svg/"*.svg "$tmp/moved/"
python3 - "$tmp/moved/conn-1-s2c-tseq.svg" <<'EOF'
import re, sys
p = sys.argv[1]
s = open(p).read()
s = re.sub(r'(<line class="retrans" x1=")([0-9.]+)', lambda m: m.group(1) + "%.2f" % (float(m.group(2)) + 5), s, count=1)
open(p, "w").write(s)
EOF
moved=$(python3 tests/plot/check_plot.py svg "$tmp/moved" "$tmp/loss.json")
if echo "$moved" | grep -q '^FAIL.*marks at the pixels'; then
	t_pass "control: a mark off its pixel is caught"
else
	t_fail "control: a mark moved by 5 px passed the check"
fi

# tcptrace's own time-sequence files (tcptrace -S -zxy): the same segments.
if command -v tcptrace >/dev/null; then
	for s in loss:demo-http-loss.pcapng nagle:rr-nagle-delack.pcap zerowin:zero-window.pcap; do
		name=${s%%:*} f=samples/${s#*:}
		mkdir -p "$tmp/tt-$name"
		(cd "$tmp/tt-$name" && tcptrace -S -zxy -n "$OLDPWD/$f" >/dev/null 2>&1)
		# One connection, the client first: a2b is client to server.
		checker tcptrace "$tmp/$name.xpl/conn-1-c2s-tseq.xpl" "$tmp/tt-$name/a2b_tsg.xpl"
		[ -f "$tmp/$name.xpl/conn-1-s2c-tseq.xpl" ] &&
			checker tcptrace "$tmp/$name.xpl/conn-1-s2c-tseq.xpl" "$tmp/tt-$name/b2a_tsg.xpl"
	done
else
	t_skip "tcptrace not installed: .xpl not compared with tcptrace's"
fi

# --conn picks, --plot-max bounds (and says so on stderr).
"$bin" analyze --no-progress --json --frames -o "$tmp/seed.json" --conn 2 --plot "$tmp/conn2" \
	samples/mtu-seed-2013.pcap 2>/dev/null
checker svg "$tmp/conn2" "$tmp/seed.json" --conn 2
"$bin" analyze --no-progress --json -o "$tmp/seed-all.json" --plot-max 1 --plot "$tmp/max1" \
	samples/mtu-seed-2013.pcap 2>"$tmp/max1.err"
checker svg "$tmp/max1" "$tmp/seed-all.json" --max 1
if grep -q '^tcpsift analyze: graphs for 1 connections; 2 more were not plotted (--plot-max 1): pick them with --conn$' "$tmp/max1.err"; then
	t_pass "--plot-max 1: one line on stderr counts the rest"
else
	t_fail "--plot-max 1: stderr: $(head -c 200 "$tmp/max1.err")"
fi

# Bad directories: one line, exit 3, before reading anything; bad counts: exit 2.
: >"$tmp/afile"
bad() {
	local what=$1 want=$2 rc
	shift 2
	"$bin" analyze --no-progress "$@" samples/rr-nagle-delack.pcap >"$tmp/bad.out" 2>"$tmp/bad.err"
	rc=$?
	if [ "$rc" -eq "$want" ] && [ "$(wc -l <"$tmp/bad.err")" -eq 1 ] && [ ! -s "$tmp/bad.out" ]; then
		t_pass "$what: exit $want, one line ($(head -c 80 "$tmp/bad.err"))"
	else
		t_fail "$what: exit $rc, stderr $(head -c 200 "$tmp/bad.err"), stdout $(wc -c <"$tmp/bad.out") bytes"
	fi
}
bad "--plot a file" 3 --plot "$tmp/afile"
bad "--plot under a file" 3 --plot "$tmp/afile/sub"
bad "--xplot a file" 3 --xplot "$tmp/afile"
bad "--plot not creatable" 3 --plot /proc/tcpsift-no/such
bad "--plot-max 0" 2 --plot "$tmp/x" --plot-max 0
bad "--plot-max huge" 2 --plot "$tmp/x" --plot-max 100001
mkdir -p "$tmp/ro" && chmod 500 "$tmp/ro"
if [ "$(id -u)" -ne 0 ]; then bad "--plot read-only" 3 --plot "$tmp/ro/sub"; fi

# Connections drawn per time slice (beyond 4096 packets), several at once:
# the same files with one thread and with four.
if [ -x "$gen" ]; then
	"$gen" -o "$tmp/three.pcap" --packets 150000 --connections 3 --concurrent 3 --seed 2 2>/dev/null
	"$bin" analyze --no-progress --threads 1 -o /dev/null --plot "$tmp/three1" --xplot "$tmp/three1" "$tmp/three.pcap"
	"$bin" analyze --no-progress --threads 4 -o /dev/null --plot "$tmp/three4" --xplot "$tmp/three4" "$tmp/three.pcap"
	if grep -qs 'aggregated: one column per' "$tmp/three1/conn-1-s2c-tseq.svg" "$tmp/three1/conn-1-c2s-tseq.svg" &&
		diff -r "$tmp/three1" "$tmp/three4" >/dev/null; then
		t_pass "aggregated connections: --threads 1 and 4 write the same $(ls "$tmp/three1" | wc -l) files"
	else
		t_fail "aggregated connections: --threads 4 differs or nothing aggregated: $(diff -rq "$tmp/three1" "$tmp/three4" | head -2)"
	fi
	rm -f "$tmp/three.pcap"
fi

# A million packets in one connection, generated on the fly: every SVG
# well-formed and under 3 MB, aggregated per column, with each
# retransmission either a mark of its own or counted in a bin.
if [ -x "$gen" ]; then
	"$gen" -o - --packets 1000000 --connections 1 --concurrent 1 --seed 1 2>/dev/null |
		"$bin" analyze --no-progress --json -o "$tmp/big.json" --plot "$tmp/big" - 2>"$tmp/big.err"
	python3 - "$tmp/big" "$tmp/big.json" >"$tmp/big.res" 2>&1 <<'EOF'
import json, os, sys, xml.etree.ElementTree as ET
d, rep = sys.argv[1], json.load(open(sys.argv[2]))
c = rep["connections"][0]
svg = "{http://www.w3.org/2000/svg}"
files = sorted(f for f in os.listdir(d) if f.endswith(".svg"))
big = max(os.path.getsize(os.path.join(d, f)) for f in files)
print(("PASS" if len(files) == 10 and big < 3 << 20 else "FAIL"),
      f"1M packets: {len(files)} SVGs, the largest {big} bytes (< 3 MB)")
root = ET.parse(os.path.join(d, "conn-1-s2c-tseq.svg")).getroot()
marks = sum(1 for e in root.iter() if e.get("class") == "retrans" and e.get("data-frame"))
counted = sum(int(e.get("data-count")) for e in root.iter() if e.get("class") == "retrans bin")
want = c["s2c"]["retransmissions"]
print(("PASS" if marks + counted == want and counted > 0 else "FAIL"),
      f"1M packets: {marks} retransmission marks + {counted} binned = the report's {want}")
sub = [e.text for e in root.iter(svg + "text") if e.get("class") == "sub"]
print(("PASS" if sub and sub[0].startswith("aggregated: one column per") else "FAIL"),
      f"1M packets: drawn per column ({sub[:1]})")
EOF
else
	echo "SKIP no $gen: the million-packet connection not generated" >"$tmp/big.res"
fi
while IFS= read -r line; do
	case "$line" in
	PASS\ *) t_pass "${line#PASS }" ;;
	FAIL\ *) t_fail "${line#FAIL }" ;;
	SKIP\ *) t_skip "${line#SKIP }" ;;
	*) t_fail "1M: $line" ;;
	esac
done <"$tmp/big.res"

# The --json reports the graphs were checked against follow the schema.
if scripts/schema.py validate "$tmp"/*.json >"$tmp/schema" 2>&1; then
	t_pass "schema: the $(ls "$tmp"/*.json | wc -l) JSON reports are valid"
else
	t_fail "schema: $(head -c 300 "$tmp/schema")"
fi

t_done
