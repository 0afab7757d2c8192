/* e2b-local: an E2B-compatible server on loopback for tests and `make demo`.
 * Placeholder until the server lands: it only reports that it is not built. */
#include <stdio.h>

int main(void)
{
    fputs("e2b-local: not built yet\n", stderr);
    return 1;
}
