/* core/agent/turn_owed: when a turn owed to a prompt counts as seen, and when it is lost. */
#include "core/agent/turn_owed.h"
#include "tests/lib/harness.h"

#include <string.h>

#define T0 1796179475000LL /* the prompt was sent (this machine's clock) */

static e2b_agent_status idle(e2b_agent_end end)
{
    e2b_agent_status st = {0};
    st.state = E2B_AGENT_IDLE;
    st.last_end = end;
    st.session_id = "ses_a";
    return st;
}

static void test_nothing_owed(void)
{
    e2b_agent_status st = idle(E2B_AGENT_END_DONE);
    CHECK_INT_EQ(e2b_turn_owed_judge(0, NULL, false, &st, true, T0), E2B_TURN_OWED_NONE);
}

static void test_idle_is_not_the_turn(void)
{
    /* the box idle after an older turn (done before the prompt): still owed, however long
     * (within the bound) the turn takes to start */
    e2b_agent_status st = idle(E2B_AGENT_END_DONE);
    st.turn_started_ms = T0 - 60000;
    st.reply_created_ms = T0 - 60000;
    CHECK_INT_EQ(e2b_turn_owed_judge(T0, "ses_a", false, &st, true, T0 + 1), E2B_TURN_OWED_WAIT);
    CHECK_INT_EQ(e2b_turn_owed_judge(T0, "ses_a", false, &st, true, T0 + 30000),
                 E2B_TURN_OWED_WAIT);
    /* the user's own message still the newest reads as "interrupted" with no answer: no
     * reply time, still owed */
    st = idle(E2B_AGENT_END_INTERRUPTED);
    CHECK_INT_EQ(e2b_turn_owed_judge(T0, "ses_a", false, &st, true, T0 + 5000), E2B_TURN_OWED_WAIT);
    /* not synced, or no status yet: nothing said */
    st = idle(E2B_AGENT_END_DONE);
    st.reply_created_ms = T0 + 100;
    CHECK_INT_EQ(e2b_turn_owed_judge(T0, "ses_a", true, &st, false, T0 + 1), E2B_TURN_OWED_WAIT);
    CHECK_INT_EQ(e2b_turn_owed_judge(T0, "ses_a", false, NULL, false, T0 + 1), E2B_TURN_OWED_WAIT);
}

static void test_working_then_idle(void)
{
    e2b_agent_status st = idle(E2B_AGENT_END_DONE);
    st.state = E2B_AGENT_WORKING;
    CHECK_INT_EQ(e2b_turn_owed_judge(T0, "ses_a", true, &st, true, T0 + 1), E2B_TURN_OWED_WAIT);
    st.state = E2B_AGENT_WAITING; /* waiting for you: the turn is not over */
    CHECK_INT_EQ(e2b_turn_owed_judge(T0, "ses_a", true, &st, true, T0 + 1), E2B_TURN_OWED_WAIT);
    st = idle(E2B_AGENT_END_INTERRUPTED);
    CHECK_INT_EQ(e2b_turn_owed_judge(T0, "ses_a", true, &st, true, T0 + 1), E2B_TURN_OWED_SEEN);
    /* a turn this watch saw start after the prompt was sent, ended */
    st = idle(E2B_AGENT_END_FAILED);
    st.turn_started_ms = T0 + 20;
    CHECK_INT_EQ(e2b_turn_owed_judge(T0, "ses_a", false, &st, true, T0 + 1), E2B_TURN_OWED_SEEN);
    st.turn_started_ms = T0 - 1; /* before it: an older turn */
    CHECK_INT_EQ(e2b_turn_owed_judge(T0, "ses_a", false, &st, true, T0 + 1), E2B_TURN_OWED_WAIT);
}

static void test_the_servers_answer(void)
{
    /* a process that started after the turn ended: the newest message is the answer */
    e2b_agent_status st = idle(E2B_AGENT_END_DONE);
    st.reply_created_ms = T0 + 400;
    CHECK_INT_EQ(e2b_turn_owed_judge(T0, "ses_a", false, &st, true, T0 + 9000), E2B_TURN_OWED_SEEN);
    /* the box's clock a little behind: within the drift it still counts */
    st.reply_created_ms = T0 - E2B_TURN_OWED_DRIFT_MS;
    CHECK_INT_EQ(e2b_turn_owed_judge(T0, "ses_a", false, &st, true, T0 + 9000), E2B_TURN_OWED_SEEN);
    st.reply_created_ms = T0 - E2B_TURN_OWED_DRIFT_MS - 1;
    CHECK_INT_EQ(e2b_turn_owed_judge(T0, "ses_a", false, &st, true, T0 + 9000), E2B_TURN_OWED_WAIT);
    /* another session's answer is not the owed one's; an unknown owed session takes it */
    st.reply_created_ms = T0 + 400;
    CHECK_INT_EQ(e2b_turn_owed_judge(T0, "ses_b", false, &st, true, T0 + 9000), E2B_TURN_OWED_WAIT);
    CHECK_INT_EQ(e2b_turn_owed_judge(T0, "", false, &st, true, T0 + 9000), E2B_TURN_OWED_SEEN);
    /* no end known (no turn yet): nothing */
    st = idle(E2B_AGENT_END_NONE);
    st.reply_created_ms = T0 + 400;
    CHECK_INT_EQ(e2b_turn_owed_judge(T0, "ses_a", false, &st, true, T0 + 9000), E2B_TURN_OWED_WAIT);
}

static void test_lost(void)
{
    e2b_agent_status st = idle(E2B_AGENT_END_DONE);
    CHECK_INT_EQ(e2b_turn_owed_judge(T0, "ses_a", false, &st, true, T0 + E2B_TURN_OWED_MAX_MS),
                 E2B_TURN_OWED_WAIT);
    CHECK_INT_EQ(e2b_turn_owed_judge(T0, "ses_a", false, &st, true, T0 + E2B_TURN_OWED_MAX_MS + 1),
                 E2B_TURN_OWED_LOST);
    /* not lost while a turn runs or was seen: a long turn is not a lost prompt */
    st.state = E2B_AGENT_WORKING;
    CHECK_INT_EQ(e2b_turn_owed_judge(T0, "ses_a", true, &st, true, T0 + 2 * E2B_TURN_OWED_MAX_MS),
                 E2B_TURN_OWED_WAIT);
    CHECK_INT_EQ(e2b_turn_owed_judge(T0, "ses_a", false, NULL, false, T0 + E2B_TURN_OWED_MAX_MS + 1),
                 E2B_TURN_OWED_LOST);
}

int main(void)
{
    RUN(test_nothing_owed);
    RUN(test_idle_is_not_the_turn);
    RUN(test_working_then_idle);
    RUN(test_the_servers_answer);
    RUN(test_lost);
    return harness_finish();
}
