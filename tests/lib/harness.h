/* A tiny unit-test harness. Each test program prints one line per case:
 *   PASS <name>            or            FAIL <name>: <file>:<line>: <what>
 * tests/run counts these lines; the program exits non-zero when any case failed.
 *
 *   static void test_something(void) { CHECK(1 + 1 == 2); CHECK_STR_EQ(a, "x"); }
 *   int main(void) { RUN(test_something); return harness_finish(); }
 *
 * A failed CHECK ends the current case (it returns from the test function). */
#ifndef E2B_TEST_HARNESS_H
#define E2B_TEST_HARNESS_H

#include <stddef.h>
#include <string.h>

/* Records a failure of the running case; returns 0 so CHECK can return. */
int harness_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void harness_run(const char *name, void (*fn)(void));
/* Prints "DONE <n> cases" (tests/run fails a program that never gets here); returns the
 * process exit status (0 when all passed). */
int harness_finish(void);

/* True in tests/run's valgrind pass (E2B_TUI_TEST_VALGRIND=1): a case whose size only
 * matters for a property the ASan pass measures (memory stays bounded for a large input)
 * may run the same code on a smaller input there. */
int harness_valgrind(void);

#define RUN(fn) harness_run(#fn, fn)

#define CHECK(cond)                                                                           \
    do {                                                                                      \
        if (!(cond)) {                                                                        \
            harness_fail(__FILE__, __LINE__, "%s", #cond);                                    \
            return;                                                                           \
        }                                                                                     \
    } while (0)

#define CHECK_MSG(cond, ...)                                                                  \
    do {                                                                                      \
        if (!(cond)) {                                                                        \
            harness_fail(__FILE__, __LINE__, __VA_ARGS__);                                    \
            return;                                                                           \
        }                                                                                     \
    } while (0)

#define CHECK_INT_EQ(a, b)                                                                    \
    do {                                                                                      \
        long long check_a_ = (long long)(a), check_b_ = (long long)(b);                       \
        if (check_a_ != check_b_) {                                                           \
            harness_fail(__FILE__, __LINE__, "%s == %s (%lld != %lld)", #a, #b, check_a_,     \
                         check_b_);                                                           \
            return;                                                                           \
        }                                                                                     \
    } while (0)

#define CHECK_STR_EQ(a, b)                                                                    \
    do {                                                                                      \
        const char *check_a_ = (a), *check_b_ = (b);                                          \
        if (!check_a_ || !check_b_ || strcmp(check_a_, check_b_) != 0) {                      \
            harness_fail(__FILE__, __LINE__, "%s == %s (\"%s\" != \"%s\")", #a, #b,           \
                         check_a_ ? check_a_ : "(null)", check_b_ ? check_b_ : "(null)");     \
            return;                                                                           \
        }                                                                                     \
    } while (0)

#endif
