/* A box password sent in envd's Start body is wiped before core frees what held it. jansson
 * gets a checking allocator (its documented hook): every block it frees is searched for the
 * password. That covers the JSON tree and jansson's own buffers; the dumped text, the Connect
 * envelope and the HTTP body copy are core's own malloc'd blocks, wiped with explicit_bzero
 * and covered by review (no hook sees them); libcurl's and the TLS library's buffers are
 * out of reach (core/util/json_wipe.h). */
#include "core/e2b/config.h"
#include "core/e2b/envd.h"
#include "core/net/loop.h"
#include "core/util/json_wipe.h"
#include "tests/lib/harness.h"

#include <arpa/inet.h>
#include <stddef.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static const char PASSWORD[] = "Pw7hunter2SecretValueXq9";
static int frees, leaked;

/* Each block carries its size in front, so that exactly its bytes are searched. */
typedef struct {
    size_t size;
    max_align_t align;
} block_head;

static void *track_malloc(size_t n)
{
    block_head *h = calloc(1, sizeof *h + n); /* zeroed: jansson leaves some bytes unset */
    if (!h)
        return NULL;
    h->size = n;
    return h + 1;
}

static void track_free(void *p)
{
    if (!p)
        return;
    block_head *h = (block_head *)p - 1;
    frees++;
    if (memmem(p, h->size, PASSWORD, sizeof PASSWORD - 1))
        leaked++;
    free(h);
}

static e2b_metadata envs(void)
{
    e2b_metadata md = {0};
    e2b_metadata_set(&md, "OPENCODE_SERVER_PASSWORD", PASSWORD);
    e2b_metadata_set(&md, "OPENCODE_SERVER_USERNAME", "opencode");
    return md;
}

/* The check can fail: what core did before (json_dumps, json_decref) leaves the password in
 * freed blocks. */
static void test_the_check_sees_an_unwiped_tree(void)
{
    e2b_metadata md = envs();
    e2b_process_spec spec = {.cmd = "/bin/true", .envs = &md};
    frees = leaked = 0;
    json_t *b = e2b_envd_start_body(&spec);
    track_free(json_dumps(b, JSON_COMPACT)); /* jansson's text: its free function */
    json_decref(b);
    e2b_metadata_clear(&md);
    CHECK(frees > 0);
    CHECK_MSG(leaked > 0, "the check would not see a password left in freed memory");
}

static void test_start_body_and_text_are_wiped(void)
{
    e2b_metadata md = envs();
    e2b_process_spec spec = {.cmd = "/bin/true", .envs = &md};
    frees = leaked = 0;
    json_t *b = e2b_envd_start_body(&spec);
    char *text = e2b_json_dumps_wiped(b, JSON_COMPACT);
    CHECK(text && strstr(text, PASSWORD));
    e2b_json_wipe_decref(b);
    e2b_json_text_wipe_free(text);
    e2b_metadata_clear(&md);
    CHECK(frees > 0);
    CHECK_INT_EQ(leaked, 0);
}

static void test_a_shared_tree_is_not_wiped(void)
{
    json_t *s = json_string(PASSWORD);
    json_t *o = json_pack("{s:O}", "v", s); /* o holds a second reference to s */
    e2b_json_wipe_decref(o);
    CHECK_STR_EQ(json_string_value(s), PASSWORD);
    json_decref(s);
}

static void on_end(void *ud, const e2b_error *err)
{
    (void)err;
    *(int *)ud = 1;
}

/* The whole Start call (tree, text, envelope, request) against a local port that accepts
 * and never answers, cancelled: nothing jansson frees on the way holds the password. */
static void test_a_start_call_leaves_no_password_in_freed_json(void)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t alen = sizeof a;
    int srv = socket(AF_INET, SOCK_STREAM, 0);
    CHECK(srv >= 0);
    CHECK(bind(srv, (struct sockaddr *)&a, sizeof a) == 0 && listen(srv, 4) == 0 &&
          getsockname(srv, (struct sockaddr *)&a, &alen) == 0);
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d", ntohs(a.sin_port));
    e2b_config cfg;
    e2b_config_init(&cfg);
    free(cfg.sandbox_url);
    cfg.sandbox_url = strdup(url);
    e2b_sandbox sb = {.sandbox_id = (char *)"iwipe1"};
    e2b_loop *loop = e2b_loop_new();
    e2b_error *err = NULL;
    e2b_envd *ev = e2b_envd_new(loop, &cfg, &sb, NULL, &err);
    CHECK_MSG(ev, "%s", err ? e2b_error_message(err) : "");
    e2b_metadata md = envs();
    e2b_process_spec spec = {.cmd = "/bin/bash", .envs = &md};
    int done = 0;
    frees = leaked = 0;
    e2b_http_request *req = e2b_envd_process_start(ev, &spec, NULL, on_end, &done, &err);
    e2b_metadata_clear(&md);
    CHECK(req != NULL);
    for (int i = 0; i < 5; i++)
        e2b_loop_run_once(loop, 20);
    e2b_http_cancel(req);
    e2b_wait(loop, &done);
    e2b_envd_free(ev);
    e2b_loop_free(loop);
    e2b_config_clear(&cfg);
    close(srv);
    CHECK(frees > 0);
    CHECK_INT_EQ(leaked, 0);
}

int main(void)
{
    json_set_alloc_funcs(track_malloc, track_free); /* before any JSON is made */
    RUN(test_the_check_sees_an_unwiped_tree);
    RUN(test_start_body_and_text_are_wiped);
    RUN(test_a_shared_tree_is_not_wiped);
    RUN(test_a_start_call_leaves_no_password_in_freed_json);
    return harness_finish();
}
