/* up's upload and extraction, overlapped (box_internal.h box_up_extract).
 *
 * One root process in the box: it prepares the directory (and, from a snapshot, resets the
 * tree to the snapshot's commit), makes a FIFO per archive, and for each archive in turn
 * prints "E2B-TUI-READY k" and runs one tar reading FIFO k. The archive k is sent (an
 * envd upload into the FIFO) once that line came and archive k-1 was sent: one upload and
 * one tar at a time, each tar reading exactly one archive, so no two tars ever write into
 * the same tree. envd writes an upload with open(O_TRUNC) and a copy, which into a FIFO is
 * a stream: the box extracts while the archive is still being read and sent here.
 *
 * Failures: an upload that fails closes the process's stream rather than waiting for the
 * process (its tar may never see an end: the upload may have failed before envd opened the
 * FIFO); the failure path then kills the sandbox. A process that ends with an error stops the upload that
 * runs (nothing reads its FIFO any more). A tar that fails drains the rest of its FIFO, so
 * the upload ends normally and tar's own complaint is what the user reads. */
#include "core/box/box_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Runs as root: the project directory may need parents that the user cannot make. From a
 * snapshot (E2B_TUI_DELTA) the tree is reset to the snapshot's commit first, its refs are
 * removed (the delta brings them all) and the delta's deletions are applied after the
 * first archive (core/git/delta.h); the history comes as a pack with its index, which
 * needs no step here (core/git/upload_pack.h); the reset
 * compares sizes and mtimes only (checkStat=minimal): a copied snapshot has new inodes and
 * ctimes, and a full stat check would hash the whole project again. A full upload over a
 * snapshot of the same path starts from an empty directory (E2B_TUI_CLEAN). The user gets
 * what is not theirs yet (what tar and git wrote as root), not every file again: a chown
 * writes the inode even when nothing changes, and a box resumed from a snapshot
 * copy-on-write would copy up every file of the project. */
static const char EXTRACT_SCRIPT[] =
    "set -u; d=$E2B_TUI_DIR; f=$E2B_TUI_FIFO\n"
    "G='git -c safe.directory=* -c core.checkStat=minimal -c core.trustctime=false'\n"
    "fail() { rm -rf -- \"$f\"; exit 1; }\n"
    "if [ -n \"${E2B_TUI_CLEAN:-}\" ]; then rm -rf -- \"$d\" || exit 1; fi\n"
    "mkdir -p -- \"$d\" || exit 1\n"
    "if [ -n \"${E2B_TUI_DELTA:-}\" ]; then\n"
    "  (cd \"$d\" && $G reset -q --hard \"$E2B_TUI_DELTA\" && $G clean -fdq &&\n"
    "   rm -rf .git/refs .git/packed-refs) || exit 1\n"
    "fi\n"
    "mkdir -m 700 -- \"$f\" || exit 1\n"
    "k=0\n"
    "for z in $E2B_TUI_ARCHIVES; do\n"
    "  mkfifo -m 600 -- \"$f/$k\" || fail\n"
    "  echo \"E2B-TUI-READY $k\"\n"
    "  { tar \"-x${z#-}f\" - -C \"$d\" --no-same-owner 2>\"$f/err\"; r=$?; cat >/dev/null; } <\"$f/$k\"\n"
    "  if [ \"$r\" != 0 ]; then grep -v 'Exiting with failure' \"$f/err\" | head -n 3 >&2; fail; fi\n"
    "  if [ \"$k\" = 0 ] && [ -n \"${E2B_TUI_DELTA:-}\" ]; then\n"
    "    (cd \"$d\" || exit 1\n"
    "     if [ -f .e2b-tui-deleted ]; then xargs -0 -r rm -f -- <.e2b-tui-deleted || exit 1; rm -f .e2b-tui-deleted; fi\n"
    "    ) || fail\n"
    "  fi\n"
    "  k=$((k + 1))\n"
    "done\n"
    "rm -rf -- \"$f\"\n"
    "find \"$d\" \\( ! -user user -o ! -group user \\) -exec chown -h user: -- {} +\n";

static const char READY[] = "E2B-TUI-READY ";

static void ux_maybe_done(e2b_box_op *op);
static void ux_send_next(e2b_box_op *op);

void box_up_extract_cancel(e2b_box_op *op)
{
    if (op->ux.timer) {
        e2b_loop_timer_cancel(op->env.loop, op->ux.timer);
        op->ux.timer = 0;
        op->pending--;
    }
    if (op->ux.http)
        e2b_http_cancel(op->ux.http);
}

void box_up_extract_stop(e2b_box_op *op)
{
    box_up_extract_cancel(op);
    if (op->http)
        e2b_http_cancel(op->http);
}

