#!/usr/bin/env bash
# safefiles.sh TCPSIFT [LAB_PEER] - a capturer started as root cannot be made
# to write through a planted link or over someone's file, keeps no way back
# to its privileges, and never stays root silently.
#
# lab_pair; the files go to a sticky world-writable directory of ours, the
# kind of place an unprivileged user can plant links in. Ground truth: the
# file system (lstat, contents, modes) and /proc/PID/status of tcpsift.
# Checks:
#   - a symlink planted at the -w name (to a victim file; and dangling) is
#     refused with one line and exit 3, with -Z root too and with
#     --overwrite; the victim is untouched, nothing created behind the
#     dangling link;
#   - an existing file is refused (exit 3, one line, contents intact) unless
#     --overwrite, which replaces it;
#   - a new file is mode 0640 (umask 077 around tcpsift: set exactly), or
#     what --file-mode says;
#   - while capturing, dropped to tcpdump and with -Z root alike:
#     NoNewPrivs 1 and CapBnd 0000000000000000;
#   - -Z nosuchuser: exit 3, one line naming the user, no file;
#   - no tcpdump user (a private mount namespace whose /etc/passwd lacks it,
#     the system's user database untouched): one warning line that it stays
#     root, uid 0, NoNewPrivs 1, CapBnd 0.
# Exit 0 pass, 1 fail, 77 skip (no tcpdump user); one line of what was seen.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lab/common.sh
. "$here/../lab/common.sh"

lab_scenario_init capture-safefiles unshare mount -- "$@"
lab_require_capture
getent passwd tcpdump >/dev/null || {
	echo "SKIP $LAB_NAME: no user tcpdump to drop to"
	exit 77
}

lab_pair csafe 1500 1
out="$LAB_TMP/out"
mkdir -m 1777 "$out"
chmod 755 "$LAB_TMP"
victim="$LAB_TMP/victim"
echo precious >"$victim"

# once ARGS...: a capture that must fail before capturing; RC and ERR set.
once() {
	RC=0
	ERR=$(ip netns exec "$LAB_NS_B" timeout 10 "$LAB_BIN" capture -i "$LAB_IF_B" --duration 2 \
		"$@" 2>&1) || RC=$?
}
# refused WHAT WANT_TEXT ARGS...: once ARGS; exit 3 with one line containing WANT_TEXT.
refused() {
	local what=$1 want=$2
	shift 2
	once "$@"
	lab_check "$what: exit $RC (want 3)" "$RC" -eq 3
	lab_check "$what: said '$ERR' (want one line with '$want')" \
		"$(grep -c . <<<"$ERR")/$(grep -cF -- "$want" <<<"$ERR")" = 1/1
}

# Planted symlinks: to a victim, and dangling.
ln -s "$victim" "$out/planted.pcapng"
refused "symlink" "symbolic link: not followed" -w "$out/planted.pcapng"
refused "symlink, -Z root" "symbolic link: not followed" -Z root -w "$out/planted.pcapng"
refused "symlink, -Z root --overwrite" "symbolic link: not followed" -Z root --overwrite \
	-w "$out/planted.pcapng"
ln -s "$out/behind" "$out/dangling.pcapng"
refused "dangling symlink, -Z root" "symbolic link" -Z root -w "$out/dangling.pcapng"
lab_check "victim changed: $(head -c 32 "$victim" | tr -c "[:print:]" .)" "$(tr -d "\\0" <"$victim")" = precious
lab_check "a file appeared behind the dangling link" ! -e "$out/behind"
lab_check "planted link replaced" -L "$out/planted.pcapng"

# An existing file: refused, then replaced with --overwrite.
echo old >"$out/exists.pcapng"
chown tcpdump "$out/exists.pcapng"
refused "existing file" "exists: not overwritten" -w "$out/exists.pcapng"
lab_check "existing file changed: '$(cat "$out/exists.pcapng")'" \
	"$(cat "$out/exists.pcapng")" = old
once -q --overwrite -w "$out/exists.pcapng"
magic=$(od -An -tx1 -N4 "$out/exists.pcapng" | tr -d ' ')
lab_check "--overwrite: exit $RC '$ERR', magic $magic (want 0, 0a0d0d0a)" "$RC/$magic" = 0/0a0d0d0a

# -Z nosuchuser: one line, nothing written.
refused "-Z nosuchuser" "-Z nosuchuser: no such user" -Z nosuchuser -w "$out/nouser.pcapng"
lab_check "-Z nosuchuser wrote a file" ! -e "$out/nouser.pcapng"

# start_capture ARGS...: a capture in B (umask 077), its pid in CAP_PID, stderr in CAP_LOG.
start_capture() { lab_tcpsift_capture 077 -i "$LAB_IF_B" "$@"; }
# status: "uid NoNewPrivs CapBnd" of the running capture, then stop it.
status() {
	local s
	sleep 0.3
	s=$(awk '/^Uid:/ {u = $2} /^NoNewPrivs:/ {n = $2} /^CapBnd:/ {b = $2}
		END {print u, n, b}' "/proc/$CAP_PID/status")
	kill -INT "$CAP_PID"
	lab_wait "$CAP_JOB" || true
	echo "$s"
}
tcpdump_uid=$(id -u tcpdump)
LAB_CAP_WRAP=()

start_capture -w "$out/dropped.pcapng"
dropped=$(status)
lab_check "dropped: uid NoNewPrivs CapBnd '$dropped'" \
	"$dropped" = "$tcpdump_uid 1 0000000000000000"
mode=$(stat -c %a "$out/dropped.pcapng")
lab_check "default mode $mode under umask 077 (want 640)" "$mode" = 640

start_capture -Z root --file-mode 0604 -w "$out/root.pcapng"
root=$(status)
lab_check "-Z root: uid NoNewPrivs CapBnd '$root'" "$root" = "0 1 0000000000000000"
rmode=$(stat -c %a "$out/root.pcapng")
lab_check "--file-mode 0604: mode $rmode" "$rmode" = 604
lab_check "-Z root: warned: $(head -n 1 "$CAP_LOG")" "$(grep -c warning "$CAP_LOG")" -eq 0

# No tcpdump user: /etc/passwd without it, in a mount namespace of its own.
grep -v '^tcpdump:' /etc/passwd >"$LAB_TMP/passwd"
chmod 644 "$LAB_TMP/passwd"
# shellcheck disable=SC2016 # $0 belongs to the inner sh
LAB_CAP_WRAP=(unshare -m sh -c 'mount --bind "$0" /etc/passwd && exec "$@"' "$LAB_TMP/passwd")
start_capture -w "$out/nouser-default.pcapng"
nouser=$(status)
warn=$(grep -c "warning: no user 'tcpdump' to drop root to: still running as root" "$CAP_LOG" || true)
lab_check "no tcpdump user: warning lines $warn (want 1): $(head -n 1 "$CAP_LOG")" "$warn" -eq 1
lab_check "no tcpdump user: uid NoNewPrivs CapBnd '$nouser'" "$nouser" = "0 1 0000000000000000"
lab_check "the host's passwd lost tcpdump" "$(getent passwd tcpdump | cut -d: -f3)" = "$tcpdump_uid"

lab_verdict "links refused, victim '$(tr -d '\0' <"$victim")'; existing refused, --overwrite ok;" \
	"mode $mode/$rmode (640/604); dropped '$dropped', -Z root '$root', no user '$nouser'" \
	"(uid 1 0...0), warned $warn (1)"
