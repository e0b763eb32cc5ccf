/* cliopt.c - getopt_long tables, --help lines and number parsing from an option table. */
#include "cli/cliopt.h"

#include "analyze/engine/workers.h"
#include "capture/live/iflist.h"
#include "capture/file/tracefile.h"
#include "capture/live/privs.h"
#include "cli/exit.h"
#include "common/err.h"
#include "common/httpd.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

void cli_getopt_tables(const struct cli_opt *opts, size_t n, struct option *longopts,
		       char *shortopts)
{
	size_t ns = 0;

	/* A leading ':' makes getopt tell a missing value (':') from an
	 * unknown option ('?'). */
	shortopts[ns++] = ':';

	for (size_t k = 0; k < n; k++) {
		const struct cli_opt *o = &opts[k];
		longopts[k] =
		    (struct option){o->name, o->arg ? required_argument : no_argument, NULL, o->id};
		if (o->id < 256) {
			shortopts[ns++] = (char)o->id;
			if (o->arg)
				shortopts[ns++] = ':';
		}
	}
	longopts[n] = (struct option){0};
	shortopts[ns] = '\0';
}

void cli_print_options(FILE *f, const struct cli_opt *opts, size_t n, int width)
{
	for (size_t k = 0; k < n; k++) {
		const struct cli_opt *o = &opts[k];
		char left[64];
		if (o->id < 256)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", o->id, o->name,
				 o->arg ? " " : "", o->arg ? o->arg : "");
		else
			snprintf(left, sizeof(left), "    --%s%s%s", o->name, o->arg ? " " : "",
				 o->arg ? o->arg : "");
		fprintf(f, "  %-*s %s\n", width, left, o->help);
	}
}

int cli_choice(const char *verb, const struct cli_opt *opts, size_t n, int id, const char *arg)
{
	const struct cli_opt *o = NULL;
	char want[256] = "";
	size_t w = 0;
	int idx = 0;

	for (size_t k = 0; k < n && !o; k++)
		if (opts[k].id == id)
			o = &opts[k];
	if (!o || !o->arg)
		return ERR_USAGE;
	for (const char *p = o->arg;; idx++) {
		const char *e = strchr(p, '|');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (len == strlen(arg) && strncmp(p, arg, len) == 0)
			return idx;
		/* "a, b or c" for the error, from the same set */
		if (w < sizeof(want))
			w += (size_t)snprintf(want + w, sizeof(want) - w, "%s%.*s",
					      idx == 0 ? ""
					      : e      ? ", "
						       : " or ",
					      (int)len, p);
		if (!e)
			break;
		p = e + 1;
	}
	cli_bad_value(verb, o->name, arg, want);
	return ERR_USAGE;
}

int cli_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;

	errno = 0;
	if (!s || *s == '-' || *s == '\0')
		return ERR_USAGE;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return ERR_USAGE;
	*out = v;
	return 0;
}

int cli_parse_mode(const char *s, unsigned *out)
{
	char *end;

	errno = 0;
	if (!s || *s < '0' || *s > '7')
		return ERR_USAGE;
	unsigned long v = strtoul(s, &end, 8);
	if (errno || *end || v == 0 || v > 0777)
		return ERR_USAGE;
	*out = (unsigned)v;
	return 0;
}

int cli_priv_drop(const char *verb, const char *user, bool quiet, bool *dropped)
{
	enum priv_outcome out;
	char err[256];
	int rc = priv_drop(user, &out, err, sizeof(err));

	*dropped = false;
	if (rc < 0) {
		fprintf(stderr, "tcpsift %s: %s\n", verb, err);
		return exit_for_error(rc);
	}
	/* Root writing files where others can plant links is what -Z avoids:
	 * never stay root without saying so (-Z root says it was meant). */
	if (out == PRIV_ROOT_NO_USER && !quiet)
		fprintf(stderr,
			"tcpsift %s: warning: no user '%s' to drop root to: still running as root "
			"(-Z USER to choose one, -Z root to keep root)\n",
			verb, PRIV_DEFAULT_USER);
	*dropped = out == PRIV_DROPPED;
	return CLI_GO_ON;
}

