/* The printed JSON's one style (json_style.h). */
#include "core/util/json_style.h"

#include <jansson.h>

size_t e2b_json_style(bool pretty)
{
    return (pretty ? JSON_INDENT(2) : JSON_COMPACT) | JSON_ENSURE_ASCII;
}

char *e2b_json_rows(const char *list, const char *const *keys, size_t nkeys,
                    const char *const *cells, size_t nrows, bool pretty)
{
    json_t *arr = json_array();
    json_t *doc = arr ? json_pack("{s:i, s:o}", "version", 1, list, arr) : NULL;
    for (size_t r = 0; doc && r < nrows; r++) {
        json_t *o = json_object();
        for (size_t k = 0; o && k < nkeys; k++)
            json_object_set_new(o, keys[k], json_string(cells[r * nkeys + k] ? cells[r * nkeys + k] : ""));
        if (!o || json_array_append_new(arr, o) < 0) {
            json_decref(doc);
            return NULL;
        }
    }
    char *s = doc ? json_dumps(doc, e2b_json_style(pretty)) : NULL;
    json_decref(doc);
    return s;
}
