#include "tui/actions.h"

#include <string.h>

static const struct action_info ACTIONS[ACT_COUNT] = {
    [ACT_NONE] = {"none", "", 0, 0, ""},
#define ACTION_INFO_(id, name, keys, views, flags, help) [ACT_##id] = {name, keys, views, flags, help},
    ACTION_LIST(ACTION_INFO_)
#undef ACTION_INFO_
};

const struct action_info *action_info(enum action_id id)
{
    if (id <= ACT_NONE || id >= ACT_COUNT)
        return NULL;
    return &ACTIONS[id];
}

enum action_id action_by_name(const char *name)
{
    for (int i = ACT_NONE + 1; i < ACT_COUNT; i++) {
        if (strcmp(ACTIONS[i].name, name) == 0)
            return (enum action_id)i;
    }
    return ACT_NONE;
}

bool action_mutates(enum action_id id)
{
    const struct action_info *a = action_info(id);
    return a && (a->flags & ACTION_MUTATES);
}
