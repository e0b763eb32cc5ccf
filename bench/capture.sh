#!/usr/bin/env bash
# capture.sh - capture benchmark: tcpsift capture vs tcpdump under iperf3 load.
#
# usage: bench/capture.sh [--seconds N] [--streams N] [--links lo,veth] [--offloads]
#                         [--dir DIR] [--ring MIB:FILES | --single-file] [--keep]
#
# Needs root (network namespaces), iperf3 (or lab-peer from `make tests`),
# tcpdump, capinfos and ./tcpsift (or $TCPSIFT). In a private namespace, on
# its loopback and on a veth pair between two namespaces, one iperf3 run with
# --streams parallel streams for --seconds is captured by each of: tcpsift
# capture (default), tcpsift capture --fanout 2, tcpdump -B 262144, tcpdump
# (default 2 MiB buffer), each with snaplen 128 and with full frames (there
# also tcpsift --priority normal and tcpdump at nice -20, tcpsift's default), one
# capturer at a time; plus one run without a capturer per link. Files go to
# a tmpfs of its own (or DIR), as a ring of FILES files of MIB MiB each
# (-C/-W, both tools; default 256:4) so that the memory behind the files
# stays warm (see "sink" in bench/README.md), or one file with
# --single-file. Prints a Markdown table on stdout (progress on stderr).
# See bench/README.md.
set -euo pipefail

cd "$(dirname "$0")/.."
# shellcheck source=tests/lab/common.sh
. tests/lab/common.sh

seconds=5
streams=4
links=lo,veth
keep_logs=0
offloads=0
dir=""
ring=256:4
usage() { sed -n '2,18s/^# \{0,1\}//p' "$0"; }
while [ $# -gt 0 ]; do
	case "$1" in
	--seconds) seconds=${2:?}; shift 2 ;;
	--streams) streams=${2:?}; shift 2 ;;
	--links) links=${2:?}; shift 2 ;;
	--keep) keep_logs=1; shift ;;
	--offloads) offloads=1; shift ;;
	--dir) dir=${2:?}; shift 2 ;;
	--ring) ring=${2:?}; shift 2 ;;
	--single-file) ring=""; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
for v in "$seconds" "$streams"; do
	[[ $v =~ ^[1-9][0-9]*$ ]] || { echo "capture.sh: not a positive integer: $v" >&2; exit 2; }
done
ring_mib="" ring_files=""
if [ -n "$ring" ]; then
	[[ $ring =~ ^([1-9][0-9]*):([2-9]|[1-9][0-9]+)$ ]] ||
		{ echo "capture.sh: --ring wants MIB:FILES (FILES >= 2): $ring" >&2; exit 2; }
	ring_mib=${BASH_REMATCH[1]} ring_files=${BASH_REMATCH[2]}
fi

LAB_BIN=$(realpath "${TCPSIFT:-./tcpsift}")
LAB_PEER=$(dirname "$LAB_BIN")/tests/tools/lab-peer
[ "$(id -u)" -eq 0 ] || { echo "capture.sh: needs root (network namespaces)" >&2; exit 77; }
for t in tcpdump capinfos /usr/bin/time ethtool; do
	command -v "$t" >/dev/null || { echo "capture.sh: needs $t" >&2; exit 77; }
done
"$LAB_BIN" capture --help >/dev/null 2>&1 ||
	{ echo "capture.sh: $LAB_BIN has no capture verb" >&2; exit 77; }
use_iperf=1
if ! command -v iperf3 >/dev/null; then
	use_iperf=0
	[ -x "$LAB_PEER" ] || { echo "capture.sh: needs iperf3 or $LAB_PEER" >&2; exit 77; }
fi

log() { echo "capture.sh: $*" >&2; }

# Captures go to a tmpfs of our own, so the disk is never the bottleneck:
# this measures capturing, not the storage under it. Each file is counted
# and removed before the next run.
lab_init
mounted=0
if [ -n "$dir" ]; then
	out=$(mktemp -d "$dir/tcpsift-bench-capture.XXXXXX")
