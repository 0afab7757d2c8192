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

#include "tui/options.h"

/* Runs the dashboard (or prints the key list for --print-keys) and returns the process exit
 * status: 0 after q, 128+N after signal N, 1 when the terminal cannot be used (message on
 * stderr). The terminal is always restored before it returns. */
int tui_run(const struct tui_options *opts);

#endif
