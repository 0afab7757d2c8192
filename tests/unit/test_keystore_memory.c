/* keystore without any daemon: the memory backend, argument checks, the choice resolver,
 * the default file path, the password-file format, and the job wrapper. */
#include "keystore/file_format.h"
#include "keystore/keystore.h"
#include "tests/lib/harness.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void test_memory_put_get_overwrite_delete(void)
{
    ks_error err;
    keystore *ks = keystore_open_memory(&err);
    CHECK(ks);
    CHECK_STR_EQ(keystore_backend_name(ks), "memory");
    CHECK_INT_EQ(keystore_put(ks, "b1", "s1", "one", &err), KS_OK);
    CHECK_INT_EQ(keystore_put(ks, "b2", "s2", "two", &err), KS_OK);
    CHECK_INT_EQ(keystore_put(ks, "b1", "s1", "uno", &err), KS_OK);
    char *pw = NULL;
    CHECK_INT_EQ(keystore_get(ks, "b1", "s1", &pw, &err), KS_OK);
    CHECK_STR_EQ(pw, "uno");
    keystore_password_free(pw);
    CHECK_INT_EQ(keystore_get(ks, "b1", "s2", &pw, &err), KS_ERR_NOT_FOUND);
    CHECK(pw == NULL);
    CHECK(strstr(err.message, "b1") != NULL);
    CHECK_INT_EQ(keystore_delete(ks, "b1", "s1", &err), KS_OK);
    CHECK_INT_EQ(keystore_get(ks, "b1", "s1", &pw, &err), KS_ERR_NOT_FOUND);
    CHECK_INT_EQ(keystore_delete(ks, "b1", "s1", &err), KS_ERR_NOT_FOUND);
    CHECK_INT_EQ(keystore_get(ks, "b2", "s2", &pw, &err), KS_OK);
    CHECK_STR_EQ(pw, "two");
    keystore_password_free(pw);
    keystore_close(ks);
}

static void test_memory_list_sorted_and_delete_by_box(void)
{
    ks_error err;
    keystore *ks = keystore_open_memory(&err);
    CHECK(ks);
    ks_entry *e = NULL;
    size_t n = 99;
    CHECK_INT_EQ(keystore_list(ks, &e, &n, &err), KS_OK);
    CHECK(e == NULL);
    CHECK_INT_EQ(n, 0);
    keystore_put(ks, "zeta", "s1", "p", &err);
    keystore_put(ks, "alpha", "s2", "p", &err);
    keystore_put(ks, "alpha", "s1", "p", &err);
    CHECK_INT_EQ(keystore_list(ks, &e, &n, &err), KS_OK);
    CHECK_INT_EQ(n, 3);
    CHECK_STR_EQ(e[0].box, "alpha");
    CHECK_STR_EQ(e[0].sandbox_id, "s1");
    CHECK_STR_EQ(e[1].sandbox_id, "s2");
    CHECK_STR_EQ(e[2].box, "zeta");
    ks_entries_free(e, n);
    CHECK_INT_EQ(keystore_delete(ks, "alpha", NULL, &err), KS_OK);
    CHECK_INT_EQ(keystore_list(ks, &e, &n, &err), KS_OK);
    CHECK_INT_EQ(n, 1);
    CHECK_STR_EQ(e[0].box, "zeta");
    ks_entries_free(e, n);
    keystore_close(ks);
}

static void test_arguments_checked(void)
{
    ks_error err;
    keystore *ks = keystore_open_memory(&err);
    CHECK(ks);
    CHECK_INT_EQ(keystore_put(ks, "", "s", "p", &err), KS_ERR_INVALID);
    CHECK(strstr(err.message, "box name is empty"));
    CHECK_INT_EQ(keystore_put(ks, "b", NULL, "p", &err), KS_ERR_INVALID);
    CHECK(strstr(err.message, "sandbox id"));
    CHECK_INT_EQ(keystore_put(ks, "b\x1b[2J", "s", "p", &err), KS_ERR_INVALID);
    CHECK(strstr(err.message, "control character"));
    CHECK_INT_EQ(keystore_put(ks, "b", "s", "", &err), KS_ERR_INVALID);
    char *big = malloc(5000);
    CHECK(big);
    memset(big, 'x', 4999);
    big[4999] = '\0';
    ks_code rc = keystore_put(ks, "b", "s", big, &err);
    free(big);
    CHECK_INT_EQ(rc, KS_ERR_INVALID);
    CHECK_INT_EQ(keystore_get(NULL, "b", "s", &(char *){NULL}, &err), KS_ERR_INVALID);
    CHECK(strstr(err.message, "no keystore"));
    keystore_close(ks);
}

