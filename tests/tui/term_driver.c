/* A small program around tui/term/term.c for tests/tui/handoff_test.sh: it checks the terminal
 * handoff the attach action will use (term_run_foreground: suspend, run a child in the
 * foreground, resume) in a real terminal, before attach itself exists.
 *
 * It shows "DRIVER READY WxH"; 'a' runs the child given on the command line and then
 * shows "DRIVER BACK status=N size=WxH"; 'e' writes "DRIVER-STDERR" to stderr (which goes
 * to the file DRIVER_LOG names, if set, while curses is active); every other key is shown
 * as "key NAME"; 'q' quits.
 * The terminal code is compiled in from tui/ (tests link only the libraries). */
#include "tui/term/keys.c"
#include "tui/term/term.c"

#include <poll.h>

static void show(const char *line)
{
    erase();
    mvaddstr(0, 0, line);
    mvaddstr(1, 0, "a: run the child   q: quit");
    wnoutrefresh(stdscr);
    doupdate();
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: term_driver CHILD [ARGS...]\n");
        return 2;
    }
    char err[512], line[256];
    struct term_options to = {.mouse = false, .no_color = true};
    const char *log = getenv("DRIVER_LOG");
    if (log) {
        int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
        if (fd < 0) {
            perror(log);
            return 1;
        }
        term_redirect_stderr(fd);
    }
    if (term_open(&to, err, sizeof err) != 0) {
        fputs(err, stderr);
        return 1;
    }
    snprintf(line, sizeof line, "DRIVER READY %dx%d", COLS, LINES);
    show(line);
    for (;;) {
        struct pollfd fds[2] = {{.fd = STDIN_FILENO, .events = POLLIN},
                                {.fd = term_signal_fd(), .events = POLLIN}};
        poll(fds, 2, -1);
        if (fds[1].revents & POLLIN) {
            unsigned char sig;
            while (read(term_signal_fd(), &sig, 1) == 1) {
                if (sig == SIGWINCH)
                    term_check_size();
            }
        }
        int k;
        while ((k = term_read_key()) != KEYC_NONE) {
            if (k == 'q') {
                term_close();
                return 0;
            }
            if (k == 'a') {
                int st = term_run_foreground(argv + 1, NULL);
                snprintf(line, sizeof line, "DRIVER BACK status=%d size=%dx%d",
                         WIFEXITED(st) ? WEXITSTATUS(st) : -1, COLS, LINES);
            } else if (k == 'e') {
                fputs("DRIVER-STDERR\n", stderr);
                snprintf(line, sizeof line, "wrote to stderr");
            } else if (k != KEYC_RESIZE) {
                char name[32];
                snprintf(line, sizeof line, "key %s", key_format(k, name, sizeof name));
            }
            show(line);
        }
    }
}
