#include "tui/test_rows.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/model.h"
#include "tui/sandbox_rows.h"

/* Splits s in place at tabs into at most max fields; returns the count. */
static int split(char *s, char **field, int max)
{
    int n = 0;
    while (n < max) {
        field[n++] = s;
        char *tab = strchr(s, '\t');
        if (!tab)
            break;
        *tab = '\0';
        s = tab + 1;
    }
    return n;
}

/* Fills sb from one line's fields; returns 0, or -1 for a bad line / out of memory. */
static int parse_sandbox(char **f, int nf, time_t now, e2b_sandbox *sb)
{
    memset(sb, 0, sizeof *sb);
    sb->cpu_count = sb->memory_mb = sb->disk_size_mb = -1;
    if (nf < 6 || !*f[0])
        return -1;
    sb->sandbox_id = strdup(f[0]);
    sb->alias = strdup(f[1]);
    sb->template_id = strdup(f[1]);
    if (!sb->sandbox_id || !sb->alias || !sb->template_id)
        return -1;
    sb->state = strcmp(f[2], "paused") == 0 ? E2B_STATE_PAUSED : E2B_STATE_RUNNING;
    sb->cpu_count = strcmp(f[3], "-") ? atoi(f[3]) : -1;
    sb->memory_mb = strcmp(f[4], "-") ? atoi(f[4]) : -1;
    sb->end_at = strcmp(f[5], "-") ? now + atol(f[5]) : 0;
    for (int i = 6; i < nf; i++) {
        char *eq = strchr(f[i], '=');
        if (!eq)
            continue;
        *eq = '\0';
        if (e2b_metadata_set(&sb->metadata, f[i], eq + 1) != 0)
            return -1;
    }
    return 0;
}

int test_rows_load(struct ui *ui)
{
    const char *path = getenv("E2B_TUI_TEST_ROWS");
    if (!path || !*path)
        return 0;
    FILE *f = fopen(path, "r");
    if (!f) {
        ui_flash(ui, FLASH_ERROR, "E2B_TUI_TEST_ROWS: %s: %s", path, strerror(errno));
        return -1;
    }
    e2b_sandbox_list list = {.items = NULL, .count = 0, .total_running = -1};
    size_t cap = 0;
    char *buf = NULL;
    size_t bufcap = 0;
    ssize_t len;
    int bad = 0;
    time_t now = time(NULL);
    while ((len = getline(&buf, &bufcap, f)) >= 0) {
        if (len > 0 && buf[len - 1] == '\n')
            buf[--len] = '\0';
        if (len == 0 || buf[0] == '#')
            continue;
        if (list.count == cap) {
            size_t ncap = cap ? cap * 2 : 64;
            e2b_sandbox *items = realloc(list.items, ncap * sizeof *items);
            if (!items) {
                bad++;
                break;
            }
            list.items = items;
            cap = ncap;
        }
        char *field[24];
        int nf = split(buf, field, 24);
        e2b_sandbox *sb = &list.items[list.count];
        if (parse_sandbox(field, nf, now, sb) != 0) {
            e2b_sandbox_clear(sb);
            bad++;
            continue;
        }
        list.count++;
    }
    free(buf);
    fclose(f);
    int n = (int)list.count;
    if (e2b_sandbox_list_classify(&list, NULL) != 0 || sandbox_rows_fill(ui, &list, now) != 0)
        n = -1;
    e2b_sandbox_list_clear(&list); /* empty after a successful fill */
    ui->data_note = "test rows (E2B_TUI_TEST_ROWS)";
    if (bad)
        ui_flash(ui, FLASH_ERROR, "E2B_TUI_TEST_ROWS: %d bad line(s) skipped", bad);
    return n;
}
