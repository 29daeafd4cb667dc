/*
 * sim_text.c - the text the similarity check compares (sim_text.h).
 */
#include "sim_text.h"

#include <stdlib.h>
#include <string.h>

#define PUNCT_RUN 4 /* braces and semicolons kept of a run */

/* What "??x" stands for (C11 5.2.1.1), or 0 where it is not a trigraph. */
static char trigraph(char x)
{
    static const char from[] = "=(/)'<!>-", to[] = "#[\\]^{|}~";
    const char *at = x ? strchr(from, x) : NULL;
    return at ? to[at - from] : 0;
}

/* Whether the '"' at text[i] opens a C++ raw string: R, u8R, uR, UR or LR
 * before it, a whole name. */
static int raw_string(const char *text, size_t i)
{
    size_t b = i;
    while (b > 0 && (text[b - 1] == '_' || (text[b - 1] >= 'a' && text[b - 1] <= 'z') ||
                     (text[b - 1] >= 'A' && text[b - 1] <= 'Z') ||
                     (text[b - 1] >= '0' && text[b - 1] <= '9')))
        b--;
    size_t n = i - b;
    const char *const prefixes[] = {"R", "u8R", "uR", "UR", "LR", NULL};
    for (int k = 0; prefixes[k]; k++)
        if (strlen(prefixes[k]) == n && memcmp(text + b, prefixes[k], n) == 0)
            return 1;
    return 0;
}

/* text with its trigraphs replaced (the course's -std=c11 reads them: a
 * "??=" is a '#', a "??/" at a line's end joins it to the next), its
 * backslash-newlines and comments gone (a comment becomes one space, as for
 * the compiler); strings and character constants kept whole, a C++ raw
 * string (lab5's kernels.cu) on one line whatever lines it spans, so that
 * no line of it reads as a directive. */
static char *uncomment(const char *raw, size_t rawlen, int trigraphs)
{
    char *text = malloc(rawlen + 1), *out = malloc(rawlen + 1);
    if (!text || !out) {
        free(text);
        free(out);
        return NULL;
    }
    size_t len = 0;
    for (size_t i = 0; i < rawlen; i++) {
        char t = trigraphs && i + 2 < rawlen && raw[i] == '?' && raw[i + 1] == '?'
                     ? trigraph(raw[i + 2])
                     : 0;
        text[len++] = t ? t : raw[i];
        i += t ? 2 : 0;
    }
    size_t k = 0;
    char quote = 0;
    int line_comment = 0, block_comment = 0;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (c == '\\' && i + 1 < len && text[i + 1] == '\n') {
            i++;
            continue;
        }
        if (c == '\\' && i + 2 < len && text[i + 1] == '\r' && text[i + 2] == '\n') {
            i += 2;
            continue;
        }
        if (c == '\0')
            c = ' ';
        if (line_comment) {
            if (c == '\n') {
                line_comment = 0;
                out[k++] = '\n';
            }
        } else if (block_comment) {
            if (c == '*' && i + 1 < len && text[i + 1] == '/') {
                block_comment = 0;
                i++;
                out[k++] = ' ';
            }
        } else if (quote) {
            out[k++] = c;
            if (c == '\\' && i + 1 < len && text[i + 1] != '\n')
                out[k++] = text[++i] ? text[i] : ' ';
            else if (c == quote || c == '\n')
                quote = 0;
        } else if (c == '/' && i + 1 < len && text[i + 1] == '/') {
            line_comment = 1;
            i++;
        } else if (c == '/' && i + 1 < len && text[i + 1] == '*') {
            block_comment = 1;
            i++;
        } else if (c == '"' && raw_string(text, i)) {
            /* R"delim( ... )delim", the delimiter at most 16 characters. */
            size_t d = i + 1;
            while (d < len && d - i - 1 < 16 && !strchr("()\\ \t\v\f\n", text[d]))
                d++;
            if (d >= len || text[d] != '(') {
                quote = c;
                out[k++] = c;
                continue;
            }
            size_t dn = d - i - 1, end = d + 1;
            while (end < len && !(text[end] == ')' && end + dn + 1 < len &&
                                  memcmp(text + end + 1, text + i + 1, dn) == 0 &&
                                  text[end + dn + 1] == '"'))
                end++;
            end = end < len ? end + dn + 2 : len;
            for (size_t j = i; j < end; j++)
                out[k++] = text[j] == '\n' || text[j] == '\r' ? ' ' : text[j];
            i = end - 1;
        } else {
            if (c == '"' || c == '\'')
                quote = c;
            out[k++] = c;
        }
    }
    out[k] = '\0';
    free(text);
    return out;
}

/* The directive on line [p, e), trimmed, or NULL: its name in *name (length
 * *nlen) and what follows it in *rest. It begins with '#' or its digraph,
 * "%:" (C11 6.4.6). */
static int directive(const char *p, const char *e, const char **name, size_t *nlen,
                     const char **rest)
{
    if (p < e && *p == '#')
        p++;
    else if (e - p >= 2 && p[0] == '%' && p[1] == ':')
        p += 2;
    else
        return 0;
    while (p < e && (*p == ' ' || *p == '\t'))
        p++;
    *name = p;
    while (p < e && *p >= 'a' && *p <= 'z')
        p++;
    *nlen = (size_t)(p - *name);
    *rest = p;
    return 1;
}

static int is(const char *name, size_t n, const char *word)
{
    return n == strlen(word) && memcmp(name, word, n) == 0;
}

