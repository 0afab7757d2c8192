/* The machine id (machine_id.h): read <state_dir>/machine-id, or make it from getrandom and
 * publish it with an exclusive link, so a racing second process reads the first one's. */
#include "core/util/machine_id.h"

#include "core/util/fs.h"
#include "core/util/str.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

int e2b_machine_id_valid(const char *s, size_t len)
{
    if (len != E2B_MACHINE_ID_LEN)
        return 0;
    for (size_t i = 0; i < len; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return 1;
}

/* 1 with the id in out, 0 when the file is missing or holds no id, -1 on another error. */
static int read_id(const char *path, char out[E2B_MACHINE_ID_LEN + 1])
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return errno == ENOENT ? 0 : -1;
    char buf[E2B_MACHINE_ID_LEN + 2];
    ssize_t n = read(fd, buf, sizeof buf);
    close(fd);
    if (n > 0 && buf[n - 1] == '\n')
        n--;
    if (n < 0 || !e2b_machine_id_valid(buf, (size_t)n))
        return 0;
    memcpy(out, buf, E2B_MACHINE_ID_LEN);
    out[E2B_MACHINE_ID_LEN] = '\0';
    return 1;
}

e2b_error *e2b_machine_id(const char *state_dir, char out[E2B_MACHINE_ID_LEN + 1])
{
    char *path = e2b_strfmt("%s/machine-id", state_dir ? state_dir : ".");
    if (!path)
        return e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
    e2b_error *err = NULL;
    out[0] = '\0';
    for (int attempt = 0; attempt < 3 && !err; attempt++) {
        int r = read_id(path, out);
        if (r == 1)
            break;
        if (r < 0) {
            err = e2b_error_new(E2B_ERR_IO, "cannot read %s: %s", path, strerror(errno));
            break;
        }
        unsigned char raw[E2B_MACHINE_ID_LEN / 2];
        char text[E2B_MACHINE_ID_LEN + 2];
        if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw) {
            err = e2b_error_new(E2B_ERR_INTERNAL, "no random bytes for the machine id");
            break;
        }
        for (size_t i = 0; i < sizeof raw; i++)
            snprintf(text + 2 * i, 3, "%02x", raw[i]);
        text[E2B_MACHINE_ID_LEN] = '\n';
        /* A file that holds no id is replaced; a missing one is made exclusively (a racing
         * process that made it first wins, and the next round reads its id). */
        unsigned flags = access(path, F_OK) == 0 ? 0 : E2B_REPLACE_EXCLUSIVE;
        if (e2b_mkdir_private(state_dir) != 0 ||
            (e2b_replace_file(state_dir, "machine-id", text, E2B_MACHINE_ID_LEN + 1, 0600, flags) != 0 &&
             errno != EEXIST))
            err = e2b_error_new(E2B_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    }
    if (!err && !e2b_machine_id_valid(out, strlen(out)))
        err = e2b_error_new(E2B_ERR_IO, "%s holds no machine id", path);
    free(path);
    return err;
}
