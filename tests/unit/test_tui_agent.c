/* The dashboard's agent words and notifications, pure parts: the AGENT and TODO cells (with
 * the waiting mark readable without colour), the tones, "ago"; which state changes notify
 * (once per change, nothing from an unknown state) and the bytes of bell, OSC 9 and OSC 777,
 * plain and wrapped for tmux, with hostile text kept out of the sequence. */
#include "tests/lib/harness.h"
#include "tui/agent_text.c"
#include "tui/notify.c"
#include "tui/widgets/table.c"
#include "tui/widgets/textwidth.c"

#include <stdio.h>
#include <string.h>

static e2b_agent_request req = {.id = "per_1", .summary = "bash: rm -rf build"};

static e2b_agent_status status(e2b_agent_state s)
{
    e2b_agent_status st = {0};
    st.state = s;
    return st;
}

static void test_cells(void)
{
    char buf[200];
    agent_text_cell(NULL, 0, buf, sizeof buf);
    CHECK_STR_EQ(buf, "-");
    e2b_agent_status st = status(E2B_AGENT_WAITING);
    st.requests = &req;
    st.nrequests = 1;
    agent_text_cell(&st, 0, buf, sizeof buf);
    CHECK_STR_EQ(buf, "! waiting: bash: rm -rf build");
    CHECK(strncmp(buf, AGENT_WAITING_MARK, strlen(AGENT_WAITING_MARK)) == 0);
    CHECK(agent_text_tone(&st) == TONE_WAITING);
    st = status(E2B_AGENT_IDLE);
    st.last_end = E2B_AGENT_END_DONE;
    st.idle_since_ms = 1000000;
    agent_text_cell(&st, 1000000 + 3 * 60000 + 5000, buf, sizeof buf);
    CHECK_STR_EQ(buf, "idle 3m done");
    agent_text_cell(&st, 1000000 + 5000, buf, sizeof buf);
    CHECK_STR_EQ(buf, "idle <1m done");
    CHECK(agent_text_tone(&st) == TONE_GOOD);
    st.last_end = E2B_AGENT_END_FAILED;
    CHECK(agent_text_tone(&st) == TONE_BAD);
    st = status(E2B_AGENT_RETRYING);
    st.retry_attempt = 2;
    agent_text_cell(&st, 0, buf, sizeof buf);
    CHECK_STR_EQ(buf, "retrying (2)");
    st = status(E2B_AGENT_SERVER_DOWN);
    agent_text_cell(&st, 0, buf, sizeof buf);
    CHECK_STR_EQ(buf, "server down");
    CHECK(agent_text_tone(&st) == TONE_BAD);
    /* how long in the state, from a minute on */
    st = status(E2B_AGENT_WORKING);
    st.state_since_ms = 1000000;
    agent_text_cell(&st, 1000000 + 12 * 60000 + 5000, buf, sizeof buf);
    CHECK_STR_EQ(buf, "working 12m");
    agent_text_cell(&st, 1000000 + 30000, buf, sizeof buf);
    CHECK_STR_EQ(buf, "working");
    char fit[64];
    CHECK_STR_EQ(agent_text_fit("working 12m", 8, fit, sizeof fit), "working");
    st = status(E2B_AGENT_WAITING);
    st.requests = &req;
    st.nrequests = 1;
    st.state_since_ms = 1000000;
    agent_text_cell(&st, 1000000 + 3 * 60000, buf, sizeof buf);
    CHECK_STR_EQ(buf, "! waiting 3m: bash: rm -rf build");
    CHECK_STR_EQ(agent_text_fit(buf, 12, fit, sizeof fit), "! waiting 3m");
    st = status(E2B_AGENT_WORKING);
    agent_text_todo(&st, buf, sizeof buf);
    CHECK_STR_EQ(buf, "-");
    st.todo_done = 2;
    st.todo_total = 5;
    agent_text_todo(&st, buf, sizeof buf);
    CHECK_STR_EQ(buf, "2/5");
    e2b_agent_ago(0, 5000, buf, sizeof buf);
    CHECK_STR_EQ(buf, "");
    e2b_agent_ago(1000, 13000, buf, sizeof buf);
    CHECK_STR_EQ(buf, "12s");
    e2b_agent_ago(0 + 1, 1 + 2 * 3600000LL, buf, sizeof buf);
    CHECK_STR_EQ(buf, "2h");
}

