/* A sandbox's cost while it runs (core/e2b/cost.h). */
#include "core/e2b/cost.h"

#include <stdio.h>

bool e2b_sandbox_cost(const e2b_sandbox *sb, double vcpu_second, double gib_second, time_t now,
                      double *usd)
{
    if (!sb || sb->state != E2B_STATE_RUNNING || sb->cpu_count < 0 || sb->memory_mb < 0 ||
        !sb->started_at)
        return false;
    double secs = now > sb->started_at ? (double)(now - sb->started_at) : 0;
    *usd = secs * ((double)sb->cpu_count * vcpu_second +
                   (double)sb->memory_mb / 1024.0 * gib_second);
    return true;
}

void e2b_cost_format(double usd, char *buf, size_t n)
{
    if (usd > 0 && usd < 0.001)
        snprintf(buf, n, "<$0.001");
    else if (usd < 0.01)
        snprintf(buf, n, "$%.3f", usd);
    else
        snprintf(buf, n, "$%.2f", usd);
}
