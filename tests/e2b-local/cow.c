/* Copy-on-write roots (overlayfs); see cow.h. */
#include "cow.h"
#include "sandbox.h"
#include "templates.h"
#include "trash.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

/* One sandbox whose root is an overlay: its id and its lower layer, relative to STATE. */
struct user {
    char id[24];
    char lower[256];
};

static pthread_mutex_t cow_lock = PTHREAD_MUTEX_INITIALIZER;
static struct user *users;
static size_t n_users, cap_users;
static bool cannot_mount; /* a mount was refused (no privilege): stop trying */

static bool enabled(void)
{
    const char *env = getenv("E2B_LOCAL_COW");
    return !(env && strcmp(env, "0") == 0) && !cannot_mount && geteuid() == 0;
}

static void layer_path(const char *id, const char *leaf, char *out, size_t len)
{
    snprintf(out, len, "%s/cow/%s%s%s", g_cfg.state_dir, id, leaf[0] ? "/" : "", leaf);
}

static struct user *find_locked(const char *id)
{
    for (size_t i = 0; i < n_users; i++)
        if (strcmp(users[i].id, id) == 0)
            return &users[i];
    return NULL;
}

static int add_locked(const char *id, const char *lower)
{
    if (n_users == cap_users) {
        size_t ncap = cap_users ? cap_users * 2 : 16;
        struct user *nu = realloc(users, ncap * sizeof *nu);
        if (!nu)
            return -1;
        users = nu;
        cap_users = ncap;
    }
    snprintf(users[n_users].id, sizeof users[n_users].id, "%s", id);
    snprintf(users[n_users].lower, sizeof users[n_users].lower, "%s", lower);
    n_users++;
    return 0;
}

static bool lower_used_locked(const char *lower)
{
    for (size_t i = 0; i < n_users; i++)
        if (strcmp(users[i].lower, lower) == 0)
            return true;
    return false;
}

/* A directory that is a mount point: its device differs from its parent's. */
static bool mounted(const char *dir)
{
    char parent[2400];
    snprintf(parent, sizeof parent, "%s/..", dir);
    struct stat a, b;
    return stat(dir, &a) == 0 && stat(parent, &b) == 0 && a.st_dev != b.st_dev;
}

/* overlayfs takes its layers as one option string: ',' ':' and '\\' would split it. */
static bool plain_path(const char *p)
{
    return !strpbrk(p, ",:\\");
}

static int mount_root(const char *id, const char *lower_rel)
{
    char root[2200], lower[2400], upper[2400], work[2400], opts[8000];
    sandbox_root_path(id, root, sizeof root);
    snprintf(lower, sizeof lower, "%s/%s", g_cfg.state_dir, lower_rel);
    layer_path(id, "upper", upper, sizeof upper);
    layer_path(id, "work", work, sizeof work);
    if (!plain_path(lower) || !plain_path(upper) || !plain_path(work))
        return -1;
    /* redirect_dir lets the box rename a directory of the snapshot (else EXDEV); metacopy:
     * a chown or chmod (up's chown -R of the project) copies up the inode, not the data;
     * no index: a fork's upper is a copy, and index would tie it to the parent's. The box
     * cannot forge the layers' trusted.overlay.* attributes: overlayfs refuses them. */
    int n = snprintf(opts, sizeof opts, "lowerdir=%s,upperdir=%s,workdir=%s,redirect_dir=on,index=off,metacopy=on",
                     lower, upper, work);
    if (n < 0 || (size_t)n >= 4000) /* the kernel takes one page of options */
        return -1;
    if (mount("overlay", root, "overlay", MS_NOSUID | MS_NODEV, opts) != 0) {
        if (errno == EPERM)
            cannot_mount = true;
        log_line("warning: cannot mount the copy-on-write root of %s: %s", id, strerror(errno));
        return -1;
    }
    return 0;
}

