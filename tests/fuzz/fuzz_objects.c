/* Fuzz target: every JSON -> struct mapper of core/e2b/objects.h (sandbox list, detail, create and
 * connect replies, secrets, metrics, bulk metrics, logs), envd's process list, E2B's HTTP
 * error bodies, and RFC 3339 times.
 *
 * The input is parsed once with jansson and handed to every mapper whatever its shape (a
 * mapper must refuse a wrong shape with an error, never crash). Invariants:
 *  - on error a mapper leaves its output empty, and an append leaves the list as it was;
 *  - on success required fields are set (sandbox_id, secret id and name, log message);
 *  - a mapped sandbox can be classified and deep-copied, and the copy equals the original;
 *  - e2b_parse_rfc3339 of e2b_format_rfc3339(t) gives t back. */
#include "core/e2b/envd.h"
#include "core/util/error.h"
#include "core/e2b/objects.h"
#include "tests/fuzz/fuzz_common.h"

#include <string.h>

static int str_eq(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static void check_metadata_equal(const e2b_metadata *a, const e2b_metadata *b)
{
    FUZZ_CHECK(a->count == b->count);
    for (size_t i = 0; i < a->count; i++) {
        FUZZ_CHECK(str_eq(a->items[i].key, b->items[i].key));
        FUZZ_CHECK(str_eq(a->items[i].value, b->items[i].value));
    }
}

static void check_sandbox(e2b_sandbox *sb)
{
    FUZZ_CHECK(sb->sandbox_id != NULL);
    FUZZ_CHECK(e2b_sandbox_state_name(sb->state) != NULL);
    if (e2b_sandbox_classify(sb, NULL) < 0)
        return;
    FUZZ_CHECK(e2b_sandbox_kind_name(sb->kind) != NULL);
    if (sb->kind == E2B_KIND_BOX)
        FUZZ_CHECK(str_eq(e2b_metadata_get(&sb->metadata, E2B_META_APP), E2B_META_APP_BOX));
    else
        FUZZ_CHECK(!sb->box_name && !sb->box_branch && !sb->box_base);
    e2b_sandbox copy;
    if (e2b_sandbox_copy(sb, &copy) < 0)
        return;
    FUZZ_CHECK(str_eq(copy.sandbox_id, sb->sandbox_id));
    FUZZ_CHECK(str_eq(copy.template_id, sb->template_id));
    FUZZ_CHECK(str_eq(copy.alias, sb->alias));
    FUZZ_CHECK(str_eq(copy.envd_access_token, sb->envd_access_token));
    FUZZ_CHECK(str_eq(copy.box_name, sb->box_name));
    FUZZ_CHECK(copy.state == sb->state && copy.kind == sb->kind);
    FUZZ_CHECK(copy.cpu_count == sb->cpu_count && copy.started_at == sb->started_at);
    check_metadata_equal(&copy.metadata, &sb->metadata);
    /* The metadata goes back to JSON as one string per key. */
    json_t *md = e2b_metadata_to_json(&sb->metadata);
    if (md) {
        for (size_t i = 0; i < sb->metadata.count; i++) {
            json_t *v = json_object_get(md, sb->metadata.items[i].key);
            FUZZ_CHECK(json_is_string(v));
        }
        json_decref(md);
    }
    e2b_sandbox_clear(&copy);
}

static void sandboxes(const json_t *root)
{
    e2b_sandbox sb;
    memset(&sb, 0x5A, sizeof sb); /* "*out is overwritten (not cleared first)" */
    e2b_error *err = e2b_sandbox_from_json(root, &sb);
    if (err) {
        FUZZ_CHECK(err->kind == E2B_ERR_PROTOCOL || err->kind == E2B_ERR_INTERNAL);
        e2b_error_free(err);
    } else {
        check_sandbox(&sb);
        e2b_sandbox_clear(&sb);
    }

    e2b_sandbox_list list = {0};
    list.total_running = -1;
    err = e2b_sandbox_list_append_json(root, &list);
    if (err) {
        FUZZ_CHECK(list.count == 0);
        e2b_error_free(err);
        e2b_sandbox_list_clear(&list); /* the array may have grown */
        return;
    }
    size_t first = list.count;
    /* A second page: the same array again, appended to what is there. */
    err = e2b_sandbox_list_append_json(root, &list);
    if (err) {
        FUZZ_CHECK(list.count == first);
        e2b_error_free(err);
    } else {
        FUZZ_CHECK(list.count == 2 * first);
    }
    if (e2b_sandbox_list_classify(&list, "opencode-workspace,,workspaceID,") == 0)
        for (size_t i = 0; i < list.count; i++)
            FUZZ_CHECK(list.items[i].sandbox_id != NULL);
    for (size_t i = 0; i < list.count; i++)
        check_sandbox(&list.items[i]);
    e2b_sandbox_list_clear(&list);
}

static void secrets(const json_t *root)
{
    e2b_secret s;
    e2b_error *err = e2b_secret_from_json(root, &s);
    if (err) {
        e2b_error_free(err);
    } else {
        FUZZ_CHECK(s.secret_id && s.name);
        e2b_secret_clear(&s);
    }
    e2b_secret_list list = {0};
    err = e2b_secret_list_append_json(root, &list);
    if (err) {
        FUZZ_CHECK(list.count == 0); /* items may be allocated: clear frees it */
        e2b_error_free(err);
    }
    for (size_t i = 0; i < list.count; i++)
        FUZZ_CHECK(list.items[i].secret_id && list.items[i].name);
    e2b_secret_list_clear(&list);
}

static void metrics(const json_t *root)
{
    e2b_metric m;
    e2b_error *err = e2b_metric_from_json(root, &m);
    if (err)
        e2b_error_free(err);
    else
        free(m.sandbox_id);

    e2b_metric_list list;
    err = e2b_metric_list_from_json(root, &list);
    if (err) {
        FUZZ_CHECK(list.count == 0);
        e2b_error_free(err);
    } else {
        for (size_t i = 0; i < list.count; i++)
            FUZZ_CHECK(list.items[i].sandbox_id == NULL);
        e2b_metric_list_clear(&list);
    }

    err = e2b_metric_list_from_bulk_json(root, &list);
    if (err) {
        FUZZ_CHECK(list.count == 0);
        e2b_error_free(err);
    } else {
        for (size_t i = 0; i < list.count; i++)
            FUZZ_CHECK(list.items[i].sandbox_id != NULL);
        e2b_metric_list_clear(&list);
    }
}

static void logs(const json_t *root)
{
    e2b_log_list list;
    e2b_error *err = e2b_log_list_from_json(root, &list);
    if (err) {
        FUZZ_CHECK(list.count == 0);
        e2b_error_free(err);
        return;
    }
    for (size_t i = 0; i < list.count; i++) {
        FUZZ_CHECK(list.items[i].message != NULL);
        FUZZ_CHECK(list.items[i].timestamp_ms >= 0 && list.items[i].timestamp_ms < 1000);
    }
    e2b_log_list_clear(&list);
}

static void processes(const json_t *root)
{
    e2b_process_list list;
    e2b_error *err = e2b_process_list_from_json(root, &list);
    if (err) {
        FUZZ_CHECK(list.count == 0);
        e2b_error_free(err);
        return;
    }
    e2b_process_list_clear(&list);
}

static void times(const uint8_t *data, size_t size)
{
    char text[64];
    if (size >= sizeof text)
        return;
    memcpy(text, data, size);
    text[size] = '\0';
    time_t t;
    int ms = -1;
    if (e2b_parse_rfc3339(text, &t, &ms) < 0)
        return;
    FUZZ_CHECK(ms >= 0 && ms < 1000);
    char again[64];
    e2b_format_rfc3339(t, again, sizeof again);
    if (!again[0]) /* a year RFC 3339 cannot write, e.g. 0000-01-01T00:00:00+00:01 */
        return;
    FUZZ_CHECK(strlen(again) == 20);
    time_t t2;
    FUZZ_CHECK(e2b_parse_rfc3339(again, &t2, NULL) == 0);
    FUZZ_CHECK(t2 == t);
}

static void http_errors(const uint8_t *data, size_t size)
{
    static const long statuses[] = {400, 401, 404, 409, 429, 500, 502};
    long status = statuses[size % (sizeof statuses / sizeof statuses[0])];
    e2b_error *err = e2b_error_from_http(status, (const char *)data, size, "trace", NULL);
    FUZZ_CHECK(err != NULL);
    const char *msg = e2b_error_message(err);
    FUZZ_CHECK(msg != NULL);
    /* The one-line message has no control characters (error.h). */
    for (const unsigned char *p = (const unsigned char *)msg; *p; p++)
        FUZZ_CHECK(*p >= 0x20 && *p != 0x7f);
    e2b_error_free(e2b_error_copy(err));
    e2b_error_free(err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    times(data, size);
    http_errors(data, size);
    json_t *root = json_loadb((const char *)data, size, JSON_DECODE_ANY, NULL);
    if (!root)
        return 0;
    sandboxes(root);
    secrets(root);
    metrics(root);
    logs(root);
    processes(root);
    /* Every element of an array through the single-object mappers too. */
    if (json_is_array(root)) {
        size_t i;
        json_t *v;
        json_array_foreach(root, i, v)
        {
            if (i >= 8)
                break;
            sandboxes(v);
            secrets(v);
            metrics(v);
        }
    }
    json_decref(root);
    return 0;
}
