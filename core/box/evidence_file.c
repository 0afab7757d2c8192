/* Saved evidence of group members (evidence_file.h). */
#include "core/box/evidence_file.h"

#include "core/e2b/json_read.h"
#include "core/git/gitwork.h"
#include "core/util/fs.h"
#include "core/util/sanitize.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { EVIDENCE_FILE_MAX = 64 * 1024 };

static const char *const RESULTS[] = {
    [E2B_TEST_NONE] = "none", [E2B_TEST_PASS] = "pass", [E2B_TEST_FAIL] = "fail",
    [E2B_TEST_ERROR] = "error"};

/* <records_dir>/.evidence into dir; -1 when the name is no box name or a path is too long. */
static int evidence_dir(const char *records_dir, const char *name, char *dir, size_t n)
{
    if (!records_dir || !name || !e2b_gitwork_box_name_valid(name))
        return -1;
    int k = snprintf(dir, n, "%s/.evidence", records_dir);
    return k < 0 || (size_t)k >= n ? -1 : 0;
}

e2b_error *e2b_box_evidence_save(const char *records_dir, const char *name,
                                 const char *sandbox_id, const e2b_evidence *ev,
                                 int64_t taken_ms)
{
    char dir[4200], file[200];
    if (evidence_dir(records_dir, name, dir, sizeof dir) < 0)
        return e2b_error_new(E2B_ERR_INVALID, "no evidence file for box '%s'", name ? name : "");
    if (e2b_mkdir_private(dir) < 0)
        return e2b_error_new(E2B_ERR_IO, "cannot use %s: %s", dir, strerror(errno));
    json_t *j = json_pack("{si s:s s:I s:b s:I s:I s:I s:s s:i s:I s:s s:s}", "version", 1,
                          "sandbox_id", sandbox_id ? sandbox_id : "", "taken_ms",
                          (json_int_t)taken_ms, "diff_known", ev->diff_known, "files",
                          (json_int_t)ev->files, "added", (json_int_t)ev->added, "deleted",
                          (json_int_t)ev->deleted, "test",
                          RESULTS[ev->test <= E2B_TEST_ERROR ? ev->test : E2B_TEST_NONE],
                          "exit_code", ev->exit_code, "test_ms", (json_int_t)ev->test_ms,
                          "tail", ev->tail, "why", ev->why);
    char *text = j ? json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS) : NULL;
    json_decref(j);
    if (!text)
        return e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
    snprintf(file, sizeof file, "%s.json", name);
    int rc = e2b_replace_file(dir, file, text, strlen(text), 0600, 0);
    int e = errno;
    free(text);
    if (rc < 0)
        return e2b_error_new(E2B_ERR_IO, "cannot write %s/%s: %s", dir, file, strerror(e));
    return NULL;
}

/* A string field, sanitised (newlines kept for the tail), into buf. */
static void text_field(const json_t *j, const char *key, char *buf, size_t n)
{
    const char *s = e2b_json_text(j, key, "");
    char *safe = e2b_sanitize_display(s, strlen(s), E2B_SANITIZE_KEEP_NEWLINES);
    snprintf(buf, n, "%s", safe ? safe : "");
    free(safe);
}

int e2b_box_evidence_load(const char *records_dir, const char *name, const char *sandbox_id,
                          e2b_evidence *ev, int64_t *taken_ms)
{
    char dir[4200], path[4400];
    if (evidence_dir(records_dir, name, dir, sizeof dir) < 0 || !sandbox_id)
        return 0;
    snprintf(path, sizeof path, "%s/%s.json", dir, name);
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return 0;
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > EVIDENCE_FILE_MAX) {
        close(fd);
        return 0;
    }
    json_error_t jerr;
    json_t *j = json_loadfd(fd, 0, &jerr);
    close(fd);
    int ok = 0;
    int64_t files = 0, added = 0, deleted = 0, ms = 0, at = 0;
    int code = -1, known = 0;
    e2b_error *err = NULL;
    if (j && json_is_object(j) && !strcmp(e2b_json_text(j, "sandbox_id", ""), sandbox_id) &&
        !e2b_json_i64(j, "evidence", "taken_ms", 0, &at, &err) &&
        !e2b_json_bool(j, "evidence", "diff_known", &known, &err) &&
        !e2b_json_i64(j, "evidence", "files", 0, &files, &err) &&
        !e2b_json_i64(j, "evidence", "added", 0, &added, &err) &&
        !e2b_json_i64(j, "evidence", "deleted", 0, &deleted, &err) &&
        !e2b_json_int(j, "evidence", "exit_code", -1, &code, &err) &&
        !e2b_json_i64(j, "evidence", "test_ms", 0, &ms, &err) && files >= 0 && added >= 0 &&
        deleted >= 0 && ms >= 0 && at > 0) {
        memset(ev, 0, sizeof *ev);
        const char *t = e2b_json_text(j, "test", "none");
        ev->test = E2B_TEST_NONE;
        for (int k = E2B_TEST_PASS; k <= E2B_TEST_ERROR; k++)
            if (!strcmp(t, RESULTS[k]))
                ev->test = (e2b_test_result)k;
        ev->diff_known = known;
        ev->files = (long)files, ev->added = (long)added, ev->deleted = (long)deleted;
        ev->exit_code = code >= -1 && code <= 255 ? code : -1;
        ev->test_ms = (long)ms;
        text_field(j, "tail", ev->tail, sizeof ev->tail);
        text_field(j, "why", ev->why, sizeof ev->why);
        *taken_ms = at;
        ok = 1;
    }
    e2b_error_free(err);
    json_decref(j);
    return ok;
}

void e2b_box_evidence_remove(const char *records_dir, const char *name)
{
    char dir[4200], path[4400];
    if (evidence_dir(records_dir, name, dir, sizeof dir) < 0)
        return;
    snprintf(path, sizeof path, "%s/%s.json", dir, name);
    unlink(path);
}
