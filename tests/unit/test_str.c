#include "core/util/str.h"
#include "tests/lib/harness.h"

#include <stdlib.h>

static void test_strfmt_formats_and_allocates(void)
{
    char *s = e2b_strfmt("%s-%d", "box", 42);
    CHECK_STR_EQ(s, "box-42");
    free(s);
    /* Longer than any small fixed buffer: the result is allocated to fit. */
    char big[3000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    s = e2b_strfmt("[%s]", big);
    CHECK(s != NULL);
    CHECK_INT_EQ(strlen(s), sizeof big + 1);
    CHECK(s[0] == '[' && s[sizeof big] == ']');
    free(s);
}

int main(void)
{
    RUN(test_strfmt_formats_and_allocates);
    return harness_finish();
}
