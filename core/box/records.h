/* Box records: what this machine knows about each box it made (man/e2b-tui.1, FILES).
 *
 *   <records_dir>/<name>.json   one file per box; the directory is 0700, files 0600,
 *                               every write is atomic (temp file + fsync + rename/link)
 *
 * A record never holds a secret: the password lives in the keystore, the API key in the
 * environment. The JSON is versioned ({"version":2,...}); unknown fields are ignored.
 * Version 2 adds what up found in the box ("opencode_bin", "opencode_version"); a version 1
 * record, written before detection, reads as its preset's binary with no version.
 *
 * Ownership: a e2b_box_record owns its strings (e2b_box_record_clear frees them); a list owns its
 * records (e2b_box_record_list_clear). Errors are e2b_errors the caller frees. */
#ifndef E2B_RECORDS_H
#define E2B_RECORDS_H

#include "core/e2b/opencode_kind.h"
#include "core/util/error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define E2B_BOX_RECORD_VERSION 2

typedef struct e2b_box_record {
    char *name;        /* the box name (e2b_gitwork_box_name_valid), also the file name */
    char *sandbox_id;  /* the E2B sandbox */
    char *template_id; /* the template it was made from */
    char *branch;      /* the local branch it was made from ("" when detached) */
    char *base;        /* the commit the upload started from (40 hex, "" when unborn) */
    char *dir;         /* the absolute path of the local work tree (and in the sandbox) */
    int port;          /* the OpenCode server's port in the sandbox */
    int opencode;      /* the API its server speaks: 1 (root routes) or 2 (/api/...) */
    char opencode_bin[16];     /* what serves it: "opencode2" or "opencode" ("" unknown) */
    char opencode_version[40]; /* its --version ("" when not known: set, or a v1 record) */
    int hours;         /* its lifetime in hours (up's --hours); 0 when not known (older records) */
    time_t created_at;
    /* the group of attempts it is a member of (--up NAME --try N: group NAME, members
     * NAME-1 ... NAME-N; a valid box name), "" when none ("group", added in version 2) */
    char group[64];
    /* a member's task: the model it was given ("provider/model", "" = the configured one)
     * and when (0 = not known): "model", "task_at" */
    char model[128];
    time_t task_at;
    /* what it may cost (--up --budget; core/live/live_budget.h): dollars, 0 = none of its
     * own (the config's budget_usd); budget_stopped: a watcher stopped it at that budget
     * (cleared when the budget is raised): "budget_usd", "budget_stopped" */
    double budget_usd;
    bool budget_stopped;
    char *egress;      /* what the box may reach, as the JSON text of e2b_box_egress_summary
                        * (core/box/box_egress.h); NULL when not recorded (older records) */
    /* the approval rules e2b-tui applies to its agent's permission requests
     * (core/agent/rules.h; "approve"; each under E2B_BOX_RULE_MAX bytes, no control
     * character, at most E2B_BOX_RULES_MAX), and whether it allows every one ("yes_all") */
    char **approve;
    size_t napprove;
    bool yes_all;
    /* a turn is owed (core/agent/turn_owed.h): a prompt the server accepted was sent at
     * turn_owed_ms (this machine's wall clock, ms; 0 = none owed) to turn_owed_session ("" =
     * not known); cleared by whichever watch sees that turn end (--wait waits for it):
     * "turn_owed_ms", "turn_owed_session" */
    int64_t turn_owed_ms;
    char turn_owed_session[64];
} e2b_box_record;

#define E2B_BOX_RULES_MAX 32
#define E2B_BOX_RULE_MAX 256

typedef struct e2b_box_record_list {
    e2b_box_record *items;
    size_t count;
} e2b_box_record_list;

/* Writes r to <records_dir>/<r->name>.json, creating records_dir (0700) when missing.
 * exclusive: fail with E2B_ERR_CONFLICT ("a box named X already exists") when the record
 * exists (the name is taken); otherwise replace it. Nothing is left half-written: a crash
 * leaves either the old file or the new one (plus, at worst, a stray temp file that
 * readers ignore and that the next write or list removes once its writer is gone). */
e2b_error *e2b_box_record_write(const char *records_dir, const e2b_box_record *r, int exclusive);
/* Reads the record of name. E2B_ERR_NOT_FOUND ("no box named X on this machine") when
 * there is none; E2B_ERR_INVALID for a bad name; E2B_ERR_PROTOCOL for a corrupt file. */
e2b_error *e2b_box_record_read(const char *records_dir, const char *name, e2b_box_record *out);
/* Whether a record for name exists. */
int e2b_box_record_exists(const char *records_dir, const char *name);
/* Removes the record (a missing one is not an error). */
e2b_error *e2b_box_record_remove(const char *records_dir, const char *name);
/* Every readable record, sorted by name. Corrupt files are skipped; their names are
 * appended to *skipped (a malloc'd ", "-joined list, caller frees) when skipped is not NULL.
 * A missing directory is an empty list. */
e2b_error *e2b_box_record_list_read(const char *records_dir, e2b_box_record_list *out, char **skipped);
/* The record of the box whose sandbox is sandbox_id, or NULL (borrowed from list). */
const e2b_box_record *e2b_box_record_list_find_sandbox(const e2b_box_record_list *list,
                                               const char *sandbox_id);
const e2b_box_record *e2b_box_record_list_find(const e2b_box_record_list *list, const char *name);

/* Adds rule to r's approval rules (a rule it has already: nothing). 0, or -1 when it is
 * too long, has a control character, r has E2B_BOX_RULES_MAX, or out of memory. */
int e2b_box_record_approve_add(e2b_box_record *r, const char *rule);
/* Removes rule from them. Returns whether it was there. */
bool e2b_box_record_approve_remove(e2b_box_record *r, const char *rule);

/* The OpenCode of record r (its API, binary and version). */
void e2b_box_record_opencode(const e2b_box_record *r, e2b_opencode_kind *out);

/* Whether a and b say the same in every field (what another process may have rewritten). */
bool e2b_box_record_same(const e2b_box_record *a, const e2b_box_record *b);

void e2b_box_record_clear(e2b_box_record *r);
void e2b_box_record_list_clear(e2b_box_record_list *list);

#endif
