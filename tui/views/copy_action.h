/* Copy (ctrl-o on a sandbox row or its Detail pane): the status line asks what to copy,
 * the sandbox id, the name or a box's server URL, and the next key copies it to the
 * terminal's clipboard with OSC 52 (so it works over ssh; in tmux with set-clipboard on),
 * saying what it copied. The id is copied at once; the rest is read when the key comes. */
#ifndef E2B_TUI_COPY_ACTION_H
#define E2B_TUI_COPY_ACTION_H

#include "tui/ui.h"

/* Asks what of sandbox sandbox_id to copy. */
void copy_action_open(struct ui *ui, const char *sandbox_id);
/* Copies text (what: its words in the message) at once, saying so on the status line. */
void copy_action_text(struct ui *ui, const char *what, const char *text);

#endif