static void write_lower_file(const char *id, const char *lower_rel)
{
    char path[2400];
    layer_path(id, "lower", path, sizeof path);
    write_file_atomic(path, lower_rel, strlen(lower_rel), 0600);
}

/* Lays out STATE/cow/<id>/{upper,work} (upper a copy of from_upper when given) and mounts
 * root over lower_rel; undoes its own steps on failure. Called with cow_lock held. */
static int make_overlay_locked(const char *id, const char *lower_rel, const char *from_upper)
{
    char root[2200], dir[2400], upper[2400], work[2400];
    sandbox_root_path(id, root, sizeof root);
    layer_path(id, "", dir, sizeof dir);
    layer_path(id, "upper", upper, sizeof upper);
    layer_path(id, "work", work, sizeof work);
    if (mkdir_p(upper, 0755) != 0 || mkdir_p(work, 0700) != 0 ||
        (from_upper && copy_tree(from_upper, upper) != 0)) {
        remove_tree(dir);
        return -1;
    }
    /* The skeleton sandbox_new made is in the snapshot already: the mount point is empty. */
    remove_tree(root);
    if (mkdir(root, 0755) != 0 || mount_root(id, lower_rel) != 0 || add_locked(id, lower_rel) != 0) {
        if (mounted(root))
            umount2(root, MNT_DETACH);
        remove_tree(dir);
        return -1;
    }
    write_lower_file(id, lower_rel);
    return 0;
}

int cow_root_from(const char *id, const char *lower)
{
    size_t sl = strlen(g_cfg.state_dir);
    if (strncmp(lower, g_cfg.state_dir, sl) != 0 || lower[sl] != '/' || strlen(lower + sl + 1) >= 256)
        return -1;
    pthread_mutex_lock(&cow_lock);
    struct stat st;
    int rc = -1;
    if (enabled() && stat(lower, &st) == 0 && S_ISDIR(st.st_mode))
        rc = make_overlay_locked(id, lower + sl + 1, NULL);
    pthread_mutex_unlock(&cow_lock);
    if (rc != 0) { /* the caller copies the snapshot (skeleton included) into the root */
        char root[2200];
        sandbox_root_path(id, root, sizeof root);
        mkdir(root, 0755);
    }
    return rc;
}

int cow_root_fork(const char *parent, const char *child)
{
    pthread_mutex_lock(&cow_lock);
    struct user *p = find_locked(parent);
    int rc = 1;
    if (p && enabled()) {
        char lower[256], from[2400];
        snprintf(lower, sizeof lower, "%s", p->lower); /* add_locked may move the table */
        layer_path(parent, "upper", from, sizeof from);
        rc = make_overlay_locked(child, lower, from) == 0 ? 0 : -1;
    }
    pthread_mutex_unlock(&cow_lock);
    if (rc < 0) {
        char root[2200];
        sandbox_root_path(child, root, sizeof root);
        mkdir(root, 0755);
    }
    return rc;
}

bool cow_is_overlay(const char *id)
{
    pthread_mutex_lock(&cow_lock);
    bool yes = find_locked(id) != NULL;
    pthread_mutex_unlock(&cow_lock);
    return yes;
}

static bool retired(const char *lower_rel)
{
    return strncmp(lower_rel, "retired/", 8) == 0;
}

void cow_drop(const char *id)
{
    char root[2200], dir[2400], gone[2400] = "";
    sandbox_root_path(id, root, sizeof root);
    layer_path(id, "", dir, sizeof dir);
    pthread_mutex_lock(&cow_lock);
    struct user *u = find_locked(id);
    if (u) {
        char lower[256];
        snprintf(lower, sizeof lower, "%s", u->lower);
        *u = users[--n_users];
        if (retired(lower) && !lower_used_locked(lower))
            snprintf(gone, sizeof gone, "%s/%s", g_cfg.state_dir, lower);
    }
    pthread_mutex_unlock(&cow_lock);
    if (!u)
        return;
    if (mounted(root) && umount2(root, MNT_DETACH) != 0)
        log_line("warning: cannot unmount the root of %s: %s", id, strerror(errno));
    trash_tree(dir);
    if (gone[0])
        trash_tree(gone);
}

