# shellcheck shell=bash disable=SC2034 # LAB_* globals are set for the caller
# common.sh - helpers for the network-namespace lab scripts. Source it:
#
#   . tests/lab/common.sh
#   lab_require_root            # exit 77 (SKIP) without root / ip netns
#   lab_init                    # temp dir + trap lab_cleanup on EXIT/INT/TERM
#   lab_pair demo 1500 1        # two namespaces joined by a veth pair
#   lab_offloads_off "$LAB_NS_A" "$LAB_IF_A"; lab_offloads_off "$LAB_NS_B" "$LAB_IF_B"
#   lab_capture_start "$LAB_NS_B" tcpdump -i "$LAB_IF_B" -s 128 -w out.pcap tcp
#   lab_bg "$LAB_NS_B" lab-peer server -l "$LAB_IP4_B:5001"; srv=$LAB_LAST_PID
#   lab_wait_listen "$LAB_NS_B" 5001
#   lab_run "$LAB_NS_A" 30 lab-peer client -c "$LAB_IP4_B:5001"
#   lab_wait "$srv"
#   lab_capture_stop "$LAB_CAP_PID"       # waits >= 1.5 s first (TPACKET_V3)
#
# A scenario (tests/lab/foundation-*.sh, run as SCRIPT TCPSIFT [LAB_PEER]):
#
#   lab_scenario_init NAME tcpdump ethtool -- "$@"   # LAB_BIN, LAB_PEER; 77 SKIP
#   lab_pair demo; lab_pair_offloads_off             # (lab_chain_offloads_off)
#   lab_capture_start "$LAB_NS_A" tcpdump -i "$LAB_IF_A" -s 128 -w "$cap" tcp
#   lab_transfer "$LAB_NS_B" "$LAB_IP4_B:5001" "$LAB_NS_A" "$LAB_IP4_A:40001" \
#       30 download 100000 --pacing-rate 20M        # lab-peer server + client
#   lab_capture_analyze "$LAB_CAP_PID" "$cap" "$json" # stop, run tcpsift
#   read -r n st < <(lab_values "$json" summary.connections connections.0.state)
#   lab_check "connections $n != 1" "$n" = 1         # [ TEST ] || lab_fail MSG
#   lab_verdict "connections $n (1), state $st"      # "NAME: ...", FAIL lines, exit
#
# Also: lab_netns (one namespace, lo only), lab_chain (A <-> router R <-> B),
# lab_ns/lab_run/lab_bg/lab_wait/lab_kill (processes in a namespace),
# lab_nft_drop/lab_nft_drop_nflog/lab_nft_counter (random loss with a
# counter), lab_link_stat/lab_chain_link_drops, lab_nstat_reset/lab_nstat
# (per-namespace nstat deltas), lab_json (values from a report), lab_reset;
# for scenarios lab_analyze (tcpsift alone), lab_fail and lab_abort.
#
# Everything created (namespaces, and with them their veths, nft tables,
# addresses; background processes by pid; the temp dir) is recorded and
# removed by lab_cleanup. Namespace names carry the shell's pid and a
# sequence number so parallel or aborted runs never collide; interface names
# and addresses inside the namespaces are fixed, so captures are reproducible.
#
# Addresses (private ranges, only ever inside our own namespaces):
#   lab_pair:  A 10.0.0.1/24 fd00::1/64  <-veth->  B 10.0.0.2/24 fd00::2/64
#   lab_chain: A 10.0.1.1 fd00:1::1 <-> R 10.0.1.254 fd00:1::fe |
#              R 10.0.2.254 fd00:2::fe <-> B 10.0.2.1 fd00:2::1 (R forwards)
# Neighbour entries are static (no ARP/ND on the wire) and IPv6 router
# solicitations/DAD are off, so captures hold little besides the test traffic.

# The source tree this file is in (scripts/schema.py checks every report).
LAB_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

LAB_PIDS=()     # background processes we started (lab_bg, lab_capture_start)
LAB_NETNS=()    # namespaces we created
LAB_TMP=""      # private temp dir (logs, nstat history)
LAB_SEQ=0       # per-run counter for unique namespace names
LAB_LAST_PID="" # pid of the last lab_bg / lab_capture_start
LAB_CAP_PID=""  # pid of the last capture
LAB_NAME=""     # scenario name, LAB_BIN/LAB_PEER tcpsift and lab-peer (lab_scenario_init)
LAB_FAILS=()    # failed checks of a scenario (lab_fail, lab_check, lab_verdict)
declare -A LAB_CAP_LOG=()

lab_log() { echo "lab: $*" >&2; }

# Exit 77 (the automake SKIP code) when we cannot create namespaces.
lab_require_root()
{
	local probe="labprobe-$$"

	if [ "$(id -u)" -ne 0 ] || ! command -v ip >/dev/null ||
		! ip netns add "$probe" 2>/dev/null; then
		echo "SKIP: needs root and ip netns"
		exit 77
	fi
	ip netns del "$probe"
}

# Temp dir and cleanup trap. Idempotent; called by lab_pair/lab_chain too.
# A script that needs its own EXIT trap should call lab_cleanup from it.
lab_init()
{
	[ -n "$LAB_TMP" ] && return 0
	LAB_TMP=$(mktemp -d /tmp/tcpsift-lab.XXXXXX)
	trap lab_cleanup EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
}

# End one process we started: TERM, up to 3 s grace, then KILL. Reaps it.
lab_kill()
{
	local pid=$1 i

	# Each step may find the process gone: fine, and never a failure under set -e.
	kill -0 "$pid" 2>/dev/null || {
		wait "$pid" 2>/dev/null || true
		return 0
	}
	kill -TERM "$pid" 2>/dev/null || true
	for i in $(seq 30); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	return 0
}

_lab_forget_pid()
{
	local p keep=()

	for p in "${LAB_PIDS[@]}"; do
		[ "$p" = "$1" ] || keep+=("$p")
	done
	LAB_PIDS=("${keep[@]}")
}

# lab_reset: end our background processes and delete our namespaces (with
# their veths and nft tables); keeps the temp dir. For scripts that run
# several scenarios one after another.
lab_reset()
{
	local pid ns

	for pid in "${LAB_PIDS[@]}"; do
		lab_kill "$pid"
	done
	LAB_PIDS=()
	for ns in "${LAB_NETNS[@]}"; do
		# Deleting a namespace destroys its veths (and their peers).
		ip netns del "$ns" 2>/dev/null
	done
	LAB_NETNS=()
	return 0
}

# Trap handler: remove everything this run created. Safe to call twice.
lab_cleanup()
{
	local rc=$?

	set +e
	lab_reset
	[ -n "$LAB_TMP" ] && rm -rf "$LAB_TMP"
	LAB_TMP=""
	return $rc
}

# lab_ns NS CMD...: run CMD inside namespace NS.
lab_ns()
{
	local ns=$1
	shift
	ip netns exec "$ns" "$@"
}

# lab_run NS SECS CMD...: run CMD in NS in the foreground, killed after SECS.
lab_run()
{
	local ns=$1 secs=$2
	shift 2
	ip netns exec "$ns" timeout -k 2 "$secs" "$@"
}

# lab_bg NS CMD...: start CMD in NS in the background (bounded by
# LAB_BG_TIMEOUT seconds, default 120). Sets LAB_LAST_PID.
lab_bg()
{
	local ns=$1
	shift
	ip netns exec "$ns" timeout -k 2 "${LAB_BG_TIMEOUT:-120}" "$@" &
	LAB_LAST_PID=$!
	LAB_PIDS+=("$LAB_LAST_PID")
}

