/* up's extraction, overlapped with the upload: a process in the box makes one FIFO per
 * archive and a tar reading each; once it says the FIFOs exist, every archive is sent into
 * its FIFO at once, so the box extracts while the archives are still being made and sent.
 * The end waits for the process and every upload; the first failure cancels the rest (an
 * upload that never reached its FIFO would leave its tar waiting forever). */
#include "core/box/box_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Runs as root: the project directory may need parents that the user cannot make. What a
 * tar leaves unread (the end padding, or everything after an error) is drained, so the
 * sender never sees a broken pipe and the tar's own message is the one reported. */
static const char EXTRACT_SCRIPT[] =
    "set -u; d=$E2B_TUI_DIR; f=$E2B_TUI_FIFO\n"
    "mkdir -p -- \"$d\" && mkdir -m 700 -- \"$f\" || exit 1\n"
    "for n in $E2B_TUI_STREAMS; do mkfifo -m 600 -- \"$f/${n%:*}\" || exit 1; done\n"
    "echo E2B-TUI-READY\n"
    "x() { { tar \"-x${2}f\" - -C \"$d\" --no-same-owner; r=$?; cat >/dev/null; exit $r; } <\"$f/$1\"; }\n"
    "pids=()\n"
    "for n in $E2B_TUI_STREAMS; do z=${n#*:}; x \"${n%:*}\" \"${z#-}\" & pids+=($!); done\n"
    "rc=0\n"
    "for p in \"${pids[@]}\"; do wait \"$p\" || rc=1; done\n"
    "rm -rf -- \"$f\"\n"
    "[ \"$rc\" = 0 ] || exit 1\n"
    "chown -R user: -- \"$d\"\n";

static const char READY[] = "E2B-TUI-READY\n";

static int streams_running(const e2b_box_op *op)
{
    if (op->stream_timer)
        return 1;
    for (size_t i = 0; i < op->nstreams; i++)
        if (op->streams[i].http)
            return 1;
    return 0;
}

static void maybe_done(e2b_box_op *op);

void box_up_streams_cancel(e2b_box_op *op)
{
    if (op->stream_timer) { /* nothing was sent yet */
        e2b_loop_timer_cancel(op->env.loop, op->stream_timer);
        op->stream_timer = 0;
        op->pending--;
    }
    for (size_t i = 0; i < op->nstreams; i++)
        if (op->streams[i].http)
            e2b_http_cancel(op->streams[i].http);
}

/* Both archives' progress added up. */
static void streams_progress(e2b_box_op *op, tarball_progress *sum)
{
    memset(sum, 0, sizeof *sum);
    for (size_t i = 0; i < op->nstreams; i++) {
        tarball_progress tp;
        tarball_get_progress(op->streams[i].tar, &tp);
        sum->bytes_done += tp.bytes_done;
        sum->bytes_total += tp.bytes_total;
        sum->files_total += tp.files_total;
        sum->out_bytes += tp.out_bytes;
    }
}

/* Once the process and every upload are done: the first failure, in the order a user can
 * act on (the local read, the upload, the box's extraction). */
static void maybe_done(e2b_box_op *op)
{
    if (!op->extract_ended || streams_running(op))
        return;
    void (*then)(e2b_box_op *, e2b_error *, const char *) = op->extract_then;
    op->extract_then = NULL;
    if (!then)
        return;
    tarball_progress tp;
    streams_progress(op, &tp);
    op->res.files = tp.files_total;
    op->res.bytes_in = tp.bytes_total;
    op->res.bytes_sent = tp.out_bytes;
    for (size_t i = 0; i < op->nstreams; i++)
        if (tarball_error(op->streams[i].tar)) {
            then(op, e2b_error_copy(tarball_error(op->streams[i].tar)), "reading the project");
            return;
        }
    /* The upload that failed by itself, not one cancelled because of it. */
    for (size_t i = 0; i < op->nstreams; i++)
        if (op->streams[i].err && op->streams[i].err->kind != E2B_ERR_CANCELLED) {
            e2b_error *e = op->streams[i].err;
            op->streams[i].err = NULL;
            then(op, e, "uploading the project");
            return;
        }
    for (size_t i = 0; i < op->nstreams; i++)
        if (op->streams[i].err) {
            e2b_error *e = op->streams[i].err;
            op->streams[i].err = NULL;
            then(op, e, "uploading the project");
            return;
        }
    if (op->extract_err) {
        e2b_error *e = op->extract_err;
        op->extract_err = NULL;
        then(op, e, "extracting the project");
        return;
    }
    if (op->proc_exit != 0) {
        then(op, box_op_process_error(op, "extracting the project"), "extracting the project");
        return;
    }
    then(op, NULL, "extracting the project");
}

/* A failure anywhere stops everything else: the process (whose tars may wait for an upload
 * that will not come) and the other uploads. */