else
	out=$(mktemp -d /tmp/tcpsift-bench-capture.XXXXXX)
fi
# shellcheck disable=SC2317 # called by the trap
bench_cleanup()
{
	local rc=$?

	lab_cleanup
	if [ "$mounted" = 1 ]; then
		umount "$out" 2>/dev/null || umount -l "$out" 2>/dev/null || true
	fi
	rm -rf "$out"
	exit "$rc"
}
trap bench_cleanup EXIT
avail_mib=$(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo)
tmpfs_mib=$((avail_mib / 2 < 16384 ? avail_mib / 2 : 16384))
if [ -z "$dir" ]; then
	mount -t tmpfs -o "size=${tmpfs_mib}m,mode=0700" tcpsift-bench "$out"
	mounted=1
fi
if [ "$keep_logs" = 1 ]; then
	keepdir=bench/data/capture-last-run
	rm -rf "$keepdir" && mkdir -p "$keepdir"
fi

# --- one measured run ---------------------------------------------------------

# wire_count NS IF...: rx + tx packets of the interfaces (lo: rx only, every
# loopback packet is counted once in each).
wire_count()
{
	local ns=$1 n=0 dev
	shift
	for dev in "$@"; do
		n=$((n + $(lab_link_stat "$ns" "$dev" rx_packets)))
		[ "$dev" = lo ] || n=$((n + $(lab_link_stat "$ns" "$dev" tx_packets)))
	done
	echo "$n"
}

# traffic SRV_NS SRV_IP CLI_NS: one iperf3 run (or lab-peer flows), SECS s.
traffic()
{
	local sns=$1 sip=$2 cns=$3 srv i pids=()

	if [ "$use_iperf" = 1 ]; then
		lab_bg "$sns" iperf3 -s -1 -B "$sip" -p 5201 >"$LAB_TMP/iperf3-server.out" 2>&1
		srv=$LAB_LAST_PID
		lab_wait_listen "$sns" 5201 || return 1
		lab_run "$cns" $((seconds + 20)) iperf3 -c "$sip" -p 5201 -P "$streams" -t "$seconds" \
			>"$LAB_TMP/iperf3.out" 2>&1 || log "iperf3 client: $(tail -n 1 "$LAB_TMP/iperf3.out")"
		lab_wait "$srv" >/dev/null 2>&1 || true
	else
		for i in $(seq "$streams"); do
			lab_bg "$sns" "$LAB_PEER" server --timeout "$seconds" -l "$sip:$((5300 + i))" \
				-m download -n 64G 2>/dev/null
			pids+=("$LAB_LAST_PID")
			lab_wait_listen "$sns" $((5300 + i)) || return 1
			lab_bg "$cns" "$LAB_PEER" client --timeout "$seconds" -c "$sip:$((5300 + i))" \
				-m download -n 64G 2>/dev/null
			pids+=("$LAB_LAST_PID")
		done
		for i in "${pids[@]}"; do
			lab_wait "$i" || true
		done
	fi
}

# out_state: names and sizes of the capture files (they rotate, so no one size).
out_state() { find "$out" -maxdepth 1 -name 'cap*' -printf '%f %s\n' | sort; }

# settle: TPACKET_V3 blocks retire on a timer and a capturer may be behind:
# wait >= 2 s, then until the files stop changing for 1.5 s (30 s max).
settle()
{
	local a b i

	sleep 2
	a=$(out_state)
	for i in $(seq 20); do
		sleep 1.5
		b=$(out_state)
		[ "$a" = "$b" ] && return 0
		a=$b
	done
	log "capture files still changing after 30 s"
}

