/* Every action of the dashboard, declared once. The table below generates the action enum,
 * the Help overlay, share/keys.conf (e2b-tui --print-keys=conf) and the man page's key list
 * (--print-keys=man). Pure: no curses, so tests/unit can check it.
 *
 * X(ID, name, default keys, views, flags, help text)
 *   name          the word used in the config file: key.<name> = <keys>
 *   default keys  space-separated key names (tui/term/keys.h), "" for none
 *   views         VIEW_* bits where the action applies
 *   flags         ACTION_MUTATES: changes something (hidden by --readonly)
 */
#ifndef E2B_TUI_ACTIONS_H
#define E2B_TUI_ACTIONS_H

#include <stdbool.h>

enum view_bit {
    VIEW_BOXES = 1u << 0,
    VIEW_WORKSPACES = 1u << 1,
    VIEW_ALL = 1u << 2,
    VIEW_SECRETS = 1u << 3,
    VIEW_DETAIL = 1u << 4,
    VIEW_LOG = 1u << 5,
    VIEW_HELP = 1u << 6,
    VIEW_OPS = 1u << 7,
    VIEW_MESSAGES = 1u << 8,
    VIEW_TEMPLATES = 1u << 9,
    VIEW_CHANGES = 1u << 10,
    VIEW_AGENT = 1u << 11,
    VIEW_NEEDS = 1u << 12,
    VIEW_COMPARE = 1u << 13, /* a group of attempts (tui/views/view_compare.h) */
    VIEW_RULES = 1u << 14,   /* approval rules and saved answers (tui/views/view_rules.h) */
    VIEW_HISTORY = 1u << 15, /* the agents' state changes (tui/views/view_history.h) */
};
#define VIEWS_SANDBOXES (VIEW_BOXES | VIEW_WORKSPACES | VIEW_ALL)
#define VIEWS_LISTS (VIEWS_SANDBOXES | VIEW_SECRETS)
#define VIEWS_SCROLL                                                                          \
    (VIEWS_LISTS | VIEW_DETAIL | VIEW_LOG | VIEW_HELP | VIEW_OPS | VIEW_MESSAGES |             \
     VIEW_TEMPLATES | VIEW_CHANGES | VIEW_AGENT | VIEW_NEEDS | VIEW_COMPARE | VIEW_RULES |    \
     VIEW_HISTORY)
/* Where a box's agent can be acted on: its row, its Agent pane and the Needs-you pane. */
#define VIEWS_AGENT_ACTS (VIEWS_SANDBOXES | VIEW_AGENT | VIEW_NEEDS)
#define VIEWS_ANY 0xffffu

enum { ACTION_MUTATES = 1u << 0 };

