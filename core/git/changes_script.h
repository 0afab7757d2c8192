/* changes_script: what the Changes pane runs inside a box (Process/Start with cmd
 * "/bin/bash", args {"-c", e2b_changes_script_text()}), and the parser of what it prints.
 *
 * In the box's repository, without touching its HEAD, index, work tree or refs, the script
 * compares the work tree (tracked files, and untracked files that are not ignored, through
 * a private copy of the index where they are added as intent-to-add) with BASE, the commit
 * `up` started from. A BASE the box does not have falls back to HEAD, and an unborn HEAD to
 * the empty tree; the header says which was used.
 *
 * Mode "list" prints NUL-separated records, each a tab-separated token:
 *
 *   E2B-TUI-CHANGES\t<base|head|empty>\t<commit>   the first record
 *   S\t<status letter>\t<path>                     from git diff --name-status
 *   N\t<added|->\t<removed|->\t<path>              from git diff --numstat ("-": binary)
 *   U\t<path>                                      untracked (not ignored) files
 *   E2B-TUI-END                                    the last record
 *   E2B-TUI-ERROR\t<message>                       instead of all of these (exit status 1)
 *
 * Mode "diff" prints the header record, then the unified diff of E2B_TUI_FILE (raw text).
 *
 * Mode "summary" (the kill's check for unpulled work) prints the header record, then
 *
 *   K\t<count|->                       commits on HEAD the compared commit lacks ("-": not known)
 *   H\t<status>\t<blob|->\t<path>      each changed file (at most E2B_TUI_MAXFILES) with the
 *                                      blob id of its content in the work tree (git
 *                                      hash-object, no filters; a symlink's of its target;
 *                                      "-": none, e.g. deleted)
 *   E2B-TUI-END
 *
 * E2B_TUI_PREV, when set, is the last pulled commit (the local e2b/<box> tip): when the box
 * has it and it descends from BASE (or BASE is not there), every mode compares with it
 * instead, and the header says "pulled".
 * Every listing is cut in the box at the caps of core/util/limits.h, so a record list with
 * no end record was cut (the parser says so). Inputs travel in environment variables
 * (E2B_TUI_DIR, E2B_TUI_BASE, E2B_TUI_PREV, E2B_TUI_MODE, E2B_TUI_FILE, E2B_TUI_CAP,
 * E2B_TUI_MAXFILES), never in the
 * script text. Pure: no I/O here (tests/unit runs the script against real repositories). */
#ifndef E2B_CHANGES_SCRIPT_H
#define E2B_CHANGES_SCRIPT_H

#include "core/util/error.h"

#include <stdbool.h>
#include <stddef.h>

/* The script (static text; do not free). */
const char *e2b_changes_script_text(void);

/* One changed file. path is sanitised for display (control characters become '?'); raw
 * is the path as git printed it (to ask for its diff). */
typedef struct e2b_changes_file {
    char *path, *raw;
    char status;      /* 'A' added, 'M' modified, 'D' deleted, 'T' type changed, '?' */
    bool untracked;   /* not in git yet (added as intent-to-add for the diff) */
    bool binary;      /* numstat said "-" */
    long added, removed; /* lines; 0 for binary files */
} e2b_changes_file;

typedef struct e2b_changes_list {
    e2b_changes_file *files;
    size_t count;
    char against[8];  /* "base", "pulled", "head" or "empty" */
    char commit[41];  /* what the work tree was compared with ("" for the empty tree) */
    bool cut;         /* the output stopped at a cap (or the file cap was reached) */
    long added, removed; /* totals over the listed files */
} e2b_changes_list;

/* Parses the output of mode "list" (len bytes, NULs inside). At most max_files files are
 * kept (then cut is set). Returns NULL with *out filled, or the error: the box's own
 * message (sanitised), or "the changes script printed no header" for anything else. The
 * caller frees the error; *out is cleared first and left empty on error. */
e2b_error *e2b_changes_parse_list(const char *out, size_t len, size_t max_files, e2b_changes_list *out_list);
void e2b_changes_list_clear(e2b_changes_list *l);

/* One file of a summary: the raw path as git printed it (not for display), git's status
 * letter, and the blob id of its content in the box's work tree ("" = none). */
typedef struct e2b_changes_summary_file {
    char *raw;
    char status;
    char blob[41];
} e2b_changes_summary_file;

typedef struct e2b_changes_summary {
    char against[8], commit[41]; /* as in e2b_changes_list */
    long commits;                /* -1 = not known; capped at E2B_CHANGES_COUNT_MAX */
    e2b_changes_summary_file *files;
    size_t count;
    bool cut; /* more files than listed (the box's cap, max_files, or the output's cap) */
} e2b_changes_summary;

#define E2B_CHANGES_COUNT_MAX 999999999L

/* Parses the output of mode "summary" like e2b_changes_parse_list (the same errors); at most
 * max_files files are kept. The caller frees the error; *s is left empty on error. */
e2b_error *e2b_changes_parse_summary(const char *out, size_t len, size_t max_files,
                                 e2b_changes_summary *s);
void e2b_changes_summary_clear(e2b_changes_summary *s);

/* The start of the diff text after mode "diff"'s header record: sets *off past it.
 * Returns NULL, or the box's error (sanitised) / a protocol error (caller frees). */
e2b_error *e2b_changes_parse_diff_header(const char *out, size_t len, size_t *off);

#endif
