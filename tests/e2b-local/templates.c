/* Seeded templates, snapshots and forks (see templates.h). */
#include "templates.h"

#include "cow.h"
#include "lifecycle.h"
#include "sandbox.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define TEAM "local"
#define FORK_DEFAULT_TIMEOUT_S 15
#define MAX_TIMEOUT_S (24 * 3600)

static const char *const builtins[] = {"base", "opencode"};

/* Each entry: {templateID, alias (string or null), kind "seeded"|"snapshot",
 * sourceSandboxID, createdAt, updatedAt, lastSpawnedAt (ms, -1 never), spawnCount,
 * buildCount}. */
static json_t *g_tpl;
static pthread_mutex_t tpl_lock = PTHREAD_MUTEX_INITIALIZER;

static void registry_path(char *out, size_t len)
{
    snprintf(out, len, "%s/templates.json", g_cfg.state_dir);
}

static void tpl_root(const char *id, char *out, size_t len)
{
    snprintf(out, len, "%s/templates/%s", g_cfg.state_dir, id);
}

static int save_locked(void)
{
    char path[2300];
    registry_path(path, sizeof path);
    char *text = json_dumps(g_tpl, JSON_COMPACT);
    if (!text)
        return -1;
    int rc = write_file_atomic(path, text, strlen(text), 0600);
    free(text);
    return rc;
}

void templates_load(void)
{
    char path[2300];
    registry_path(path, sizeof path);
    json_t *a = json_load_file(path, 0, NULL);
    g_tpl = json_is_array(a) ? a : json_array();
    if (!json_is_array(a))
        json_decref(a);
}

static const char *sget(json_t *e, const char *k)
{
    return json_string_value(json_object_get(e, k));
}

static int64_t iget(json_t *e, const char *k)
{
    return json_integer_value(json_object_get(e, k));
}

/* Strips ":tag" and the team namespace from a reference. */
static void bare_ref(const char *ref, char *out, size_t len)
{
    const char *slash = strchr(ref, '/');
    snprintf(out, len, "%s", slash ? slash + 1 : ref);
    char *colon = strchr(out, ':');
    if (colon)
        *colon = '\0';
}

static json_t *find_locked(const char *bare, size_t *index)
{
    size_t i;
    json_t *e;
    json_array_foreach(g_tpl, i, e) {
        const char *alias = sget(e, "alias");
        if (strcmp(sget(e, "templateID"), bare) == 0 || (alias && strcmp(alias, bare) == 0)) {
            if (index)
                *index = i;
            return e;
        }
    }
    return NULL;
}

static bool builtin(const char *bare)
{
    for (size_t i = 0; i < sizeof builtins / sizeof *builtins; i++)
        if (strcmp(bare, builtins[i]) == 0)
            return true;
    return false;
}

bool template_resolve(const char *ref, char *tid, size_t tidlen, char *root, size_t rootlen)
{
    char bare[128];
    bare_ref(ref, bare, sizeof bare);
    root[0] = '\0';
    if (builtin(bare)) {
        snprintf(tid, tidlen, "%s", bare);
        return true;
    }
    pthread_mutex_lock(&tpl_lock);
    json_t *e = find_locked(bare, NULL);
    if (e) {
        snprintf(tid, tidlen, "%s", sget(e, "templateID"));
        if (strcmp(sget(e, "kind"), "snapshot") == 0)
            tpl_root(tid, root, rootlen);
    }
    pthread_mutex_unlock(&tpl_lock);
    if (e)
        return true;
    /* OpenCode workspace templates are built per project; unseeded ones behave like opencode. */
    if (strncmp(bare, "opencode-e2b-", 13) == 0 && strlen(bare) < 32) {
        snprintf(tid, tidlen, "%s", bare);
        return true;
    }
    return false;
}

void template_spawned(const char *tid)
{
    pthread_mutex_lock(&tpl_lock);
    json_t *e = find_locked(tid, NULL);
    if (e) {
        json_object_set_new(e, "lastSpawnedAt", json_integer(now_ms()));
        json_object_set_new(e, "spawnCount", json_integer(iget(e, "spawnCount") + 1));
        save_locked();
    }
    pthread_mutex_unlock(&tpl_lock);
}

