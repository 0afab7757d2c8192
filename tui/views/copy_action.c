/* Copy to the terminal's clipboard (tui/views/copy_action.h). */
#include "tui/views/copy_action.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util/base64.h"
#include "tui/term/keys.h"

/* The OSC 52 sequence that sets the clipboard to text (base64) into buf; its length, or 0
 * when it does not fit or is out of memory. */
static size_t osc52(const char *text, char *buf, size_t bufsz)
{
    char *b64 = e2b_base64_encode((const uint8_t *)text, strlen(text));
    if (!b64)
        return 0;
    int n = snprintf(buf, bufsz, "\033]52;c;%s\a", b64);
    free(b64);
    return n > 0 && (size_t)n < bufsz ? (size_t)n : 0;
}

/* Writes the sequence to the terminal (between frames: it moves no cursor). */
static bool put_clipboard(const char *text)
{
    char buf[8192];
    size_t len = osc52(text, buf, sizeof buf);
    for (size_t off = 0; len && off < len;) {
        ssize_t w = write(STDOUT_FILENO, buf + off, len - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        off += (size_t)w;
    }
    return len > 0;
}

static void copied(struct ui *ui, const char *what, const char *text)
{
    if (put_clipboard(text))
        ui_flash(ui, FLASH_INFO, "copied %s to the clipboard: %s", what, text);
    else
        ui_flash(ui, FLASH_ERROR, "copy: could not write to the terminal");
}

void copy_action_text(struct ui *ui, const char *what, const char *text)
{
    copied(ui, what, text);
}

/* The key after ctrl-o: i, n or u copies, Esc gives up, anything else asks again. */
static bool copy_key(struct ui *ui, void *ctx, int key)
{
    const char *id = ctx;
    const e2b_sandbox *sb = e2b_live_sandbox(ui->model, id);
    if (key == KEYC_ESC || key == KEYC_ENTER || key == 'q') {
        prompt_clear(&ui->prompt);
        return true;
    }
    if (key != 'i' && key != 'n' && key != 'u')
        return true; /* the question stays */
    if (!sb) {
        ui_flash(ui, FLASH_ERROR, "copy: the sandbox is gone");
    } else if (key == 'i') {
        copied(ui, "the sandbox id", id);
    } else if (key == 'n') {
        copied(ui, "the name", e2b_live_sandbox_name(sb));
    } else {
        char dir[1024], *url = NULL;
        if (e2b_live_box_where(ui->model, id, dir, sizeof dir, &url) && url)
            copied(ui, "the server URL", url);
        else
            ui_flash(ui, FLASH_ERROR, "copy: no server URL (only this machine's boxes have one)");
        free(url);
    }
    prompt_clear(&ui->prompt); /* frees ctx: id is not used after this */
    return true;
}

void copy_action_open(struct ui *ui, const char *sandbox_id)
{
    char *id = strdup(sandbox_id);
    if (!id) {
        ui_flash(ui, FLASH_ERROR, "copy: out of memory");
        return;
    }
    prompt_open(ui, "copy: i the sandbox id, n the name, u the server URL (Esc: nothing) ", false,
                "", NULL, NULL, id, free);
    ui->prompt.on_key = copy_key;
}