void box_up_extract_clear(e2b_box_op *op)
{
    e2b_error_free(op->ux.upload_err);
    e2b_error_free(op->ux.stream_err);
    op->ux.upload_err = op->ux.stream_err = NULL;
}

/* Both archives' progress added up. */
static void ux_progress(const e2b_box_op *op, e2b_tarball_progress *sum)
{
    memset(sum, 0, sizeof *sum);
    for (size_t i = 0; i < op->ux.count; i++) {
        e2b_tarball_progress tp;
        e2b_tarball_get_progress(op->ux.tars[i], &tp);
        sum->bytes_done += tp.bytes_done;
        sum->bytes_total += tp.bytes_total;
        sum->files_total += tp.files_total;
        sum->out_bytes += tp.out_bytes;
    }
}

/* The end, once the process's stream and the upload are both done: the first cause, in the
 * order a user can act on (reading the project here, the upload, the box's extraction). */
static void ux_maybe_done(e2b_box_op *op)
{
    if (!op->ux.ended || op->http || op->ux.http || op->ux.timer || !op->ux.then)
        return;
    void (*then)(e2b_box_op *, e2b_error *, const char *) = op->ux.then;
    op->ux.then = NULL;
    op->out_watch = NULL;
    e2b_tarball_progress tp;
    ux_progress(op, &tp);
    op->res.files = tp.files_total;
    op->res.bytes_in = tp.bytes_total;
    op->res.bytes_sent = tp.out_bytes;
    e2b_error *e = NULL;
    const char *step = "extracting the project";
    for (size_t i = 0; i < op->ux.count && !e; i++)
        if (e2b_tarball_error(op->ux.tars[i])) {
            e = e2b_error_copy(e2b_tarball_error(op->ux.tars[i]));
            step = "reading the project";
        }
    if (!e && op->ux.upload_err) {
        e = op->ux.upload_err;
        op->ux.upload_err = NULL;
        step = "uploading the project";
    }
    if (!e && op->ux.stream_err) {
        e = op->ux.stream_err;
        op->ux.stream_err = NULL;
    }
    if (!e && op->proc_exit != 0)
        e = box_op_process_error(op, "extracting the project");
    if (!e && op->ux.sent < op->ux.count) /* the script exits 0 only after every archive */
        e = e2b_error_new(E2B_ERR_PROTOCOL, "the box's extraction ended before it had the "
                                            "whole project");
    if (!e && op->cancelled)
        e = e2b_error_new(E2B_ERR_CANCELLED, "cancelled");
    then(op, e, step);
}

static void ux_uploaded(void *ud, const e2b_error *err)
{
    e2b_box_op *op = ud;
    e2b_tarball *tar = op->ux.tars[op->ux.next - 1];
    op->ux.http = NULL;
    op->pending--;
    if (err || e2b_tarball_error(tar)) {
        if (!op->ux.upload_err)
            op->ux.upload_err = err ? e2b_error_copy(err)
                                    : e2b_error_new(E2B_ERR_CANCELLED, "cancelled");
        /* Its tar may wait for an upload that never reached it: the process's stream is
         * closed rather than waited for (the failure path removes the sandbox). */
        if (op->http)
            e2b_http_cancel(op->http);
        ux_maybe_done(op);
        return;
    }
    op->ux.sent++;
    if (op->ux.sent == op->ux.count && !op->ux.ended)
        box_op_progress(op, "extracting", 0, 0);
    ux_send_next(op);
    ux_maybe_done(op);
}

static long ux_read(void *ud, char *buf, size_t size, e2b_error **err)
{
    e2b_box_op *op = ud;
    e2b_tarball *tar = op->ux.tars[op->ux.next - 1];
    ssize_t n = e2b_tarball_read(tar, buf, size);
    if (n < 0) {
        *err = e2b_error_copy(e2b_tarball_error(tar));
        return -1;
    }
    e2b_tarball_progress tp;
    ux_progress(op, &tp);
    box_op_progress(op, "uploading", (int64_t)tp.bytes_done, (int64_t)tp.bytes_total);
    return (long)n;
}

static int ux_upload_progress(void *ud, int64_t dl_now, int64_t dl_total, int64_t ul_now,
                              int64_t ul_total)
{
    e2b_box_op *op = ud;
    (void)dl_now, (void)dl_total, (void)ul_now, (void)ul_total;
    return op->cancelled;
}

