/*
 * sim_common.c - what many submissions share, left out (sim_common.h).
 */
#include "sim_common.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct token {
    const char *p;     /* its spelling in the text */
    size_t len;
    size_t line;       /* the line it is on, from 0 */
    uint64_t h;        /* the hash of what it reads as (a name: any name) */
} token;

typedef struct doc {
    token *t;
    size_t nt;
    uint64_t *grams;   /* its passages' hashes, in order (nt - SIM_PASSAGE + 1) */
    size_t ng;
    uint64_t whole;    /* the hash of the whole text */
    int first;         /* the first text the same as this one (itself if none) */
} doc;

static const char *const keywords[] = {
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
    "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
    "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch", "typedef",
    "union", "unsigned", "void", "volatile", "while", "_Bool", "_Complex", "_Alignas",
    "_Alignof", "_Atomic", "_Generic", "_Noreturn", "_Static_assert", "_Thread_local",
    /* CUDA's, for lab5's kernels.cu */
    "__global__", "__device__", "__host__", "__shared__", "__restrict__", NULL};

/* The longest first: "<<=" before "<<" before "<". */
static const char *const operators[] = {
    "<<=", ">>=", "...", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
    "+=", "-=", "*=", "/=", "%=", "&=", "^=", "|=", "##", NULL};

static uint64_t fnv(const char *p, size_t n, uint64_t h)
{
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)p[i]) * 0x100000001b3ull;
    return h;
}

#define FNV_START 0xcbf29ce484222325ull

static int is_name_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int is_name_char(char c)
{
    return is_name_start(c) || (c >= '0' && c <= '9');
}

static int is_keyword(const char *p, size_t n)
{
    for (int k = 0; keywords[k]; k++)
        if (strlen(keywords[k]) == n && memcmp(keywords[k], p, n) == 0)
            return 1;
    return 0;
}

/* The length of the token at p (not a blank), at least 1. */
static size_t token_len(const char *p)
{
    size_t n = 0;
    if (is_name_start(*p)) {
        while (is_name_char(p[n]))
            n++;
        return n;
    }
    if ((*p >= '0' && *p <= '9') || (*p == '.' && p[1] >= '0' && p[1] <= '9')) {
        /* A preprocessing number: 1.5e-3f, 0x1p+8, 448u. */
        n = 1;
        while (is_name_char(p[n]) || p[n] == '.' ||
               ((p[n] == '+' || p[n] == '-') && strchr("eEpP", p[n - 1])))
            n++;
        return n;
    }
    if (*p == '"' || *p == '\'') {
        n = 1;
        while (p[n] && p[n] != '\n' && p[n] != *p)
            n += p[n] == '\\' && p[n + 1] && p[n + 1] != '\n' ? 2 : 1;
        return p[n] == *p ? n + 1 : n;
    }
    for (int k = 0; operators[k]; k++) {
        size_t m = strlen(operators[k]);
        if (strncmp(p, operators[k], m) == 0)
            return m;
    }
    return 1;
}

/* Splits text into d's tokens and passages. Returns 0, or -1. */
static int split(const char *text, doc *d)
{
    size_t cap = 256, line = 0;
    d->t = malloc(cap * sizeof *d->t);
    if (!d->t)
        return -1;
    for (const char *p = text; *p;) {
        if (*p == '\n') {
            line++;
            p++;
            continue;
        }
        if (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\f' || *p == '\v') {
            p++;
            continue;
        }
        size_t n = token_len(p);
        if (d->nt == cap) {
            token *grown = realloc(d->t, 2 * cap * sizeof *grown);
            if (!grown)
                return -1;
            d->t = grown;
            cap *= 2;
        }
        /* sim_c reads any name as any other, and any number, string or
         * character as any other of its kind: so do the passages. */
        const char *kind = is_name_start(*p) ? (is_keyword(p, n) ? NULL : "\1")
                         : (*p >= '0' && *p <= '9') || (*p == '.' && p[1] >= '0' && p[1] <= '9')
                             ? "\2"
                         : *p == '"'  ? "\3"
                         : *p == '\'' ? "\4"
                                      : NULL;
        uint64_t h = kind ? fnv(kind, 1, FNV_START) : fnv(p, n, FNV_START);
        d->t[d->nt++] = (token){p, n, line, h};
        p += n;
    }
    d->whole = fnv(text, strlen(text), FNV_START);
    if (d->nt < SIM_PASSAGE)
        return 0;
    d->ng = d->nt - SIM_PASSAGE + 1;
    d->grams = malloc(d->ng * sizeof *d->grams);
    if (!d->grams)
        return -1;
    for (size_t i = 0; i < d->ng; i++) {
        uint64_t h = FNV_START;
        for (size_t j = 0; j < SIM_PASSAGE; j++)
            h = (h ^ d->t[i + j].h) * 0x100000001b3ull;
        /* Mixed, so that the low bits depend on every token (splitmix64's end). */
        h ^= h >> 30;
        h *= 0xbf58476d1ce4e5b9ull;
        h ^= h >> 27;
        h *= 0x94d049bb133111ebull;
        h ^= h >> 31;
        d->grams[i] = h;
    }
    return 0;
}

