/* Fuzz target: the parser of what the pull script prints in the box
 * (e2b_pull_script_parse_output in core/git/pull_script.h); the box is untrusted.
 *
 * Invariants: a BUNDLE result has a 40-hex commit and a path, a NOWORK result has none; a
 * failure has a message without control characters. */
#include "core/git/pull_script.h"
#include "tests/fuzz/fuzz_common.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    e2b_pull_script_result r;
    e2b_error *err = e2b_pull_script_parse_output((const char *)data, size, &r);
    if (!err) {
        FUZZ_CHECK(strlen(r.commit) == 40 || r.kind == E2B_PULL_SCRIPT_NOWORK);
        if (r.kind == E2B_PULL_SCRIPT_BUNDLE) {
            FUZZ_CHECK(r.path != NULL && r.path[0] != '\0');
            for (int i = 0; i < 40; i++)
                FUZZ_CHECK((r.commit[i] >= '0' && r.commit[i] <= '9') ||
                           (r.commit[i] >= 'a' && r.commit[i] <= 'f'));
        } else {
            FUZZ_CHECK(r.kind == E2B_PULL_SCRIPT_NOWORK && r.path == NULL);
        }
        free(r.path);
    } else {
        FUZZ_CHECK(e2b_error_sub_of(err) == E2B_SUB_FAILED || e2b_error_sub_of(err) == E2B_SUB_NOMEM);
        FUZZ_CHECK(e2b_error_message(err)[0] != '\0');
        for (const unsigned char *p = (const unsigned char *)e2b_error_message(err); *p; p++)
            FUZZ_CHECK(*p >= 0x20 && *p != 0x7f);
        FUZZ_CHECK(r.path == NULL);
    }
    e2b_error_free(err);
    return 0;
}
