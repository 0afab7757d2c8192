/* core/util/overlap.h: the suffix/prefix overlap agrees with the obvious definition on
 * many small strings, and stays linear on input built to make a naive search quadratic. */
#include "core/util/overlap.h"
#include "tests/lib/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t naive(const char *a, size_t alen, const char *b, size_t blen)
{
    for (size_t k = alen < blen ? alen : blen; k > 0; k--)
        if (memcmp(a + alen - k, b, k) == 0)
            return k;
    return 0;
}

static void test_small_cases(void)
{
    CHECK_INT_EQ(e2b_overlap_suffix_prefix("", 0, "", 0), 0);
    CHECK_INT_EQ(e2b_overlap_suffix_prefix("abc", 3, "", 0), 0);
    CHECK_INT_EQ(e2b_overlap_suffix_prefix("", 0, "abc", 3), 0);
    CHECK_INT_EQ(e2b_overlap_suffix_prefix("hello wor", 9, "world", 5), 3);
    CHECK_INT_EQ(e2b_overlap_suffix_prefix("abc", 3, "abc", 3), 3);
    CHECK_INT_EQ(e2b_overlap_suffix_prefix("xabcabc", 7, "abcabcd", 7), 6);
    CHECK_INT_EQ(e2b_overlap_suffix_prefix("aaaa", 4, "aa", 2), 2);
    CHECK_INT_EQ(e2b_overlap_suffix_prefix("ab", 2, "abab", 4), 2);
    CHECK_INT_EQ(e2b_overlap_suffix_prefix("abcd", 4, "xyz", 3), 0);
}

static void test_agrees_with_definition(void)
{
    /* every pair of strings over {a,b} up to 7 long, and random ones over {a,b,c} */
    char a[64], b[64];
    for (int la = 0; la <= 7; la++)
        for (int lb = 0; lb <= 7; lb++)
            for (unsigned x = 0; x < (1u << la); x++)
                for (unsigned y = 0; y < (1u << lb); y++) {
                    for (int i = 0; i < la; i++)
                        a[i] = (x >> i) & 1 ? 'b' : 'a';
                    for (int i = 0; i < lb; i++)
                        b[i] = (y >> i) & 1 ? 'b' : 'a';
                    size_t want = naive(a, (size_t)la, b, (size_t)lb);
                    size_t got = e2b_overlap_suffix_prefix(a, (size_t)la, b, (size_t)lb);
                    CHECK_MSG(got == want, "%.*s / %.*s: %zu, want %zu", la, a, lb, b, got, want);
                }
    unsigned s = 7;
    for (int n = 0; n < 20000; n++) {
        size_t la = 0, lb = 0;
        s = s * 1103515245u + 12345u;
        la = (s >> 16) % 64;
        s = s * 1103515245u + 12345u;
        lb = (s >> 16) % 64;
        for (size_t i = 0; i < la; i++) {
            s = s * 1103515245u + 12345u;
            a[i] = (char)('a' + (s >> 16) % 3);
        }
        for (size_t i = 0; i < lb; i++) {
            s = s * 1103515245u + 12345u;
            b[i] = (char)('a' + (s >> 16) % 3);
        }
        if (lb > 4 && la > 4 && n % 2) /* plant an overlap */
            memcpy(b, a + la - 4, 4);
        CHECK_INT_EQ(e2b_overlap_suffix_prefix(a, la, b, lb), naive(a, la, b, lb));
    }
}

/* A box's log can be built so that a naive search compares n/2 bytes for each of n/2
 * lengths: with n = 8 MiB that is 16 * 10^12 byte comparisons (hours). Linear: at once. */
static void test_big_adversarial_overlap(void)
{
    size_t n = (size_t)8 << 20;
    char *a = malloc(n), *b = malloc(n);
    CHECK(a && b);
    memset(a, 'a', n);
    memset(b, 'a', n);
    b[n / 2] = 'b'; /* every length above n/2 fails only at that byte */
    CHECK_INT_EQ(e2b_overlap_suffix_prefix(a, n, b, n), n / 2);
    b[n / 2] = 'a';
    CHECK_INT_EQ(e2b_overlap_suffix_prefix(a, n, b, n), n);
    free(a);
    free(b);
}

int main(void)
{
    RUN(test_small_cases);
    RUN(test_agrees_with_definition);
    RUN(test_big_adversarial_overlap);
    return harness_finish();
}