# lab_tcpsift_capture UMASK ARGS...: `tcpsift capture ARGS` in B under the
# command prefix ${LAB_CAP_WRAP[@]} (may be empty) with umask UMASK, until it
# says it is listening; its pid in CAP_PID, its job in CAP_JOB, its stderr in
# CAP_LOG. Aborts the scenario when it does not start within 5 s.
lab_tcpsift_capture()
{
	local umask=$1 pidf="$LAB_TMP/cap.$RANDOM.pid" i
	shift
	CAP_LOG="$LAB_TMP/cap.$RANDOM.log"
	: >"$CAP_LOG"
	# shellcheck disable=SC2016 # $$, $0 and $1 belong to the inner sh
	lab_bg "$LAB_NS_B" "${LAB_CAP_WRAP[@]}" sh -c 'umask "$1"; echo $$ >"$0"; shift; exec "$@"' \
		"$pidf" "$umask" "$LAB_BIN" capture "$@" 2>"$CAP_LOG"
	CAP_JOB=$LAB_LAST_PID CAP_PID=""
	for i in $(seq 100); do
		[ -z "$CAP_PID" ] && [ -s "$pidf" ] && CAP_PID=$(cat "$pidf")
		[ -n "$CAP_PID" ] && grep -q 'listening on' "$CAP_LOG" && return 0
		sleep 0.05
	done
	lab_abort "capture did not start: $(head -n 2 "$CAP_LOG")"
}

# lab_wait PID: wait for a lab_bg process, return its exit status.
lab_wait()
{
	local rc=0

	wait "$1" || rc=$?
	_lab_forget_pid "$1"
	return $rc
}

# lab_wait_listen NS PORT [SECS]: until a TCP socket listens on PORT in NS.
lab_wait_listen()
{
	local ns=$1 port=$2 secs=${3:-5} i

	for i in $(seq $((secs * 20))); do
		[ -n "$(ip netns exec "$ns" ss -Hltn "sport = :$port")" ] && return 0
		sleep 0.05
	done
	lab_log "nothing listens on port $port in $ns after ${secs}s"
	return 1
}

_lab_new_ns()
{
	local ns=$1

	ip netns add "$ns" || return 1
	LAB_NETNS+=("$ns")
	ip -n "$ns" link set lo up
	# Quiet IPv6: no router solicitations, no DAD, no RA processing. Set on
	# "default" before any veth is moved in, so new devices inherit it.
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.default.router_solicitations=0 \
		net.ipv6.conf.default.accept_ra=0 net.ipv6.conf.default.dad_transmits=0 \
		net.ipv6.conf.all.accept_ra=0 >/dev/null
}

# _lab_veth NS1 IF1 MAC1 NS2 IF2 MAC2 MTU QUEUES: veth pair created directly
# inside the namespaces (never visible in the caller's namespace).
_lab_veth()
{
	local q=()

	[ "${8:-1}" -gt 1 ] && q=(numtxqueues "$8" numrxqueues "$8")
	ip link add "$2" netns "$1" address "$3" mtu "$7" "${q[@]}" type veth \
		peer name "$5" netns "$4" address "$6" mtu "$7" "${q[@]}" || return 1
	ip -n "$1" link set "$2" up
	ip -n "$4" link set "$5" up
}

# _lab_addr NS IF IP4/LEN IP6/LEN
_lab_addr()
{
	ip -n "$1" addr add "$3" dev "$2"
	ip -n "$1" -6 addr add "$4" dev "$2" nodad
}

# lab_neigh_static NS IF IP MAC: permanent neighbour entry (no ARP/ND).
lab_neigh_static()
{
	ip -n "$1" neigh replace "$3" lladdr "$4" dev "$2" nud permanent
}

# lab_netns PREFIX: one namespace with only lo (up). Sets LAB_NS.
lab_netns()
{
	lab_init
	LAB_SEQ=$((LAB_SEQ + 1))
	LAB_NS="$1-$$-$LAB_SEQ"
	_lab_new_ns "$LAB_NS" || {
		lab_log "lab_netns $1: setup failed"
		return 1
	}
}

# lab_pair PREFIX [MTU] [QUEUES]
# Two namespaces A and B joined by one veth pair. Sets LAB_NS_A LAB_NS_B,
# LAB_IF_A LAB_IF_B (PREFIX-a/-b, truncated to 15 chars), LAB_MAC_A LAB_MAC_B,
# LAB_IP4_A LAB_IP4_B (10.0.0.1/.2), LAB_IP6_A LAB_IP6_B (fd00::1/::2).
lab_pair()
{
	local prefix=$1 mtu=${2:-1500} queues=${3:-1}

	lab_init
	LAB_SEQ=$((LAB_SEQ + 1))
	LAB_NS_A="$prefix-$$-$LAB_SEQ-a"
	LAB_NS_B="$prefix-$$-$LAB_SEQ-b"
	LAB_IF_A="${prefix:0:13}-a"
	LAB_IF_B="${prefix:0:13}-b"
	LAB_MAC_A=02:00:00:00:00:01
	LAB_MAC_B=02:00:00:00:00:02
	LAB_IP4_A=10.0.0.1 LAB_IP4_B=10.0.0.2
	LAB_IP6_A=fd00::1 LAB_IP6_B=fd00::2
	if ! { _lab_new_ns "$LAB_NS_A" && _lab_new_ns "$LAB_NS_B" &&
		_lab_veth "$LAB_NS_A" "$LAB_IF_A" "$LAB_MAC_A" \
			"$LAB_NS_B" "$LAB_IF_B" "$LAB_MAC_B" "$mtu" "$queues"; }; then
		lab_log "lab_pair $prefix: setup failed"
		return 1
	fi
	_lab_addr "$LAB_NS_A" "$LAB_IF_A" "$LAB_IP4_A/24" "$LAB_IP6_A/64"
	_lab_addr "$LAB_NS_B" "$LAB_IF_B" "$LAB_IP4_B/24" "$LAB_IP6_B/64"
	lab_neigh_static "$LAB_NS_A" "$LAB_IF_A" "$LAB_IP4_B" "$LAB_MAC_B"
	lab_neigh_static "$LAB_NS_A" "$LAB_IF_A" "$LAB_IP6_B" "$LAB_MAC_B"
	lab_neigh_static "$LAB_NS_B" "$LAB_IF_B" "$LAB_IP4_A" "$LAB_MAC_A"
	lab_neigh_static "$LAB_NS_B" "$LAB_IF_B" "$LAB_IP6_A" "$LAB_MAC_A"
}

