/* analyze_opts.h - analyze's and annotate's options: one table, parsed into struct analyze_cfg. */
#ifndef TCPSIFT_ANALYZE_OPTS_H
#define TCPSIFT_ANALYZE_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>

#include "analyze/engine/engine.h"
#include "analyze/report/failon.h"
#include "analyze/report/report.h"

/* What the command line asks of one analysis (the run itself is cli/cmd_analyze.c's). */
struct analyze_cfg {
	FILE *msg; /* where errors and warnings go: stderr, or diff's capture of them */
	const volatile sig_atomic_t *stop; /* the caller's stop flag, or NULL: analyze's own */
	const char *filter;
	const char *output;
	uint64_t count; /* -c: packets to read, 0 all */
	enum rep_format format;
	bool queue_per_file;
	int progress; /* -1 auto (terminal), 0 off, 1 on */
	bool quiet;
	uint32_t max_events;
	size_t report_memory; /* bytes; SIZE_MAX: the default */
	struct eng_config eng;
	bool fail_on;
	struct fo_expr fail_expr;
	bool frames;
	const char *frames_csv;
	unsigned threads;      /* 0: wk_default_threads() */
	const char *conn_list; /* --conn */
	const char *plot_dir;  /* --plot */
	const char *xplot_dir; /* --xplot */
	uint32_t plot_max;     /* --plot-max */
	const char **reads;    /* -r FILE, in order (argc slots) */
	unsigned nreads;
	char *filter_args;	   /* a filter joined from the trailing arguments (owned) */
	const char *filter_first;  /* its first word, for the error when it does not compile */
	struct rep_text_opts text; /* --long, --sort, --top */
	const char *text_opt;	   /* the last text-only option given, for a conflict */
	bool vantage_pair;	   /* --vantage-pair */
	int64_t vantage_max_offset_ns;
	uint32_t vantage_window;
	const char *vantage_opt; /* a --vantage-* option given (needs --vantage-pair) */
	const char *annotate;	 /* --annotate FILE, or tcpsift annotate's -o */
	bool annotate_verb;	 /* tcpsift annotate: no report, -o is the capture */
};

/*
 * Parse argv (argv[0] the verb) into cfg, made ready by aopt_init():
 * options, the inputs (-r and the arguments), a trailing filter, the
 * checks between them, and --max-memory split into its shares
 * (cli/membudget.h). CLI_GO_ON to go on, else the exit status (--help: 0).
 * A bad value or a conflict is said on cfg->msg; what cli_parse() itself
 * refuses (an unknown option, a missing argument), on stderr.
 */
int aopt_parse(int argc, char **argv, struct analyze_cfg *cfg);

/* Defaults; room for argc inputs. 0, or ERR_NOMEM. */
int aopt_init(struct analyze_cfg *cfg, int argc, bool annotate, FILE *msg);
void aopt_free(struct analyze_cfg *cfg);

/* Long option names, for the test that the man page documents each. */
size_t aopt_names(const char **names, size_t max);

#endif
