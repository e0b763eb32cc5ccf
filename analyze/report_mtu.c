/* report_mtu.c - JSON and text for the MTU / alignment detector's results. */
#include <inttypes.h>

#include "analyze/report.h"

static json_t *jnum_or_null(uint32_t v)
{
	return v ? json_integer(v) : json_null();
}

json_t *rep_json_mtu(const struct mtu_summary *s)
{
	json_t *o = json_object();

	json_object_set_new(o, "aligned_above", jnum_or_null(s->aligned_above));
	json_object_set_new(o, "aligned_below", jnum_or_null(s->aligned_below));
	json_object_set_new(o, "collapse", json_boolean(s->collapse));
	json_object_set_new(o, "icmp_mtu", jnum_or_null(s->icmp_mtu));
	json_object_set_new(o, "icmp_too_big", json_integer(s->icmp_too_big));
	json_object_set_new(o, "implied_mtu",
			    json_pack("{s:o, s:o}", "c2s", jnum_or_null(s->implied_mtu[0]), "s2c",
				      jnum_or_null(s->implied_mtu[1])));
	json_object_set_new(o, "largest_payload",
			    json_pack("{s:o, s:o}", "c2s", jnum_or_null(s->largest_payload[0]),
				      "s2c", jnum_or_null(s->largest_payload[1])));
	json_object_set_new(o, "misaligned", json_boolean(s->misaligned));
	json_object_set_new(o, "oversize_segments", json_integer(s->oversize_segments));
	json_object_set_new(o, "payload_mod_4096", json_integer(s->payload_mod_4096));
	json_object_set_new(o, "pmtu_blackhole", json_boolean(s->pmtu_blackhole));
	return o;
}

void rep_json_mtu_event(json_t *o, const struct sum_event *e)
{
	const struct mtu_event *m = &e->u.mtu;

	json_object_set_new(o, "aligned_above", jnum_or_null(m->aligned_above));
	json_object_set_new(o, "aligned_below", jnum_or_null(m->aligned_below));
	json_object_set_new(o, "mtu", jnum_or_null(m->mtu));
}

void rep_text_mtu(FILE *out, const struct rep_data *d)
{
	const struct rep_totals *t = &d->tot;

	if (!t->mtu_misaligned)
		return;
	fprintf(out, "  MTU alignment: %" PRIu64 " connections with a misaligned MTU above 4096\n",
		t->mtu_misaligned);
}
