#!/usr/bin/env bash
# rotation.sh TCPSIFT [LAB_PEER] - the file ring: `tcpsift capture -C 1` and
# `-G 1 -W 3` during a transfer leave complete, valid files.
#
# lab_pair (1 queue, offloads off, IPv6 off), B downloads from A (paced)
# while tcpsift captures on B's veth (full frames):
#   size:  -C 1 (MiB), BYTES_C bytes: several files, none above 1 MiB;
#   time:  -G 1 -W 3, a ~SECS_G s transfer: a new file per second of
#          capture time, the oldest removed beyond 3.
# Each file left must be complete on its own: tshark reads it to the end,
# tcpsift analyze exits 0 with the same packet count, and it ends with an ISB
# per interface (capinfos "Number of stat entries" >= 1, analyze
# capture_drops not null). Names: PATH-stem_NNNNN_YYYYmmddHHMMSS.pcapng with
# consecutive sequence numbers and times (UTC) within the run. For -C 1
# every file is kept, so the packets over all files == tcpsift's "written";
# for -G 1 each file spans < 1 s of packet time, exactly 3 are left and they
# are the newest (highest sequence numbers, the first ones removed).
# Exit 0 pass, 1 fail, 77 skip; one line of measured vs expected.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lab/common.sh
. "$here/../lab/common.sh"

lab_scenario_init capture-rotation tshark capinfos python3 ethtool -- "$@"
lab_require_capture
BYTES_C=${ROTATION_BYTES_C:-6M} RATE_C=${ROTATION_RATE_C:-4M}
BYTES_G=${ROTATION_BYTES_G:-9M} RATE_G=${ROTATION_RATE_G:-2M} # ~4.5 s
MIB=1048576

lab_pair crot 1500 1
lab_pair_ipv6_off
lab_pair_offloads_off

