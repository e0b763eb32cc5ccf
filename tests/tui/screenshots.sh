#!/usr/bin/env bash
# screenshots.sh TCPSIFT - print the README's screenshots of `tcpsift tui`
# (tmux capture-pane of the main views, replaying bundled samples).
set -euo pipefail
cd "$(dirname "$0")/../.."
. tests/tui/tmux.sh
TUI_BIN=$(realpath "${1:?usage: screenshots.sh TCPSIFT}")
tui_init
trap tui_cleanup EXIT

shot() { # title name
	echo "$1:"
	echo
	tui_screen "$2" | sed -e 's/[[:space:]]*$//' -e 's/^/    /'
	echo
}
tui_start main 100 24 -- -r samples/demo-http-loss.pcapng -r samples/rr-nagle-delack.pcap \
	-r samples/reorder-relay.pcap -r samples/zero-window.pcap -r samples/mtu-63540.pcap \
	-r samples/mtu-pmtu-blackhole.pcap --max
tui_wait main '\[ended\]' 20
tui_keys main '>' '>' '>' '>' '>' '>' '>' '>'
shot "Replay of six samples, sorted by retransmissions (> to RETR, 100x24)" main
tui_keys main g Enter
shot "Detail of the connection with the SACK holes (Enter)" main
tui_keys main Escape Tab j j j j j j Enter
shot "One finding in full (Tab, Down to it, Enter)" main
tui_start stall 80 24 -- -r samples/rr-nagle-delack.pcap --max
tui_wait stall '\[ended\]' 20
tui_keys stall Enter
shot "Nagle + delayed ACK: 19 stalls of 44 ms in the 40 ms cluster (80x24)" stall
