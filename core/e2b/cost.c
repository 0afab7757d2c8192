/* A sandbox's cost while it runs (core/e2b/cost.h). */
#include "core/e2b/cost.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

bool e2b_sandbox_cost(const e2b_sandbox *sb, double vcpu_second, double gib_second, time_t now,
                      double *usd)
{
    return e2b_sandbox_cost_since(sb, vcpu_second, gib_second, 0, now, usd);
}

double e2b_sandbox_cost_rate(const e2b_sandbox *sb, double vcpu_second, double gib_second)
{
    if (!sb)
        return 0;
    return (sb->cpu_count > 0 ? (double)sb->cpu_count : 0) * vcpu_second +
           (sb->memory_mb > 0 ? (double)sb->memory_mb : 0) / 1024.0 * gib_second;
}

bool e2b_sandbox_cost_since(const e2b_sandbox *sb, double vcpu_second, double gib_second,
                            time_t since, time_t now, double *usd)
{
    if (!sb || sb->state != E2B_STATE_RUNNING || sb->cpu_count < 0 || sb->memory_mb < 0 ||
        !sb->started_at)
        return false;
    time_t from = sb->started_at > since ? sb->started_at : since;
    double secs = now > from ? (double)(now - from) : 0;
    *usd = secs * e2b_sandbox_cost_rate(sb, vcpu_second, gib_second);
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

int e2b_budget_parse(const char *s, double *usd)
{
    if (!s)
        return -1;
    if (*s == '$')
        s++;
    if (*s < '0' || *s > '9') /* no sign, space, "inf" or "nan" */
        return -1;
    char *end;
    errno = 0;
    double d = strtod(s, &end);
    if (errno || *end || !(d >= 0.01 && d <= E2B_BUDGET_MAX_USD))
        return -1;
    *usd = d;
    return 0;
}

bool e2b_budget_reached(double budget_usd, double agent_usd, double sandbox_usd)
{
    return budget_usd > 0 && agent_usd + sandbox_usd >= budget_usd;
}
