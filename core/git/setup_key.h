/* A project set up once (README "Set up once"): which setup a project has and the key of
 * its prepared snapshot. Pure local work (reads a few files of the project and its git
 * index), for a worker thread.
 *
 * The setup is the config's setup_command, else the project's .e2b-tui/setup when it is an
 * executable regular file (run as ./.e2b-tui/setup). The key is a SHA-256 over the
 * project's path, the template, the setup command, the script's content and the content
 * of the lock files in the project's top folder (E2B_SETUP_LOCK_FILES and requirements*.txt)
 * and of those of its sub-folders that git tracks (a bounded walk of the index: a monorepo's
 * packages/x/package-lock.json; never an untracked file), each read up to
 * E2B_SETUP_FILE_MAX bytes (its size counts too), so that a change of any of them asks for
 * a new snapshot. */
#ifndef E2B_SETUP_KEY_H
#define E2B_SETUP_KEY_H

#include "core/util/error.h"

#define E2B_SETUP_SCRIPT ".e2b-tui/setup"
#define E2B_SETUP_FILE_MAX (64L * 1024 * 1024)
/* The lock files hashed (besides requirements*.txt, at most E2B_SETUP_REQS_MAX of them). */
#define E2B_SETUP_LOCK_FILES                                                                  \
    "package-lock.json", "npm-shrinkwrap.json", "yarn.lock", "pnpm-lock.yaml", "bun.lock",    \
        "bun.lockb", "Cargo.lock", "go.sum", "poetry.lock", "uv.lock", "Pipfile.lock",        \
        "pdm.lock", "Gemfile.lock", "composer.lock", "mix.lock", "flake.lock", "packages.lock.json"
#define E2B_SETUP_REQS_MAX 64
/* The sub-folders' lock files: at most this many, this many folders deep, among the index's
 * first E2B_SETUP_INDEX_MAX entries. */
#define E2B_SETUP_SUB_MAX 128
#define E2B_SETUP_SUB_DEPTH 6
#define E2B_SETUP_INDEX_MAX 1000000

typedef struct e2b_setup {
    char *command;   /* what runs in the box (bash -c, in the project), owned; NULL: none */
    int from_script; /* 1: the project's .e2b-tui/setup, 0: the config's setup_command */
    char key[65];    /* 64 hex digits ("" without a setup) */
    int locks;       /* how many lock files the key holds */
} e2b_setup;

/* Fills *out for the project at workdir (absolute) created from template_id; command is the
 * config's setup_command (NULL: none). No setup is not an error (out->command NULL). Errors:
 * a lock file or the script that exists but cannot be read (E2B_ERR_IO). */
e2b_error *e2b_setup_find(const char *workdir, const char *command, const char *template_id,
                          e2b_setup *out);
void e2b_setup_clear(e2b_setup *s);

#endif
