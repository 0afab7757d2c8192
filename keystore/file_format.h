/* The text format of the file backend (pure functions, no I/O).
 *
 *   # e2b-tui box passwords: keep this file private (mode 0600)
 *   <box>\t<sandbox id>\t<password>\n        one line per entry
 *
 * Each field is percent-encoded: '%', '#', bytes below 0x21 and 0x7f become %XX, so a field
 * never holds a tab or newline and a line never starts with a raw '#'. Lines starting with '#'
 * and empty lines are ignored. */
#ifndef E2B_KS_FILE_FORMAT_H
#define E2B_KS_FILE_FORMAT_H

#include "keystore/keystore.h"

typedef struct {
    char *box, *sid, *password;
} ksf_record;

/* Parses buf[0..len). On KS_OK *recs is a malloc'd array of *n records (free with
 * ksf_records_free, which wipes the passwords). On KS_ERR_CORRUPT the message names the line;
 * `name` is the file name used in messages. Never quotes a password. */
ks_code ksf_parse(const char *buf, size_t len, const char *name, ksf_record **recs, size_t *n,
                  ks_error *err);

/* Serialises the records (with the header line) into a malloc'd buffer of *len bytes; the
 * caller wipes (explicit_bzero) and frees it. NULL when out of memory. */
char *ksf_serialize(const ksf_record *recs, size_t n, size_t *len);

void ksf_records_free(ksf_record *recs, size_t n);

#endif
