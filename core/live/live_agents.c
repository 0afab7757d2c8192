/* The agents of the running boxes (live.h "agents"): one core/agent/watch.h per box. */
#include "core/live/live_internal.h"

const e2b_agent_status *e2b_live_agent(const e2b_live *m, const char *sandbox_id)
{
    (void)m;
    (void)sandbox_id;
    return NULL;
}

size_t e2b_live_agents_waiting(const e2b_live *m)
{
    (void)m;
    return 0;
}

int e2b_live_agent_reply(e2b_live *m, const char *sandbox_id, const char *request_id,
                         e2b_agent_reply reply)
{
    (void)sandbox_id;
    (void)request_id;
    (void)reply;
    live_notice(m, E2B_LIVE_ERROR, "agent replies are not available yet");
    return -1;
}

int e2b_live_agent_prompt(e2b_live *m, const char *sandbox_id, const char *session_id,
                          bool new_session, const char *text)
{
    (void)sandbox_id;
    (void)session_id;
    (void)new_session;
    (void)text;
    live_notice(m, E2B_LIVE_ERROR, "agent prompts are not available yet");
    return -1;
}

int e2b_live_agent_interrupt(e2b_live *m, const char *sandbox_id)
{
    (void)sandbox_id;
    live_notice(m, E2B_LIVE_ERROR, "agent interrupts are not available yet");
    return -1;
}