static int copy_once(const char *from, const char *dst)
{
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        execl("/bin/cp", "cp", "-a", "--reflink=auto", "--", from, dst, (char *)NULL);
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* The source may be a running sandbox whose processes go on while cp reads it (a server's
 * journal file that comes and goes makes cp fail on a file it had listed). A copy that
 * failed is made again over the first, at most three times in all. */
int copy_tree(const char *src, const char *dst)
{
    char from[2400];
    snprintf(from, sizeof from, "%s/.", src);
    for (int attempt = 0; attempt < 3; attempt++)
        if (copy_once(from, dst) == 0)
            return 0;
    return -1;
}

/* ---- JSON views ----------------------------------------------------------------------- */

static void put_time(json_t *o, const char *k, int64_t ms)
{
    char ts[40];
    if (ms < 0) {
        json_object_set_new(o, k, json_null());
        return;
    }
    rfc3339(ms, ts, sizeof ts);
    json_object_set_new(o, k, json_string(ts));
}

/* The snapshot's id as E2B names it: namespace/alias:tag with a name, else id:tag. */
static void snapshot_ref(json_t *e, char *out, size_t len)
{
    const char *alias = sget(e, "alias");
    if (alias)
        snprintf(out, len, TEAM "/%s:default", alias);
    else
        snprintf(out, len, "%s:default", sget(e, "templateID"));
}

static json_t *template_json(const char *id, const char *alias, bool public, int64_t created, int64_t updated,
                             int64_t spawned, int64_t spawns, int64_t builds)
{
    json_t *o = json_pack("{s:s, s:s, s:i, s:i, s:i, s:b, s:[], s:[], s:n, s:I, s:I, s:s, s:s}", "templateID", id,
                          "buildID", "00000000-0000-4000-8000-000000000000", "cpuCount", 2, "memoryMB", 512,
                          "diskSizeMB", 10240, "public", public, "aliases", "names", "createdBy", "spawnCount",
                          (json_int_t)spawns, "buildCount", (json_int_t)builds, "envdVersion", ENVD_VERSION,
                          "buildStatus", "ready");
    if (alias) {
        char name[160];
        snprintf(name, sizeof name, "%s%s", public ? "" : TEAM "/", alias);
        json_array_append_new(json_object_get(o, "aliases"), json_string(alias));
        json_array_append_new(json_object_get(o, "names"), json_string(name));
    }
    put_time(o, "createdAt", created);
    put_time(o, "updatedAt", updated);
    put_time(o, "lastSpawnedAt", spawned);
    return o;
}

static enum MHD_Result list_templates(struct req *r)
{
    json_t *out = json_array();
    for (size_t i = 0; i < sizeof builtins / sizeof *builtins; i++)
        json_array_append_new(out, template_json(builtins[i], builtins[i], true, 1735689600000LL, 1735689600000LL,
                                                 -1, 0, 1));
    pthread_mutex_lock(&tpl_lock);
    size_t i;
    json_t *e;
    json_array_foreach(g_tpl, i, e) {
        json_array_append_new(out, template_json(sget(e, "templateID"), sget(e, "alias"), false,
                                                 iget(e, "createdAt"), iget(e, "updatedAt"), iget(e, "lastSpawnedAt"),
                                                 iget(e, "spawnCount"), iget(e, "buildCount")));
    }
    pthread_mutex_unlock(&tpl_lock);
    return reply_json(r, 200, out);
}

static enum MHD_Result delete_template(struct req *r, const char *ref)
{
    char bare[128];
    bare_ref(ref, bare, sizeof bare);
    if (builtin(bare))
        return reply_error(r, 403, "template '%s' is public and cannot be deleted", bare);
    pthread_mutex_lock(&tpl_lock);
    size_t idx;
    json_t *e = find_locked(bare, &idx);
    char root[2300] = "";
    if (e) {
        tpl_root(sget(e, "templateID"), root, sizeof root);
        json_array_remove(g_tpl, idx);
        save_locked();
    }
    pthread_mutex_unlock(&tpl_lock);
    if (!e)
        return reply_error(r, 404, "template '%s' not found", bare);
    cow_retire(root);
    return reply_empty(r, 204);
}

static int cmp_created_desc(const void *a, const void *b)
{
    json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
    int64_t cx = iget(x, "createdAt"), cy = iget(y, "createdAt");
    if (cx != cy)
        return cx > cy ? -1 : 1;
    return strcmp(sget(x, "templateID"), sget(y, "templateID"));
}

static enum MHD_Result list_snapshots(struct req *r)
{
    bool bad = false;
    char *sid = req_query(r, "sandboxID", &bad);
    char *name = req_query(r, "name", &bad);
    char *limq = req_query(r, "limit", &bad);
    char *tok = req_query(r, "nextToken", &bad);
    long limit = 100;
    char cur_id[64] = "";
    int64_t cur_ms = 0;
    const char *why = bad ? "malformed query string" : NULL;
    if (!why && limq) {
        char *end;
        limit = strtol(limq, &end, 10);
        if (*end || limit < 0)
            why = "limit must be a non-negative integer";
        if (limit == 0 || limit > 100)
            limit = 100;
    }
    if (!why && tok && *tok) {
        char *dec = b64url_decode(tok);
        char *sep = dec ? strstr(dec, "__") : NULL;
        if (!sep || strlen(sep + 2) >= sizeof cur_id) {
            why = "invalid nextToken";
        } else {
            cur_ms = strtoll(dec, NULL, 10);
            snprintf(cur_id, sizeof cur_id, "%s", sep + 2);
        }
        free(dec);
    }
    if (why) {
        free(sid), free(name), free(limq), free(tok);
        return reply_error(r, 400, "%s", why);
    }
    char want[128] = "";
    if (name)
        bare_ref(name, want, sizeof want);
    pthread_mutex_lock(&tpl_lock);
    size_t n = json_array_size(g_tpl), m = 0;
    json_t **sel = malloc((n ? n : 1) * sizeof *sel);
    size_t i;
    json_t *e;
    json_array_foreach(g_tpl, i, e) {
        const char *alias = sget(e, "alias");
        if (strcmp(sget(e, "kind"), "snapshot") != 0 || (sid && strcmp(sid, sget(e, "sourceSandboxID")) != 0) ||
            (name && strcmp(want, sget(e, "templateID")) != 0 && !(alias && strcmp(want, alias) == 0)))
            continue;
        sel[m++] = e;
    }
    qsort(sel, m, sizeof *sel, cmp_created_desc);
    size_t start = 0;
    if (cur_id[0]) {
        json_t *key = json_pack("{s:I, s:s}", "createdAt", (json_int_t)cur_ms, "templateID", cur_id);
        while (start < m && cmp_created_desc(&sel[start], &key) <= 0)
            start++;
        json_decref(key);
    }
    size_t end = start + (size_t)limit < m ? start + (size_t)limit : m;
    json_t *out = json_array();
    for (size_t k = start; k < end; k++) {
        char ref[200];
        snapshot_ref(sel[k], ref, sizeof ref);
        json_array_append_new(out, json_pack("{s:s, s:[s]}", "snapshotID", ref, "names", ref));
    }
    if (end < m) {
        char raw[128];
        snprintf(raw, sizeof raw, "%lld__%s", (long long)iget(sel[end - 1], "createdAt"),
                 sget(sel[end - 1], "templateID"));
        char *enc = b64url_encode(raw);
        req_add_header(r, "X-Next-Token", enc);
        free(enc);
    }
    pthread_mutex_unlock(&tpl_lock);
    free(sel);
    free(sid), free(name), free(limq), free(tok);
    return reply_json(r, 200, out);
}

enum MHD_Result templates_handle(struct req *r)
{
    const char *p = r->path, *m = r->method;
    if (strcmp(p, "/templates") == 0 && strcmp(m, "GET") == 0)
        return list_templates(r);
    if (strcmp(p, "/snapshots") == 0 && strcmp(m, "GET") == 0)
        return list_snapshots(r);
    /* The id may be namespaced ("team/alias:tag"): the SDK sends the slash escaped. */
    const char *slash = p[11] ? strchr(p + 11, '/') : NULL;
    if (strncmp(p, "/templates/", 11) == 0 && p[11] && (!slash || !strchr(slash + 1, '/')) &&
        strcmp(m, "DELETE") == 0)
        return delete_template(r, p + 11);
    return reply_error(r, 404, "no such endpoint: %s %s", m, p);
}

/* ---- snapshots ------------------------------------------------------------------------ */

/* Lower-case letters, digits, '-' and '_', 1..63 characters. */
static bool valid_name(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 63)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-' || *s == '_'))
            return false;
    return true;
}

