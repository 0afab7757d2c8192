/* Core's side of the keystore: the one translation of its errors (ks_error) into core's
 * error type, and the one reading of which store the user chose. */
#include "core/box/box.h"

#include <stdlib.h>

#include "keystore/keystore.h"

e2b_error *e2b_keystore_error(const ks_error *kerr)
{
    e2b_error_kind kind;
    switch (kerr ? kerr->code : KS_ERR_IO) {
    case KS_ERR_NOT_FOUND: kind = E2B_ERR_NOT_FOUND; break;
    case KS_ERR_INVALID: kind = E2B_ERR_INVALID; break;
    case KS_ERR_NOMEM: kind = E2B_ERR_INTERNAL; break;
    /* locked, no service, timeout, a dismissed prompt, permission, io, corrupt: the
     * keystore's sentence says which (E2B's timeout or cancel texts would not fit) */
    default: kind = E2B_ERR_IO; break;
    }
    return e2b_error_new(kind, "password store: %s",
                         kerr && kerr->message[0] ? kerr->message : "it failed");
}

ks_select e2b_keystore_choice(const char *flag, const e2b_config *cfg)
{
    const char *env = getenv("E2B_TUI_KEYSTORE");
    return (ks_select){.flag = flag, .env = env && *env ? env : NULL, .config = cfg->keystore};
}
