/* Notifications: a box started waiting for you, finished a turn or failed. Told the ways the
 * config's `notify` names (core/e2b/config.h E2B_NOTIFY_*): the terminal bell (tmux marks
 * the window), OSC 9 ("\e]9;text\a", a desktop notification in iTerm2, WezTerm, kitty,
 * foot, Windows Terminal) and OSC 777 ("\e]777;notify;title;text\a", urxvt and VTE). Inside
 * tmux ($TMUX set) the OSC sequences are wrapped for passthrough to the outer terminal.
 *
 * A box stopped at its budget is told once too ("feat-x stopped at its $2.00 budget").
 * Never more than one per box per state change: each box's last seen state, pending
 * request and turn end are kept, and only a change from a known state is told (the first
 * look at a box, and a box coming back from unknown, server down or paused, tell nothing).
 * The text (a box's name from metadata, its agent's words) passes the one sanitiser in
 * notify_format, whoever built it, and is cut to fit at a character's start. Pure except notify_check's write
 * (tests/unit checks the rest). */
#ifndef E2B_TUI_NOTIFY_H
#define E2B_TUI_NOTIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/agent/agent.h"
#include "core/live/live.h"

enum notify_event { NOTIFY_NONE, NOTIFY_WAITING, NOTIFY_DONE, NOTIFY_FAILED };

/* What is remembered of one box between looks. */
struct notify_box {
    char id[128];
    e2b_agent_state state;
    char request[128]; /* the first pending request's id, "" none */
    int64_t turn_end;  /* idle_since_ms when idle, else 0 */
    bool alive;        /* still listed (pruning) */
    bool at_budget;    /* stopped at its budget (core/live/live_budget.h): told once */
};

struct notify {
    unsigned modes; /* E2B_NOTIFY_* */
    int fd;         /* where the bytes go (the terminal) */
    bool tmux;      /* wrap OSC for tmux passthrough */
    struct notify_box *boxes;
    size_t n;
    unsigned sent;  /* notifications written so far */
};

void notify_init(struct notify *n, unsigned modes, int fd, bool tmux);
void notify_clear(struct notify *n);

/* The event for a box that was prev (NULL: never seen) and is now st; updates nothing. */
enum notify_event notify_event_for(const struct notify_box *prev, const e2b_agent_status *st);

/* The bytes of one notification for the modes into buf (NUL-terminated); returns their
 * length (0 when modes is 0). body is any text: it is sanitised (core/util/sanitize.h),
 * cut and kept from ending the sequence (';' becomes ','). */
size_t notify_format(unsigned modes, bool tmux, const char *body, char *buf, size_t bufsz);

/* Looks at every box of the model with an agent status, tells what changed, remembers the
 * new states and forgets boxes no longer listed. Returns the notifications written. */
int notify_check(struct notify *n, const e2b_live *m);

#endif
