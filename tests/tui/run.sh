#!/usr/bin/env bash
# tui/run.sh TCPSIFT - drive the real `tcpsift tui` in tmux and read its screen.
#
# First, without a screen, the dashboard's table (tests/tools/tui-rows: the
# player and model run to the end) equals analyze --json, connection by
# connection, on every sample and every capture in ../shared/pcaps/public,
# and is the same with --threads 1 and 2, also at up to 8 points of each sample.
# Then replays samples from samples/ and checks, from tmux capture-pane:
#   - the connections, findings and numbers on screen are the ones
#     `tcpsift analyze --json` reports for the same files (per connection:
#     addresses (with the interface when the same 4-tuple was seen at
#     another), retransmissions,
#     stalls, SACK holes, out-of-order, queues; totals);
#   - 80x24 and 200x50 render without garbage (no escape debris, no line
#     wider than the terminal, the frame's fixed lines where they belong);
#   - sort (s, S), filter (/ BPF and substring), freeze, detail (Enter),
#     help (?), pause + step (--paused, n) work;
#   - q and SIGTERM leave the terminal usable (canonical mode, echo, no
#     alternate screen) and exit 0; colours only without NO_COLOR;
#   - bad arguments: one line, exit 2;
#   - on a selected connection, w writes analyze --conn ID's packets, c
#     copies the long form's tshark filter, P writes analyze --conn ID
#     --plot's graphs (replayed, and live on loopback with the default
#     privilege drop, from the -w file created as that user);
# then runs tests/tui/live.sh (a transfer in a namespace, live capture) and
# tests/tui/live-drops.sh (a flood into the smallest ring: the header's drop
# share in colour and the options advised).
# Needs tmux and python3 (skipped without them).
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
T_SUITE=tui
. tests/lib.sh
. tests/tui/tmux.sh
bin=$(realpath "${1:?usage: run.sh TCPSIFT}")
TUI_BIN=$bin
R=$PWD # samples by absolute path for sessions that run elsewhere (w writes into .)

for t in tmux python3; do
	command -v $t >/dev/null || {
		t_skip "tui tests: $t not installed"
		t_done
		exit 0
	}
done
# Under ASan, ncurses' own never-freed allocations are not ours to report
# (the tmux server, started below, passes this on to every session).
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$PWD/tests/tui/lsan.supp"
tui_init
trap tui_cleanup EXIT

check() { # description, then a command; pass when it succeeds
	local what=$1
	shift
	if "$@"; then t_pass "$what"; else t_fail "$what"; fi
}

# fits COLS FILE: no line of FILE is wider than COLS characters (UTF-8).
fits() {
	python3 -c 'import sys; sys.exit(any(len(l) > int(sys.argv[1]) for l in open(sys.argv[2], encoding="utf-8").read().split("\n")))' "$@"
}

# resized NAME COLS ROWS: resize NAME's window, then wait (5 s at most) for
# the tui's redraw at that size, not a fixed pause: its last line, the
# footer (curses sends it last), ends with the rows' count one column short
# of the new edge; the old screen, which tmux only cuts to a narrower
# width, has that count cut off or elsewhere. For the table view with a
# short status line (the footer's count whole).
resized() {
	local name=$1 cols=$2 foot n
	tui_tmux resize-window -t "$name" -x "$cols" -y "$3"
	for _ in $(seq 100); do
		sleep 0.05
		foot=$(tui_screen "$name" | tail -n 1)
		# characters, not bytes: UTF-8 continuation bytes dropped (arrows)
		n=$(LC_ALL=C tr -d '\200-\277' <<<"$foot" | wc -c) # with the newline
		[ "$n" = "$cols" ] && [[ $foot =~ \ [0-9]+/[0-9]+$ ]] && return 0
	done
	return 1
}

# ---- bad arguments (no terminal needed for these) ----
for args in "" "-r" "-r x -i lo" "--speed 0 -r samples/nanosec.pcap" "--bogus" \
	"-r samples/nanosec.pcap --keep-ended 0" "-i lo -w -" \
	"-r samples/nanosec.pcap --conn-filter prot"; do
	# shellcheck disable=SC2086
	"$bin" tui $args </dev/null >/dev/null 2>"$TUI_DIR/e"
	rc=$?
	if [ $rc -eq 2 ] && [ "$(wc -l <"$TUI_DIR/e")" -eq 1 ]; then t_pass "usage error: '$args'"; else
		t_fail "'tui $args': exit $rc, $(head -c 200 "$TUI_DIR/e")"
	fi
done
# A Wireshark display filter for the BPF: one line with the hint, exit 2
# (a terminal from script(1): the filter is compiled after the terminal check).
if command -v script >/dev/null; then
	TERM=xterm script -qec "$bin tui -r samples/nanosec.pcap 'tcp.port == 80' 2>$TUI_DIR/e" /dev/null >/dev/null </dev/null
	rc=$?
	if [ $rc -eq 2 ] && [ "$(wc -l <"$TUI_DIR/e")" -eq 1 ] &&
		grep -qF "tcpsift tui: bad filter 'tcp.port == 80': that looks like a Wireshark display filter; tcpsift takes BPF (tcpdump syntax), e.g. 'tcp port 80'" "$TUI_DIR/e"; then
		t_pass "display filter: one line with the BPF hint, exit 2"
	else
		t_fail "display filter: exit $rc, $(head -c 200 "$TUI_DIR/e")"
	fi
else
	t_skip "display filter in tui: no script(1) for a terminal"
fi
"$bin" tui -r samples/nanosec.pcap </dev/null >/dev/null 2>"$TUI_DIR/e"
check "no terminal: exit 2 with a reason" grep -q "needs a terminal" "$TUI_DIR/e"

