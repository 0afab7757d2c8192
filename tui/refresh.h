/* The dashboard's live data: core's config and API client, and the background refresh
 * that keeps the three sandbox lists, their metrics and the Secrets list current.
 *
 * Every refresh lists all pages of sandboxes (GET /v2/sandboxes), then asks the latest
 * metrics of the running sandboxes on the screen (one bulk call). The secrets are listed
 * at the start and then only while the Secrets view is shown.
 * The next refresh is scheduled when the list has answered, so calls never pile up on a
 * slow server. A failed call is shown in the status line in core's words and the rows
 * already shown stay; state changes between two refreshes are flashed.
 *
 * Order of use (tui/app.c):
 *   refresh_config(ui, &why)   before the terminal opens (config file + environment)
 *   refresh_start(ui)          once the loop exists: makes the client, starts the first list
 *   ... refresh_now(ui) after an action ...
 *   ui->closing = true; e2b_loop_free(ui->loop);   (in-flight callbacks run and free)
 *   refresh_free(ui)           frees the client, the config and the metrics */
#ifndef E2B_TUI_REFRESH_H
#define E2B_TUI_REFRESH_H

#include <stddef.h>

#include "tui/ui.h"

/* Loads core's config into ui->cfg (ui->opts.refresh_seconds, when given, overrides the
 * file's refresh; the default is E2B_DEFAULT_REFRESH_S). Returns 0, or -1 with a message in why. */
int refresh_config(struct ui *ui, char *why, size_t whysz);

/* Makes the API client (when an API key is set) and starts the first refresh. Returns 0,
 * or -1 when out of memory. Without an API key nothing is started (the no-key screen). */
int refresh_start(struct ui *ui);

/* Refreshes at once (after an action), unless a list is already on its way. */
void refresh_now(struct ui *ui);

/* Lists the secrets at once (the Secrets view was opened), unless a list is on its way. */
void refresh_secrets_now(struct ui *ui);

/* The refresh interval in milliseconds. */
long refresh_interval_ms(const struct ui *ui);

/* Frees the client, the config and the metrics; call after the loop was freed. */
void refresh_free(struct ui *ui);

#endif
