#!/usr/bin/env bash
# run.sh - analyze benchmark: tcpsift vs the libpcap ceiling, tcptrace and tshark on one capture.
#
# usage: bench/run.sh [--packets N] [--connections N] [--tshark-packets N] [--pairs N] [--no-scale] [--keep]
#
# Expects ./tcpsift (or $TCPSIFT), build/rel/bench/gen and build/rel/bench/pcaploop
# (`make bench` builds them).  The capture is generated once into bench/data/
# and reused while its stamp (generator source hash + parameters) matches.
# Prints a Markdown table on stdout; progress goes to stderr.  See bench/README.md.
set -euo pipefail

cd "$(dirname "$0")/.."

packets=5000000
connections=20000
concurrent=2000 # gen's default, spelled out because the memory check depends on it
tshark_packets=500000
keep=0
scale=1
runs=3
pairs=7 # alternations of the paired ratios (threads, detectors, the ceiling)

usage() {
	sed -n '2,9s/^# \{0,1\}//p' "$0"
}

while [ $# -gt 0 ]; do
	case "$1" in
	--packets) packets=${2:?}; shift 2 ;;
	--connections) connections=${2:?}; shift 2 ;;
	--tshark-packets) tshark_packets=${2:?}; shift 2 ;;
	--pairs) pairs=${2:?}; shift 2 ;;
	--keep) keep=1; shift ;;
	--no-scale) scale=0; shift ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
