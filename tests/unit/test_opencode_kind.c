/* core/e2b/opencode_kind: what a probe's output says (both binary names, 1.x and 2.x, the
 * preference between several, hostile output), the presets that follow, the mismatch
 * rule, and this machine's probe through shims on PATH (their answer is cached while the
 * file is the same, asked again when it changes). */
#include "core/e2b/opencode_kind.h"
#include "tests/lib/harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int parse(const char *text, int prefer, e2b_opencode_kind *k)
{
    return e2b_opencode_kind_parse(text, strlen(text), prefer, k);
}

static void test_parse_names_and_versions(void)
{
    e2b_opencode_kind k;
    CHECK_INT_EQ(parse("opencode 1.18.33\n", 0, &k), 1);
    CHECK_STR_EQ(k.bin, "opencode");
    CHECK_STR_EQ(k.version, "1.18.33");
    CHECK_INT_EQ(parse("opencode v2.0.7\n", 0, &k), 2); /* a leading v */
    CHECK_STR_EQ(k.version, "2.0.7");
    CHECK_INT_EQ(parse("opencode2 0.0.0-beta.3\n", 0, &k), 2); /* the beta: v2 whatever it says */
    CHECK_STR_EQ(k.bin, "opencode2");
    CHECK_INT_EQ(parse("opencode 10.1\n", 0, &k), 2);
    /* no version: a binary that failed its --version is not counted */
    CHECK_INT_EQ(parse("opencode2 \nopencode \n", 0, &k), 0);
    CHECK_STR_EQ(k.bin, "");
    CHECK_INT_EQ(parse("", 0, &k), 0);
    CHECK_INT_EQ(parse("opencodeX 2.0\nopencode2x 1.0\n", 0, &k), 0); /* other names */
    /* hostile output: escapes and a long word are cut at the first character that is not
     * a version's */
    CHECK_INT_EQ(parse("opencode 1.2\x1b[2J;rm\n", 0, &k), 1);
    CHECK_STR_EQ(k.version, "1.2");
    char big[300];
    memset(big, '7', sizeof big);
    memcpy(big, "opencode 2", 10);
    big[sizeof big - 1] = '\0';
    CHECK_INT_EQ(parse(big, 0, &k), 2);
    CHECK(strlen(k.version) < sizeof k.version);
    CHECK_INT_EQ(e2b_opencode_kind_parse(NULL, 0, 0, &k), 0);
}

/* The probe's first line: which names are there, and the binary when only one is. */
static void test_found_line(void)
{
    char bin[16];
    const char *t = "found: opencode\nopencode 1.18.33\n";
    CHECK_INT_EQ(e2b_opencode_kind_found(t, strlen(t), bin, sizeof bin), 1);
    CHECK_STR_EQ(bin, "opencode");
    t = "found: opencode2\n";
    CHECK_INT_EQ(e2b_opencode_kind_found(t, strlen(t), bin, sizeof bin), 1);
    CHECK_STR_EQ(bin, "opencode2");
    t = "found: opencode2 opencode\n";
    CHECK_INT_EQ(e2b_opencode_kind_found(t, strlen(t), bin, sizeof bin), 2);
    CHECK_STR_EQ(bin, ""); /* both: the versions decide */
    t = "found:\n";
    CHECK_INT_EQ(e2b_opencode_kind_found(t, strlen(t), bin, sizeof bin), 0);
    t = "found: opencode";
    CHECK_INT_EQ(e2b_opencode_kind_found(t, strlen(t), bin, sizeof bin), -1); /* not complete */
    t = "found: opencodeX\n";
    CHECK_INT_EQ(e2b_opencode_kind_found(t, strlen(t), bin, sizeof bin), 0);
    /* the parse skips the line */
    e2b_opencode_kind k;
    t = "found: opencode\nopencode 1.18.33\n";
    CHECK_INT_EQ(parse(t, 0, &k), 1);
}

static void test_parse_prefers(void)
{
    e2b_opencode_kind k;
    const char *both1 = "opencode2 2.0.0-beta\nopencode 1.18.33\n";
    CHECK_INT_EQ(parse(both1, 0, &k), 2); /* the beta before 1.x */
    CHECK_STR_EQ(k.bin, "opencode2");
    CHECK_INT_EQ(parse(both1, 1, &k), 1); /* the other side speaks v1 */
    CHECK_STR_EQ(k.bin, "opencode");
    const char *both2 = "opencode 2.1.0\nopencode2 2.0.0-beta\n";
    CHECK_INT_EQ(parse(both2, 0, &k), 2);
    CHECK_STR_EQ(k.bin, "opencode"); /* stable before the beta */
    CHECK_INT_EQ(parse(both2, 1, &k), 2); /* no v1 here: the best there is */
}

