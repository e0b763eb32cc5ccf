/* fuzz_tui.c - libFuzzer target: the dashboard's model and view, fed arbitrary packets and keys. */
#include <curses.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/engine/engine.h"
#include "analyze/report/report.h"
#include "tests/fuzz/fuzz_records.h"
#include "tui/connfilter.h"
#include "tui/model.h"
#include "tui/pl_view.h"
#include "tui/view.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * Input: [cols][rows][flags][nkeys][nkeys key bytes], then the packet
 * records of fuzz_records.h. The screen is cols 20..275 by rows 3..72
 * (the dashboard must cope with any terminal, however small); flags
 * choose colour, UTF-8, live or replay, the player's state and whether
 * drop counters are known. A key byte below 0x80 is that character
 * (control characters included: Escape, Enter, Backspace, Tab, Ctrl-U;
 * '<', '>', 't', 'c', 'w', 'P', '[', ']' the dashboard's actions); from 0x80 to
 * 0xbf it indexes fz_keys[] (arrows, pages, KEY_RESIZE, which also changes
 * the screen size); from 0xc0 on it is a mouse click (tv_mouse) on line
 * b - 0xc0, at a column taken from b (the table's head, a row, the
 * findings pane, or nothing). 'c' also builds the connection's tshark
 * filter, as the CLI does ('w' and 'P' write no file here). Packets go through the engine into the
 * model as the player feeds it (tui/player.c); every 8 packets the view draws a fresh snapshot,
 * with the detail of the connection it has open, and takes the next key; keys left at the end are
 * pressed on the ended replay. The screen is a real curses one (newterm on /dev/null, TERM
 * xterm-256color), so every draw and every clip is the dashboard's own code.
 */

static const int fz_keys[] = {
    KEY_UP,    KEY_DOWN, KEY_PPAGE, KEY_NPAGE, KEY_HOME,      KEY_END,
    KEY_ENTER, KEY_LEFT, KEY_RIGHT, KEY_DC,    KEY_BACKSPACE, KEY_RESIZE,
    KEY_F(1),  KEY_BTAB, '\t',	    '<',       '>',	      't',
    'c',       'w',	 'P',	    '[',       ']',	      0x15 /* Ctrl-U */,
};

static SCREEN *screen;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	FILE *out = fopen("/dev/null", "w"), *in = fopen("/dev/null", "r");

	if (!out || !in)
		abort();
	screen = newterm("xterm-256color", out, in);
	if (!screen)
		abort(); /* the terminfo entry is in ncurses-base */
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	tv_init_colors();
	return 0;
}

struct fz_tui {
	struct engine *eng;
	struct tm_model *model;
	struct tv_view *view;
	struct pl_view pv;
	unsigned resizes;
};

/* Publish the model as the player does and draw it. */
static void draw(struct fz_tui *t)
{
	if (t->eng)
		eng_foreach_live(t->eng, tm_update_live, t->model);
	t->pv.seq++;
	if (tm_snapshot_fill(t->model, &t->pv.m, tv_detail_id(t->view)) != 0)
		return;
	tv_draw(t->view, &t->pv);
}