for v in "$packets" "$connections" "$tshark_packets" "$pairs"; do
	[[ $v =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: not a positive integer: $v" >&2; exit 2; }
done
[ "$tshark_packets" -le "$packets" ] || tshark_packets=$packets

tcpsift=${TCPSIFT:-./tcpsift}
gen=build/rel/bench/gen
pcaploop=build/rel/bench/pcaploop
data=bench/data

# Per-command wall-clock limits: everything the script starts stops by itself.
t_gen=600
t_pcaploop=300
t_tcpsift=900
t_tcptrace=180 # over this on the full file, tcptrace is measured on a prefix
t_tshark=900

log() { echo "run.sh: $*" >&2; }

for b in "$gen" "$pcaploop"; do
	[ -x "$b" ] || { log "missing $b: run 'make bench' (or build it by hand)"; exit 3; }
done
for t in /usr/bin/time timeout editcap tshark tcptrace; do
	command -v "$t" >/dev/null || { log "missing $t: run 'scripts/deps.sh bench'"; exit 3; }
done

mkdir -p "$data"
if [ "$keep" = 1 ]; then
	work=$data/last-run
	rm -rf "$work"
	mkdir -p "$work"
else
	work=$(mktemp -d "${TMPDIR:-/tmp}/tcpsift-bench.XXXXXX")
	trap 'rm -rf "$work"' EXIT
fi

gen_hash=$(sha256sum bench/gen.c | cut -c1-16)

# capture FILE PACKETS: generate FILE unless its stamp says it is current.
# The stamp holds the parameters first, then gen's ground-truth summary.
capture() { # capture FILE PACKETS [CONNECTIONS CONCURRENT]
	local f=$1 n=$2 conns=${3:-$connections} conc=${4:-$concurrent}
	local want="gen.c=$gen_hash packets=$n connections=$conns concurrent=$conc seed=1"
	if [ -s "$f" ] && [ -s "$f.stamp" ] && [ "$(head -1 "$f.stamp")" = "$want" ]; then
		log "reusing $f"
		return
	fi
	log "generating $f ($n packets, $conns connections)"
	rm -f "$f" "$f.stamp"
	timeout "$t_gen" "$gen" -o "$f.tmp" --packets "$n" --connections "$conns" \
		--concurrent "$conc" --seed 1 2>"$work/gen.err" ||
		{ cat "$work/gen.err" >&2; rm -f "$f.tmp"; exit 3; }
	mv "$f.tmp" "$f"
	{ echo "$want"; cat "$work/gen.err"; } >"$f.stamp"
}

# prefix SRC N: the first N records of SRC, refreshed whenever SRC is newer.
prefix() {
	local src=$1 n=$2 f="${1%.pcap}-first$2.pcap"
	if [ ! -s "$f" ] || [ "$src" -nt "$f" ]; then
		log "cutting $f"
		timeout "$t_gen" editcap -r "$src" "$f" "1-$n" >&2
	fi
	echo "$f"
}

# measure NAME TIMEOUT CMD...: best-of-$runs elapsed, max peak RSS.
# Sets m_secs, m_rss_kib and m_status ("ok", "timeout" or "exit N: first stderr line").
measure() {
	local name=$1 limit=$2 i rc secs rss
	shift 2
	m_secs="" m_rss_kib=0 m_status=ok
	for ((i = 1; i <= runs; i++)); do
		rc=0
		# timeout outside time: on expiry it kills time and the tool together.
		timeout "$limit" /usr/bin/time -f '%e %M' -o "$work/$name.time" \
			"$@" >/dev/null 2>"$work/$name.err" || rc=$?
		if [ "$rc" = 124 ]; then
			m_status=timeout
			return
		elif [ "$rc" != 0 ]; then
			m_status="exit $rc: $(sed -n '/^Command exited/!{p;q}' "$work/$name.err")"
			return
		fi
		read -r secs rss <"$work/$name.time"
		if [ -z "$m_secs" ] || awk -v a="$secs" -v b="$m_secs" 'BEGIN{exit !(a < b)}'; then
			m_secs=$secs
		fi
		[ "$rss" -gt "$m_rss_kib" ] && m_rss_kib=$rss
		log "$name run $i: ${secs}s ${rss}KiB"
	done
}

# paired NAME A-CMD -- B-CMD: A and B run in turn, $pairs times each, and
# each B's wall time is divided by the A's just before it: the host's other
# guests come and go within minutes, so two best-of-3 figures can compare
# a quiet minute with a busy one (a side-by-side pair once took less than
# twice one run). Sets p_ratio (the median ratio), p_lo, p_hi, p_status.
paired() {
	local name=$1 i side t0 t1 a=() b=() ratios=()
	local -A took
	shift
	while [ "$1" != -- ]; do
		a+=("$1")
		shift
	done
	shift
	b=("$@")
	p_ratio="" p_lo="" p_hi="" p_status=ok
	for ((i = 1; i <= pairs; i++)); do
		for side in a b; do
			local -n cmd=$side
			t0=$(date +%s.%N)
			timeout "$t_tcpsift" "${cmd[@]}" >/dev/null 2>"$work/$name.err" ||
				{ p_status="exit $?: $(head -1 "$work/$name.err")"; return; }
			t1=$(date +%s.%N)
			took[$side]=$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b - a}')
		done
		ratios+=("$(awk -v a="${took[a]}" -v b="${took[b]}" 'BEGIN{printf "%.4f", b / a}')")
		log "$name pair $i: ${took[a]} s, ${took[b]} s"
	done
	mapfile -t ratios < <(printf '%s\n' "${ratios[@]}" | sort -g)
	p_lo=${ratios[0]} p_hi=${ratios[pairs - 1]}
	p_ratio=${ratios[pairs / 2]}
}

rows=()
pps_pcaploop=""
pps_tcptrace=""
json_rss_kib=""

# row TOOL PACKETS NOTE: append a table row from the last measure().
row() {
	local tool=$1 n=$2 note=$3 pps
	last_pps=""
	if [ "$m_status" != ok ]; then
		rows+=("$tool|$n|not available ($m_status)||||")
		return
	fi
	if [ "$m_secs" = 0.00 ]; then
		# Below the 10 ms resolution of time's %e: no meaningful rate.
		rows+=("$tool$note|$n|<0.01||")
		return
	fi
	pps=$(awk -v n="$n" -v s="$m_secs" 'BEGIN{printf "%.0f", n / s}')
	rows+=("$tool$note|$n|$m_secs|$pps|$(awk -v k="$m_rss_kib" 'BEGIN{printf "%.1f", k / 1024}')")
	last_pps=$pps
}

main=$data/analyze-$packets-c$connections.pcap
capture "$main" "$packets"
log "warming the page cache"
cat "$main" >/dev/null

# (a) libpcap ceiling
measure pcaploop "$t_pcaploop" "$pcaploop" "$main"
row pcaploop "$packets" ""
[ "$m_status" = ok ] && pps_pcaploop=$last_pps

# (b), (c) tcpsift, if it is there and works
tcpsift_ok=0
if [ -x "$tcpsift" ]; then
	tcpsift_ok=1
	measure tcpsift-json "$t_tcpsift" "$tcpsift" analyze --json --threads 1 "$main"
	row "tcpsift analyze --json --threads 1" "$packets" ""
	if [ "$m_status" = ok ]; then
		json_rss_kib=$m_rss_kib
	else
		tcpsift_ok=0
	fi
	json_secs=$m_secs
	measure tcpsift-json2 "$t_tcpsift" "$tcpsift" analyze --json --threads 2 "$main"
	row "tcpsift analyze --json --threads 2" "$packets" ""
	json2_secs=$m_secs
	# What two cores give this work at all: two --threads 1 runs side by
	# side, nothing shared but the machine (its caches, its memory, its
	# host): in one run's time when nothing else competes, far longer when
	# the host's other guests do (bench/README.md).
	side_by_side='"$@" >/dev/null & p=$!; "$@" >/dev/null || { wait $p; exit 1; }; wait $p'
	one=("$tcpsift" analyze --json --threads 1 --no-progress "$main")
	measure tcpsift-pair "$t_tcpsift" sh -c "$side_by_side" pair "${one[@]}"
	pair_secs=$([ "$m_status" = ok ] && echo "$m_secs" || echo "")
	measure tcpsift-text "$t_tcpsift" "$tcpsift" analyze "$main"
	row "tcpsift analyze (text)" "$packets" ""
	# The detectors' cost: the same --json run without them (target: <= 25 %).
	measure tcpsift-nodet "$t_tcpsift" "$tcpsift" analyze --json --threads 1 --no-detectors "$main"
	row "tcpsift analyze --json --no-detectors" "$packets" ""
	nodet_secs=$m_secs
	# The same three comparisons, each run beside its reference.
	paired pair-threads "${one[@]}" -- "$tcpsift" analyze --json --threads 2 --no-progress "$main"
	[ "$p_status" = ok ] && pt=("$p_ratio" "$p_lo" "$p_hi")
	paired pair-ceiling "${one[@]}" -- sh -c "$side_by_side" pair "${one[@]}"
	[ "$p_status" = ok ] && pc=("$p_ratio" "$p_lo" "$p_hi")
	paired pair-detectors "$tcpsift" analyze --json --threads 1 --no-detectors --no-progress \
		"$main" -- "${one[@]}"
	[ "$p_status" = ok ] && pd=("$p_ratio" "$p_lo" "$p_hi")
else
	rows+=("tcpsift analyze --json|$packets|not available ($tcpsift missing)||||")
	rows+=("tcpsift analyze (text)|$packets|not available ($tcpsift missing)||||")
fi

# (d) tcptrace; -n because reverse DNS for every host would time the resolver, not tcptrace.
measure tcptrace "$t_tcptrace" tcptrace -n -l -r "$main"
if [ "$m_status" = ok ]; then
	row "tcptrace -n -l -r" "$packets" ""
	pps_tcptrace=$last_pps
else
	log "tcptrace: $m_status on the full file, measuring the first $tshark_packets packets"
	short=$(prefix "$main" "$tshark_packets")
	cat "$short" >/dev/null
	measure tcptrace "$t_tshark" tcptrace -n -l -r "$short"
	row "tcptrace -n -l -r" "$tshark_packets" " (prefix; pps extrapolated)"
	[ "$m_status" = ok ] && pps_tcptrace=$last_pps
fi

# (e) tshark: far slower, so always on a prefix.
short=$(prefix "$main" "$tshark_packets")
cat "$short" >/dev/null
measure tshark "$t_tshark" tshark -r "$short" -Y tcp.analysis.flags
if [ "$tshark_packets" -lt "$packets" ]; then
	row "tshark -Y tcp.analysis.flags" "$tshark_packets" " (first $tshark_packets packets only)"
else
	row "tshark -Y tcp.analysis.flags" "$tshark_packets" ""
fi

# Memory growth: two captures of the same 2000 connections, all live from
# the start to the end, one with five times the packets of the other. Peak
# RSS must not follow the packet count (it may follow connections).
mem_small="" mem_big="" mem_status="" mem_conns=2000
small_n=$((packets / 5))
if [ "$tcpsift_ok" = 1 ] && [ "$small_n" -ge 10000 ]; then
	small=$data/mem-$small_n-c$mem_conns.pcap
	big=$data/mem-$packets-c$mem_conns.pcap
	capture "$small" "$small_n" "$mem_conns" "$mem_conns"
	capture "$big" "$packets" "$mem_conns" "$mem_conns"
	cat "$small" "$big" >/dev/null
	runs=1 measure tcpsift-mem "$t_tcpsift" "$tcpsift" analyze --json --threads 1 "$small"
	mem_status=$m_status
	[ "$m_status" = ok ] && mem_small=$m_rss_kib
	runs=1 measure tcpsift-mem "$t_tcpsift" "$tcpsift" analyze --json --threads 1 "$big"
	[ "$m_status" = ok ] && mem_big=$m_rss_kib
	mem_conns_small=$("$tcpsift" analyze --json "$small" | python3 -c 'import json,sys; print(json.load(sys.stdin)["summary"]["connections"])')
	mem_conns_big=$("$tcpsift" analyze --json "$big" | python3 -c 'import json,sys; print(json.load(sys.stdin)["summary"]["connections"])')
elif [ "$tcpsift_ok" = 1 ]; then
	mem_status="--packets too small for a one-fifth capture"
fi

# Scale (issue 12): the same tools on three captures from 1 000 to 200 000
# live connections, one run each; bytes per live connection from tcpsift's
# peak RSS over the generator's peak of live connections.
scale_rows=()
if [ "$scale" = 1 ] && [ "$tcpsift_ok" = 1 ]; then
	for spec in 1000000:1000:1000 "$packets:$connections:$concurrent" 6000000:1000000:200000; do
		IFS=: read -r sn sc sl <<<"$spec"
		f=$data/scale-$sn-c$sc-l$sl.pcap
		[ "$spec" = "$packets:$connections:$concurrent" ] && f=$main
		capture "$f" "$sn" "$sc" "$sl"
		cat "$f" >/dev/null
		peak=$(sed -n 's/.*peak_live=\([0-9]*\).*/\1/p' "$f.stamp")
		runs=1 measure scale-loop "$t_pcaploop" "$pcaploop" "$f"
		loop_s=$([ "$m_status" = ok ] && echo "$m_secs" || echo "-")
		runs=1 measure scale-tcpsift "$t_tcpsift" "$tcpsift" analyze --json --threads 1 --no-progress "$f"
		ts_s=$([ "$m_status" = ok ] && echo "$m_secs" || echo "-") ts_rss=$m_rss_kib
		runs=1 measure scale-tcpsift2 "$t_tcpsift" "$tcpsift" analyze --json --threads 2 --no-progress "$f"
		ts2_s=$([ "$m_status" = ok ] && echo "$m_secs" || echo "-")
		runs=1 measure scale-ndjson "$t_tcpsift" "$tcpsift" analyze --ndjson --threads 1 --no-progress "$f"
		nd_rss=$m_rss_kib
		runs=1 measure scale-tcptrace "$t_tcpsift" tcptrace -n -l -r "$f"
		tt_s=$([ "$m_status" = ok ] && echo "$m_secs" || echo "$m_status")
		scale_rows+=("$sn|$sc|${peak:-?}|$loop_s|$ts_s|$ts2_s|$tt_s|$ts_rss|$nd_rss")
	done
fi

# --- report ---
ratio() { # ratio PPS BASE
	if [ -z "$1" ] || [ -z "$2" ]; then
		echo "-"
		return
	fi
	awk -v a="$1" -v b="$2" 'BEGIN{printf "%.3f", (b > 0 ? a / b : 0)}'
}

cpu=$(awk -F': ' '/^model name/{print $2; exit}' /proc/cpuinfo)
live=$((connections < concurrent ? connections : concurrent))
echo "## tcpsift analyze benchmark"
echo
echo "- date: $(date -u +%Y-%m-%dT%H:%MZ), host: $(nproc) x ${cpu:-unknown CPU}, $(uname -sr)"
echo "- capture: \`$main\`, $packets packets, $connections connections (<= $live live)," \
	"$(du -m "$main" | cut -f1) MiB, generated by \`$gen --packets $packets --connections $connections\`"
echo "- ground truth (from the generator):"
tail -n +2 "$main.stamp" | sed 's/^gen: /  - /'
version=$("$tcpsift" --version 2>/dev/null | head -1) || version=""
echo "- tools: ${version:-tcpsift (not available)}," \
	"tshark $(tshark --version 2>/dev/null | sed -n '1s/.*(Wireshark) \([^ ]*\).*/\1/p'), tcptrace $(tcptrace -v 2>&1 | sed -n 's/.*version \([0-9.]*\).*/\1/p' | head -1)," \
	"libpcap $(dpkg-query -W -f='${Version}' libpcap0.8 2>/dev/null || echo '?')"
echo "- elapsed: best of $runs, page cache warm; peak RSS: highest of the runs"
echo
echo "| tool | packets | elapsed s | packets/s | peak RSS MiB | pps / pcaploop | pps / tcptrace |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for r in "${rows[@]}"; do
	IFS='|' read -r tool n secs pps rss <<<"$r"
	if [ -z "$pps" ]; then
		echo "| $tool | $n | $secs | | | | |"
	else
		echo "| $tool | $n | $secs | $pps | $rss | $(ratio "$pps" "$pps_pcaploop") | $(ratio "$pps" "$pps_tcptrace") |"
	fi
done
echo
if [ -n "${json_secs:-}" ] && [ -n "${nodet_secs:-}" ]; then
	echo "Detectors' cost: --json $json_secs s with them, $nodet_secs s without:" \
		"$(awk -v a="$json_secs" -v b="$nodet_secs" 'BEGIN{printf "%+.1f %%", (a / b - 1) * 100}')" \
		"(target: at most +25 %)."
	echo
fi
if [ -n "${json_secs:-}" ] && [ -n "${json2_secs:-}" ]; then
	echo "Threads: --json $json_secs s with one thread, $json2_secs s with two:" \
		"$(awk -v a="$json_secs" -v b="$json2_secs" 'BEGIN{if (b > 0) printf "%.2fx", a / b}')" \
		"(target: >= 1.8x on 2 cores)."
	if [ -n "${pair_secs:-}" ]; then
		echo "This host's own ceiling: two --threads 1 runs side by side took $pair_secs s," \
			"$(awk -v a="$json_secs" -v b="$pair_secs" 'BEGIN{if (b > 0) printf "%.2fx", 2 * a / b}')" \
			"one run's work in its time (2.00x if the cores shared nothing)."
	fi
	echo
fi
if [ -n "${pt[0]:-}" ] || [ -n "${pc[0]:-}" ] || [ -n "${pd[0]:-}" ]; then
	echo "Paired ($pairs runs of each in turn; the median ratio of each run's time to its" \
		"reference's just before, lowest and highest in brackets):"
	[ -n "${pt[0]:-}" ] && echo "- two threads take ${pt[0]} of one thread's time [${pt[1]}, ${pt[2]}]:" \
		"$(awk -v r="${pt[0]}" 'BEGIN{printf "%.2fx", 1 / r}')"
	[ -n "${pc[0]:-}" ] && echo "- two one-thread runs side by side take ${pc[0]} of one run's time" \
		"[${pc[1]}, ${pc[2]}]: this host's ceiling" \
		"$(awk -v r="${pc[0]}" 'BEGIN{printf "%.2fx", 2 / r}')"
	[ -n "${pd[0]:-}" ] && echo "- the detectors: ${pd[0]} of --no-detectors' time [${pd[1]}, ${pd[2]}]:" \
		"$(awk -v r="${pd[0]}" 'BEGIN{printf "%+.0f %%", (r - 1) * 100}')"
	echo
fi
echo "### Memory growth (tcpsift analyze --json, the same $mem_conns connections, all live)"
echo
if [ -n "$mem_small" ] && [ -n "$mem_big" ]; then
	verdict=$(awk -v s="$mem_small" -v b="$mem_big" \
		'BEGIN{print (b <= s * 1.2 + 8192) ? "flat (ok)" : "GROWS with packet count"}')
	echo "| packets | connections | peak RSS MiB |"
	echo "|---:|---:|---:|"
	echo "| $small_n | $mem_conns_small | $(awk -v k="$mem_small" 'BEGIN{printf "%.1f", k / 1024}') |"
	echo "| $packets | $mem_conns_big | $(awk -v k="$mem_big" 'BEGIN{printf "%.1f", k / 1024}') |"
	echo
	echo "Verdict: $verdict (allowed: +20% + 8 MiB)."
else
	echo "not available: ${mem_status:-tcpsift missing or failing}"
fi
if [ "${#scale_rows[@]}" -gt 0 ]; then
	echo
	echo "### Scale (one run each; tcpsift analyze --json unless said; x loop: pcaploop's time over tcpsift's; RSS with one thread)"
	echo
	echo "| packets | connections | peak live | pcaploop s | tcpsift s (1 thread) | x loop | tcpsift s (2 threads) | x loop | tcptrace -l s | RSS MiB --json | RSS MiB --ndjson | bytes / live conn (--ndjson) |"
	echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	xloop() { awk -v a="$1" -v b="$2" 'BEGIN{if (a + 0 > 0 && b + 0 > 0) printf "%.2f", a / b; else print "-"}'; }
	for r in "${scale_rows[@]}"; do
		IFS='|' read -r sn sc sl loop_s ts_s ts2_s tt_s ts_rss nd_rss <<<"$r"
		echo "| $sn | $sc | $sl | $loop_s | $ts_s | $(xloop "$loop_s" "$ts_s") | $ts2_s | $(xloop "$loop_s" "$ts2_s") |" \
			"$tt_s | $(awk -v k="$ts_rss" 'BEGIN{printf "%.1f", k / 1024}') | $(awk -v k="$nd_rss" 'BEGIN{printf "%.1f", k / 1024}') |" \
			"$(awk -v k="$nd_rss" -v l="$sl" 'BEGIN{if (l + 0 > 0) printf "%.0f", k * 1024 / l; else print "-"}') |"
	done
fi
[ "$keep" = 1 ] && log "logs kept in $work"
exit 0
