#include "core/e2b/objects.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/e2b/json_read.h"
#include "core/util/buf.h"

/* Grows an array of count elements of size esz to hold more: model.h's lists keep no
 * capacity, so count is all e2b_array_grow (the one array growth) is told. */
static int grow(void **items, size_t count, size_t more, size_t esz)
{
    size_t cap = count;
    if (more > SIZE_MAX - count)
        return -1;
    return e2b_array_grow(items, &cap, count + more, esz);
}

/* ---- metadata ---- */

const char *e2b_metadata_get(const e2b_metadata *md, const char *key)
{
    for (size_t i = 0; md && i < md->count; i++)
        if (strcmp(md->items[i].key, key) == 0)
            return md->items[i].value;
    return NULL;
}

int e2b_metadata_set(e2b_metadata *md, const char *key, const char *value)
{
    char *v = strdup(value), *k;
    if (!v)
        return -1;
    for (size_t i = 0; i < md->count; i++) {
        if (strcmp(md->items[i].key, key) == 0) {
            free(md->items[i].value);
            md->items[i].value = v;
            return 0;
        }
    }
    k = strdup(key);
    if (!k || grow((void **)&md->items, md->count, 1, sizeof *md->items) < 0) {
        free(k);
        free(v);
        return -1;
    }
    md->items[md->count].key = k;
    md->items[md->count].value = v;
    md->count++;
    return 0;
}

void e2b_metadata_clear(e2b_metadata *md)
{
    if (!md)
        return;
    for (size_t i = 0; i < md->count; i++) {
        free(md->items[i].key);
        free(md->items[i].value);
    }
    free(md->items);
    md->items = NULL;
    md->count = 0;
}

json_t *e2b_metadata_to_json(const e2b_metadata *md)
{
    json_t *o = json_object();
    for (size_t i = 0; o && md && i < md->count; i++)
        json_object_set_new(o, md->items[i].key, json_string(md->items[i].value));
    return o;
}

static int metadata_copy(const e2b_metadata *src, e2b_metadata *dst)
{
    memset(dst, 0, sizeof *dst);
    for (size_t i = 0; i < src->count; i++) {
        if (e2b_metadata_set(dst, src->items[i].key, src->items[i].value) < 0) {
            e2b_metadata_clear(dst);
            return -1;
        }
    }
    return 0;
}

/* ---- time ---- */

static int digits(const char *s, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (!isdigit((unsigned char)s[i]))
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return 0;
}

int e2b_parse_rfc3339(const char *s, time_t *out, int *ms)
{
    struct tm tm;
    int y, mo, d, h, mi, sec, frac_ms = 0, off = 0;
    time_t t;
    memset(&tm, 0, sizeof tm);
    if (!s || strlen(s) < 20)
        return -1;
    if (digits(s, 4, &y) || s[4] != '-' || digits(s + 5, 2, &mo) || s[7] != '-' ||
        digits(s + 8, 2, &d) || (s[10] != 'T' && s[10] != 't' && s[10] != ' ') ||
        digits(s + 11, 2, &h) || s[13] != ':' || digits(s + 14, 2, &mi) || s[16] != ':' ||
        digits(s + 17, 2, &sec))
        return -1;
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 60)
        return -1;
    s += 19;
    if (*s == '.') {
        int n = 0;
        s++;
        if (!isdigit((unsigned char)*s))
            return -1;
        for (; isdigit((unsigned char)*s); s++, n++)
            if (n < 3)
                frac_ms = frac_ms * 10 + (*s - '0');
        for (; n < 3; n++)
            frac_ms *= 10;
    }
    if (*s == 'Z' || *s == 'z') {
        s++;
    } else if (*s == '+' || *s == '-') {
        int oh, om, sign = *s == '-' ? -1 : 1;
        if (digits(s + 1, 2, &oh) || s[3] != ':' || digits(s + 4, 2, &om) || oh > 23 || om > 59)
            return -1;
        off = sign * (oh * 3600 + om * 60);
        s += 6;
    } else {
        return -1;
    }
    if (*s)
        return -1;
    tm.tm_year = y - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    tm.tm_hour = h;
    tm.tm_min = mi;
    tm.tm_sec = sec;
    t = timegm(&tm);
    if (t == (time_t)-1 && !(y == 1969 && mo == 12 && d == 31))
        return -1;
    *out = t - off;
    if (ms)
        *ms = frac_ms;
    return 0;
}