static void test_error_messages_never_hold_control_characters(void)
{
    ks_error err;
    /* This message quotes the (bad) path it was given: the escape must not survive. */
    CHECK(keystore_open_file("rel\x1b]0;x\x07\tpath", &err) == NULL);
    CHECK_INT_EQ(err.code, KS_ERR_INVALID);
    CHECK(strstr(err.message, "rel?]0;x??path"));
    for (const char *p = err.message; *p; p++)
        CHECK((unsigned char)*p >= 0x20 && *p != 0x7f);
}

static void test_code_names(void)
{
    CHECK_STR_EQ(ks_code_name(KS_OK), "ok");
    CHECK_STR_EQ(ks_code_name(KS_ERR_NOT_FOUND), "not-found");
    CHECK_STR_EQ(ks_code_name(KS_ERR_LOCKED), "locked");
    CHECK_STR_EQ(ks_code_name(KS_ERR_NO_SERVICE), "no-service");
    CHECK_STR_EQ(ks_code_name(KS_ERR_TIMEOUT), "timeout");
    CHECK_STR_EQ(ks_code_name(KS_ERR_PERMISSION), "permission");
}

static void test_choice_parse(void)
{
    ks_choice c;
    CHECK(ks_choice_parse("auto", &c) && c == KS_CHOICE_AUTO);
    CHECK(ks_choice_parse("secret-service", &c) && c == KS_CHOICE_SECRET_SERVICE);
    CHECK(ks_choice_parse("keyring", &c) && c == KS_CHOICE_SECRET_SERVICE);
    CHECK(ks_choice_parse("file", &c) && c == KS_CHOICE_FILE);
    CHECK(ks_choice_parse("memory", &c) && c == KS_CHOICE_MEMORY);
    CHECK(!ks_choice_parse("File", &c));
    CHECK(!ks_choice_parse("", &c));
    CHECK(!ks_choice_parse(NULL, &c));
    CHECK_STR_EQ(ks_choice_name(KS_CHOICE_SECRET_SERVICE), "secret-service");
}

static void test_select_precedence(void)
{
    ks_choice c;
    const char *src;
    ks_error err;
    ks_select s = {.flag = "file", .env = "memory", .config = "secret-service"};
    CHECK(ks_select_resolve(&s, &c, &src, &err));
    CHECK_INT_EQ(c, KS_CHOICE_FILE);
    CHECK_STR_EQ(src, "--keystore");
    s.flag = NULL;
    CHECK(ks_select_resolve(&s, &c, &src, &err));
    CHECK_INT_EQ(c, KS_CHOICE_MEMORY);
    CHECK_STR_EQ(src, "E2B_TUI_KEYSTORE");
    s.env = "";
    CHECK(ks_select_resolve(&s, &c, &src, &err));
    CHECK_INT_EQ(c, KS_CHOICE_SECRET_SERVICE);
    CHECK_STR_EQ(src, "config");
    s.config = NULL;
    CHECK(ks_select_resolve(&s, &c, &src, &err));
    CHECK_INT_EQ(c, KS_CHOICE_AUTO);
    CHECK_STR_EQ(src, "default");
    CHECK(ks_select_resolve(NULL, &c, &src, &err));
    CHECK_INT_EQ(c, KS_CHOICE_AUTO);
    s.config = "plaintext";
    CHECK(!ks_select_resolve(&s, &c, &src, &err));
    CHECK_INT_EQ(err.code, KS_ERR_INVALID);
    CHECK(strstr(err.message, "keystore (config)=plaintext"));
    CHECK(strstr(err.message, "auto, secret-service, file"));
}

