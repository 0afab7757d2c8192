/* Fuzz target: the config-file parser (e2b_config_parse_text in core/e2b/config.h).
 *
 * Invariants: an error is E2B_ERR_INVALID and names the origin and a line; the API key is
 * never taken from the file; the derived URLs and the --info text can be produced from
 * whatever the file set. */
#include "core/e2b/config.h"
#include "core/util/str.h"
#include "tests/fuzz/fuzz_common.h"

#include <string.h>

/* An environment with only a state directory that does not exist: load then reads no file
 * (config_path is set below and missing) and derives api_url and the preset commands. */
static const char *fake_env(const char *name)
{
    return strcmp(name, "XDG_STATE_HOME") == 0 ? "/nonexistent-e2b-tui-fuzz" : NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    e2b_config cfg;
    e2b_config_init(&cfg);
    e2b_error *err = e2b_config_parse_text(&cfg, (const char *)data, size, "fuzz.conf");
    FUZZ_CHECK(cfg.api_key == NULL);
    if (err) {
        FUZZ_CHECK(err->kind == E2B_ERR_INVALID || err->kind == E2B_ERR_INTERNAL);
        if (err->kind == E2B_ERR_INVALID)
            FUZZ_CHECK(strstr(e2b_error_message(err), "fuzz.conf:") != NULL);
        e2b_error_free(err);
        e2b_config_clear(&cfg);
        return 0;
    }
    FUZZ_CHECK(cfg.hours > 0 && cfg.refresh_seconds > 0);
    free(cfg.config_path);
    cfg.config_path = strdup("/nonexistent-e2b-tui-fuzz/config");
    err = e2b_config_load(&cfg, fake_env);
    FUZZ_CHECK(cfg.api_key == NULL);
    if (err) {
        e2b_error_free(err);
        e2b_config_clear(&cfg);
        return 0;
    }
    FUZZ_CHECK(cfg.api_url && e2b_config_serve_command(&cfg, &(e2b_opencode_kind){0}) &&
               e2b_config_attach_command(&cfg, NULL, 2) && e2b_config_health_path(&cfg, 1));
    FUZZ_CHECK(!cfg.opencode || (cfg.serve_command && cfg.attach_command && cfg.health_path));
    char *envd = e2b_config_envd_url(&cfg, "sbx1", NULL);
    char *port = e2b_config_port_url(&cfg, 4096, "sbx1", "example.localhost");
    if (envd) {
        char *host = e2b_url_host(envd);
        free(host);
    }
    free(envd);
    free(port);
    FILE *null = fopen("/dev/null", "w");
    if (null) {
        e2b_config_write_info(&cfg, NULL, null);
        fclose(null);
    }
    e2b_config_clear(&cfg);
    return 0;
}