static json_t *parse_object(struct req *r)
{
    if (!r->body.len)
        return json_object();
    json_t *o = json_loadb(r->body.data, r->body.len, 0, NULL);
    if (!json_is_object(o)) {
        json_decref(o);
        return NULL;
    }
    return o;
}

/* Looks the sandbox up for a copy: 0 with its root path and a snapshot of its fields, or an
 * HTTP status with the reply's message in why. */
static int source_of(const char *sandbox_id, const char *verb, char *root, size_t rootlen, struct sandbox *copy,
                     char *why, size_t whylen)
{
    pthread_mutex_lock(&g_lock);
    struct sandbox *sb = sandbox_find_locked(sandbox_id);
    int status = 0;
    if (!sb) {
        snprintf(why, whylen, "sandbox \"%s\" not found", sandbox_id);
        status = 404;
    } else if (sb->state != SB_RUNNING) {
        snprintf(why, whylen, "sandbox \"%s\" is paused: resume it (connect) before you %s it", sandbox_id, verb);
        status = 409;
    } else {
        sandbox_root_path(sandbox_id, root, rootlen);
        if (copy) {
            *copy = *sb;
            copy->metadata = json_deep_copy(sb->metadata);
            copy->env_vars = json_deep_copy(sb->env_vars);
            copy->network = sb->network ? json_deep_copy(sb->network) : NULL;
        }
    }
    pthread_mutex_unlock(&g_lock);
    return status;
}

