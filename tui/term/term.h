/* The terminal: ncursesw set-up with a TERM fallback, colours (256, 8 or attributes only),
 * signals through a self-pipe, suspend/resume around a foreground child, and restoring the
 * terminal on every way out. One terminal per process; all state lives in term.c.
 *
 * Signal handlers only write the signal number to a pipe (term_signal_fd); the event loop
 * reads it (term_read_signal) and acts outside the handler. No curses call is ever made
 * from a handler. */
#ifndef E2B_TUI_TERM_H
#define E2B_TUI_TERM_H

#include <curses.h>
#include <stdbool.h>
#include <stddef.h>

/* Drawing roles; term_attr() maps each to colour or, without colour, to attributes. */
enum term_role {
    ROLE_NORMAL,
    ROLE_TABS,
    ROLE_TAB_ACTIVE,
    ROLE_HEADER,
    ROLE_SELECTED,
    ROLE_STATUS,
    ROLE_INFO,
    ROLE_ERROR,
    ROLE_DIALOG,
    ROLE_DIM,
    ROLE_ADDED,   /* a diff's added line, a good state (idle: done) */
    ROLE_REMOVED, /* a diff's removed line, a failure in a cell (failed, server down) */
    ROLE_HUNK,    /* a diff's hunk header, a busy state (working) */
    ROLE_WAITING, /* a box waiting for the user: stands out with colour or without */
    ROLE_COUNT
};

struct term_options {
    bool mouse;    /* report clicks and the wheel (off by default: keeps text selection) */
    bool no_color; /* --no-color; NO_COLOR (non-empty) is read here too */
};

/* Exit status used when the dashboard cannot run in this terminal. */
#define TERM_EXIT_UNUSABLE 1

/* Opens the terminal. On failure returns TERM_EXIT_UNUSABLE and writes a message for the
 * user into err (nothing is drawn, the terminal is untouched). */
int term_open(const struct term_options *opts, char *err, size_t errsz);

/* While curses owns the screen, stderr (GLib, libcurl, sanitizer reports...) goes to fd
 * (e.g. core's log file, e2b_log_fd()) instead of garbling the screen; it is back on the
 * terminal while a foreground child runs and after term_close. -1 turns this off. fd stays
 * the caller's. */
void term_redirect_stderr(int fd);

/* Restores the terminal (idempotent; also registered with atexit). */
void term_close(void);

/* A note to show once, e.g. that an unknown TERM was replaced; "" when none. */
const char *term_note(void);

attr_t term_attr(enum term_role role);

/* The read end of the signal self-pipe: one byte, the signal number, per caught signal
 * (SIGINT, SIGTERM, SIGHUP, SIGWINCH, SIGTSTP, SIGCONT). */
int term_signal_fd(void);

/* Reads the next key without waiting: returns a tui/term/keys.h code, or KEYC_NONE when no
 * input is pending. Mouse events come back as KEYC_MOUSE (see term_mouse). At the end of
 * input (the terminal hung up) it also returns KEYC_NONE: tui/term/loop.c tells the end
 * from "no key" and ends the dashboard as on SIGHUP. */
int term_read_key(void);

/* Last mouse event: row, column and whether it was a click or the wheel (-1 up, +1 down). */
struct term_mouse {
    int y, x;
    bool click;
    int wheel;
};
bool term_mouse(struct term_mouse *m);

/* Re-reads the window size after SIGWINCH and resizes curses; returns true if it changed. */
bool term_check_size(void);

/* Hands the terminal to a foreground child and takes it back:
 * term_suspend: save the curses mode and leave curses (the normal screen is back).
 * term_resume:  drop typeahead typed meanwhile, restore the mode, pick up a size change,
 *               restore keypad mode and force a full redraw on the next doupdate(). */
void term_suspend(void);
void term_resume(void);

/* Runs argv in the foreground between term_suspend and term_resume, with SIGINT/SIGQUIT
 * ignored in the parent as system(3) does. env may be NULL (inherit). Returns the wait
 * status, or -1 if the child could not be started (errno set). */
int term_run_foreground(char *const argv[], char *const env[]);
/* The same, and after the child: when hold(status, ctx, buf, bufsz) writes a message (e.g.
 * for a non-zero exit), it is printed below the child's last lines with "press Enter to
 * return", and the screen stays as the child left it until Enter (or the end of input),
 * as lazygit does. A command that cannot be run says why on the terminal (exit 127). */
typedef void (*term_hold_fn)(int status, void *ctx, char *buf, size_t bufsz);
int term_run_foreground_hold(char *const argv[], char *const env[], term_hold_fn hold,
                             void *ctx);

/* Stops the process for job control (ctrl-z): suspends, stops, resumes on SIGCONT. */
void term_job_stop(void);

#endif
