/* --answer NAME [REQUEST_ID] TEXT|--option N: the options of the question mode (its run is
 * in cli_agent.c, next to --reply). */
#include "tui/cli/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *next_operand(int argc, char **argv, int *i)
{
    if (*i + 1 < argc && (argv[*i + 1][0] != '-' || !strcmp(argv[*i + 1], "-")))
        return argv[++*i];
    return NULL;
}

int cli_answer_option(cli_args *a, int argc, char **argv, int *i)
{
    const char *f = argv[*i];
    if (!strcmp(f, "--option")) {
        const char *v = *i + 1 < argc ? argv[++*i] : NULL;
        char *end = NULL;
        long n = v ? strtol(v, &end, 10) : 0;
        if (!v || !*v || *end || n < 1 || n > 99) {
            fprintf(stderr, "e2b-tui: --option takes the number of one of the question's "
                            "options (1, 2, ...), not '%s'\n", v ? v : "");
            return -1;
        }
        a->answer_option = (int)n;
        return 1;
    }
    if (strcmp(f, "--answer"))
        return 0;
    if (a->mode != CLI_NONE) {
        fprintf(stderr, "e2b-tui: --answer does not go with another mode (see e2b-tui --help)\n");
        return -1;
    }
    a->mode = CLI_ANSWER;
    if (!(a->name = next_operand(argc, argv, i))) {
        fprintf(stderr, "e2b-tui: --answer needs a box name\n");
        return -1;
    }
    /* [REQUEST_ID] TEXT: two operands are the request and the text; one is the text, or the
     * request when --option gives the answer (cli_answer_check) */
    const char *x = next_operand(argc, argv, i);
    const char *y = x ? next_operand(argc, argv, i) : NULL;
    if (y) {
        a->request_id = x;
        a->answer_text = y;
    } else {
        a->answer_text = x;
    }
    return 1;
}

int cli_answer_check(cli_args *a)
{
    if (a->answer_option && a->mode != CLI_ANSWER) {
        fputs("e2b-tui: --option goes with --answer (see e2b-tui --help)\n", stderr);
        return -1;
    }
    if (a->mode != CLI_ANSWER)
        return 0;
    if (a->answer_option) {
        if (a->request_id) {
            fputs("e2b-tui: --answer takes a text or --option N, not both\n", stderr);
            return -1;
        }
        a->request_id = a->answer_text; /* the one operand is the request */
        a->answer_text = NULL;
        return 0;
    }
    if (!a->answer_text || !*a->answer_text) {
        fputs("e2b-tui: --answer NAME needs the answer: a text, or --option N\n", stderr);
        return -1;
    }
    return 0;
}
