/* --keepalive: placeholder until idle sleep lands. */
#include "tui/cli/cli_internal.h"

#include <stdio.h>

int cli_keepalive(e2b_live *m, const cli_args *a);

int cli_keepalive(e2b_live *m, const cli_args *a)
{
    (void)m, (void)a;
    fputs("e2b-tui: --keepalive is not available yet\n", stderr);
    return 1;
}