enum MHD_Result snapshot_create(struct req *r, const char *sandbox_id)
{
    json_t *body = parse_object(r);
    json_t *jn = body ? json_object_get(body, "name") : NULL;
    if (!body || (jn && !json_is_string(jn) && !json_is_null(jn))) {
        json_decref(body);
        return reply_error(r, 400, "the body must be a JSON object with an optional string name");
    }
    char name[128] = "";
    bool named = json_is_string(jn);
    if (named)
        bare_ref(json_string_value(jn), name, sizeof name);
    json_decref(body);
    if (named && !valid_name(name))
        return reply_error(r, 400, "snapshot name must be 1 to 63 lower-case letters, digits, '-' or '_'");
    if (name[0] && builtin(name))
        return reply_error(r, 400, "'%s' is a public template's name", name);
    char src[2300], why[200];
    int status = source_of(sandbox_id, "snapshot", src, sizeof src, NULL, why, sizeof why);
    if (status)
        return reply_error(r, status, "%s", why);

    /* A name already taken gets a new build of the same template (E2B's rule). */
    char id[24];
    bool existing = false;
    pthread_mutex_lock(&tpl_lock);
    json_t *e = name[0] ? find_locked(name, NULL) : NULL;
    if (e && strcmp(sget(e, "kind"), "snapshot") != 0) {
        pthread_mutex_unlock(&tpl_lock);
        return reply_error(r, 409, "'%s' is the name of a template that is not a snapshot", name);
    }
    if (e) {
        snprintf(id, sizeof id, "%s", sget(e, "templateID"));
        existing = true;
    } else {
        random_alnum(id, 20);
    }
    pthread_mutex_unlock(&tpl_lock);

