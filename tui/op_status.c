#include "tui/op_status.h"

#include <stdio.h>

void op_status_progress(const e2b_live_op_info *op, char *buf, size_t bufsz)
{
    buf[0] = '\0';
    if (op->total > 0) {
        char bar[24];
        int fill = (int)(op->done * 20 / op->total);
        if (fill > 20)
            fill = 20;
        for (int i = 0; i < 20; i++)
            bar[i] = i < fill ? '#' : '.';
        bar[20] = '\0';
        snprintf(buf, bufsz, "[%s] %.1f/%.1f KiB", bar, op->done / 1024.0, op->total / 1024.0);
    } else if (op->done > 0) {
        snprintf(buf, bufsz, "%.1f KiB", op->done / 1024.0);
    }
}

void op_status_format(const e2b_live_op_info *op, char *buf, size_t bufsz)
{
    char bytes[64];
    op_status_progress(op, bytes, sizeof bytes);
    snprintf(buf, bufsz, "%s %s: %s%s%s", op->verb, op->name[0] ? op->name : "(current branch)",
             op->step, bytes[0] ? " " : "", bytes);
}
