/* envd, the in-sandbox daemon (port 49983): /health, /files and the Connect-JSON
 * process.Process and filesystem.Filesystem services. */
#include "envelope.h"
#include "fs.h"
#include "http.h"
#include "lifecycle.h"
#include "process.h"
#include "sandbox.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* ---- common ------------------------------------------------------------------------- */

/* Checks that the sandbox runs (resuming it when it auto-resumes) and copies its token.
 * Returns false after replying with the proxy's 502. */
static bool sandbox_ready(struct req *r, char *token, size_t toklen, enum MHD_Result *rc)
{
    pthread_mutex_lock(&g_lock);
    struct sandbox *sb = sandbox_find_locked(r->sandbox_id);
    if (sb && sb->state == SB_PAUSED && sb->auto_resume) {
        lifecycle_resume_locked(sb);
        if (sb->end_ms < now_ms() + 300000)
            sb->end_ms = now_ms() + 300000;
    }
    bool ok = sb && sb->state == SB_RUNNING;
    if (ok)
        snprintf(token, toklen, "%s", sb->envd_token);
    pthread_mutex_unlock(&g_lock);
    if (!ok)
        *rc = reply_proxy_502(r, "The sandbox was not found", 0);
    return ok;
}

static bool token_ok(struct req *r, const char *token)
{
    const char *got = req_header(r, "X-Access-Token");
    return got && strcmp(got, token) == 0;
}

/* The user from "Authorization: Basic base64(user:)"; default "user". NULL when unknown. */
static const char *rpc_user(struct req *r)
{
    const char *auth = req_header(r, "Authorization");
    if (!auth || strncasecmp(auth, "Basic ", 6) != 0)
        return "user";
    size_t n;
    unsigned char *raw = b64_decode(auth + 6, &n);
    if (!raw)
        return NULL;
    const char *user = NULL;
    if (n >= 5 && memcmp(raw, "user:", 5) == 0)
        user = "user";
    else if (n >= 5 && memcmp(raw, "root:", 5) == 0)
        user = "root";
    free(raw);
    return user;
}

static const char *query_user(struct req *r)
{
    char *u = req_query(r, "username", NULL);
    const char *user = !u || !*u || strcmp(u, "user") == 0 ? "user" : strcmp(u, "root") == 0 ? "root" : NULL;
    free(u);
    return user;
}

