/* The actions on a box's agent, the same from its row (Boxes, All) and from its Agent pane:
 * c (Changes pane), y / Y / n (reply to the oldest permission request: once, always after
 * asking, reject), A (answer the oldest question: an option or typed text), m (a message: the next task, edited in the prompt or in $EDITOR), i (interrupt).
 * Everything goes through the model's commands by sandbox id (core/live/live.h); results
 * come back as notices. */
#ifndef E2B_TUI_AGENT_ACTIONS_H
#define E2B_TUI_AGENT_ACTIONS_H

#include "tui/agent_text.h"
#include "tui/ui.h"

/* The drawing role (tui/term/term.h) of a state's tone. */
int agent_tone_role(enum agent_tone t);

/* Colours the AGENT cells of a sandbox list drawn by list_draw at (y, x, h, w) by their
 * state's tone (the selected row keeps its highlight). */
void agent_cells_colour(struct view *v, const e2b_live *m, int y, int x, int h, int w);

/* Is a one of the actions above? */
bool agent_actions_handles(enum action_id a);
/* Runs a on the sandbox shown as id (name: its sanitised words). session_id: the session
 * a message goes to (NULL = the box's active one). Returns true (it says itself when the
 * sandbox is not a box with an agent). */
bool agent_actions_run(struct ui *ui, const char *id, const char *name, const char *session_id,
                       enum action_id a);
/* A: opens the prompt that answers question r of the box shown as id (a number picks an
 * option; other text is the answer where the question allows it). */
void agent_answer_open(struct ui *ui, const char *id, const char *name,
                       const e2b_agent_request *r);
/* y / Y / n / A on one given request r (the Needs-you pane's selected row). */
void agent_reply_to(struct ui *ui, const char *id, const char *name, const e2b_agent_request *r,
                    enum action_id a);

#endif