# check_file FILE: tshark, capinfos and tcpsift analyze on one file of the
# ring; lab_fail on each problem. Sets CF_N CF_FIRST CF_LAST (packets,
# first and last timestamp). Not in a subshell: lab_fail must stick.
check_file()
{
	local f=$1 n j="$1.json" a_pkts a_drops n_if n_isb stats ci

	n=$(lab_pcap_read "$f") || {
		lab_fail "$(basename "$f"): tshark could not read it to the end"
		n=0
	}
	ci=$(capinfos "$f" 2>/dev/null | awk '/Number of interfaces in file/ { i = $NF }
		/Number of stat entries/ { s += ($NF > 0) } END { print i + 0, s + 0 }')
	# shellcheck disable=SC2086 # two numbers
	set -- $ci
	if [ "$1" -eq 0 ] || [ "$2" -ne "$1" ]; then
		lab_fail "$(basename "$f"): capinfos sees ISBs for $2 of $1 interfaces"
	fi
	CF_N=$n CF_FIRST=0 CF_LAST=0
	if ! "$LAB_BIN" analyze --json --no-progress "$f" >"$j" 2>"$j.err"; then
		lab_fail "$(basename "$f"): tcpsift analyze exited non-zero: $(head -n 1 "$j.err")"
		return
	fi
	stats=$(python3 - "$j" <<'PY'
import json, sys
i = json.load(open(sys.argv[1]))["inputs"][0]
ifs = i["interfaces"]
print(i["packets"], i["capture_drops"] is not None, len(ifs),
      sum(x["isb_ifrecv"] is not None for x in ifs), i["first_ts"] or 0, i["last_ts"] or 0)
PY
	) || stats="0 False 0 0 0 0"
	read -r a_pkts a_drops n_if n_isb CF_FIRST CF_LAST <<<"$stats"
	[ "$a_pkts" -eq "$n" ] || lab_fail "$(basename "$f"): analyze read $a_pkts packets, tshark $n"
	[ "$a_drops" = True ] || lab_fail "$(basename "$f"): analyze capture_drops null (no ISB read)"
	if [ "$n_if" -eq 0 ] || [ "$n_isb" -ne "$n_if" ]; then
		lab_fail "$(basename "$f"): analyze found ISB counters for $n_isb of $n_if interfaces"
	fi
}

# check_names STEM T0 T1 FILES...: every name STEM_NNNNN_YYYYmmddHHMMSS.pcapng,
# sequence numbers consecutive, times (UTC) between T0 and T1 (epoch s) and
# not decreasing. Sets CN_FIRST and CN_LAST, the first and last sequence
# numbers.
check_names()
{
	local stem=$1 t0=$2 t1=$3 f b seq when prev_seq="" prev_t=0 first="" t
	shift 3

	for f in "$@"; do
		b=$(basename "$f")
		if [[ ! $b =~ ^${stem}_([0-9]{5})_([0-9]{14})\.pcapng$ ]]; then
			lab_fail "file name $b is not ${stem}_NNNNN_YYYYmmddHHMMSS.pcapng"
			continue
		fi
		seq=$((10#${BASH_REMATCH[1]})) when=${BASH_REMATCH[2]}
		t=$(date -u -d "${when:0:8} ${when:8:2}:${when:10:2}:${when:12:2}" +%s 2>/dev/null || echo 0)
		if [ "$t" -lt $((t0 - 1)) ] || [ "$t" -gt $((t1 + 1)) ]; then
			lab_fail "$b: time $when is outside the run"
		fi
		[ "$t" -ge "$prev_t" ] || lab_fail "$b: time goes back"
		[ -z "$prev_seq" ] || [ "$seq" -eq $((prev_seq + 1)) ] ||
			lab_fail "$b: sequence $seq follows $prev_seq"
		[ -n "$first" ] || first=$seq
		prev_seq=$seq prev_t=$t
	done
	CN_FIRST=${first:-0} CN_LAST=${prev_seq:-0}
}

# run_ring NAME BYTES RATE ARGS...: capture on B with ARGS into
# $LAB_TMP/NAME/NAME.pcapng during one download of BYTES at RATE; sets RC,
# T0, T1 and FILES (sorted by name, i.e. by sequence number).
run_ring()
{
	local name=$1 bytes=$2 rate=$3 port
	shift 3

	mkdir -p "$LAB_TMP/$name"
	T0=$(date +%s)
	lab_tcpsift_start "$LAB_NS_B" -i "$LAB_IF_B" -w "$LAB_TMP/$name/$name.pcapng" "$@" ||
		lab_abort "$name: tcpsift capture did not start: $(head -n 3 "$LAB_TCAP_LOG")"
	port=$((5000 + ${#name}))
	lab_transfer "$LAB_NS_A" "$LAB_IP4_A:$port" "$LAB_NS_B" "$LAB_IP4_B:40001" 20 download \
		"$bytes" --pacing-rate "$rate" 2>>"$LAB_TMP/peers.log" ||
		lab_abort "$name: transfer failed: $(tail -n 2 "$LAB_TMP/peers.log")"
	lab_tcpsift_stop INT 2
	T1=$(date +%s)
	RC=$LAB_TCAP_RC
	mapfile -t FILES < <(find "$LAB_TMP/$name" -name "$name*.pcapng" | sort)
}

# --- size: -C 1 --------------------------------------------------------------
run_ring size "$BYTES_C" "$RATE_C" -C 1
lab_check "-C 1: tcpsift exited $RC after SIGINT (want 0)" "$RC" -eq 0
c_files=${#FILES[@]} c_pkts=0 c_big=0
lab_check "-C 1: $c_files files (want >= 3 for $BYTES_C bytes)" "$c_files" -ge 3
for f in "${FILES[@]}"; do
	check_file "$f"
	c_pkts=$((c_pkts + CF_N))
	sz=$(stat -c %s "$f")
	[ "$sz" -le "$MIB" ] || {
		c_big=$((c_big + 1))
		lab_fail "-C 1: $(basename "$f") has $sz bytes (> 1 MiB)"
	}
done
check_names size "$T0" "$T1" "${FILES[@]}"
lab_check "-C 1: first sequence number $CN_FIRST (want 1: nothing removed without -W)" \
	"$CN_FIRST" -eq 1
c_written=$(lab_tcpsift_count written)
lab_check "-C 1: packets over all files $c_pkts != tcpsift's written ${c_written:-?}" \
	"$c_pkts" -eq "${c_written:--1}"

# --- time and count: -G 1 -W 3 --------------------------------------------------
run_ring time "$BYTES_G" "$RATE_G" -G 1 -W 3
lab_check "-G 1 -W 3: tcpsift exited $RC after SIGINT (want 0)" "$RC" -eq 0
g_files=${#FILES[@]} g_span_max=0
lab_check "-G 1 -W 3: $g_files files left (want 3)" "$g_files" -eq 3
for f in "${FILES[@]}"; do
	check_file "$f"
	span=$(python3 -c "import math; print(max(0, math.floor(($CF_LAST - $CF_FIRST) * 1000)))")
	[ "$span" -le "$g_span_max" ] || g_span_max=$span
	[ "$span" -lt 1000 ] || lab_fail "-G 1: $(basename "$f") spans $span ms of packets (>= 1 s)"
	[ "$CF_N" -gt 0 ] || lab_fail "-G 1: $(basename "$f") holds no packet"
done
check_names time "$T0" "$T1" "${FILES[@]}"
g_first=$CN_FIRST g_last=$CN_LAST
lab_check "-G 1 -W 3: files $g_first..$g_last left, want the newest 3 of >= 4 (first > 1)" \
	"$g_first" -gt 1

lab_verdict "-C 1: $c_files files (>= 3), all <= 1 MiB ($c_big over), $c_pkts packets" \
	"(written ${c_written:-?}); -G 1 -W 3: $g_files left (3), seq $g_first..$g_last (> 1)," \
	"longest ${g_span_max} ms (< 1000); every file read by tshark + analyze with ISBs" \
	"(${#LAB_FAILS[@]} problems)"
