/* markup.h - text into HTML and SVG (XML) markup: the one escaper of both. */
#ifndef TCPSIFT_MARKUP_H
#define TCPSIFT_MARKUP_H

#include <stdio.h>

/* Write s to out with &, <, > and " escaped: safe as element text and
 * inside a double-quoted attribute, in HTML and XML alike. */
void mk_escape(FILE *out, const char *s);

#endif
