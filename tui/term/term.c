#include "tui/term/term.h"

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <term.h>
#include <termios.h>
#include <unistd.h>

#include "tui/term/keys.h"

static struct {
    SCREEN *screen;
    bool active;
    bool color;
    int sigpipe[2];
    attr_t attrs[ROLE_COUNT];
    char note[256];
    struct term_mouse mouse;
    bool have_mouse;
    int stderr_target; /* where stderr goes while curses is active, -1 = nowhere else */
    int saved_stderr;  /* the real stderr while it is redirected, else -1 */
} T = {.sigpipe = {-1, -1}, .stderr_target = -1, .saved_stderr = -1};

static void stderr_away(void)
{
    if (T.stderr_target < 0 || T.saved_stderr >= 0)
        return;
    fflush(stderr);
    T.saved_stderr = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
    if (T.saved_stderr >= 0 && dup2(T.stderr_target, STDERR_FILENO) < 0) {
        close(T.saved_stderr);
        T.saved_stderr = -1;
    }
}

static void stderr_back(void)
{
    if (T.saved_stderr < 0)
        return;
    fflush(stderr);
    dup2(T.saved_stderr, STDERR_FILENO);
    close(T.saved_stderr);
    T.saved_stderr = -1;
}

void term_redirect_stderr(int fd)
{
    stderr_back();
    T.stderr_target = fd;
    if (T.active)
        stderr_away();
}

static const int HANDLED_SIGNALS[] = {SIGINT, SIGTERM, SIGHUP, SIGWINCH, SIGTSTP, SIGCONT};

static void on_signal(int signo)
{
    int saved = errno;
    unsigned char b = (unsigned char)signo;
    if (T.sigpipe[1] >= 0) {
        ssize_t w = write(T.sigpipe[1], &b, 1);
        (void)w; /* a full pipe already holds a wake-up */
    }
    errno = saved;
}

static int install_signals(void)
{
    if (pipe2(T.sigpipe, O_CLOEXEC | O_NONBLOCK) != 0)
        return -1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    /* Installed before newterm so that ncurses keeps its own handlers out: every signal
     * goes through the pipe and the loop. */
    for (size_t i = 0; i < sizeof HANDLED_SIGNALS / sizeof HANDLED_SIGNALS[0]; i++)
        sigaction(HANDLED_SIGNALS[i], &sa, NULL);
    return 0;
}

static void restore_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    for (size_t i = 0; i < sizeof HANDLED_SIGNALS / sizeof HANDLED_SIGNALS[0]; i++)
        sigaction(HANDLED_SIGNALS[i], &sa, NULL);
}

/* Is there a terminfo entry for name? Asked before newterm because a failed newterm
 * leaks its half-built screen inside ncurses. */
static bool terminfo_exists(const char *name)
{
    int err = 0;
    TERMINAL *saved = cur_term;
    if (setupterm(name, STDOUT_FILENO, &err) != OK)
        return false;
    del_curterm(cur_term);
    set_curterm(saved);
    return true;
}

/* Tries newterm with TERM as given, then fallbacks; returns the screen or NULL. */
static SCREEN *open_screen(const char *term, char *used, size_t usedsz)
{
    SCREEN *s = NULL;
    if (term && *term && terminfo_exists(term)) {
        s = newterm(term, stdout, stdin);
        if (s) {
            snprintf(used, usedsz, "%s", term);
            return s;
        }
    }
    const char *fallbacks[4];
    int n = 0;
    if (term && (strncmp(term, "xterm-", 6) == 0 || strstr(term, "256color")))
        fallbacks[n++] = "xterm-256color";
    fallbacks[n++] = "xterm";
    fallbacks[n++] = "vt100";
    for (int i = 0; i < n && !s; i++) {
        if (!terminfo_exists(fallbacks[i]))
            continue;
        s = newterm(fallbacks[i], stdout, stdin);
        if (s)
            snprintf(used, usedsz, "%s", fallbacks[i]);
    }
    return s;
}

