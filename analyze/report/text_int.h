/* text_int.h - what the text report's parts (text.c, text_conn.c) share. */
#ifndef TCPSIFT_TEXT_INT_H
#define TCPSIFT_TEXT_INT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analyze/report/report.h"

/* Lines longer than this wrap (but for table rows and tshark commands). */
#define TXT_WIDTH 100

/* 1234567 -> "1.2M": fits a 6-column cell. */
void txt_human(uint64_t v, char *buf, size_t len);

/* "1/12/288us", "0.1/1.2/3.4ms": min/avg/max of r (r->n > 0) in the unit
 * its maximum suits. */
void txt_rtt_cell(const struct sum_rtt *r, char *buf, size_t len);

/* The long form (text_conn.c) of every connection of d when
 * d->text->long_form, or of each selected one (--conn: d holds only
 * those); nothing otherwise. */
void txt_write_long(FILE *out, const struct rep_data *d, const struct rep_run *run);

#endif
