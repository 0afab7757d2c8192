/* Fuzz target: the parsers of what the changes script prints in the box
 * (core/git/changes_script.h: e2b_changes_parse_list for the Changes pane, e2b_changes_parse_summary
 * for the kill's look for unpulled work); the box is untrusted.
 *
 * Invariants: an error leaves the result empty and has a message without control
 * characters; a result has a known "against" with a commit to match, at most max_files
 * files, display paths without control characters, summary blobs of 40 hex or none, and
 * commit counts within [-1, E2B_CHANGES_COUNT_MAX]. */
#include "core/git/changes_script.h"
#include "tests/fuzz/fuzz_common.h"

#include <string.h>

enum { MAX_FILES = 16 };

static void check_message(const e2b_error *err)
{
    FUZZ_CHECK(e2b_error_message(err)[0] != '\0');
    for (const unsigned char *p = (const unsigned char *)e2b_error_message(err); *p; p++)
        FUZZ_CHECK(*p >= 0x20 && *p != 0x7f);
}

static void check_against(const char *against, const char *commit)
{
    int empty = strcmp(against, "empty") == 0;
    FUZZ_CHECK(empty || strcmp(against, "base") == 0 || strcmp(against, "head") == 0 ||
               strcmp(against, "pulled") == 0);
    FUZZ_CHECK(strlen(commit) == (empty ? 0 : 40));
}

static int hex40(const char *s)
{
    for (int i = 0; i < 40; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return s[40] == '\0';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *in = (const char *)data;
    e2b_changes_list l;
    e2b_error *err = e2b_changes_parse_list(in, size, MAX_FILES, &l);
    if (err) {
        check_message(err);
        FUZZ_CHECK(l.count == 0 && l.files == NULL);
    } else {
        check_against(l.against, l.commit);
        FUZZ_CHECK(l.count <= MAX_FILES);
        for (size_t i = 0; i < l.count; i++) {
            FUZZ_CHECK(l.files[i].raw[0] != '\0' && strchr("AMDT?", l.files[i].status));
            for (const unsigned char *p = (const unsigned char *)l.files[i].path; *p; p++)
                FUZZ_CHECK(*p >= 0x20 && *p != 0x7f);
        }
    }
    e2b_error_free(err);
    e2b_changes_list_clear(&l);

    e2b_changes_summary s;
    err = e2b_changes_parse_summary(in, size, MAX_FILES, &s);
    if (err) {
        check_message(err);
        FUZZ_CHECK(s.count == 0 && s.files == NULL);
    } else {
        check_against(s.against, s.commit);
        FUZZ_CHECK(s.count <= MAX_FILES);
        FUZZ_CHECK(s.commits >= -1 && s.commits <= E2B_CHANGES_COUNT_MAX);
        for (size_t i = 0; i < s.count; i++) {
            FUZZ_CHECK(s.files[i].raw[0] != '\0' && strchr("AMDT?", s.files[i].status));
            FUZZ_CHECK(s.files[i].blob[0] == '\0' || hex40(s.files[i].blob));
        }
    }
    e2b_error_free(err);
    e2b_changes_summary_clear(&s);
    return 0;
}