static enum MHD_Result envd_json_error(struct req *r, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static enum MHD_Result envd_json_error(struct req *r, int status, const char *fmt, ...)
{
    char msg[8400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return reply_json(r, status, json_pack("{s:i, s:s}", "code", status, "message", msg));
}

/* ---- GET /files --------------------------------------------------------------------- */

struct fd_stream {
    int fd;
};

static ssize_t fd_read(void *cls, char *buf, size_t max)
{
    struct fd_stream *s = cls;
    ssize_t n;
    do {
        n = read(s->fd, buf, max);
    } while (n < 0 && errno == EINTR);
    if (n == 0)
        return MHD_CONTENT_READER_END_OF_STREAM;
    return n < 0 ? MHD_CONTENT_READER_END_WITH_ERROR : n;
}

static void fd_free(void *cls)
{
    struct fd_stream *s = cls;
    close(s->fd);
    free(s);
}

static enum MHD_Result files_get(struct req *r)
{
    const char *user = query_user(r);
    char *path = req_query(r, "path", NULL);
    if (!user) {
        free(path);
        return envd_json_error(r, 401, "%s", "unknown user");
    }
    if (!path || !*path) {
        free(path);
        return envd_json_error(r, 400, "%s", "path is required");
    }
    struct fsroot fr;
    if (fs_resolve(r->sandbox_id, user, path, &fr) != 0) {
        free(path);
        return envd_json_error(r, 502, "%s", "the sandbox's files are gone");
    }
    free(path);
    int fd = fs_open(&fr, fr.rel, O_RDONLY, 0);
    int e = errno;
    struct stat st;
    enum MHD_Result rc;
    if (fd < 0) {
        rc = envd_json_error(r, e == ENOENT ? 404 : e == EACCES ? 401 : 400, "path %s: not found or not readable",
                             fr.abs);
    } else if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
        close(fd);
        rc = envd_json_error(r, 400, "path %s is a directory", fr.abs);
    } else {
        struct fd_stream *s = malloc(sizeof *s);
        s->fd = fd;
        char disp[4200];
        const char *slash = strrchr(fr.abs, '/');
        snprintf(disp, sizeof disp, "attachment; filename=\"%s\"", slash ? slash + 1 : fr.abs);
        req_add_header(r, "Content-Disposition", disp);
        rc = reply_stream(r, 200, "application/octet-stream", (uint64_t)st.st_size, fd_read, s, fd_free);
    }
    fs_release(&fr);
    return rc;
}

/* ---- POST /files (streamed) --------------------------------------------------------- */

struct upload {
    char user[8];
    char *path_q;        /* ?path= */
    bool octet;
    bool gzip;
    bool z_ready;
    z_stream z;
    struct MHD_PostProcessor *pp;
    int fd;              /* the file being written */
    struct fsroot fr;    /* of that file */
    bool have_fr;
    json_t *written;     /* reply entries */
    char *part_name;     /* filename of the part being written */
    uint64_t part_bytes; /* bytes of it so far */
    int err_status;      /* first error: the upload is then discarded */
    char err[8400];
};

static void upload_fail(struct upload *u, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void upload_fail(struct upload *u, int status, const char *fmt, ...)
{
    if (u->err_status)
        return;
    u->err_status = status;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(u->err, sizeof u->err, fmt, ap);
    va_end(ap);
}

static void upload_close_file(struct upload *u)
{
    if (u->fd >= 0)
        close(u->fd);
    u->fd = -1;
    if (u->have_fr)
        fs_release(&u->fr);
    u->have_fr = false;
}

/* An upload's destination opened as envd opens it (create or truncate, then a copy). A
 * FIFO is written like a file once its reader has it open, as with envd; a FIFO whose
 * reader does not come within 30 s fails (ENXIO) rather than hold this connection's thread
 * (and the server's shutdown) for ever. */
static int upload_open_dest(const struct fsroot *fr)
{
    for (int waited_ms = 0;; waited_ms += 10) {
        int fd = fs_open(fr, fr->rel, O_WRONLY | O_CREAT | O_TRUNC | O_NONBLOCK, 0644);
        if (fd >= 0) {
            int fl = fcntl(fd, F_GETFL);
            if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
                close(fd);
                return -1;
            }
            return fd;
        }
        if (errno != ENXIO || waited_ms >= 30000)
            return -1;
        usleep(10000);
    }
}

static void upload_open_file(struct upload *u, struct req *r, const char *dest)
{
    upload_close_file(u);
    if (!dest || !*dest) {
        upload_fail(u, 400, "%s", "a file part needs a filename (the destination path) or ?path=");
        return;
    }
    if (fs_resolve(r->sandbox_id, u->user, dest, &u->fr) != 0) {
        upload_fail(u, 502, "%s", "the sandbox's files are gone");
        return;
    }
    u->have_fr = true;
    size_t i;
    json_t *w;
    json_array_foreach(u->written, i, w) {
        if (strcmp(json_string_value(json_object_get(w, "path")), u->fr.abs) == 0) {
            upload_fail(u, 400, "two parts write the same path %s", u->fr.abs);
            return;
        }
    }
    if (fs_mkdirs(&u->fr, u->fr.rel, false) != 0) {
        upload_fail(u, errno == ENOSPC ? 507 : 400, "cannot create the directories of %s", u->fr.abs);
        return;
    }
    u->fd = upload_open_dest(&u->fr);
    if (u->fd < 0) {
        upload_fail(u, errno == EISDIR ? 400 : errno == ENOSPC ? 507 : 400, "cannot write %s", u->fr.abs);
        return;
    }
    if (fchown(u->fd, u->fr.uid, u->fr.gid) != 0) {
        /* best effort when not root */
    }
    const char *slash = strrchr(u->fr.abs, '/');
    json_array_append_new(u->written, json_pack("{s:s, s:s, s:s}", "path", u->fr.abs, "name",
                                                slash ? slash + 1 : u->fr.abs, "type", "file"));
}

static void upload_write(struct upload *u, const char *data, size_t len)
{
    size_t off = 0;
    while (!u->err_status && u->fd >= 0 && off < len) {
        ssize_t n = write(u->fd, data + off, len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            upload_fail(u, errno == ENOSPC ? 507 : 500, "cannot write %s", u->fr.abs);
            return;
        }
        off += (size_t)n;
    }
}

static enum MHD_Result post_part(void *cls, enum MHD_ValueKind kind, const char *key, const char *filename,
                                 const char *content_type, const char *transfer_encoding, const char *data,
                                 uint64_t off, size_t size)
{
    (void)kind;
    (void)content_type;
    (void)transfer_encoding;
    struct req *r = cls;
    struct upload *u = r->upload;
    if (u->err_status || !key || strcmp(key, "file") != 0)
        return MHD_YES;
    /* libmicrohttpd may announce a part with an empty chunk first: same part, not a new one. */
    bool same_part = u->part_name && filename && strcmp(u->part_name, filename) == 0 && u->part_bytes == 0;
    if (off == 0 && !same_part) {
        free(u->part_name);
        u->part_name = filename ? strdup(filename) : NULL;
        u->part_bytes = 0;
        if (u->path_q && json_array_size(u->written) > 0) {
            upload_fail(u, 400, "%s", "with ?path= only one file part is allowed");
            return MHD_YES;
        }
        upload_open_file(u, r, u->path_q ? u->path_q : filename);
    }
    u->part_bytes += size;
    upload_write(u, data, size);
    return MHD_YES;
}

bool envd_upload_begin(struct req *r)
{
    struct upload *u = calloc(1, sizeof *u);
    u->fd = -1;
    u->written = json_array();
    r->upload = u;
    char token[64];
    enum MHD_Result ignored;
    const char *user = query_user(r);
    const char *ctype = req_header(r, "Content-Type");
    const char *cenc = req_header(r, "Content-Encoding");
    if (!sandbox_ready(r, token, sizeof token, &ignored))
        return true; /* 502 already queued: the body is discarded */
    if (!token_ok(r, token)) {
        upload_fail(u, 401, "%s", "missing or wrong X-Access-Token");
        return true;
    }
    if (!user) {
        upload_fail(u, 401, "%s", "unknown user");
        return true;
    }
    snprintf(u->user, sizeof u->user, "%s", user);
    u->path_q = req_query(r, "path", NULL);
    if (ctype && strncasecmp(ctype, "multipart/form-data", 19) == 0) {
        u->pp = MHD_create_post_processor(r->conn, 65536, post_part, r);
        if (!u->pp)
            upload_fail(u, 400, "%s", "malformed multipart/form-data request");
    } else {
        u->octet = true;
        if (!u->path_q || !*u->path_q) {
            upload_fail(u, 400, "%s", "an octet-stream upload needs ?path=");
            return true;
        }
        if (cenc && strcasecmp(cenc, "gzip") == 0) {
            u->gzip = true;
            if (inflateInit2(&u->z, 16 + MAX_WBITS) != Z_OK)
                upload_fail(u, 500, "%s", "zlib failed");
            else
                u->z_ready = true;
        } else if (cenc && *cenc && strcasecmp(cenc, "identity") != 0) {
            upload_fail(u, 400, "unsupported Content-Encoding %s", cenc);
            return true;
        }
        upload_open_file(u, r, u->path_q);
    }
    return true;
}

void envd_upload_data(struct req *r, const char *data, size_t len)
{
    struct upload *u = r->upload;
    if (u->err_status || r->replied)
        return;
    if (u->pp) {
        if (MHD_post_process(u->pp, data, len) != MHD_YES)
            upload_fail(u, 400, "%s", "malformed multipart/form-data body");
        return;
    }
    if (!u->gzip) {
        upload_write(u, data, len);
        return;
    }
    char out[65536];
    u->z.next_in = (Bytef *)data;
    u->z.avail_in = (uInt)len;
    while (u->z.avail_in > 0 && !u->err_status) {
        u->z.next_out = (Bytef *)out;
        u->z.avail_out = sizeof out;
        int zr = inflate(&u->z, Z_NO_FLUSH);
        if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR) {
            upload_fail(u, 400, "%s", "the gzip body is corrupt");
            return;
        }
        upload_write(u, out, sizeof out - u->z.avail_out);
        if (zr == Z_STREAM_END || (zr == Z_BUF_ERROR && u->z.avail_out != 0))
            break;
    }
}