int cli_parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	static const char units[] = "KMGT";
	char digits[24];
	size_t n = s ? strlen(s) : 0;
	unsigned shift = 20;

	if (n == 0 || n >= sizeof(digits))
		return ERR_USAGE;
	int c = s[n - 1] & ~0x20; /* upper case */
	const char *u = c ? strchr(units, c) : NULL;
	if (u) {
		shift = 10 * (unsigned)(u - units + 1);
		n--;
	}
	memcpy(digits, s, n);
	digits[n] = '\0';
	uint64_t v;
	if (cli_parse_u64(digits, 0, UINT64_MAX >> shift, &v) < 0)
		return ERR_USAGE;
	v <<= shift;
	if (v < min || v > max)
		return ERR_USAGE;
	*out = v;
	return 0;
}

void cli_bad_value_to(FILE *f, const char *verb, const char *opt, const char *val, const char *want)
{
	fprintf(f, "tcpsift %s: bad value '%s' for --%s: %s\n", verb, val, opt, want);
}

void cli_bad_value(const char *verb, const char *opt, const char *val, const char *want)
{
	cli_bad_value_to(stderr, verb, opt, val, want);
}

int cli_threads(const char *verb, const char *arg, unsigned *out)
{
	uint64_t v;

	if (cli_parse_u64(arg, 1, WK_MAX, &v) < 0) {
		cli_bad_value(verb, "threads", arg, "a count from 1 to 64");
		return ERR_USAGE;
	}
	*out = (unsigned)v;
	return 0;
}

int cli_metrics_option(const char *verb, bool top, const char *arg, struct mx_opts *m)
{
	char why[320];
	uint64_t v;

	if (top) {
		if (cli_parse_u64(arg, 0, 100, &v) < 0) {
			cli_bad_value(verb, "metrics-top", arg, "a count, 0 to 100");
			return ERR_USAGE;
		}
		m->top = (unsigned)v;
	} else if (httpd_check_addr(arg, why, sizeof(why)) < 0) {
		fprintf(stderr, "tcpsift %s: --metrics: %s\n", verb, why);
		return ERR_USAGE;
	} else {
		m->addr = arg;
	}
	return 0;
}

/* Optimal string alignment distance of a and b (each at most 31 bytes;
 * longer: a large number). */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), d[32][32];

	if (la > 31 || lb > 31)
		return SIZE_MAX / 2;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[la][lb];
}

const char *cli_nearest(const char *word, const char *const *cands, size_t n)
{
	size_t limit = strlen(word) / 3, best = SIZE_MAX;
	const char *found = NULL;

	if (limit < 1)
		limit = 1;
	for (size_t k = 0; k < n; k++) {
		size_t dist = edit_distance(word, cands[k]);
		if (dist <= limit && dist < best) {
			best = dist;
			found = cands[k];
		}
	}
	return found;
}

/* "--jsn=x" -> "jsn": the name of a long option as typed. */
static const char *typed_name(const char *arg, char *buf, size_t len)
{
	size_t k = 0;

	if (strncmp(arg, "--", 2) != 0)
		return NULL;
	for (arg += 2; *arg && *arg != '=' && k + 1 < len; arg++)
		buf[k++] = *arg;
	buf[k] = '\0';
	return buf;
}

/* tcpdump's flags a verb does not take, and what to do instead (the habit
 * of typing them is the users'; a bare "unknown option" teaches nothing). */
static const char *tcpdump_hint(int opt)
{
	switch (opt) {
	case 'v':
		return "tcpdump's -v: the report already says it all; analyze --long shows every "
		       "connection in full, --frames each frame's verdict";
	case 'x':
	case 'X':
	case 'A':
		return "tcpdump's payload dump: tcpsift reads headers only; tcpdump -X or tshark "
		       "-x "
		       "show the bytes";
	case 'e':
		return "tcpdump's -e: link headers are not shown; tshark -V shows them";
	case 'i':
		return "tcpdump's -i: an interface is read by tcpsift capture -i IFACE, or watched "
		       "live by tcpsift tui -i IFACE";
	case 'w':
		return "tcpdump's -w: packets are written by tcpsift capture -w FILE, and with the "
		       "findings as comments by tcpsift annotate";
	default:
		return NULL;
	}
}

