/* Sandbox registry and records; see sandbox.h. */
#include "sandbox.h"
#include "cow.h"
#include "process.h"
#include "trash.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct config g_cfg;
pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
volatile int g_stopping;

static struct sandbox **all;
static size_t n_all, cap_all;
static struct sandbox *graveyard;

void sandbox_record_path(const char *id, char *out, size_t len)
{
    snprintf(out, len, "%s/sandboxes/%s.json", g_cfg.state_dir, id);
}

void sandbox_root_path(const char *id, char *out, size_t len)
{
    snprintf(out, len, "%s/roots/%s", g_cfg.state_dir, id);
}

struct sandbox *sandbox_find_locked(const char *id)
{
    for (size_t i = 0; i < n_all; i++)
        if (strcmp(all[i]->id, id) == 0)
            return all[i];
    return NULL;
}

void sandbox_add_locked(struct sandbox *sb)
{
    if (n_all == cap_all) {
        size_t ncap = cap_all ? cap_all * 2 : 64;
        struct sandbox **na = realloc(all, ncap * sizeof *na);
        if (!na)
            abort();
        all = na;
        cap_all = ncap;
    }
    all[n_all++] = sb;
}

void sandbox_bury_locked(struct sandbox *sb)
{
    for (size_t i = 0; i < n_all; i++) {
        if (all[i] == sb) {
            memmove(&all[i], &all[i + 1], (n_all - i - 1) * sizeof *all);
            n_all--;
            break;
        }
    }
    sb->state = SB_DEAD;
    sb->next_dead = graveyard;
    graveyard = sb;
}

struct sandbox **sandbox_all_locked(size_t *n)
{
    *n = n_all;
    return all;
}

static void sandbox_free(struct sandbox *sb)
{
    json_decref(sb->metadata);
    json_decref(sb->env_vars);
    json_decref(sb->network);
    json_decref(sb->logs);
    free(sb);
}

void sandbox_free_all(void)
{
    for (size_t i = 0; i < n_all; i++)
        sandbox_free(all[i]);
    free(all);
    all = NULL;
    n_all = cap_all = 0;
    while (graveyard) {
        struct sandbox *next = graveyard->next_dead;
        sandbox_free(graveyard);
        graveyard = next;
    }
}

static void write_text(const char *dir, const char *name, const char *text)
{
    char path[2400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    ssize_t w = write(fd, text, strlen(text));
    (void)w;
    close(fd);
}

/* The root file system of a sandbox: /usr comes from the host at run time (bwrap binds it),
 * the usual Debian symlinks point into it, everything else is the sandbox's own. */
static int make_root(const char *root)
{
    char p[2400];
    if (mkdir_p(root, 0755) != 0)
        return -1;
    static const char *const dirs[] = {"usr", "proc", "dev", "etc", "root", "home", "home/user",
                                       "tmp", "var", "var/tmp", "run", "opt", "mnt"};
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
        snprintf(p, sizeof p, "%s/%s", root, dirs[i]);
        mkdir(p, 0755);
    }
    snprintf(p, sizeof p, "%s/tmp", root);
    chmod(p, 01777);
    snprintf(p, sizeof p, "%s/var/tmp", root);
    chmod(p, 01777);
    snprintf(p, sizeof p, "%s/root", root);
    chmod(p, 0700);
    snprintf(p, sizeof p, "%s/home/user", root);
    if (chown(p, 1000, 1000) != 0 && geteuid() == 0)
        return -1;
    static const char *const links[][2] = {
        {"bin", "usr/bin"}, {"sbin", "usr/sbin"}, {"lib", "usr/lib"}, {"lib64", "usr/lib64"}};
    for (size_t i = 0; i < sizeof links / sizeof *links; i++) {
        struct stat st;
        snprintf(p, sizeof p, "/%s", links[i][1]);
        if (stat(p, &st) != 0)
            continue;
        snprintf(p, sizeof p, "%s/%s", root, links[i][0]);
        if (symlink(links[i][1], p) != 0 && errno != EEXIST)
            return -1;
    }
    snprintf(p, sizeof p, "%s/etc", root);
    write_text(p, "passwd", "root:x:0:0:root:/root:/bin/bash\n"
                            "user:x:1000:1000:user:/home/user:/bin/bash\n"
                            "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n");
    write_text(p, "group", "root:x:0:\nuser:x:1000:\nnogroup:x:65534:\n");
    write_text(p, "hosts", "127.0.0.1 localhost\n::1 localhost\n");
    write_text(p, "hostname", "e2b.local\n");
    return 0;
}

