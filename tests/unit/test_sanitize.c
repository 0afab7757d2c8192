#include "core/util/sanitize.h"
#include "tests/lib/harness.h"

#include <stdlib.h>

static char *san(const char *s, unsigned flags)
{
    return e2b_sanitize_display(s, strlen(s), flags);
}

static void test_plain_text_unchanged(void)
{
    char *o = san("feat-x box 42", 0);
    CHECK_STR_EQ(o, "feat-x box 42");
    free(o);
}

static void test_escape_sequences_neutralised(void)
{
    /* A title-setting OSC and a CSI clear-screen must not survive. */
    char *o = san("evil\x1b]0;pwned\x07name\x1b[2J", 0);
    CHECK(strchr(o, 0x1b) == NULL);
    CHECK(strchr(o, 0x07) == NULL);
    CHECK_STR_EQ(o, "evil?]0;pwned?name?[2J");
    free(o);
    /* DEL (0x7F) is a control too: a terminal may act on it */
    o = san("a\x7f" "b", 0);
    CHECK_STR_EQ(o, "a?b");
    free(o);
}

static void test_c1_controls_replaced(void)
{
    /* U+009B is the 8-bit CSI: encoded in UTF-8 as C2 9B. */
    char *o = san("a\xc2\x9b" "31mb", 0);
    CHECK_STR_EQ(o, "a?31mb");
    free(o);
}

static void test_utf8_kept_and_invalid_replaced(void)
{
    char *o = san("caf\xc3\xa9 \xe6\x97\xa5\xff", 0);
    CHECK_STR_EQ(o, "caf\xc3\xa9 \xe6\x97\xa5\xef\xbf\xbd");
    free(o);
    /* An overlong encoding of '/' and a lone surrogate are invalid. */
    o = san("\xc0\xaf|\xed\xa0\x80", 0);
    CHECK_STR_EQ(o, "\xef\xbf\xbd\xef\xbf\xbd|\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
    free(o);
}

static void test_newlines_and_tabs(void)
{
    char *o = san("a\nb\tc\r", 0);
    CHECK_STR_EQ(o, "a b c?");
    free(o);
    o = san("a\nb", E2B_SANITIZE_KEEP_NEWLINES);
    CHECK_STR_EQ(o, "a\nb");
    free(o);
}

static void test_bidi_override_replaced(void)
{
    char *o = san("x\xe2\x80\xaey", 0); /* U+202E RIGHT-TO-LEFT OVERRIDE */
    CHECK_STR_EQ(o, "x?y");
    free(o);
}

static void test_embedded_nul_and_truncated_sequence(void)
{
    char *o = e2b_sanitize_display("a\0b\xe6\x97", 5, 0);
    CHECK_STR_EQ(o, "a?b\xef\xbf\xbd\xef\xbf\xbd");
    free(o);
}

int main(void)
{
    RUN(test_plain_text_unchanged);
    RUN(test_escape_sequences_neutralised);
    RUN(test_c1_controls_replaced);
    RUN(test_utf8_kept_and_invalid_replaced);
    RUN(test_newlines_and_tabs);
    RUN(test_bidi_override_replaced);
    RUN(test_embedded_nul_and_truncated_sequence);
    return harness_finish();
}