void cli_getopt_error(const char *verb, int c, char **argv, const struct cli_opt *opts, size_t n)
{
	const char *names[CLI_MAX_OPTS], *near = NULL, *typed;
	char buf[64];

	if (c == ':') {
		fprintf(stderr, "tcpsift %s: option '%s' needs a value (try --help)\n", verb,
			argv[optind - 1]);
		return;
	}
	if ((typed = typed_name(argv[optind - 1], buf, sizeof(buf)))) {
		for (size_t k = 0; k < n && k < CLI_MAX_OPTS; k++)
			names[k] = opts[k].name;
		near = cli_nearest(typed, names, n < CLI_MAX_OPTS ? n : CLI_MAX_OPTS);
	}
	const char *hint = typed ? NULL : tcpdump_hint(optopt);
	if (near)
		fprintf(stderr, "tcpsift %s: unknown option '%s' (did you mean --%s?)\n", verb,
			argv[optind - 1], near);
	else if (hint)
		fprintf(stderr, "tcpsift %s: unknown option '-%c' (%s)\n", verb, optopt, hint);
	else
		fprintf(stderr, "tcpsift %s: unknown option '%s' (try --help)\n", verb,
			argv[optind - 1]);
}

char *cli_join_args(int argc, char **argv, int from)
{
	size_t len = 1;
	for (int k = from; k < argc; k++)
		len += strlen(argv[k]) + 1;
	char *s = malloc(len), *o = s;
	if (!s)
		return NULL;
	for (int k = from; k < argc; k++) {
		size_t n = strlen(argv[k]);
		if (k > from)
			*o++ = ' ';
		memcpy(o, argv[k], n);
		o += n;
	}
	*o = '\0';
	return s;
}

int cli_trailing_filter(const char *verb, int argc, char **argv, int from, const char **filter,
			char **owned)
{
	if (from >= argc)
		return 0;
	if (*filter) {
		fprintf(stderr, "tcpsift %s: filter given both with -f and as arguments\n", verb);
		return ERR_USAGE;
	}
	*owned = cli_join_args(argc, argv, from);
	if (!*owned) {
		fprintf(stderr, "tcpsift %s: out of memory\n", verb);
		return ERR_NOMEM;
	}
	*filter = *owned;
	return 0;
}

int cli_inputs_end(int argc, char **argv, int from, bool first_is_input)
{
	struct stat st;
	int k = from;

	if (first_is_input && k < argc)
		k++;
	/* A word of a filter ("tcp", "port") is no file here; a file that
	 * happens to bear that name is read with -r or as ./tcp. */
	while (k < argc &&
	       (strcmp(argv[k], "-") == 0 || stat(argv[k], &st) == 0 || tf_is_uri(argv[k])))
		k++;
	return k;
}

void cli_print_version(FILE *f)
{
	fprintf(f, "tcpsift %s\n", TCPSIFT_VERSION);
}

const char *cli_format_option(enum rep_format fmt)
{
	static const char *const opt[REP_FORMAT_COUNT] = {[REP_TEXT] = "text",
							  [REP_JSON] = "--json",
							  [REP_NDJSON] = "--ndjson",
							  [REP_HTML] = "--html"};

	return fmt < REP_FORMAT_COUNT && opt[fmt] ? opt[fmt] : "?";
}

int cli_report_format(const char *verb, enum rep_format *fmt, enum rep_format want)
{
	if (*fmt != REP_TEXT && *fmt != want)
		return cli_conflict(verb, cli_format_option(*fmt), cli_format_option(want));
	*fmt = want;
	return CLI_GO_ON;
}

int cli_conflict(const char *verb, const char *a, const char *b)
{
	fprintf(stderr, "tcpsift %s: %s and %s cannot go together\n", verb, a, b);
	return TCPSIFT_EXIT_USAGE;
}

void cli_ring_opts_defaults(struct cli_ring_opts *o)
{
	*o = (struct cli_ring_opts){.snaplen = 262144, .fanout = 1, .mode = RING_FANOUT_QM};
}

