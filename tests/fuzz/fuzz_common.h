/* Shared by every fuzz target (tests/fuzz/fuzz_*.c).
 *
 * Each target defines LLVMFuzzerTestOneInput. It is linked either with libFuzzer (clang,
 * tests/fuzz/fuzz.mk, run by tests/fuzz/run) or with tests/fuzz/replay_main.c (the ASan build
 * of make check, which feeds every saved corpus and regression input through it).
 *
 * FUZZ_CHECK states an invariant: a violation prints what broke and aborts, so that libFuzzer
 * saves the input and the replay test fails. Invariants are what let fuzzing find logic bugs,
 * not only memory errors. */
#ifndef E2B_FUZZ_COMMON_H
#define E2B_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond)                                                                   \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "%s:%d: invariant broken: %s\n", __FILE__, __LINE__, #cond);  \
            abort();                                                                       \
        }                                                                                  \
    } while (0)

/* An offset in [0, size] derived from the data, to split an input for incremental parsers
 * in a way the fuzzer can steer (FNV-1a of the bytes). */
static inline size_t fuzz_split_offset(const uint8_t *data, size_t size)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < size; i++)
        h = (h ^ data[i]) * 16777619u;
    return size ? h % (size + 1) : 0;
}

/* A growing byte log used to compare what two runs of a decoder delivered. */
typedef struct {
    uint8_t *p;
    size_t n, cap;
} fuzz_log;

static inline void fuzz_log_put(fuzz_log *l, const void *bytes, size_t n)
{
    if (l->n + n > l->cap) {
        size_t cap = l->cap ? l->cap : 256;
        while (cap < l->n + n)
            cap *= 2;
        uint8_t *g = realloc(l->p, cap);
        if (!g)
            abort();
        l->p = g;
        l->cap = cap;
    }
    for (size_t i = 0; i < n; i++)
        l->p[l->n + i] = ((const uint8_t *)bytes)[i];
    l->n += n;
}

static inline void fuzz_log_free(fuzz_log *l)
{
    free(l->p);
    l->p = NULL;
    l->n = l->cap = 0;
}

static inline int fuzz_log_equal(const fuzz_log *a, const fuzz_log *b)
{
    if (a->n != b->n)
        return 0;
    for (size_t i = 0; i < a->n; i++)
        if (a->p[i] != b->p[i])
            return 0;
    return 1;
}

#endif
