/* Key bindings: the defaults from the action table, overridden by `key.<action> = <keys>`
 * lines of the user's config. Pure: no curses (unit-tested by tests/unit/test_tui_keys.c).
 *
 * Config syntax (the same file as core's config; lines not starting with "key." are left
 * to core):  key.kill = K ctrl-d   (space-separated key names, see tui/term/keys.h)
 *            key.pull = none       (unbinds the action)
 * A key may not be bound to two actions that apply in a common view: such a line is
 * rejected with an error and the previous bindings stay. */
#ifndef E2B_TUI_KEYMAP_H
#define E2B_TUI_KEYMAP_H

#include <stdio.h>

#include "tui/actions.h"

#define KEYMAP_MAX 160

struct keymap {
    struct key_binding {
        int key;
        enum action_id action;
    } b[KEYMAP_MAX];
    int n;
};

/* Fills km with the default bindings of the action table. */
void keymap_defaults(struct keymap *km);

/* The action bound to key in the view, or ACT_NONE. */
enum action_id keymap_lookup(const struct keymap *km, int key, unsigned view_bit);

/* Applies the key.* lines of a config text (NUL-terminated). Returns the number of bad
 * lines; the first errors are written to err as "line N: why" lines (err may be NULL). */
int keymap_apply_config(struct keymap *km, const char *text, char *err, size_t errsz);

/* "K, ctrl-d": the keys bound to an action, in binding order; "" when unbound. */
const char *keymap_keys_for(const struct keymap *km, enum action_id a, char *buf, size_t bufsz);
/* The keys as the help, the man page and --print-keys show them (keymap_keys_for: every
 * action's keys are bindings, sorting's < > = too). */
const char *keymap_keys_shown(const struct keymap *km, enum action_id a, char *buf,
                              size_t bufsz);

/* The first pair of bindings that clash (same key, overlapping views): returns 1 and
 * describes it in msg, or 0 when there is none. */
int keymap_find_conflict(const struct keymap *km, char *msg, size_t msgsz);

/* Writes the bindings as a keys.conf file (the share/keys.conf format). */
void keymap_write_conf(const struct keymap *km, FILE *f);

/* Writes the key list as man(7) .TP entries for the man page. */
void keymap_write_man(const struct keymap *km, FILE *f);

/* Writes a plain-text key list (KEYS  ACTION  DESCRIPTION). */
void keymap_write_text(const struct keymap *km, FILE *f, int readonly);

#endif
