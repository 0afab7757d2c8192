/* Display width of UTF-8 text and fitting it into a cell of N terminal columns.
 * Pure: no curses. Widths come from wcwidth(3), so the caller must have set an UTF-8
 * LC_CTYPE (setlocale) for wide characters to count 2; the text should already be
 * sanitised (core/util/sanitize.h), but a byte that does not decode still counts one column. */
#ifndef E2B_TUI_TEXTWIDTH_H
#define E2B_TUI_TEXTWIDTH_H

#include <stddef.h>

/* Terminal columns that s takes (CJK and emoji 2, combining marks 0). */
int text_width(const char *s);

/* Length in bytes of the longest prefix of s that fits in width columns; its width is
 * stored in *used when used is not NULL. Never cuts a character in half. */
size_t text_fit(const char *s, int width, int *used);

/* Wrapping: the bytes of s that go on a line of width columns, broken after the last blank
 * that fits (a word wider than the line is cut); at least one character while s has any. */
size_t text_wrap(const char *s, int width);

/* The ellipsis for the current locale: "…" with UTF-8, "~" otherwise (one column). */
const char *text_ellipsis(void);

/* Writes s into out as exactly width columns: cut with the ellipsis when too wide, padded
 * with spaces when too narrow (also when a wide character would straddle the edge).
 * out is always NUL-terminated; returns the number of bytes written (without the NUL).
 * outsz must be at least 4 * width + 1 to never cut the cell short. */
size_t text_cell(char *out, size_t outsz, const char *s, int width);

#endif