/* Issue 30: a narrow AGENT column takes the shorter forms before it is cut. */
static void test_fit(void)
{
    char b[64];
    CHECK_STR_EQ(agent_text_fit("idle 3m done", 12, b, sizeof b), "idle 3m done");
    CHECK_STR_EQ(agent_text_fit("idle 3m done", 11, b, sizeof b), "idle 3m");
    CHECK_STR_EQ(agent_text_fit("idle 3m done", 6, b, sizeof b), "idle");
    CHECK_STR_EQ(agent_text_fit("! waiting: bash: rm -rf build", 12, b, sizeof b), "! waiting");
    CHECK_STR_EQ(agent_text_fit("! waiting: bash: rm -rf build", 16, b, sizeof b), "! waiting: bash");
    CHECK_STR_EQ(agent_text_fit("! waiting: bash", 6, b, sizeof b), "! wait");
    CHECK_STR_EQ(agent_text_fit("working", 5, b, sizeof b), "work");
    CHECK_STR_EQ(agent_text_fit("retrying (2)", 5, b, sizeof b), "retry");
    CHECK_STR_EQ(agent_text_fit("server down", 5, b, sizeof b), "down");
    CHECK_STR_EQ(agent_text_fit("idle 3m done", 3, b, sizeof b), "idle"); /* then cut */
}

static void test_events(void)
{
    struct notify_box prev = {.id = "i1", .state = E2B_AGENT_WORKING};
    e2b_agent_status st = status(E2B_AGENT_WAITING);
    st.requests = &req;
    st.nrequests = 1;
    /* Never seen, or seen unknown / down / paused: nothing. */
    CHECK(notify_event_for(NULL, &st) == NOTIFY_NONE);
    struct notify_box unknown = {.state = E2B_AGENT_UNKNOWN};
    CHECK(notify_event_for(&unknown, &st) == NOTIFY_NONE);
    struct notify_box down = {.state = E2B_AGENT_SERVER_DOWN};
    CHECK(notify_event_for(&down, &st) == NOTIFY_NONE);
    /* working -> waiting: once. */
    CHECK(notify_event_for(&prev, &st) == NOTIFY_WAITING);
    struct notify_box waiting = {.state = E2B_AGENT_WAITING};
    snprintf(waiting.request, sizeof waiting.request, "per_1");
    CHECK(notify_event_for(&waiting, &st) == NOTIFY_NONE);
    /* Another request after the first was answered: told again. */
    snprintf(waiting.request, sizeof waiting.request, "per_0");
    CHECK(notify_event_for(&waiting, &st) == NOTIFY_WAITING);
    /* The turn ends: done or failed, once per end. */
    e2b_agent_status idle = status(E2B_AGENT_IDLE);
    idle.last_end = E2B_AGENT_END_DONE;
    idle.idle_since_ms = 5000;
    CHECK(notify_event_for(&prev, &idle) == NOTIFY_DONE);
    struct notify_box was_idle = {.state = E2B_AGENT_IDLE, .turn_end = 5000};
    CHECK(notify_event_for(&was_idle, &idle) == NOTIFY_NONE);
    idle.idle_since_ms = 9000; /* a whole turn between two looks */
    CHECK(notify_event_for(&was_idle, &idle) == NOTIFY_DONE);
    idle.last_end = E2B_AGENT_END_FAILED;
    CHECK(notify_event_for(&prev, &idle) == NOTIFY_FAILED);
    idle.last_end = E2B_AGENT_END_INTERRUPTED; /* the user did it: not told */
    CHECK(notify_event_for(&prev, &idle) == NOTIFY_NONE);
    /* Idle with no turn seen before, then an end time learnt: not a new turn. */
    struct notify_box fresh_idle = {.state = E2B_AGENT_IDLE, .turn_end = 0};
    idle.last_end = E2B_AGENT_END_DONE;
    CHECK(notify_event_for(&fresh_idle, &idle) == NOTIFY_NONE);
}