static void test_presets_and_mismatch(void)
{
    e2b_opencode_kind k;
    char buf[80];
    parse("opencode 1.18.33\n", 0, &k);
    CHECK_STR_EQ(e2b_opencode_kind_attach(&k), "opencode attach {url} --dir {dir}");
    CHECK_STR_EQ(e2b_opencode_kind_describe(&k, buf, sizeof buf), "opencode 1.18.33 (v1 API)");
    CHECK(e2b_opencode_kind_mismatch(&k, 1) == NULL);
    CHECK(e2b_opencode_kind_mismatch(&k, 0) == NULL); /* unknown: not refused */
    const char *why = e2b_opencode_kind_mismatch(&k, 2);
    CHECK(why && strstr(why, "install OpenCode 2"));
    parse("opencode2 2.0.0\n", 0, &k);
    why = e2b_opencode_kind_mismatch(&k, 1);
    CHECK(why && strstr(why, "opencode-ai@1"));
    e2b_opencode_kind none = {0};
    CHECK(e2b_opencode_kind_mismatch(&none, 1) == NULL);
    CHECK_STR_EQ(e2b_opencode_kind_describe(&none, buf, sizeof buf), "none found");
    e2b_opencode_kind_from_preset(1, &k);
    CHECK_STR_EQ(k.bin, "opencode");
    CHECK_STR_EQ(e2b_opencode_kind_serve(&k), "opencode serve --hostname 0.0.0.0 --port {port}");
    e2b_opencode_kind_from_preset(2, &k);
    CHECK_STR_EQ(e2b_opencode_kind_serve(&k), "opencode2 serve --hostname 0.0.0.0 --port {port}");
}

static char bindir[64];

static void shim(const char *name, const char *version, int exit_code)
{
    char path[128], tmp[140];
    snprintf(path, sizeof path, "%s/%s", bindir, name);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f)
        abort();
    fprintf(f, "#!/bin/sh\n[ \"$1\" = --version ] || exit 2\necho \"%s\"\nexit %d\n", version,
            exit_code);
    fclose(f);
    chmod(tmp, 0755);
    rename(tmp, path); /* a new file: the cache sees it changed */
}

/* The real probe on this machine, with PATH holding only the shims. */
static void test_local_probe(void)
{
    e2b_opencode_kind k;
    snprintf(bindir, sizeof bindir, "/tmp/e2b-ockind-XXXXXX");
    if (!mkdtemp(bindir))
        abort();
    char *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
    setenv("PATH", bindir, 1);
    CHECK_INT_EQ(e2b_opencode_kind_local(0, &k, NULL), 0);
    shim("opencode", "1.18.33", 0);
    CHECK_INT_EQ(e2b_opencode_kind_local(0, &k, NULL), 1);
    CHECK_STR_EQ(k.version, "1.18.33");
    shim("opencode", "2.0.7", 0);
    CHECK_INT_EQ(e2b_opencode_kind_local(0, &k, NULL), 2);
    CHECK_STR_EQ(k.bin, "opencode");
    shim("opencode2", "2.0.0-beta.1", 0);
    shim("opencode", "1.18.33", 0);
    CHECK_INT_EQ(e2b_opencode_kind_local(0, &k, NULL), 2);
    CHECK_STR_EQ(k.bin, "opencode2");
    CHECK_INT_EQ(e2b_opencode_kind_local(1, &k, NULL), 1); /* the box speaks v1 */
    CHECK_STR_EQ(k.bin, "opencode");
    shim("opencode2", "", 1); /* broken: no version */
    CHECK_INT_EQ(e2b_opencode_kind_local(0, &k, NULL), 1);
    char p[128];
    snprintf(p, sizeof p, "%s/opencode", bindir);
    unlink(p);
    snprintf(p, sizeof p, "%s/opencode2", bindir);
    unlink(p);
    CHECK_INT_EQ(e2b_opencode_kind_local(0, &k, NULL), 0); /* gone: not the cached answer */
    rmdir(bindir);
    if (old)
        setenv("PATH", old, 1);
    free(old);
}

int main(void)
{
    RUN(test_parse_names_and_versions);
    RUN(test_found_line);
    RUN(test_parse_prefers);
    RUN(test_presets_and_mismatch);
    RUN(test_local_probe);
    return harness_finish();
}