    char dir[2300], tmp[2400];
    snprintf(dir, sizeof dir, "%s/templates", g_cfg.state_dir);
    mkdir_p(dir, 0700);
    tpl_root(id, dir, sizeof dir);
    char tag[9];
    random_alnum(tag, 8);
    snprintf(tmp, sizeof tmp, "%s.new-%s", dir, tag);
    if (mkdir_p(tmp, 0755) != 0 || copy_tree(src, tmp) != 0) {
        remove_tree(tmp);
        return reply_error(r, 500, "cannot copy the sandbox's files into the snapshot");
    }
    if (existing) /* sandboxes made from the old build may still read it */
        cow_retire(dir);
    if (rename(tmp, dir) != 0) {
        remove_tree(tmp);
        return reply_error(r, 500, "cannot store the snapshot");
    }

    int64_t now = now_ms();
    pthread_mutex_lock(&tpl_lock);
    e = find_locked(id, NULL);
    if (e) {
        json_object_set_new(e, "updatedAt", json_integer(now));
        json_object_set_new(e, "buildCount", json_integer(iget(e, "buildCount") + 1));
        json_object_set_new(e, "sourceSandboxID", json_string(sandbox_id));
    } else {
        e = json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:i, s:i}", "templateID", id, "kind", "snapshot",
                      "sourceSandboxID", sandbox_id, "createdAt", (json_int_t)now, "updatedAt", (json_int_t)now,
                      "lastSpawnedAt", (json_int_t)-1, "spawnCount", 0, "buildCount", 1);
        json_object_set_new(e, "alias", name[0] ? json_string(name) : json_null());
        json_array_append_new(g_tpl, e);
    }
    save_locked();
    char ref[200];
    snapshot_ref(e, ref, sizeof ref);
    pthread_mutex_unlock(&tpl_lock);
    pthread_mutex_lock(&g_lock);
    struct sandbox *sb = sandbox_find_locked(sandbox_id);
    if (sb)
        sandbox_log_locked(sb, "info", "snapshot taken");
    pthread_mutex_unlock(&g_lock);
    return reply_json(r, 201, json_pack("{s:s, s:[s]}", "snapshotID", ref, "names", ref));
}

/* ---- forks ---------------------------------------------------------------------------- */

static json_t *fork_one(const struct sandbox *parent, const char *src, int64_t secs, const char *path)
{
    if (fault_take_fork(path))
        return json_pack("{s:{s:i, s:s}}", "error", "code", 500, "message",
                         "the fork failed to start (injected by e2b-local)");
    struct sandbox *sb = sandbox_new(parent->template_id);
    if (!sb)
        return json_pack("{s:{s:i, s:s}}", "error", "code", 500, "message", "cannot create the fork's files");
    char root[2300];
    sandbox_root_path(sb->id, root, sizeof root);
    if (cow_root_fork(parent->id, sb->id) != 0 && copy_tree(src, root) != 0) {
        remove_tree(root);
        json_decref(sb->metadata);
        json_decref(sb->env_vars);
        json_decref(sb->logs);
        free(sb);
        return json_pack("{s:{s:i, s:s}}", "error", "code", 500, "message", "cannot copy the parent's files");
    }
    sb->end_ms = sb->started_ms + secs * 1000;
    json_object_update(sb->metadata, parent->metadata);
    json_object_update(sb->env_vars, parent->env_vars);
    if (parent->network)
        sb->network = json_deep_copy(parent->network);
    sb->public_traffic = parent->public_traffic;
    sb->auto_pause = parent->auto_pause;
    sb->auto_resume = parent->auto_resume;
    sb->allow_internet = parent->allow_internet;
    pthread_mutex_lock(&g_lock);
    char msg[80];
    snprintf(msg, sizeof msg, "sandbox forked from %s", parent->id);
    sandbox_log_locked(sb, "info", msg);
    sandbox_add_locked(sb);
    json_t *out;
    if (sandbox_save_locked(sb) != 0) {
        lifecycle_kill_locked(sb, "cannot write its record");
        out = json_pack("{s:{s:i, s:s}}", "error", "code", 500, "message", "cannot write the fork's record");
    } else {
        out = json_pack("{s:o}", "sandbox", sandbox_json_created(sb));
    }
    pthread_mutex_unlock(&g_lock);
    return out;
}

