/* detectors.h - the table of detectors: one line each, read as an X-macro list. */

/*
 * Adding a detector is adding its folder, analyze/detect/<name>/, and one
 * line below. The line includes the folder's <name>.def, which names what
 * the detector brings (its types header, the state it keeps per
 * connection, its event types) in the macros listed here; every part of
 * tcpsift that needs the list defines the macros it wants, includes this
 * file, and gets one expansion per detector, in table order (the order the
 * detectors see each segment and the order of their text findings):
 *
 *   DETECTOR(name, prefix)    every detector: prefix_segment(), prefix_ops
 *                             (analyze/detect/detect.h), struct
 *                             prefix_state / prefix_summary / prefix_totals
 *                             (its _types.h), name_view (its _report.c,
 *                             analyze/report/det_view.h)
 *   DET_HOT(name, prefix)     it keeps struct prefix_hot next to the TCP
 *                             state every segment touches (analyze/engine/tcp.h)
 *   DET_BEFORE(prefix)        prefix_before() sees a connection before each
 *                             packet changes it
 *   DET_STATE(name, prefix)   struct prefix_state lives in the connection
 *                             (c->det.name, zeroed when it starts)
 *   DET_COLD(name, prefix)    or: it is allocated on first need, from a
 *                             pool the engine owns (struct det_pools), and
 *                             returned when the connection ends: c->det.name
 *                             is a pointer, NULL until DET_COLD_GET()
 *                             (analyze/detect/detect.h). For state most
 *                             connections never touch. A detector may
 *                             name several (name_part, prefix_part: struct
 *                             prefix_part_state), one per part that is
 *                             needed at a different time (ackpat.def).
 *   DET_POOLS(name, n, bytes) it takes tables that grow on demand from n
 *                             pools the engine owns (struct det_pools:
 *                             struct pool *name[n]), class k holding
 *                             bytes(k) each: no pointer in the connection,
 *                             the cold state holds what it took and gives
 *                             it back in ops.release (sack.def; mtu.def
 *                             keeps its blocks' pointers in a DET_STATE)
 *   DET_DETAIL(type, member)  its events carry `type member` in sum_event.u
 *   DET_EVENT(enum, name, detector)   an event type it emits, named in JSON
 *
 * No include guard: read once per expansion. Macros not defined by the
 * includer expand to nothing and are undefined again at the end.
 */

#ifndef DETECTOR
#define DETECTOR(name, prefix)
#endif
#ifndef DET_HOT
#define DET_HOT(name, prefix)
#endif
#ifndef DET_BEFORE
#define DET_BEFORE(prefix)
#endif
#ifndef DET_STATE
#define DET_STATE(name, prefix)
#endif
#ifndef DET_COLD
#define DET_COLD(name, prefix)
#endif
#ifndef DET_POOLS
#define DET_POOLS(name, n, bytes)
#endif
#ifndef DET_DETAIL
#define DET_DETAIL(type, member)
#endif
#ifndef DET_EVENT
#define DET_EVENT(enum_value, json_name, detector)
#endif

#include "analyze/detect/stall/stall.def"
#include "analyze/detect/sack/sack.def"
#include "analyze/detect/reorder/reorder.def"
#include "analyze/detect/mtu/mtu.def"
#include "analyze/detect/ackpat/ackpat.def"
#include "analyze/detect/limit/limit.def"

#undef DETECTOR
#undef DET_HOT
#undef DET_BEFORE
#undef DET_STATE
#undef DET_COLD
#undef DET_POOLS
#undef DET_DETAIL
#undef DET_EVENT
