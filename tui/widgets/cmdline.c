#include "tui/widgets/cmdline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const struct cmd_info CMDS[CMD_COUNT] = {
    [CMD_BOXES] = {"boxes", "b", false},
    [CMD_WORKSPACES] = {"workspaces", "ws", false},
    [CMD_ALL] = {"all", "a", false},
    [CMD_SECRETS] = {"secrets", "s", false},
    [CMD_OPS] = {"ops", "operations", false},
    [CMD_MESSAGES] = {"messages", "mes", false},
    [CMD_WAITING] = {"waiting", "w", false},
    [CMD_HELP] = {"help", "h", false},
    [CMD_QUIT] = {"quit", "q q!", false},
    [CMD_NEEDS] = {"needs", "", false},
    [CMD_UP] = {"up", "", false},
    [CMD_ATTACH] = {"attach", "", true},
    [CMD_PULL] = {"pull", "", true},
    [CMD_STOP] = {"stop", "", true},
    [CMD_RESUME] = {"resume", "", true},
    [CMD_KILL] = {"kill", "", true},
    [CMD_EXTEND] = {"extend", "", true},
    [CMD_LOGS] = {"logs", "", true},
    [CMD_DETAIL] = {"detail", "", true},
    [CMD_NETWORK] = {"network", "net", false}, /* its own options (tui/network_cmd.h) */
    [CMD_COMPARE] = {"compare", "", false}, /* a group's name (tui/views/view_compare.h) */
    [CMD_RULES] = {"rules", "", true},     /* a box's name; none: every box (view_rules.h) */
    [CMD_HISTORY] = {"history", "", true}, /* a box's name; none: every box (view_history.h) */
    [CMD_REMAKE] = {"remake", "", true},   /* a gone box's name (remake_question.h) */
};

const struct cmd_info *cmdline_info(enum cmd_id id)
{
    return (unsigned)id < CMD_COUNT ? &CMDS[id] : NULL;
}

static bool is_alias(const struct cmd_info *c, const char *word)
{
    const char *p = c->aliases;
    size_t n = strlen(word);
    while (*p) {
        size_t k = strcspn(p, " ");
        if (k == n && strncasecmp(p, word, n) == 0)
            return true;
        p += k;
        while (*p == ' ')
            p++;
    }
    return false;
}

int cmdline_match(const char *word, char *why, size_t whysz)
{
    size_t n = strlen(word);
    if (!n)
        return -1;
    for (int i = 0; i < CMD_COUNT; i++) {
        if (strcasecmp(CMDS[i].name, word) == 0 || is_alias(&CMDS[i], word))
            return i;
    }
    int found = -1, count = 0;
    size_t pos = 0;
    if (why && whysz)
        why[0] = '\0';
    for (int i = 0; i < CMD_COUNT; i++) {
        if (strncasecmp(CMDS[i].name, word, n) == 0) {
            found = i;
            count++;
            if (why && pos < whysz)
                pos += (size_t)snprintf(why + pos, whysz - pos, "%s%s", count > 1 ? ", " : "",
                                        CMDS[i].name);
        }
    }
    return count == 1 ? found : count > 1 ? -2 : -1;
}

void cmdline_list(char *buf, size_t bufsz)
{
    size_t pos = 0;
    buf[0] = '\0';
    for (int i = 0; i < CMD_COUNT && pos < bufsz; i++) {
        char al[32] = "";
        if (CMDS[i].aliases[0])
            snprintf(al, sizeof al, " (%s)", CMDS[i].aliases);
        pos += (size_t)snprintf(buf + pos, bufsz - pos, "%s:%s%s%s", i ? " " : "", CMDS[i].name,
                                CMDS[i].takes_name ? " [NAME]" : "", al);
    }
}

