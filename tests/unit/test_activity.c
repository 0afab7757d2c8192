/* A box's recent activity stays bounded and keeps the newest text, in storage allocated once
 * (issue 32): streamed text deltas, whole replacements, many entries and hostile bytes go
 * through the watch's own bookkeeping (watch_apply_event). The text of an entry being
 * streamed stays at the same address chunk after chunk: a chunk reuses the bytes it is kept
 * in rather than allocating a string of its own (the RSS a dashboard open for weeks gains). */
#include "core/agent/agent.h"
#include "core/agent/watch_internal.h"
#include "tests/lib/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static e2b_agent_watch *watch_new(void)
{
    e2b_agent_watch *w = calloc(1, sizeof *w);
    if (w)
        w->st.api = 2;
    return w;
}

static void watch_del(e2b_agent_watch *w)
{
    watch_state_free(w);
    e2b_agent_status_clear(&w->st);
    free(w);
}

static void text_event(e2b_agent_watch *w, const char *key, const char *text, bool whole)
{
    e2b_oc_event ev = {.kind = E2B_OC_EV_TEXT, .type = "session.next.text.delta",
                       .session_id = "ses_1", .key = key, .text = text, .whole = whole};
    watch_apply_event(w, &ev);
}

static const e2b_agent_activity *newest(const e2b_agent_status *st)
{
    return st->nactivity ? &st->activity[st->nactivity - 1] : NULL;
}

static size_t text_bytes(const e2b_agent_status *st)
{
    size_t n = 0;
    for (size_t i = 0; i < st->nactivity; i++)
        n += strlen(st->activity[i].text);
    return n;
}

/* 3,000 deltas into one part: its tail, at one address throughout. */
static void test_stream_one_part(void)
{
    e2b_agent_watch *w = watch_new();
    CHECK(w);
    char chunk[64], expect[64];
    text_event(w, "prt_1", "start ", false);
    const char *at = newest(&w->st)->text;
    bool moved = false;
    for (int i = 0; i < 3000; i++) {
        snprintf(chunk, sizeof chunk, "chunk %04d of the stream; ", i);
        text_event(w, "prt_1", chunk, false);
        moved |= newest(&w->st)->text != at;
    }
    const e2b_agent_activity *a = newest(&w->st);
    size_t len = strlen(a->text);
    CHECK_INT_EQ(w->st.nactivity, 1);
    CHECK_MSG(!moved, "a streamed part's text moved to new storage (a chunk allocated)");
    CHECK(len <= E2B_AGENT_TAIL_MAX && len > E2B_AGENT_TAIL_MAX - 64);
    snprintf(expect, sizeof expect, "chunk %04d of the stream; ", 2999);
    CHECK(!strcmp(a->text + len - strlen(expect), expect)); /* the newest text is kept */
    CHECK(strstr(a->text, "chunk 2900 of") && !strstr(a->text, "start "));
    /* whole: replaces it */
    text_event(w, "prt_1", "the whole text", true);
    CHECK_STR_EQ(newest(&w->st)->text, "the whole text");
    watch_del(w);
}

/* 500 parts of 5 KB: at most E2B_AGENT_ACTIVITY_MAX entries and E2B_AGENT_ACTIVITY_BYTES of
 * text, the newest kept whole (its tail), the oldest gone. */
static void test_many_parts_bounded(void)
{
    e2b_agent_watch *w = watch_new();
    CHECK(w);
    char key[32], text[5001];
    const e2b_agent_activity *block = NULL;
    bool moved = false;
    for (int i = 0; i < 500; i++) {
        snprintf(key, sizeof key, "prt_%d", i);
        memset(text, 'a' + i % 26, sizeof text - 1);
        text[sizeof text - 1] = 0;
        snprintf(text + 4980, 21, "|end of part %03d", i);
        text_event(w, key, text, i % 2 == 0);
        CHECK(w->st.nactivity <= E2B_AGENT_ACTIVITY_MAX);
        CHECK(text_bytes(&w->st) <= E2B_AGENT_ACTIVITY_BYTES);
        if (i == 0)
            block = w->st.activity;
        moved |= w->st.activity != block;
    }
    CHECK_MSG(!moved, "the entries' slots were allocated again");
    const e2b_agent_activity *a = newest(&w->st);
    CHECK_STR_EQ(a->key, "prt_499");
    CHECK_INT_EQ(strlen(a->text), E2B_AGENT_TAIL_MAX);
    CHECK(strstr(a->text, "|end of part 499"));
    CHECK(w->st.nactivity >= E2B_AGENT_ACTIVITY_BYTES / E2B_AGENT_TAIL_MAX - 1);
    CHECK_STR_EQ(w->st.activity[0].key, "prt_484"); /* the oldest kept: 16 parts of 4 KiB */
    for (size_t i = 0; i < w->st.nactivity; i++)
        CHECK(strlen(w->st.activity[i].text) == E2B_AGENT_TAIL_MAX);
    watch_del(w);
}

/* Hostile bytes are sanitised, and a tail cut begins at a character's first byte. */
static void test_hostile_tail(void)
{
    e2b_agent_watch *w = watch_new();
    CHECK(w);
    text_event(w, "prt_1", "a\x1b[31mred\x80\xe2\x80\xaeX\n", false);
    CHECK_STR_EQ(newest(&w->st)->text, "a?[31mred\xef\xbf\xbd?X\n");
    /* 2,000 three-byte characters and one byte more: the kept tail is whole characters */
    char big[6002];
    for (int i = 0; i < 2000; i++)
        memcpy(big + 3 * i, "\xe2\x82\xac", 3); /* € */
    big[6000] = 'z';
    big[6001] = 0;
    text_event(w, "prt_2", big, false);
    const char *t = newest(&w->st)->text;
    size_t len = strlen(t);
    CHECK(len <= E2B_AGENT_TAIL_MAX && len >= E2B_AGENT_TAIL_MAX - 3);
    CHECK((unsigned char)t[0] == 0xe2 && t[len - 1] == 'z');
    /* a delta then appends to it, still whole characters */
    text_event(w, "prt_2", "\xe2\x82\xac!", false);
    t = newest(&w->st)->text;
    len = strlen(t);
    CHECK((unsigned char)t[0] == 0xe2 && !strcmp(t + len - 4, "\xe2\x82\xac!"));
    /* the first part is untouched by the second's moves */
    CHECK_STR_EQ(w->st.activity[0].text, "a?[31mred\xef\xbf\xbd?X\n");
    /* a copy of the status is deep and equal */
    e2b_agent_status copy;
    CHECK(e2b_agent_status_copy(&copy, &w->st) == 0);
    CHECK(copy.nactivity == 2 && copy.activity[1].text != w->st.activity[1].text);
    CHECK_STR_EQ(copy.activity[1].text, w->st.activity[1].text);
    CHECK_STR_EQ(copy.activity[0].key, "prt_1");
    e2b_agent_status_clear(&copy);
    watch_del(w);
}

int main(void)
{
    RUN(test_stream_one_part);
    RUN(test_many_parts_bounded);
    RUN(test_hostile_tail);
    return harness_finish();
}