int cli_ring_option(const char *verb, int opt, const char *arg, struct cli_ring_opts *o)
{
	uint64_t v;

	switch (opt) {
	case CLI_OPT_SNAPLEN:
		if (cli_parse_u64(arg, 0, 262144, &v) < 0)
			goto bad;
		o->snaplen = v ? (uint32_t)v : 262144;
		return 1;
	case CLI_OPT_BUFFER:
		if (cli_parse_u64(arg, 1, 1u << 20, &v) < 0)
			goto bad;
		o->buffer_mib = v;
		return 1;
	case CLI_OPT_FANOUT:
		if (cli_parse_u64(arg, 1, RING_MAX_SOCKETS, &v) < 0)
			goto bad;
		o->fanout = (unsigned)v;
		return 1;
	case CLI_OPT_FANOUT_MODE: {
		/* The set in the table is enum ring_fanout's, in its order. */
		static const struct cli_opt ring_opts[] = {CLI_RING_OPTS("")};
		int k = cli_choice(verb, ring_opts, sizeof(ring_opts) / sizeof(ring_opts[0]),
				   CLI_OPT_FANOUT_MODE, arg);
		if (k < 0)
			return ERR_USAGE;
		o->mode = (enum ring_fanout)k;
		return 1;
	}
	default:
		return 0;
	}
bad:
	switch (opt) {
	case CLI_OPT_SNAPLEN:
		cli_bad_value(verb, "snaplen", arg, "bytes, 0 to 262144");
		break;
	case CLI_OPT_BUFFER:
		cli_bad_value(verb, "buffer-size", arg, "MiB, 1 or more (tcpdump's -B counts KiB)");
		break;
	default:
		cli_bad_value(verb, "fanout", arg, "a socket count from 1 to 64");
		break;
	}
	return ERR_USAGE;
}

int cli_ring_check(const char *verb, const struct cli_ring_opts *o)
{
	if (o->buffer_mib && o->buffer_mib / o->fanout > 2047) {
		fprintf(stderr, "tcpsift %s: -B above 2047 MiB per socket (libpcap takes an int)\n",
			verb);
		return ERR_USAGE;
	}
	return 0;
}

int cli_ring_iface(const char *verb, const char *arg, char *out, size_t len)
{
	char err[512];

	if (ifl_resolve(arg, out, len, err, sizeof(err)) < 0) {
		fprintf(stderr, "tcpsift %s: %s\n", verb, err);
		return ERR_USAGE;
	}
	return 0;
}

void cli_ring_config(const struct cli_ring_opts *o, const char *iface, const char *filter,
		     int block_timeout_ms, struct ring_config *out)
{
	*out = (struct ring_config){
	    .iface = iface,
	    .filter = filter,
	    .snaplen = o->snaplen,
	    .buffer_bytes =
		(o->buffer_mib ? o->buffer_mib << 20 : ring_default_buffer_bytes()) / o->fanout,
	    .nsockets = o->fanout,
	    .mode = o->mode,
	    .block_timeout_ms = block_timeout_ms,
	};
}

int cli_parse(const char *verb, const struct cli_opt *opts, size_t n, int argc, char **argv,
	      struct cli_ring_opts *ring, cli_opt_fn *on_opt, void *ctx)
{
	struct option longopts[CLI_MAX_OPTS + 1];
	char shortopts[2 * CLI_MAX_OPTS + 2];

	if (n > CLI_MAX_OPTS)
		return 2; /* a verb's table outgrew the limit: a build-time mistake */
	cli_getopt_tables(opts, n, longopts, shortopts);
	opterr = 0;
	/* 0, not 1: glibc starts afresh from argv[1], forgetting a previous
	 * scan's state (diff parses analyze's options for its captures). */
	optind = 0;
	for (;;) {
		int c = getopt_long(argc, argv, shortopts, longopts, NULL);
		if (c == -1)
			return CLI_GO_ON;
		if (c == '?' || c == ':') {
			cli_getopt_error(verb, c, argv, opts, n);
			return 2;
		}
		if (c == CLI_OPT_VERSION) {
			cli_print_version(stdout);
			return TCPSIFT_EXIT_OK;
		}
		if (ring) {
			int ro = cli_ring_option(verb, c, optarg, ring);
			if (ro < 0)
				return 2;
			if (ro > 0)
				continue;
		}
		int rc = on_opt(ctx, c, optarg);
		if (rc >= 0)
			return rc;
	}
}
