/* pcapng_format.h - the pcap and pcapng on-disk formats as byte-offset tables, for reader and
 * writer. */
#ifndef TCPSIFT_PCAPNG_FORMAT_H
#define TCPSIFT_PCAPNG_FORMAT_H

#include <stddef.h>

/*
 * Types only: what the bytes of a capture file mean, drawn as tables in the
 * manner of SQLite's btreeInt.h. capture/file/savefile_*.c reads these
 * layouts and capture/file/pcapwriter_enc.c writes them; both name every
 * offset, size and code from here instead of spelling the numbers.
 * Sources: draft-ietf-opsawg-pcap (classic pcap), draft-ietf-opsawg-pcapng
 * (pcapng), libpcap's sf-pcap.c and sf-pcapng.c for what readers accept.
 *
 * Classic pcap
 * ============
 * A file is one global header, then records to the end of the file. Every
 * field is in the byte order the magic number shows (the writer's own).
 *
 * Global header (24 bytes):
 *
 *   offset  size  field          meaning
 *   ------  ----  -------------  ------------------------------------------------
 *        0     4  magic          a1b2c3d4: us timestamps, a1b23c4d: ns; byte-swapped
 *                                when the file's byte order is not the reader's
 *        4     2  version_major  2 (libpcap also reads DG/UX's 543)
 *        6     2  version_minor  4 (2.0-2.3 swap caplen and len, see the reader)
 *        8     4  thiszone       GMT offset, always 0 in practice
 *       12     4  sigfigs        timestamp accuracy, always 0
 *       16     4  snaplen        largest caplen in the file (0: unknown)
 *       20     4  linktype       bits 0-15 LINKTYPE_*, 16-25 reserved (zero),
 *                                26 FCS length present, 28-31 FCS length
 *
 * Record (16 bytes of header, then caplen bytes of packet, no padding):
 *
 *   offset  size  field          meaning
 *   ------  ----  -------------  ------------------------------------------------
 *        0     4  ts_sec         seconds since the epoch
 *        4     4  ts_frac        microseconds, or nanoseconds with the ns magic
 *        8     4  caplen         bytes of packet that follow
 *       12     4  len            length on the wire
 *       16     8  (Kuznetzov)    ifindex(4) protocol(2) pkt_type(1) pad(1): only
 *                                in files with the a1b2cd34 magic
 */
#define PCAP_MAGIC_US	       0xA1B2C3D4u /* as the first four bytes read big-endian */
#define PCAP_MAGIC_NS	       0xA1B23C4Du
#define PCAP_MAGIC_KUZ	       0xA1B2CD34u /* Kuznetzov's patched libpcap: 24-byte records */
#define PCAP_MAGIC_US_SWAPPED  0xD4C3B2A1u /* the same magics written little-endian */
#define PCAP_MAGIC_NS_SWAPPED  0x4D3CB2A1u
#define PCAP_MAGIC_KUZ_SWAPPED 0x34CDB2A1u

#define PCAP_HDR_MAGIC	       0
#define PCAP_HDR_VERSION_MAJOR 4
#define PCAP_HDR_VERSION_MINOR 6
#define PCAP_HDR_THISZONE      8
#define PCAP_HDR_SIGFIGS       12
#define PCAP_HDR_SNAPLEN       16
#define PCAP_HDR_LINKTYPE      20
#define PCAP_HDR_LEN	       24u

#define PCAP_VERSION_CURRENT_MAJOR 2 /* what a writer puts: 2.4 */
#define PCAP_VERSION_CURRENT_MINOR 4

/* The linktype field: the LINKTYPE_* in bits 0-15; the reserved bits, which libpcap rejects set. */
#define PCAP_LT_TYPE(x)	    ((x)&0x0000FFFFu)
#define PCAP_LT_RESERVED(x) ((x)&0x03FF0000u)

#define PCAP_REC_TS_SEC	     0
#define PCAP_REC_TS_FRAC     4
#define PCAP_REC_CAPLEN	     8
#define PCAP_REC_LEN	     12
#define PCAP_REC_HDR_LEN     16u
#define PCAP_REC_KUZ_HDR_LEN 24u

