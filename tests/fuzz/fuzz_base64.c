/* Fuzz target: base64 (core/util/base64.h), used for every bytes field of envd's JSON.
 *
 * Invariants: decoding the input either fails or gives bytes that encode back to the input
 * (modulo optional padding and non-canonical trailing bits, so the check is decode(encode(x))
 * = x on the decoded x); and the input as bytes round-trips through encode and decode. */
#include "core/util/base64.h"
#include "tests/fuzz/fuzz_common.h"

#include <string.h>

static void round_trip(const uint8_t *bytes, size_t len)
{
    char *text = e2b_base64_encode(bytes, len);
    FUZZ_CHECK(text != NULL);
    FUZZ_CHECK(strlen(text) == (len + 2) / 3 * 4);
    uint8_t *back;
    size_t back_len;
    FUZZ_CHECK(e2b_base64_decode(text, strlen(text), &back, &back_len) == 0);
    FUZZ_CHECK(back_len == len && memcmp(back, bytes, len) == 0);
    free(back);
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *out;
    size_t out_len;
    if (e2b_base64_decode((const char *)data, size, &out, &out_len) == 0) {
        FUZZ_CHECK(out != NULL);
        FUZZ_CHECK(out_len <= size / 4 * 3 + 2);
        round_trip(out, out_len);
        free(out);
    }
    round_trip(data, size);
    return 0;
}