# sink_probe: how fast the output directory takes data, 1 GiB at a time in
# 1 MiB writes, into one growing file (up to 8 GiB, or three quarters of its
# free space), then removed. On some VMs memory the guest has not touched
# lately is several times slower to fill than warm memory: a capturer
# writing one ever-growing file into tmpfs is then measured against that,
# not against its capturing; a file ring reuses the same warm pages.
SINK=""
sink_probe()
{
	local f="$out/sink.probe" free_gib t0 t1 times=()

	free_gib=$(( $(df -k --output=avail "$out" | tail -n 1) * 3 / 4 / 1048576 ))
	[ "$free_gib" -gt 8 ] && free_gib=8
	[ "$free_gib" -ge 1 ] || return 0
	for _ in $(seq "$free_gib"); do
		t0=$(date +%s.%N)
		dd if=/dev/zero of="$f" bs=1M count=1024 oflag=append conv=notrunc status=none
		t1=$(date +%s.%N)
		times+=("$(python3 -c "print(f'{$t1 - $t0:.2f}')")")
	done
	rm -f "$f"
	SINK="${times[*]}"
	log "sink: seconds per GiB written: $SINK"
}

ROWS=()
# measure LINK SNAP LABEL NS IF SRV_NS SRV_IP CLI_NS TOOL [ARGS...]
# (TOOL "none": traffic only). Appends one table row to ROWS.
measure()
{
	local link=$1 snap=$2 label=$3 ns=$4 dev=$5 sns=$6 sip=$7 cns=$8 tool=$9
	shift 9
	local f="$out/cap.pcap" elog="$LAB_TMP/tool.err" tfile="$LAB_TMP/tool.time" pidf="$LAB_TMP/tool.pid"
	local w0 w1 wire job pid i t0 t1 dt kpps infile lost loss cpu got recv drops state="" out_args=()
	local n kept files=()

	log "$link snaplen $snap: $label"
	rm -f "$out"/cap* "$elog" "$tfile" "$pidf"
	# tcpdump's -C counts millions of bytes, tcpsift's MiB.
	if [ -n "$ring_mib" ] && [[ $label == *tcpdump* ]]; then
		out_args=(-C $(((ring_mib * 1048576 + 999999) / 1000000)) -W "$ring_files")
	elif [ -n "$ring_mib" ]; then
		out_args=(-C "$ring_mib" -W "$ring_files")
	fi
	w0=$(wire_count "$ns" "$dev")
	if [ "$tool" != none ]; then
		# shellcheck disable=SC2016 # $$ and $0 belong to the inner sh
		lab_bg "$ns" /usr/bin/time -f '%U %S' -o "$tfile" \
			sh -c 'echo $$ >"$0"; exec "$@"' "$pidf" "$tool" "$@" "${out_args[@]}" -w "$f" 2>"$elog"
		job=$LAB_LAST_PID
		for i in $(seq 200); do
			grep -q 'listening on' "$elog" 2>/dev/null && break
			kill -0 "$job" 2>/dev/null || break
			sleep 0.05
		done
		grep -q 'listening on' "$elog" || {
			log "$label did not start: $(head -n 2 "$elog")"
			lab_kill "$job" || true
			_lab_forget_pid "$job"
			ROWS+=("| $link | $snap | $label | failed to start: $(head -n 1 "$elog") | | | | | | | | |")
			return 0
		}
		pid=$(cat "$pidf")
	fi
	t0=$(date +%s.%N)
	traffic "$sns" "$sip" "$cns" || log "traffic failed"
	t1=$(date +%s.%N)
	if [ "$tool" != none ]; then
		settle
		kill -INT "$pid" 2>/dev/null || true
		for i in $(seq 600); do
			kill -0 "$job" 2>/dev/null || break
			sleep 0.1
		done
		if kill -0 "$job" 2>/dev/null; then
			state=" (killed: no exit 60 s after SIGINT)"
			kill -KILL "$pid" 2>/dev/null || true
		fi
		lab_wait "$job" || true
	fi
	w1=$(wire_count "$ns" "$dev")
	wire=$((w1 - w0))
	dt=$(python3 -c "print(f'{$t1 - $t0:.2f}')")
	kpps=$(python3 -c "print(f'{$wire / ($t1 - $t0) / 1000:.0f}')")
	if [ "$tool" = none ]; then
		ROWS+=("| $link | $snap | $label | $wire | $kpps | | | | | | | |")
		return 0
	fi
	# Every file left must be complete; with a ring the first ones are gone,
	# so the loss is counted from what the tool says it wrote (the capture
	# tests check that count against the files, tests/capture/*.sh).
	infile=0
	mapfile -t files < <(find "$out" -maxdepth 1 -name 'cap*' | sort)
	for i in "${files[@]}"; do
		n=$(capinfos -M -c "$i" 2>/dev/null | awk '/^Number of packets/ { print $NF }')
		[ -n "$n" ] || { state="$state (capinfos could not read ${i##*/})"; n=0; }
		infile=$((infile + n))
	done
	[ "${#files[@]}" -gt 0 ] || state="$state (no file)"
	cpu=$(awk 'NF == 2 { printf "%.2f", $1 + $2 }' "$tfile" 2>/dev/null)
	recv=$(lab_tcpsift_count received "$elog")
	if [[ $label == *tcpdump* ]]; then
		got=$(lab_tcpsift_count captured "$elog")
		drops="$(lab_tcpsift_count kernel "$elog") kernel"
	else
		got=$(lab_tcpsift_count written "$elog")
		drops="$(lab_tcpsift_count kernel "$elog") kernel + $(lab_tcpsift_count ours "$elog") own"
		i=$(lab_tcpsift_count unwritten "$elog")
		[ -z "$i" ] || drops="$drops + $i unwritten"
	fi
	if [ -n "$ring_mib" ]; then
		kept=${got:-0}
		[ "$infile" -le "$kept" ] || state="$state (files hold more than the tool says it wrote)"
	else
		kept=$infile
	fi
	lost=$((wire - kept))
	loss=$(python3 -c "print(f'{100 * $lost / $wire:.2f}' if $wire else '-')")
	ROWS+=("| $link | $snap | $label$state | $wire | $kpps | $kept | ${#files[@]} / $infile | $lost | $loss % | ${recv:-?} | $drops | ${cpu:-?} |")
	if [ "$keep_logs" = 1 ]; then
		cp "$elog" "$keepdir/$link-$snap-${label//[^a-zA-Z0-9]/_}.err"
	fi
	rm -f "$out"/cap*
	log "  wire $wire in ${dt} s, kept $kept, lost $lost ($loss %), cpu ${cpu:-?} s"
}

