/* Private to tui/cli*.c: what the one-shot modes share. */
#ifndef E2B_TUI_CLI_INTERNAL_H
#define E2B_TUI_CLI_INTERNAL_H

#include "core/e2b/api.h"
#include "core/box/box.h"
#include "core/e2b/config.h"
#include "core/live/live.h"
#include "core/net/loop.h"
#include "keystore/keystore.h"
#include "tui/cli/cli.h"

#include <stdbool.h>
#include <stddef.h>

/* Every mode runs on the headless model (core/live/live.h "the headless client"), made by
 * cli_run from main's config: its loop, its API client, its password store, its orphan
 * sweeper. */

/* Opens the password store (the model's) for a mode that needs one; tells the fallback
 * warning where a password is stored (--up). Returns 0, or the exit status (told). */
int cli_open_keystore(e2b_live *m, const cli_args *a);
/* --kill refused: the box has work not pulled home (and no --force). */
#define CLI_EXIT_UNPULLED 8
/* Prints the error (sanitised) and returns its exit status: the one mapping of core's
 * error kinds (e2b_error_exit_code: not found 3, rejected key 4, conflict 5, else 1). */
int cli_fail(const e2b_error *err);
/* A prompt's (or --try's task's) text: --prompt-file, the TEXT given, else stdin ("-" or
 * absent), at most 1 MiB; NULL after telling why (unreadable, empty). The caller frees it. */
char *cli_prompt_text(const cli_args *a);
/* cli_fail with the action "VERB LABEL" (cli_sandbox.c). */
int cli_api_fail(const e2b_error *err, const char *verb, const char *label);
/* name has no record here (not_found says so): a box of another machine, several of them
 * (a conflict naming them all, 5) or none, by the model's list of boxes; prints why and
 * returns the exit status. */
int cli_no_record(e2b_live *m, const char *name, const e2b_error *not_found);
/* Runs the model's box operation p (e2b_live_op_by_name) to its end, its step on stderr
 * when that is a terminal. Returns the ended step machine (the caller frees it:
 * e2b_box_op_free; its result is e2b_box_op_result), or NULL after telling why (its note
 * too), with the exit status in *rc. */
e2b_box_op *cli_op_run(e2b_live *m, const e2b_live_op_params *p, int *rc);
/* Prints an operation's note (what it left or could not do), when it has one. */
void cli_op_note(const e2b_box_result *r);
/* Copies s into buf (size n), made safe to print (core/util/sanitize.h). */
void cli_clean(const char *s, char *buf, size_t n);
/* up, attach, stop, kill, pull; target (NULL: by a->name) is the box chosen by
 * cli_sandbox's look-up (a sandbox id given for a box). */
struct cli_target;
int cli_box(e2b_live *m, const cli_args *a, const struct cli_target *target);
/* --stop/--kill (a box name or a sandbox id), --resume, --extend (cli_sandbox.c). */
int cli_sandbox(e2b_live *m, const cli_args *a);
/* cli_network.c: --network on the target cli_sandbox found. */
int cli_network(e2b_live *m, const cli_args *a, const struct cli_target *t);
/* The target's sandbox id (NULL when its sandbox is gone) and box name (borrowed). */
const char *cli_target_sandbox(const struct cli_target *t);
const char *cli_target_box(const struct cli_target *t);

/* snapshot, snapshots, fork, templates, gc-templates (cli_snap.c). */
int cli_snap(e2b_live *m, const cli_args *a);
/* ports, forward, get, keepalive (cli_life.c). */
int cli_life(e2b_live *m, const cli_args *a);
/* status, prompt, wait, reply, interrupt (cli_agent.c). */
int cli_agent(e2b_live *m, const cli_args *a);
/* --up NAME --try N, --compare NAME, --wait of a group (cli_try.c); cli_try_is_group: a
 * --wait of one name that no box has and a group of this machine has. */
int cli_try(e2b_live *m, const cli_args *a);
bool cli_try_is_group(e2b_live *m, const cli_args *a);
/* --watch, and --wait over several boxes (cli_fleet.c); cli_fleet_wait_many: a --wait of
 * that kind (several names, --all or --any). */
int cli_fleet(e2b_live *m, const cli_args *a);
bool cli_fleet_wait_many(const cli_args *a);
/* --approve, --revoke, --history (cli_rules.c). */
int cli_rules(e2b_live *m, const cli_args *a);
/* Whether the mode needs only this machine's files (the history, a record's rules): the
 * model is not started (no API key needed). */
bool cli_rules_local(const cli_args *a);
/* --up ... --prompt: sends the prompt to the box just made (prints the session id). */
int cli_agent_prompt_after_up(e2b_live *m, const cli_args *a, const char *name);

#endif