/* Sends the next archive once its FIFO is read and the one before it was sent. */
static void ux_send_next(e2b_box_op *op)
{
    if (op->ux.http || op->ux.ended || op->ux.upload_err || op->cancelled || op->ux.next >= op->ux.ready ||
        op->ux.next >= op->ux.count || op->ux.sent < op->ux.next)
        return;
    char path[sizeof op->ux.fifo_dir + 24];
    snprintf(path, sizeof path, "%s/%zu", op->ux.fifo_dir, op->ux.next);
    e2b_upload up = {.path = path, .read = ux_read, .read_ud = op, .size = -1,
                     .octet_stream = 1, .progress = ux_upload_progress, .progress_ud = op};
    e2b_error *err = NULL;
    e2b_tarball_progress tp;
    ux_progress(op, &tp);
    box_op_progress(op, "uploading", (int64_t)tp.bytes_done, (int64_t)tp.bytes_total);
    op->ux.next++;
    op->ux.http = e2b_envd_upload(op->envd_root, &up, ux_uploaded, op, &err);
    if (!op->ux.http) {
        op->ux.upload_err = err ? err : e2b_error_new(E2B_ERR_INTERNAL, "the upload did not start");
        if (op->http)
            e2b_http_cancel(op->http);
        ux_maybe_done(op);
        return;
    }
    op->pending++;
}

static void ux_on_timer(void *ud)
{
    e2b_box_op *op = ud;
    op->ux.timer = 0;
    op->pending--;
    if (op->ux.dir_ready && op->ux.ready > 0 && !op->ux.ended && !op->cancelled) {
        void (*dir_ready)(e2b_box_op *) = op->ux.dir_ready;
        op->ux.dir_ready = NULL; /* the script prepared the directory before its first FIFO */
        dir_ready(op);
    }
    ux_send_next(op);
    ux_maybe_done(op);
}

/* stdout grew (inside the process stream's callback, where no request may start): each
 * "E2B-TUI-READY k" line lets archive k go, from the loop. */
static void ux_on_output(e2b_box_op *op)
{
    size_t before = op->ux.ready;
    while (op->ux.scanned < op->out_len) {
        const char *line = op->out + op->ux.scanned;
        const char *nl = memchr(line, '\n', op->out_len - op->ux.scanned);
        if (!nl)
            break;
        if ((size_t)(nl - line) > sizeof READY - 1 && strncmp(line, READY, sizeof READY - 1) == 0)
            op->ux.ready++;
        op->ux.scanned = (size_t)(nl - op->out) + 1;
    }
    if (op->ux.ready == before || op->ux.timer)
        return;
    op->ux.timer = e2b_loop_timer_add(op->env.loop, 0, ux_on_timer, op);
    if (op->ux.timer) {
        op->pending++;
        return;
    }
    if (!op->ux.stream_err)
        op->ux.stream_err = e2b_error_new(E2B_ERR_INTERNAL, "cannot start the upload (no timer)");
    e2b_http_cancel(op->http);
}

static void ux_process_ended(e2b_box_op *op, const e2b_error *err)
{
    op->ux.ended = 1;
    if (err && !op->ux.stream_err)
        op->ux.stream_err = e2b_error_copy(err);
    /* A clean exit means every tar read its archive to the end: the last upload ends by
     * itself. Otherwise nothing reads the FIFOs any more. */
    if (err || op->proc_exit != 0)
        box_up_extract_cancel(op);
    ux_maybe_done(op);
}

void box_up_extract(e2b_box_op *op, void (*dir_ready)(e2b_box_op *op),
                    void (*then)(e2b_box_op *op, e2b_error *err, const char *step))
{
    op->ux.dir_ready = dir_ready;
    op->ux.count = 0;
    op->ux.tars[op->ux.count++] = op->tar;
    if (op->tar_plain)
        op->ux.tars[op->ux.count++] = op->tar_plain;
    op->ux.ready = op->ux.next = op->ux.sent = op->ux.scanned = 0;
    op->ux.ended = 0;
    op->ux.then = then;
    snprintf(op->ux.fifo_dir, sizeof op->ux.fifo_dir, "/tmp/e2b-tui-up-%s", op->up_nonce);
    const char *args[] = {"-c", EXTRACT_SCRIPT, NULL};
    e2b_metadata env = {0};
    e2b_metadata_set(&env, "E2B_TUI_DIR", op->rec.dir);
    e2b_metadata_set(&env, "E2B_TUI_FIFO", op->ux.fifo_dir);
    e2b_metadata_set(&env, "E2B_TUI_ARCHIVES", op->tar_plain ? "z -" : "z");
    if (op->up_src.delta)
        e2b_metadata_set(&env, "E2B_TUI_DELTA", op->up_src.delta_base);
    if (op->up_src.clean_first)
        e2b_metadata_set(&env, "E2B_TUI_CLEAN", "1");
    e2b_process_spec spec = {.cmd = "/bin/bash", .args = args, .envs = &env, .cwd = "/"};
    box_op_progress(op, "starting the extraction", 0, 0);
    /* A start that fails calls ux_process_ended at once, which hands the error to then. */
    (void)box_op_run_watch(op, op->envd_root, &spec, ux_on_output, ux_process_ended);
    e2b_metadata_clear(&env);
}
