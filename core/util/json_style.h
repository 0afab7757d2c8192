/* The one style of the JSON documents e2b-tui prints (--list, --secrets list and --status
 * with --json): one document per run, with a "version" field, compact (no whitespace, one
 * line) unless --pretty asks for an indent of two; only ASCII (\u escapes), so a box's text
 * can reach no terminal raw. */
#ifndef E2B_JSON_STYLE_H
#define E2B_JSON_STYLE_H

#include <stdbool.h>
#include <stddef.h>

/* The json_dumps flags of that style. */
size_t e2b_json_style(bool pretty);

/* A document of string rows in that style: {"version":1,"<list>":[{keys[0]:cells[0], ...},
 * ...]} with nrows rows of nkeys cells each (row-major). New string (the caller frees it);
 * NULL when out of memory. */
char *e2b_json_rows(const char *list, const char *const *keys, size_t nkeys,
                    const char *const *cells, size_t nrows, bool pretty);

#endif