# ---- the table's numbers against analyze, on every sample and public capture ----
# tests/tools/tui-rows runs the dashboard's engine thread and model without a
# screen and prints the table; parity.py compares it with analyze --json.
rows_bin="$(dirname "$bin")/tests/tools/tui-rows"
pub=${TCPSIFT_PUBLIC:-../shared/pcaps/public}
nparity=0 pnames=() prcs=() pairs=()
for f in samples/*.pcap samples/*.pcapng "$pub"/*.pcap "$pub"/*.pcapng; do
	[ -f "$f" ] || continue
	n=$(basename "$f")
	"$rows_bin" "$f" >"$TUI_DIR/$n.tsv" 2>"$TUI_DIR/$n.err"
	r1=$?
	"$bin" analyze --json --no-progress "$f" >"$TUI_DIR/$n.json" 2>/dev/null
	r2=$?
	if [ ! -s "$TUI_DIR/$n.tsv" ] && [ ! -s "$TUI_DIR/$n.json" ]; then
		check "$n: both refuse it (tui $r1, analyze $r2)" [ "$r1" = 3 -a "$r2" = 3 ]
		continue
	fi
	pnames+=("$n") prcs+=("$r1 $r2") pairs+=("$TUI_DIR/$n.tsv" "$TUI_DIR/$n.json")
done
# one parity.py for every pair: a line each, "0 ok ..." or "1 differences"
i=0
while read -r ok out; do
	n=${pnames[i]} r1=${prcs[i]% *} r2=${prcs[i]#* }
	if [ "$ok" = 0 ] && [ "$r1" = "$r2" ]; then
		t_pass "parity $n: $out"
		nparity=$((nparity + 1))
	else
		t_fail "parity $n (exit tui $r1, analyze $r2): $out"
	fi
	i=$((i + 1))
done < <(python3 tests/tui/parity.py "${pairs[@]}")
check "parity.py answered for each of the ${#pnames[@]} files ($i)" [ "$i" = "${#pnames[@]}" ]
check "parity ran on the samples and the public captures ($nparity files)" [ "$nparity" -ge 20 ]

# ---- the same numbers with --threads 1 and 2, at the end and on the way ----
# tui-rows --every K: paused, stepped K packets at a time, the table (live
# connections' bytes, rates, RTT) after each step: the workers' snapshots
# between batches (wk_sync) must show what one engine shows.
nthr=0
for f in samples/*.pcap samples/*.pcapng; do
	n=$(basename "$f")
	pk=$(awk '$1 == "total" {print $2}' "$TUI_DIR/$n.tsv")
	[ -n "$pk" ] && [ "$pk" -gt 0 ] || continue
	k=$(((pk + 7) / 8))
	# side by side: each run mostly waits for the paused engine's steps
	"$rows_bin" --threads 1 --every $k "$f" >"$TUI_DIR/$n.t1" 2>/dev/null &
	"$rows_bin" --threads 2 --every $k "$f" >"$TUI_DIR/$n.t2" 2>/dev/null
	wait $!
	# a snapshot after every whole step of k packets, then the end
	if [ "$(grep -c '^at' "$TUI_DIR/$n.t1")" = $((pk / k)) ] &&
		cmp -s "$TUI_DIR/$n.t1" "$TUI_DIR/$n.t2"; then
		nthr=$((nthr + 1))
	else
		t_fail "$n: tui --threads 2 shows other numbers than --threads 1 (every $k of $pk packets)"
		diff "$TUI_DIR/$n.t1" "$TUI_DIR/$n.t2" | head -5
	fi
done
check "tui --threads 2 = --threads 1 at up to 8 points of each of $nthr samples" [ "$nthr" -ge 20 ]

# ---- 200x50: the numbers are analyze's ----
files=(samples/demo-http-loss.pcapng samples/rr-nagle-delack.pcap samples/reorder-relay.pcap
	samples/zero-window.pcap samples/mtu-63540.pcap samples/two-ifaces.pcapng)
rargs=()
for f in "${files[@]}"; do rargs+=(-r "$f"); done
"$bin" analyze --json --no-progress "${files[@]}" >"$TUI_DIR/all.json" 2>/dev/null
# Every analyze report the parity checks read follows the schema.
reports=()
for j in "$TUI_DIR"/*.json; do [ -s "$j" ] && reports+=("$j"); done
if scripts/schema.py validate "${reports[@]}" >"$TUI_DIR/schema" 2>&1; then
	t_pass "schema: the ${#reports[@]} analyze reports are valid"
else
	t_fail "schema: $(head -c 300 "$TUI_DIR/schema")"
fi
# The 10000-hole capture for later (python: 4 s of one core), made while
# the 200x50 checks below mostly wait for the screen.
{
	python3 tests/tui/holes.py 10000 >"$TUI_DIR/holes.txt" &&
		python3 tests/tools/sack-tcpdump2pcap.py "$TUI_DIR/holes.txt" "$TUI_DIR/holes.pcap" >/dev/null
} &
holes_job=$!
tui_start big 200 50 -- "${rargs[@]}" --max
if tui_wait big '\[ended\]' 20; then t_pass "200x50 replay reaches the end"; else
	t_fail "200x50 replay never ended: $(tui_screen big | head -3)"
fi
tui_screen big >"$TUI_DIR/big.txt"
tui_screen_e big >"$TUI_DIR/big.esc"
python3 - "$TUI_DIR/big.txt" "$TUI_DIR/all.json" 200 50 <<'EOF' >"$TUI_DIR/cmp.out"
import json, re, sys
screen, report, cols, rows = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
lines = open(screen, encoding="utf-8").read().split("\n")
d = json.load(open(report))
out = []
def say(ok, what): out.append(("PASS " if ok else "FAIL ") + what)
def fmt_bytes(x):  # as tv_fmt_bytes()
    if x < 1000:
        return "%dB" % x
    k = 0
    x = float(x)
    while x >= 999.5 and k < 5:
        x /= 1000
        k += 1
    return (("%.2f" if x < 9.995 else "%.1f" if x < 99.95 else "%.0f") % x) + " kMGTP"[k] + "B"
def fmt_dur(s):  # as det_fmt_dur_short()
    if s is None:
        return "-"
    ns = round(s * 1e9)
    return ("%.0fus" % (ns / 1e3) if ns < 1000000 else "%.2fms" % (ns / 1e6) if ns < 10000000
            else "%.0fms" % (ns / 1e6) if ns < 1000000000 else "%.2fs" % (ns / 1e9))
def fmt_loss(c):  # as rep_fmt_loss(sum_conn_loss_rate())
    ds = (c["c2s"], c["s2c"])
    lost = sum(max(d["retransmissions"] - d["spurious_retransmissions"], 0) for d in ds)
    sent = sum(d["data_packets"] + d["lost_upstream"] for d in ds)
    if not sum(d["data_packets"] for d in ds) or not sent:
        return "-"
    pct = 100.0 * min(lost, sent) / sent
    return "0" if not lost else "<0.1" if pct < 0.1 else ("%.1f" if pct < 10 else "%.0f") % pct
# The frame: title, rates, findings, table head; no line wider than the terminal.
say(lines[0].startswith(" tcpsift replay "), "title line")
say(" pkts " in lines[1], "rates line")
say(lines[2].startswith(" findings:"), "findings line")
say(lines[3].lstrip().startswith("#"), "table head")
say(all(len(l) <= cols for l in lines), "no line wider than %d" % cols)
say(not any("\x1b" in l or "\ufffd" in l for l in lines), "no escape debris")
rows_seen = {}
# Columns by the names in the table's head (the detectors' columns come
# from their views: the order is theirs, not this test's).
alias = {"#": "id"}
heads = next([alias.get(h, h) for h in (re.sub("[▼▲]$", "", x).lower() for x in l.split())]
             for l in lines if " CLIENT" in l and " RETR" in l)
for l in lines[4:]:
    if l.startswith(" FINDINGS"):
        break
    t = l.split()
    if len(t) == len(heads) and t[0].isdigit():
        rows_seen[int(t[0])] = t
conns = {c["id"]: c for c in d["connections"]}
say(set(rows_seen) == set(conns), "every connection has a row (%d)" % len(conns))
for cid, c in conns.items():
    t = rows_seen.get(cid)
    if not t:
        continue
    vant = d["vantages"]
    # The interface is named only when the same 4-tuple was seen at another.
    twice = sum(1 for o in d["connections"] if (o["client"], o["server"]) ==
                (c["client"], c["server"]) and o["vantage"] != c["vantage"])
    where = "@" + vant[c["vantage"]] if twice else ""
    pk = c["c2s"]["packets"] + c["s2c"]["packets"]
    want = {
        "client": c["client"] + where, "server": c["server"],
        # totals, not rates: an ended connection keeps its bytes and packets
        "c>s": fmt_bytes(c["c2s"]["payload_bytes"]), "s>c": fmt_bytes(c["s2c"]["payload_bytes"]),
        "pkts": str(pk) if pk < 100000 else None,
        "now": "0",
        "retr": str(c["c2s"]["retransmissions"] + c["s2c"]["retransmissions"]),
        "loss%": fmt_loss(c),
        "path": fmt_dur(c["path_rtt_s"]),
        "stall": str(c["stalls"]["count"]),
        "hole": str(c["sack"]["holes"]),
        "ooo": str(c["c2s"]["out_of_order"] + c["s2c"]["out_of_order"]),
        "q": str(len(c["queues"])) if c["queues"] else "-",
        "mtu": "!" if (c["mtu_findings"]["misaligned"] or c["mtu_findings"]["pmtu_blackhole"]
                       or c["mtu_findings"]["icmp_too_big"]) else "-",
    }
    got = dict(zip(heads, t))
    bad = {k: (got[k], v) for k, v in want.items() if v is not None and got[k] != v}
    say(not bad, "connection %d matches analyze%s" % (cid, (": " + str(bad)) if bad else ""))
f = d["summary"]["findings"]
m = re.search(r"stalls (\d+) .*holes (\d+) .*reorder (\d+) .*retransmissions (\d+)", lines[2])
say(m and [int(x) for x in m.groups()] == [f["stalls"], f["sack_holes"], f["out_of_order"],
                                          f["retransmissions"]],
    "totals match analyze: %s" % str(m.groups() if m else lines[2]))
m = re.search(r"^ (\d+) pkts", lines[1])
say(m and int(m.group(1)) == d["summary"]["packets"], "packet count matches analyze")
print("\n".join(out))
EOF
while read -r verdict what; do
	if [ "$verdict" = PASS ]; then t_pass "200x50: $what"; else t_fail "200x50: $what"; fi
done <"$TUI_DIR/cmp.out"
[ -s "$TUI_DIR/cmp.out" ] || t_fail "200x50: screen comparison produced nothing"
check "colours are used on a colour terminal" grep -qE $'\e\\[[0-9;]*3[1-7]m|\e\\[[0-9;]*38;5' "$TUI_DIR/big.esc"

# Sort: > and < move the sort column (s is >), S reverses, a click on a
# column's head sorts by it (tmux passes the SGR mouse report on).
col_of() { # FILE HEAD: the field number of HEAD in the table head of FILE
	awk -v h="$2" '/^ +#.* CLIENT /{for (i = 1; i <= NF; i++) {x = $i; sub(/(▼|▲)$/, "", x); if (x == h) {print i; exit}}}' "$1"
}
nstall=$(col_of "$TUI_DIR/big.txt" STALL)
tui_keys big -N $((nstall - 1)) '>'
tui_screen big >"$TUI_DIR/sort.txt"
check "> to STALL: marked in the head" grep -q 'STALL▼' "$TUI_DIR/sort.txt"
first=$(awk -v c="$nstall" '/^ +# /{getline; print $c; exit}' "$TUI_DIR/sort.txt")
check "sort by STALL: most stalls first ($first)" [ "$first" = 19 ]
tui_keys big '<'
check "< moves the sort one column left" grep -q 'LOSS%▼' <(tui_screen big)
tui_keys big '>' S
check "S reverses the order" tui_wait big 'STALL▲' 3
tui_screen big >"$TUI_DIR/sort2.txt"
last=$(awk -v c="$nstall" '/^ +# /{f=1; next} / FINDINGS/{f=0} f && $1 ~ /^[0-9]+$/ {v=$c} END{print v}' "$TUI_DIR/sort2.txt")
check "reversed: most stalls last ($last)" [ "$last" = 19 ]
# a click on PKTS' head (SGR report: 1-based column and line)
hy=$(awk '/^ +# /{print NR; exit}' "$TUI_DIR/sort2.txt")
px=$(awk '/^ +# /{print index($0, " PKTS") + 2; exit}' "$TUI_DIR/sort2.txt")
tui_keys big -l $'\e'"[<0;$px;${hy}M"$'\e'"[<0;$px;${hy}m"
check "a click on the PKTS head sorts by it" tui_wait big 'PKTS▼' 3
tui_screen big >"$TUI_DIR/click.txt"
npk=$(col_of "$TUI_DIR/click.txt" PKTS)
order=$(awk -v c="$npk" '/^ +# /{f=1; next} / FINDINGS/{f=0} f && $1 ~ /^[0-9]+$/ {print $c}' "$TUI_DIR/click.txt" | tr '\n' ' ')
check "clicked PKTS: biggest first ($order)" python3 -c "import sys; v=[int(x) for x in sys.argv[1].split()]; sys.exit(v != sorted(v, reverse=True) or len(v) < 3)" "$order"
tui_tmux send-keys -t big -l $'\e'"[<0;$px;${hy}M"$'\e'"[<0;$px;${hy}m"
check "a second click reverses it" tui_wait big 'PKTS▲' 2
# a click on the third row selects it
tui_keys big -l $'\e'"[<0;10;$((hy + 3))M"$'\e'"[<0;10;$((hy + 3))m"
check "a click on a row selects it" python3 -c "import sys; l=sys.stdin.read().split('\n')[$((hy + 2))]; sys.exit('\x1b[7m' not in l)" < <(tui_screen_e big)
# t: C>S and S>C as rates (an ended replay: 0), t again: the totals
tui_keys big t
check "t shows rates (C>S/s in the head)" grep -q 'C>S/s' <(tui_screen big)
tui_keys big t
check "t again: totals" grep -q ' C>S ' <(tui_screen big)

# Filter: a capture filter, then a substring, then cleared.
tui_keys big / 'port 8000' Enter
tui_screen big >"$TUI_DIR/f1.txt"
n=$(awk '/^ +# /{f=1; next} / FINDINGS/{f=0} f && $1 ~ /^[0-9]+$/' "$TUI_DIR/f1.txt" | wc -l)
check "filter 'port 8000': one row ($n)" [ "$n" -eq 1 ]
check "filter 'port 8000': the footer says so" grep -q 'filter: port 8000 1/' "$TUI_DIR/f1.txt"
tui_keys big / BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace '10.0.2.' Enter
tui_screen big >"$TUI_DIR/f2.txt"
n=$(awk '/^ +# /{f=1; next} / FINDINGS/{f=0} f && $1 ~ /^[0-9]+$/' "$TUI_DIR/f2.txt" | wc -l)
want=$(python3 -c "import json; print(sum('10.0.2.' in c['client']+' '+c['server'] for c in json.load(open('$TUI_DIR/all.json'))['connections']))")
check "substring filter '10.0.2.': $n rows (want $want)" [ "$n" -eq "$want" ]
check "substring filter is labelled" grep -q '(substring)' "$TUI_DIR/f2.txt"
tui_keys big / BSpace BSpace BSpace BSpace BSpace BSpace BSpace BSpace Enter
tui_screen big >"$TUI_DIR/f3.txt"
n=$(python3 -c "import json; print(len(json.load(open('$TUI_DIR/all.json'))['connections']))")
check "empty filter shows every row ($n)" grep -qE " $n/$n *\$" "$TUI_DIR/f3.txt"

# The prompt is a line editor: the old filter comes selected (typing
# replaces it), arrows move, Ctrl-U clears, Up/Down walk the history; a
# capture filter that does not compile is refused with libpcap's reason.
footer() { tui_screen big | tail -n 1; }
tui_keys big / 'port 8000' Enter / 'port 80' Enter
check "typing replaces the selected old filter" grep -q 'filter: port 80 [0-9]' <(footer)
tui_keys big / 'prt 8000' C-a Right o Enter
check "Ctrl-A, Right, insert in the middle: 'port 8000'" grep -q 'filter: port 8000 1/' <(footer)
tui_keys big / C-e BSpace BSpace BSpace BSpace BSpace Enter
check "Ctrl-E then Backspace edits the old filter: 'port' is refused" grep -q 'not a filter: ' <(tui_screen big)
tui_keys big C-u 'port 80' Enter
check "Ctrl-U clears the line" grep -q 'filter: port 80 [0-9]' <(footer)
tui_keys big / Up Up Enter
check "Up Up: the filter before last ('port 8000')" grep -q 'filter: port 8000 1/' <(footer)
tui_keys big / 'prot 80' Enter
tui_screen big >"$TUI_DIR/badbpf.txt"
check "a mistyped capture filter shows libpcap's error" grep -qE 'not a filter: .*syntax error' "$TUI_DIR/badbpf.txt"
check "... and stays in the prompt with the text" grep -q '^ filter: prot 80' <(tail -n 1 "$TUI_DIR/badbpf.txt")
tui_keys big Escape
check "Escape keeps the old filter" grep -q 'filter: port 8000 1/' <(footer)

# Freeze: the order stays when the sort key changes.
tui_keys big / C-u Enter f
tui_screen big >"$TUI_DIR/fr.txt"
check "f freezes (footer)" grep -q 'frozen' "$TUI_DIR/fr.txt"

# Detail of the selected connection (the first row), then back (f: unfrozen first).
tui_keys big f g Enter
tui_screen big >"$TUI_DIR/detail.txt"
check "Enter opens the detail" grep -qE '^ CONNECTION #[0-9]+ ' "$TUI_DIR/detail.txt"
for w in 'retransmissions' 'RTT min / avg' 'path RTT ' 'capture->server->capture' 'loss rate' 'capture point' 'tput' 'seq ' 'stalls ' 'queues:'; do
	check "detail shows '$w'" grep -q "$w" "$TUI_DIR/detail.txt"
done
tui_keys big Enter
check "Enter again closes it" tui_wait big '^ +#' 2

# Findings: Tab focuses the pane, a line per connection and kind (the
# SACK holes' connection: one line, its count, first frame and worst);
# Enter expands the group, Down scrolls through its findings, Enter opens
# one in full (its frames and members equal the JSON report's event),
# Escape closes it, Escape again folds the group; the pane follows the '/'
# filter and, in the detail view, shows the open connection's findings only.
loglines() { # FILE: the connection ids of the findings pane's lines
	awk '/FINDINGS/{f=1; next} f {for (i = 1; i <= 5; i++) if ($i ~ /^#[0-9]+$/) {print substr($i, 2); break}}' "$1"
}
holes_id=$(python3 -c "import json; print(max(json.load(open('$TUI_DIR/all.json'))['connections'], key=lambda c: c['sack']['holes'])['id'])")
tui_keys big Tab
tui_screen big >"$TUI_DIR/log0.txt"
check "Tab focuses the findings pane" grep -q '^ > FINDINGS' "$TUI_DIR/log0.txt"
python3 - "$TUI_DIR/log0.txt" "$TUI_DIR/all.json" "$holes_id" <<'EOF' >"$TUI_DIR/groups.out"
import json, re, sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
d, hid = json.load(open(sys.argv[2])), int(sys.argv[3])
ev = [e for e in d["events"] if e["type"] == "sack_hole" and e["conn"] == hid]
g = [l for l in lines if re.search(r" #%d +\S+ sack_hole " % hid, l)]
ok = (len(g) == 1 and (" %d\u00d7 " % len(ev)) in g[0] and
      (" first [%d] " % min(e["frames"][0] for e in ev)) in g[0] and "worst: SACK hole" in g[0])
print(("PASS" if ok else "FAIL") + " one line for #%d's %d SACK holes, count and first frame: %r" %
      (hid, len(ev), g))
EOF
while read -r verdict what; do
	if [ "$verdict" = PASS ]; then t_pass "findings: $what"; else t_fail "findings: $what"; fi
done <"$TUI_DIR/groups.out"
# to that group's line, then expand it
pos=$(awk -v id="#$holes_id" '/FINDINGS/{f=1; next} f && NF {n++; if (index($0, " " id " ") && /sack_hole/) {print n; exit}}' "$TUI_DIR/log0.txt")
for _ in $(seq $((${pos:-1} - 1))); do tui_tmux send-keys -t big Down; done
tui_keys big Enter
tui_screen big >"$TUI_DIR/log1.txt"
n=$(grep -c '^  └' "$TUI_DIR/log1.txt")
check "Enter expands the group: its findings under it ($n lines)" [ "$n" -ge 5 ]
first0=$(awk '/FINDINGS/{getline; print; exit}' "$TUI_DIR/log1.txt")
tui_keys big -N 40 Down
tui_screen big >"$TUI_DIR/log2.txt"
first1=$(awk '/FINDINGS/{getline; print; exit}' "$TUI_DIR/log2.txt")
check "Down past the pane's end scrolls it" [ "$first0" != "$first1" ]
for _ in $(seq 40); do tui_tmux send-keys -t big Up; done
for _ in $(seq "${pos:-1}"); do tui_tmux send-keys -t big Down; done
for _ in $(seq 5); do tui_tmux send-keys -t big Down; done
tui_keys big Enter
tui_screen big >"$TUI_DIR/finding.txt"
check "Enter opens the finding" grep -qE '^ FINDING [0-9]+ of [0-9]+: ' "$TUI_DIR/finding.txt"
python3 - "$TUI_DIR/finding.txt" "$TUI_DIR/all.json" <<'EOF' >"$TUI_DIR/finding.out"
import json, re, sys
scr = open(sys.argv[1], encoding="utf-8").read()
d = json.load(open(sys.argv[2]))
def say(ok, what): print(("PASS " if ok else "FAIL ") + what)
m = re.search(r"FINDING \d+ of \d+: (\S+) on #(\d+)", scr)
fr = re.search(r"frames? +(\d+)(?: to (\d+))?", scr)
mem, key = {}, None
for l in scr.split("\n")[scr.split("\n").index(next(x for x in scr.split("\n") if "evidence (" in x)) + 1:]:
    if not l.startswith("    "):
        break
    if l.startswith("     "):  # a long value, wrapped
        if key:
            mem[key] += " " + l.strip()
        continue
    t = re.split(r"\s{2,}", l.strip())
    for k in range(0, len(t) - 1, 2):
        key = t[k]
        mem[key] = t[k + 1]
if not (m and fr):
    say(False, "the finding's type, connection and frames: %s" % scr[:300])
    sys.exit()
a, b = int(fr.group(1)), int(fr.group(2) or fr.group(1))
ev = [e for e in d["events"] if e["type"] == m.group(1) and e["conn"] == int(m.group(2))
      and e["frames"] == [a, b] and str(e["input"]) == mem.get("input")]
say(len(ev) == 1, "the finding is one event of the JSON report (%s #%s frames %d-%d)" %
    (m.group(1), m.group(2), a, b))
if ev:
    bad = [k for k, v in ev[0].items() if isinstance(v, (int, str)) and not isinstance(v, bool)
           and k in mem and " ".join(mem[k].split()) != " ".join(str(v).split())[:len(" ".join(mem[k].split()))]]
    say(not bad and len(mem) >= 8, "its evidence is the event's members (%d shown%s)" %
        (len(mem), ", differ: " + ", ".join(bad) if bad else ""))
EOF
while read -r verdict what; do
	if [ "$verdict" = PASS ]; then t_pass "finding: $what"; else t_fail "finding: $what"; fi
done <"$TUI_DIR/finding.out"
check "finding: both comparisons ran" [ "$(grep -c '^PASS\|^FAIL' "$TUI_DIR/finding.out")" = 2 ]
k=$(grep -oE '^ FINDING [0-9]+' "$TUI_DIR/finding.txt" | grep -oE '[0-9]+')
tui_keys big Down
check "Down in a finding: the next one" grep -qE "^ FINDING $((k + 1)) of " <(tui_screen big)
tui_keys big Escape
check "Escape closes it" grep -q '^ > FINDINGS' <(tui_screen big)
tui_keys big Escape
check "Escape again folds the group" [ "$(tui_screen big | grep -c '^  └')" = 0 ]
tui_keys big Tab / 'port 8000' Enter
tui_screen big >"$TUI_DIR/logf.txt"
ids=$(loglines "$TUI_DIR/logf.txt" | sort -u | tr '\n' ' ')
check "the pane follows the filter: one connection's findings ($ids)" [ "$(wc -w <<<"$ids")" = 1 ]
check "... and says so" grep -q 'FINDINGS (filter)' "$TUI_DIR/logf.txt"
# the detail of the connection with the SACK holes (34 of them)
tui_keys big / C-u Enter / 'port 80' Enter g Enter
tui_screen big >"$TUI_DIR/dlog.txt"
ids=$(loglines "$TUI_DIR/dlog.txt" | sort -u | tr '\n' ' ')
check "detail: the pane shows that connection's findings only ($ids, want $holes_id)" [ "$ids" = "$holes_id " ]
check "detail: ... and says so" grep -q 'FINDINGS of this connection' "$TUI_DIR/dlog.txt"
tui_keys big Escape / C-u Enter

# Widths 250 down to 80 in steps of 5: no line wider than the terminal, the
# header's lines lose whole parts from their end (never a number cut), the
# title's parts are whole, every row has every column its head has, and the
# footer's count is whole.
mkdir -p "$TUI_DIR/w"
for w in $(seq 250 -5 80); do
	resized big "$w" 50 || t_fail "widths: no redraw at $w columns"
	tui_screen big >"$TUI_DIR/w/$w"
done
tui_tmux resize-window -t big -x 200 -y 50
python3 - "$TUI_DIR/w" "$(python3 -c "import json; print(len(json.load(open('$TUI_DIR/all.json'))['connections']))")" <<'EOF' >"$TUI_DIR/widths.out"
import os, re, sys
d, nconn = sys.argv[1], int(sys.argv[2])
ref, bad = {}, []
title = re.compile(r"^ tcpsift replay \S+ \(\+ more\)  \[ended\](  t\+\d+\.\d{3} s)?(  \d+% read)?"
                   r"( +(capture (\d{4}-\d\d-\d\d )?\d\d:\d\d:\d\d UTC)?( +run \d\d:\d\d)?)? *$")
widths = sorted((int(w) for w in os.listdir(d)), reverse=True)
for w in widths:
    lines = open(os.path.join(d, str(w)), encoding="utf-8").read().split("\n")
    where = "%d cols" % w
    if any(len(l) > w for l in lines):
        bad.append(where + ": a line wider than the terminal")
    if not title.match(lines[0]):
        bad.append(where + ": title %r" % lines[0])
    for k in (1, 2):
        l = lines[k].rstrip()
        form = (k, l.startswith(" findings:"))
        r = ref.setdefault(form, l)
        if not (r.startswith(l) and (len(r) == len(l) or r[len(l)] == " ")):
            bad.append(where + ": line %d %r is not a whole-part prefix of %r" % (k + 1, l, r))
    head = next((l for l in lines if re.match(r"^ +#\S* CLIENT", l)), None)
    if not head:
        bad.append(where + ": no table head")
        continue
    body = lines[lines.index(head) + 1:]
    body = body[:next((i for i, l in enumerate(body) if "FINDINGS" in l), len(body))]
    rows = [l.split() for l in body if re.match(r"^ +\d+ ", l)]
    if len(rows) != nconn or any(len(t) != len(head.split()) for t in rows):
        bad.append(where + ": %d rows, of %s fields, head %d" %
                   (len(rows), sorted(set(len(t) for t in rows)), len(head.split())))
    foot = [l for l in lines if l.strip()][-1]
    if not re.search(r" %d/%d ?$" % (nconn, nconn), foot):
        bad.append(where + ": footer %r" % foot)
print("%d widths from %d to %d" % (len(widths), widths[-1], widths[0]))
for b in bad[:20]:
    print("BAD " + b)
EOF
check "widths: every width was compared" grep -qx '35 widths from 80 to 250' "$TUI_DIR/widths.out"
check "widths: $(head -1 "$TUI_DIR/widths.out"), all whole" [ "$(grep -c '^BAD' "$TUI_DIR/widths.out")" = 0 ]
grep '^BAD' "$TUI_DIR/widths.out" | head -5

# Help.
tui_keys big '?'
check "? shows the help" tui_wait big 'tcpsift tui: keys' 2
tui_keys big x
check "a key closes the help" tui_wait big ' FINDINGS' 2

# q: exit 0, terminal restored.
tui_keys big q
rc=$(tui_wait_exit big 10)
check "q exits 0 (got '$rc')" [ "$rc" = 0 ]
check "after q the terminal is usable" tui_terminal_sane big
check "after q a summary line is printed" tui_wait big 'tcpsift tui: ended, [0-9]+ packets' 2

# ---- 80x24, monochrome ----
tui_start small 80 24 NO_COLOR=1 -- -r samples/demo-http-loss.pcapng --max
check "80x24 replay reaches the end" tui_wait small '\[ended\]' 20
tui_screen small >"$TUI_DIR/small.txt"
tui_screen_e small >"$TUI_DIR/small.esc"
python3 - "$TUI_DIR/small.txt" <<'EOF' >"$TUI_DIR/small.out"
import sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
def say(ok, what): print(("PASS " if ok else "FAIL ") + what)
say(len(lines) >= 24 and lines[0].startswith(" tcpsift replay"), "title on line 1")
say(all(len(l) <= 80 for l in lines), "no line wider than 80")
say(not any("\x1b" in l or "\ufffd" in l for l in lines), "no escape debris")
say(any(l.split()[:3] == ["1", "10.0.2.1:40080", "10.0.1.1:80"] for l in lines if l.strip()),
    "the connection row, addresses whole")
say(any(l.split()[:3] == ["1", "10.0.2.1:40080", "10.0.1.1:80"] and
        l.split()[3:6] in (["fin", "72B", "2.00MB"], ["72B", "2.00MB", "34"])
        for l in lines if l.strip()), "ended connection: its bytes, not 0 0")
say(" hole 34 " in lines[2] and " retr 34" in lines[2], "short findings line: 34 holes, 34 retr")
say(sum(" sack_hole " in l and " 34\u00d7 first [" in l for l in lines) == 1,
    "findings pane: the 34 SACK holes on one line")
say(lines[23].startswith(" q quit"), "key help on the last line")
EOF
while read -r verdict what; do
	if [ "$verdict" = PASS ]; then t_pass "80x24: $what"; else t_fail "80x24: $what"; fi
done <"$TUI_DIR/small.out"
check "80x24: every screen check ran" [ "$(grep -c '^PASS\|^FAIL' "$TUI_DIR/small.out")" = 8 ]
if grep -qE $'\e\\[[0-9;]*3[1-7]m|\e\\[[0-9;]*38;5' "$TUI_DIR/small.esc"; then
	t_fail "NO_COLOR: colours were used"
else
	t_pass "NO_COLOR: no colours"
fi
tui_keys small Enter
tui_screen small >"$TUI_DIR/sdetail.txt"
check "80x24 detail fits (graph and stalls line)" grep -q 'seq s>c' "$TUI_DIR/sdetail.txt"
check "80x24 detail: no line wider than 80" fits 80 "$TUI_DIR/sdetail.txt"

# The help in pages on a short terminal: a key shows the next, then closes.
tui_keys small Escape '?'
check "80x24 help: a first page, saying there is more" tui_wait small '^ more: any key' 2
tui_keys small x
check "80x24 help: the next page ends the help text" tui_wait small 'Numbers are the same analyze reports' 2
tui_keys small x
check "80x24 help: then a key closes it" tui_wait small ' FINDINGS' 2

# SIGTERM: exit 0, terminal restored.
kill -TERM "$(tui_pid small)"
rc=$(tui_wait_exit small 10)
check "SIGTERM exits 0 (got '$rc')" [ "$rc" = 0 ]
check "after SIGTERM the terminal is usable" tui_terminal_sane small

# ---- 10000 SACK holes: one findings line; aligned columns at any width ----
# tests/tui/holes.py writes a transfer with 10000 SACK holes (the 5000th of
# two segments, the worst); its row's HOLE has 5 digits.
wait "$holes_job" || t_fail "holes: writing the capture failed"
"$bin" analyze --json --no-progress "$TUI_DIR/holes.pcap" samples/demo-http-loss.pcapng \
	samples/reorder-relay.pcap >"$TUI_DIR/holes.json" 2>/dev/null
tui_start holes 80 24 -- -r "$TUI_DIR/holes.pcap" -r samples/demo-http-loss.pcapng \
	-r samples/reorder-relay.pcap --max
check "10000 holes: the replay ends" tui_wait holes '\[ended\]' 60
for w in 80 100 132 200; do
	resized holes "$w" 24 || t_fail "holes: no redraw at $w columns"
	tui_screen holes >"$TUI_DIR/holes.$w"
done
python3 - "$TUI_DIR" "$TUI_DIR/holes.json" <<'EOF' >"$TUI_DIR/holes.out"
import json, os, re, sys
d = json.load(open(sys.argv[2]))
def say(ok, what): print(("PASS " if ok else "FAIL ") + what)
ev = [e for e in d["events"] if e["type"] == "sack_hole" and e["conn"] == 1]
for w in (80, 100, 132, 200):
    lines = open(os.path.join(sys.argv[1], "holes.%d" % w), encoding="utf-8").read().split("\n")
    head = next((l for l in lines if re.match(r"^ +#\S* CLIENT", l)), "")
    heads = [re.sub("[▼▲]$", "", h) for h in head.split()]
    rows = [l for l in lines[lines.index(head) + 1:] if re.match(r"^ +\d+ ", l)] if head else []
    say(len(lines) >= 24 and all(len(l) <= w for l in lines), "%d cols: no line wider" % w)
    say("LIMIT" in heads and "HOLE" in heads if w >= 100 else "LIMIT" in heads,
        "%d cols: LIMIT in the head %s" % (w, heads))
    # every column's values end (right-aligned) or start (CLIENT, SERVER,
    # ST, left-aligned) where its head (with the sort arrow) does, on every row
    spans = [(m.start(), m.end()) for m in re.finditer(r"\S+", head)]
    bad = []
    for r in rows:
        toks = [(m.start(), m.end()) for m in re.finditer(r"\S+", r)]
        if len(toks) != len(spans):
            bad.append(r)
            continue
        for (hs, he), (ts, te), h in zip(spans, toks, heads):
            if (ts != hs if h in ("CLIENT", "SERVER", "ST") else te != he):
                bad.append("%s: %r" % (h, r))
    say(len(rows) == 3 and not bad, "%d cols: 3 rows, every column aligned with its head %s" %
        (w, bad[:2]))
    if w == 200:
        say(any(r.split()[heads.index("HOLE")] == "10000" for r in rows if "HOLE" in heads),
            "200 cols: HOLE 10000")
    g = [l for l in lines if " #1 " in l and " sack_hole " in l]
    say(len(g) == 1 and " 10000\u00d7 first [%d] " % min(e["frames"][0] for e in ev) in g[0]
        and "worst: SACK hole 2000 B" in g[0],
        "%d cols: one line for #1's %d SACK holes, count, first frame, worst 2000 B %r" %
        (w, len(ev), g))
EOF
while read -r verdict what; do
	if [ "$verdict" = PASS ]; then t_pass "holes: $what"; else t_fail "holes: $what"; fi
done <"$TUI_DIR/holes.out"
check "holes: every check ran" [ "$(grep -c '^PASS\|^FAIL' "$TUI_DIR/holes.out")" = 17 ]
# Expanded: the group's findings under it, the log's last 512 of them.
tui_tmux resize-window -t holes -x 100 -y 40
tui_keys holes Tab
pos=$(tui_screen holes | awk '/FINDINGS/{f=1; next} f && NF {n++; if (index($0, " #1 ") && /sack_hole/) {print n; exit}}')
for _ in $(seq $((${pos:-1} - 1))); do tui_tmux send-keys -t holes Down; done
tui_keys holes Right
tui_screen holes >"$TUI_DIR/holes.exp"
n=$(grep -cE '^  └ .* #1 +s>c \[[0-9]+-[0-9]+\] SACK hole' "$TUI_DIR/holes.exp")
check "holes: Right lists the group's findings ($n on screen)" [ "$n" -ge 10 ]
tui_keys holes Down Enter G
# (the log's last 512 findings hold the other connections' too)
check "holes: in a finding, G goes to the group's last (N of N, N > 400)" grep -qE '^ FINDING (4[0-9][0-9]|50[0-9]|51[0-2]) of \1: sack_hole on #1' <(tui_screen holes)
tui_keys holes Escape Left
check "holes: Left folds it" [ "$(tui_screen holes | grep -c '^  └')" = 0 ]

# The sort menu: F6 lists the columns, the current one marked; Down to
# RETR and Enter sorts by it (most first); Escape leaves the order.
tui_keys holes Tab F6
tui_screen holes >"$TUI_DIR/menu.txt"
check "F6 opens the sort menu" grep -q '^ SORT BY' "$TUI_DIR/menu.txt"
check "... the current column marked" grep -qE '^ \* # ▲' "$TUI_DIR/menu.txt"
nretr=$(awk '/^ SORT BY/{f=1; next} f {n++; if ($1 == "RETR" || $2 == "RETR") {print n; exit}}' "$TUI_DIR/menu.txt")
for _ in $(seq $((${nretr:-1} - 1))); do tui_tmux send-keys -t holes Down; done
tui_keys holes Enter
tui_screen holes >"$TUI_DIR/menu2.txt"
check "Enter in the menu sorts by RETR" grep -q 'RETR▼' "$TUI_DIR/menu2.txt"
order=$(awk '/^ +#.* CLIENT/{for (i = 1; i <= NF; i++) if ($i ~ /^RETR/) c = i; f = 1; next} / FINDINGS/{f=0} f && $1 ~ /^[0-9]+$/ {print $1}' "$TUI_DIR/menu2.txt" | tr '\n' ' ')
check "... most retransmissions first (ids $order)" [ "$order" = "1 2 3 " ]
tui_keys holes o Down
tui_keys holes Escape
check "o opens it too, Escape leaves the order" grep -q 'RETR▼' <(tui_screen holes)
tui_keys holes o r Escape
tui_screen holes >"$TUI_DIR/menu3.txt"
check "r in the menu reverses" grep -q 'RETR▲' "$TUI_DIR/menu3.txt"
order=$(awk '/^ +#.* CLIENT/{f = 1; next} / FINDINGS/{f=0} f && $1 ~ /^[0-9]+$/ {print $1}' "$TUI_DIR/menu3.txt" | tr '\n' ' ')
check "... fewest retransmissions first (ids $order)" [ "$order" = "3 2 1 " ]
tui_keys holes q
tui_wait_exit holes 10 >/dev/null

# Negative control: a clean capture has no findings group.
tui_start clean 80 24 -- -r samples/ipv6-bulk.pcap --max
check "clean: the replay ends" tui_wait clean '\[ended\]' 20
tui_screen clean >"$TUI_DIR/clean.txt"
check "clean: no findings group" grep -q 'FINDINGS by connection and kind, newest first (0 groups, 0 found)' "$TUI_DIR/clean.txt"
check "clean: ... and says so" grep -q '^  no findings' "$TUI_DIR/clean.txt"
check "clean: no group line" [ "$(grep -cE '^ (▸|▾)' "$TUI_DIR/clean.txt")" = 0 ]
tui_keys clean q
tui_wait_exit clean 10 >/dev/null

# ---- paused replay, stepping; resize ----
tui_start step 100 30 -- -r samples/rr-nagle-delack.pcap --paused
check "--paused starts paused" tui_wait step '\[paused\]' 5
check "paused: no packet played" tui_wait step '^ 0 pkts' 2
tui_keys step n n n n n
check "n steps one packet at a time (5)" tui_wait step '^ 5 pkts' 3
resized step 60 20 || t_fail "step: no redraw at 60x20"
tui_screen step >"$TUI_DIR/resized.txt"
check "resize to 60x20 redraws to fit" fits 60 "$TUI_DIR/resized.txt"
check "resized: the title is still on line 1" grep -q '^ tcpsift replay' "$TUI_DIR/resized.txt"
tui_keys step p
check "p resumes: the replay plays to the end at 1x" tui_wait step '\[ended\]' 15
tui_keys step q
rc=$(tui_wait_exit step 10)
check "exit 0 after a resize (got '$rc')" [ "$rc" = 0 ]

# ---- seek: ] and [ jump 10 s of capture time, the model kept consistent ----
# A made-up capture: one connection sending a segment (and getting its ACK)
# every second for 40 s. Paused at the start, ] plays up to 10 s after the
# first packet, ] again to 20 s; [ goes back to 10 s by replaying from the
# start into a fresh model: the packet counts and the row's packets are
# exactly those of the packets before each target, and it stays paused.
for y in 2023 2011; do
python3 - "$TUI_DIR/long$y.pcap" "$y" <<'EOF'
import struct, sys
def csum(b):
    if len(b) % 2: b += b"\0"
    s = sum(struct.unpack("!%dH" % (len(b) // 2), b))
    while s >> 16: s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff
def pkt(src, dst, sp, dp, seq, ack, flags, data=b""):
    tcp = struct.pack("!HHIIBBHHH", sp, dp, seq, ack, 5 << 4, flags, 65535, 0, 0) + data
    ph = bytes(src) + bytes(dst) + struct.pack("!BBH", 0, 6, len(tcp))
    tcp = tcp[:16] + struct.pack("!H", csum(ph + tcp)) + tcp[18:]
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(tcp), 0, 0x4000, 64, 6, 0, bytes(src), bytes(dst))
    ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
    return ip + tcp
c, s = [10, 9, 0, 1], [10, 9, 0, 2]
t0 = 1700000000.0 if sys.argv[2] == "2023" else 1300000000.0
out = [(t0, pkt(c, s, 40000, 80, 100, 0, 0x02)), (t0 + 0.001, pkt(s, c, 80, 40000, 500, 101, 0x12)),
       (t0 + 0.002, pkt(c, s, 40000, 80, 101, 501, 0x10))]
for k in range(40):
    t = t0 + 0.5 + k
    out.append((t, pkt(c, s, 40000, 80, 101 + 100 * k, 501, 0x18, b"x" * 100)))
    out.append((t + 0.001, pkt(s, c, 80, 40000, 501, 201 + 100 * k, 0x10)))
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 101))  # raw IP
    for t, p in out:
        f.write(struct.pack("<IIII", int(t), int(round((t - int(t)) * 1e6)), len(p), len(p)) + p)
EOF
done
cp "$TUI_DIR/long2023.pcap" "$TUI_DIR/long.pcap"
# packets before t0 + 10 s: 3 + 2 per second from 0.5 s on
# Under make check's parallel load (ASan, three suites on two cores) two
# of these screens once took more than 5 s to come: they may take 15.
tui_start seek 120 24 -- -r "$TUI_DIR/long.pcap" --paused
check "seek: starts paused" tui_wait seek '\[paused\]' 15
tui_keys seek ']'
check "] plays the first 10 s (23 packets), still paused" tui_wait seek '^ 23 pkts' 15
check "... paused" grep -q '\[paused\]' <(tui_screen seek)
tui_keys seek ']'
check "] again: 20 s (43 packets)" tui_wait seek '^ 43 pkts' 15
tui_keys seek '['
check "[ goes back to 10 s: a fresh model (23 packets)" tui_wait seek '^ 23 pkts' 15
check "[ ... its row counts 23 packets too" grep -qE '^ +1 10\.9\.0\.1:40000 +10\.9\.0\.2:80 +open +1\.00kB +0B +23 ' <(tui_screen seek)
check "[ ... and 1 connection" grep -q 'conns 1 (1 live)' <(tui_screen seek)
tui_keys seek ']' ']' ']' ']'
check "] past the end: the replay ends with analyze's 83 packets" tui_wait seek '^ 83 pkts .*conns 1 \(0 live\)' 15
tui_keys seek '['
check "[ from the end: 10 s before the last packet (62 packets)" tui_wait seek '^ 62 pkts' 15
tui_keys seek q
check "seek: exit 0" [ "$(tui_wait_exit seek 10)" = 0 ]

# Merged captures 12 years apart: times count from each input's first
# packet (t+39.501 s at the end, not t+400000000).
tui_start years 120 24 -- -r "$TUI_DIR/long2011.pcap" -r "$TUI_DIR/long2023.pcap" --max
check "merged inputs of 2011 and 2023: t+ from the input's own start" tui_wait years '\[ended\]  t\+39\.501 s' 10
tui_keys years q
tui_wait_exit years 5 >/dev/null

# ---- a monkey: 600 random keys, clicks and resizes, under whatever build this is ----
# (w and P write their files into a scratch directory: the inputs by absolute path)
mkdir -p "$TUI_DIR/monkey-out"
TUI_PREFIX="cd $TUI_DIR/monkey-out &&" tui_start monkey 100 30 -- -r "$R/samples/demo-http-loss.pcapng" \
	-r "$R/samples/reorder-relay.pcap" -r "$R/samples/rr-nagle-delack.pcap" --speed 4
keys=(j k Up Down PgUp PgDown Home End g G Enter Escape s S f / p n + - '?' x 1 ' ' BSpace
	'<' '>' t Tab BTab c w P '[' ']' C-u Left Right click click)
RANDOM=7 # the same sequence every run
for i in $(seq 600); do
	k=${keys[RANDOM % ${#keys[@]}]}
	if [ "$k" = / ]; then
		tui_tmux send-keys -t monkey / "port $((RANDOM % 9000))" Enter
	elif [ "$k" = click ]; then
		y=$((1 + RANDOM % 30)) x=$((1 + RANDOM % 100))
		tui_tmux send-keys -t monkey -l $'\e'"[<0;$x;${y}M"$'\e'"[<0;$x;${y}m"
	else
		tui_tmux send-keys -t monkey "$k"
	fi
	if [ $((i % 97)) -eq 0 ]; then
		tui_tmux resize-window -t monkey -x $((40 + RANDOM % 180)) -y $((8 + RANDOM % 50))
	fi
	[ $((i % 50)) -eq 0 ] && sleep 0.05
done
tui_tmux resize-window -t monkey -x 100 -y 30
tui_keys monkey Escape Escape q
rc=$(tui_wait_exit monkey 10 || true)
if [ -z "$rc" ]; then # a '?' or the filter prompt may have taken the q
	tui_keys monkey Escape x q
	rc=$(tui_wait_exit monkey 5 || true)
fi
check "600 random keys and resizes: exit 0 (got '$rc')" [ "$rc" = 0 ]
check "after the monkey the terminal is usable" tui_terminal_sane monkey

# ---- w, c and P on a connection ----
# w writes the selected connection's packets to tcpsift-conn-ID.pcapng in
# the current directory: analyze of that file finds one connection with the
# packets and bytes `analyze --conn ID` counts on the inputs; c puts its
# tshark filter on the terminal's clipboard (OSC 52: tmux keeps it as a
# buffer) and on the status line; P writes its graphs.
wfiles=("$R/samples/demo-http-loss.pcapng" "$R/samples/reorder-relay.pcap" "$R/samples/two-ifaces.pcapng")
mkdir -p "$TUI_DIR/out"
TUI_PREFIX="cd $TUI_DIR/out &&" tui_start act 140 30 -- -r "${wfiles[0]}" -r "${wfiles[1]}" \
	-r "${wfiles[2]}" --max
tui_tmux set -g set-clipboard on
check "w/c/P replay reaches the end" tui_wait act '\[ended\]' 20
select_row() { # SESSION N: select the Nth row (first, then N-1 down; the next tui_keys settles)
	tui_tmux send-keys -t "$1" g
	for _ in $(seq $(($2 - 1))); do tui_tmux send-keys -t "$1" j; done
}
nw=0
for id in 1 2 3 4; do
	select_row act "$id"
	tui_keys act w
	if ! tui_wait act "wrote [0-9]+ packets of #$id to tcpsift-conn-$id.pcapng" 10; then
		t_fail "w on #$id: $(tui_screen act | tail -2 | head -1)"
		continue
	fi
	"$bin" analyze --json --no-progress "$TUI_DIR/out/tcpsift-conn-$id.pcapng" >"$TUI_DIR/w$id.json" 2>/dev/null
	"$bin" analyze --json --no-progress --conn "$id" "${wfiles[@]}" >"$TUI_DIR/c$id.json" 2>/dev/null
	if out=$(python3 - "$TUI_DIR/w$id.json" "$TUI_DIR/c$id.json" "$id" <<'EOF'
import json, sys
w, c = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
cc = [x for x in c["connections"] if x["id"] == int(sys.argv[3])]
key = lambda x: [x[d][k] for d in ("c2s", "s2c") for k in ("packets", "payload_bytes")]
ok = len(w["connections"]) == 1 and len(cc) == 1 and key(w["connections"][0]) == key(cc[0]) \
    and w["summary"]["packets"] == sum(key(cc[0])[0::2])
print("%s packets/bytes each way %s, analyze --conn %s" % ("=" if ok else "!=",
      [key(x) for x in w["connections"]], [key(x) for x in cc]))
sys.exit(not ok)
EOF
	); then
		nw=$((nw + 1))
	else
		t_fail "w on #$id: the file $out"
	fi
done
check "w: the file of each of 4 connections has analyze --conn's packets ($nw)" [ "$nw" = 4 ]
# c: the filter is the long form's (analyze --conn ID: one builder,
# rep_tshark_filter), on each connection: one spanning a file (frame span),
# two seen at two interfaces (interface name), one at an unnamed one.
nc=0
for id in 1 2 3 4; do
	select_row act "$id"
	tui_keys act c
	want=$("$bin" analyze --no-progress --conn "$id" "${wfiles[@]}" 2>/dev/null |
		sed -n "s/^  tshark -r '[^']*' -Y '\(.*\)'\$/\1/p" | head -1)
	got=$(tui_tmux show-buffer 2>/dev/null)
	if [ -n "$want" ] && [ "$got" = "$want" ] &&
		tui_screen act | grep -qF "copied: ${want:0:60}"; then
		nc=$((nc + 1))
	else
		t_fail "c on #$id: copied '$got', the long form's filter '$want'"
	fi
done
check "c: the copied filter of each of 4 connections is analyze --conn's (status line, OSC 52) ($nc)" [ "$nc" = 4 ]

# P: the selected connection's graphs, by a child tcpsift analyze --conn ID
# --plot into tcpsift-conn-ID-graphs/ (the UI goes on meanwhile): the same
# SVG files, byte for byte, as that command writes from the same inputs.
same_svgs() { # DIR DIR: the same non-empty list of SVG files, equal bytes
	local a b f
	a=$(cd "$1" && ls -- *.svg 2>/dev/null) b=$(cd "$2" && ls -- *.svg 2>/dev/null)
	[ -n "$a" ] && [ "$a" = "$b" ] || return 1
	for f in $a; do cmp -s "$1/$f" "$2/$f" || return 1; done
}
np=0
for id in 1 2 4; do
	select_row act "$id"
	tui_keys act P
	if ! tui_wait act "[0-9]+ graphs of #$id: tcpsift-conn-$id-graphs/index\.html" 30; then
		t_fail "P on #$id: $(tui_screen act | tail -2 | head -1)"
		continue
	fi
	"$bin" analyze --no-progress --conn "$id" --plot "$TUI_DIR/plot$id" "${wfiles[@]}" >/dev/null 2>&1
	n=$(tui_screen act | sed -n 's/.* \([0-9]*\) graphs of #.*/\1/p' | tail -1)
	if same_svgs "$TUI_DIR/plot$id" "$TUI_DIR/out/tcpsift-conn-$id-graphs" &&
		[ "$n" = "$(ls "$TUI_DIR/plot$id"/*.svg | wc -l)" ] &&
		[ -s "$TUI_DIR/out/tcpsift-conn-$id-graphs/index.html" ]; then
		np=$((np + 1))
	else
		t_fail "P on #$id: $(ls "$TUI_DIR/out/tcpsift-conn-$id-graphs" | tr '\n' ' ') vs analyze --plot's $(ls "$TUI_DIR/plot$id" | tr '\n' ' ') ($n on the status line)"
	fi