void envd_upload_free(struct req *r)
{
    struct upload *u = r->upload;
    if (!u)
        return;
    upload_close_file(u);
    if (u->pp)
        MHD_destroy_post_processor(u->pp);
    if (u->z_ready)
        inflateEnd(&u->z);
    json_decref(u->written);
    free(u->part_name);
    free(u->path_q);
    free(u);
    r->upload = NULL;
}

static enum MHD_Result files_post_done(struct req *r)
{
    struct upload *u = r->upload;
    if (!u)
        return envd_json_error(r, 500, "%s", "upload state missing");
    if (u->pp && !u->err_status) {
        MHD_destroy_post_processor(u->pp);
        u->pp = NULL;
    }
    if (u->octet && u->fd < 0 && !u->err_status)
        upload_fail(u, 400, "%s", "nothing was written");
    upload_close_file(u);
    if (u->err_status)
        return envd_json_error(r, u->err_status, "%s", u->err);
    return reply_json(r, 200, json_incref(u->written));
}

/* ---- process.Process ------------------------------------------------------------------ */

/* Errors of streaming calls travel in the end-of-stream message with status 200. */
static enum MHD_Result stream_error(struct req *r, const char *code, const char *msg)
{
    struct bytes b = {0};
    json_t *eos = json_pack("{s:{s:s, s:s}}", "error", "code", code, "message", msg);
    envelope_append(&b, ENVELOPE_END_STREAM, eos);
    json_decref(eos);
    enum MHD_Result rc = reply_raw(r, 200, "application/connect+json", b.data, b.len);
    bytes_free(&b);
    return rc;
}

