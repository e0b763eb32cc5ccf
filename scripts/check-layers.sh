#!/usr/bin/env bash
# check-layers.sh - dependencies point one way (STYLE.md rule 3), checked on
# what each file really includes: `$(CC) -MM` lists every header a source or
# header pulls in, directly or through others.
#
#   common/                     -> nothing else of tcpsift
#   capture/                    -> common/
#   analyze/engine/             -> common/, capture/file/, the detector table
#                                  (analyze/detect/detect.h, detectors.h, the
#                                  detectors' .def and _types.h): never a
#                                  reporter, the TUI or the CLI
#   analyze/detect/ (logic)     -> the engine; never a reporter, the TUI, the CLI
#   presentation: analyze/report/, analyze/detect/*/*_report.c, tui/ (not the
#   player, player*.[ch], which drives the engine)
#                               -> summaries, events and counters only: never
#                                  the engine's internals (tcp.h, flow.h,
#                                  engine.h, seq.h), the detector interface
#                                  (detect.h) or a detector's logic header,
#                                  the capture code or the CLI
#   analyze/pipeline/           -> the engine, the detector table, the
#                                  reporters, annotate, capture/file/: it
#                                  puts them together for every verb; never
#                                  the TUI, the CLI or live capture (the TUI's
#                                  player and the CLI feed it live packets)
#   analyze/annotate/           -> summaries and events (as presentation),
#                                  the views' one-line descriptions, and the
#                                  capture file reader it copies inputs with:
#                                  never the engine's internals, a detector's
#                                  logic, the TUI, the CLI or live capture
#   analyze/vpair/ (the two-point joiner, a consumer of the summary stream
#   beside the report)          -> summaries, the report's hooks and its JSON
#                                  writer (report.h, jsonout.h), common/:
#                                  never the engine's internals, a detector's logic,
#                                  the capture code, the TUI or the CLI; it is
#                                  included only by the pipeline builder
#                                  (analyze/pipeline/) and the CLI
#   analyze/diff/ (tcpsift diff: two reports compared, and its writers)
#                               -> summaries and the report's shared tables
#                                  (report.h, det_view.h, failon.h, jsonout.h),
#                                  common/: never the engine's internals, a
#                                  detector's logic, the capture code, the TUI
#                                  or the CLI; included only by the CLI
#   analyze/readback/ (the report reader: a --json or --ndjson report back
#   into summaries, for merge, diff and the detectors' views)
#                               -> summaries, the engine's counters and input
#                                  types, the report's shared tables
#                                  (dirjson.h, det_view.h and the member
#                                  lists of jsonout.h the views fill),
#                                  common/: never the
#                                  engine's internals, a detector's logic, a
#                                  writer, the capture code, the TUI or the
#                                  CLI; the engine, the detectors' logic,
#                                  capture/ and common/ never include it
#   cli/ is included by nothing outside cli/ and tcpsift.c
#   dir/mod_int.h (a split module's internal header) only by dir/mod*
set -euo pipefail
cd "$(dirname "$0")/.."
T_SUITE=layers
. tests/lib.sh
CC=${CC:-cc}

# deps FILE: the project headers FILE includes, transitively, one a line;
# each file's list computed once (the checks below share files).
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
deps() {
	local lang=c memo=$cache/${1//\//%}
	if [ ! -f "$memo" ]; then
		case $1 in *.h) lang=c-header ;; esac
		"$CC" -D_GNU_SOURCE -I. -MM -x "$lang" "$1" 2>/dev/null | tr ' \\' '\n\n' |
			grep -E '^(common|capture|analyze|tui|cli)/.*\.(h|def)$' | grep -vxF "$1" >"$memo" || true
	fi
	cat "$memo"
}

# check DESCRIPTION FORBIDDEN-REGEX FILE...: no FILE may pull in a header
# matching the regex.
check() {
	local what=$1 forbid=$2 f bad="" n=0
	shift 2
	for f in "$@"; do
		[ -f "$f" ] || continue
		n=$((n + 1))
		local hit
		hit=$(deps "$f" | grep -E "$forbid" | head -3 | tr '\n' ' ' || true)
		[ -z "$hit" ] || bad+="$f -> $hit; "
	done
	if [ "$n" -eq 0 ]; then
		t_fail "$what: no files matched"
	elif [ -n "$bad" ]; then
		t_fail "$what: $bad"
	else
		t_pass "$what ($n files)"
	fi
}

