/* Key names, the action table and config overrides (tui/term/keys.c, tui/actions.c,
 * tui/term/keymap.c). Those files have no curses dependency; tests/unit programs link only the
 * libraries, so the sources are compiled into this test directly. */
#include "tests/lib/harness.h"

#include "tui/actions.c"
#include "tui/term/keymap.c"
#include "tui/term/keys.c"

#include <stdlib.h>

static void test_key_names_parse(void)
{
    int k;
    CHECK(key_parse("K", &k) == 0 && k == 'K');
    CHECK(key_parse("/", &k) == 0 && k == '/');
    CHECK(key_parse("ctrl-d", &k) == 0 && k == 4);
    CHECK(key_parse("^D", &k) == 0 && k == 4);
    CHECK(key_parse("CTRL-L", &k) == 0 && k == 12);
    CHECK(key_parse("ctrl-i", &k) == 0 && k == KEYC_TAB);
    CHECK(key_parse("enter", &k) == 0 && k == KEYC_ENTER);
    CHECK(key_parse("Esc", &k) == 0 && k == KEYC_ESC);
    CHECK(key_parse("shift-tab", &k) == 0 && k == KEYC_BTAB);
    CHECK(key_parse("f12", &k) == 0 && k == KEYC_F12);
    CHECK(key_parse("\xc3\xa9", &k) == 0 && k == 0xE9); /* é */
}

static void test_bad_key_names_rejected(void)
{
    int k = 0;
    CHECK(key_parse("", &k) == -1);
    CHECK(key_parse("ctrl-", &k) == -1);
    CHECK(key_parse("ctrl-1", &k) == -1);
    CHECK(key_parse("f13", &k) == -1);
    CHECK(key_parse("f0", &k) == -1);
    CHECK(key_parse("KK", &k) == -1);
    CHECK(key_parse("\x1b", &k) == -1);      /* a raw escape is not a key name */
    CHECK(key_parse("\xc2\x9b", &k) == -1);  /* C1 CSI */
    CHECK(key_parse("\xc3", &k) == -1);      /* truncated UTF-8 */
    CHECK(key_parse("\xc0\xaf", &k) == -1);  /* overlong '/' */
}

static void test_key_format_round_trips(void)
{
    static const char *names[] = {"K", "ctrl-d", "enter", "esc", "tab", "btab", "space",
                                  "pgdn", "f5", "?", "\xc3\xa9"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        int k;
        char buf[32];
        CHECK(key_parse(names[i], &k) == 0);
        CHECK_STR_EQ(key_format(k, buf, sizeof buf), names[i]);
    }
}

static void test_raw_codes_normalised(void)
{
    CHECK_INT_EQ(key_normalise(13), KEYC_ENTER);
    CHECK_INT_EQ(key_normalise(10), KEYC_ENTER);
    CHECK_INT_EQ(key_normalise(127), KEYC_BACKSPACE);
    CHECK_INT_EQ(key_normalise(27), KEYC_ESC);
    CHECK_INT_EQ(key_normalise('q'), 'q');
    CHECK_INT_EQ(key_normalise(4), 4);
}