struct sandbox *sandbox_new(const char *template_id)
{
    struct sandbox *sb = calloc(1, sizeof *sb);
    if (!sb)
        return NULL;
    sb->id[0] = 'i';
    random_alnum(sb->id + 1, 19);
    snprintf(sb->template_id, sizeof sb->template_id, "%s", template_id);
    random_alnum(sb->envd_token, 32);
    random_alnum(sb->traffic_token, 32);
    sb->metadata = json_object();
    sb->env_vars = json_object();
    sb->logs = json_array();
    sb->allow_internet = -1;
    sb->public_traffic = true;
    sb->state = SB_RUNNING;
    sb->started_ms = now_ms();
    sb->cpu_count = 2;
    sb->memory_mb = 512;
    sb->disk_mb = 10240;
    char root[2200];
    sandbox_root_path(sb->id, root, sizeof root);
    if (make_root(root) != 0) {
        remove_tree(root);
        json_decref(sb->metadata);
        json_decref(sb->env_vars);
        json_decref(sb->logs);
        free(sb);
        return NULL;
    }
    return sb;
}

static json_t *record_json(const struct sandbox *sb)
{
    json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:O, s:O, s:b, s:b, s:b, s:s, s:I, s:I, s:i}",
                          "sandboxID", sb->id, "templateID", sb->template_id,
                          "envdAccessToken", sb->envd_token, "trafficAccessToken", sb->traffic_token,
                          "metadata", sb->metadata, "envVars", sb->env_vars,
                          "autoPause", sb->auto_pause, "autoResume", sb->auto_resume,
                          "publicTraffic", sb->public_traffic,
                          "state", sb->state == SB_RUNNING ? "running" : "paused",
                          "startedMs", (json_int_t)sb->started_ms, "endMs", (json_int_t)sb->end_ms,
                          "allowInternet", sb->allow_internet);
    if (sb->network)
        json_object_set(o, "network", sb->network);
    json_object_set(o, "logs", sb->logs);
    return o;
}

int sandbox_save_locked(struct sandbox *sb)
{
    if (sb->state == SB_DEAD)
        return 0;
    json_t *o = record_json(sb);
    char *text = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    if (!text)
        return -1;
    char path[2200];
    sandbox_record_path(sb->id, path, sizeof path);
    int rc = write_file_atomic(path, text, strlen(text), 0600);
    if (rc != 0)
        log_line("error: cannot write %s: %s", path, strerror(errno));
    free(text);
    return rc;
}

static struct sandbox *sandbox_from_record(json_t *o)
{
    const char *id = json_string_value(json_object_get(o, "sandboxID"));
    const char *tpl = json_string_value(json_object_get(o, "templateID"));
    const char *tok = json_string_value(json_object_get(o, "envdAccessToken"));
    const char *ttok = json_string_value(json_object_get(o, "trafficAccessToken"));
    if (!id || !tpl || !tok || !ttok || strlen(id) >= sizeof((struct sandbox *)0)->id)
        return NULL;
    struct sandbox *sb = calloc(1, sizeof *sb);
    if (!sb)
        return NULL;
    snprintf(sb->id, sizeof sb->id, "%s", id);
    snprintf(sb->template_id, sizeof sb->template_id, "%s", tpl);
    snprintf(sb->envd_token, sizeof sb->envd_token, "%s", tok);
    snprintf(sb->traffic_token, sizeof sb->traffic_token, "%s", ttok);
    json_t *md = json_object_get(o, "metadata");
    sb->metadata = json_is_object(md) ? json_incref(md) : json_object();
    json_t *ev = json_object_get(o, "envVars");
    sb->env_vars = json_is_object(ev) ? json_incref(ev) : json_object();
    json_t *net = json_object_get(o, "network");
    sb->network = json_is_object(net) ? json_incref(net) : NULL;
    json_t *logs = json_object_get(o, "logs");
    sb->logs = json_is_array(logs) ? json_incref(logs) : json_array();
    sb->auto_pause = json_is_true(json_object_get(o, "autoPause"));
    sb->auto_resume = json_is_true(json_object_get(o, "autoResume"));
    sb->public_traffic = !json_is_false(json_object_get(o, "publicTraffic"));
    sb->allow_internet = (int)json_integer_value(json_object_get(o, "allowInternet"));
    sb->started_ms = json_integer_value(json_object_get(o, "startedMs"));
    sb->end_ms = json_integer_value(json_object_get(o, "endMs"));
    sb->state = SB_PAUSED; /* running ones come back paused and resume cold */
    sb->cpu_count = 2;
    sb->memory_mb = 512;
    sb->disk_mb = 10240;
    return sb;
}