# run_link LINK NS IF SRV_NS SRV_IP CLI_NS: every capturer, both snaplens.
run_link()
{
	local link=$1 ns=$2 dev=$3 sns=$4 sip=$5 cns=$6 snap fan=(--fanout 2) fl="--fanout 2"

	# QM fanout on lo puts everything on queue 0: spread lo by flow hash.
	if [ "$link" = lo ]; then
		fan=(--fanout 2 --fanout-mode hash)
		fl="--fanout 2 --fanout-mode hash"
	fi
	measure "$link" - "no capture" "$ns" "$dev" "$sns" "$sip" "$cns" none
	for snap in 128 262144; do
		measure "$link" "$snap" "tcpsift capture" "$ns" "$dev" "$sns" "$sip" "$cns" \
			"$LAB_BIN" capture -i "$dev" -Z root -s "$snap"
		measure "$link" "$snap" "tcpsift capture $fl" "$ns" "$dev" "$sns" "$sip" "$cns" \
			"$LAB_BIN" capture -i "$dev" -Z root -s "$snap" "${fan[@]}"
		measure "$link" "$snap" "tcpdump -B 262144" "$ns" "$dev" "$sns" "$sip" "$cns" \
			tcpdump -i "$dev" -n -Z root -s "$snap" -B 262144
		measure "$link" "$snap" "tcpdump (default -B)" "$ns" "$dev" "$sns" "$sip" "$cns" \
			tcpdump -i "$dev" -n -Z root -s "$snap"
		[ "$snap" = 128 ] && continue
		# What the default --priority high buys, and tcpdump given the same.
		measure "$link" "$snap" "tcpsift capture --priority normal" "$ns" "$dev" "$sns" \
			"$sip" "$cns" "$LAB_BIN" capture -i "$dev" -Z root -s "$snap" --priority normal
		measure "$link" "$snap" "nice -n -20 tcpdump -B 262144" "$ns" "$dev" "$sns" "$sip" \
			"$cns" nice -n -20 tcpdump -i "$dev" -n -Z root -s "$snap" -B 262144
	done
}