static void test_open_selected_memory_and_invalid(void)
{
    ks_error err;
    char *warning = (char *)"unset";
    ks_select s = {.flag = "memory"};
    keystore *ks = keystore_open_selected(&s, &warning, &err);
    CHECK(ks);
    CHECK(warning == NULL);
    CHECK_INT_EQ(keystore_backend(ks), KS_BACKEND_MEMORY);
    keystore_close(ks);
    s.flag = "bogus";
    CHECK(keystore_open_selected(&s, &warning, &err) == NULL);
    CHECK_INT_EQ(err.code, KS_ERR_INVALID);
    CHECK(strstr(err.message, "--keystore=bogus"));
}

static void test_default_file_path(void)
{
    char *old_state = getenv("XDG_STATE_HOME") ? strdup(getenv("XDG_STATE_HOME")) : NULL;
    char *old_home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
    ks_error err;
    setenv("XDG_STATE_HOME", "/x/state", 1);
    setenv("HOME", "/home/u", 1);
    char *p = keystore_default_file_path(&err);
    int ok1 = p && strcmp(p, "/x/state/e2b-tui/passwords") == 0;
    free(p);
    setenv("XDG_STATE_HOME", "relative/ignored", 1);
    p = keystore_default_file_path(&err);
    int ok2 = p && strcmp(p, "/home/u/.local/state/e2b-tui/passwords") == 0;
    free(p);
    unsetenv("XDG_STATE_HOME");
    setenv("HOME", "", 1);
    p = keystore_default_file_path(&err);
    int ok3 = p == NULL && err.code == KS_ERR_INVALID;
    free(p);
    if (old_state)
        setenv("XDG_STATE_HOME", old_state, 1);
    if (old_home)
        setenv("HOME", old_home, 1);
    free(old_state);
    free(old_home);
    CHECK(ok1);
    CHECK(ok2);
    CHECK(ok3);
}

static void test_format_round_trip_of_awkward_values(void)
{
    ksf_record in[2] = {
        {(char *)"box one", (char *)"sbx\t1", (char *)"p%w\nline2\x7f"},
        {(char *)"b2", (char *)"s2", (char *)"\xc3\xa9t\xc3\xa9"},
    };
    size_t len;
    char *buf = ksf_serialize(in, 2, &len);
    CHECK(buf);
    CHECK_INT_EQ(strlen(buf), len);
    /* Two entries = header + two lines; no raw tab or newline inside a field. */
    size_t lines = 0;
    for (size_t i = 0; i < len; i++)
        lines += buf[i] == '\n';
    CHECK_INT_EQ(lines, 3);
    ksf_record *out;
    size_t n;
    ks_error err;
    ks_code rc = ksf_parse(buf, len, "f", &out, &n, &err);
    free(buf);
    CHECK_INT_EQ(rc, KS_OK);
    CHECK_INT_EQ(n, 2);
    CHECK_STR_EQ(out[0].box, "box one");
    CHECK_STR_EQ(out[0].sid, "sbx\t1");
    CHECK_STR_EQ(out[0].password, "p%w\nline2\x7f");
    CHECK_STR_EQ(out[1].password, "\xc3\xa9t\xc3\xa9");
    ksf_records_free(out, n);
}

