/* The ':' command line's words: the command table (names, aliases, what each takes),
 * case-insensitive matching by unique prefix, Tab completion (the command, then a sandbox
 * name as its argument) and the history browsed with Up and Down. The commands run in
 * tui/app.c; this file only knows their words. The history lives in struct ui. */
#ifndef E2B_TUI_CMDLINE_H
#define E2B_TUI_CMDLINE_H

#include <stdbool.h>
#include <stddef.h>

#define CMDLINE_HISTORY 50

struct cmdline {
    char *history[CMDLINE_HISTORY]; /* oldest first, owned */
    size_t count;
    size_t browse; /* Up/Down position: count = the line being typed */
    char typed[512]; /* what was typed before Up */
};

enum cmd_id {
    CMD_BOXES, CMD_WORKSPACES, CMD_ALL, CMD_SECRETS, CMD_OPS, CMD_MESSAGES, CMD_WAITING, CMD_HELP,
    CMD_QUIT, CMD_NEEDS,
    CMD_UP, CMD_ATTACH, CMD_PULL, CMD_STOP, CMD_RESUME, CMD_KILL, CMD_EXTEND, CMD_LOGS,
    CMD_DETAIL, CMD_NETWORK, CMD_COMPARE, CMD_RULES, CMD_HISTORY, CMD_REMAKE, CMD_COUNT
};

struct cmd_info {
    const char *name;
    const char *aliases; /* space-separated, "" for none */
    bool takes_name;     /* an optional sandbox name or id (default: the selected row) */
};

const struct cmd_info *cmdline_info(enum cmd_id id);

/* The command a word names: an exact name or alias, else the one command the word is a
 * prefix of (case-insensitive). -1 when none; -2 when ambiguous (the candidates are then
 * written to why, e.g. "secrets, stop"). */
int cmdline_match(const char *word, char *why, size_t whysz);

/* The commands' list for messages: ":boxes (b) :workspaces (ws) ...". */
void cmdline_list(char *buf, size_t bufsz);

/* Completes buf (a ':' line, NUL-terminated, bufsz bytes) in place: the command word, or,
 * after a command that takes one, the argument from names (n borrowed strings). Returns
 * true when it changed buf; *hint gets the candidates when more than one matches. */
bool cmdline_complete(char *buf, size_t bufsz, const char *const *names, size_t n, char *hint,
                      size_t hintsz);

/* The history: a finished line is kept (not twice in a row, not empty). */
void cmdline_remember(struct cmdline *c, const char *line);
/* Up (dir -1) / Down (+1) from the current position: the line to show, or NULL when
 * there is nothing further that way. current is the prompt's text (kept when Up leaves it). */
const char *cmdline_browse(struct cmdline *c, int dir, const char *current);
void cmdline_reset_browse(struct cmdline *c);
void cmdline_free(struct cmdline *c);

#endif
