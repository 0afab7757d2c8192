/* libarchive, loaded when first needed instead of at program start.
 *
 * Debian's libarchive pulls libxml2, ICU and libstdc++ in with it: linked normally, loading
 * and relocating them is about half of e2b-tui's start-up time, although only an up (the
 * tar.gz) and a gzip'd upload use it. So core/ does not link it: the first archive object
 * made loads it (dlopen, once, thread-safe), and the dashboard paints without it.
 *
 * Include this instead of <archive.h>/<archive_entry.h>. The libarchive names used by core/
 * are redirected to the loaded functions. archive_write_new() returns NULL when the library
 * cannot be loaded; e2b_archive_dl_error() then says why, in words a user can act on. Every other
 * call takes an object made by archive_write_new()/archive_entry_new(), so it only runs once
 * the library is loaded. */
#ifndef E2B_CORE_ARCHIVE_DL_H
#define E2B_CORE_ARCHIVE_DL_H

#include <archive.h>
#include <archive_entry.h>

/* The soname: libarchive's ABI has been 13 since 2012. */
#define E2B_ARCHIVE_DL_SONAME "libarchive.so.13"

struct e2b_archive_dl {
    struct archive *(*write_new)(void);
    int (*write_free)(struct archive *);
    int (*write_close)(struct archive *);
    int (*write_header)(struct archive *, struct archive_entry *);
    la_ssize_t (*write_data)(struct archive *, const void *, size_t);
    int (*write_add_filter_gzip)(struct archive *);
    int (*write_set_format_raw)(struct archive *);
    int (*write_set_format_pax_restricted)(struct archive *);
    int (*write_set_options)(struct archive *, const char *);
    int (*write_set_bytes_per_block)(struct archive *, int);
    int (*write_set_bytes_in_last_block)(struct archive *, int);
    int (*write_open)(struct archive *, void *, archive_open_callback *, archive_write_callback *,
                      archive_close_callback *);
    int (*write_open2)(struct archive *, void *, archive_open_callback *,
                       archive_write_callback *, archive_close_callback *,
                       archive_free_callback *);
    const char *(*error_string)(struct archive *);
    void (*set_error)(struct archive *, int, const char *, ...);
    struct archive_entry *(*entry_new)(void);
    void (*entry_free)(struct archive_entry *);
    void (*entry_set_pathname)(struct archive_entry *, const char *);
    void (*entry_copy_pathname)(struct archive_entry *, const char *);
    void (*entry_copy_symlink)(struct archive_entry *, const char *);
    void (*entry_set_filetype)(struct archive_entry *, unsigned int);
    void (*entry_set_perm)(struct archive_entry *, mode_t);
    void (*entry_set_size)(struct archive_entry *, la_int64_t);
    void (*entry_set_mtime)(struct archive_entry *, time_t, long);
    void (*entry_set_uid)(struct archive_entry *, la_int64_t);
    void (*entry_set_gid)(struct archive_entry *, la_int64_t);
    /* reading and extracting (e2b-tui --get) */
    struct archive *(*read_new)(void);
    int (*read_free)(struct archive *);
    int (*read_support_format_tar)(struct archive *);
    int (*read_open_fd)(struct archive *, int, size_t);
    int (*read_next_header)(struct archive *, struct archive_entry **);
    int (*read_extract2)(struct archive *, struct archive_entry *, struct archive *);
    struct archive *(*write_disk_new)(void);
    int (*write_disk_set_options)(struct archive *, int);
    const char *(*entry_pathname)(struct archive_entry *);
    const char *(*entry_symlink)(struct archive_entry *);
    const char *(*entry_hardlink)(struct archive_entry *);
    mode_t (*entry_filetype)(struct archive_entry *);
    la_int64_t (*entry_size)(struct archive_entry *);
};

/* The loaded functions, or NULL when libarchive cannot be loaded. Loads on the first call. */
const struct e2b_archive_dl *e2b_archive_dl(void);

/* Why the last e2b_archive_dl() failed ("" when it did not); a static string. */
const char *e2b_archive_dl_error(void);

/* archive_write_new() that loads the library first; NULL when it cannot be loaded. */
struct archive *e2b_archive_dl_write_new(void);
/* archive_entry_new() likewise. */
struct archive_entry *e2b_archive_dl_entry_new(void);
/* archive_read_new() and archive_write_disk_new() likewise. */
struct archive *e2b_archive_dl_read_new(void);
struct archive *e2b_archive_dl_write_disk_new(void);

#ifndef ARCHIVE_DL_IMPL
#define archive_write_new e2b_archive_dl_write_new
#define archive_entry_new e2b_archive_dl_entry_new
#define archive_write_free (*e2b_archive_dl()->write_free)
#define archive_write_close (*e2b_archive_dl()->write_close)
#define archive_write_header (*e2b_archive_dl()->write_header)
#define archive_write_data (*e2b_archive_dl()->write_data)
#define archive_write_add_filter_gzip (*e2b_archive_dl()->write_add_filter_gzip)
#define archive_write_set_format_raw (*e2b_archive_dl()->write_set_format_raw)
#define archive_write_set_format_pax_restricted (*e2b_archive_dl()->write_set_format_pax_restricted)
#define archive_write_set_options (*e2b_archive_dl()->write_set_options)
#define archive_write_set_bytes_per_block (*e2b_archive_dl()->write_set_bytes_per_block)
#define archive_write_set_bytes_in_last_block (*e2b_archive_dl()->write_set_bytes_in_last_block)
#define archive_write_open (*e2b_archive_dl()->write_open)
#define archive_write_open2 (*e2b_archive_dl()->write_open2)
#define archive_error_string (*e2b_archive_dl()->error_string)
#define archive_set_error (*e2b_archive_dl()->set_error)
#define archive_entry_free (*e2b_archive_dl()->entry_free)
#define archive_entry_set_pathname (*e2b_archive_dl()->entry_set_pathname)
#define archive_entry_copy_pathname (*e2b_archive_dl()->entry_copy_pathname)
#define archive_entry_copy_symlink (*e2b_archive_dl()->entry_copy_symlink)
#define archive_entry_set_filetype (*e2b_archive_dl()->entry_set_filetype)
#define archive_entry_set_perm (*e2b_archive_dl()->entry_set_perm)
#define archive_entry_set_size (*e2b_archive_dl()->entry_set_size)
#define archive_entry_set_mtime (*e2b_archive_dl()->entry_set_mtime)
#define archive_entry_set_uid (*e2b_archive_dl()->entry_set_uid)
#define archive_entry_set_gid (*e2b_archive_dl()->entry_set_gid)
#define archive_read_new e2b_archive_dl_read_new
#define archive_write_disk_new e2b_archive_dl_write_disk_new
#define archive_read_free (*e2b_archive_dl()->read_free)
#define archive_read_support_format_tar (*e2b_archive_dl()->read_support_format_tar)
#define archive_read_open_fd (*e2b_archive_dl()->read_open_fd)
#define archive_read_next_header (*e2b_archive_dl()->read_next_header)
#define archive_read_extract2 (*e2b_archive_dl()->read_extract2)
#define archive_write_disk_set_options (*e2b_archive_dl()->write_disk_set_options)
#define archive_entry_pathname (*e2b_archive_dl()->entry_pathname)
#define archive_entry_symlink (*e2b_archive_dl()->entry_symlink)
#define archive_entry_hardlink (*e2b_archive_dl()->entry_hardlink)
#define archive_entry_filetype (*e2b_archive_dl()->entry_filetype)
#define archive_entry_size (*e2b_archive_dl()->entry_size)
#endif

#endif
