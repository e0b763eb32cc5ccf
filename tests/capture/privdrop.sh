#!/usr/bin/env bash
# privdrop.sh TCPSIFT [LAB_PEER] - started as root without -Z, tcpsift capture
# drops to the unprivileged user "tcpdump" once its sockets are open (as
# tcpdump does); with -Z root it stays root.
#
# lab_pair; the output goes to a sticky world-writable directory of ours
# (the dropped user must be able to create files there). Ground truth: the
# user database (getent passwd tcpdump) and /proc/PID/status of tcpsift.
# Checks: while capturing without -Z, the real, effective, saved and file
# system uids and gids are tcpdump's and no supplementary group is root's;
# the file it wrote is owned by tcpdump and is valid (tcpsift analyze reads
# the packets of a small transfer); SIGINT ends it with exit 0. With -Z root:
# uid 0 while capturing.
# Exit 0 pass, 1 fail, 77 skip (no tcpdump user); one line of what was seen.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lab/common.sh
. "$here/../lab/common.sh"

lab_scenario_init capture-privdrop python3 -- "$@"
lab_require_capture
pw=$(getent passwd tcpdump) || {
	echo "SKIP $LAB_NAME: no user tcpdump to drop to"
	exit 77
}
uid=$(cut -d: -f3 <<<"$pw") gid=$(cut -d: -f4 <<<"$pw")

lab_pair cprivdrop 1500 1
out="$LAB_TMP/out"
mkdir -m 1777 "$out"
chmod 755 "$LAB_TMP"

# start_capture ARGS...: tcpsift capture in B (no -Z added), its pid in CAP_PID.
LAB_CAP_WRAP=()
start_capture() { lab_tcpsift_capture "$(umask)" "$@"; }
# ids PID: "ruid euid suid fsuid rgid egid sgid fsgid groups..."
ids() { awk '/^Uid:/ {u = $2" "$3" "$4" "$5} /^Gid:/ {g = $2" "$3" "$4" "$5}
	/^Groups:/ {$1 = ""; gr = $0} END {print u, g gr}' "/proc/$1/status"; }

start_capture -i "$LAB_IF_B" -w "$out/dropped.pcapng"
sleep 0.3 # past ring_start: the drop happens before it
seen=$(ids "$CAP_PID")
lab_transfer "$LAB_NS_A" "$LAB_IP4_A:5001" "$LAB_NS_B" "$LAB_IP4_B:40001" 10 download 200k ||
	lab_fail "transfer failed"
sleep 1
kill -INT "$CAP_PID"
rc=0
lab_wait "$CAP_JOB" || rc=$?
want="$uid $uid $uid $uid $gid $gid $gid $gid"
read -r -a f <<<"$seen"
lab_check "ids '$seen', want '$want' then groups" "${f[*]:0:8}" = "$want"
for g in "${f[@]:8}"; do lab_check "supplementary group 0 kept ($seen)" "$g" != 0; done
owner=$(stat -c %u "$out/dropped.pcapng" 2>/dev/null || echo none)
lab_check "file owner $owner, want $uid" "$owner" = "$uid"
lab_check "exit $rc after SIGINT" "$rc" -eq 0
conns=$("$LAB_BIN" analyze --json --no-progress "$out/dropped.pcapng" |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["summary"]["connections"])') || conns=0
lab_check "analyze of the file: $conns connections (want 1)" "$conns" -eq 1

start_capture -Z root -i "$LAB_IF_B" -w "$out/root.pcapng"
sleep 0.3
root_ids=$(ids "$CAP_PID")
kill -INT "$CAP_PID"
lab_wait "$CAP_JOB" || true
lab_check "-Z root: ids '$root_ids'" "${root_ids%% *}" = 0

lab_verdict "no -Z: uid/gid ${seen%% *}/$gid (tcpdump $uid/$gid), file owner $owner, $conns connection, exit $rc; -Z root: uid ${root_ids%% *} (0)"