/*
 * pcapng
 * ======
 * A file is one or more sections, each a Section Header Block followed by
 * blocks in that section's byte order (the SHB's byte-order magic says
 * which). Every block has the same frame; lengths are multiples of 4:
 *
 *   offset  size  field               meaning
 *   ------  ----  ------------------  ---------------------------------------------
 *        0     4  block_type          PCAPNG_BT_* below
 *        4     4  block_total_length  the whole block, this header and trailer too
 *        8     -  body                per block type, tables below
 *      L-4     4  block_total_length  the same again, so a reader can walk back
 *
 * The offsets below count from the block's first byte, not its body's.
 */
#define PCAPNG_BLK_TYPE	       0
#define PCAPNG_BLK_TOTAL_LEN   4
#define PCAPNG_BLK_BODY	       8
#define PCAPNG_BLK_HDR_LEN     8u  /* type and length: what a reader needs first */
#define PCAPNG_BLK_TRAILER_LEN 4u  /* the trailing copy of the length */
#define PCAPNG_BLK_MIN	       12u /* a block with an empty body */

#define PCAPNG_BT_SHB 0x0A0D0D0Au /* the same read either way: CR LF LF CR */
#define PCAPNG_BT_IDB 0x00000001u
#define PCAPNG_BT_PB  0x00000002u /* obsolete Packet Block */
#define PCAPNG_BT_SPB 0x00000003u
#define PCAPNG_BT_ISB 0x00000005u
#define PCAPNG_BT_EPB 0x00000006u

/*
 * Section Header Block (28 bytes without options):
 *
 *   offset  size  field           meaning
 *   ------  ----  --------------  ------------------------------------------------
 *        8     4  byte_order      1a2b3c4d in the section's byte order
 *       12     2  major_version   1
 *       14     2  minor_version   0 (some tools wrote 2 for the same format)
 *       16     8  section_length  bytes after this SHB, or -1: unknown
 *       24     -  options         shb_* (PCAPNG_SHB_OS, ...), then the trailer
 */
#define PCAPNG_BOM		 0x1A2B3C4Du
#define PCAPNG_SHB_BOM		 8
#define PCAPNG_SHB_MAJOR	 12
#define PCAPNG_SHB_MINOR	 14
#define PCAPNG_SHB_SECTION_LEN	 16
#define PCAPNG_SHB_OPTIONS	 24
#define PCAPNG_SHB_MIN		 28u
#define PCAPNG_VERSION_MAJOR	 1
#define PCAPNG_VERSION_MINOR	 0
#define PCAPNG_VERSION_MINOR_ALT 2

/*
 * Interface Description Block (20 bytes without options); the section's
 * IDBs are numbered from 0 in file order, and packet blocks name them:
 *
 *   offset  size  field     meaning
 *   ------  ----  --------  ------------------------------------------------------
 *        8     2  linktype  LINKTYPE_* (16 bits here, unlike classic pcap)
 *       10     2  reserved  0
 *       12     4  snaplen   largest caplen of this interface (0: no limit)
 *       16     -  options   if_* (name, tsresol, tsoffset, ...), then the trailer
 */
#define PCAPNG_IDB_LINKTYPE 8
#define PCAPNG_IDB_RESERVED 10
#define PCAPNG_IDB_SNAPLEN  12
#define PCAPNG_IDB_OPTIONS  16
#define PCAPNG_IDB_MIN	    20u

/*
 * Enhanced Packet Block (32 bytes without data and options), and the
 * obsolete Packet Block, which differs only in the first field:
 *
 *   offset  size  field           meaning
 *   ------  ----  --------------  ------------------------------------------------
 *        8     4  interface_id    IDB number in this section
 *                 (PB: 2 bytes interface_id at 8, 2 bytes drops_count at 10,
 *                 0xFFFF when unknown)
 *       12     4  timestamp_high  upper 32 bits of the if_tsresol tick count
 *       16     4  timestamp_low   lower 32 bits
 *       20     4  caplen          bytes of packet data that follow
 *       24     4  len             length on the wire
 *       28     -  data            caplen bytes, zero-padded to 4
 *   28+pad(c)  -  options         epb_* (PB: pack_*), then the trailer
 */
