#include "tui/views/message_edit.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tui/term/term.h"

extern char **environ;

enum { EDITOR_MAX_BYTES = 256 * 1024 };

struct message_ctx {
    char id[128];
    char name[128];
    char session[256]; /* "" = a new session */
};

static void send_text(struct ui *ui, const struct message_ctx *c, const char *text)
{
    size_t n = strlen(text);
    while (n && (text[n - 1] == '\n' || text[n - 1] == ' '))
        n--;
    if (n == 0) {
        ui_flash(ui, FLASH_INFO, "message: empty, nothing sent");
        return;
    }
    char *t = strndup(text, n);
    if (!t)
        return;
    e2b_live_agent_prompt(ui->model, c->id, c->session[0] ? c->session : NULL, !c->session[0], t);
    explicit_bzero(t, n);
    free(t);
}

/* Reads at most EDITOR_MAX_BYTES of the file; NULL on error (*why set). */
static char *read_back(const char *path, const char **why)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        *why = "cannot read the file back";
        return NULL;
    }
    char *buf = malloc(EDITOR_MAX_BYTES + 1);
    size_t n = buf ? fread(buf, 1, EDITOR_MAX_BYTES + 1, f) : 0;
    fclose(f);
    if (!buf) {
        *why = "out of memory";
        return NULL;
    }
    if (n > EDITOR_MAX_BYTES) {
        free(buf);
        *why = "the message is longer than 256 KiB";
        return NULL;
    }
    buf[n] = '\0';
    if (strlen(buf) != n) {
        free(buf);
        *why = "the file holds a NUL byte";
        return NULL;
    }
    return buf;
}

/* ctrl-e: the text so far in $EDITOR (VISUAL, EDITOR, else vi), in a 0600 file of a
 * private directory; the dashboard waits for it as it does for attach. */
static void run_editor(struct ui *ui, const struct message_ctx *c, const char *text)
{
    const char *tmp = getenv("TMPDIR");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/e2b-tui-message.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        ui_flash(ui, FLASH_ERROR, "message: cannot make a temporary directory");
        return;
    }
    char path[4200];
    snprintf(path, sizeof path, "%s/message.md", dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    bool ok = fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text);
    if (fd >= 0)
        close(fd);
    const char *why = NULL;
    char *out = NULL;
    if (!ok) {
        why = "cannot write the temporary file";
    } else {
        const char *ed = getenv("VISUAL");
        if (!ed || !*ed)
            ed = getenv("EDITOR");
        if (!ed || !*ed)
            ed = "vi";
        /* The editor may be a command with arguments ("code -w"): the shell splits it. */
        char *argv[] = {"/bin/sh", "-c", "exec $1 \"$2\"", "sh", (char *)ed, path, NULL};
        int st = term_run_foreground(argv, environ);
        ui->full_redraw = ui->dirty = true;
        if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
            why = "the editor failed (nothing sent)";
        else
            out = read_back(path, &why);
    }
    unlink(path);
    rmdir(dir);
    if (why) {
        ui_flash(ui, FLASH_ERROR, "message: %s", why);
        return;
    }
    send_text(ui, c, out);
    explicit_bzero(out, strlen(out));
    free(out);
}

static void done(struct ui *ui, void *ctx, bool ok, const char *text)
{
    struct message_ctx *c = ctx;
    if (!ok) {
        ui_flash(ui, FLASH_INFO, "message: cancelled");
        return;
    }
    if (ui->prompt.editor_asked)
        run_editor(ui, c, text);
    else
        send_text(ui, c, text);
}

void message_edit_open(struct ui *ui, const char *id, const char *name, const char *session_id,
                       bool new_session)
{
    struct message_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return;
    snprintf(c->id, sizeof c->id, "%s", id);
    snprintf(c->name, sizeof c->name, "%s", name);
    if (!new_session && session_id)
        snprintf(c->session, sizeof c->session, "%s", session_id);
    char label[200];
    snprintf(label, sizeof label, " Message to %s (%s)", c->name,
             c->session[0] ? "its current session" : "a new session");
    prompt_open_multiline(ui, label, "", done, c, free);
}