# lab_chain PREFIX [MTU]
# A <-> R <-> B: R routes between two veth pairs (IPv4 and IPv6 forwarding).
# A drop in R's forward hook is invisible to both ends' stacks, which makes it
# the place for "wire" loss. Sets LAB_NS_A LAB_NS_R LAB_NS_B, LAB_IF_A
# LAB_IF_RA LAB_IF_RB LAB_IF_B, LAB_IP4_A LAB_IP4_B LAB_IP6_A LAB_IP6_B
# (plus LAB_IP4_RA/RB, LAB_IP6_RA/RB, LAB_MAC_*).
lab_chain()
{
	local prefix=$1 mtu=${2:-1500} p

	lab_init
	LAB_SEQ=$((LAB_SEQ + 1))
	p=${prefix:0:12}
	LAB_NS_A="$prefix-$$-$LAB_SEQ-a"
	LAB_NS_R="$prefix-$$-$LAB_SEQ-r"
	LAB_NS_B="$prefix-$$-$LAB_SEQ-b"
	LAB_IF_A="$p-a" LAB_IF_RA="$p-ra" LAB_IF_RB="$p-rb" LAB_IF_B="$p-b"
	LAB_MAC_A=02:00:00:00:01:01 LAB_MAC_RA=02:00:00:00:01:fe
	LAB_MAC_B=02:00:00:00:02:01 LAB_MAC_RB=02:00:00:00:02:fe
	LAB_IP4_A=10.0.1.1 LAB_IP4_RA=10.0.1.254 LAB_IP4_RB=10.0.2.254 LAB_IP4_B=10.0.2.1
	LAB_IP6_A=fd00:1::1 LAB_IP6_RA=fd00:1::fe LAB_IP6_RB=fd00:2::fe LAB_IP6_B=fd00:2::1
	if ! { _lab_new_ns "$LAB_NS_A" && _lab_new_ns "$LAB_NS_R" && _lab_new_ns "$LAB_NS_B" &&
		_lab_veth "$LAB_NS_A" "$LAB_IF_A" "$LAB_MAC_A" \
			"$LAB_NS_R" "$LAB_IF_RA" "$LAB_MAC_RA" "$mtu" 1 &&
		_lab_veth "$LAB_NS_B" "$LAB_IF_B" "$LAB_MAC_B" \
			"$LAB_NS_R" "$LAB_IF_RB" "$LAB_MAC_RB" "$mtu" 1; }; then
		lab_log "lab_chain $prefix: setup failed"
		return 1
	fi
	ip netns exec "$LAB_NS_R" sysctl -qw net.ipv4.ip_forward=1 \
		net.ipv6.conf.all.forwarding=1 >/dev/null
	_lab_addr "$LAB_NS_A" "$LAB_IF_A" "$LAB_IP4_A/24" "$LAB_IP6_A/64"
	_lab_addr "$LAB_NS_R" "$LAB_IF_RA" "$LAB_IP4_RA/24" "$LAB_IP6_RA/64"
	_lab_addr "$LAB_NS_R" "$LAB_IF_RB" "$LAB_IP4_RB/24" "$LAB_IP6_RB/64"
	_lab_addr "$LAB_NS_B" "$LAB_IF_B" "$LAB_IP4_B/24" "$LAB_IP6_B/64"
	ip -n "$LAB_NS_A" route add default via "$LAB_IP4_RA"
	ip -n "$LAB_NS_A" -6 route add default via "$LAB_IP6_RA"
	ip -n "$LAB_NS_B" route add default via "$LAB_IP4_RB"
	ip -n "$LAB_NS_B" -6 route add default via "$LAB_IP6_RB"
	lab_neigh_static "$LAB_NS_A" "$LAB_IF_A" "$LAB_IP4_RA" "$LAB_MAC_RA"
	lab_neigh_static "$LAB_NS_A" "$LAB_IF_A" "$LAB_IP6_RA" "$LAB_MAC_RA"
	lab_neigh_static "$LAB_NS_R" "$LAB_IF_RA" "$LAB_IP4_A" "$LAB_MAC_A"
	lab_neigh_static "$LAB_NS_R" "$LAB_IF_RA" "$LAB_IP6_A" "$LAB_MAC_A"
	lab_neigh_static "$LAB_NS_R" "$LAB_IF_RB" "$LAB_IP4_B" "$LAB_MAC_B"
	lab_neigh_static "$LAB_NS_R" "$LAB_IF_RB" "$LAB_IP6_B" "$LAB_MAC_B"
	lab_neigh_static "$LAB_NS_B" "$LAB_IF_B" "$LAB_IP4_RB" "$LAB_MAC_RB"
	lab_neigh_static "$LAB_NS_B" "$LAB_IF_B" "$LAB_IP6_RB" "$LAB_MAC_RB"
}

# lab_offloads_off NS DEV...: checksum offload, TSO, GSO and GRO off, so
# captures hold wire-sized frames with final checksums on either side.
lab_offloads_off()
{
	local ns=$1 dev
	shift
	for dev in "$@"; do
		ip netns exec "$ns" ethtool -K "$dev" tx off tso off gso off gro off \
			>/dev/null 2>&1 ||
			lab_log "ethtool -K $dev in $ns: some offloads could not be changed"
	done
}

# lab_pair_offloads_off / lab_chain_offloads_off: lab_offloads_off on every
# interface of the last lab_pair / lab_chain (A, then R's two, then B).
lab_pair_offloads_off()
{
	lab_offloads_off "$LAB_NS_A" "$LAB_IF_A"
	lab_offloads_off "$LAB_NS_B" "$LAB_IF_B"
}

# lab_pair_ipv6_off: IPv6 off on both ends of the last lab_pair, so no
# router or neighbour solicitation lands in a capture that counts packets.
lab_pair_ipv6_off()
{
	ip netns exec "$LAB_NS_A" sysctl -qw "net.ipv6.conf.$LAB_IF_A.disable_ipv6=1"
	ip netns exec "$LAB_NS_B" sysctl -qw "net.ipv6.conf.$LAB_IF_B.disable_ipv6=1"
}

lab_chain_offloads_off()
{
	lab_offloads_off "$LAB_NS_A" "$LAB_IF_A"
	lab_offloads_off "$LAB_NS_R" "$LAB_IF_RA" "$LAB_IF_RB"
	lab_offloads_off "$LAB_NS_B" "$LAB_IF_B"
}

# lab_nft_drop NS HOOK PERCENT [MATCH...]
# Drop PERCENT % of the packets matching MATCH (nft expression, e.g.
# "ip saddr 10.0.1.1 tcp sport 80") at HOOK with a counter, using
# "numgen random mod 100 < PERCENT". HOOK: prerouting|input|forward|output|
# postrouting (table inet lab_loss), or ingress:DEV|egress:DEV (table netdev).
# Where to drop matters:
#   - output/postrouting/egress in the sender's namespace are local drops: the
#     sender's TCP is told (the transmit fails) and re-sends, which is not a
#     loss on the wire (checked: 30 % drops, 0 TcpRetransSegs); output also
#     sees GSO super-packets (TCP builds them even with gso off), not segments;
#   - ingress/prerouting/input on the receiver run after AF_PACKET taps, so a
#     capture on the receiver's interface still shows the dropped packet;
#   - forward in a lab_chain router is a real wire loss for both ends.
# Read the ground truth with lab_nft_counter.
lab_nft_drop()
{
	_lab_nft_loss lab_nft_drop drop "counter drop" "$@"
}

# _lab_nft_loss CALLER CHAIN VERDICT NS HOOK PERCENT [MATCH...]: the rule of
# lab_nft_drop and lab_nft_drop_nflog: in table lab_loss (inet, or netdev for
# ingress:DEV/egress:DEV), chain CHAIN_HOOK[_DEV], MATCH plus
# "numgen random mod 100 < PERCENT" plus VERDICT. CALLER names the error.
_lab_nft_loss()
{
	local caller=$1 chain=$2 verdict=$3 ns=$4 hook=$5 pct=$6 family=inet dev=""
	shift 6
	local match="$*"

	case $hook in
	ingress:* | egress:*)
		family=netdev
		dev=${hook#*:}
		hook=${hook%%:*}
		;;
	prerouting | input | forward | output | postrouting) ;;
	*)
		lab_log "$caller: bad hook $hook"
		return 1
		;;
	esac
	chain="${chain}_$hook${dev:+_${dev//-/_}}"
	ip netns exec "$ns" nft -f - <<EOF
