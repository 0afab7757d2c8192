#include "core/util/log.h"

#include "core/util/fs.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static int log_fd = -1;

/* ---- rotation (self-contained: the state and functions of the cap) ----
 * The log is capped at log_max bytes: a line that would take it past the cap first moves
 * it to <path>.1 (replacing the older one) and starts a new file, so the log and its one
 * old file together stay within about twice the cap.
 * Several e2b-tui processes may append to the same log (O_APPEND: each line lands whole).
 * Among them rotation is serialised with flock on the file being rotated: the holder checks
 * that <path> is still the file it writes to (else another process rotated it already and
 * it only reopens <path>) before it renames it. A process whose file was rotated or removed
 * by another notices before its next line (<path> is no longer its file) and reopens
 * <path>. So no file is rotated twice, <path>.1 is always one whole earlier log, and no
 * line is lost: a line written in the moment of a rotation ends up in <path>.1. */

#define LOG_MAX_DEFAULT (4L * 1024 * 1024)

static long log_max = LOG_MAX_DEFAULT;
static char *log_path; /* the path given to e2b_log_open (for rotation) */

/* Before a line of n bytes (log_lock held): reopen when <path> is no longer our file,
 * rotating it first when the line would take it past the cap. */
static void log_rotate_check(size_t n)
{
    struct stat fst;
    if (log_fd < 0 || !log_path || fstat(log_fd, &fst) < 0 ||
        !e2b_log_file_rotate(log_fd, log_path, n, log_max))
        return;
    int fd = e2b_log_file_open(log_path);
    if (fd < 0)
        return;
    /* stderr sent to the log (while curses is active) follows it to the new file. */
    struct stat est;
    if (fstat(STDERR_FILENO, &est) == 0 && est.st_ino == fst.st_ino && est.st_dev == fst.st_dev)
        dup2(fd, STDERR_FILENO);
    /* The same descriptor number: e2b_log_fd()'s callers may hold it. */
    if (dup3(fd, log_fd, O_CLOEXEC) >= 0)
        close(fd);
    else {
        close(log_fd);
        log_fd = fd;
    }
}

void e2b_log_set_max(long bytes)
{
    pthread_mutex_lock(&log_lock);
    log_max = bytes > 0 ? bytes : LOG_MAX_DEFAULT;
    pthread_mutex_unlock(&log_lock);
}

/* ---- end of rotation ---- */

e2b_error *e2b_log_open(const char *path)
{
    char *dir = strdup(path), *slash;
    struct stat st;
    int fd;
    if (!dir)
        return e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
    slash = strrchr(dir, '/');
    if (slash && slash != dir) {
        *slash = '\0';
        if (e2b_mkdir_private(dir) < 0) {
            e2b_error *e = e2b_error_new(E2B_ERR_IO, "cannot create the log directory %s: %s",
                                         dir, strerror(errno));
            free(dir);
            return e;
        }
    }
    free(dir);
    fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return e2b_error_new(E2B_ERR_IO, "cannot open the log file %s: %s", path,
                             strerror(errno));
    if (fchmod(fd, 0600) < 0) {
        close(fd);
        return e2b_error_new(E2B_ERR_IO, "cannot make the log file %s private: %s", path,
                             strerror(errno));
    }
    char *copy = strdup(path);
    if (!copy) {
        close(fd);
        return e2b_error_new(E2B_ERR_INTERNAL, "out of memory");
    }
    pthread_mutex_lock(&log_lock);
    if (log_fd >= 0)
        close(log_fd);
    log_fd = fd;
    free(log_path);
    log_path = copy;
    if (fstat(fd, &st) == 0 && st.st_size > log_max) /* left over the cap by an older run */
        log_rotate_check(0);
    pthread_mutex_unlock(&log_lock);
    return NULL;
}

void e2b_log_close(void)
{
    pthread_mutex_lock(&log_lock);
    if (log_fd >= 0)
        close(log_fd);
    log_fd = -1;
    free(log_path);
    log_path = NULL;
    pthread_mutex_unlock(&log_lock);
}

int e2b_log_fd(void)
{
    return log_fd;
}

/* Writes one line: a UTC timestamp, then text with control characters replaced. */
static void write_line(const char *text)
{
    char stamp[40], *line = NULL;
    struct timespec ts;
    struct tm tm;
    int n;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tm);
    n = asprintf(&line, "%s.%03ldZ %s\n", stamp, ts.tv_nsec / 1000000, text);
    if (n < 0)
        return;
    for (int i = 0; i < n - 1; i++)
        if ((unsigned char)line[i] < 0x20 || line[i] == 0x7f)
            line[i] = '?';
    pthread_mutex_lock(&log_lock);
    log_rotate_check((size_t)n);
    if (log_fd >= 0) {
        ssize_t w = write(log_fd, line, (size_t)n);
        (void)w; /* a full disk must not stop the program */
    }
    pthread_mutex_unlock(&log_lock);
    free(line);
}

void e2b_log_request(const char *method, const char *path, long status, long ms,
                     const char *trace_id, const char *error)
{
    char *text = NULL;
    size_t plen;
    if (log_fd < 0)
        return;
    plen = path ? strcspn(path, "?#") : 0;
    if (asprintf(&text, "%s %.*s %ld %ldms%s%s%s%s", method ? method : "?", (int)plen,
                 path ? path : "", status, ms, trace_id ? " trace=" : "", trace_id ? trace_id : "",
                 error ? " error: " : "", error ? error : "") < 0)
        return;
    write_line(text);
    free(text);
}

void e2b_logf(const char *fmt, ...)
{
    va_list ap;
    char *text = NULL;
    int n;
    if (log_fd < 0)
        return;
    va_start(ap, fmt);
    n = vasprintf(&text, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    write_line(text);
    free(text);
}