static void test_format(void)
{
    char buf[600];
    size_t n = notify_format(E2B_NOTIFY_BELL, false, "x", buf, sizeof buf);
    CHECK_INT_EQ(n, 1);
    CHECK_STR_EQ(buf, "\a");
    n = notify_format(E2B_NOTIFY_OSC9, false, "feat-x is waiting for you: bash: ls", buf, sizeof buf);
    CHECK_STR_EQ(buf, "\033]9;feat-x is waiting for you: bash: ls\a");
    CHECK_INT_EQ(n, strlen(buf));
    notify_format(E2B_NOTIFY_OSC777, false, "a;b", buf, sizeof buf);
    CHECK_STR_EQ(buf, "\033]777;notify;e2b-tui;a,b\a");
    notify_format(E2B_NOTIFY_OSC9 | E2B_NOTIFY_BELL, true, "t", buf, sizeof buf);
    CHECK_STR_EQ(buf, "\033Ptmux;\033\033]9;t\a\033\\\a");
    /* Control bytes cannot end the sequence early. */
    notify_format(E2B_NOTIFY_OSC9, false, "x\a\033]0;evil\033\\", buf, sizeof buf);
    CHECK_STR_EQ(buf, "\033]9;x??]0,evil?\\\a");
    CHECK_INT_EQ(notify_format(0, false, "x", buf, sizeof buf), 0);
    /* A box named with C1 controls (U+009C ST ends an OSC, U+009B is CSI, raw 0x9c too),
     * a bidi override and DEL: none reaches the terminal. */
    notify_format(E2B_NOTIFY_OSC9 | E2B_NOTIFY_OSC777, true,
                  "box\xc2\x9c\xc2\x9b""2J\x9c\xe2\x80\xae""evil\x7f finished", buf, sizeof buf);
    CHECK(strstr(buf, "\xc2\x9c") == NULL);
    CHECK(strstr(buf, "\xc2\x9b") == NULL);
    CHECK(strstr(buf, "\xe2\x80\xae") == NULL);
    CHECK(strchr(buf, 0x7f) == NULL);
    for (const char *p = buf; *p; p++)
        CHECK((unsigned char)*p != 0x9c);
    CHECK(strstr(buf, "\033]9;box??2J") != NULL);
    CHECK(strstr(buf, "evil? finished") != NULL);
    /* Cut in the middle of a character: the half is dropped, the text stays UTF-8. */
    char wide[400] = "";
    for (int i = 0; i < 100; i++)
        strcat(wide, "\xc3\xa9"); /* é, 2 bytes */
    n = notify_format(E2B_NOTIFY_OSC9, false, wide, buf, sizeof buf);
    char *end = strchr(buf, '\a');
    CHECK(end != NULL);
    CHECK(((unsigned char)end[-1] & 0xC0) == 0x80 || (unsigned char)end[-1] < 0x80);
    CHECK((unsigned char)end[-2] == 0xc3);
    /* A long text is cut, the sequence still ends. */
    char longtext[2000];
    memset(longtext, 'a', sizeof longtext - 1);
    longtext[sizeof longtext - 1] = '\0';
    n = notify_format(E2B_NOTIFY_OSC9, false, longtext, buf, sizeof buf);
    CHECK(n < sizeof buf);
    CHECK(buf[n - 1] == '\a');
}

/* The fleet's figure of today for one box: the agent's today, the sandbox since midnight. */
static void test_cost_today(void)
{
    e2b_config cfg = {.price_vcpu_second = 0.000014, .price_gib_second = 0.0000045};
    time_t now = 1796178765;
    int64_t day = e2b_agent_day_start((int64_t)now * 1000);
    time_t midnight = (time_t)(day / 1000);
    e2b_sandbox sb = {.state = E2B_STATE_RUNNING, .cpu_count = 1, .memory_mb = 0,
                      .started_at = midnight - 86400}; /* running since yesterday */
    e2b_agent_status st = status(E2B_AGENT_IDLE);
    st.total = (e2b_agent_usage){.have_cost = true, .cost_usd = 9};
    st.today = (e2b_agent_day){.day_ms = day, .usage = {.have_cost = true, .cost_usd = 0.3}};
    double a = -1, s = -1;
    CHECK(agent_text_box_cost_today(&st, &sb, &cfg, now, &a, &s));
    CHECK(a == 0.3); /* today's, not the 9 of all time */
    double want = (double)(now - midnight) * 0.000014;
    CHECK(s > want - 1e-9 && s < want + 1e-9); /* since midnight, not since it started */
    st.today.partial = true; /* a session of yesterday was busy today: not whole */
    CHECK(!agent_text_box_cost_today(&st, &sb, &cfg, now, &a, &s));
    st.today = (e2b_agent_day){.day_ms = day - 86400000, .usage = {.have_cost = true, .cost_usd = 2}};
    CHECK(agent_text_box_cost_today(&st, &sb, &cfg, now, &a, &s)); /* yesterday's figure */
    CHECK(a == 0);                                                  /* nothing spent today */
    st.total.have_cost = false; /* the server tells no cost at all (v2): unknown */
    CHECK(!agent_text_box_cost_today(&st, &sb, &cfg, now, &a, &s));
}

int main(void)
{
    RUN(test_cells);
    RUN(test_fit);
    RUN(test_events);
    RUN(test_format);
    RUN(test_cost_today);
    return harness_finish();
}
