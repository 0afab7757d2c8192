/* e2b-tui entry point: parses the command line and dispatches to the dashboard or to a
 * one-shot mode. One-shot modes never touch curses; their errors go to stderr. */
#include "core/config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
          "\n"
          "Options:\n"
          "  --config FILE            read FILE instead of the default config file\n"
          "  --domain DOMAIN          E2B domain (default e2b.app)\n"
          "  --api-url URL            E2B API URL (default https://api.DOMAIN)\n"
          "  --keystore NAME          where box passwords are kept\n"
          "\n"
          "Environment: E2B_API_KEY, E2B_DOMAIN, E2B_API_URL, E2B_SANDBOX_URL.\n"
          "Try it without an account: make demo\n",
          f);
}

/* Global options that take a value: "--name VALUE" or "--name=VALUE" -> config key. */
static const struct {
    const char *flag, *key;
} global_options[] = {
    {"--config", "config"},
    {"--domain", "domain"},
    {"--api-url", "api_url"},
    {"--keystore", "keystore"},
};

/* Applies argv[*i] when it is a global option (advancing *i past its value). Returns 1 when
 * it was one, 0 when not, -1 on a usage error (already reported). */
static int global_option(e2b_config *cfg, int argc, char **argv, int *i)
{
    const char *a = argv[*i];
    for (size_t k = 0; k < sizeof global_options / sizeof global_options[0]; k++) {
        size_t fl = strlen(global_options[k].flag);
        const char *value;
        char *why = NULL;
        if (strncmp(a, global_options[k].flag, fl) != 0 || (a[fl] && a[fl] != '='))
            continue;
        if (a[fl] == '=') {
            value = a + fl + 1;
        } else if (*i + 1 < argc) {
            value = argv[++*i];
        } else {
            fprintf(stderr, "e2b-tui: %s needs a value (see e2b-tui --help)\n", a);
            return -1;
        }
        if (e2b_config_set(cfg, global_options[k].key, value, E2B_SRC_FLAG, &why) < 0) {
            fprintf(stderr, "e2b-tui: %s: %s\n", global_options[k].flag, why ? why : "bad value");
            free(why);
            return -1;
        }
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    e2b_config cfg;
    int info = 0, rc;
    e2b_config_init(&cfg);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int g;
        if (strcmp(a, "--version") == 0) {
            printf("e2b-tui %s\n", E2B_TUI_VERSION);
            e2b_config_clear(&cfg);
            return EXIT_OK;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            print_help(stdout);
            e2b_config_clear(&cfg);
            return EXIT_OK;
        }
        if (strcmp(a, "--info") == 0) {
            info = 1;
            continue;
        }
        g = global_option(&cfg, argc, argv, &i);
        if (g < 0) {
            e2b_config_clear(&cfg);
            return EXIT_USAGE;
        }
        if (g > 0)
            continue;
        fprintf(stderr, "e2b-tui: unknown option '%s' (see e2b-tui --help)\n", a);
        e2b_config_clear(&cfg);
        return EXIT_USAGE;
    }
    {
        e2b_error *err = e2b_config_load(&cfg, NULL);
        if (err) {
            fprintf(stderr, "e2b-tui: %s\n", e2b_error_message(err));
            e2b_error_free(err);
            e2b_config_clear(&cfg);
            return EXIT_USAGE;
        }
    }
    if (info) {
        e2b_config_write_info(&cfg, stdout);
        rc = EXIT_OK;
    } else {
        fputs("e2b-tui: the dashboard is not built yet; see e2b-tui --help\n", stderr);
        rc = EXIT_FAILED;
    }
    e2b_config_clear(&cfg);
    return rc;
}
