/* Choosing the backend: --keystore, then E2B_TUI_KEYSTORE, then the config key `keystore`,
 * then auto. In auto, plain-text storage is only ever chosen with a warning. */
#include "keystore/ks_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool ks_choice_parse(const char *text, ks_choice *out)
{
    static const struct {
        const char *name;
        ks_choice choice;
    } names[] = {
        {"auto", KS_CHOICE_AUTO},
        {"secret-service", KS_CHOICE_SECRET_SERVICE},
        {"secret_service", KS_CHOICE_SECRET_SERVICE},
        {"keyring", KS_CHOICE_SECRET_SERVICE},
        {"libsecret", KS_CHOICE_SECRET_SERVICE},
        {"file", KS_CHOICE_FILE},
        {"memory", KS_CHOICE_MEMORY},
    };
    if (!text)
        return false;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (strcmp(text, names[i].name) == 0) {
            *out = names[i].choice;
            return true;
        }
    }
    return false;
}

const char *ks_choice_name(ks_choice c)
{
    switch (c) {
    case KS_CHOICE_AUTO:
        return "auto";
    case KS_CHOICE_SECRET_SERVICE:
        return "secret-service";
    case KS_CHOICE_FILE:
        return "file";
    case KS_CHOICE_MEMORY:
        return "memory";
    }
    return "unknown";
}

bool ks_select_resolve(const ks_select *sel, ks_choice *choice, const char **source, ks_error *err)
{
    const char *value = NULL, *from = "default";
    if (sel && sel->flag) {
        value = sel->flag;
        from = "--keystore";
    } else if (sel && sel->env && *sel->env) {
        value = sel->env;
        from = "E2B_TUI_KEYSTORE";
    } else if (sel && sel->config) {
        value = sel->config;
        from = "config";
    }
    if (source)
        *source = from;
    if (!value) {
        *choice = KS_CHOICE_AUTO;
        ks_ok(err);
        return true;
    }
    if (!ks_choice_parse(value, choice)) {
        const char *shown = strcmp(from, "config") == 0 ? "keystore (config)" : from;
        ks_fail(err, KS_ERR_INVALID,
                "%s=%.64s is not a keystore: use auto, secret-service, file or memory", shown,
                value);
        return false;
    }
    ks_ok(err);
    return true;
}

char *keystore_default_file_path(ks_error *err)
{
    const char *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
    char *path = NULL;
    int n = -1;
    /* The XDG spec says a relative value is invalid and must be ignored. */
    if (state && state[0] == '/')
        n = asprintf(&path, "%s/e2b-tui/passwords", state);
    else if (home && home[0] == '/')
        n = asprintf(&path, "%s/.local/state/e2b-tui/passwords", home);
    else {
        ks_fail(err, KS_ERR_INVALID,
                "neither XDG_STATE_HOME nor HOME is an absolute path: cannot place the "
                "password file");
        return NULL;
    }
    if (n < 0) {
        ks_fail(err, KS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    return path;
}

static keystore *open_file(const ks_select *sel, ks_error *err)
{
    if (sel && sel->file_path)
        return keystore_open_file(sel->file_path, err);
    char *path = keystore_default_file_path(err);
    if (!path)
        return NULL;
    keystore *ks = keystore_open_file(path, err);
    free(path);
    return ks;
}

keystore *keystore_open_selected(const ks_select *sel, char **warning, ks_error *err)
{
    if (warning)
        *warning = NULL;
    ks_choice choice;
    if (!ks_select_resolve(sel, &choice, NULL, err))
        return NULL;
    unsigned timeout = sel ? sel->timeout_ms : 0;
    switch (choice) {
    case KS_CHOICE_MEMORY:
        return keystore_open_memory(err);
    case KS_CHOICE_FILE:
        return open_file(sel, err);
    case KS_CHOICE_SECRET_SERVICE:
        return keystore_open_secret_service(timeout, err);
    case KS_CHOICE_AUTO:
        break;
    }
    ks_error why;
    keystore *ks = keystore_open_secret_service(timeout, &why);
    if (ks) {
        ks_ok(err);
        return ks;
    }
    if (why.code != KS_ERR_NO_SERVICE) { /* a keyring exists but fails: do not go plain */
        if (err)
            *err = why;
        return NULL;
    }
    ks = open_file(sel, err);
    if (!ks)
        return NULL;
    /* The reason without its advice (after ';'): the warning gives its own. */
    char *semi = strchr(why.message, ';');
    if (semi)
        *semi = '\0';
    if (warning &&
        asprintf(warning,
                 "no keyring: %s. Box passwords are stored in plain text in %s (mode 0600). "
                 "Use --keystore=secret-service to refuse this, or --keystore=file to accept "
                 "it without this warning.",
                 why.message, keystore_location(ks)) < 0) {
        *warning = NULL;
        keystore_close(ks);
        ks_fail(err, KS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    return ks;
}

/* The file the file backend would use (sel's, else the default), or a reason in buf. */
static const char *file_path_text(const ks_select *sel, char **owned)
{
    ks_error err;
    *owned = NULL;
    if (sel && sel->file_path)
        return sel->file_path;
    *owned = keystore_default_file_path(&err);
    return *owned ? *owned : "(no usable path: set HOME)";
}

char *keystore_describe(const ks_select *sel)
{
    ks_choice choice;
    const char *source = "default";
    ks_error err;
    char *out = NULL, *path = NULL;
    int n = -1;
    if (!ks_select_resolve(sel, &choice, &source, &err))
        return asprintf(&out, "none: %s", err.message) < 0 ? NULL : out;
    const char *from = strcmp(source, "default") == 0 ? "auto" : source;
    if (choice == KS_CHOICE_MEMORY)
        n = asprintf(&out, "memory (%s; nothing is kept after the process)", from);
    else if (choice == KS_CHOICE_FILE)
        n = asprintf(&out, "file %s (%s)", file_path_text(sel, &path), from);
    if (choice == KS_CHOICE_MEMORY || choice == KS_CHOICE_FILE) {
        free(path);
        return n < 0 ? NULL : out;
    }
    keystore *ks = keystore_open_secret_service(sel ? sel->timeout_ms : 0, &err);
    if (ks) {
        n = asprintf(&out, "secret-service (%s; %s)", keystore_location(ks),
                     choice == KS_CHOICE_AUTO ? "auto" : source);
        keystore_close(ks);
    } else if (choice == KS_CHOICE_AUTO && err.code == KS_ERR_NO_SERVICE) {
        char *semi = strchr(err.message, ';'); /* the reason without its advice */
        if (semi)
            *semi = '\0';
        n = asprintf(&out, "file %s (auto: no keyring: %s)", file_path_text(sel, &path),
                     err.message);
    } else {
        n = asprintf(&out, "secret-service, not usable now (%s): %s%s", from, err.message,
                     choice == KS_CHOICE_AUTO ? " (auto does not fall back to a plain file then)"
                                              : "");
    }
    free(path);
    return n < 0 ? NULL : out;
}
