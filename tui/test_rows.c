#include "tui/test_rows.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui/sandbox_list.h"

struct rows {
    struct table_row_in *in;
    char **lines; /* owned copies the cells point into */
    size_t n, cap;
};

static int push(struct rows *r, char *line, const char **cells)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 64;
        struct table_row_in *in = realloc(r->in, cap * sizeof *in);
        if (!in)
            return -1;
        r->in = in;
        char **lines = realloc(r->lines, cap * sizeof *lines);
        if (!lines)
            return -1;
        r->lines = lines;
        r->cap = cap;
    }
    r->in[r->n].id = cells[-1];
    r->in[r->n].cells = cells;
    r->lines[r->n] = line;
    r->n++;
    return 0;
}

static void rows_free(struct rows *r, bool owner)
{
    for (size_t i = 0; owner && i < r->n; i++) {
        free((void *)(r->in[i].cells - 2)); /* the cell array, allocated with kind and id */
        free(r->lines[i]);
    }
    free(r->in);
    free(r->lines);
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
    struct rows all = {0}, boxes = {0}, workspaces = {0};
    char *buf = NULL;
    size_t cap = 0;
    ssize_t len;
    int bad = 0;
    while ((len = getline(&buf, &cap, f)) >= 0) {
        if (len > 0 && buf[len - 1] == '\n')
            buf[--len] = '\0';
        if (len == 0 || buf[0] == '#')
            continue;
        char *line = strdup(buf);
        const char **cells = calloc(2 + SBCOL_COUNT, sizeof *cells);
        if (!line || !cells) {
            free(line);
            free(cells);
            bad++;
            break;
        }
        /* Fields: kind, id, then the columns name, template, state, cpu, mem, ends. */
        const char *field[8] = {0};
        int nf = 0;
        for (char *p = line; nf < 8;) {
            field[nf++] = p;
            char *tab = strchr(p, '\t');
            if (!tab)
                break;
            *tab = '\0';
            p = tab + 1;
        }
        if (nf < 3) {
            free(line);
            free(cells);
            bad++;
            continue;
        }
        cells[0] = field[0];
        cells[1] = field[1];
        const char **c = cells + 2;
        c[SBCOL_NAME] = field[2];
        c[SBCOL_ID] = field[1];
        c[SBCOL_TEMPLATE] = field[3];
        c[SBCOL_STATE] = field[4];
        c[SBCOL_CPU] = field[5];
        c[SBCOL_MEM] = field[6];
        c[SBCOL_ENDS] = field[7];
        if (push(&all, line, c) != 0) {
            free(line);
            free(cells);
            bad++;
            break;
        }
        if (strcmp(field[0], "box") == 0)
            push(&boxes, NULL, c);
        else if (strcmp(field[0], "workspace") == 0)
            push(&workspaces, NULL, c);
    }
    free(buf);
    fclose(f);
    table_set_rows(&ui->tabs[TAB_ALL]->table, all.in, all.n);
    table_set_rows(&ui->tabs[TAB_BOXES]->table, boxes.in, boxes.n);
    table_set_rows(&ui->tabs[TAB_WORKSPACES]->table, workspaces.in, workspaces.n);
    for (int t = TAB_BOXES; t <= TAB_ALL; t++)
        ui->tabs[t]->loaded = true;
    int n = (int)all.n;
    rows_free(&boxes, false);
    rows_free(&workspaces, false);
    rows_free(&all, true);
    ui->data_note = "test rows (E2B_TUI_TEST_ROWS)";
    if (bad)
        ui_flash(ui, FLASH_ERROR, "E2B_TUI_TEST_ROWS: %d bad line(s) skipped", bad);
    return n;
}