static void press(struct fz_tui *t, uint8_t b)
{
	if (b >= 0xc0) {
		int rows, cols;
		getmaxyx(stdscr, rows, cols);
		(void)rows;
		if (tv_mouse(t->view, b - 0xc0, (int)((unsigned)b * 37u % (unsigned)(cols + 2))) !=
		    TV_NONE)
			draw(t);
		return;
	}
	int key = b < 0x80 ? b : fz_keys[(b - 0x80) % (sizeof(fz_keys) / sizeof(fz_keys[0]))];

	if (key == KEY_RESIZE) {
		t->resizes++;
		resizeterm(3 + (int)(t->resizes * 29 % 70), 20 + (int)(t->resizes * 37 % 256));
	}
	enum tv_action a = tv_key(t->view, key);
	if (a == TV_COPY) {
		struct tm_row r;
		char f[REP_TSHARK_FILTER_LEN];
		if (tv_selected_row(t->view, &r)) {
			cf_tshark_filter(f, sizeof(f), &r, &t->pv.h);
			tv_status(t->view, f);
		}
	}
	if (a != TV_NONE)
		draw(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256];

	if (size < 4)
		return 0;
	uint8_t flags = data[2];
	size_t nkeys = data[3];
	const uint8_t *keys = data + 4;

	if (nkeys > size - 4)
		nkeys = size - 4;
	resizeterm(3 + data[1] % 70, 20 + data[0]);

	struct eng_config cfg;
	eng_config_defaults(&cfg);
	cfg.flow.max_flows = 8;
	cfg.flow.idle_timeout_ns = 1000000000;
	cfg.flow.closed_linger_ns = 500000000;
	struct tm_config mc = {.keep_ended = 4};
	struct tv_config vc = {.color = flags & 1, .utf8 = flags & 2, .source = "fuzz.pcapng"};
	struct fz_tui t = {.model = tm_new(&mc, err, sizeof(err)),
			   .view = tv_new(&vc, err, sizeof(err))};
	struct pl_header *h = &t.pv.h;

	if (!t.model || !t.view)
		goto out;
	struct sum_sink sink = tm_sink(t.model);
	t.eng = eng_new(&cfg, &sink, err, sizeof(err));
	if (!t.eng)
		goto out;
	*h = (struct pl_header){.mode = flags & 4 ? PL_LIVE : PL_REPLAY,
				.state = (enum pl_state)((flags >> 3) % PL_STATE_COUNT),
				.speed = 1,
				.progress = -1,
				.drops_known = flags & 0x20,
				.kernel_drops = flags & 0x40 ? UINT64_MAX : 7,
				.queue_fill = flags & 0x80 ? 1.5 : -1,
				.nqueues = flags >> 5,
				.nvantages = 1};
	snprintf(h->vantage[0], sizeof(h->vantage[0]), "eth0");
	if (h->state == PL_FAILED)
		snprintf(h->error, sizeof(h->error), "fuzz: the source failed");

	size_t k = 0, rec_off = 4 + nkeys;
	if (rec_off < size) {
		struct fz_records in;
		struct pkt p;

		fz_records_init(&in, data + rec_off, size - rec_off);
		while (fz_records_next(&in, &p)) {
			eng_packet(t.eng, &p);
			h->packets++;
			h->wire_bytes += p.wirelen;
			if (h->packets == 1)
				h->first_ts = p.ts_ns;
			h->last_ts = p.ts_ns;
			/* Live: the wall clock runs ahead of the packets (rates
			 * decay, connections go idle). */
			h->now_ts = h->mode == PL_LIVE ? p.ts_ns + 4000000000ll : p.ts_ns;
			if (h->mode == PL_LIVE)
				tm_advance_clock(t.model, h->now_ts);
			h->ninputs = 1 + (unsigned)(p.input % PL_MAX_INPUTS);
			h->cur_input = p.input % PL_MAX_INPUTS;
			if (!h->input_first_ts[h->cur_input])
				h->input_first_ts[h->cur_input] = p.ts_ns;
			h->wall_s = (double)h->packets / 1000;
			h->progress = (double)in.off / (double)in.size;
			if ((p.frame & 7) == 0) {
				draw(&t);
				if (k < nkeys)
					press(&t, keys[k++]);
			}
		}
		eng_finish(t.eng);
	}
	eng_free(t.eng);
	t.eng = NULL;
	h->state = h->state == PL_FAILED ? PL_FAILED : PL_ENDED;
	draw(&t);
	while (k < nkeys)
		press(&t, keys[k++]);
out:
	tm_snapshot_free(&t.pv.m);
	tv_free(t.view);
	tm_free(t.model);
	return 0;
}