/* Whether a condition [p, e) is 0: only zeros, parentheses and blanks. */
static int is_zero(const char *p, const char *e)
{
    int zero = 0;
    for (; p < e; p++) {
        if (*p == '0')
            zero = 1;
        else if (*p != '(' && *p != ')' && *p != ' ' && *p != '\t' && *p != '\r')
            return 0;
    }
    return zero;
}

/* The directive on the line from p, if any, after its leading blanks. */
static int line_directive(const char *p, const char *e, const char **name, size_t *n,
                          const char **rest)
{
    while (p < e && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\f' || *p == '\v'))
        p++;
    return directive(p, e, name, n, rest);
}

/* For each line of src, whether it opens a conditional group (#if, #ifdef,
 * #ifndef) that an #endif closes, or is an #elif of one: closed[line].
 * An "#if 0" is taken as dead only where its group is closed: one left
 * open to the end of the file (the compiler would refuse it, or read its
 * end in a form not recognised here) is read as live. NULL when out of
 * memory. */
static unsigned char *closed_groups(const char *src)
{
    size_t lines = 1;
    for (const char *c = src; *c; c++)
        lines += *c == '\n';
    unsigned char *closed = calloc(lines, 1);
    size_t *open = malloc(lines * sizeof *open), *elifs = malloc(lines * sizeof *elifs);
    size_t depth = 0, nelifs = 0, *elif_depth = malloc(lines * sizeof *elif_depth);
    if (!closed || !open || !elifs || !elif_depth) {
        free(closed);
        closed = NULL;
        goto done;
    }
    size_t line = 0;
    for (const char *p = src; *p; line++) {
        const char *e = p + strcspn(p, "\n"), *name, *rest;
        size_t n;
        if (line_directive(p, e, &name, &n, &rest)) {
            if (is(name, n, "if") || is(name, n, "ifdef") || is(name, n, "ifndef")) {
                open[depth++] = line;
            } else if (is(name, n, "elif") && depth > 0) {
                elifs[nelifs] = line;
                elif_depth[nelifs++] = depth;
            } else if (is(name, n, "endif") && depth > 0) {
                closed[open[--depth]] = 1;
                while (nelifs > 0 && elif_depth[nelifs - 1] > depth)
                    closed[elifs[--nelifs]] = 1;
            }
        }
        p = *e ? e + 1 : e;
    }
done:
    free(open);
    free(elifs);
    free(elif_depth);
    return closed;
}

int gr_sim_trigraphs(const char *name)
{
    size_t n = strlen(name);
    return n >= 2 && strcmp(name + n - 2, ".c") == 0;
}

char *gr_sim_text(const char *text, size_t len, size_t cap, int trigraphs, int *cut)
{
    *cut = 0;
    char *src = uncomment(text, len, trigraphs);
    char *out = src ? malloc(cap + 1) : NULL;
    unsigned char *closed = src ? closed_groups(src) : NULL;
    if (!out || !closed) {
        free(src);
        free(out);
        free(closed);
        return NULL;
    }
    size_t line_no = 0;
    size_t k = 0;
    int dead = 0;  /* how deep inside an #if 0 block (0: live) */
    int punct = 0; /* braces and semicolons in the run that reaches here */
    char *line = malloc(strlen(src) + 2);
    if (!line) {
        free(src);
        free(out);
        free(closed);
        return NULL;
    }
    for (const char *p = src; *p && !*cut; line_no++) {
        const char *e = p + strcspn(p, "\n"), *next = *e ? e + 1 : e;
        while (p < e && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\f' || *p == '\v'))
            p++;
        const char *name, *rest;
        size_t n;
        if (directive(p, e, &name, &n, &rest)) {
            int opens = is(name, n, "if") || is(name, n, "ifdef") || is(name, n, "ifndef");
            if (dead > 0) {
                if (opens)
                    dead++;
                else if (is(name, n, "endif"))
                    dead--;
                else if (dead == 1 && (is(name, n, "else") ||
                                       (is(name, n, "elif") && !is_zero(rest, e))))
                    dead = 0;
                p = next;
                continue;
            }
            if ((is(name, n, "if") || is(name, n, "elif")) && is_zero(rest, e) &&
                closed[line_no]) {
                dead = 1;
                p = next;
                continue;
            }
        } else if (dead > 0) {
            p = next;
            continue;
        }
        /* The line, its blanks one space, its runs of braces and
         * semicolons cut; a string's characters are kept as they are. */
        size_t m = 0;
        char quote = 0;
        for (const char *q = p; q < e; q++) {
            char c = *q;
            if (quote) {
                line[m++] = c;
                if (c == '\\' && q + 1 < e)
                    line[m++] = *++q;
                else if (c == quote)
                    quote = 0;
                continue;
            }
            if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
                if (m > 0 && line[m - 1] != ' ')
                    line[m++] = ' ';
                continue;
            }
            if (c == '{' || c == '}' || c == ';') {
                if (++punct > PUNCT_RUN)
                    continue;
            } else {
                punct = 0;
            }
            if (c == '"' || c == '\'')
                quote = c;
            line[m++] = c;
        }
        while (m > 0 && line[m - 1] == ' ')
            m--;
        p = next;
        if (m == 0)
            continue;
        if (k + m + 1 > cap) {
            *cut = 1;
            break;
        }
        memcpy(out + k, line, m);
        k += m;
        out[k++] = '\n';
    }
    out[k] = '\0';
    free(line);
    free(src);
    free(closed);
    return out;
}