static void test_format_rejects_bad_lines_with_line_number(void)
{
    static const char *bad[] = {
        "# header\nb1\ts1\n",         /* two fields */
        "# header\n\nb1\ts1\tp\tx\n", /* four fields */
        "b1\t\tpw\n",                 /* empty field */
        "b1\ts1\tp%4\n",              /* truncated escape */
        "b1\ts1\tp%zz\n",             /* bad escape */
        "b1\ts1\tp%00\n",             /* NUL */
    };
    static const size_t line[] = {2, 3, 1, 1, 1, 1};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ksf_record *out = (ksf_record *)1;
        size_t n = 7;
        ks_error err;
        CHECK_INT_EQ(ksf_parse(bad[i], strlen(bad[i]), "pwfile", &out, &n, &err), KS_ERR_CORRUPT);
        CHECK(out == NULL && n == 0);
        char want[32];
        snprintf(want, sizeof want, "pwfile line %zu ", line[i]);
        CHECK_MSG(strstr(err.message, want), "case %zu: %s", i, err.message);
    }
    /* A bad line never echoes a password into the message. */
    ksf_record *out;
    size_t n;
    ks_error err;
    const char *leak = "b1\ts1\tSECRETVALUE\textra\n";
    CHECK_INT_EQ(ksf_parse(leak, strlen(leak), "f", &out, &n, &err), KS_ERR_CORRUPT);
    CHECK(strstr(err.message, "SECRETVALUE") == NULL);
}

static void test_format_empty_and_comments(void)
{
    ksf_record *out;
    size_t n;
    ks_error err;
    CHECK_INT_EQ(ksf_parse("", 0, "f", &out, &n, &err), KS_OK);
    CHECK_INT_EQ(n, 0);
    const char *s = "# c\n\n# d\nb\ts\tp"; /* last line without newline */
    CHECK_INT_EQ(ksf_parse(s, strlen(s), "f", &out, &n, &err), KS_OK);
    CHECK_INT_EQ(n, 1);
    CHECK_STR_EQ(out[0].password, "p");
    ksf_records_free(out, n);
}

static atomic_int wakes;
static void count_wake(void *ctx)
{
    atomic_fetch_add(&wakes, 1);
    atomic_fetch_add((atomic_int *)ctx, 1);
}

static void test_jobs_put_get_list_delete(void)
{
    ks_error err;
    keystore *ks = keystore_open_memory(&err);
    CHECK(ks);
    atomic_int mine = 0;
    ks_job *j = keystore_job_put(ks, "b1", "s1", "job-pw", 5000, count_wake, &mine, &err);
    CHECK(j);
    keystore_job_wait(j);
    CHECK(keystore_job_done(j));
    CHECK_INT_EQ(keystore_job_result(j, &err, NULL, NULL, NULL), KS_OK);
    keystore_job_free(j);

    j = keystore_job_get(ks, "b1", "s1", 5000, count_wake, &mine, &err);
    CHECK(j);
    keystore_job_wait(j);
    char *pw = NULL;
    CHECK_INT_EQ(keystore_job_result(j, &err, &pw, NULL, NULL), KS_OK);
    CHECK_STR_EQ(pw, "job-pw");
    keystore_password_free(pw);
    /* Ownership moved out: a second call gets nothing. */
    CHECK_INT_EQ(keystore_job_result(j, &err, &pw, NULL, NULL), KS_OK);
    CHECK(pw == NULL);
    keystore_job_free(j);

    j = keystore_job_list(ks, 5000, count_wake, &mine, &err);
    CHECK(j);
    keystore_job_wait(j);
    ks_entry *e;
    size_t n;
    CHECK_INT_EQ(keystore_job_result(j, &err, NULL, &e, &n), KS_OK);
    CHECK_INT_EQ(n, 1);
    CHECK_STR_EQ(e[0].box, "b1");
    ks_entries_free(e, n);
    keystore_job_free(j);

    j = keystore_job_delete(ks, "b1", "s1", 5000, count_wake, &mine, &err);
    CHECK(j);
    keystore_job_wait(j);
    CHECK_INT_EQ(keystore_job_result(j, &err, NULL, NULL, NULL), KS_OK);
    keystore_job_free(j);

    j = keystore_job_get(ks, "b1", "s1", 5000, NULL, NULL, &err);
    CHECK(j);
    keystore_job_wait(j);
    CHECK_INT_EQ(keystore_job_result(j, &err, &pw, NULL, NULL), KS_ERR_NOT_FOUND);
    CHECK(pw == NULL);
    keystore_job_free(j);
    CHECK(keystore_jobs_drain(5000));
    CHECK_INT_EQ(atomic_load(&mine), 4); /* exactly once per job that had a wake */
    keystore_close(ks);
}

