/* This machine's id: a random, stable, non-secret name for "made here", kept in
 * <state_dir>/machine-id (12 lower-case hex digits, mode 0600, made on first use). The
 * OpenCode plugin's managed templates carry the id of the machine that made them in their
 * name (api_templates.h), so the template GC deletes only this machine's. Random rather
 * than the hostname: a template's name is visible to the whole E2B team and kept on E2B's
 * side, a hostname can say whose laptop it is (and two containers often share one), and a
 * random id says nothing and stays the same when the machine is renamed. */
#ifndef E2B_MACHINE_ID_H
#define E2B_MACHINE_ID_H

#include "core/util/error.h"

enum { E2B_MACHINE_ID_LEN = 12 };

/* Reads the id into out (NUL-terminated), creating the file (and state_dir, 0700) when it
 * is missing or not an id; two processes starting at once agree on one id. NULL on
 * success. */
e2b_error *e2b_machine_id(const char *state_dir, char out[E2B_MACHINE_ID_LEN + 1]);

/* Whether s (len bytes) is an id: E2B_MACHINE_ID_LEN lower-case hex digits. */
int e2b_machine_id_valid(const char *s, size_t len);

#endif
