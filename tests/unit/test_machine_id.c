/* The machine id (core/util/machine_id.h): made on first use in a 0600 file of a 0700
 * state dir, the same on every later read, a file that holds no id replaced, and two ids
 * from two state dirs differ. */
#include "core/util/machine_id.h"
#include "tests/lib/harness.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[200];

static void test_made_once_private_and_stable(void)
{
    char dir[320], path[360], a[E2B_MACHINE_ID_LEN + 1], b[E2B_MACHINE_ID_LEN + 1];
    snprintf(dir, sizeof dir, "%s/state/e2b-tui", root);
    snprintf(path, sizeof path, "%s/machine-id", dir);
    e2b_error *err = e2b_machine_id(dir, a);
    CHECK(err == NULL);
    e2b_error_free(err);
    CHECK(e2b_machine_id_valid(a, strlen(a)));
    struct stat st;
    CHECK(stat(path, &st) == 0);
    CHECK_INT_EQ(st.st_mode & 0777, 0600);
    CHECK(stat(dir, &st) == 0);
    CHECK_INT_EQ(st.st_mode & 0777, 0700);
    CHECK(e2b_machine_id(dir, b) == NULL);
    CHECK_STR_EQ(a, b);
    /* A file that holds no id is replaced by a new one. */
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    fputs("not-an-id\n", f);
    fclose(f);
    CHECK(e2b_machine_id(dir, b) == NULL);
    CHECK(e2b_machine_id_valid(b, strlen(b)));
    char other_dir[320], c[E2B_MACHINE_ID_LEN + 1];
    snprintf(other_dir, sizeof other_dir, "%s/other", root);
    CHECK(e2b_machine_id(other_dir, c) == NULL);
    CHECK(strcmp(b, c) != 0);
}

static void test_valid(void)
{
    CHECK(e2b_machine_id_valid("0123456789ab", 12));
    CHECK(!e2b_machine_id_valid("0123456789AB", 12));
    CHECK(!e2b_machine_id_valid("0123456789a", 11));
    CHECK(!e2b_machine_id_valid("0123456789ag", 12));
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(root, sizeof root, "%s/e2b-machine-id-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(root))
        return 1;
    RUN(test_made_once_private_and_stable);
    RUN(test_valid);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0) {
    }
    return harness_finish();
}
