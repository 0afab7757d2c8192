/* The Secrets view: model API keys stored as E2B secrets, listed by the live model. */
#ifndef E2B_TUI_VIEW_SECRETS_H
#define E2B_TUI_VIEW_SECRETS_H

#include "tui/ui.h"

struct view *view_secrets_new(void);

#endif
