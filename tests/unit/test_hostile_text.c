/* Text from the network is shown clean: hostile strings (ESC/CSI/OSC sequences, C1 controls
 * as UTF-8 and as raw bytes, bidi overrides and isolates) in an API error message and in
 * envd's end-event status reach the caller only through the one sanitiser. */
#include "core/e2b/process_event.h"
#include "core/util/error.h"
#include "core/util/sanitize.h"
#include "tests/lib/harness.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* The hostile texts, as JSON string contents (escapes as a server would send them). */
static const char *const json_hostile[] = {
    "red \\u001b[31mALERT\\u001b[0m",           /* CSI */
    "title \\u001b]0;pwned\\u0007",              /* OSC, BEL-terminated */
    "clip \\u001b]52;c;Zm9v\\u001b\\\\",         /* OSC 52, ST-terminated */
    "c1 \\u009b2J \\u0085 \\u009d0;x\\u009c",    /* C1 CSI, NEL, OSC, ST as UTF-8 */
    "bidi \\u202a\\u202b\\u202c\\u202d\\u202e",  /* embeddings and overrides */
    "iso \\u2066\\u2067\\u2068\\u2069",          /* isolates */
    "nl\\nand\\rcr \\u007f del",
};

/* The same kinds as raw bytes (what a detail text or a non-JSON body may carry). */
static const char *const raw_hostile[] = {
    "raw \x1b[2J\x1b]0;t\x07",
    "raw c1 \x9b" "2J \x85 \x9d",           /* C1 as single bytes: not UTF-8 at all */
    "raw utf8 c1 \xc2\x9b" "2J",
    "raw bidi \xe2\x80\xae" "evil \xe2\x81\xa6" "x",
};

/* Clean: valid UTF-8 without C0/C1 controls, DEL or bidi controls (one line). */
static int clean(const char *s, char *why, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        uint32_t c;
        int len;
        if (*p < 0x80) {
            c = *p;
            len = 1;
        } else if ((*p & 0xE0) == 0xC0) {
            c = *p & 0x1F;
            len = 2;
        } else if ((*p & 0xF0) == 0xE0) {
            c = *p & 0x0F;
            len = 3;
        } else if ((*p & 0xF8) == 0xF0) {
            c = *p & 0x07;
            len = 4;
        } else {
            snprintf(why, n, "byte 0x%02x is not UTF-8", *p);
            return 0;
        }
        for (int i = 1; i < len; i++) {
            if ((p[i] & 0xC0) != 0x80) {
                snprintf(why, n, "truncated UTF-8 sequence");
                return 0;
            }
            c = (c << 6) | (p[i] & 0x3F);
        }
        if (c < 0x20 || c == 0x7F || (c >= 0x80 && c <= 0x9F) || (c >= 0x202A && c <= 0x202E) ||
            (c >= 0x2066 && c <= 0x2069) || c == 0x200E || c == 0x200F || c == 0x061C) {
            snprintf(why, n, "U+%04X got through", (unsigned)c);
            return 0;
        }
        p += len;
    }
    return 1;
}

static void test_api_error_messages_are_clean(void)
{
    char why[64];
    for (size_t i = 0; i < sizeof json_hostile / sizeof *json_hostile; i++) {
        char body[512];
        int n = snprintf(body, sizeof body, "{\"code\":500,\"message\":\"%s\"}", json_hostile[i]);
        e2b_error *e = e2b_error_from_http(500, body, (size_t)n, NULL, NULL);
        CHECK(e != NULL);
        const char *m = e2b_error_message(e);
        int ok = clean(m, why, sizeof why);
        e2b_error_free(e);
        CHECK_MSG(ok, "message %zu: %s", i, why);
    }
}

static void test_error_details_and_actions_are_clean(void)
{
    char why[64];
    for (size_t i = 0; i < sizeof raw_hostile / sizeof *raw_hostile; i++) {
        e2b_error *e = e2b_error_new(E2B_ERR_REMOTE, "%s", raw_hostile[i]);
        CHECK(e != NULL);
        e2b_error_set_action(e, "%s", raw_hostile[(i + 1) % 4]);
        int ok = clean(e2b_error_message(e), why, sizeof why);
        e2b_error_free(e);
        CHECK_MSG(ok, "detail %zu: %s", i, why);
    }
}

static void test_end_event_status_is_clean(void)
{
    char why[64];
    for (size_t i = 0; i < sizeof json_hostile / sizeof *json_hostile; i++) {
        char json[512];
        e2b_process_event ev;
        int n = snprintf(json, sizeof json,
                         "{\"event\":{\"end\":{\"exitCode\":-1,\"exited\":false,"
                         "\"status\":\"%s\",\"error\":\"%s\"}}}",
                         json_hostile[i], json_hostile[i]);
        e2b_error *err = e2b_process_event_parse((const uint8_t *)json, (size_t)n, &ev);
        CHECK_MSG(!err, "event %zu: %s", i, err ? e2b_error_message(err) : "");
        CHECK_INT_EQ(ev.type, E2B_PROC_END);
        int ok = ev.status && clean(ev.status, why, sizeof why);
        int ok_err = ev.error && clean(ev.error, why, sizeof why);
        e2b_process_event_clear(&ev);
        CHECK_MSG(ok && ok_err, "status %zu: %s", i, why);
    }
}

static void test_end_event_status_is_bounded(void)
{
    size_t n = 100000;
    char *json = malloc(n + 100);
    CHECK(json != NULL);
    int at = snprintf(json, n + 100, "{\"event\":{\"end\":{\"status\":\"");
    memset(json + at, 'x', n);
    snprintf(json + at + n, 100, "\"}}}");
    e2b_process_event ev;
    e2b_error *err = e2b_process_event_parse((const uint8_t *)json, strlen(json), &ev);
    free(json);
    CHECK(!err);
    size_t len = ev.status ? strlen(ev.status) : 0;
    e2b_process_event_clear(&ev);
    CHECK_MSG(len > 0 && len <= 256, "status of %zu bytes", len);
}

/* The sanitiser itself keeps what is readable. */
static void test_readable_text_survives(void)
{
    const char *text = "signal: killed — ünïcode ok";
    char *s = e2b_sanitize_display(text, strlen(text), 0);
    CHECK(s != NULL);
    int same = strcmp(s, text) == 0;
    free(s);
    CHECK(same);
}

int main(void)
{
    RUN(test_api_error_messages_are_clean);
    RUN(test_error_details_and_actions_are_clean);
    RUN(test_end_event_status_is_clean);
    RUN(test_end_event_status_is_bounded);
    RUN(test_readable_text_survives);
    return harness_finish();
}