static void setup_colors(const struct term_options *opts)
{
    const char *nc = getenv("NO_COLOR");
    T.color = !opts->no_color && !(nc && *nc) && has_colors();
    /* Attributes only: also the base of every role in colour mode. */
    T.attrs[ROLE_NORMAL] = A_NORMAL;
    T.attrs[ROLE_TABS] = A_NORMAL;
    T.attrs[ROLE_TAB_ACTIVE] = A_REVERSE | A_BOLD;
    T.attrs[ROLE_HEADER] = A_BOLD | A_UNDERLINE;
    T.attrs[ROLE_SELECTED] = A_REVERSE;
    T.attrs[ROLE_STATUS] = A_NORMAL;
    T.attrs[ROLE_INFO] = A_BOLD;
    T.attrs[ROLE_ERROR] = A_BOLD | A_REVERSE;
    T.attrs[ROLE_DIALOG] = A_REVERSE;
    T.attrs[ROLE_DIM] = A_DIM;
    T.attrs[ROLE_ADDED] = A_NORMAL;
    T.attrs[ROLE_REMOVED] = A_NORMAL;
    T.attrs[ROLE_HUNK] = A_BOLD;
    T.attrs[ROLE_WAITING] = A_BOLD | A_UNDERLINE;
    if (!T.color || start_color() != OK)
        return;
    use_default_colors();
    bool rich = COLORS >= 256;
    /* role, foreground, background (8 colours | 256 colours), extra attribute */
    struct {
        enum term_role role;
        short fg8, bg8, fg256, bg256;
        attr_t extra;
    } pairs[] = {
        {ROLE_TABS, COLOR_WHITE, COLOR_BLUE, 252, 237, A_NORMAL},
        {ROLE_TAB_ACTIVE, COLOR_BLACK, COLOR_CYAN, 16, 81, A_BOLD},
        {ROLE_HEADER, COLOR_CYAN, -1, 117, -1, A_BOLD},
        {ROLE_SELECTED, COLOR_BLACK, COLOR_CYAN, 231, 25, A_NORMAL},
        {ROLE_STATUS, COLOR_WHITE, COLOR_BLUE, 252, 237, A_NORMAL},
        {ROLE_INFO, COLOR_BLACK, COLOR_GREEN, 16, 114, A_NORMAL},
        {ROLE_ERROR, COLOR_WHITE, COLOR_RED, 231, 160, A_BOLD},
        {ROLE_DIALOG, COLOR_BLACK, COLOR_WHITE, 16, 252, A_NORMAL},
        {ROLE_DIM, COLOR_BLUE, -1, 245, -1, A_NORMAL},
        {ROLE_ADDED, COLOR_GREEN, -1, 114, -1, A_NORMAL},
        {ROLE_REMOVED, COLOR_RED, -1, 203, -1, A_NORMAL},
        {ROLE_HUNK, COLOR_CYAN, -1, 81, -1, A_NORMAL},
        {ROLE_WAITING, COLOR_YELLOW, -1, 220, -1, A_BOLD},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        short pair = (short)(i + 1);
        if (init_pair(pair, rich ? pairs[i].fg256 : pairs[i].fg8,
                      rich ? pairs[i].bg256 : pairs[i].bg8) == OK)
            T.attrs[pairs[i].role] = COLOR_PAIR(pair) | pairs[i].extra;
    }
}