/* The longest common prefix (case-insensitive) of the candidates that start with word. */
static bool complete_word(char *out, size_t outsz, const char *word, const char *const *cands,
                          size_t n, char *hint, size_t hintsz)
{
    size_t wl = strlen(word), best = 0, matches = 0, hpos = 0;
    const char *first = NULL;
    if (hint && hintsz)
        hint[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        if (!cands[i] || strncasecmp(cands[i], word, wl) != 0)
            continue;
        if (!first) {
            first = cands[i];
            best = strlen(first);
        } else {
            size_t k = 0;
            while (k < best && cands[i][k] &&
                   (cands[i][k] | 0x20) == (first[k] | 0x20))
                k++;
            best = k;
        }
        matches++;
        if (hint && hpos < hintsz)
            hpos += (size_t)snprintf(hint + hpos, hintsz - hpos, "%s%s", matches > 1 ? " " : "",
                                     cands[i]);
    }
    if (matches < 2 && hint && hintsz)
        hint[0] = '\0';
    if (!first || best < wl || best >= outsz)
        return false;
    if (best == wl && matches > 1)
        return false; /* nothing to add: the hint lists them */
    memcpy(out, first, best);
    out[best] = '\0';
    if (matches == 1 && best + 1 < outsz) {
        out[best] = ' ';
        out[best + 1] = '\0';
    }
    return true;
}

bool cmdline_complete(char *buf, size_t bufsz, const char *const *names, size_t n, char *hint,
                      size_t hintsz)
{
    char *sp = strchr(buf, ' ');
    char done[512];
    if (!sp) {
        const char *cands[CMD_COUNT];
        for (int i = 0; i < CMD_COUNT; i++)
            cands[i] = CMDS[i].name;
        if (!complete_word(done, sizeof done, buf, cands, CMD_COUNT, hint, hintsz))
            return false;
        if (strlen(done) >= bufsz)
            return false;
        snprintf(buf, bufsz, "%s", done);
        /* A command without an argument needs no trailing blank. */
        size_t l = strlen(buf);
        if (l && buf[l - 1] == ' ') {
            buf[l - 1] = '\0';
            int c = cmdline_match(buf, NULL, 0);
            if (c >= 0 && CMDS[c].takes_name)
                buf[l - 1] = ' ';
        }
        return true;
    }
    /* The argument of a command that takes a name. */
    char cmd[64];
    snprintf(cmd, sizeof cmd, "%.*s", (int)(sp - buf), buf);
    int c = cmdline_match(cmd, NULL, 0);
    if (c < 0 || !CMDS[c].takes_name)
        return false;
    const char *arg = sp + 1;
    while (*arg == ' ')
        arg++;
    if (!complete_word(done, sizeof done, arg, names, n, hint, hintsz))
        return false;
    size_t l = strlen(done);
    if (l && done[l - 1] == ' ')
        done[l - 1] = '\0';
    char out[1024];
    snprintf(out, sizeof out, "%s %s", cmd, done);
    if (strlen(out) >= bufsz)
        return false;
    snprintf(buf, bufsz, "%s", out);
    return true;
}

void cmdline_remember(struct cmdline *c, const char *line)
{
    c->browse = c->count;
    if (!line || !*line || (c->count && strcmp(c->history[c->count - 1], line) == 0))
        return;
    char *copy = strdup(line);
    if (!copy)
        return;
    if (c->count == CMDLINE_HISTORY) {
        free(c->history[0]);
        memmove(c->history, c->history + 1, (CMDLINE_HISTORY - 1) * sizeof *c->history);
        c->count--;
    }
    c->history[c->count++] = copy;
    c->browse = c->count;
}

const char *cmdline_browse(struct cmdline *c, int dir, const char *current)
{
    if (dir < 0) {
        if (c->browse == 0)
            return NULL;
        if (c->browse == c->count)
            snprintf(c->typed, sizeof c->typed, "%s", current ? current : "");
        return c->history[--c->browse];
    }
    if (c->browse >= c->count)
        return NULL;
    c->browse++;
    return c->browse == c->count ? c->typed : c->history[c->browse];
}

void cmdline_reset_browse(struct cmdline *c)
{
    c->browse = c->count;
    c->typed[0] = '\0';
}

void cmdline_free(struct cmdline *c)
{
    for (size_t i = 0; i < c->count; i++)
        free(c->history[i]);
    memset(c, 0, sizeof *c);
}
