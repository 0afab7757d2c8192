/* The remover of deleted trees; see trash.h. */
#include "trash.h"
#include "sandbox.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static pthread_mutex_t trash_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t trash_wake = PTHREAD_COND_INITIALIZER;
static bool running, stopping;
static unsigned pending; /* trees moved in since the remover last looked */
static unsigned long seq;

static void trash_dir(char *out, size_t len)
{
    snprintf(out, len, "%s/trash", g_cfg.state_dir);
}

/* Removes every entry of the trash; returns false when told to stop half way. */
static bool empty_trash(void)
{
    char dir[2200];
    trash_dir(dir, sizeof dir);
    DIR *d = opendir(dir);
    if (!d)
        return true;
    for (struct dirent *de; (de = readdir(d));) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        pthread_mutex_lock(&trash_lock);
        bool stop = stopping;
        pthread_mutex_unlock(&trash_lock);
        if (stop) {
            closedir(d);
            return false;
        }
        char path[2500];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        remove_tree(path);
    }
    closedir(d);
    return true;
}

static void *remover_main(void *arg)
{
    (void)arg;
    for (;;) {
        if (!empty_trash())
            return NULL;
        pthread_mutex_lock(&trash_lock);
        while (!pending && !stopping)
            pthread_cond_wait(&trash_wake, &trash_lock);
        pending = 0;
        bool stop = stopping;
        pthread_mutex_unlock(&trash_lock);
        if (stop)
            return NULL;
    }
}

int trash_start(void)
{
    char dir[2200];
    trash_dir(dir, sizeof dir);
    if (mkdir_p(dir, 0700) != 0)
        return -1;
    pthread_attr_t at;
    pthread_t remover;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&remover, &at, remover_main, NULL);
    pthread_attr_destroy(&at);
    if (rc != 0)
        return -1;
    running = true;
    return 0;
}

void trash_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return;
    char dir[2200], to[2400];
    trash_dir(dir, sizeof dir);
    pthread_mutex_lock(&trash_lock);
    snprintf(to, sizeof to, "%s/%lld-%lu", dir, (long long)now_ms(), ++seq);
    bool moved = running && rename(path, to) == 0;
    if (moved) {
        pending++;
        pthread_cond_signal(&trash_wake);
    }
    pthread_mutex_unlock(&trash_lock);
    if (!moved)
        remove_tree(path);
}

void trash_stop(void)
{
    pthread_mutex_lock(&trash_lock);
    stopping = true;
    running = false; /* later trees are removed at once */
    pthread_cond_signal(&trash_wake);
    pthread_mutex_unlock(&trash_lock);
}