table $family lab_loss {
	chain $chain {
		type filter hook $hook ${dev:+device "$dev"} priority 0; policy accept;
		$match numgen random mod 100 < $pct $verdict
	}
}
EOF
}

# lab_nft_counter NS: packets dropped so far by all lab_nft_drop rules in NS.
lab_nft_counter()
{
	ip netns exec "$1" nft list ruleset |
		awk '/table (inet|netdev) lab_loss/ { t = 1 } /^}/ { t = 0 }
		     t && /counter packets/ { for (i = 1; i < NF; i++)
			if ($i == "packets") n += $(i + 1) } END { print n + 0 }'
}

# lab_link_stat NS DEV STAT: one /sys/class/net/DEV/statistics counter
# (rx_packets, tx_packets, rx_dropped, tx_dropped, ...).
lab_link_stat()
{
	ip netns exec "$1" cat "/sys/class/net/$2/statistics/$3"
}

# lab_chain_link_drops: rx_dropped + tx_dropped summed over the four
# interfaces of the last lab_chain (0 unless a veth queue overflowed).
lab_chain_link_drops()
{
	local x s n=0

	for x in "$LAB_NS_A:$LAB_IF_A" "$LAB_NS_R:$LAB_IF_RA" "$LAB_NS_R:$LAB_IF_RB" \
		"$LAB_NS_B:$LAB_IF_B"; do
		for s in rx_dropped tx_dropped; do
			n=$((n + $(lab_link_stat "${x%%:*}" "${x#*:}" "$s")))
		done
	done
	echo "$n"
}

# lab_capture_start NS tcpdump|dumpcap ARGS...
# Start a capture in NS in the background and wait until it is capturing
# (its "listening on"/"Capturing on" line). tcpdump gets -Z root (it would
# drop privileges before opening the output file). Sets LAB_CAP_PID.
lab_capture_start()
{
	local ns=$1 tool=$2 log extra=()
	shift 2

	lab_init
	log="$LAB_TMP/capture.$RANDOM.$SECONDS.log"
	[ "$tool" = tcpdump ] && extra=(-Z root)
	lab_bg "$ns" "$tool" "${extra[@]}" "$@" 2>"$log"
	LAB_CAP_PID=$LAB_LAST_PID
	LAB_CAP_LOG[$LAB_CAP_PID]=$log
	for _ in $(seq 100); do
		grep -qE 'listening on|Capturing on' "$log" && return 0
		kill -0 "$LAB_CAP_PID" 2>/dev/null || break
		sleep 0.05
	done
	lab_log "$tool did not start:"
	cat "$log" >&2
	return 1
}

