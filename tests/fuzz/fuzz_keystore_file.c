/* Fuzz target: the password file format of the file keystore (keystore/file_format.h).
 *
 * Invariants: on success every field is non-empty and holds no NUL; serialising the records
 * and parsing the result gives back the same records (the file survives a save); an error
 * is KS_ERR_CORRUPT (or out of memory) with a message naming the file, and leaves no
 * records. */
#include "keystore/file_format.h"
#include "tests/fuzz/fuzz_common.h"

#include <string.h>

static void wipe_free(char *buf, size_t len)
{
    if (buf)
        explicit_bzero(buf, len);
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ksf_record *recs;
    size_t n;
    ks_error err = {0};
    ks_code rc = ksf_parse((const char *)data, size, "passwords", &recs, &n, &err);
    if (rc != KS_OK) {
        FUZZ_CHECK(rc == KS_ERR_CORRUPT || rc == KS_ERR_NOMEM);
        FUZZ_CHECK(recs == NULL && n == 0);
        FUZZ_CHECK(strstr(err.message, "passwords") != NULL);
        return 0;
    }
    for (size_t i = 0; i < n; i++)
        FUZZ_CHECK(recs[i].box[0] && recs[i].sid[0] && recs[i].password[0]);

    size_t len;
    char *text = ksf_serialize(recs, n, &len);
    FUZZ_CHECK(text != NULL);
    FUZZ_CHECK(strlen(text) == len);
    ksf_record *back;
    size_t m;
    rc = ksf_parse(text, len, "passwords", &back, &m, &err);
    FUZZ_CHECK(rc == KS_OK);
    FUZZ_CHECK(m == n);
    for (size_t i = 0; i < n; i++) {
        FUZZ_CHECK(strcmp(back[i].box, recs[i].box) == 0);
        FUZZ_CHECK(strcmp(back[i].sid, recs[i].sid) == 0);
        FUZZ_CHECK(strcmp(back[i].password, recs[i].password) == 0);
    }
    ksf_records_free(back, m);
    wipe_free(text, len);
    ksf_records_free(recs, n);
    return 0;
}