done
check "P: the graphs of each of 3 connections are analyze --conn ID --plot's, byte for byte ($np)" [ "$np" = 3 ]
tui_keys act P
check "P again: a new directory, the first one kept" tui_wait act 'graphs of #4: tcpsift-conn-4-2-graphs/index\.html' 30
tui_keys act q
check "w/c/P: exit 0" [ "$(tui_wait_exit act 10)" = 0 ]

# ---- a terminal curses cannot drive: one line, exit 2, no curses exit() ----
tui_start badterm 80 24 TERM=bogus-term -- -r samples/nanosec.pcap
rc=$(tui_wait_exit badterm 5 || true)
check "unknown TERM: exit 2 (got '$rc')" [ "$rc" = 2 ]
check "unknown TERM: one clear line" tui_wait badterm "^tcpsift tui: cannot drive terminal type 'bogus-term'" 2

# ---- a capture that is not one ----
tui_start bad 80 24 -- -r samples/truncated.pcap --max
check "truncated capture: the error is on screen" tui_wait bad 'error: .*truncated' 10
tui_keys bad q
rc=$(tui_wait_exit bad 5)
check "truncated capture: exit 3 after the screen (got '$rc')" [ "$rc" = 3 ]
check "truncated capture: the reason is printed" tui_wait bad 'tcpsift tui: samples/truncated.pcap' 2