sink_probe

# Real frame sizes everywhere: MTU 1500 and no TSO/GSO/GRO, so a full frame
# is at most 1514 bytes (as on a NIC) and the packet rate is the load. With
# --offloads: the defaults (lo MTU 65536, TSO/GSO/GRO on): 64 KiB frames.
for link in ${links//,/ }; do
	case $link in
	lo)
		lab_netns cbench
		if [ "$offloads" = 0 ]; then
			ip -n "$LAB_NS" link set lo mtu 1500
			lab_offloads_off "$LAB_NS" lo
		fi
		run_link lo "$LAB_NS" lo "$LAB_NS" 127.0.0.1 "$LAB_NS"
		;;
	veth)
		# Two queues, so QM fanout has two RX queues to spread.
		lab_pair cbench 1500 2
		[ "$offloads" = 1 ] || lab_pair_offloads_off
		run_link veth "$LAB_NS_B" "$LAB_IF_B" "$LAB_NS_B" "$LAB_IP4_B" "$LAB_NS_A"
		;;
	*)
		echo "capture.sh: unknown link $link (lo, veth)" >&2
		exit 2
		;;
	esac
	lab_reset
done

frames="MTU 1500, offloads off"
[ "$offloads" = 0 ] || frames="default MTU and offloads (lo 65536, TSO/GSO/GRO on)"
gen="iperf3 -P $streams -t $seconds"
[ "$use_iperf" = 1 ] || gen="$streams lab-peer downloads, $seconds s"
echo "### tcpsift capture vs tcpdump: $gen, $(nproc) CPUs, Linux $(uname -r), $(date -u +%Y-%m-%d)"
echo
out_desc="one file per run"
[ -z "$ring_mib" ] || out_desc="a ring of $ring_files files of $ring_mib MiB per run (-C $ring_mib -W $ring_files; tcpdump's -C in MB)"
echo "tcpsift $("$LAB_BIN" --version | awk '{ print $2 }'), $(tcpdump --version 2>&1 | head -n 1)," \
	"$(tcpdump --version 2>&1 | sed -n 2p). $frames; files on ${dir:-tmpfs}, $out_desc."
[ -z "$SINK" ] || echo "Sink: seconds to write each successive GiB into one file there (1 MiB writes): $SINK."
echo "\"wire\": the interface counters (lo: rx; veth: the capturing end's rx + tx)."
if [ -n "$ring_mib" ]; then
	echo "\"kept\": what the tool says it wrote (tcpdump's \"captured\", tcpsift's \"written\"); the"
	echo "files left at the end (the ring removed the older ones) and the packets in them"
	echo "(capinfos; each must read) are shown next to it."
else
	echo "\"kept\": packets in the file (capinfos)."
fi
echo "\"lost\" = wire - kept. \"tool: dropped\" is what the tool reports (the kernel's"
echo "tp_drops, and tcpsift's own hand-off drops). CPU: the capturer's user + sys."
echo
echo "| link | snaplen | capturer | wire pkts | wire kpps | kept | files / pkts in them | lost | loss | tool: received by filter | tool: dropped | CPU s |"
echo "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|"
printf '%s\n' "${ROWS[@]}"
