/* The dashboard's command-line options (tui/options.c): parsed before anything else, kept
 * in struct ui for the views (--readonly hides actions). No curses. */
#ifndef E2B_TUI_OPTIONS_H
#define E2B_TUI_OPTIONS_H

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

#endif