static int parse_signal(json_t *v)
{
    if (json_is_integer(v))
        return (int)json_integer_value(v);
    const char *s = json_string_value(v);
    if (!s)
        return 0;
    static const struct {
        const char *name;
        int sig;
    } sigs[] = {{"SIGNAL_SIGKILL", SIGKILL}, {"SIGNAL_SIGTERM", SIGTERM}, {"SIGNAL_SIGINT", SIGINT},
                {"SIGNAL_SIGHUP", SIGHUP}, {"SIGNAL_SIGQUIT", SIGQUIT}, {"SIGNAL_SIGUSR1", SIGUSR1},
                {"SIGNAL_SIGUSR2", SIGUSR2}};
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
        if (strcmp(s, sigs[i].name) == 0)
            return sigs[i].sig;
    return 0;
}

static enum MHD_Result process_stream(struct req *r, const char *method, json_t *msg, const char *user)
{
    const char *ka = req_header(r, "Keepalive-Ping-Interval");
    const char *ct = req_header(r, "Connect-Timeout-Ms");
    int keepalive = ka ? atoi(ka) : 90;
    long long lifetime = ct ? atoll(ct) : 0;
    struct sub *sub = NULL;
    char err[512] = "";
    const char *code = "internal";
    pthread_mutex_lock(&g_lock);
    struct sandbox *sb = sandbox_find_locked(r->sandbox_id);
    if (!sb || sb->state != SB_RUNNING) {
        code = "unavailable";
        snprintf(err, sizeof err, "the sandbox is not running");
    } else if (strcmp(method, "Start") == 0) {
        proc_start_locked(sb, msg, user, lifetime, &sub, &code, err, sizeof err);
    } else {
        json_t *sel = json_object_get(msg, "process");
        int pid = (int)json_integer_value(json_object_get(sel, "pid"));
        const char *tag = json_string_value(json_object_get(sel, "tag"));
        struct proc *p = proc_find_locked(sb, pid, tag);
        if (p) {
            sub = proc_subscribe(p);
        } else {
            code = "not_found";
            snprintf(err, sizeof err, "process %s not found", tag ? tag : "with that pid");
        }
    }
    pthread_mutex_unlock(&g_lock);
    if (!sub)
        return stream_error(r, code, err);
    sub_set_keepalive(sub, keepalive > 0 ? keepalive : 90);
    return reply_stream(r, 200, "application/connect+json", MHD_SIZE_UNKNOWN, sub_read, sub, sub_free);
}