# lab_capture_stop PID [SETTLE_SECS]: wait SETTLE_SECS (default 2, at least
# 1.5: TPACKET_V3 hands blocks to userspace on a ~1 s timer, so stopping
# sooner can silently lose the tail), then stop the capture with SIGTERM (it
# finishes and closes the file). Sets LAB_CAP_PACKETS and LAB_CAP_DROPS from
# its summary; returns 1 when the kernel or the tool dropped packets.
lab_capture_stop()
{
	local pid=$1 settle=${2:-2} log

	log=${LAB_CAP_LOG[$pid]}
	sleep "$settle"
	kill -TERM "$pid" 2>/dev/null
	lab_wait "$pid" || true
	LAB_CAP_PACKETS=$(tr '\r' '\n' <"$log" | awk '/packets? captured$/ { n = $1 }
		/^Packets captured:/ { n = $3 } END { print n + 0 }')
	LAB_CAP_DROPS=$(awk '/packets? dropped by kernel$/ { n += $1 }
		/^Packets received\/dropped/ { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\/[0-9]+$/) {
			split($i, a, "/"); n += a[2] } }
		END { print n + 0 }' "$log")
	grep -vE '^(Running as user|File: )' "$log" | sed 's/^/  capture: /' >&2
	[ "$LAB_CAP_DROPS" -eq 0 ]
}

# lab_capture_starved NS IFACE PCAP: a capture of IFACE in NS into PCAP that
# is starved on purpose (findings-loss-capture.sh, findings-vpair-capture.sh):
# tcpdump with the smallest ring libpcap allows (-B 1, -s 96, tcp only)
# writing through a FIFO into a deliberately slow consumer, so the ring
# overflows and the capture misses packets. Sets LAB_CAP_PID (stop it with
# lab_capture_stop) and LAB_STARVED_SINK (the consumer: lab_wait it after).
lab_capture_starved()
{
	local ns=$1 dev=$2 out=$3 slow

	slow="$LAB_TMP/slow.$RANDOM.fifo"
	mkfifo "$slow"
	lab_bg "$ns" python3 -c '
import sys, time
with open(sys.argv[1], "rb") as src, open(sys.argv[2], "wb") as dst:
    while True:
        b = src.read(65536)
        if not b:
            break
        dst.write(b)
        time.sleep(0.002)
' "$slow" "$out"
	LAB_STARVED_SINK=$LAB_LAST_PID
	lab_capture_start "$ns" tcpdump -i "$dev" -B 1 -s 96 -U -w - tcp >"$slow"
}

# nstat deltas per namespace (each namespace keeps its own history file).
# lab_nstat_reset NS: start counting from now.
lab_nstat_reset()
{
	NSTAT_HISTORY="$LAB_TMP/nstat.$1" ip netns exec "$1" nstat -n
}

# lab_nstat NS COUNTER: delta of one counter since lab_nstat_reset (0 if none).
lab_nstat()
{
	NSTAT_HISTORY="$LAB_TMP/nstat.$1" ip netns exec "$1" nstat -sz "$2" |
		awk -v c="$2" '$1 == c { v = $2 } END { print v + 0 }'
}

# lab_nft_drop_nflog NS HOOK PERCENT GROUP [MATCH...]
# lab_nft_drop, plus a copy of every dropped packet (first 120 bytes) to NFLOG
# group GROUP: capture it in NS with `tcpdump -i nflog:GROUP` to know exactly
# which packets were dropped. queue-threshold 1 hands each one over at once
# (without it most are never logged). Same table as lab_nft_drop, so
# lab_nft_counter counts these drops too.
lab_nft_drop_nflog()
{
	local ns=$1 hook=$2 pct=$3 group=$4
	shift 4
	_lab_nft_loss lab_nft_drop_nflog drop_log \
		"counter log group $group snaplen 120 queue-threshold 1 drop" "$ns" "$hook" "$pct" "$@"
}

# lab_json FILE PATH...: print one value per PATH from a JSON document, PATH
# being dot-separated keys and list indexes (connections.0.s2c.unique_bytes);
# "null" for JSON null, nothing and status 1 when a PATH is missing.
lab_json()
{
	python3 - "$@" <<'PY'
import json, sys
with open(sys.argv[1]) as f:
    doc = json.load(f)
rc = 0
for path in sys.argv[2:]:
    v = doc
    try:
        for k in path.split("."):
            v = v[int(k)] if isinstance(v, list) else v[k]
    except (KeyError, IndexError, ValueError, TypeError):
        print(f"lab_json: no {path} in {sys.argv[1]}", file=sys.stderr)
        rc = 1
        continue
    print("null" if v is None else json.dumps(v) if isinstance(v, (dict, list)) else
          str(v).lower() if isinstance(v, bool) else v)
sys.exit(rc)
PY
}

# --- scenarios (tests/lab/foundation-*.sh) ---------------------------------
# A scenario runs as `SCRIPT TCPSIFT [LAB_PEER]` and reads: lab_scenario_init;
# setup (lab_pair/lab_chain, offloads, loss, nstat, captures); traffic
# (lab_transfer); lab_capture_analyze; ground truth; lab_check...; one
# lab_verdict. Exit 0 pass, 1 fail (or lab_abort), 77 skip.

# _lab_split_args ARG...: _LAB_HEAD = the ARGs before the first "--",
# _LAB_TAIL = those after it (none without a "--").
_lab_split_args()
{
	_LAB_HEAD=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		_LAB_HEAD+=("$1")
		shift
	done
	[ $# -eq 0 ] || shift
	_LAB_TAIL=("$@")
}

# lab_scenario_init NAME TOOL... -- TCPSIFT [LAB_PEER]: pass the script's "$@"
# after --. Sets LAB_NAME, LAB_BIN and LAB_PEER (absolute; LAB_PEER defaults to
# $(dirname TCPSIFT)/tests/tools/lab-peer). Exits 77 with a SKIP line without
# root and ip netns (lab_require_root), without one of the TOOLs (commands),
# or without an executable lab-peer.
lab_scenario_init()
{
	local t tools

	LAB_NAME=$1
	shift
	_lab_split_args "$@"
	tools=("${_LAB_HEAD[@]}")
	set -- "${_LAB_TAIL[@]}"
	LAB_BIN=$(realpath "${1:?usage: $0 TCPSIFT [LAB_PEER]}")
	LAB_PEER=$(realpath "${2:-$(dirname "$LAB_BIN")/tests/tools/lab-peer}")

	lab_require_root
	for t in "${tools[@]}"; do
		command -v "$t" >/dev/null || {
			echo "SKIP $LAB_NAME: needs $t"
			exit 77
		}
	done
	[ -x "$LAB_PEER" ] || {
		echo "SKIP $LAB_NAME: no lab-peer at $LAB_PEER"
		exit 77
	}
}

# lab_transfer SRV_NS SRV_ADDR CLI_NS CLI_ADDR SECS MODE BYTES [SRV_OPT...]
#              [-- CLI_OPT...]
# One lab-peer transfer: a server in SRV_NS listening on SRV_ADDR (IP:PORT or
# [IP6]:PORT), then a client in CLI_NS bound to CLI_ADDR connecting to it,
# both with --timeout SECS -m MODE -n BYTES (the client is killed after
# SECS + 5 s); SRV_OPTs go to the server, CLI_OPTs to the client. Returns
# when both have ended: 0, or the status of the first step that failed.
lab_transfer()
{
	local sns=$1 saddr=$2 cns=$3 caddr=$4 secs=$5 mode=$6 bytes=$7 srv sopts

	shift 7
	_lab_split_args "$@"
	sopts=("${_LAB_HEAD[@]}")
	set -- "${_LAB_TAIL[@]}"
	lab_bg "$sns" "$LAB_PEER" server --timeout "$secs" -l "$saddr" -m "$mode" \
		-n "$bytes" "${sopts[@]}"
	srv=$LAB_LAST_PID
	lab_wait_listen "$sns" "${saddr##*:}" || return
	lab_run "$cns" $((secs + 5)) "$LAB_PEER" client --timeout "$secs" -c "$saddr" \
		-b "$caddr" -m "$mode" -n "$bytes" "$@" || return
	lab_wait "$srv"
}

# lab_analyze PCAP JSON: tcpsift (LAB_BIN) analyze --json on PCAP, the report
# into JSON; a non-zero exit or a report that does not match the documented
# schema (man/tcpsift-report.schema.json) is recorded with lab_fail.
lab_analyze()
{
	"$LAB_BIN" analyze --json --no-progress "$1" >"$2" || lab_fail "tcpsift exited $?"
	"$LAB_SRC/scripts/schema.py" validate "$2" >&2 || lab_fail "$(basename "$2"): not the documented schema"
}

# lab_capture_analyze PID PCAP JSON: lab_capture_stop PID, then lab_analyze
# PCAP JSON. The capture's own drops do not stop the script: check
# LAB_CAP_DROPS (with LAB_CAP_PACKETS, set until the next lab_capture_stop).
lab_capture_analyze()
{
	lab_capture_stop "$1" || true
	lab_analyze "$2" "$3"
}

# lab_values JSON PATH...: lab_json's values on one line, for
# `read -r A B ... < <(lab_values JSON PATH...)`.
lab_values()
{
	local out
	# Print nothing when the report is unusable, so the caller's read fails.
	out=$(lab_json "$@") || return 1
	paste -sd' ' <<<"$out"
}

# lab_fail MSG: record a failed check (lab_verdict prints it and exits 1).
lab_fail()
{
	LAB_FAILS+=("$*")
}

# lab_check MSG TEST...: lab_fail MSG unless `[ TEST... ]` holds.
lab_check()
{
	local msg=$1

	shift
	[ "$@" ] || lab_fail "$msg"
}

# lab_steal_ms: the CPU time the hypervisor has taken from this machine's
# CPUs, all of them, since boot (/proc/stat's steal, USER_HZ ticks), in ms:
# two readings around a transfer say how long its virtual machine stood
# still, a pause no path or peer explains.
lab_steal_ms()
{
	echo $(($(awk '/^cpu / { print $9 }' /proc/stat) * 1000 / $(getconf CLK_TCK)))
}

# lab_harness MSG TEST...: lab_check of the experiment itself (a capture or
# a veth that dropped, a relay that failed to send): its failure says
# "(harness)", and a scenario whose every failure is so is run once more,
# then skipped (tests/lab/scenarios.sh): no verdict on tcpsift.
lab_harness()
{
	local msg=$1

	shift
	[ "$@" ] || lab_fail "$msg (harness)"
}

# lab_abort MSG: the scenario cannot be judged; print "NAME: MSG", exit 1.
lab_abort()
{
	echo "$LAB_NAME: $*"
	exit 1
}

# lab_verdict RESULT...: the end of a scenario. Prints the one result line
# "NAME: RESULT..." (measured (expected), ...); with LAB_KEEP=DIR copies the
# captures and reports there for a look afterwards; then prints one
# "  FAIL: MSG" line per failed check and exits 1, or exits 0 when none failed.
# A failed scenario's captures, reports and logs go to LAB_FAILED_DIR/NAME
# (default build/lab-failed; "" keeps nothing): a failure seen once under
# load can be read afterwards instead of guessed at.
lab_verdict()
{
	local dst

	echo "$LAB_NAME: $*"
	if [ -n "${LAB_KEEP:-}" ]; then
		mkdir -p "$LAB_KEEP" && cp "$LAB_TMP"/*.pcap "$LAB_TMP"/*.json "$LAB_KEEP"/
	fi
	if [ ${#LAB_FAILS[@]} -gt 0 ]; then
		printf '  FAIL: %s\n' "${LAB_FAILS[@]}"
		dst=${LAB_FAILED_DIR-build/lab-failed}
		if [ -n "$dst" ] && mkdir -p "$dst/$LAB_NAME" 2>/dev/null; then
			find "$LAB_TMP" -maxdepth 1 -type f \( -name '*.pcap' -o -name '*.json' -o \
				-name '*.log' -o -name '*.err' -o -name '*.txt' \) \
				-exec cp {} "$dst/$LAB_NAME"/ \; 2>/dev/null
			echo "  files kept in $dst/$LAB_NAME"
		fi
		exit 1
	fi
	exit 0
}

# lab_relay_stop PID ERRFILE: stop the lab-relay PID (its stderr in ERRFILE)
# and read its summary line ("lab-relay: held=N reordered=N ..."), or abort
# without one. lab_relay_value KEY then prints one of its numbers.
lab_relay_stop()
{
	kill -TERM "$1" 2>/dev/null || true
	lab_wait "$1" || true
	LAB_RELAY_LINE=$(grep '^lab-relay:' "$2" || true)
	[ -n "$LAB_RELAY_LINE" ] || lab_abort "no summary from lab-relay: $(cat "$2")"
}

lab_relay_value()
{
	sed -n "s/.* $1=\([0-9]*\).*/\1/p" <<<"$LAB_RELAY_LINE"
}

# lab_relay_path LOG ERRFILE OPTION...: start tests/tools/lab-relay (next to
# LAB_PEER) in the middle namespace of the last lab_relay_pair in its path
# mode: OPTIONs are its path options (--delay-ab-us D --delay-ba-us D
# --jitter-us J --rate-ab MBIT --queue-pkts N --loss-ab-pct P --seed S ...),
# one line per drop in LOG, its stderr in ERRFILE. Returns once the relay
# holds both sockets (its LOG header is written); sets LAB_RELAY_PID. Stop
# it with lab_relay_stop LAB_RELAY_PID ERRFILE, then read its counts
# (ab_forwarded, ab_dropped_queue, ab_dropped_loss, ab_max_queue, ba_...)
# with lab_relay_value. Bounded by LAB_RELAY_TIMEOUT seconds (default 60).
lab_relay_path()
{
	local log=$1 err=$2 relay i
	shift 2

	relay=$(dirname "$LAB_PEER")/lab-relay
	[ -x "$relay" ] || lab_abort "no lab-relay at $relay"
	# --rt: an emulated path keeps its schedule on a busy host.
	lab_bg "$LAB_NS_R" "$relay" -a "$LAB_IF_RA" -b "$LAB_IF_RB" --log "$log" \
		--timeout "${LAB_RELAY_TIMEOUT:-60}" --rt 50 "$@" 2>"$err"
	LAB_RELAY_PID=$LAB_LAST_PID
	for i in $(seq 100); do
		grep -q '^# lab-relay path' "$log" 2>/dev/null && return 0
		kill -0 "$LAB_RELAY_PID" 2>/dev/null || break
		sleep 0.02
	done
	lab_abort "lab-relay did not start: $(cat "$err")"
}

# --- relay topology (findings-reorder-*.sh) ---------------------------------

# lab_relay_pair PREFIX [QUEUES]
# A <-> R <-> B where R holds one end of each veth pair, with no addresses
# and ip_forward off: a userspace relay (tests/tools/lab-relay) must carry
# every frame, so it can delay or reorder them (there is no netem here). A
# and B share one subnet (10.0.0.1/.2, fd00::1/::2) with static neighbour
# entries for each other's MAC. QUEUES (default 1) RX/TX queues on the R-B
# pair. Offloads (checksum, TSO, GSO, GRO) are off on all four interfaces:
# the relay reads what the wire would carry. Sets LAB_NS_A LAB_NS_R LAB_NS_B,
# LAB_IF_A LAB_IF_RA LAB_IF_RB LAB_IF_B, LAB_IP4_A/B, LAB_IP6_A/B, LAB_MAC_A/B.
lab_relay_pair()
{
	local prefix=$1 queues=${2:-1} p

	lab_init
	LAB_SEQ=$((LAB_SEQ + 1))
	p=${prefix:0:12}
	LAB_NS_A="$prefix-$$-$LAB_SEQ-a"
	LAB_NS_R="$prefix-$$-$LAB_SEQ-r"
	LAB_NS_B="$prefix-$$-$LAB_SEQ-b"
	LAB_IF_A="$p-a" LAB_IF_RA="$p-ra" LAB_IF_RB="$p-rb" LAB_IF_B="$p-b"
	LAB_MAC_A=02:00:00:00:00:01 LAB_MAC_B=02:00:00:00:00:02
	LAB_IP4_A=10.0.0.1 LAB_IP4_B=10.0.0.2
	LAB_IP6_A=fd00::1 LAB_IP6_B=fd00::2
	if ! { _lab_new_ns "$LAB_NS_A" && _lab_new_ns "$LAB_NS_R" && _lab_new_ns "$LAB_NS_B" &&
		_lab_veth "$LAB_NS_A" "$LAB_IF_A" "$LAB_MAC_A" \
			"$LAB_NS_R" "$LAB_IF_RA" 02:00:00:00:00:fa 1500 1 &&
		_lab_veth "$LAB_NS_B" "$LAB_IF_B" "$LAB_MAC_B" \
			"$LAB_NS_R" "$LAB_IF_RB" 02:00:00:00:00:fb 1500 "$queues"; }; then
		lab_log "lab_relay_pair $prefix: setup failed"
		return 1
	fi
	ip netns exec "$LAB_NS_R" sysctl -qw net.ipv4.ip_forward=0 \
		net.ipv6.conf.all.forwarding=0 net.ipv6.conf.all.disable_ipv6=1 >/dev/null
	_lab_addr "$LAB_NS_A" "$LAB_IF_A" "$LAB_IP4_A/24" "$LAB_IP6_A/64"
	_lab_addr "$LAB_NS_B" "$LAB_IF_B" "$LAB_IP4_B/24" "$LAB_IP6_B/64"
	lab_neigh_static "$LAB_NS_A" "$LAB_IF_A" "$LAB_IP4_B" "$LAB_MAC_B"
	lab_neigh_static "$LAB_NS_A" "$LAB_IF_A" "$LAB_IP6_B" "$LAB_MAC_B"
	lab_neigh_static "$LAB_NS_B" "$LAB_IF_B" "$LAB_IP4_A" "$LAB_MAC_A"
	lab_neigh_static "$LAB_NS_B" "$LAB_IF_B" "$LAB_IP6_A" "$LAB_MAC_A"
	lab_offloads_off "$LAB_NS_A" "$LAB_IF_A"
	lab_offloads_off "$LAB_NS_R" "$LAB_IF_RA" "$LAB_IF_RB"
	lab_offloads_off "$LAB_NS_B" "$LAB_IF_B"
}

# lab_relay_chain PREFIX [MTU]
# A <-> R <-> M <-> B: two relay namespaces in a row (R next to A, M next to
# B), each holding one end of the veth pair between them (R's LAB_IF_RM,
# M's LAB_IF_MR), no addresses, ip_forward off, so two userspace relays
# (lab_relay_path, or lab-relay started by hand in LAB_NS_M) carry every
# frame in turn. A capture on LAB_IF_RM is a tap in the middle of the path:
# it sees A -> B frames after R's half of the path and B -> A frames after
# M's. A and B as in lab_relay_pair (10.0.0.1/.2, fd00::1/::2, static
# neighbours); MTU (default 1500) on all six veths; offloads off everywhere.
# Sets LAB_NS_A LAB_NS_R LAB_NS_M LAB_NS_B, LAB_IF_A LAB_IF_RA LAB_IF_RM
# LAB_IF_MR LAB_IF_MB LAB_IF_B, LAB_IP4_A/B, LAB_IP6_A/B, LAB_MAC_A/B.
lab_relay_chain()
{
	local prefix=$1 mtu=${2:-1500} p ns

	lab_init
	LAB_SEQ=$((LAB_SEQ + 1))
	p=${prefix:0:12}
	LAB_NS_A="$prefix-$$-$LAB_SEQ-a"
	LAB_NS_R="$prefix-$$-$LAB_SEQ-r"
	LAB_NS_M="$prefix-$$-$LAB_SEQ-m"
	LAB_NS_B="$prefix-$$-$LAB_SEQ-b"
	LAB_IF_A="$p-a" LAB_IF_RA="$p-ra" LAB_IF_RM="$p-rm"
	LAB_IF_MR="$p-mr" LAB_IF_MB="$p-mb" LAB_IF_B="$p-b"
	LAB_MAC_A=02:00:00:00:00:01 LAB_MAC_B=02:00:00:00:00:02
	LAB_IP4_A=10.0.0.1 LAB_IP4_B=10.0.0.2
	LAB_IP6_A=fd00::1 LAB_IP6_B=fd00::2
	if ! { _lab_new_ns "$LAB_NS_A" && _lab_new_ns "$LAB_NS_R" && _lab_new_ns "$LAB_NS_M" &&
		_lab_new_ns "$LAB_NS_B" &&
		_lab_veth "$LAB_NS_A" "$LAB_IF_A" "$LAB_MAC_A" \
			"$LAB_NS_R" "$LAB_IF_RA" 02:00:00:00:00:fa "$mtu" 1 &&
		_lab_veth "$LAB_NS_R" "$LAB_IF_RM" 02:00:00:00:00:fc \
			"$LAB_NS_M" "$LAB_IF_MR" 02:00:00:00:00:fd "$mtu" 1 &&
		_lab_veth "$LAB_NS_B" "$LAB_IF_B" "$LAB_MAC_B" \
			"$LAB_NS_M" "$LAB_IF_MB" 02:00:00:00:00:fb "$mtu" 1; }; then
		lab_log "lab_relay_chain $prefix: setup failed"
		return 1
	fi
	for ns in "$LAB_NS_R" "$LAB_NS_M"; do
		ip netns exec "$ns" sysctl -qw net.ipv4.ip_forward=0 \
			net.ipv6.conf.all.forwarding=0 net.ipv6.conf.all.disable_ipv6=1 >/dev/null
	done
	_lab_addr "$LAB_NS_A" "$LAB_IF_A" "$LAB_IP4_A/24" "$LAB_IP6_A/64"
	_lab_addr "$LAB_NS_B" "$LAB_IF_B" "$LAB_IP4_B/24" "$LAB_IP6_B/64"
	lab_neigh_static "$LAB_NS_A" "$LAB_IF_A" "$LAB_IP4_B" "$LAB_MAC_B"
	lab_neigh_static "$LAB_NS_A" "$LAB_IF_A" "$LAB_IP6_B" "$LAB_MAC_B"
	lab_neigh_static "$LAB_NS_B" "$LAB_IF_B" "$LAB_IP4_A" "$LAB_MAC_A"
	lab_neigh_static "$LAB_NS_B" "$LAB_IF_B" "$LAB_IP6_A" "$LAB_MAC_A"
	lab_offloads_off "$LAB_NS_A" "$LAB_IF_A"
	lab_offloads_off "$LAB_NS_R" "$LAB_IF_RA" "$LAB_IF_RM"
	lab_offloads_off "$LAB_NS_M" "$LAB_IF_MR" "$LAB_IF_MB"
	lab_offloads_off "$LAB_NS_B" "$LAB_IF_B"
}

# --- tcpsift capture (tests/capture/*.sh, bench/capture.sh) ----------------

# lab_require_capture: exit 77 with a SKIP line unless LAB_BIN has the
# capture verb (call after lab_scenario_init).
lab_require_capture()
{
	"$LAB_BIN" capture --help >/dev/null 2>&1 || {
		echo "SKIP $LAB_NAME: tcpsift capture not built ($LAB_BIN capture --help fails)"
		exit 77
	}
}

# lab_tcpsift_start NS ARGS...: `LAB_BIN capture -Z root ARGS...` in NS in the
# background (lab_bg: bounded by LAB_BG_TIMEOUT), stderr to a log; returns
# once it says it is capturing ("listening on"), 1 if it ended before. Sets
# LAB_TCAP_PID (tcpsift itself: a small sh records its pid and execs it, so
# a signal reaches tcpsift and not the timeout wrapper), LAB_TCAP_JOB (the
# job to wait for) and LAB_TCAP_LOG. -Z root: as root tcpsift would drop to
# an unprivileged user, who cannot create files in our 0700 temp dir.
# Redirect the call's stdout to read `-w -`.
lab_tcpsift_start()
{
	local ns=$1 pidf i
	shift

	lab_init
	LAB_TCAP_LOG="$LAB_TMP/tcapture.$RANDOM.$SECONDS.log"
	pidf="$LAB_TCAP_LOG.pid"
	: >"$LAB_TCAP_LOG"
	# shellcheck disable=SC2016 # $$ and $0 belong to the inner sh
	lab_bg "$ns" sh -c 'echo $$ >"$0"; exec "$@"' "$pidf" "$LAB_BIN" capture -Z root "$@" \
		2>"$LAB_TCAP_LOG"
	LAB_TCAP_JOB=$LAB_LAST_PID
	LAB_TCAP_PID=""
	for i in $(seq 200); do
		[ -z "$LAB_TCAP_PID" ] && [ -s "$pidf" ] && LAB_TCAP_PID=$(cat "$pidf")
		[ -n "$LAB_TCAP_PID" ] && grep -q 'listening on' "$LAB_TCAP_LOG" && return 0
		kill -0 "$LAB_TCAP_JOB" 2>/dev/null || break
		sleep 0.05
	done
	lab_log "tcpsift capture did not start (exit after $i polls):"
	sed 's/^/  tcpsift: /' "$LAB_TCAP_LOG" >&2
	return 1
}

# lab_tcpsift_stop [SIGNAL] [SETTLE_SECS]: wait SETTLE_SECS (default 2: the
# TPACKET_V3 block timer, see lab_capture_stop), send SIGNAL (default INT) to
# the last lab_tcpsift_start's tcpsift, wait up to 20 s for it to end (then
# KILL). Sets LAB_TCAP_RC (its exit status) and LAB_TCAP_STOP_S (seconds from
# the signal to the exit, 1 s resolution).
lab_tcpsift_stop()
{
	local sig=${1:-INT} settle=${2:-2} t0 i

	sleep "$settle"
	t0=$SECONDS
	[ -n "$LAB_TCAP_PID" ] && kill "-$sig" "$LAB_TCAP_PID" 2>/dev/null
	for i in $(seq 200); do
		kill -0 "$LAB_TCAP_JOB" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$LAB_TCAP_JOB" 2>/dev/null && {
		lab_log "tcpsift capture still running 20 s after SIG$sig: killed"
		kill -KILL "$LAB_TCAP_PID" 2>/dev/null
	}
	LAB_TCAP_RC=0
	lab_wait "$LAB_TCAP_JOB" || LAB_TCAP_RC=$?
	LAB_TCAP_STOP_S=$((SECONDS - t0))
	return 0
}

# lab_tcpsift_wait: wait (up to 20 s) for the last lab_tcpsift_start's tcpsift
# to end by itself (-c, --duration, an error). Sets LAB_TCAP_RC.
lab_tcpsift_wait()
{
	local i

	for i in $(seq 200); do
		kill -0 "$LAB_TCAP_JOB" 2>/dev/null || break
		sleep 0.1
	done
	LAB_TCAP_RC=0
	if kill -0 "$LAB_TCAP_JOB" 2>/dev/null; then
		lab_log "tcpsift capture still running after 20 s: killed"
		kill -KILL "$LAB_TCAP_PID" 2>/dev/null
	fi
	lab_wait "$LAB_TCAP_JOB" || LAB_TCAP_RC=$?
	return 0
}

# lab_tcpsift_file FILE: what a capture file and the exit summary of the
# last lab_tcpsift_start's tcpsift say. lab_abort without the file or the
# summary; lab_fail when capinfos cannot read FILE to the end. Sets n
# (packets in FILE, 0 unread), valid (yes|no), captured, written, recv,
# kdrops, ours, unwritten (0 when not printed).
lab_tcpsift_file()
{
	local cap=$1

	[ -s "$cap" ] || lab_abort "no capture file; tcpsift said: $(tail -n 5 "$LAB_TCAP_LOG")"
	valid=yes
	if ! n=$(capinfos -M -c "$cap" 2>"$LAB_TMP/capinfos.err" |
		awk '/^Number of packets/ { print $NF }') ||
		grep -v '^Running as user' "$LAB_TMP/capinfos.err" | grep -q . || [ -z "$n" ]; then
		valid=no
		lab_fail "capinfos could not read $cap to the end: $(head -n 1 "$LAB_TMP/capinfos.err")"
		n=${n:-0}
	fi
	captured=$(lab_tcpsift_count captured) written=$(lab_tcpsift_count written)
	recv=$(lab_tcpsift_count received) kdrops=$(lab_tcpsift_count kernel)
	ours=$(lab_tcpsift_count ours) unwritten=$(lab_tcpsift_count unwritten)
	if [ -z "$captured" ] || [ -z "$written" ] || [ -z "$kdrops" ] || [ -z "$ours" ]; then
		lab_abort "no exit summary from tcpsift: $(tail -n 5 "$LAB_TCAP_LOG")"
	fi
	unwritten=${unwritten:-0}
}

# lab_tcpsift_isb FILE JSON: tcpsift analyze --json of a capture file into
# JSON; sets a_pkts, a_drops (capture_drops or null), isb_recv and isb_os
# (the ISBs' isb_ifrecv and isb_osdrop summed over its interfaces, null
# unless every one has them). Fails as analyze does (its stderr in
# $LAB_TMP/analyze.err).
lab_tcpsift_isb()
{
	"$LAB_BIN" analyze --json --no-progress "$1" >"$2" 2>"$LAB_TMP/analyze.err" || return
	read -r a_pkts a_drops isb_recv isb_os < <(python3 - "$2" <<'PY'
import json, sys
i = json.load(open(sys.argv[1]))["inputs"][0]
ifs = i["interfaces"]
s = lambda k: sum(x[k] for x in ifs) if ifs and all(x[k] is not None for x in ifs) else "null"
print(i["packets"], "null" if i["capture_drops"] is None else i["capture_drops"],
      s("isb_ifrecv"), s("isb_osdrop"))
PY
	)
}

# lab_tcpsift_count KEY [LOG]: a number from tcpsift capture's exit summary
# (LOG, default LAB_TCAP_LOG): KEY captured, written, kernel (dropped by the
# kernel, tp_drops), interface (dropped by the interface), received (by the
# filter), ours (dropped by tcpsift: hand-off queue full), unwritten (not
# written: output error, -c reached), late (packets the kernel handed over
# stamped before what their socket had vouched for) and late_us (by up to
# how much, in us). Prints "" when not found.
lab_tcpsift_count()
{
	local key=$1 log=${2:-$LAB_TCAP_LOG}

	tr '\r' '\n' <"$log" | awk -v key="$key" '
		function grab(pat,   i) {
			if ($0 !~ pat) return
			for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+$/) { v = $i; return }
		}
		key == "captured"  { grab("packets captured|^captured") }
		key == "written"   { grab("packets written|^written") }
		key == "kernel"    { grab("dropped by kernel") }
		key == "interface" { grab("dropped by interface") }
		key == "received"  { grab("received by filter") }
		key == "ours"      { grab("dropped by (us|tcpsift)") }
		key == "unwritten" { grab("packets not written") }
		key == "late"      { grab("came stamped before") }
		key == "late_us" && /came stamped before/ {
			if (match($0, /by up to [0-9.]+ ms/))
				v = sprintf("%d", substr($0, RSTART + 9, RLENGTH - 12) * 1000 + 0.5)
		}
		END { print v }'
}