int term_open(const struct term_options *opts, char *err, size_t errsz)
{
    setlocale(LC_ALL, "");
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        snprintf(err, errsz,
                 "e2b-tui: the dashboard needs a terminal, but standard %s is not one.\n"
                 "For scripts use the one-shot modes, e.g. e2b-tui --list (see --help).\n",
                 isatty(STDIN_FILENO) ? "output" : "input");
        return TERM_EXIT_UNUSABLE;
    }
    const char *term = getenv("TERM");
    if (term && strcmp(term, "dumb") == 0) {
        snprintf(err, errsz,
                 "e2b-tui: TERM=dumb cannot show the dashboard (it cannot move the cursor).\n"
                 "Run it in a terminal emulator (TERM=xterm-256color, tmux, ...), or use\n"
                 "the one-shot modes, e.g. e2b-tui --list (see --help).\n");
        return TERM_EXIT_UNUSABLE;
    }
    if (install_signals() != 0) {
        snprintf(err, errsz, "e2b-tui: cannot create a pipe: %s\n", strerror(errno));
        return TERM_EXIT_UNUSABLE;
    }
    /* ESC alone must feel instant; an ESCDELAY from the user wins (ncurses reads it). */
    if (!getenv("ESCDELAY"))
        set_escdelay(25);
    char used[64];
    T.screen = open_screen(term, used, sizeof used);
    if (!T.screen) {
        restore_signals();
        snprintf(err, errsz,
                 "e2b-tui: no terminal description for TERM=%s, nor for xterm or vt100.\n"
                 "Install ncurses-base/ncurses-term or set TERM to a known type.\n",
                 term ? term : "(unset)");
        return TERM_EXIT_UNUSABLE;
    }
    const char *cup = tigetstr("cup");
    if (!cup || cup == (char *)-1) {
        endwin();
        delscreen(T.screen);
        T.screen = NULL;
        restore_signals();
        snprintf(err, errsz,
                 "e2b-tui: TERM=%s cannot move the cursor, so the dashboard cannot run.\n"
                 "Use the one-shot modes instead, e.g. e2b-tui --list (see --help).\n",
                 used);
        return TERM_EXIT_UNUSABLE;
    }
    if (!term || strcmp(term, used) != 0) {
        snprintf(T.note, sizeof T.note,
                 "TERM=%s has no terminfo entry here (install ncurses-term); using %s",
                 term && *term ? term : "(unset)", used);
    }
    T.active = true;
    atexit(term_close);
    cbreak();
    noecho();
    nonl();
    intrflush(stdscr, FALSE);
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);
    leaveok(stdscr, TRUE);
    curs_set(0);
    /* Presses, not clicks: with mouseinterval 0 ncurses never merges press and release. */
    mousemask(opts->mouse ? (BUTTON1_PRESSED | BUTTON4_PRESSED | BUTTON5_PRESSED) : 0, NULL);
    mouseinterval(0);
    setup_colors(opts);
    stderr_away();
    return 0;
}

void term_close(void)
{
    if (!T.active)
        return;
    T.active = false;
    stderr_back();
    curs_set(1);
    endwin();
    fflush(stdout);
    delscreen(T.screen);
    T.screen = NULL;
    restore_signals();
}

const char *term_note(void)
{
    return T.note;
}

attr_t term_attr(enum term_role role)
{
    return role < ROLE_COUNT ? T.attrs[role] : A_NORMAL;
}

int term_signal_fd(void)
{
    return T.sigpipe[0];
}

static int translate(int code)
{
    if (code >= KEY_F(1) && code <= KEY_F(12))
        return KEYC_F1 + (code - KEY_F(1));
    switch (code) {
    case KEY_UP: return KEYC_UP;
    case KEY_DOWN: return KEYC_DOWN;
    case KEY_LEFT: return KEYC_LEFT;
    case KEY_RIGHT: return KEYC_RIGHT;
    case KEY_PPAGE: return KEYC_PGUP;
    case KEY_NPAGE: return KEYC_PGDN;
    case KEY_HOME: return KEYC_HOME;
    case KEY_END: return KEYC_END;
    case KEY_DC: return KEYC_DELETE;
    case KEY_IC: return KEYC_INSERT;
    case KEY_BTAB: return KEYC_BTAB;
    case KEY_ENTER: return KEYC_ENTER;
    case KEY_BACKSPACE: return KEYC_BACKSPACE;
    case KEY_RESIZE: return KEYC_RESIZE;
    case KEY_MOUSE: return KEYC_MOUSE;
    default: return KEYC_NONE; /* keys we do not use are dropped */
    }
}

int term_read_key(void)
{
    for (;;) {
        wint_t wc;
        int r = wget_wch(stdscr, &wc);
        if (r == ERR)
            return KEYC_NONE;
        if (r == KEY_CODE_YES) {
            int k = translate((int)wc);
            if (k == KEYC_MOUSE) {
                MEVENT ev;
                if (getmouse(&ev) != OK)
                    continue;
                T.mouse.y = ev.y;
                T.mouse.x = ev.x;
                T.mouse.click = (ev.bstate & BUTTON1_PRESSED) != 0;
                T.mouse.wheel = (ev.bstate & BUTTON4_PRESSED) ? -1
                                : (ev.bstate & BUTTON5_PRESSED) ? 1 : 0;
                T.have_mouse = true;
            }
            if (k != KEYC_NONE)
                return k;
            continue;
        }
        return key_normalise((int)wc);
    }
}