shopt -s nullglob
engine_internals='^analyze/engine/(tcp|flow|engine|seq)\.h$|^analyze/detect/detect\.h$'
detector_logic='^analyze/detect/[a-z]+/(stall|sackboard|reorder|mtu|limit)\.h$'
# The report's writer headers (what a reader must not need): every header of
# analyze/report/ but the tables shared with the reader (det_view.h, dirjson.h,
# jsonout.h); a new writer header joins this list.
writers='^analyze/report/(report|text_int|jsonout_int|plot|plot_int|markup|metrics|connstore|failon)\.h$'
mapfile -t presentation < <(ls analyze/report/*.[ch] analyze/detect/*/*_report.c tui/*.[ch] |
	grep -vE '^tui/player(_[a-z]+)?\.[ch]$')
mapfile -t detector_logic_files < <(ls analyze/detect/*.[ch] analyze/detect/*/*.[ch] |
	grep -v '_report\.c$')

check "common/ includes nothing else of tcpsift" '^(capture|analyze|tui|cli)/' common/*.[ch]
check "capture/ includes only common/ and capture/" '^(analyze|tui|cli)/' \
	capture/*/*.[ch]
check "the engine includes no reporter, pipeline, TUI, CLI or live capture" \
	'^(analyze/report|analyze/pipeline|tui|cli|capture/live)/' analyze/engine/*.[ch]
check "detectors' logic includes no reporter, pipeline, TUI or CLI" \
	'^(analyze/report|analyze/pipeline|tui|cli)/' "${detector_logic_files[@]}"
check "the pipeline includes no TUI, CLI or live capture" '^(tui|cli|capture/live)/' \
	analyze/pipeline/*.[ch]
check "presentation sees summaries and events, not the engine, detectors' logic or capture" \
	"$engine_internals|$detector_logic|^(capture|cli)/" "${presentation[@]}"
check "annotate sees events and capture files, not the engine, detectors' logic, the TUI or the CLI" \
	"$engine_internals|$detector_logic|^(tui|cli|capture/live)/" analyze/annotate/*.[ch]
check "the two-point joiner sees summaries and the report's hooks, not the engine, detectors' logic, capture, the TUI or the CLI" \
	"$engine_internals|$detector_logic|^(capture|tui|cli)/" analyze/vpair/*.[ch]
mapfile -t not_vpair_users < <(ls common/*.[ch] capture/*/*.[ch] analyze/*/*.[ch] \
	analyze/detect/*/*.[ch] tui/*.[ch] | grep -vE '^analyze/(vpair|pipeline)/')
check "only the pipeline builder and the CLI include the two-point joiner" '^analyze/vpair/' \
	"${not_vpair_users[@]}"
check "diff sees summaries and the report's tables, not the engine, detectors' logic, capture, the TUI or the CLI" \
	"$engine_internals|$detector_logic|^(capture|tui|cli)/" analyze/diff/*.[ch]
mapfile -t not_diff_users < <(ls common/*.[ch] capture/*/*.[ch] analyze/*/*.[ch] \
	analyze/detect/*/*.[ch] tui/*.[ch] | grep -v '^analyze/diff/')
check "only the CLI includes diff" '^analyze/diff/' "${not_diff_users[@]}"
check "the report reader sees summaries and the report's tables, not the engine, detectors' logic, writers, capture, the TUI or the CLI" \
	"$engine_internals|$detector_logic|$writers|^(capture|tui|cli)/" \
	analyze/readback/*.[ch]
check "the engine, detectors' logic, capture and common never include the report reader" \
	'^analyze/readback/' analyze/engine/*.[ch] "${detector_logic_files[@]}" capture/*/*.[ch] common/*.[ch]
check "only the CLI includes cli/" '^cli/' common/*.[ch] capture/*/*.[ch] analyze/*/*.[ch] \
	analyze/detect/*/*.[ch] tui/*.[ch]
# A module's internal header (dir/mod_int.h) joins the pieces of that module
# (dir/mod*.c) and nothing else includes it.
bad_int="" nint=0
for f in $(git ls-files '*.c' '*.h' | grep -vE '^(tests|bench)/'); do
	for h in $(deps "$f" | grep '_int\.h$' || true); do
		nint=$((nint + 1))
		mod=${h%_int.h}
		case $f in "$mod"*) ;; *) bad_int+="$f -> $h; " ;; esac
	done
done
if [ -n "$bad_int" ]; then t_fail "internal headers used outside their module: $bad_int"; else
	t_pass "internal headers stay in their module ($nint uses)"
fi
# A rule that names no file would pass whatever the tree: the groups above
# must cover every source file.
uncovered=$(comm -23 <(git ls-files '*.c' '*.h' | grep -vE '^(tests|bench)/' | sort) \
	<(printf '%s\n' common/*.[ch] capture/*/*.[ch] analyze/*/*.[ch] analyze/detect/*/*.[ch] \
		tui/*.[ch] cli/*.[ch] tcpsift.c | sort -u) | tr '\n' ' ')
if [ -n "$uncovered" ]; then t_fail "files no rule covers: $uncovered"; else t_pass "every source file is covered"; fi
t_done
