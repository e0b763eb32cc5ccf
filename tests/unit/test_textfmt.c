/* test_textfmt.c - the text report's numbers written without printf: printf's bytes, cut alike. */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/report/report.h"
#include "analyze/report/text_int.h"
#include "tests/unit/unit.h"

/*
 * rep_fmt_fixed() and the cells built from it stand in for snprintf:
 * whatever the room, the same bytes, the same cut. The reference is
 * snprintf itself on the same values.
 */

static void test_fixed_cut(void)
{
	static const double v[] = {0.0, 1.25, 99.95, 1234.5678, 12345678.9, -0.0004};
	static const char *const suffix[] = {"", "ms", "/"};
	bool ok = true;

	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		for (int prec = 0; prec <= 4; prec++) /* 4: printf's own */
			for (size_t s = 0; s < 3; s++)
				for (size_t len = 1; len <= 24; len++) {
					char got[32], want[32];
					memset(got, 'x', sizeof(got));
					rep_fmt_fixed(got, len, v[i], prec, suffix[s]);
					snprintf(want, len, "%.*f%s", prec, v[i], suffix[s]);
					if (strcmp(got, want) != 0) {
						fprintf(stderr,
							"rep_fmt_fixed(%g, %d, \"%s\", %zu): '%s', "
							"want '%s'\n",
							v[i], prec, suffix[s], len, got, want);
						ok = false;
					}
				}
	CHECK(ok);
}

static void test_rtt_cell_cut(void)
{
	static const struct sum_rtt r[] = {
	    {3, 12000, 980000, 1500000},		/* us */
	    {2, 1500000, 20449999, 21949999},		/* ms, tenths */
	    {1, 12000000000, 12000000000, 12000000000}, /* s */
	};
	static const char *const unit[] = {"us", "ms", "s"};
	static const double div[] = {1e3, 1e6, 1e9};
	bool ok = true;

	for (size_t i = 0; i < sizeof(r) / sizeof(r[0]); i++) {
		int prec = i ? 1 : 0;
		int64_t avg = r[i].sum_ns / (int64_t)r[i].n;
		for (size_t len = 1; len <= 40; len++) {
			char got[48], want[48];
			memset(got, 'x', sizeof(got));
			txt_rtt_cell(&r[i], got, len);
			snprintf(want, len, "%.*f/%.*f/%.*f%s", prec, (double)r[i].min_ns / div[i],
				 prec, (double)avg / div[i], prec, (double)r[i].max_ns / div[i],
				 unit[i]);
			if (strcmp(got, want) != 0) {
				fprintf(stderr, "txt_rtt_cell #%zu, %zu bytes: '%s', want '%s'\n",
					i, len, got, want);
				ok = false;
			}
		}
	}
	CHECK(ok);
}

/* rep_format_endpoint() writes IPv4 by hand: inet_ntop()'s and snprintf's
 * bytes for every byte value in every position, and their cut. */
static void test_endpoint(void)
{
	bool ok = true;

	srand(7);
	for (unsigned i = 0; i < 3000; i++) {
		struct dec_addr a = {.family = i % 10 == 9 ? 6 : 4};
		for (size_t k = 0; k < sizeof(a.a); k++)
			a.a[k] = (uint8_t)(i < 256 && k % 4 == i % 4 ? i : (unsigned)rand() % 256);
		if (i % 7 == 0)
			memset(a.a + 4, 0, 8); /* IPv6 "::" runs */
		if (i % 11 == 0) {	       /* runs anywhere */
			size_t at = 2 * (i / 11 % 8), len = 2 * (i / 88 % 4);
			memset(a.a + at, 0, at + len > 16 ? 16 - at : len);
		}
		if (i % 13 == 0)
			memset(a.a + 2 * (i / 13 % 3), 0, 2); /* lone zero words */
		if (i % 17 == 0) { /* ::a.b.c.d, ::ffff:a.b.c.d and their neighbours */
			memset(a.a, 0, 10 + i / 17 % 3);
			if (i / 17 % 2)
				a.a[10] = a.a[11] = 0xff;
		}
		if (i % 19 == 0)
			memset(a.a, 0, 16 - i / 19 % 3); /* ::, ::1 ... */
		uint16_t port = (uint16_t)(i * 37u);
		char ip[INET6_ADDRSTRLEN], full[80];
		inet_ntop(a.family == 6 ? AF_INET6 : AF_INET, a.a, ip, sizeof(ip));
		snprintf(full, sizeof(full), a.family == 6 ? "[%s]:%u" : "%s:%u", ip, port);
		for (size_t len = 1; len <= 60; len += i < 256 ? 1 : 13) {
			char got[64], want[80];
			memset(got, 'x', sizeof(got));
			rep_format_endpoint(&a, port, got, len);
			memcpy(want, full, sizeof(want));
			want[strlen(full) < len ? strlen(full) : len - 1] = '\0';
			if (strcmp(got, want) != 0) {
				fprintf(stderr,
					"rep_format_endpoint %s, %zu bytes: '%s', want '%s'\n",
					full, len, got, want);
				ok = false;
			}
		}
	}
	CHECK(ok);
}

/* Every pattern of zero words an IPv6 address can have (2^8), with the
 * others small, large or ffff: the "::" run and the IPv4 forms as glibc
 * chooses them. */
static void test_ipv6_runs(void)
{
	bool ok = true;

	for (unsigned zeros = 0; zeros < 256; zeros++)
		for (unsigned v = 0; v < 4; v++) {
			static const unsigned word[] = {1, 0xffff, 0x0a0b, 0x2001};
			struct dec_addr a = {.family = 6};
			for (unsigned k = 0; k < 8; k++) {
				unsigned x = zeros >> k & 1 ? 0 : word[(v + k) % 4];
				a.a[2 * k] = (uint8_t)(x >> 8);
				a.a[2 * k + 1] = (uint8_t)x;
			}
			char ip[INET6_ADDRSTRLEN], want[64], got[64];
			inet_ntop(AF_INET6, a.a, ip, sizeof(ip));
			snprintf(want, sizeof(want), "[%s]:80", ip);
			rep_format_endpoint(&a, 80, got, sizeof(got));
			if (strcmp(got, want) != 0) {
				fprintf(stderr, "rep_format_endpoint: '%s', want '%s'\n", got,
					want);
				ok = false;
			}
		}
	CHECK(ok);
}

int main(void)
{
	test_fixed_cut();
	test_rtt_cell_cut();
	test_endpoint();
	test_ipv6_runs();
	return unit_done("textfmt");
}
