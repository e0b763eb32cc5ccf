/* annot.h - findings back into the capture: every verdict as a comment on its packet. */
#ifndef TCPSIFT_ANNOT_H
#define TCPSIFT_ANNOT_H

#include <stddef.h>
#include <stdint.h>

#include "analyze/engine/summary.h"
#include "common/idset.h"

/*
 * tcpsift annotate and analyze --annotate: the per-frame verdicts and the
 * findings of a run, each as a pcapng comment (opt_comment) on the packet
 * it names, so stock Wireshark and tshark show them:
 *
 *   tshark -r OUT -Y 'frame.comment contains "tcpsift"'
 *
 * plus a custom option (code 2988, a UTF-8 string that may be copied) under
 * PEN 32473 carrying the verdict's id, connection, direction, type and
 * class as key=value words for tools. (tcpsift has no Private Enterprise
 * Number of its own; 32473 is the one IANA keeps for examples, RFC 5612.)
 *
 * An ann_set owns the comments collected from its sink until ann_write()
 * copies the inputs into one pcapng file: every block of a pcapng input as
 * it was, byte for byte, but the Enhanced Packet Blocks that get comments
 * (the same header, packet and options, the comments appended); a classic
 * pcap input becomes a section of its own, encoded as tcpsift capture
 * encodes one (pcapwriter_enc.h: SHB, one IDB with the file's link type
 * and snaplen, nanosecond timestamps, an EPB a record). Several
 * inputs are several sections, in the order given. Memory grows with the
 * verdicts, up to ANN_MAX_NOTES; those beyond are counted, not kept.
 */

#define ANN_MAX_NOTES	      2000000u
#define ANN_PEN		      32473u
#define ANN_OPT_CUSTOM_STRING 2988u

struct ann_set;

struct ann_stats {
	uint64_t packets;   /* written */
	uint64_t annotated; /* packets that got at least one comment */
	uint64_t comments;  /* comments written */
	uint64_t dropped;   /* verdicts beyond ANN_MAX_NOTES: not written */
	uint64_t not_epb;   /* verdicts on simple or obsolete packet blocks: not written */
	uint64_t unmatched; /* verdicts naming a frame the input does not have */
};

/* only: the connections whose verdicts are kept (NULL: all; borrowed). */
struct ann_set *ann_new(const struct idset *only, char *errbuf, size_t errlen);
/* Its sink: per-frame verdicts and events (borrows the set). */
struct sum_sink ann_sink(struct ann_set *a);
/*
 * Write paths[0..n) (input k is the one whose verdicts say input k) as one
 * pcapng file at out ("-": standard output). 0, or a negative enum err_code
 * with the reason in errbuf (an input that cannot be read again, such as
 * standard input, is ERR_USAGE). *st says what was written.
 */
int ann_write(struct ann_set *a, const char *const *paths, unsigned n, const char *out,
	      struct ann_stats *st, char *errbuf, size_t errlen);
/* Before any reading: each input a file that can be read again, out none
 * of them. 0, or ERR_USAGE with the reason in errbuf. */
int ann_check(const char *const *paths, unsigned n, const char *out, char *errbuf, size_t errlen);
void ann_free(struct ann_set *a); /* NULL is a no-op */

#endif
