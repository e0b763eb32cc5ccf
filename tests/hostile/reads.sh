#!/usr/bin/env bash
# hostile/reads.sh TCPSIFT - reading under hostile conditions (issue 13):
# SIGINT/SIGTERM end every wait for input within 1 s with the partial report
# and exit 3; a cut compressed file keeps every packet that decoded (as many
# as capinfos/tshark count in what gzip/xz/bzip2 -dc give back) with one
# line saying where it ended; unreadable, empty and cut inputs among several
# are named in the report's errors and the rest analysed; --json is always
# one valid document. Every file is generated here from samples/.
set -uo pipefail
cd "$(dirname "$0")/../.."
T_SUITE=hostile-reads
. tests/lib.sh
bin=${1:?usage: reads.sh TCPSIFT}
tmp=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$tmp"' EXIT
src=samples/demo-http-loss.pcapng
have() { command -v "$1" >/dev/null; }

# jq-free look into a report: python3 -c with the document on stdin.
pyq() { python3 -c "import json,sys; d=json.load(sys.stdin); $1"; }
# The errors of a --json document or an --ndjson stream's summary line.
errs() {
	python3 -c '
import json, sys
t = open(sys.argv[1]).read()
try:
    d = json.loads(t)
except ValueError:
    d = [json.loads(l) for l in t.splitlines() if l.strip()][-1]
    assert d["kind"] == "summary"
print(" ".join("%s:%s" % (e["reason"], e["path"]) for e in d["errors"]))
print(d["summary"]["packets"] if "summary" in d else d["packets"])' "$1"
}
# valid FILE: one valid document (or NDJSON stream) of the schema (only
# well-formed JSON without python3-jsonschema; asked once, not per file).
python3 -c 'import jsonschema' 2>/dev/null && have_schema=1 || have_schema=""
valid() {
	if [ -n "$have_schema" ]; then
		python3 scripts/schema.py validate "$1" >/dev/null 2>&1
		return
	fi
	python3 -c 'import json,sys; t=open(sys.argv[1]).read()
try: json.loads(t)
except ValueError: [json.loads(l) for l in t.splitlines() if l.strip()]' "$1" 2>/dev/null
}
now_ms() { date +%s%3N; }

# --- every wait can be interrupted -------------------------------------------
# interrupt NAME SIG WANT_PACKETS FORMAT -- the analyze command line, with
# its input set up by the caller (a writer already started). Waits 1 s (the
# sanitizer build starts slowly), sends SIG, wants the report written within
# 1 s and exit 3 (within 5 s), one valid report whose errors end with
# "interrupted", and packets > 0 when WANT_PACKETS is 1.
interrupt() {
	local name=$1 sig=$2 want=$3 fmt=$4 f=()
	shift 5
	[ "$fmt" = --text ] || f=("$fmt")
	"$@" "${f[@]}" <"${IN:-/dev/null}" >"$tmp/out" 2>"$tmp/err" &
	local pid=$! t0 t1 rc dog
	sleep 1
	t0=$(now_ms)
	kill -"$sig" "$pid"
	# wait(1) returns when it exits; a watchdog gives up (and fails) after
	# 5 s rather than hang the suite. Not a loop of sleeps: their forks and
	# 100 ms steps were a third of the second on a loaded host.
	(exec >/dev/null 2>&1; sleep 5; kill -KILL "$pid") &
	dog=$!
	wait "$pid"
	rc=$?
	if ! kill "$dog" 2>/dev/null; then
		t_fail "$name $sig: still running 5 s after the signal"
		return
	fi
	# The promise is the report within 1 s: timed to its last write (the
	# files' times, stamped by the kernel), not to the end of a sanitizer's
	# exit or to when this shell is next scheduled.
	t1=$(stat -c %.3Y "$tmp/out" "$tmp/err" | sort -n | tail -1 | tr -d .)
	local ms=$((t1 - t0)) e p
	((ms >= 0)) || ms=0 # file times are the coarse clock's: up to a tick behind
	if [ "$rc" -ne 3 ]; then
		t_fail "$name $sig: exit $rc, want 3 ($(head -c 300 "$tmp/err"))"
		return
	fi
	[ "$ms" -le 1000 ] || { t_fail "$name $sig: report written $ms ms after the signal (> 1 s)"; return; }
	if [ "$fmt" = --text ]; then
		grep -q "interrupted by SIG$sig" "$tmp/out" &&
			t_pass "$name $sig: report in $ms ms, exit 3, text report" ||
			t_fail "$name $sig: the text report does not say it was interrupted"
		return
	fi
	valid "$tmp/out" || { t_fail "$name $sig: the report is not valid ($(head -c 200 "$tmp/out"))"; return; }
	{ read -r e; read -r p; } < <(errs "$tmp/out")
	case "$e" in *interrupted:None) ;; *)
		t_fail "$name $sig: errors '$e' do not end with the interruption"; return ;;
	esac
	if [ "$want" = 1 ] && [ "$p" -eq 0 ]; then
		t_fail "$name $sig: no packets in the partial report"
		return
	fi
	grep -q "interrupted by SIG$sig" "$tmp/err" ||
		{ t_fail "$name $sig: stderr does not say it was interrupted"; return; }
	t_pass "$name $sig: report in $ms ms, exit 3, $p packets, errors: $e"
}

