#include "tui/term/keys.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static const struct {
    const char *name;
    int key;
} NAMED[] = {
    {"enter", KEYC_ENTER},   {"esc", KEYC_ESC},           {"tab", KEYC_TAB},
    {"btab", KEYC_BTAB},     {"shift-tab", KEYC_BTAB},    {"backspace", KEYC_BACKSPACE},
    {"space", KEYC_SPACE},   {"up", KEYC_UP},             {"down", KEYC_DOWN},
    {"left", KEYC_LEFT},     {"right", KEYC_RIGHT},       {"pgup", KEYC_PGUP},
    {"pgdn", KEYC_PGDN},     {"home", KEYC_HOME},         {"end", KEYC_END},
    {"delete", KEYC_DELETE}, {"insert", KEYC_INSERT},
};

int key_normalise(int key)
{
    switch (key) {
    case 9: return KEYC_TAB;
    case 10:
    case 13: return KEYC_ENTER;
    case 8:
    case 127: return KEYC_BACKSPACE;
    case 27: return KEYC_ESC;
    case ' ': return KEYC_SPACE;
    default: return key;
    }
}

/* Decodes exactly one UTF-8 character filling all of s; returns the code point or -1. */
static long utf8_single(const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t n = strlen(s), len;
    uint32_t c;
    if (n == 0)
        return -1;
    if (u[0] < 0x80) {
        len = 1;
        c = u[0];
    } else if ((u[0] & 0xE0) == 0xC0) {
        len = 2;
        c = u[0] & 0x1F;
    } else if ((u[0] & 0xF0) == 0xE0) {
        len = 3;
        c = u[0] & 0x0F;
    } else if ((u[0] & 0xF8) == 0xF0) {
        len = 4;
        c = u[0] & 0x07;
    } else {
        return -1;
    }
    if (n != len)
        return -1;
    for (size_t i = 1; i < len; i++) {
        if ((u[i] & 0xC0) != 0x80)
            return -1;
        c = (c << 6) | (u[i] & 0x3F);
    }
    static const uint32_t min_for_len[] = {0, 0, 0x80, 0x800, 0x10000};
    if (c < min_for_len[len] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return -1;
    return (long)c;
}

int key_parse(const char *name, int *key)
{
    if (!name || !*name)
        return -1;
    long cp = utf8_single(name);
    if (cp > 0x20 && cp != 0x7F && !(cp >= 0x80 && cp < 0xA0)) {
        *key = (int)cp;
        return 0;
    }
    for (size_t i = 0; i < sizeof NAMED / sizeof NAMED[0]; i++) {
        if (strcasecmp(name, NAMED[i].name) == 0) {
            *key = NAMED[i].key;
            return 0;
        }
    }
    const char *c = NULL;
    if (strncasecmp(name, "ctrl-", 5) == 0)
        c = name + 5;
    else if (name[0] == '^')
        c = name + 1;
    if (c && c[0] && !c[1]) {
        char l = c[0];
        if (l >= 'A' && l <= 'Z')
            l = (char)(l - 'A' + 'a');
        if (l >= 'a' && l <= 'z') {
            *key = key_normalise(KEYC_CTRL(l));
            return 0;
        }
    }
    if ((name[0] == 'f' || name[0] == 'F') && name[1]) {
        int n = 0;
        const char *p = name + 1;
        while (*p >= '0' && *p <= '9' && n < 100)
            n = n * 10 + (*p++ - '0');
        if (!*p && n >= 1 && n <= 12) {
            *key = KEYC_F1 + n - 1;
            return 0;
        }
    }
    return -1;
}

const char *key_format(int key, char *buf, size_t bufsz)
{
    if (bufsz == 0)
        return buf;
    buf[0] = '\0';
    for (size_t i = 0; i < sizeof NAMED / sizeof NAMED[0]; i++) {
        if (NAMED[i].key == key) {
            snprintf(buf, bufsz, "%s", NAMED[i].name);
            return buf;
        }
    }
    if (key >= 1 && key <= 26) {
        snprintf(buf, bufsz, "ctrl-%c", 'a' + key - 1);
    } else if (key >= KEYC_F1 && key <= KEYC_F12) {
        snprintf(buf, bufsz, "f%d", key - KEYC_F1 + 1);
    } else if (key > 0x20 && key < KEYC_SPECIAL) {
        char u[5] = {0};
        unsigned c = (unsigned)key;
        if (c < 0x80) {
            u[0] = (char)c;
        } else if (c < 0x800) {
            u[0] = (char)(0xC0 | (c >> 6));
            u[1] = (char)(0x80 | (c & 0x3F));
        } else if (c < 0x10000) {
            u[0] = (char)(0xE0 | (c >> 12));
            u[1] = (char)(0x80 | ((c >> 6) & 0x3F));
            u[2] = (char)(0x80 | (c & 0x3F));
        } else {
            u[0] = (char)(0xF0 | (c >> 18));
            u[1] = (char)(0x80 | ((c >> 12) & 0x3F));
            u[2] = (char)(0x80 | ((c >> 6) & 0x3F));
            u[3] = (char)(0x80 | (c & 0x3F));
        }
        snprintf(buf, bufsz, "%s", u);
    } else {
        snprintf(buf, bufsz, "?");
    }
    return buf;
}
