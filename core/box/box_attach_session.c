/* The attach command opened on the box's active session (core/box/box.h): OpenCode 1.x's
 * `opencode attach` takes `--session ID`; other clients are left as they are. */
#include "core/box/box.h"

#include <stdlib.h>
#include <string.h>

/* A session id as the servers make them ("ses_" and letters/digits): anything else (from the
 * box, so untrusted) is not put on a command line. */
static bool session_id_ok(const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (n < 5 || n > 128 || strncmp(s, "ses_", 4) != 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
              (s[i] >= '0' && s[i] <= '9') || s[i] == '_' || s[i] == '-'))
            return false;
    return true;
}

bool e2b_box_attach_cmd_session(e2b_attach_cmd *c, const char *session_id)
{
    if (!c->argv || !c->argv[0] || !c->argv[1] || !session_id_ok(session_id))
        return false;
    const char *base = strrchr(c->argv[0], '/');
    base = base ? base + 1 : c->argv[0];
    if (strcmp(base, "opencode") != 0 || strcmp(c->argv[1], "attach") != 0)
        return false;
    size_t n = 0;
    for (; c->argv[n]; n++)
        if (!strcmp(c->argv[n], "--session") || !strcmp(c->argv[n], "-s") ||
            !strncmp(c->argv[n], "--session=", 10) || !strcmp(c->argv[n], "--continue") ||
            !strcmp(c->argv[n], "-c"))
            return false; /* the command chose itself */
    char **g = realloc(c->argv, (n + 3) * sizeof *g);
    if (!g)
        return false;
    c->argv = g;
    g[n] = strdup("--session");
    g[n + 1] = strdup(session_id);
    g[n + 2] = NULL;
    if (!g[n] || !g[n + 1]) {
        free(g[n]);
        free(g[n + 1]);
        g[n] = NULL;
        return false;
    }
    return true;
}