#define PCAPNG_EPB_IFACE   8
#define PCAPNG_PB_IFACE	   8  /* 16 bits */
#define PCAPNG_PB_DROPS	   10 /* 16 bits */
#define PCAPNG_PB_NO_DROPS 0xFFFFu
#define PCAPNG_EPB_TS_HIGH 12
#define PCAPNG_EPB_TS_LOW  16
#define PCAPNG_EPB_CAPLEN  20
#define PCAPNG_EPB_LEN	   24
#define PCAPNG_EPB_DATA	   28
#define PCAPNG_EPB_MIN	   32u /* the same for the PB */

/*
 * Simple Packet Block (16 bytes without data): interface 0 of the section,
 * no timestamp, caplen = min(len, that interface's snaplen):
 *
 *   offset  size  field  meaning
 *   ------  ----  -----  ----------------------------------------------------------
 *        8     4  len    length on the wire
 *       12     -  data   the packet, zero-padded to 4, then the trailer
 */
#define PCAPNG_SPB_LEN	8
#define PCAPNG_SPB_DATA 12
#define PCAPNG_SPB_MIN	16u

/*
 * Interface Statistics Block (24 bytes without options): counters "from the
 * beginning of the capture" for one interface, as known at the timestamp:
 *
 *   offset  size  field           meaning
 *   ------  ----  --------------  ------------------------------------------------
 *        8     4  interface_id    IDB number in this section
 *       12     4  timestamp_high  when the counters were taken (if_tsresol ticks)
 *       16     4  timestamp_low
 *       20     -  options         isb_* counters and times, then the trailer
 */
#define PCAPNG_ISB_IFACE   8
#define PCAPNG_ISB_TS_HIGH 12
#define PCAPNG_ISB_TS_LOW  16
#define PCAPNG_ISB_OPTIONS 20
#define PCAPNG_ISB_MIN	   24u

/*
 * Options: a list in the block's options area, each
 *
 *   offset  size  field         meaning
 *   ------  ----  ------------  ---------------------------------------------------
 *        0     2  option_code   PCAPNG_OPT_* / per-block codes below
 *        2     2  option_length bytes of value, padding excluded
 *        4     -  value         option_length bytes, zero-padded to 4
 *
 * until opt_endofopt (code 0, length 0) or the end of the block. Codes mean
 * different things in different blocks: 2 is if_name in an IDB, epb_flags
 * in an EPB, isb_starttime in an ISB.
 */
#define PCAPNG_OPT_CODE	      0
#define PCAPNG_OPT_LEN	      2
#define PCAPNG_OPT_VALUE      4
#define PCAPNG_OPT_HDR_LEN    4u
#define PCAPNG_OPT_ENDOFOPT   0
#define PCAPNG_OPT_COMMENT    1
#define PCAPNG_SHB_OS	      3	 /* string: "Linux 6.1.0" */
#define PCAPNG_SHB_USERAPPL   4	 /* string: the writing application */
#define PCAPNG_IF_NAME	      2	 /* string */
#define PCAPNG_IF_DESCRIPTION 3	 /* string */
#define PCAPNG_IF_TSRESOL     9	 /* 1 byte: 10^-v s, or 2^-(v & 0x7f) with the top bit */
#define PCAPNG_IF_TSOFFSET    14 /* 8 bytes: seconds added to every timestamp */
#define PCAPNG_EPB_FLAGS      2	 /* 4 bytes: bits 0-1 direction (enum pkt_dir); PB pack_flags */
#define PCAPNG_EPB_DROPCOUNT  4	 /* 8 bytes: packets lost since the previous one */
#define PCAPNG_EPB_QUEUE      6	 /* 4 bytes: the RX/TX queue it came from */
#define PCAPNG_ISB_STARTTIME  2	 /* 8 bytes: timestamp_high then timestamp_low */
#define PCAPNG_ISB_ENDTIME    3
#define PCAPNG_ISB_IFRECV     4 /* 8 bytes: packets the interface received */
#define PCAPNG_ISB_IFDROP     5 /* 8 bytes: dropped by the interface */
#define PCAPNG_ISB_OSDROP     7 /* 8 bytes: dropped by the capturing host */

#define PCAPNG_TSRESOL_BINARY 0x80u /* if_tsresol: the value is a power of 2 */
#define PCAPNG_TSRESOL_NS     9u    /* 10^-9: the writer's; timestamps are plain ns */

/* Values and blocks are padded to 4 bytes. */
static inline size_t pcapng_pad4(size_t n)
{
	return (n + 3) & ~(size_t)3;
}

#endif
