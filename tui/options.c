/* Dashboard command-line options. No curses: kept apart so main.c can ask cheaply. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/options.h"

/* The options the dashboard shares with the one-shot modes: "--name VALUE" or "--name=VALUE".
 * Returns 1 when argv[*i] is one (advancing *i past its value), 0 when not, -1 on a missing
 * value (reported). */
static int global_option(struct tui_options *o, int argc, char **argv, int *i)
{
    static const char *const names[] = {"--config", "--domain", "--api-url", "--keystore"};
    const char **slots[] = {&o->config_file, &o->domain, &o->api_url, &o->keystore};
    const char *a = argv[*i];
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
        size_t n = strlen(names[k]);
        if (strncmp(a, names[k], n) != 0 || (a[n] != '\0' && a[n] != '='))
            continue;
        const char *v = a[n] == '=' ? a + n + 1 : (*i + 1 < argc ? argv[++*i] : NULL);
        if (!v || !*v) {
            fprintf(stderr, "e2b-tui: %s needs a value (see e2b-tui --help)\n", names[k]);
            return -1;
        }
        *slots[k] = v;
        return 1;
    }
    return 0;
}

enum tui_options_result tui_options_parse(int argc, char **argv, struct tui_options *o)
{
    memset(o, 0, sizeof *o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--mouse") == 0) {
            o->mouse = true;
        } else if (strcmp(a, "--no-color") == 0 || strcmp(a, "--no-colour") == 0) {
            o->no_color = true;
        } else if (strcmp(a, "--readonly") == 0) {
            o->readonly = true;
        } else if (strcmp(a, "--refresh") == 0 || strncmp(a, "--refresh=", 10) == 0) {
            const char *v = a[9] == '=' ? a + 10 : (i + 1 < argc ? argv[++i] : NULL);
            char *end = NULL;
            long s = v ? strtol(v, &end, 10) : 0;
            if (!v || !*v || *end || s < 1 || s > 3600) {
                fprintf(stderr, "e2b-tui: --refresh needs a number of seconds from 1 to 3600\n");
                return TUI_OPTIONS_USAGE;
            }
            o->refresh_seconds = (int)s;
        } else if (strcmp(a, "--print-keys") == 0 || strcmp(a, "--print-keys=text") == 0) {
            o->print_keys = TUI_PRINT_TEXT;
        } else if (strcmp(a, "--print-keys=conf") == 0) {
            o->print_keys = TUI_PRINT_CONF;
        } else if (strcmp(a, "--print-keys=man") == 0) {
            o->print_keys = TUI_PRINT_MAN;
        } else if (strncmp(a, "--print-keys=", 13) == 0) {
            fprintf(stderr, "e2b-tui: --print-keys takes text, conf or man\n");
            return TUI_OPTIONS_USAGE;
        } else {
            int g = global_option(o, argc, argv, &i);
            if (g < 0)
                return TUI_OPTIONS_USAGE;
            if (g == 0)
                return TUI_OPTIONS_NOT_MINE;
        }
    }
    return TUI_OPTIONS_RUN;
}
