#include "tui/messages.h"

#include <stdlib.h>
#include <string.h>

void messages_add(struct messages *m, bool error, time_t when, const char *text)
{
    char *copy = strdup(text ? text : "");
    if (!copy)
        return;
    size_t slot;
    if (m->count == MESSAGES_MAX) {
        slot = m->first;
        free(m->ring[slot].text);
        m->first = (m->first + 1) % MESSAGES_MAX;
    } else {
        slot = (m->first + m->count++) % MESSAGES_MAX;
    }
    m->ring[slot] = (struct message){when, error, copy};
    m->added++;
}

const struct message *messages_get(const struct messages *m, size_t i)
{
    return i < m->count ? &m->ring[(m->first + i) % MESSAGES_MAX] : NULL;
}

void messages_free(struct messages *m)
{
    for (size_t i = 0; i < m->count; i++)
        free(m->ring[(m->first + i) % MESSAGES_MAX].text);
    memset(m, 0, sizeof *m);
}
