/* The dashboard's ":network [--allow-out LIST] [--deny-out LIST] [--no-internet]": replaces
 * the egress of the selected box or sandbox (core/live/live.h, e2b_live_set_network: the
 * secrets' rules are kept; nothing given opens it). LIST is comma-separated. */
#ifndef E2B_TUI_NETWORK_CMD_H
#define E2B_TUI_NETWORK_CMD_H

struct ui;

/* args: what followed the command word (NULL or ""); the result is a notice. */
void network_command(struct ui *ui, const char *args);

#endif
