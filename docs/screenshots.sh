#!/usr/bin/env bash
# docs/screenshots.sh [TCPSIFT] - redraw the README's pictures of analyze --plot:
# a time-sequence graph of samples/rr-nagle-delack.pcap (19 delayed-ACK
# stalls, shaded and labelled) and the index page of samples/demo-http-loss.pcapng,
# rendered by headless Chromium (Debian's chromium package) into docs/*.png.
# tests/html/run.sh checks in make check that such renders are not blank.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/rel/tcpsift}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
shot() { # FILE PNG WIDTH HEIGHT
	timeout 60 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--user-data-dir="$tmp/chromium" --window-size="$3,$4" --screenshot="$2" "file://$1" \
		>/dev/null 2>&1
}
"$bin" analyze --plot "$tmp/nagle" samples/rr-nagle-delack.pcap >/dev/null
"$bin" analyze --plot "$tmp/loss" samples/demo-http-loss.pcapng >/dev/null
shot "$tmp/nagle/conn-1-c2s-tseq.svg" docs/tseq-nagle-delack.png 1000 560
shot "$tmp/loss/index.html" docs/index-demo-http-loss.png 1280 1000
ls -l docs/*.png
