/* dirjson.h - a direction's JSON members (struct sum_dir): one list for the writer and the reader.
 */
#ifndef TCPSIFT_DIRJSON_H
#define TCPSIFT_DIRJSON_H

/*
 * The members of a connection's "c2s" / "s2c" object, in key order, each
 * with the struct sum_dir member it comes from and how it is written.
 * json.c writes them from this list and jsonin.c reads them back from it,
 * so a member added here is both written and read (kinds marked derived
 * are computed from other members and only written).
 *
 *   DJ_U64         a count, always an integer
 *   DJ_BY          uint64_t[SUM_BY_COUNT], an object by sum_reorder_by_name()
 *   DJ_RTT         struct sum_rtt: null without samples, else avg/max/min/samples
 *   DJ_TS          int64_t ns as seconds; null when the direction sent nothing
 *   DJ_U64_PKT     an integer; null when the direction sent nothing
 *   DJ_U32_DATA    an integer; null when it sent no data
 *   DJ_U32_NZ      an integer; null when 0 (unknown)
 *   DJ_ISN         isn, null unless isn_known
 *   DJ_WSCALE      int8_t, null when negative (none)
 *   DJ_AVG_PAYLOAD, DJ_GOODPUT, DJ_SEG_PER_ACK, DJ_THROUGHPUT   derived
 *   DJ_LOSS_RATE   derived: sum_loss_rate(), null without data
 *   DJ_VANTAGE     derived: sum_vantage_side() of the connection's path
 *
 * DJ(key, kind, member): member is a dummy (packets) for derived kinds.
 */
#define SUM_DIR_JSON(DJ)                                                                           \
	DJ("ack_reordering", DJ_U64, ack_reordering)                                               \
	DJ("acked_unseen", DJ_U64, acked_unseen)                                                   \
	DJ("avg_payload", DJ_AVG_PAYLOAD, packets)                                                 \
	DJ("data_packets", DJ_U64, data_packets)                                                   \
	DJ("dsack_blocks", DJ_U64, dsack_blocks)                                                   \
	DJ("dup_acks", DJ_U64, dup_acks)                                                           \
	DJ("fast_retransmissions", DJ_U64, fast_retrans)                                           \
	DJ("fills_undecided", DJ_U64, fills_undecided)                                             \
	DJ("fin", DJ_U64, fin)                                                                     \
	DJ("first_ts", DJ_TS, first_ts)                                                            \
	DJ("goodput_bps", DJ_GOODPUT, packets)                                                     \
	DJ("ip_bytes", DJ_U64, ip_bytes)                                                           \
	DJ("isn", DJ_ISN, isn)                                                                     \
	DJ("keepalives", DJ_U64, keepalives)                                                       \
	DJ("last_ts", DJ_TS, last_ts)                                                              \
	DJ("loss_rate", DJ_LOSS_RATE, packets)                                                     \
	DJ("lost_segments", DJ_U64, lost_segments)                                                 \
	DJ("lost_upstream", DJ_U64, lost_upstream)                                                 \
	DJ("lost_upstream_by", DJ_BY, lost_upstream_by)                                            \
	DJ("max_in_flight", DJ_U64, max_in_flight)                                                 \
	DJ("max_payload", DJ_U32_DATA, max_payload)                                                \
	DJ("max_window", DJ_U64_PKT, max_window)                                                   \
	DJ("min_payload", DJ_U32_DATA, min_payload)                                                \
	DJ("min_window", DJ_U64_PKT, min_window)                                                   \
	DJ("mss", DJ_U32_NZ, mss)                                                                  \
	DJ("new_acks", DJ_U64, new_acks)                                                           \
	DJ("out_of_order", DJ_U64, out_of_order)                                                   \
	DJ("out_of_order_by", DJ_BY, ooo_by)                                                       \
	DJ("oversize_segments", DJ_U64, oversize)                                                  \
	DJ("packets", DJ_U64, packets)                                                             \
	DJ("payload_bytes", DJ_U64, payload_bytes)                                                 \
	DJ("pure_acks", DJ_U64, pure_acks)                                                         \
	DJ("retrans_bytes", DJ_U64, retrans_bytes)                                                 \
	DJ("retransmissions", DJ_U64, retrans)                                                     \
	DJ("rst", DJ_U64, rst)                                                                     \
	DJ("rto_retransmissions", DJ_U64, rto_retrans)                                             \
	DJ("rtt", DJ_RTT, rtt)                                                                     \
	DJ("rtt_ts", DJ_RTT, rtt_ts)                                                               \
	DJ("sack_acks", DJ_U64, sack_acks)                                                         \
	DJ("segments_per_ack", DJ_SEG_PER_ACK, packets)                                            \
	DJ("spurious_by_dsack", DJ_U64, spurious_dsack)                                            \
	DJ("spurious_retransmissions", DJ_U64, spurious_retrans)                                   \
	DJ("syn", DJ_U64, syn)                                                                     \
	DJ("throughput_bps", DJ_THROUGHPUT, packets)                                               \
	DJ("tlp_new_data", DJ_U64, tlp_new_data)                                                   \
	DJ("tlp_retransmissions", DJ_U64, tlp_retrans)                                             \
	DJ("unique_bytes", DJ_U64, unique_bytes)                                                   \
	DJ("unseen_bytes", DJ_U64, unseen_bytes)                                                   \
	DJ("vantage_side", DJ_VANTAGE, packets)                                                    \
	DJ("window_full", DJ_U64, window_full)                                                     \
	DJ("wscale", DJ_WSCALE, wscale)                                                            \
	DJ("zero_windows", DJ_U64, zero_windows)

#endif
