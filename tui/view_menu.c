/* view_menu.c - the sort menu (F6 or o, as htop's): the columns in a list, one chosen. */
#include <stdio.h>

#include "tui/view_int.h"

/*
 * Stepping through 17 columns one key at a time ('<' and '>', kept) is slow
 * when the one wanted is far: the menu lists every column the table has
 * (shown or given up on a narrow terminal: the one chosen is then shown),
 * the current one marked with its order. Up/Down choose, Enter sorts, r
 * reverses the current order, Escape (or F6, o) closes it unchanged.
 */

void tv_sort_menu_open(struct tv_view *v)
{
	v->sort_menu = true;
	v->menu_sel = v->sort;
}

enum tv_action tv_sort_menu_key(struct tv_view *v, int key)
{
	switch (key) {
	case KEY_UP:
	case 'k':
		v->menu_sel = v->menu_sel > 0 ? v->menu_sel - 1 : 0;
		break;
	case KEY_DOWN:
	case 'j':
		v->menu_sel = v->menu_sel + 1 < v->ncols ? v->menu_sel + 1 : v->ncols - 1;
		break;
	case KEY_HOME:
	case 'g':
		v->menu_sel = 0;
		break;
	case KEY_END:
	case 'G':
		v->menu_sel = v->ncols - 1;
		break;
	case '\n':
	case '\r':
	case KEY_ENTER:
		if (v->menu_sel != v->sort) {
			v->sort = v->menu_sel;
			v->sort_reverse = false;
		}
		v->sort_menu = false;
		if (v->frozen)
			snprintf(v->msg, sizeof(v->msg), "(unfreeze to sort)");
		break;
	case 'r':
	case 'S':
		v->sort_reverse = !v->sort_reverse;
		break;
	case 'q':
		return TV_QUIT; /* as everywhere */
	case 27:
	case KEY_F(6):
	case 'o':
		v->sort_menu = false;
		break;
	default:
		return TV_NONE;
	}
	return TV_REDRAW;
}

/* A panel over the table's left edge, from line y, at most rows lines. */
void tv_draw_sort_menu(struct tv_view *v, int y, int rows, int cols)
{
	int w = 24 < cols ? 24 : cols, n = rows - 1;

	if (n < 1)
		return;
	tv_hline_fill(y, 0, w, tv_pair_attr(v, TV_P_TITLE));
	tv_put(y, 1, w - 1, "SORT BY");
	attrset(A_NORMAL);
	int top = v->menu_sel >= n ? v->menu_sel - n + 1 : 0;
	for (int k = 0; k < n && top + k < v->ncols; k++) {
		int c = top + k;
		bool down = v->cols[c].desc != v->sort_reverse;
		const char *arrow = c != v->sort  ? ""
				    : v->cfg.utf8 ? (down ? " ▼" : " ▲")
						  : (down ? " v" : " ^");
		attr_t a = c == v->menu_sel ? A_REVERSE : A_NORMAL;
		tv_hline_fill(y + 1 + k, 0, w, a);
		tv_putf(y + 1 + k, 0, w, " %s %s%s", c == v->sort ? "*" : " ", v->cols[c].head,
			arrow);
		attrset(A_NORMAL);
		tv_put(y + 1 + k, w - 1, 1, v->cfg.utf8 ? "│" : "|"); /* its edge on the table */
	}
}