static void stop_all(e2b_box_op *op)
{
    if (op->http)
        e2b_http_cancel(op->http);
    box_up_streams_cancel(op);
}

static void stream_uploaded(void *ud, const e2b_error *err)
{
    box_up_stream *s = ud;
    e2b_box_op *op = s->op;
    s->http = NULL;
    op->pending--;
    if (err || tarball_error(s->tar) || op->cancelled) {
        if (!s->err)
            s->err = err ? e2b_error_copy(err) : e2b_error_new(E2B_ERR_CANCELLED, "cancelled");
        stop_all(op);
    } else if (!streams_running(op) && !op->extract_ended) {
        box_op_progress(op, "extracting", 0, 0);
    }
    maybe_done(op);
}

static long stream_read(void *ud, char *buf, size_t size, e2b_error **err)
{
    box_up_stream *s = ud;
    ssize_t n = tarball_read(s->tar, buf, size);
    if (n < 0) {
        *err = e2b_error_copy(tarball_error(s->tar));
        return -1;
    }
    tarball_progress tp;
    streams_progress(s->op, &tp);
    box_op_progress(s->op, "uploading", (int64_t)tp.bytes_done, (int64_t)tp.bytes_total);
    return (long)n;
}

static int stream_progress(void *ud, int64_t dl_now, int64_t dl_total, int64_t ul_now,
                           int64_t ul_total)
{
    box_up_stream *s = ud;
    (void)dl_now, (void)dl_total, (void)ul_now, (void)ul_total;
    return s->op->cancelled;
}

/* The FIFOs exist: send every archive. */
static void start_uploads(void *ud)
{
    e2b_box_op *op = ud;
    op->stream_timer = 0;
    op->pending--;
    if (op->extract_ended || op->cancelled) {
        maybe_done(op);
        return;
    }
    for (size_t i = 0; i < op->nstreams; i++) {
        box_up_stream *s = &op->streams[i];
        char path[sizeof op->fifo_dir + 16];
        snprintf(path, sizeof path, "%s/%s", op->fifo_dir, s->fifo);
        e2b_upload up = {.path = path, .read = stream_read, .read_ud = s, .size = -1,
                         .octet_stream = 1, .progress = stream_progress, .progress_ud = s};
        e2b_error *err = NULL;
        s->http = e2b_envd_upload(op->envd_root, &up, stream_uploaded, s, &err);
        if (!s->http) {
            s->err = err ? err : e2b_error_new(E2B_ERR_INTERNAL, "the upload did not start");
            stop_all(op);
            return;
        }
        op->pending++;
    }
}

/* stdout grew (inside curl's callback, where no request may start): once the FIFOs exist,
 * the uploads start from the loop. */
static void on_output(e2b_box_op *op)
{
    if (op->streams_started || !op->out || !strstr(op->out, READY))
        return;
    op->streams_started = 1;
    op->out_watch = NULL;
    op->stream_timer = e2b_loop_timer_add(op->env.loop, 0, start_uploads, op);
    if (op->stream_timer) {
        op->pending++;
        return;
    }
    op->extract_err = e2b_error_new(E2B_ERR_INTERNAL, "cannot start the uploads (no timer)");
    stop_all(op);
}

static void extract_ended(e2b_box_op *op, const e2b_error *err)
{
    op->extract_ended = 1;
    if (err && !op->extract_err)
        op->extract_err = e2b_error_copy(err);
    /* A clean exit means every tar read its archive to the end: the uploads finish by
     * themselves. Otherwise nothing reads the FIFOs any more. */
    if (err || op->proc_exit != 0)
        box_up_streams_cancel(op);
    maybe_done(op);
}

int box_up_extract_streamed(e2b_box_op *op,
                            void (*then)(e2b_box_op *op, e2b_error *err, const char *step))
{
    char names[64] = "";
    for (size_t i = 0; i < op->nstreams; i++) {
        size_t n = strlen(names);
        snprintf(names + n, sizeof names - n, "%s%s:%s", i ? " " : "", op->streams[i].fifo,
                 op->streams[i].gzip ? "z" : "-");
    }
    op->extract_then = then;
    op->extract_ended = op->streams_started = 0;
    const char *args[] = {"-c", EXTRACT_SCRIPT, NULL};
    e2b_metadata env = {0};
    e2b_metadata_set(&env, "E2B_TUI_DIR", op->rec.dir);
    e2b_metadata_set(&env, "E2B_TUI_FIFO", op->fifo_dir);
    e2b_metadata_set(&env, "E2B_TUI_STREAMS", names);
    e2b_process_spec spec = {.cmd = "/bin/bash", .args = args, .envs = &env, .cwd = "/"};
    int rc = box_op_run_watch(op, op->envd_root, &spec, on_output, extract_ended);
    e2b_metadata_clear(&env);
    return rc;
}