static void test_action_table_is_complete(void)
{
    for (int a = ACT_NONE + 1; a < ACT_COUNT; a++) {
        const struct action_info *ai = action_info((enum action_id)a);
        CHECK(ai && ai->name && ai->name[0] && ai->help && ai->help[0] && ai->views);
        CHECK_INT_EQ(action_by_name(ai->name), a);
    }
    CHECK(action_info(ACT_NONE) == NULL);
    CHECK(action_by_name("no-such-action") == ACT_NONE);
    /* Every issue-7 action exists under its documented key. */
    struct keymap km;
    keymap_defaults(&km);
    static const struct {
        const char *key;
        unsigned view;
        enum action_id want;
    } cases[] = {
        {"u", VIEW_BOXES, ACT_UP},        {"a", VIEW_BOXES, ACT_ATTACH},
        {"s", VIEW_BOXES, ACT_STOP},      {"r", VIEW_WORKSPACES, ACT_RESUME},
        {"K", VIEW_ALL, ACT_KILL},        {"ctrl-d", VIEW_BOXES, ACT_HALF_DOWN},
        {"p", VIEW_BOXES, ACT_PULL},      {"e", VIEW_BOXES, ACT_EXTEND},
        {"l", VIEW_BOXES, ACT_LOGS},      {"d", VIEW_ALL, ACT_DETAIL},
        {"enter", VIEW_BOXES, ACT_AGENT}, {"o", VIEW_ALL, ACT_AGENT},
        {"O", VIEW_BOXES, ACT_OPERATIONS}, {"c", VIEW_BOXES, ACT_CHANGES},
        {"y", VIEW_BOXES, ACT_ALLOW},     {"Y", VIEW_AGENT, ACT_ALLOW_ALWAYS},
        {"n", VIEW_BOXES, ACT_REJECT},    {"m", VIEW_AGENT, ACT_MESSAGE},
        {"i", VIEW_BOXES, ACT_INTERRUPT}, {"R", VIEW_CHANGES, ACT_REREAD},
        {"tab", VIEW_CHANGES, ACT_FOCUS}, {"j", VIEW_AGENT, ACT_MOVE_DOWN},
        {"/", VIEW_SECRETS, ACT_FILTER},
        {":", VIEW_HELP, ACT_COMMAND},    {"?", VIEW_DETAIL, ACT_HELP},
        {"q", VIEW_BOXES, ACT_QUIT},      {"ctrl-l", VIEW_LOG, ACT_REDRAW},
        {"n", VIEW_SECRETS, ACT_SECRET_SET}, {"x", VIEW_SECRETS, ACT_SECRET_REMOVE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int k;
        CHECK(key_parse(cases[i].key, &k) == 0);
        CHECK_MSG(keymap_lookup(&km, k, cases[i].view) == cases[i].want, "key %s",
                  cases[i].key);
    }
    /* Keys apply only in their views. */
    CHECK(keymap_lookup(&km, 'n', VIEW_BOXES) == ACT_REJECT);
    CHECK(keymap_lookup(&km, 'y', VIEW_SECRETS) == ACT_NONE);
    CHECK(keymap_lookup(&km, 'u', VIEW_SECRETS) == ACT_NONE);
}

static void test_mutating_actions_flagged(void)
{
    CHECK(action_mutates(ACT_KILL));
    CHECK(action_mutates(ACT_UP));
    CHECK(action_mutates(ACT_SECRET_SET));
    CHECK(!action_mutates(ACT_DETAIL));
    CHECK(!action_mutates(ACT_FILTER));
    CHECK(!action_mutates(ACT_QUIT));
}

static void test_defaults_have_no_conflicts(void)
{
    struct keymap km;
    char msg[160];
    keymap_defaults(&km);
    CHECK_MSG(!keymap_find_conflict(&km, msg, sizeof msg), "%s", msg);
}

static void test_config_overrides(void)
{
    struct keymap km;
    char err[512];
    keymap_defaults(&km);
    int n = keymap_apply_config(&km,
                                "# comment\n"
                                "api_url = http://ignored\n"
                                "  key.kill = X ctrl-k  \n"
                                "key.logs=L\n"
                                "key.pull = none\n",
                                err, sizeof err);
    CHECK_MSG(n == 0, "%s", err);
    CHECK(keymap_lookup(&km, 'X', VIEW_BOXES) == ACT_KILL);
    CHECK(keymap_lookup(&km, 11, VIEW_BOXES) == ACT_KILL);
    CHECK(keymap_lookup(&km, 'K', VIEW_BOXES) == ACT_NONE); /* replaced, not added */
    CHECK(keymap_lookup(&km, 4, VIEW_BOXES) == ACT_HALF_DOWN); /* ctrl-d: half a page */
    CHECK(keymap_lookup(&km, 'L', VIEW_ALL) == ACT_LOGS);
    CHECK(keymap_lookup(&km, 'p', VIEW_BOXES) == ACT_NONE);
    char keys[64];
    CHECK_STR_EQ(keymap_keys_for(&km, ACT_KILL, keys, sizeof keys), "X, ctrl-k");
    CHECK_STR_EQ(keymap_keys_for(&km, ACT_PULL, keys, sizeof keys), "");
}

static void test_config_errors_reported_and_ignored(void)
{
    struct keymap km;
    char err[1024];
    keymap_defaults(&km);
    int n = keymap_apply_config(&km,
                                "key.kil = X\n"        /* 1: unknown action */
                                "key.kill = ctrl-\n"   /* 2: bad key */
                                "key.stop = q\n"       /* 3: q is quit everywhere */
                                "key.kill\n"           /* 4: no '=' */
                                "key.kill =\n"         /* 5: no key */
                                "key.sort = S\n"       /* 6: not configurable */
                                "key.secret-set = s\n", /* 7: fine: s is stop, other views */
                                err, sizeof err);
    CHECK_INT_EQ(n, 6);
    CHECK(strstr(err, "line 1: unknown action 'kil'") != NULL);
    CHECK(strstr(err, "line 2: unknown key 'ctrl-' for kill") != NULL);
    CHECK(strstr(err, "line 3: key 'q' is bound to both") != NULL);
    CHECK(strstr(err, "line 4:") != NULL);
    CHECK(strstr(err, "line 5:") != NULL);
    CHECK(strstr(err, "line 6:") != NULL);
    CHECK(strstr(err, "line 7:") == NULL);
    /* Rejected lines leave the old bindings. */
    CHECK(keymap_lookup(&km, 'K', VIEW_BOXES) == ACT_KILL);
    CHECK(keymap_lookup(&km, 's', VIEW_BOXES) == ACT_STOP);
    CHECK(keymap_lookup(&km, 'q', VIEW_BOXES) == ACT_QUIT);
    CHECK(keymap_lookup(&km, 's', VIEW_SECRETS) == ACT_SECRET_SET);
}

static void test_conf_output_round_trips(void)
{
    /* The generated keys.conf, read back over an empty keymap, gives the defaults again. */
    struct keymap km, back;
    keymap_defaults(&km);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CHECK(f != NULL);
    keymap_write_conf(&km, f);
    fclose(f);
    back.n = 0;
    char err[256];
    int n = keymap_apply_config(&back, text, err, sizeof err);
    free(text);
    CHECK_MSG(n == 0, "%s", err);
    for (int a = ACT_NONE + 1; a < ACT_COUNT; a++) {
        char x[64], y[64];
        CHECK_STR_EQ(keymap_keys_for(&back, (enum action_id)a, x, sizeof x),
                     keymap_keys_for(&km, (enum action_id)a, y, sizeof y));
    }
}

static void test_man_output_escapes(void)
{
    struct keymap km;
    keymap_defaults(&km);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    keymap_write_man(&km, f);
    fclose(f);
    CHECK(strstr(text, ".TP\n.B ctrl\\-d\n") != NULL);
    CHECK(strstr(text, "(hidden by \\-\\-readonly)") != NULL);
    CHECK(strstr(text, ".B >\n") != NULL); /* sorting: a binding like any other */
    free(text);
}

int main(void)
{
    RUN(test_key_names_parse);
    RUN(test_bad_key_names_rejected);
    RUN(test_key_format_round_trips);
    RUN(test_raw_codes_normalised);
    RUN(test_action_table_is_complete);
    RUN(test_mutating_actions_flagged);
    RUN(test_defaults_have_no_conflicts);
    RUN(test_config_overrides);
    RUN(test_config_errors_reported_and_ignored);
    RUN(test_conf_output_round_trips);
    RUN(test_man_output_escapes);
    return harness_finish();
}
