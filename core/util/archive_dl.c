#define ARCHIVE_DL_IMPL
#include "core/util/archive_dl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static struct e2b_archive_dl fns;
static const struct e2b_archive_dl *loaded;
static char why[300];
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* Resolves one symbol into *slot; 0, or -1 with why[] set. */
static int resolve(void *h, const char *name, void *slot)
{
    void *p = dlsym(h, name);
    if (!p) {
        snprintf(why, sizeof why, "%s lacks %s (too old a libarchive?)", E2B_ARCHIVE_DL_SONAME, name);
        return -1;
    }
    /* POSIX guarantees a function pointer round-trips through void * for dlsym. */
    *(void **)slot = p;
    return 0;
}

static void load(void)
{
    void *h = dlopen(E2B_ARCHIVE_DL_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(why, sizeof why,
                 "cannot load %s, which packs the project (install libarchive13): %s",
                 E2B_ARCHIVE_DL_SONAME, e ? e : "not found");
        return;
    }
#define R(field, sym)                                                                              \
    if (resolve(h, #sym, &fns.field) < 0)                                                          \
        goto fail;
    R(write_new, archive_write_new)
    R(write_free, archive_write_free)
    R(write_close, archive_write_close)
    R(write_header, archive_write_header)
    R(write_data, archive_write_data)
    R(write_add_filter_gzip, archive_write_add_filter_gzip)
    R(write_set_format_raw, archive_write_set_format_raw)
    R(write_set_format_pax_restricted, archive_write_set_format_pax_restricted)
    R(write_set_options, archive_write_set_options)
    R(write_set_bytes_per_block, archive_write_set_bytes_per_block)
    R(write_set_bytes_in_last_block, archive_write_set_bytes_in_last_block)
    R(write_open, archive_write_open)
    R(write_open2, archive_write_open2)
    R(error_string, archive_error_string)
    R(set_error, archive_set_error)
    R(entry_new, archive_entry_new)
    R(entry_free, archive_entry_free)
    R(entry_set_pathname, archive_entry_set_pathname)
    R(entry_copy_pathname, archive_entry_copy_pathname)
    R(entry_copy_symlink, archive_entry_copy_symlink)
    R(entry_set_filetype, archive_entry_set_filetype)
    R(entry_set_perm, archive_entry_set_perm)
    R(entry_set_size, archive_entry_set_size)
    R(entry_set_mtime, archive_entry_set_mtime)
    R(entry_set_uid, archive_entry_set_uid)
    R(entry_set_gid, archive_entry_set_gid)
    R(read_new, archive_read_new)
    R(read_free, archive_read_free)
    R(read_support_format_tar, archive_read_support_format_tar)
    R(read_open_fd, archive_read_open_fd)
    R(read_next_header, archive_read_next_header)
    R(read_extract2, archive_read_extract2)
    R(write_disk_new, archive_write_disk_new)
    R(write_disk_set_options, archive_write_disk_set_options)
    R(entry_pathname, archive_entry_pathname)
    R(entry_symlink, archive_entry_symlink)
    R(entry_hardlink, archive_entry_hardlink)
    R(entry_filetype, archive_entry_filetype)
    R(entry_size, archive_entry_size)
#undef R
    loaded = &fns; /* the handle stays open for the life of the process */
    return;
fail:
    dlclose(h);
}

const struct e2b_archive_dl *e2b_archive_dl(void)
{
    pthread_once(&once, load);
    return loaded;
}

const char *e2b_archive_dl_error(void)
{
    return why;
}

struct archive *e2b_archive_dl_write_new(void)
{
    const struct e2b_archive_dl *a = e2b_archive_dl();
    return a ? a->write_new() : NULL;
}

struct archive_entry *e2b_archive_dl_entry_new(void)
{
    const struct e2b_archive_dl *a = e2b_archive_dl();
    return a ? a->entry_new() : NULL;
}

struct archive *e2b_archive_dl_read_new(void)
{
    const struct e2b_archive_dl *a = e2b_archive_dl();
    return a ? a->read_new() : NULL;
}

struct archive *e2b_archive_dl_write_disk_new(void)
{
    const struct e2b_archive_dl *a = e2b_archive_dl();
    return a ? a->write_disk_new() : NULL;
}