static void test_job_outlives_closed_store_and_freed_job(void)
{
    ks_error err;
    keystore *ks = keystore_open_memory(&err);
    CHECK(ks);
    atomic_int mine = 0;
    ks_job *j = keystore_job_put(ks, "b", "s", "p", 5000, count_wake, &mine, &err);
    CHECK(j);
    keystore_close(ks); /* the job holds its own reference */
    keystore_job_wait(j);
    CHECK_INT_EQ(keystore_job_result(j, &err, NULL, NULL, NULL), KS_OK);
    keystore_job_free(j);
    CHECK(keystore_jobs_drain(5000));
    CHECK_INT_EQ(atomic_load(&mine), 1);
}

static void test_job_invalid_arguments_reported_through_result(void)
{
    ks_error err;
    keystore *ks = keystore_open_memory(&err);
    CHECK(ks);
    ks_job *j = keystore_job_get(ks, "", "s", 5000, NULL, NULL, &err);
    CHECK(j);
    keystore_job_wait(j);
    CHECK_INT_EQ(keystore_job_result(j, &err, NULL, NULL, NULL), KS_ERR_INVALID);
    CHECK(strstr(err.message, "box name is empty"));
    keystore_job_free(j);
    CHECK(keystore_job_get(NULL, "b", "s", 0, NULL, NULL, &err) == NULL);
    CHECK_INT_EQ(err.code, KS_ERR_INVALID);
    CHECK(keystore_jobs_drain(5000));
    keystore_close(ks);
}

static void test_open_job_gives_the_store(void)
{
    ks_error err;
    atomic_int mine = 0;
    char flag[] = "memory";
    ks_select sel = {.flag = flag};
    ks_job *j = keystore_job_open(&sel, 5000, count_wake, &mine, &err);
    CHECK(j);
    flag[0] = 'x'; /* the job copied the selection */
    keystore_job_wait(j);
    CHECK_INT_EQ(keystore_job_result(j, &err, NULL, NULL, NULL), KS_OK);
    char *warning = (char *)"unset";
    keystore *ks = keystore_job_take_store(j, &warning);
    CHECK(ks);
    CHECK(warning == NULL);
    CHECK(keystore_job_take_store(j, NULL) == NULL); /* moved out once */
    keystore_job_free(j);
    CHECK_STR_EQ(keystore_backend_name(ks), "memory");
    CHECK_INT_EQ(keystore_put(ks, "b", "s", "p", &err), KS_OK);
    keystore_close(ks);

    sel.flag = "nonsense";
    j = keystore_job_open(&sel, 5000, NULL, NULL, &err);
    CHECK(j);
    keystore_job_wait(j);
    CHECK_INT_EQ(keystore_job_result(j, &err, NULL, NULL, NULL), KS_ERR_INVALID);
    CHECK(strstr(err.message, "--keystore=nonsense"));
    CHECK(keystore_job_take_store(j, NULL) == NULL);
    keystore_job_free(j);
    CHECK(keystore_jobs_drain(5000));
    CHECK_INT_EQ(atomic_load(&mine), 1);
}

int main(void)
{
    RUN(test_memory_put_get_overwrite_delete);
    RUN(test_memory_list_sorted_and_delete_by_box);
    RUN(test_arguments_checked);
    RUN(test_error_messages_never_hold_control_characters);
    RUN(test_code_names);
    RUN(test_choice_parse);
    RUN(test_select_precedence);
    RUN(test_open_selected_memory_and_invalid);
    RUN(test_default_file_path);
    RUN(test_format_round_trip_of_awkward_values);
    RUN(test_format_rejects_bad_lines_with_line_number);
    RUN(test_format_empty_and_comments);
    RUN(test_jobs_put_get_list_delete);
    RUN(test_job_outlives_closed_store_and_freed_job);
    RUN(test_job_invalid_arguments_reported_through_result);
    RUN(test_open_job_gives_the_store);
    return harness_finish();
}
