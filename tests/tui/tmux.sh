# tests/tui/tmux.sh - drive `tcpsift tui` in a private tmux server (sourced).
#
# Every session lives on our own tmux socket (-L tcpsift-tui-PID), so a
# user's tmux is never touched; tui_cleanup kills that server only. A
# session runs a script (tui_start) that starts the tui, records its pid,
# waits for it, then records its exit status and `stty -a` of the same
# terminal, so a test can tell the terminal was restored.

TUI_SOCK="tcpsift-tui-$$"
TUI_DIR=""

tui_tmux() { tmux -L "$TUI_SOCK" "$@"; }

tui_init()
{
	TUI_DIR=$(mktemp -d /tmp/tcpsift-tui.XXXXXX)
}

tui_cleanup()
{
	tui_tmux kill-server 2>/dev/null
	# kill-server leaves its socket file behind: hundreds piled up
	rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$TUI_SOCK"
	[ -n "$TUI_DIR" ] && rm -rf "$TUI_DIR"
	TUI_DIR=""
	return 0
}

# tui_start NAME COLS ROWS [VAR=VALUE...] -- ARGS...: run `$TUI_BIN tui ARGS`
# (after the words of $TUI_PREFIX, e.g. `ip netns exec NS`) in a new
# COLSxROWS session, through a script that records its pid, exit status
# and the terminal's modes after it.
tui_start()
{
	local name=$1 cols=$2 rows=$3 envs=()
	shift 3
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		envs+=("$1")
		shift
	done
	shift
	local d="$TUI_DIR/$name"
	mkdir -p "$d"
	{
		echo '#!/usr/bin/env bash'
		printf 'export LANG=C.UTF-8 TERM=xterm-256color'
		[ ${#envs[@]} -eq 0 ] || printf ' %q' "${envs[@]}"
		echo
		# Background with the terminal as stdin: a non-interactive shell
		# keeps it in the terminal's foreground process group.
		printf '%s %q tui' "${TUI_PREFIX:-}" "$TUI_BIN"
		printf ' %q' "$@"
		echo ' </dev/tty &'
		echo "echo \$! >$d/pid"
		echo 'wait $!'
		echo "echo \$? >$d/rc"
		echo "stty -a >$d/stty"
		echo 'sleep 300'
	} >"$d/run.sh"
	chmod +x "$d/run.sh"
	tui_tmux new-session -d -s "$name" -x "$cols" -y "$rows" "$d/run.sh"
	for _ in $(seq 50); do
		[ -s "$d/pid" ] && return 0
		sleep 0.05
	done
	return 1
}

# tui_screen NAME: the visible screen, as text.
tui_screen() { tui_tmux capture-pane -p -t "$1"; }

# tui_screen_e NAME: the same with escape sequences (attributes, colours).
tui_screen_e() { tui_tmux capture-pane -p -e -t "$1"; }

# tui_wait NAME REGEX [SECS]: wait until the screen matches (grep -E),
# looking every 50 ms.
tui_wait()
{
	local name=$1 re=$2 secs=${3:-10} i
	for i in $(seq $((secs * 20))); do
		tui_screen "$name" 2>/dev/null | grep -qE -- "$re" && return 0
		sleep 0.05
	done
	return 1
}

# tui_settle NAME BEFORE: after input sent to NAME, whose screen was BEFORE,
# wait until the screen has changed and then held still for 0.2 s; a key
# with no visible effect leaves it BEFORE: 1 s of that ends the wait; 4 s
# at most (a screen that keeps moving). Not a fixed pause: a sanitized tui
# sharing two cores with other suites may take longer than one, and an idle
# machine needs far less.
tui_settle()
{
	local name=$1 before=$2 prev=$2 cur i still=0
	for i in $(seq 80); do
		sleep 0.05
		cur=$(tui_screen "$name" 2>/dev/null) || return 0
		if [ "$cur" = "$before" ]; then
			[ "$i" -ge 20 ] && return 0
		elif [ "$cur" = "$prev" ]; then
			still=$((still + 1))
			[ "$still" -ge 4 ] && return 0
		else
			still=0
		fi
		prev=$cur
	done
}

# tui_keys NAME [-N COUNT] [-l] KEY...: tmux send-keys (its flags: a key
# repeated, a literal string such as a mouse report), then let the screen
# settle.
tui_keys()
{
	local name=$1 before
	shift
	before=$(tui_screen "$name" 2>/dev/null)
	tui_tmux send-keys -t "$name" "$@"
	tui_settle "$name" "$before"
}

# tui_wait_exit NAME [SECS]: wait for the tui to exit; its status on stdout.
tui_wait_exit()
{
	local d="$TUI_DIR/$1" secs=${2:-10} i
	for i in $(seq $((secs * 20))); do
		if [ -s "$d/rc" ] && [ -s "$d/stty" ]; then
			cat "$d/rc"
			return 0
		fi
		sleep 0.05
	done
	return 1
}

# tui_pid NAME: the tui's pid (ours to signal).
tui_pid() { cat "$TUI_DIR/$1/pid"; }

# tui_terminal_sane NAME: after exit, the terminal is back to normal:
# canonical mode and echo on, and not in the alternate screen.
tui_terminal_sane()
{
	local d="$TUI_DIR/$1" alt
	alt=$(tui_tmux display -p -t "$1" '#{alternate_on}')
	grep -qE '(^| )icanon( |$)' "$d/stty" && grep -qE '(^| )echo( |$)' "$d/stty" &&
		[ "$alt" = 0 ]
}