void cow_retire(const char *dir)
{
    size_t sl = strlen(g_cfg.state_dir);
    if (strncmp(dir, g_cfg.state_dir, sl) != 0 || dir[sl] != '/') {
        remove_tree(dir);
        return;
    }
    const char *rel = dir + sl + 1;
    pthread_mutex_lock(&cow_lock);
    bool used = lower_used_locked(rel);
    if (used) {
        /* The mounts hold the directory itself: a rename leaves them reading it. */
        char tag[21], rel2[64], to[2400];
        random_alnum(tag, 20);
        snprintf(rel2, sizeof rel2, "retired/%s", tag);
        snprintf(to, sizeof to, "%s/retired", g_cfg.state_dir);
        mkdir_p(to, 0700);
        snprintf(to, sizeof to, "%s/%s", g_cfg.state_dir, rel2);
        if (rename(dir, to) == 0) {
            char old[256];
            snprintf(old, sizeof old, "%s", rel);
            for (size_t i = 0; i < n_users; i++)
                if (strcmp(users[i].lower, old) == 0) {
                    snprintf(users[i].lower, sizeof users[i].lower, "%s", rel2);
                    write_lower_file(users[i].id, rel2);
                }
        } else {
            log_line("warning: cannot retire %s: %s", dir, strerror(errno));
        }
    }
    pthread_mutex_unlock(&cow_lock);
    if (!used)
        remove_tree(dir);
}

void cow_load_all(void)
{
    char dir[2400];
    snprintf(dir, sizeof dir, "%s/cow", g_cfg.state_dir);
    DIR *d = opendir(dir);
    pthread_mutex_lock(&cow_lock);
    for (struct dirent *de; d && (de = readdir(d));) {
        if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof users->id)
            continue;
        char path[2400], record[2400], root[2200];
        layer_path(de->d_name, "lower", path, sizeof path);
        sandbox_record_path(de->d_name, record, sizeof record);
        sandbox_root_path(de->d_name, root, sizeof root);
        char *lower = read_file(path, NULL);
        if (!lower || access(record, F_OK) != 0 || strlen(lower) >= 256 || strstr(lower, "..")) {
            layer_path(de->d_name, "", path, sizeof path); /* the sandbox is gone */
            if (mounted(root))
                umount2(root, MNT_DETACH);
            remove_tree(path);
        } else if (add_locked(de->d_name, lower) == 0 && !mounted(root) && mount_root(de->d_name, lower) != 0) {
            log_line("warning: sandbox %s has no files until its root can be mounted", de->d_name);
        }
        free(lower);
    }
    if (d)
        closedir(d);
    /* Retired layers whose last user went while the server was down. */
    snprintf(dir, sizeof dir, "%s/retired", g_cfg.state_dir);
    d = opendir(dir);
    for (struct dirent *de; d && (de = readdir(d));) {
        char rel[300], path[2700];
        snprintf(rel, sizeof rel, "retired/%s", de->d_name);
        if (de->d_name[0] != '.' && !lower_used_locked(rel)) {
            snprintf(path, sizeof path, "%s/%s", g_cfg.state_dir, rel);
            remove_tree(path);
        }
    }
    if (d)
        closedir(d);
    pthread_mutex_unlock(&cow_lock);
}

void cow_unmount_all(void)
{
    pthread_mutex_lock(&cow_lock);
    for (size_t i = 0; i < n_users; i++) {
        char root[2200];
        sandbox_root_path(users[i].id, root, sizeof root);
        if (mounted(root) && umount2(root, MNT_DETACH) != 0)
            log_line("warning: cannot unmount the root of %s: %s", users[i].id, strerror(errno));
    }
    free(users);
    users = NULL;
    n_users = cap_users = 0;
    pthread_mutex_unlock(&cow_lock);
}
