#include "core/util/json_wipe.h"

#include "core/util/buf.h"

#include <stdlib.h>
#include <string.h>

/* Trees core builds for a request are a few levels deep; deeper ones are not ours. */
enum { WIPE_DEPTH_MAX = 32 };

static void wipe_tree(json_t *j, int depth)
{
    if (!j || j->refcount > 1 || depth > WIPE_DEPTH_MAX)
        return; /* shared: another owner still reads it */
    if (json_is_string(j)) {
        /* jansson owns the bytes; they die with the node, so zeroing them is safe. */
        explicit_bzero((char *)json_string_value(j), json_string_length(j));
    } else if (json_is_array(j)) {
        for (size_t i = 0; i < json_array_size(j); i++)
            wipe_tree(json_array_get(j, i), depth + 1);
    } else if (json_is_object(j)) {
        const char *key;
        json_t *v;
        json_object_foreach(j, key, v)
            wipe_tree(v, depth + 1);
    }
}

void e2b_json_wipe_decref(json_t *j)
{
    if (!j)
        return;
    if (j->refcount == 1)
        wipe_tree(j, 0);
    json_decref(j);
}

/* A secret buffer grows by moving to a new block and wiping the old one (never realloc). */
static int append_wiped(const char *buf, size_t n, void *ud)
{
    return e2b_buf_add(ud, buf, n);
}

char *e2b_json_dumps_wiped(const json_t *j, size_t flags)
{
    e2b_buf t = {.secret = 1};
    if (!j)
        return NULL;
    if (json_dump_callback(j, append_wiped, &t, flags) != 0) {
        e2b_buf_clear(&t);
        return NULL;
    }
    return e2b_buf_take(&t); /* wipes on failure */
}

void e2b_json_text_wipe_free(char *text)
{
    if (!text)
        return;
    explicit_bzero(text, strlen(text));
    free(text);
}