#define ACTION_LIST(X)                                                                        \
    X(DETAIL, "detail", "d", VIEWS_SANDBOXES, 0, "Details of the selected sandbox")           \
    X(AGENT, "agent", "enter o", VIEWS_SANDBOXES | VIEW_NEEDS, 0,                             \
      "Agent: the box's sessions, activity, todos and pending request (else Details)")       \
    X(NEEDS, "needs", "!", VIEWS_ANY & ~VIEW_NEEDS, 0,                                        \
      "Needs you: every box's pending requests and questions, oldest first (:needs)")        \
    X(NEXT_NEEDS, "next-needs", "]", VIEWS_ANY, 0,                                            \
      "The Agent pane of the next box that needs you (again: the one after, cycling)")       \
    X(CHANGES, "changes", "c", VIEWS_SANDBOXES | VIEW_AGENT | VIEW_NEEDS | VIEW_COMPARE, 0,                           \
      "Changes: what the agent changed against the box's base, file by file")                \
    X(ALLOW, "allow", "y", VIEWS_AGENT_ACTS, ACTION_MUTATES,                                  \
      "Allow the box's pending request once")                                                 \
    X(ALLOW_ALWAYS, "allow-always", "Y", VIEWS_AGENT_ACTS, ACTION_MUTATES,                    \
      "Allow the pending request from now on (asks first)")                                   \
    X(REJECT, "reject", "n", VIEWS_AGENT_ACTS, ACTION_MUTATES,                                \
      "Reject the box's pending request (the turn ends)")                                     \
    X(ANSWER, "answer", "A", VIEWS_AGENT_ACTS, ACTION_MUTATES,                                \
      "Answer the agent's question: an option's number, or typed text where it allows")      \
    X(MESSAGE, "message", "m", VIEWS_AGENT_ACTS, ACTION_MUTATES,                              \
      "Message the agent: the next task, to its current session (ctrl-e: $EDITOR)")          \
    X(MESSAGE_NEW, "message-new", "ctrl-n", VIEWS_AGENT_ACTS, ACTION_MUTATES,                      \
      "Message the agent in a new session")                                                  \
    X(INTERRUPT, "interrupt", "i", VIEWS_AGENT_ACTS, ACTION_MUTATES,                          \
      "Interrupt the agent's running turn")                                                   \
    X(REREAD, "reread", "R", VIEW_CHANGES | VIEW_AGENT, 0,                                    \
      "Changes: read the box's changes again")                                               \
    X(FOCUS, "focus", "tab", VIEW_CHANGES | VIEW_AGENT, 0,                                    \
      "Agent and Changes panes: move between the parts (sessions/activity, files/diff)")     \
    X(COPY, "copy", "ctrl-o", VIEWS_SANDBOXES | VIEW_DETAIL, 0,                               \
      "Copy the sandbox id, name or server URL to the clipboard (asks which; OSC 52)")       \
    X(TOOL_INPUT, "tool-input", "v", VIEW_AGENT, 0,                                          \
      "Agent pane: tool calls whole, their input as the server sent it (again: one line each)") \
    X(FORWARD, "forward", "w", VIEW_DETAIL, 0,                                                \
      "Detail pane: forward one of the box's ports to a local URL, yours only (asks which, one E2B reaches first; copies the URL)") \
    X(GET, "get", "D", VIEW_CHANGES | VIEW_DETAIL, 0,                                         \
      "Fetch files of the box (the selected one first; build output, logs) into a local folder") \
    X(LOGS, "logs", "l", VIEWS_SANDBOXES | VIEW_DETAIL, 0, "Logs of the selected sandbox")    \
    X(UP, "up", "u", VIEW_BOXES, ACTION_MUTATES,                                              \
      "Start a box from a git project (name, template, hours, directory); name NAME xN: a group of N attempts at one task (asks the task and models)") \
    X(ATTACH, "attach", "a", VIEWS_SANDBOXES | VIEW_DETAIL, ACTION_MUTATES,                   \
      "Attach: hand the terminal to the box's OpenCode server")                               \
    X(STOP, "stop", "s", VIEWS_SANDBOXES | VIEW_DETAIL, ACTION_MUTATES,                       \
      "Stop (pause) the sandbox")                                                             \
    X(RESUME, "resume", "r", VIEWS_SANDBOXES | VIEW_LOG | VIEW_DETAIL, ACTION_MUTATES,        \
      "Resume a paused sandbox")                                                              \
    X(KILL, "kill", "K", VIEWS_SANDBOXES | VIEW_DETAIL | VIEW_COMPARE, ACTION_MUTATES,        \
      "Kill the sandbox (asks first, default No; says if a box has unpulled work); in Compare: the members not pulled, named") \
    X(COMPARE, "compare", "=", VIEWS_SANDBOXES, 0,                                            \
      "Compare: the selected box's group of attempts, member by member (tests, diff, cost; :compare NAME)") \
    X(PULL, "pull", "p", VIEWS_SANDBOXES | VIEW_DETAIL | VIEW_COMPARE, ACTION_MUTATES,                       \
      "Pull the box's work home as branch e2b/NAME")                                          \
    X(EXTEND, "extend", "e", VIEWS_SANDBOXES | VIEW_DETAIL, ACTION_MUTATES,                   \
      "Extend the sandbox's timeout")                                                         \
    X(SNAPSHOT, "snapshot", "S", VIEW_BOXES, ACTION_MUTATES,                                  \
      "Snapshot the box (asks its name); --up --from NAME starts a box from it")              \
    X(FORK, "fork", "F", VIEW_BOXES, ACTION_MUTATES,                                          \
      "Fork the box into boxes NAME-2, NAME-3, ... (asks how many; N TASK: a group of attempts, the box and its forks each given TASK)") \
    X(MARK, "mark", "space", VIEW_BOXES, 0,                                                   \
      "Mark the row (again: unmark); y n i m s p then act on every marked box, after one question") \
    X(MARK_ALL, "mark-all", "*", VIEW_BOXES, 0,                                               \
      "Mark every row shown (with the filter: every row it shows; again: unmark them)")      \
    X(PREVIEW, "preview", "P", VIEW_BOXES, 0,                                                 \
      "Preview beside the list: the selected box's activity, then its changes, then none")   \
    X(PREV_BOX, "prev-box", "(", VIEW_AGENT, 0,                                               \
      "Agent pane: the previous box of the list, without leaving the pane")                  \
    X(NEXT_BOX, "next-box", ")", VIEW_AGENT, 0,                                               \
      "Agent pane: the next box of the list, without leaving the pane")                      \
    X(CANCEL, "cancel", "ctrl-x", VIEWS_ANY, 0,                                                \
      "Cancel a box operation: the newest, or in Operations the selected one")                \
    X(OPERATIONS, "operations", "O", VIEWS_ANY & ~VIEW_OPS, 0,                                 \
      "Operations: the running box operations with their steps and bytes")                   \
    X(MESSAGES, "messages", "ctrl-g", VIEWS_ANY & ~VIEW_MESSAGES, 0,                          \
      "Messages: every status-line message, whole, with its time (:messages)")               \
    X(RULES, "rules", "ctrl-r", VIEWS_ANY & ~VIEW_RULES, 0,                                   \
      "Rules: the selected box's approval rules, e2b-tui's and the server's saved \"always\" answers (:rules NAME; :rules alone: every box)") \
    X(RULE_REVOKE, "rule-revoke", "x", VIEW_RULES, ACTION_MUTATES,                            \
      "Rules: revoke the selected rule or saved answer (asks first, naming it)")             \
    X(HISTORY, "history", "H", VIEWS_ANY & ~VIEW_HISTORY, 0,                                  \
      "History: the selected box's state changes with times, newest last, following new ones (:history NAME; :history alone: every box)") \
    X(TEMPLATES, "templates", "T", VIEWS_ANY & ~VIEW_TEMPLATES, 0,                            \
      "Templates: the team's templates, e2b-tui's snapshots and what the GC would delete")    \
    X(TEMPLATE_DELETE, "template-delete", "x", VIEW_TEMPLATES, ACTION_MUTATES,                \
      "Delete the selected template or snapshot (asks first)")                               \
    X(TEMPLATE_GC, "template-gc", "C", VIEW_TEMPLATES, ACTION_MUTATES,                        \
      "Delete this machine's managed templates unused for template_ttl (lists them, asks first)")       \
    X(SECRET_SET, "secret-set", "n", VIEW_SECRETS, ACTION_MUTATES,                            \
      "Set a secret (name, then the value in a hidden field)")                                \
    X(SECRET_REMOVE, "secret-remove", "x", VIEW_SECRETS, ACTION_MUTATES,                      \
      "Remove the selected secret (asks first)")                                              \
    X(FILTER, "filter", "/", VIEWS_LISTS, 0, "Filter the list (Enter keeps it, Esc clears)")  \
    X(SORT_NEXT, "sort-next", ">", VIEWS_LISTS, 0,                                           \
      "Sort by the next column (the header marks it; after the last: the list's own order)") \
    X(SORT_PREV, "sort-prev", "<", VIEWS_LISTS, 0, "Sort by the previous column")             \
    X(SORT_REVERSE, "sort-reverse", "I", VIEWS_LISTS, 0, "Invert (reverse) the sort order")   \
    X(MOVE_UP, "move-up", "up k", VIEWS_SCROLL, 0, "Move up")                                 \
    X(MOVE_DOWN, "move-down", "down j", VIEWS_SCROLL, 0, "Move down")                         \
    X(PAGE_UP, "page-up", "pgup ctrl-b", VIEWS_SCROLL, 0, "Page up")                          \
    X(PAGE_DOWN, "page-down", "pgdn ctrl-f", VIEWS_SCROLL, 0, "Page down")                    \
    X(PAGE_DOWN_SPACE, "page-down-space", "space", VIEWS_SCROLL & ~VIEW_BOXES, 0,             \
      "Page down (in Boxes space marks the row)")                                             \
    X(HALF_UP, "half-page-up", "ctrl-u", VIEWS_SCROLL, 0, "Half a page up")                   \
    X(HALF_DOWN, "half-page-down", "ctrl-d", VIEWS_SCROLL, 0, "Half a page down")             \
    X(FIRST, "first", "home g", VIEWS_SCROLL, 0, "First row")                                 \
    X(LAST, "last", "end G", VIEWS_SCROLL, 0, "Last row")                                     \
    X(LOG_SOURCE, "log-source", "tab", VIEW_LOG, 0,                                           \
      "Log: switch between the box server's output and the E2B logs")                        \
    X(LOG_SEARCH, "log-search", "/", VIEW_LOG, 0, "Log: search (n next, N previous)")         \
    X(SEARCH_NEXT, "search-next", "n", VIEW_LOG, 0, "Log: the next match of the search")     \
    X(SEARCH_PREV, "search-prev", "N", VIEW_LOG, 0, "Log: the previous match of the search") \
    X(NEXT_VIEW, "next-view", "tab", VIEWS_LISTS, 0, "Next view tab")                         \
    X(PREV_VIEW, "prev-view", "btab", VIEWS_LISTS, 0, "Previous view tab")                    \
    X(VIEW_BOXES, "view-boxes", "1", VIEWS_LISTS, 0, "Boxes view")                            \
    X(VIEW_WORKSPACES, "view-workspaces", "2", VIEWS_LISTS, 0, "Workspaces view")             \
    X(VIEW_ALL, "view-all", "3", VIEWS_LISTS, 0, "All sandboxes view")                        \
    X(VIEW_SECRETS, "view-secrets", "4", VIEWS_LISTS, 0, "Secrets view")                      \
    X(COMMAND, "command", ":", VIEWS_ANY, 0,                                                  \
      "Command line (Tab completes, Up recalls): :boxes :all :waiting :ops :messages :rules :history :remake :q")    \
    X(HELP, "help", "?", VIEWS_ANY, 0, "Show or close this help")                             \
    X(BACK, "back", "esc", VIEWS_ANY, 0, "Back: close the overlay, or the pane (to the one it came from); clear the marks, then the filter")       \
    X(REDRAW, "redraw", "ctrl-l", VIEWS_ANY, 0, "Redraw the whole screen")                    \
    X(QUIT, "quit", "q", VIEWS_ANY, 0, "Quit (in an overlay or pane: close it, back to where it came from)")

enum action_id {
    ACT_NONE = 0,
#define ACTION_ENUM_(id, ...) ACT_##id,
    ACTION_LIST(ACTION_ENUM_)
#undef ACTION_ENUM_
        ACT_COUNT
};

struct action_info {
    const char *name;
    const char *default_keys;
    unsigned views;
    unsigned flags;
    const char *help;
};

/* Static description of an action; NULL for ACT_NONE or out of range. */
const struct action_info *action_info(enum action_id id);

/* The action called name (as in key.<name>), or ACT_NONE. */
enum action_id action_by_name(const char *name);

/* Does the action change something (and so vanish under --readonly)? */
bool action_mutates(enum action_id id);

#endif