bool term_mouse(struct term_mouse *m)
{
    if (!T.have_mouse)
        return false;
    *m = T.mouse;
    T.have_mouse = false;
    return true;
}

bool term_check_size(void)
{
    struct winsize ws;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) != 0 || ws.ws_row == 0 || ws.ws_col == 0)
        return false;
    if (ws.ws_row == LINES && ws.ws_col == COLS)
        return false;
    resizeterm(ws.ws_row, ws.ws_col);
    /* resizeterm queues a KEY_RESIZE; relayout is idempotent, so it is harmless. */
    return true;
}

void term_suspend(void)
{
    if (!T.active)
        return;
    def_prog_mode();
    curs_set(1);
    endwin();
    fflush(stdout);
    stderr_back();
}

void term_resume(void)
{
    if (!T.active)
        return;
    /* Keys typed for the child must not become dashboard commands. */
    tcflush(STDIN_FILENO, TCIFLUSH);
    reset_prog_mode();
    term_check_size();
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);
    curs_set(0);
    clearok(curscr, TRUE);
    stderr_away();
}

/* Prints msg and waits for a line on the terminal (Enter), or its end. */
static void hold_screen(const char *msg)
{
    fprintf(stdout, "\n\033[7m %s \033[0m\n press Enter to return to the dashboard ", msg);
    fflush(stdout);
    char c;
    ssize_t n;
    while ((n = read(STDIN_FILENO, &c, 1)) > 0 || (n < 0 && errno == EINTR)) {
        if (n > 0 && (c == '\n' || c == '\r'))
            break;
    }
}

int term_run_foreground(char *const argv[], char *const env[])
{
    return term_run_foreground_hold(argv, env, NULL, NULL);
}

int term_run_foreground_hold(char *const argv[], char *const env[], term_hold_fn hold,
                             void *ctx)
{
    struct sigaction ign, old_int, old_quit;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    term_suspend();
    /* Where the child starts writing on the normal screen (DECSC): its lines are wiped
     * from there once it is done, so its parting words ("Continue opencode -s ses_...")
     * are not left under the shell's prompt when the dashboard ends. */
    fputs("\0337", stdout);
    fflush(stdout);
    sigaction(SIGINT, &ign, &old_int);
    sigaction(SIGQUIT, &ign, &old_quit);
    pid_t pid = fork();
    if (pid == 0) {
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        for (size_t i = 0; i < sizeof HANDLED_SIGNALS / sizeof HANDLED_SIGNALS[0]; i++)
            sigaction(HANDLED_SIGNALS[i], &dfl, NULL);
        sigaction(SIGINT, &dfl, NULL);
        sigaction(SIGQUIT, &dfl, NULL);
        if (env)
            execvpe(argv[0], argv, env);
        else
            execvp(argv[0], argv);
        /* The one place this is said: the dashboard only sees the status. */
        fprintf(stderr, "e2b-tui: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(errno == ENOENT ? 127 : 126);
    }
    int status = -1, saved = 0;
    if (pid < 0) {
        saved = errno;
    } else {
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
    }
    if (hold && pid > 0) {
        char msg[600] = "";
        hold(status, ctx, msg, sizeof msg);
        if (msg[0])
            hold_screen(msg);
    }
    fputs("\0338\033[J", stdout); /* back to where it started (DECRC), erase below */
    fflush(stdout);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    term_resume();
    if (pid < 0)
        errno = saved;
    return status;
}

void term_job_stop(void)
{
    term_suspend();
    struct sigaction dfl, mine;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(SIGTSTP, &dfl, &mine);
    kill(0, SIGTSTP); /* stops here until the shell's fg sends SIGCONT */
    sigaction(SIGTSTP, &mine, NULL);
    term_resume();
}
