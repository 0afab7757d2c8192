/* Key codes and key names, independent of curses so that the key-binding parser can be
 * unit-tested. A key is an int: a Unicode code point for printable characters, 1..26 for
 * ctrl-a..ctrl-z (except the ones that are named keys: tab, enter, backspace), or one of
 * the KEYC_* values below. term_read_key (tui/term/term.c) translates curses' codes into
 * these. */
#ifndef E2B_TUI_KEYS_H
#define E2B_TUI_KEYS_H

#include <stddef.h>

enum {
    KEYC_NONE = 0,
    KEYC_SPECIAL = 0x200000, /* above every Unicode code point */
    KEYC_ENTER,
    KEYC_ESC,
    KEYC_TAB,
    KEYC_BTAB,
    KEYC_BACKSPACE,
    KEYC_SPACE,
    KEYC_UP,
    KEYC_DOWN,
    KEYC_LEFT,
    KEYC_RIGHT,
    KEYC_PGUP,
    KEYC_PGDN,
    KEYC_HOME,
    KEYC_END,
    KEYC_DELETE,
    KEYC_INSERT,
    KEYC_F1,
    KEYC_F12 = KEYC_F1 + 11,
    KEYC_RESIZE, /* not bindable: the terminal changed size */
    KEYC_MOUSE,  /* not bindable: a mouse event is waiting */
};

#define KEYC_CTRL(c) ((c) & 0x1f)

/* Parses one key name: a single printable character ("K", "/", "é"), "ctrl-x" (or "^x"),
 * or a named key (enter, esc, tab, btab/shift-tab, backspace, space, up, down, left, right,
 * pgup, pgdn, home, end, delete, insert, f1..f12). Case matters for single characters only.
 * Returns 0 and sets *key, or -1 for an unknown name. */
int key_parse(const char *name, int *key);

/* Writes the canonical name of key into buf ("K", "ctrl-d", "enter"); returns buf. */
const char *key_format(int key, char *buf, size_t bufsz);

/* Normalises raw control codes: 9 -> tab, 13/10 -> enter, 8/127 -> backspace, 27 -> esc,
 * ' ' -> space. Other keys are returned unchanged. */
int key_normalise(int key);

#endif
