/* JSON that may hold a secret (a box password in envd's Start body, a secret's value):
 * wiped before its memory goes back to the allocator.
 *
 *   json_t *b = e2b_envd_start_body(&spec);      // envs carry OPENCODE_SERVER_PASSWORD
 *   char *text = e2b_json_dumps_wiped(b, JSON_COMPACT);
 *   e2b_json_wipe_decref(b);                      // the tree's strings are zeroed, then freed
 *   ... send text ...
 *   e2b_json_text_wipe_free(text);                // the text too
 *
 * Not json_dumps: it builds the text in buffers that it grows and frees unwiped.
 *
 * Only what core itself holds is reached: copies inside libcurl or the TLS library (its
 * request and record buffers) are outside this. */
#ifndef E2B_JSON_WIPE_H
#define E2B_JSON_WIPE_H

#include <jansson.h>

/* Drops a reference to j; when it is the last one, first zeroes every string value of the
 * tree that is not shared with another owner. NULL is fine. */
void e2b_json_wipe_decref(json_t *j);

/* j as text (json_dumps flags), built in memory that is wiped whenever it is let go.
 * Returns malloc'd text for e2b_json_text_wipe_free, or NULL (out of memory, j NULL). */
char *e2b_json_dumps_wiped(const json_t *j, size_t flags);
/* Zeroes and frees a text from e2b_json_dumps_wiped. NULL is fine. */
void e2b_json_text_wipe_free(char *text);

#endif