# lab_pcap_read FILE [TSHARK_ARGS...]: tshark reads FILE ("-": stdin) to the
# end; prints the packet count (or `-T fields` output with TSHARK_ARGS).
# Status 1 (tshark's complaint on stderr) when it is not a complete, valid
# file: a cut-short last record makes tshark exit non-zero.
lab_pcap_read()
{
	local f=$1 err rc=0
	shift

	err=$(mktemp "${LAB_TMP:-/tmp}/tshark-err.XXXXXX")
	if [ $# -eq 0 ]; then
		tshark -r "$f" -T fields -e frame.number 2>"$err" >"$err.out" || rc=1
		wc -l <"$err.out"
		rm -f "$err.out"
	else
		tshark -r "$f" "$@" 2>"$err" || rc=1
	fi
	# tshark says "Running as user root" even when only reading.
	grep -v '^Running as user' "$err" | grep -q . && rc=1
	[ "$rc" -eq 0 ] || grep -v '^Running as user' "$err" | sed 's/^/  tshark: /' >&2
	rm -f "$err"
	return $rc
}

# lab_downloads FLOWS BYTES SECS [SERVER_OPT...]: FLOWS lab-peer downloads
# from A to B on a lab_pair: servers in A on LAB_IP4_A:5001.., clients in B
# bound to LAB_IP4_B:40001.., each with --timeout SECS, logs appended to
# $LAB_TMP/peers.log. Returns once every client has started; the pids of
# servers and clients are in LAB_DL_PIDS (see lab_downloads_wait).
lab_downloads()
{
	local flows=$1 bytes=$2 secs=$3 i
	shift 3

	LAB_DL_PIDS=()
	for i in $(seq "$flows"); do
		lab_bg "$LAB_NS_A" "$LAB_PEER" server --timeout "$secs" -l "$LAB_IP4_A:$((5000 + i))" \
			-m download -n "$bytes" "$@" 2>>"$LAB_TMP/peers.log"
		LAB_DL_PIDS+=("$LAB_LAST_PID")
	done
	for i in $(seq "$flows"); do
		lab_wait_listen "$LAB_NS_A" $((5000 + i)) || lab_abort "server $i did not listen"
		lab_bg "$LAB_NS_B" "$LAB_PEER" client --timeout "$secs" -c "$LAB_IP4_A:$((5000 + i))" \
			-b "$LAB_IP4_B:$((40000 + i))" -m download -n "$bytes" 2>>"$LAB_TMP/peers.log"
		LAB_DL_PIDS+=("$LAB_LAST_PID")
	done
}

# lab_downloads_wait: wait for the last lab_downloads; lab_abort when any
# lab-peer failed.
lab_downloads_wait()
{
	local p failed=0

	for p in "${LAB_DL_PIDS[@]}"; do
		lab_wait "$p" || failed=$((failed + 1))
	done
	[ "$failed" -eq 0 ] || lab_abort "$failed lab-peer ends failed: $(tail -n 3 "$LAB_TMP/peers.log")"
}