# A writer: the first BYTES of FILE, then silence (exec: $! is the sleep).
quiet_writer() { # BYTES FILE
	head -c "$1" "$2"
	exec sleep 30
}
# Run `interrupt ...` with standard input a pipe from `quiet_writer BYTES FILE`.
with_pipe() { # BYTES FILE interrupt-args...
	local bytes=$1 file=$2
	shift 2
	exec 3< <(quiet_writer "$bytes" "$file")
	local w=$!
	IN=/dev/fd/3 interrupt "$@"
	exec 3<&-
	kill "$w" 2>/dev/null
}

for sig in TERM INT; do
	# stdin: a pipe with nothing ever written
	with_pipe 0 /dev/null "quiet stdin" $sig 0 --json -- "$bin" analyze --no-progress -
	# stdin: a pipe that sends part of a capture, then nothing
	with_pipe 100000 "$src" "stdin that stops" $sig 1 --ndjson -- \
		"$bin" analyze --no-progress -
	# a pipe by name (/dev/fd/N), quiet
	exec 4< <(exec sleep 30)
	pids+=($!)
	interrupt "quiet pipe by name" $sig 0 --json -- "$bin" analyze --no-progress /dev/fd/4
	exec 4<&-
	# a FIFO with no writer: open(2) must not block
	rm -f "$tmp/fifo"
	mkfifo "$tmp/fifo"
	interrupt "FIFO without a writer" $sig 0 --json -- "$bin" analyze --no-progress "$tmp/fifo"
	# a FIFO whose writer stops writing; the text report this time
	rm -f "$tmp/fifo"
	mkfifo "$tmp/fifo"
	quiet_writer 100000 "$src" >"$tmp/fifo" &
	pids+=($!)
	interrupt "FIFO whose writer stops" $sig 1 --text -- "$bin" analyze --no-progress \
		"$tmp/fifo"
	kill "${pids[-1]}" 2>/dev/null
	# gzip through a pipe that stops mid-stream: the decoder's wait too
	if have gzip; then
		gzip -c "$src" >"$tmp/src.gz"
		with_pipe 30000 "$tmp/src.gz" "gzip stdin that stops" $sig 1 --json -- \
			"$bin" analyze --no-progress -
	fi
	# a file and a FIFO without a writer: merged by time, nothing can be
	# handed out before the FIFO's first packet; the report names both
	rm -f "$tmp/fifo"
	mkfifo "$tmp/fifo"
	interrupt "file + FIFO without a writer" $sig 0 --json -- "$bin" analyze --no-progress \
		--threads 2 "$src" "$tmp/fifo"
done

# Live libtrace URIs and libtrace on a FIFO: refused, exit 2, one line.
for uri in int:lo ring:lo pcapint:lo dpdk:0000:00:00.0 rt:localhost "erf:$tmp/fifo"; do
	out=$("$bin" analyze --json "$uri" 2>"$tmp/err" </dev/null)
	rc=$?
	if [ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ -z "$out" ] &&
		{ [[ $uri == erf:* ]] || grep -q "tcpsift capture" "$tmp/err"; }; then
		t_pass "$uri refused: $(cat "$tmp/err")"
	else
		t_fail "$uri: exit $rc, stderr '$(cat "$tmp/err")'"
	fi
done

# --- nothing lost silently: cut compressed files ----------------------------
# count FILE: packets capinfos (else tshark) reads in FILE, "" if it cannot.
count() {
	if have capinfos; then
		capinfos -c -M "$1" 2>/dev/null | awk -F: '/Number of packets/ {gsub(/ /, "", $2); print $2}'
	elif have tshark; then
		tshark -r "$1" 2>/dev/null | wc -l
	fi
}
full=$(count "$src")
[ -n "$full" ] || full=2148
for z in gzip xz bzip2; do
	have $z || { t_skip "$z not installed"; continue; }
	$z -c "$src" >"$tmp/c.$z"
	size=$(stat -c %s "$tmp/c.$z")
	for frac in 1 2 9; do # cut at 1/10, 2/10 and 9/10 of the compressed bytes
		cut=$tmp/cut$frac.$z
		head -c $((size * frac / 10)) "$tmp/c.$z" >"$cut"
		# the reference: what the tool decodes of the cut file, read by capinfos
		$z -dc "$cut" >"$tmp/prefix" 2>/dev/null
		want=$(count "$tmp/prefix")
		[ -n "$want" ] || want=0
		# capinfos reads cut .gz itself: it must agree too
		if [ $z = gzip ] && have capinfos; then
			direct=$(count "$cut")
			[ -n "$direct" ] && [ "$direct" != "$want" ] &&
				t_fail "$z cut $frac/10: capinfos reads $direct of the .gz, $want of gzip -dc"
		fi
		"$bin" analyze --json --no-progress "$cut" >"$tmp/out" 2>"$tmp/err"
		rc=$?
		{ read -r e; read -r p; } < <(errs "$tmp/out" 2>/dev/null || printf 'x\n-1\n')
		lines=$(wc -l <"$tmp/err")
		if [ "$rc" -eq 3 ] && valid "$tmp/out" && [ "$p" = "$want" ] &&
			[ "$e" = "truncated:$cut" ] && [ "$lines" -eq 1 ] &&
			grep -q "compressed file is cut after byte $((size * frac / 10))" "$tmp/err"; then
			t_pass "$z cut at $frac/10: $p of $full packets kept (capinfos: $want), one line"
		else
			t_fail "$z cut at $frac/10: exit $rc, $p packets (want $want), errors '$e', $lines stderr lines: $(head -c 300 "$tmp/err")"
		fi
	done
