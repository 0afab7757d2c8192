/* The bottom-line editor (':' commands, '/' filter, box and secret prompts). A prompt
 * carries a context pointer for its callbacks (a chain of prompts passes it on) instead of
 * file-scope state; the prompt owns the context while it is open and frees it with ctx_free
 * once a callback has not passed it on to a new prompt. */
#ifndef E2B_TUI_PROMPT_H
#define E2B_TUI_PROMPT_H

#include <stdbool.h>
#include <stddef.h>

struct ui;

typedef void (*prompt_change_fn)(struct ui *ui, void *ctx, const char *text);
/* Called once: ok is false for Esc. text is wiped after the call returns. */
typedef void (*prompt_done_fn)(struct ui *ui, void *ctx, bool ok, const char *text);

struct prompt {
    bool active;
    bool hidden; /* a secret: nothing typed is drawn, the buffer is wiped after use */
    /* A message: Enter is a new line, ctrl-d is done, ctrl-e is done asking for $EDITOR
     * (editor_asked is true during the done callback); drawn over the lines above. */
    bool multiline, editor_asked;
    char label[512]; /* a question may start with why the last answer was refused */
    char buf[8192];
    size_t len;
    size_t cur; /* multiline: where typing goes (a byte offset at a character's start);
                 * otherwise always len */
    /* The default the prompt opened with is selected (drawn highlighted): the first
     * character typed replaces it, Backspace or ctrl-u clears it, an arrow, Home or End
     * keeps it for editing (readline's and gh's habit). */
    bool selected;
    prompt_change_fn on_change; /* after every edit (live filter); may be NULL */
    /* Sees each key first (Tab, Up...); true when it used it. Set after prompt_open, which
     * clears it; may be NULL. */
    bool (*on_key)(struct ui *ui, void *ctx, int key);
    char hint[256]; /* drawn dim after the text (completion candidates); "" = none */
    prompt_done_fn on_done;
    void *ctx;
    void (*ctx_free)(void *ctx); /* may be NULL (ctx is not owned) */
};

/* Opens the prompt (an open one is replaced: its context is freed). */
void prompt_open(struct ui *ui, const char *label, bool hidden, const char *initial,
                 prompt_change_fn on_change, prompt_done_fn on_done, void *ctx,
                 void (*ctx_free)(void *ctx));
/* The same as a multi-line message editor (see multiline above). */
void prompt_open_multiline(struct ui *ui, const char *label, const char *initial,
                           prompt_done_fn on_done, void *ctx, void (*ctx_free)(void *ctx));
void prompt_key(struct ui *ui, int key);
void prompt_draw(struct ui *ui, int y, int w);
/* Closes without calling back (at exit): wipes the buffer, frees the context. */
void prompt_clear(struct prompt *p);

#endif
