/* text_int.h - what the text report's parts (text.c, text_table.c, text_conn.c) share. */
#ifndef TCPSIFT_TEXT_INT_H
#define TCPSIFT_TEXT_INT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "analyze/report/report.h"

/* Lines longer than this wrap (but for table rows and tshark commands). */
#define TXT_WIDTH 100

/* 1234567 -> "1.2M": fits a 6-column cell. */
void txt_human(uint64_t v, char *buf, size_t len);

/* "1/12/288us", "0.1/1.2/3.4ms": min/avg/max of r (r->n > 0) in the unit
 * its maximum suits. */
void txt_rtt_cell(const struct sum_rtt *r, char *buf, size_t len);

/* A uint64_t counter of struct sum_dir, named by its offset. */
#define TXT_DIR_METRIC(field) offsetof(struct sum_dir, field)

/* The counter at offset metric, summed over both directions of c. */
static inline uint64_t txt_both_dirs(const struct sum_conn *c, size_t metric)
{
	uint64_t v = 0;

	for (int k = 0; k < SUM_DIR_COUNT; k++) {
		uint64_t x;
		memcpy(&x, (const char *)&c->dir[k] + metric, sizeof(x));
		v += x;
	}
	return v;
}

/* "12us", "20.1ms": one duration in the unit it suits; "-" when ns < 0. */
void txt_dur_cell(int64_t ns, char *buf, size_t len);

/* The connection table (text_table.c): its head's explanation to head,
 * its rows to out (unwrapped: a row wider than the page stays one line). */
void txt_write_table(FILE *head, FILE *out, const struct rep_data *d, const struct rep_run *run);

/* The long form (text_conn.c) of every connection of d when
 * d->text->long_form, or of each selected one (--conn: d holds only
 * those); nothing otherwise. */
void txt_write_long(FILE *out, const struct rep_data *d, const struct rep_run *run);

#endif