enum MHD_Result sandbox_fork(struct req *r, const char *sandbox_id)
{
    json_t *body = parse_object(r);
    json_t *jc = body ? json_object_get(body, "count") : NULL;
    json_t *jt = body ? json_object_get(body, "timeout") : NULL;
    const char *why = !body ? "the body must be a JSON object" : NULL;
    if (!why && jc && !json_is_null(jc) &&
        (!json_is_integer(jc) || json_integer_value(jc) < 1 || json_integer_value(jc) > 100))
        why = "count must be an integer from 1 to 100";
    if (!why && jt && !json_is_null(jt) && (!json_is_integer(jt) || json_integer_value(jt) < 0))
        why = "timeout must be a non-negative integer (seconds)";
    int count = json_is_integer(jc) ? (int)json_integer_value(jc) : 1;
    int64_t secs = json_is_integer(jt) ? json_integer_value(jt) : FORK_DEFAULT_TIMEOUT_S;
    json_decref(body);
    if (why)
        return reply_error(r, 400, "%s", why);
    if (secs > MAX_TIMEOUT_S)
        secs = MAX_TIMEOUT_S;
    char src[2300], msg[200];
    struct sandbox parent;
    int status = source_of(sandbox_id, "fork", src, sizeof src, &parent, msg, sizeof msg);
    if (status)
        return reply_error(r, status, "%s", msg);
    json_t *out = json_array();
    for (int i = 0; i < count; i++)
        json_array_append_new(out, fork_one(&parent, src, secs, r->path));
    json_decref(parent.metadata);
    json_decref(parent.env_vars);
    json_decref(parent.network);
    return reply_json(r, 201, out);
}

/* ---- seeding (tests) ------------------------------------------------------------------ */

static int64_t time_field(json_t *body, const char *k, int64_t dflt, bool *bad)
{
    json_t *v = json_object_get(body, k);
    if (!v)
        return dflt;
    if (json_is_null(v))
        return -1;
    int64_t ms = json_is_string(v) ? parse_rfc3339(json_string_value(v)) : -1;
    if (ms < 0)
        *bad = true;
    return ms;
}

enum MHD_Result templates_admin(struct req *r)
{
    if (strcmp(r->method, "POST") != 0)
        return reply_error(r, 405, "use POST");
    json_t *body = parse_object(r);
    const char *id = body ? sget(body, "templateID") : NULL;
    const char *alias = body ? sget(body, "alias") : NULL;
    bool bad = false;
    int64_t now = now_ms();
    int64_t created = body ? time_field(body, "createdAt", now, &bad) : 0;
    int64_t updated = body ? time_field(body, "updatedAt", created, &bad) : 0;
    int64_t spawned = body ? time_field(body, "lastSpawnedAt", -1, &bad) : 0;
    if (!id || !valid_name(id) || strlen(id) >= 32 || (alias && !valid_name(alias)) || bad || created < 0 ||
        updated < 0) {
        json_decref(body);
        return reply_error(r, 400, "templateID (and alias) must be short lower-case names; times RFC 3339");
    }
    pthread_mutex_lock(&tpl_lock);
    if (builtin(id) || find_locked(id, NULL) || (alias && (builtin(alias) || find_locked(alias, NULL)))) {
        pthread_mutex_unlock(&tpl_lock);
        enum MHD_Result rc = reply_error(r, 409, "template '%s' exists", id);
        json_decref(body);
        return rc;
    }
    json_t *e = json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:i, s:i}", "templateID", id, "kind", "seeded",
                          "sourceSandboxID", "", "createdAt", (json_int_t)created, "updatedAt", (json_int_t)updated,
                          "lastSpawnedAt", (json_int_t)spawned, "spawnCount", spawned >= 0, "buildCount", 1);
    json_object_set_new(e, "alias", alias ? json_string(alias) : json_null());
    json_array_append_new(g_tpl, e);
    int rc = save_locked();
    pthread_mutex_unlock(&tpl_lock);
    json_decref(body);
    if (rc != 0)
        return reply_error(r, 500, "cannot write the template registry");
    return reply_empty(r, 201);
}