void e2b_format_rfc3339(time_t t, char *buf, size_t size)
{
    struct tm tm;
    int n = -1;
    /* The year by hand: strftime's %Y does not pad years below 1000 to 4 digits, which is
     * not RFC 3339 and did not parse back (found by tests/fuzz/fuzz_model). Years RFC 3339
     * cannot write (before 0000, after 9999) give an empty string, like any other failure. */
    if (gmtime_r(&t, &tm) && tm.tm_year >= -1900 && tm.tm_year <= 9999 - 1900)
        n = snprintf(buf, size, "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900,
                     tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
    if ((n < 0 || (size_t)n >= size) && size)
        buf[0] = '\0';
}

/* ---- sandboxes ---- */

static e2b_sandbox_state parse_state(const char *s)
{
    if (!s)
        return E2B_STATE_UNKNOWN;
    if (strcmp(s, "running") == 0)
        return E2B_STATE_RUNNING;
    if (strcmp(s, "paused") == 0)
        return E2B_STATE_PAUSED;
    return E2B_STATE_UNKNOWN;
}

static e2b_error *sandbox_map(const json_t *obj, const char *what, e2b_sandbox *out)
{
    e2b_error *err = NULL;
    char *state = NULL;
    json_t *life;
    memset(out, 0, sizeof *out);
    out->cpu_count = out->memory_mb = out->disk_size_mb = -1;
    out->allow_internet_access = out->auto_resume = -1;
    if (e2b_json_need_object(obj, what, &err) < 0)
        return err;
    if (e2b_json_str(obj, what, "sandboxID", 1, &out->sandbox_id, &err) < 0 ||
        e2b_json_str(obj, what, "templateID", 0, &out->template_id, &err) < 0 ||
        e2b_json_str(obj, what, "alias", 0, &out->alias, &err) < 0 ||
        e2b_json_str(obj, what, "envdVersion", 0, &out->envd_version, &err) < 0 ||
        e2b_json_str(obj, what, "state", 0, &state, &err) < 0 ||
        e2b_json_int(obj, what, "cpuCount", -1, &out->cpu_count, &err) < 0 ||
        e2b_json_int(obj, what, "memoryMB", -1, &out->memory_mb, &err) < 0 ||
        e2b_json_int(obj, what, "diskSizeMB", -1, &out->disk_size_mb, &err) < 0 ||
        e2b_json_time(obj, what, "startedAt", &out->started_at, NULL, &err) < 0 ||
        e2b_json_time(obj, what, "endAt", &out->end_at, NULL, &err) < 0 ||
        e2b_json_metadata(obj, what, "metadata", &out->metadata, &err) < 0 ||
        e2b_json_str(obj, what, "domain", 0, &out->domain, &err) < 0 ||
        e2b_json_str(obj, what, "envdAccessToken", 0, &out->envd_access_token, &err) < 0 ||
        e2b_json_str(obj, what, "trafficAccessToken", 0, &out->traffic_access_token, &err) < 0 ||
        e2b_json_bool(obj, what, "allowInternetAccess", &out->allow_internet_access, &err) < 0)
        goto fail;
    out->state = parse_state(state);
    free(state);
    state = NULL;
    life = e2b_json_field(obj, "lifecycle");
    if (life) {
        if (!json_is_object(life)) {
            e2b_json_wrong_type(what, "lifecycle", "an object", life, &err);
            goto fail;
        }
        if (e2b_json_str(life, what, "onTimeout", 0, &out->on_timeout, &err) < 0 ||
            e2b_json_bool(life, what, "autoResume", &out->auto_resume, &err) < 0)
            goto fail;
    }
    return NULL;
fail:
    free(state);
    e2b_sandbox_clear(out);
    return err;
}

e2b_error *e2b_sandbox_from_json(const json_t *obj, e2b_sandbox *out)
{
    return sandbox_map(obj, "sandbox", out);
}

e2b_error *e2b_sandbox_list_append_json(const json_t *array, e2b_sandbox_list *list)
{
    e2b_error *err = NULL;
    size_t n, i, base = list->count;
    if (e2b_json_need_array(array, "the sandbox list", &err) < 0)
        return err;
    n = json_array_size(array);
    if (grow((void **)&list->items, list->count, n, sizeof *list->items) < 0)
        return e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
    for (i = 0; i < n; i++) {
        char what[48];
        snprintf(what, sizeof what, "sandbox %zu", base + i + 1);
        err = sandbox_map(json_array_get(array, i), what, &list->items[base + i]);
        if (err) {
            for (size_t j = 0; j < i; j++)
                e2b_sandbox_clear(&list->items[base + j]);
            return err;
        }
    }
    list->count += n;
    return NULL;
}

void e2b_sandbox_clear(e2b_sandbox *sb)
{
    if (!sb)
        return;
    free(sb->sandbox_id);
    free(sb->template_id);
    free(sb->alias);
    free(sb->envd_version);
    e2b_metadata_clear(&sb->metadata);
    free(sb->domain);
    free(sb->envd_access_token);
    free(sb->traffic_access_token);
    free(sb->on_timeout);
    free(sb->box_name);
    free(sb->box_branch);
    free(sb->box_base);
    memset(sb, 0, sizeof *sb);
    sb->cpu_count = sb->memory_mb = sb->disk_size_mb = -1;
    sb->allow_internet_access = sb->auto_resume = -1;
}

void e2b_sandbox_free(e2b_sandbox *sb)
{
    if (!sb)
        return;
    e2b_sandbox_clear(sb);
    free(sb);
}

void e2b_sandbox_list_clear(e2b_sandbox_list *list)
{
    if (!list)
        return;
    for (size_t i = 0; i < list->count; i++)
        e2b_sandbox_clear(&list->items[i]);
    free(list->items);
    list->items = NULL;
    list->count = 0;
    list->total_running = -1;
}

static int copy_str(const char *src, char **dst)
{
    *dst = NULL;
    if (!src)
        return 0;
    *dst = strdup(src);
    return *dst ? 0 : -1;
}

int e2b_sandbox_copy(const e2b_sandbox *src, e2b_sandbox *dst)
{
    *dst = *src;
    dst->metadata.items = NULL;
    dst->metadata.count = 0;
    if (copy_str(src->sandbox_id, &dst->sandbox_id) | copy_str(src->template_id, &dst->template_id) |
        copy_str(src->alias, &dst->alias) | copy_str(src->envd_version, &dst->envd_version) |
        copy_str(src->domain, &dst->domain) |
        copy_str(src->envd_access_token, &dst->envd_access_token) |
        copy_str(src->traffic_access_token, &dst->traffic_access_token) |
        copy_str(src->on_timeout, &dst->on_timeout) | copy_str(src->box_name, &dst->box_name) |
        copy_str(src->box_branch, &dst->box_branch) | copy_str(src->box_base, &dst->box_base) |
        metadata_copy(&src->metadata, &dst->metadata)) {
        e2b_sandbox_clear(dst);
        return -1;
    }
    return 0;
}

const char *e2b_sandbox_state_name(e2b_sandbox_state st)
{
    switch (st) {
    case E2B_STATE_RUNNING: return "running";
    case E2B_STATE_PAUSED: return "paused";
    default: return "unknown";
    }
}

const char *e2b_sandbox_kind_name(e2b_sandbox_kind kind)
{
    switch (kind) {
    case E2B_KIND_BOX: return "box";
    case E2B_KIND_WORKSPACE: return "workspace";
    default: return "other";
    }
}

/* Whether md has one of the comma-separated keys (spaces around names ignored). */
static int has_any_key(const e2b_metadata *md, const char *keys)
{
    const char *p = keys;
    while (*p) {
        const char *end = strchr(p, ','), *a = p, *b;
        if (!end)
            end = p + strlen(p);
        b = end;
        while (a < b && isspace((unsigned char)*a))
            a++;
        while (b > a && isspace((unsigned char)b[-1]))
            b--;
        for (size_t i = 0; b > a && i < md->count; i++)
            if (strlen(md->items[i].key) == (size_t)(b - a) &&
                memcmp(md->items[i].key, a, (size_t)(b - a)) == 0)
                return 1;
        p = *end ? end + 1 : end;
    }
    return 0;
}

static int starts_with(const char *s, const char *prefix)
{
    return s && strncmp(s, prefix, strlen(prefix)) == 0;
}

int e2b_sandbox_classify(e2b_sandbox *sb, const char *workspace_keys)
{
    const char *app = e2b_metadata_get(&sb->metadata, E2B_META_APP);
    free(sb->box_name);
    free(sb->box_branch);
    free(sb->box_base);
    sb->box_name = sb->box_branch = sb->box_base = NULL;
    if (app && strcmp(app, E2B_META_APP_BOX) == 0) {
        sb->kind = E2B_KIND_BOX;
        if (copy_str(e2b_metadata_get(&sb->metadata, E2B_META_NAME), &sb->box_name) |
            copy_str(e2b_metadata_get(&sb->metadata, E2B_META_BRANCH), &sb->box_branch) |
            copy_str(e2b_metadata_get(&sb->metadata, E2B_META_BASE), &sb->box_base))
            return -1;
        return 0;
    }
    if (starts_with(sb->alias, "opencode-e2b-") || starts_with(sb->template_id, "opencode-e2b-") ||
        has_any_key(&sb->metadata, workspace_keys ? workspace_keys : E2B_DEFAULT_WORKSPACE_KEYS))
        sb->kind = E2B_KIND_WORKSPACE;
    else
        sb->kind = E2B_KIND_OTHER;
    return 0;
}

int e2b_sandbox_list_classify(e2b_sandbox_list *list, const char *workspace_keys)
{
    for (size_t i = 0; i < list->count; i++)
        if (e2b_sandbox_classify(&list->items[i], workspace_keys) < 0)
            return -1;
    return 0;
}

/* ---- secrets ---- */

static e2b_error *secret_map(const json_t *obj, const char *what, e2b_secret *out)
{
    e2b_error *err = NULL;
    memset(out, 0, sizeof *out);
    if (e2b_json_need_object(obj, what, &err) < 0)
        return err;
    if (e2b_json_str(obj, what, "secretID", 1, &out->secret_id, &err) < 0 ||
        e2b_json_str(obj, what, "name", 1, &out->name, &err) < 0 ||
        e2b_json_i64(obj, what, "currentVersion", 0, &out->current_version, &err) < 0 ||
        e2b_json_metadata(obj, what, "metadata", &out->metadata, &err) < 0 ||
        e2b_json_time(obj, what, "createdAt", &out->created_at, NULL, &err) < 0 ||
        e2b_json_time(obj, what, "updatedAt", &out->updated_at, NULL, &err) < 0) {
        e2b_secret_clear(out);
        return err;
    }
    return NULL;
}

e2b_error *e2b_secret_from_json(const json_t *obj, e2b_secret *out)
{
    return secret_map(obj, "secret", out);
}

e2b_error *e2b_secret_list_append_json(const json_t *array, e2b_secret_list *list)
{
    e2b_error *err = NULL;
    size_t n, base = list->count;
    if (e2b_json_need_array(array, "the secret list", &err) < 0)
        return err;
    n = json_array_size(array);
    if (grow((void **)&list->items, list->count, n, sizeof *list->items) < 0)
        return e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
    for (size_t i = 0; i < n; i++) {
        char what[48];
        snprintf(what, sizeof what, "secret %zu", base + i + 1);
        err = secret_map(json_array_get(array, i), what, &list->items[base + i]);
        if (err) {
            for (size_t j = 0; j < i; j++)
                e2b_secret_clear(&list->items[base + j]);
            return err;
        }
    }
    list->count += n;
    return NULL;
}

void e2b_secret_clear(e2b_secret *s)
{
    if (!s)
        return;
    free(s->secret_id);
    free(s->name);
    e2b_metadata_clear(&s->metadata);
    memset(s, 0, sizeof *s);
}

void e2b_secret_list_clear(e2b_secret_list *list)
{
    if (!list)
        return;
    for (size_t i = 0; i < list->count; i++)
        e2b_secret_clear(&list->items[i]);
    free(list->items);
    list->items = NULL;
    list->count = 0;
}

/* ---- metrics ---- */

static e2b_error *metric_map(const json_t *obj, const char *what, e2b_metric *out)
{
    e2b_error *err = NULL;
    int64_t ts = 0;
    memset(out, 0, sizeof *out);
    if (e2b_json_need_object(obj, what, &err) < 0)
        return err;
    if (e2b_json_i64(obj, what, "timestampUnix", 0, &ts, &err) < 0 ||
        e2b_json_int(obj, what, "cpuCount", 0, &out->cpu_count, &err) < 0 ||
        e2b_json_real(obj, what, "cpuUsedPct", &out->cpu_used_pct, &err) < 0 ||
        e2b_json_i64(obj, what, "memUsed", 0, &out->mem_used, &err) < 0 ||
        e2b_json_i64(obj, what, "memTotal", 0, &out->mem_total, &err) < 0 ||
        e2b_json_i64(obj, what, "memCache", 0, &out->mem_cache, &err) < 0 ||
        e2b_json_i64(obj, what, "diskUsed", 0, &out->disk_used, &err) < 0 ||
        e2b_json_i64(obj, what, "diskTotal", 0, &out->disk_total, &err) < 0)
        return err;
    out->timestamp = (time_t)ts;
    /* Older servers only send the deprecated RFC 3339 timestamp. */
    if (!ts && e2b_json_time(obj, what, "timestamp", &out->timestamp, NULL, &err) < 0)
        return err;
    return NULL;
}

e2b_error *e2b_metric_from_json(const json_t *obj, e2b_metric *out)
{
    return metric_map(obj, "metric", out);
}

e2b_error *e2b_metric_list_from_json(const json_t *array, e2b_metric_list *out)
{
    e2b_error *err = NULL;
    size_t n;
    memset(out, 0, sizeof *out);
    if (e2b_json_need_array(array, "the metrics", &err) < 0)
        return err;
    n = json_array_size(array);
    if (grow((void **)&out->items, 0, n, sizeof *out->items) < 0)
        return e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
    for (size_t i = 0; i < n; i++) {
        char what[48];
        snprintf(what, sizeof what, "metric %zu", i + 1);
        err = metric_map(json_array_get(array, i), what, &out->items[i]);
        if (err) {
            e2b_metric_list_clear(out);
            return err;
        }
        out->count++;
    }
    return NULL;
}

e2b_error *e2b_metric_list_from_bulk_json(const json_t *obj, e2b_metric_list *out)
{
    e2b_error *err = NULL;
    json_t *sbs, *v;
    const char *id;
    memset(out, 0, sizeof *out);
    if (e2b_json_need_object(obj, "the metrics", &err) < 0)
        return err;
    sbs = e2b_json_field(obj, "sandboxes");
    if (!sbs)
        return NULL;
    if (!json_is_object(sbs)) {
        e2b_json_wrong_type("the metrics", "sandboxes", "an object", sbs, &err);
        return err;
    }
    if (grow((void **)&out->items, 0, json_object_size(sbs), sizeof *out->items) < 0)
        return e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
    json_object_foreach(sbs, id, v)
    {
        char what[96];
        snprintf(what, sizeof what, "metric of %.60s", id);
        err = metric_map(v, what, &out->items[out->count]);
        if (!err && !(out->items[out->count].sandbox_id = strdup(id)))
            err = e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
        if (err) {
            e2b_metric_list_clear(out);
            return err;
        }
        out->count++;
    }
    return NULL;
}

void e2b_metric_list_clear(e2b_metric_list *list)
{
    if (!list)
        return;
    for (size_t i = 0; i < list->count; i++)
        free(list->items[i].sandbox_id);
    free(list->items);
    list->items = NULL;
    list->count = 0;
}

/* ---- logs ---- */

e2b_error *e2b_log_list_from_json(const json_t *obj, e2b_log_list *out)
{
    e2b_error *err = NULL;
    json_t *logs;
    size_t n;
    memset(out, 0, sizeof *out);
    if (e2b_json_need_object(obj, "the logs", &err) < 0)
        return err;
    logs = e2b_json_field(obj, "logs");
    if (!logs)
        return NULL;
    if (e2b_json_need_array(logs, "the logs", &err) < 0)
        return err;
    n = json_array_size(logs);
    if (grow((void **)&out->items, 0, n, sizeof *out->items) < 0)
        return e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_array_get(logs, i);
        e2b_log_entry *le = &out->items[i];
        char what[48];
        snprintf(what, sizeof what, "log entry %zu", i + 1);
        memset(le, 0, sizeof *le);
        if (e2b_json_need_object(e, what, &err) < 0 ||
            e2b_json_time(e, what, "timestamp", &le->timestamp, &le->timestamp_ms, &err) < 0 ||
            e2b_json_str(e, what, "level", 0, &le->level, &err) < 0 ||
            e2b_json_str(e, what, "message", 0, &le->message, &err) < 0 ||
            e2b_json_metadata(e, what, "fields", &le->fields, &err) < 0 ||
            (!le->message && !(le->message = strdup("")))) {
            free(le->level);
            free(le->message);
            e2b_metadata_clear(&le->fields);
            e2b_log_list_clear(out);
            return err ? err : e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
        }
        out->count++;
    }
    return NULL;
}

void e2b_log_list_clear(e2b_log_list *list)
{
    if (!list)
        return;
    for (size_t i = 0; i < list->count; i++) {
        free(list->items[i].level);
        free(list->items[i].message);
        e2b_metadata_clear(&list->items[i].fields);
    }
    free(list->items);
    list->items = NULL;
    list->count = 0;
}

void e2b_sandbox_list_free(e2b_sandbox_list *list)
{
    e2b_sandbox_list_clear(list);
    free(list);
}

void e2b_secret_free(e2b_secret *s)
{
    e2b_secret_clear(s);
    free(s);
}

void e2b_secret_list_free(e2b_secret_list *list)
{
    e2b_secret_list_clear(list);
    free(list);
}

void e2b_metric_list_free(e2b_metric_list *list)
{
    e2b_metric_list_clear(list);
    free(list);
}

void e2b_log_list_free(e2b_log_list *list)
{
    e2b_log_list_clear(list);
    free(list);
}