# ---- live w and P, on loopback: the packets come from the -w file ----
# Started as root without -Z, the dashboard runs as tcpdump once the sockets
# are open and creates the -w file as that user (as tcpdump -Z and tcpsift
# capture -w do), so it can read it back: w writes the connection's packets
# (each way, analyze --conn 1 --json of the -w file's count) and P its
# graphs (analyze --conn 1 --plot of the -w file's SVGs), and c copies the
# filter analyze --conn 1 prints for the -w file (the live frame numbers are
# the file's). A second dashboard without -w says why it has no graphs.
peer="$(dirname "$bin")/tests/tools/lab-peer"
if [ "$(id -u)" -eq 0 ] && [ -x "$peer" ]; then
	mkdir -p "$TUI_DIR/lw"
	# the user it becomes must reach and write the directory
	chmod 711 "$TUI_DIR"
	chmod 1777 "$TUI_DIR/lw"
	duser=$(getent passwd tcpdump | cut -d: -f1)
	[ -n "$duser" ] || duser=root # no such user: it stays root (and warns)
	port=$((20000 + $$ % 20000))
	# -B 4: plenty for 2 MB; the default ring (256 MiB, tests/tui/live.sh
	# has it) took over a second to set up here when the VM's memory was
	# touched for the first time (0.1 s once it had been)
	TUI_PREFIX="cd $TUI_DIR/lw &&" tui_start lw 140 30 -- -i lo -B 4 -w "$TUI_DIR/lw/live.pcapng" \
		tcp port $port
	TUI_PREFIX="cd $TUI_DIR/lw &&" tui_start lwn 140 30 -- -i lo -B 4 tcp port $port
	tui_wait lw '\[capturing\]' 10
	tui_wait lwn '\[capturing\]' 10
	check "live -w: the file is created as the user the dashboard runs as ($duser)" \
		[ "$(stat -c %U "$TUI_DIR/lw/live.pcapng" 2>/dev/null)" = "$duser" ]
	timeout 15 "$peer" server --timeout 10 -l "127.0.0.1:$port" -m download -n 2M \
		--pacing-rate 4M 2>/dev/null &
	spid=$!
	for _ in $(seq 100); do # until it listens
		[ -n "$(ss -Hltn "sport = :$port")" ] && break
		sleep 0.05
	done
	timeout 15 "$peer" client --timeout 10 -c "127.0.0.1:$port" -m download -n 2M 2>/dev/null
	wait $spid
	# the transfer's row on both (fin, idle ~3 s after its last packet)
	tui_wait lw '^ +1 127\.0\.0\.1:[0-9]+ +127\.0\.0\.1:'"$port"' +(fin|idle) ' 5
	tui_wait lwn '^ +1 127\.0\.0\.1:[0-9]+ +127\.0\.0\.1:'"$port"' +(fin|idle) ' 5
	# A live screen never holds still (its clock): keys are sent without
	# tui_keys' settling (4 s each here) and their answers waited for.
	tui_tmux send-keys -t lw g w
	check "live w (runs as $duser): written from the -w file" tui_wait lw 'wrote [0-9]+ packets of #1 to tcpsift-conn-1.pcapng' 5
	tui_tmux send-keys -t lw P
	check "live P: the graphs from the -w file" tui_wait lw '[0-9]+ graphs of #1: tcpsift-conn-1-graphs/index\.html' 30
	tui_tmux send-keys -t lw c
	tui_wait lw 'copied: ' 5 # (the buffer is set before the status line is drawn)
	lwc=$(tui_tmux show-buffer 2>/dev/null)
	tui_tmux send-keys -t lwn g P
	check "live P without -w: says why there are no graphs" tui_wait lwn 'P: no graphs: a live capture keeps no packets in memory' 3
	tui_tmux send-keys -t lw q
	tui_tmux send-keys -t lwn q
	tui_wait_exit lw 10 >/dev/null
	tui_wait_exit lwn 10 >/dev/null
	"$bin" analyze --json --no-progress "$TUI_DIR/lw/tcpsift-conn-1.pcapng" >"$TUI_DIR/lw1.json" 2>/dev/null
	"$bin" analyze --json --no-progress --conn 1 "$TUI_DIR/lw/live.pcapng" >"$TUI_DIR/lwc.json" 2>/dev/null
	pk() { python3 -c "import json,sys; print([(c['c2s']['packets'], c['s2c']['packets']) for c in json.load(open(sys.argv[1]))['connections'] if c['id'] == 1])" "$1"; }
	a=$(pk "$TUI_DIR/lw1.json") b=$(pk "$TUI_DIR/lwc.json")
	check "live w: the file's packets each way $a = analyze --conn 1 of the -w file $b" [ "$a" = "$b" -a "$a" != "[]" ]
	"$bin" analyze --no-progress --conn 1 --plot "$TUI_DIR/lwplot" "$TUI_DIR/lw/live.pcapng" >/dev/null 2>&1
	check "live P: the SVGs are analyze --conn 1 --plot's of the -w file" \
		same_svgs "$TUI_DIR/lwplot" "$TUI_DIR/lw/tcpsift-conn-1-graphs"
	want=$("$bin" analyze --no-progress --conn 1 "$TUI_DIR/lw/live.pcapng" 2>/dev/null |
		sed -n "s/^  tshark -r '[^']*' -Y '\(.*\)'\$/\1/p")
	check "live c: the filter is the long form's of the -w file (its frame numbers)" \
		[ -n "$want" -a "$lwc" = "$want" ]
	chmod 700 "$TUI_DIR"
else
	t_skip "live w and P: needs root and lab-peer"
fi

# ---- live, in a namespace ----
if [ "$(id -u)" -eq 0 ] && ip netns list >/dev/null 2>&1; then
	peer="$(dirname "$bin")/tests/tools/lab-peer"
	out=$(timeout -k 5 60 tests/tui/live.sh "$bin" "$peer" 2>"$TUI_DIR/live.err")
	rc=$?
	case $rc in
	0) t_pass "live: $out" ;;
	77) t_skip "live: $out" ;;
	*) t_fail "live: $out $(tail -n 5 "$TUI_DIR/live.err")" ;;
	esac
	out=$(timeout -k 5 60 tests/tui/live-drops.sh "$bin" "$peer" 2>"$TUI_DIR/live-drops.err")
	rc=$?
	case $rc in
	0) t_pass "live drops: $out" ;;
	77) t_skip "live drops: $out" ;;
	*) t_fail "live drops: $out $(tail -n 5 "$TUI_DIR/live-drops.err")" ;;
	esac
else
	t_skip "live: needs root and ip netns"
fi
t_done