static int by_value(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

/* v[0..n) sorted, each value once; returns how many are left. */
static size_t sort_unique(uint64_t *v, size_t n)
{
    if (n == 0)
        return 0;
    qsort(v, n, sizeof *v, by_value);
    size_t m = 1;
    for (size_t i = 1; i < n; i++)
        if (v[i] != v[m - 1])
            v[m++] = v[i];
    return m;
}

static int in_sorted(const uint64_t *v, size_t n, uint64_t x)
{
    return bsearch(&x, v, n, sizeof *v, by_value) != NULL;
}

/* d's tokens that no common passage covers, a line per line, into out. */
static int keep_rare(const doc *d, const uint64_t *common, size_t ncommon, gr_sim_rare *out)
{
    unsigned char *gone = calloc(d->nt + 1, 1);
    size_t size = 1;
    for (size_t i = 0; i < d->nt; i++)
        size += d->t[i].len + 1;
    char *text = malloc(size), *w = text;
    if (!gone || !text) {
        free(gone);
        free(text);
        return -1;
    }
    for (size_t i = 0; i < d->ng; i++)
        if (in_sorted(common, ncommon, d->grams[i]))
            memset(gone + i, 1, SIM_PASSAGE);
    size_t line = 0;
    int on_line = 0;
    out->tokens = d->nt;
    out->rare = 0;
    for (size_t i = 0; i < d->nt; i++) {
        if (gone[i])
            continue;
        if (on_line && d->t[i].line != line)
            *w++ = '\n';
        else if (on_line)
            *w++ = ' ';
        memcpy(w, d->t[i].p, d->t[i].len);
        w += d->t[i].len;
        line = d->t[i].line;
        on_line = 1;
        out->rare++;
    }
    if (on_line)
        *w++ = '\n';
    *w = '\0';
    free(gone);
    out->text = text;
    return 0;
}

int gr_sim_common(const char *const *texts, int n, int max_share, gr_sim_rare *out,
                  size_t *common)
{
    for (int k = 0; k < n; k++)
        out[k] = (gr_sim_rare){0};
    doc *d = calloc((size_t)(n > 0 ? n : 1), sizeof *d);
    uint64_t *all = NULL;
    size_t nall = 0, ncommon = 0;
    int rc = d ? 0 : -1;
    for (int k = 0; rc == 0 && k < n; k++) {
        d[k].first = k;
        if (texts[k] && split(texts[k], &d[k]) != 0)
            rc = -1;
        for (int j = 0; rc == 0 && texts[k] && j < k; j++)
            if (texts[j] && d[j].whole == d[k].whole && strcmp(texts[j], texts[k]) == 0) {
                d[k].first = j;
                break;
            }
    }
    for (int k = 0; rc == 0 && k < n; k++)
        nall += d[k].first == k ? d[k].ng : 0;
    if (rc == 0 && !(all = malloc((nall > 0 ? nall : 1) * sizeof *all)))
        rc = -1;
    nall = 0;
    /* Each text's passages once, the texts that are the same as one before once. */
    for (int k = 0; rc == 0 && k < n; k++) {
        if (d[k].first != k || d[k].ng == 0)
            continue;
        uint64_t *mine = all + nall;
        memcpy(mine, d[k].grams, d[k].ng * sizeof *mine);
        nall += sort_unique(mine, d[k].ng);
    }
    if (rc == 0 && nall > 0) {
        qsort(all, nall, sizeof *all, by_value);
        for (size_t i = 0; i < nall;) {
            size_t e = i + 1;
            while (e < nall && all[e] == all[i])
                e++;
            if (e - i > (size_t)max_share)
                all[ncommon++] = all[i];
            i = e;
        }
    }
    for (int k = 0; rc == 0 && k < n; k++)
        if (texts[k] && keep_rare(&d[k], all, ncommon, &out[k]) != 0)
            rc = -1;
    for (int k = 0; d && k < n; k++) {
        free(d[k].t);
        free(d[k].grams);
    }
    free(d);
    free(all);
    if (rc != 0) {
        gr_sim_rare_free(out, n);
        return -1;
    }
    *common = ncommon;
    return 0;
}

void gr_sim_rare_free(gr_sim_rare *out, int n)
{
    for (int k = 0; k < n; k++) {
        free(out[k].text);
        out[k].text = NULL;
    }
}