static enum MHD_Result process_unary(struct req *r, const char *method, json_t *msg)
{
    pthread_mutex_lock(&g_lock);
    struct sandbox *sb = sandbox_find_locked(r->sandbox_id);
    if (!sb || sb->state != SB_RUNNING) {
        pthread_mutex_unlock(&g_lock);
        return reply_connect_error(r, "unavailable", "the sandbox is not running");
    }
    if (strcmp(method, "List") == 0) {
        json_t *out = proc_list_json_locked(sb);
        pthread_mutex_unlock(&g_lock);
        return reply_json(r, 200, out);
    }
    json_t *sel = json_object_get(msg, "process");
    int pid = (int)json_integer_value(json_object_get(sel, "pid"));
    const char *tag = json_string_value(json_object_get(sel, "tag"));
    struct proc *p = proc_find_locked(sb, pid, tag);
    pthread_mutex_unlock(&g_lock);
    if (!p)
        return reply_connect_error(r, "not_found", "process %d not found", pid);
    enum MHD_Result rc;
    if (strcmp(method, "SendSignal") == 0) {
        int sig = parse_signal(json_object_get(msg, "signal"));
        if (sig <= 0)
            rc = reply_connect_error(r, "invalid_argument", "unknown signal");
        else if (proc_signal(p, sig) != 0)
            rc = reply_connect_error(r, "not_found", "process %d is gone", pid);
        else
            rc = reply_json(r, 200, json_object());
    } else if (strcmp(method, "SendInput") == 0) {
        json_t *input = json_object_get(msg, "input");
        const char *b64 = json_string_value(json_object_get(input, "stdin"));
        size_t n = 0;
        unsigned char *data = b64 ? b64_decode(b64, &n) : NULL;
        if (json_object_get(input, "pty"))
            rc = reply_connect_error(r, "unimplemented", "PTY input is not supported by e2b-local");
        else if (!data)
            rc = reply_connect_error(r, "invalid_argument", "input.stdin must be base64");
        else if (proc_write_stdin(p, data, n) != 0)
            rc = reply_connect_error(r, "failed_precondition", "stdin of process %d is closed", pid);
        else
            rc = reply_json(r, 200, json_object());
        free(data);
    } else if (strcmp(method, "CloseStdin") == 0) {
        proc_close_stdin(p);
        rc = reply_json(r, 200, json_object());
    } else if (strcmp(method, "Update") == 0) {
        rc = reply_connect_error(r, "unimplemented", "PTY resize is not supported by e2b-local");
    } else {
        rc = reply_connect_error(r, "unimplemented", "process.Process/%s is not implemented", method);
    }
    proc_unref(p);
    return rc;
}

/* ---- routing ------------------------------------------------------------------------ */

enum MHD_Result envd_handle(struct req *r)
{
    const char *p = r->path, *m = r->method;
    if (r->upload) {
        if (r->replied)
            return MHD_YES;
        return files_post_done(r);
    }
    char token[64];
    enum MHD_Result rc;
    /* Like E2B's edge proxy: a sandbox that is unknown, paused or killed answers 502 before
     * envd is reached, /health included (the SDK's isRunning relies on it). */
    if (!sandbox_ready(r, token, sizeof token, &rc))
        return rc;
    if (strcmp(p, "/health") == 0)
        return reply_empty(r, 204);
    if (!token_ok(r, token))
        return envd_json_error(r, 401, "%s", "missing or wrong X-Access-Token");
    if (strcmp(p, "/files") == 0 && strcmp(m, "GET") == 0)
        return files_get(r);
    bool proc = strncmp(p, "/process.Process/", 17) == 0;
    bool fs = strncmp(p, "/filesystem.Filesystem/", 23) == 0;
    if ((!proc && !fs) || strcmp(m, "POST") != 0)
        return envd_json_error(r, 404, "no such envd endpoint: %s", p);
    const char *method = p + (proc ? 17 : 23);
    const char *user = rpc_user(r);
    bool streaming = proc && (strcmp(method, "Start") == 0 || strcmp(method, "Connect") == 0);
    const char *ctype = req_header(r, "Content-Type");
    bool enveloped = ctype && strncasecmp(ctype, "application/connect+json", 24) == 0;
    json_t *msg;
    const char *why = "the body must be a JSON object";
    if (enveloped) {
        msg = envelope_parse_one(r->body.data, r->body.len, &why);
    } else {
        json_error_t jerr;
        msg = r->body.len ? json_loadb(r->body.data, r->body.len, 0, &jerr) : json_object();
        if (!json_is_object(msg)) {
            json_decref(msg);
            msg = NULL;
        }
    }
    if (streaming && !enveloped) {
        json_decref(msg);
        return reply_connect_error(r, "invalid_argument", "streaming calls need application/connect+json");
    }
    if (!msg)
        return streaming ? stream_error(r, "invalid_argument", why)
                         : reply_connect_error(r, "invalid_argument", "%s", why);
    if (!user) {
        json_decref(msg);
        return streaming ? stream_error(r, "unauthenticated", "unknown user")
                         : reply_connect_error(r, "unauthenticated", "unknown user");
    }
    if (streaming)
        rc = process_stream(r, method, msg, user);
    else if (proc)
        rc = process_unary(r, method, msg);
    else {
        const char *code = "internal";
        char err[600] = "";
        json_t *out = fs_rpc(method, r->sandbox_id, user, msg, &code, err, sizeof err);
        rc = out ? reply_json(r, 200, out) : reply_connect_error(r, code, "%s", err);
    }
    json_decref(msg);
    return rc;
}
