/* How a file or folder looked when the model last read it (live_internal.h "stamps"): one
 * stat says whether another process may have written it since. An atomic write (temp file
 * + rename) changes the folder's time and the file's inode; a time this close to now may
 * hide a second write within the same clock tick (or an inode number used again), so such
 * a stamp says "changed" once more at the next look. */
#include "core/live/live_internal.h"

#include <sys/stat.h>
#include <time.h>

enum { RECENT_NS = 2000000000 };

static bool recent(const struct timespec *t)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    long long d = (long long)(now.tv_sec - t->tv_sec) * 1000000000LL + (now.tv_nsec - t->tv_nsec);
    return d < RECENT_NS;
}

bool live_stamp_take(const char *path, struct live_stamp *was)
{
    struct stat st;
    struct live_stamp now = {.loaded = true, .exists = path && stat(path, &st) == 0};
    if (now.exists) {
        now.dev = st.st_dev;
        now.ino = st.st_ino;
        now.size = st.st_size;
        now.mtime = st.st_mtim;
    }
    bool same = was->loaded && !was->recent && was->exists == now.exists &&
                was->dev == now.dev && was->ino == now.ino && was->size == now.size &&
                was->mtime.tv_sec == now.mtime.tv_sec && was->mtime.tv_nsec == now.mtime.tv_nsec;
    if (same)
        return false;
    now.recent = now.exists && recent(&now.mtime);
    *was = now;
    return true;
}
