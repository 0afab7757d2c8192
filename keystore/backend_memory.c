/* The memory backend: entries live in this process only (tests, throwaway sessions). */
#include "keystore/ks_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct mem_entry {
    char *box, *sid, *password;
    struct mem_entry *next;
} mem_entry;

typedef struct {
    pthread_mutex_t lock;
    mem_entry *head;
} mem_state;

static void entry_free(mem_entry *e)
{
    free(e->box);
    free(e->sid);
    keystore_password_free(e->password);
    free(e);
}

static mem_entry **find(mem_state *m, const char *box, const char *sid)
{
    for (mem_entry **p = &m->head; *p; p = &(*p)->next)
        if (strcmp((*p)->box, box) == 0 && strcmp((*p)->sid, sid) == 0)
            return p;
    return NULL;
}

static ks_code mem_put(keystore *ks, const char *box, const char *sid, const char *password,
                       unsigned timeout_ms, ks_error *err)
{
    mem_state *m = ks_state(ks);
    char *pw = ks_strdup(password);
    if (!pw)
        return ks_fail(err, KS_ERR_NOMEM, "out of memory storing a password");
    pthread_mutex_lock(&m->lock);
    mem_entry **p = find(m, box, sid);
    if (p) {
        keystore_password_free((*p)->password);
        (*p)->password = pw;
        pthread_mutex_unlock(&m->lock);
        return KS_OK;
    }
    mem_entry *e = calloc(1, sizeof *e);
    if (e) {
        e->box = ks_strdup(box);
        e->sid = ks_strdup(sid);
        e->password = pw;
    }
    if (!e || !e->box || !e->sid) {
        pthread_mutex_unlock(&m->lock);
        if (e)
            entry_free(e);
        else
            keystore_password_free(pw);
        return ks_fail(err, KS_ERR_NOMEM, "out of memory storing a password");
    }
    e->next = m->head;
    m->head = e;
    pthread_mutex_unlock(&m->lock);
    return KS_OK;
}

static ks_code mem_get(keystore *ks, const char *box, const char *sid, char **password,
                       unsigned timeout_ms, ks_error *err)
{
    mem_state *m = ks_state(ks);
    pthread_mutex_lock(&m->lock);
    mem_entry **p = find(m, box, sid);
    char *pw = p ? ks_strdup((*p)->password) : NULL;
    pthread_mutex_unlock(&m->lock);
    if (!p)
        return ks_fail(err, KS_ERR_NOT_FOUND, "no password is stored for box %s (sandbox %s)", box,
                       sid);
    if (!pw)
        return ks_fail(err, KS_ERR_NOMEM, "out of memory reading a password");
    *password = pw;
    return KS_OK;
}

static ks_code mem_del(keystore *ks, const char *box, const char *sid, unsigned timeout_ms,
                       ks_error *err)
{
    mem_state *m = ks_state(ks);
    int removed = 0;
    pthread_mutex_lock(&m->lock);
    for (mem_entry **p = &m->head; *p;) {
        if (strcmp((*p)->box, box) == 0 && (!sid || strcmp((*p)->sid, sid) == 0)) {
            mem_entry *e = *p;
            *p = e->next;
            entry_free(e);
            removed++;
        } else {
            p = &(*p)->next;
        }
    }
    pthread_mutex_unlock(&m->lock);
    if (!removed)
        return ks_fail(err, KS_ERR_NOT_FOUND, "no password is stored for box %s", box);
    return KS_OK;
}

static ks_code mem_list(keystore *ks, ks_entry **entries, size_t *count, unsigned timeout_ms,
                        ks_error *err)
{
    mem_state *m = ks_state(ks);
    size_t cap = 0;
    pthread_mutex_lock(&m->lock);
    for (mem_entry *e = m->head; e; e = e->next) {
        if (!ks_entries_push(entries, count, &cap, e->box, e->sid)) {
            pthread_mutex_unlock(&m->lock);
            ks_entries_free(*entries, *count);
            *entries = NULL;
            *count = 0;
            return ks_fail(err, KS_ERR_NOMEM, "out of memory listing passwords");
        }
    }
    pthread_mutex_unlock(&m->lock);
    return KS_OK;
}

static void mem_destroy(void *state)
{
    mem_state *m = state;
    if (!m)
        return;
    while (m->head) {
        mem_entry *e = m->head;
        m->head = e->next;
        entry_free(e);
    }
    pthread_mutex_destroy(&m->lock);
    free(m);
}

static const ks_ops mem_ops = {mem_put, mem_get, mem_del, mem_list, mem_destroy};

keystore *keystore_open_memory(ks_error *err)
{
    mem_state *m = calloc(1, sizeof *m);
    if (!m) {
        ks_fail(err, KS_ERR_NOMEM, "out of memory opening the keystore");
        return NULL;
    }
    pthread_mutex_init(&m->lock, NULL);
    return ks_new(KS_BACKEND_MEMORY, &mem_ops, m, "memory (kept until e2b-tui exits)", err);
}
