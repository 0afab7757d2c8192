/* The interactive dashboard's entry points, for tui/main.c.
 *
 *   struct tui_options o;
 *   switch (tui_options_parse(argc, argv, &o)) {
 *   case TUI_OPTIONS_RUN:   return tui_run(&o);
 *   case TUI_OPTIONS_USAGE: return 2;           (the message is already on stderr)
 *   default:                break;              (a one-shot mode: main.c handles argv)
 *   }
 */
#ifndef E2B_TUI_APP_H
#define E2B_TUI_APP_H

#include <stdbool.h>

enum tui_print_keys { TUI_PRINT_NONE, TUI_PRINT_TEXT, TUI_PRINT_CONF, TUI_PRINT_MAN };

struct tui_options {
    bool mouse;           /* --mouse */
    bool no_color;        /* --no-color (NO_COLOR is read by the terminal layer) */
    bool readonly;        /* --readonly: hide every action that changes something */
    int refresh_seconds;  /* --refresh SECONDS: 0 = not given (config's refresh, else E2B_DEFAULT_REFRESH_S) */
    enum tui_print_keys print_keys; /* hidden --print-keys[=text|conf|man] */
    /* The global options shared with the one-shot modes, as config keys set by a flag:
     * --config FILE, --domain DOMAIN, --api-url URL, --keystore NAME (argv strings, or NULL). */
    const char *config_file, *domain, *api_url, *keystore;
};

enum tui_options_result {
    TUI_OPTIONS_RUN = 0,     /* every argument is a dashboard option: call tui_run */
    TUI_OPTIONS_NOT_MINE = 1, /* some argument is not a dashboard option */
    TUI_OPTIONS_USAGE = 2,   /* a dashboard option with a bad value; message on stderr */
};

/* Parses the dashboard's options (argv[1..]); o is filled with defaults first. */
enum tui_options_result tui_options_parse(int argc, char **argv, struct tui_options *o);

/* Runs the dashboard (or prints the key list for --print-keys) and returns the process exit
 * status: 0 after q, 128+N after signal N, 1 when the terminal cannot be used (message on
 * stderr). The terminal is always restored before it returns. */
int tui_run(const struct tui_options *opts);

#endif
