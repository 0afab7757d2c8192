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

#define LOG_ROTATE_BYTES (4L * 1024 * 1024)

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static int log_fd = -1;

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
    if (stat(path, &st) == 0 && st.st_size > LOG_ROTATE_BYTES) {
        char old[4096];
        snprintf(old, sizeof old, "%s.1", path);
        rename(path, old);
    }
    fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return e2b_error_new(E2B_ERR_IO, "cannot open the log file %s: %s", path,
                             strerror(errno));
    if (fchmod(fd, 0600) < 0) {
        close(fd);
        return e2b_error_new(E2B_ERR_IO, "cannot make the log file %s private: %s", path,
                             strerror(errno));
    }
    pthread_mutex_lock(&log_lock);
    if (log_fd >= 0)
        close(log_fd);
    log_fd = fd;
    pthread_mutex_unlock(&log_lock);
    return NULL;
}

void e2b_log_close(void)
{
    pthread_mutex_lock(&log_lock);
    if (log_fd >= 0)
        close(log_fd);
    log_fd = -1;
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