done
# Corrupt gzip data (bytes flipped mid-stream): the packets before it, exit 3.
if have gzip; then
	cp "$tmp/c.gzip" "$tmp/bad.gz" 2>/dev/null || gzip -c "$src" >"$tmp/bad.gz"
	size=$(stat -c %s "$tmp/bad.gz")
	printf '\xff\xff\xff\xff\xff\xff\xff\xff' |
		dd of="$tmp/bad.gz" bs=1 seek=$((size / 2)) conv=notrunc status=none
	"$bin" analyze --json --no-progress "$tmp/bad.gz" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	{ read -r e; read -r p; } < <(errs "$tmp/out" 2>/dev/null || printf 'x\n-1\n')
	if [ "$rc" -eq 3 ] && valid "$tmp/out" && [ "$e" = "corrupt:$tmp/bad.gz" ] &&
		[ "$p" -gt 0 ] && [ "$p" -lt "$full" ]; then
		t_pass "corrupt gzip: $p packets before the bad data, $(cat "$tmp/err")"
	else
		t_fail "corrupt gzip: exit $rc, $p packets, errors '$e'"
	fi
fi

# --- several inputs: the unreadable and empty named, the rest analysed -------
: >"$tmp/empty.pcap"
mkdir -p "$tmp/adir"
head -c 5000 "$src" >"$tmp/cut.pcapng"
for fmt in --json --ndjson --text; do
	f=$fmt
	[ $fmt = --text ] && f=--no-progress
	"$bin" analyze $f --no-progress "$tmp/missing.pcap" "$src" "$tmp/empty.pcap" "$tmp/adir" \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $fmt = --text ]; then
		if [ $rc -eq 3 ] && grep -q "3 errors: the report covers what could be read" "$tmp/out" &&
			grep -q "$tmp/empty.pcap: empty input (0 bytes)" "$tmp/out" &&
			grep -q "$full packets" "$tmp/out"; then
			t_pass "several inputs, text: the errors listed, $full packets"
		else
			t_fail "several inputs, text: exit $rc: $(head -5 "$tmp/out")"
		fi
		continue
	fi
	{ read -r e; read -r p; } < <(errs "$tmp/out" 2>/dev/null || printf 'x\n-1\n')
	want="unreadable:$tmp/missing.pcap empty:$tmp/empty.pcap unreadable:$tmp/adir"
	if [ $rc -eq 3 ] && valid "$tmp/out" && [ "$e" = "$want" ] && [ "$p" = "$full" ] &&
		[ "$(wc -l <"$tmp/err")" -eq 3 ]; then
		t_pass "several inputs $fmt: 3 named and counted, the other's $p packets reported"
	else
		t_fail "several inputs $fmt: exit $rc, $p packets, errors '$e'"
	fi
done

# --- --json is always one valid document with its errors --------------------
printf 'GET / HTTP/1.1\r\n\r\n' >"$tmp/text.txt"
printf '\x1f\x8b' >"$tmp/magic-only.gz"
printf '\x28\xb5\x2f\xfd\x00\x00' >"$tmp/x.zst"
gzip -c "$tmp/empty.pcap" >"$tmp/empty.gz" 2>/dev/null
for f in "$tmp/missing.pcap" "$tmp/empty.pcap" "$tmp/adir" "$tmp/text.txt" "$tmp/magic-only.gz" \
	"$tmp/x.zst" "$tmp/empty.gz" "$tmp/cut.pcapng" samples/bad/*.pcap samples/bad/*.txt; do
	for fmt in --json --ndjson; do
		"$bin" analyze $fmt --no-progress "$f" >"$tmp/out" 2>"$tmp/err"
		rc=$?
		{ read -r e; read -r p; } < <(errs "$tmp/out" 2>/dev/null || printf 'x\n-1\n')
		if valid "$tmp/out" && { { [ $rc -eq 0 ] && [ -z "$e" ]; } || { [ $rc -eq 3 ] && [ -n "$e" ]; }; }; then
			t_pass "$(basename "$f") $fmt: exit $rc, valid, errors '$e'"
		else
			t_fail "$(basename "$f") $fmt: exit $rc, errors '$e': $(head -c 200 "$tmp/out")"
		fi
	done
done
t_done
