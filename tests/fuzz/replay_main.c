/* The replay driver: runs LLVMFuzzerTestOneInput over files without libFuzzer, so that the
 * ordinary ASan build (make check) replays the seed corpus and every saved crash.
 *
 *   replay_<target> FILE|DIR...
 *
 * Names each file on stderr before feeding it (the last name in the log is the culprit when
 * an input crashes), and prints "replayed N inputs" at the end. Exits 2 on an unreadable
 * path; a failing input aborts (FUZZ_CHECK) or is caught by the sanitizers. */
#include "tests/fuzz/fuzz_common.h"

#include <dirent.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

static int read_file(const char *path, uint8_t **out, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    uint8_t *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n == cap) {
            cap = cap ? cap * 2 : 4096;
            uint8_t *g = realloc(buf, cap);
            if (!g) {
                free(buf);
                fclose(f);
                return -1;
            }
            buf = g;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return -1;
    }
    *out = buf;
    *len = n;
    return 0;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Replays one file, or every regular file of a directory (sorted, not recursive, dot files
 * skipped). Returns the number replayed, or -1. */
static long replay_path(const char *path)
{
    struct stat st;
    if (stat(path, &st) < 0) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        uint8_t *buf;
        size_t len;
        if (read_file(path, &buf, &len) < 0) {
            fprintf(stderr, "replay: cannot read %s\n", path);
            return -1;
        }
        fprintf(stderr, "replay: %s (%zu bytes)\n", path, len);
        /* An exact-size copy so that ASan sees a read past the end of the input. */
        uint8_t *exact = malloc(len ? len : 1);
        if (!exact)
            abort();
        memcpy(exact, buf, len);
        free(buf);
        LLVMFuzzerTestOneInput(exact, len);
        free(exact);
        return 1;
    }
    DIR *d = opendir(path);
    if (!d) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        return -1;
    }
    char **names = NULL;
    size_t count = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char **g = realloc(names, (count + 1) * sizeof *names);
        if (!g)
            abort();
        names = g;
        size_t sz = strlen(path) + strlen(e->d_name) + 2;
        names[count] = malloc(sz);
        if (!names[count])
            abort();
        snprintf(names[count], sz, "%s/%s", path, e->d_name);
        count++;
    }
    closedir(d);
    qsort(names, count, sizeof *names, compare_names);
    long total = 0;
    for (size_t i = 0; i < count; i++) {
        long r = total >= 0 ? replay_path(names[i]) : 0;
        total = r < 0 ? -1 : total + r;
        free(names[i]);
    }
    free(names);
    return total;
}

int main(int argc, char **argv)
{
    long total = 0;
    for (int i = 1; i < argc; i++) {
        long r = replay_path(argv[i]);
        if (r < 0)
            return 2;
        total += r;
    }
    printf("replayed %ld inputs\n", total);
    return 0;
}
