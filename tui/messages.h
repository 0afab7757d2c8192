/* The message history: every status-line message with its time and level, the last
 * MESSAGES_MAX of them (a ring), whole (the status line shows one line of the newest).
 * Read by the Messages pane (tui/views/view_messages.c, `:messages`, ctrl-g). Pure: no
 * curses. The texts are stored as given (the caller sanitises: ui_flash does). */
#ifndef E2B_TUI_MESSAGES_H
#define E2B_TUI_MESSAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#define MESSAGES_MAX 300

struct message {
    time_t when;
    bool error;
    char *text; /* owned */
};

struct messages {
    struct message ring[MESSAGES_MAX];
    size_t first, count; /* the oldest kept, and how many */
    unsigned long added;  /* ever added: a pane sees that new ones came */
};

/* Appends a copy of text (the oldest goes once MESSAGES_MAX are kept); out of memory
 * drops it. */
void messages_add(struct messages *m, bool error, time_t when, const char *text);
/* Message i, 0 = the oldest kept; NULL when out of range. */
const struct message *messages_get(const struct messages *m, size_t i);
void messages_free(struct messages *m);

#endif
