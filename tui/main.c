/* e2b-tui entry point: parses the command line and dispatches to the dashboard or to a
 * one-shot mode. One-shot modes never touch curses; their errors go to stderr. */
#include <stdio.h>
#include <string.h>

#include "tui/app.h"

enum exit_code {
    EXIT_OK = 0,
    EXIT_FAILED = 1,
    EXIT_USAGE = 2,
};

static void print_help(FILE *f)
{
    fputs("Usage: e2b-tui [OPTION]... [MODE]\n"
          "A terminal dashboard for E2B sandboxes running the OpenCode agent.\n"
          "\n"
          "Modes (without one, the interactive dashboard starts):\n"
          "  --list [--json]          list boxes, workspaces and other sandboxes\n"
          "  --up [NAME]              start a box from the current git project\n"
          "  --attach NAME            hand the terminal to the box's OpenCode server\n"
          "  --stop NAME              pause a box\n"
          "  --kill NAME              delete a box, its record and its password\n"
          "  --pull [NAME]            bring a box's work home as branch e2b/NAME\n"
          "  --secrets list|set NAME|remove NAME\n"
          "                           manage model API keys stored as E2B secrets\n"
          "  --info                   print paths, API URL, domain and keystore backend\n"
          "  --version                print the version and exit\n"
          "  --help                   print this help and exit\n"
          "\n"
          "Environment: E2B_API_KEY, E2B_DOMAIN, E2B_API_URL, E2B_SANDBOX_URL.\n"
          "Try it without an account: make demo\n",
          f);
}

int main(int argc, char **argv)
{
    /* Temporary (branch tui): the dashboard when every argument is a dashboard option. */
    struct tui_options topts;
    enum tui_options_result tr = tui_options_parse(argc, argv, &topts);
    if (tr == TUI_OPTIONS_RUN)
        return tui_run(&topts);
    if (tr == TUI_OPTIONS_USAGE)
        return EXIT_USAGE;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--version") == 0) {
            printf("e2b-tui %s\n", E2B_TUI_VERSION);
            return EXIT_OK;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            print_help(stdout);
            return EXIT_OK;
        }
        fprintf(stderr, "e2b-tui: unknown option '%s' (see e2b-tui --help)\n", a);
        return EXIT_USAGE;
    }
    fputs("e2b-tui: the dashboard is not built yet; see e2b-tui --help\n", stderr);
    return EXIT_FAILED;
}
