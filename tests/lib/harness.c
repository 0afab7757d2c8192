#include "tests/lib/harness.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int cases_failed;
static int cases_run;
static int current_failed;
static const char *current_name;

int harness_fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    current_failed = 1;
    printf("FAIL %s: %s:%d: ", current_name ? current_name : "?", file, line);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n");
    fflush(stdout);
    return 0;
}

void harness_run(const char *name, void (*fn)(void))
{
    current_name = name;
    current_failed = 0;
    cases_run++;
    fn();
    if (current_failed)
        cases_failed++;
    else
        printf("PASS %s\n", name);
    fflush(stdout);
    current_name = NULL;
}

int harness_valgrind(void)
{
    const char *v = getenv("E2B_TUI_TEST_VALGRIND");
    return v && strcmp(v, "1") == 0;
}

int harness_finish(void)
{
    /* The sentinel tests/run looks for: without it the program stopped before its end. */
    printf("DONE %d cases\n", cases_run);
    fflush(stdout);
    return cases_failed ? 1 : 0;
}
