#include "core/util/log.h"
#include "tests/lib/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[64];

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    char *buf = calloc(1, 65536);
    if (f) {
        size_t n = fread(buf, 1, 65535, f);
        buf[n] = '\0';
        fclose(f);
    }
    return buf;
}

static void test_creates_private_dir_and_file(void)
{
    char path[160], dir[128];
    struct stat st;
    e2b_error *err;
    strcpy(root, "/tmp/e2b-log-test.XXXXXX");
    CHECK(mkdtemp(root) != NULL);
    snprintf(dir, sizeof dir, "%s/state/e2b-tui", root);
    snprintf(path, sizeof path, "%s/e2b-tui.log", dir);
    umask(022);
    err = e2b_log_open(path);
    CHECK_MSG(err == NULL, "%s", e2b_error_message(err));
    CHECK(stat(dir, &st) == 0);
    CHECK_INT_EQ(st.st_mode & 0777, 0700);
    CHECK(stat(path, &st) == 0);
    CHECK_INT_EQ(st.st_mode & 0777, 0600);
    CHECK(e2b_log_fd() >= 0);
    e2b_log_close();
    CHECK_INT_EQ(e2b_log_fd(), -1);
}

static void test_existing_file_made_private(void)
{
    char path[160];
    struct stat st;
    snprintf(path, sizeof path, "%s/loose.log", root);
    FILE *f = fopen(path, "w");
    fclose(f);
    chmod(path, 0644);
    CHECK(e2b_log_open(path) == NULL);
    CHECK(stat(path, &st) == 0);
    CHECK_INT_EQ(st.st_mode & 0777, 0600);
    e2b_log_close();
}

static void test_request_lines_have_no_query_or_controls(void)
{
    char path[160];
    char *text;
    snprintf(path, sizeof path, "%s/state/e2b-tui/e2b-tui.log", root);
    CHECK(e2b_log_open(path) == NULL);
    e2b_log_request("GET", "/v2/sandboxes?metadata=token%3Dsecret&limit=100", 200, 42, "tr-1",
                    NULL);
    e2b_log_request("POST", "/sandboxes/iabc/pause", 503, 7, NULL, "pausing box x: busy\n\x1b[2J");
    e2b_logf("free %s", "text");
    e2b_log_close();
    e2b_log_request("GET", "/after-close", 200, 1, NULL, NULL); /* ignored */
    text = slurp(path);
    CHECK(strstr(text, "GET /v2/sandboxes 200 42ms trace=tr-1\n") != NULL);
    CHECK(strstr(text, "secret") == NULL);
    CHECK(strstr(text, "limit") == NULL);
    CHECK(strstr(text, "POST /sandboxes/iabc/pause 503 7ms error: pausing box x: busy??[2J\n"));
    CHECK(strstr(text, "Z free text\n") != NULL);
    CHECK(strstr(text, "after-close") == NULL);
    CHECK(strchr(text, 0x1b) == NULL);
    free(text);
}

static void cleanup(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0)
        fprintf(stderr, "cleanup failed\n");
}

int main(void)
{
    RUN(test_creates_private_dir_and_file);
    RUN(test_existing_file_made_private);
    RUN(test_request_lines_have_no_query_or_controls);
    cleanup();
    return harness_finish();
}