int sandbox_load_all(void)
{
    char dir[2200];
    snprintf(dir, sizeof dir, "%s/sandboxes", g_cfg.state_dir);
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    struct dirent *de;
    int n = 0;
    pthread_mutex_lock(&g_lock);
    while ((de = readdir(d))) {
        size_t len = strlen(de->d_name);
        char path[2500];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        if (strstr(de->d_name, ".tmp.")) { /* an interrupted atomic write */
            unlink(path);
            continue;
        }
        if (len < 6 || strcmp(de->d_name + len - 5, ".json") != 0)
            continue;
        json_error_t err;
        json_t *o = json_load_file(path, 0, &err);
        struct sandbox *sb = o ? sandbox_from_record(o) : NULL;
        const char *was = json_string_value(json_object_get(o, "state"));
        if (sb) {
            sandbox_add_locked(sb);
            if (was && strcmp(was, "running") == 0) {
                sandbox_log_locked(sb, "info", "server restarted: sandbox paused, resumes cold");
                sandbox_save_locked(sb);
            }
            n++;
        } else {
            log_line("warning: ignoring unreadable record %s", path);
        }
        json_decref(o);
    }
    pthread_mutex_unlock(&g_lock);
    closedir(d);
    return n;
}

void sandbox_delete_files(const char *id)
{
    char path[2200];
    sandbox_record_path(id, path, sizeof path);
    unlink(path);
    cow_drop(id);
    sandbox_root_path(id, path, sizeof path);
    trash_tree(path);
}

void sandbox_log_locked(struct sandbox *sb, const char *level, const char *msg)
{
    char ts[40];
    rfc3339(now_ms(), ts, sizeof ts);
    json_array_append_new(sb->logs, json_pack("{s:s, s:s, s:s, s:{s:s}}", "timestamp", ts, "level", level,
                                              "message", msg, "fields", "logger", "e2b-local"));
    while (json_array_size(sb->logs) > 500)
        json_array_remove(sb->logs, 0);
}

static const char *alias_of(const char *template_id)
{
    return template_id;
}

json_t *sandbox_json_created(const struct sandbox *sb)
{
    json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "sandboxID", sb->id, "templateID",
                          sb->template_id, "alias", alias_of(sb->template_id), "clientID", "e2b-local",
                          "envdVersion", ENVD_VERSION, "envdAccessToken", sb->envd_token);
    if (sb->public_traffic)
        json_object_set_new(o, "trafficAccessToken", json_null());
    else
        json_object_set_new(o, "trafficAccessToken", json_string(sb->traffic_token));
    json_object_set_new(o, "domain", g_cfg.domain[0] ? json_string(g_cfg.domain) : json_null());
    return o;
}

json_t *sandbox_json_listed(const struct sandbox *sb)
{
    char started[40], end[40];
    rfc3339(sb->started_ms, started, sizeof started);
    rfc3339(sb->end_ms, end, sizeof end);
    json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:i, s:i, s:i, s:s, s:s, s:s, s:s, s:O}", "sandboxID",
                          sb->id, "templateID", sb->template_id, "alias", alias_of(sb->template_id),
                          "clientID", "e2b-local", "cpuCount", sb->cpu_count, "memoryMB", sb->memory_mb,
                          "diskSizeMB", sb->disk_mb, "envdVersion", ENVD_VERSION, "startedAt", started,
                          "endAt", end, "state", sb->state == SB_RUNNING ? "running" : "paused",
                          "metadata", sb->metadata);
    return o;
}

json_t *sandbox_json_detail(const struct sandbox *sb)
{
    json_t *o = sandbox_json_listed(sb);
    json_object_set_new(o, "domain", g_cfg.domain[0] ? json_string(g_cfg.domain) : json_null());
    json_object_set_new(o, "envdAccessToken", json_string(sb->envd_token));
    json_object_set_new(o, "allowInternetAccess",
                        sb->allow_internet < 0 ? json_null() : json_boolean(sb->allow_internet));
    json_object_set_new(o, "lifecycle", json_pack("{s:s, s:b}", "onTimeout", sb->auto_pause ? "pause" : "kill",
                                                  "autoResume", sb->auto_resume));
    if (sb->network)
        json_object_set(o, "network", sb->network);
    return o;
}
