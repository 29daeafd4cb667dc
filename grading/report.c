/*
 * report.c - writes a grading run's results (report.h): the scorecard a
 * student reads, and json, gradescope, tap and junit for machines.
 *
 *   text        one line per test, a counterexample and the handout section
 *               under each that did not pass, then "Score: N/M"
 *   json        our own schema, every field of the gr_report
 *   gradescope  Gradescope's results.json (gradescope-autograders.readthedocs.io,
 *               "Autograder Specifications")
 *   tap         TAP version 14, a YAML block under each test that did not pass
 *   junit       JUnit XML as Jenkins and GitLab read it
 *   csv         not a report: the one function that writes a cell of any CSV
 *               file the grader writes (the gradebook, the LMS files), cleaned
 *               as the scorecard is, and HTML-escaped where the platform
 *               shows the cell as HTML
 *   autolab     the text scorecard, then Autolab's one line of JSON,
 *               {"scores": {TEST: POINTS, ...}, "scoreboard": [SCORE]}, last
 *               (Autolab's "Writing autograders": the last line of the
 *               autograder's output holds the scores)
 *
 * Messages, captured output and build logs are whatever bytes a submission
 * printed, so every string goes through clean_text() on its way out: invalid
 * UTF-8 becomes U+FFFD in every format, and where control characters cannot
 * or should not go (the terminal, TAP's YAML, XML 1.0, Gradescope's web page)
 * they become U+FFFD too; only the json format keeps them, escaped. JSON is
 * written by jansson and XML by libxml2's xmlTextWriter; the YAML scalars that
 * need quoting are quoted as JSON strings, which YAML reads as they are.
 *
 * verbose adds, in every format, the captured output of each test that did
 * not pass, and the build log of a submission that built (with warnings).
 * The build log of a failed build is always shown.
 *
 * Not for: deciding a status or a score; those arrive in the gr_report.
 */
#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <libxml/xmlwriter.h>

static const char *const format_names[] = {"text",  "json",  "gradescope",
                                            "tap",   "junit", "autolab"};

int gr_format_from_name(const char *name)
{
    for (int i = 0; name && i < GRADER_COUNT(format_names); i++)
        if (strcmp(name, format_names[i]) == 0)
            return i;
    return -1;
}

int gr_test_hidden(const gr_report *r, const grader_test *t)
{
    if (!r->hidden_inputs || !r->lab->hidden)
        return 0;
    for (int i = 0; r->lab->hidden[i]; i++)
        if (strcmp(r->lab->hidden[i], t->name) == 0)
            return 1;
    return 0;
}

const char *gr_status_name(gr_status s)
{
    switch (s) {
    case GR_PASS: return "PASS";
    case GR_FAIL: return "FAIL";
    case GR_ERROR: return "ERROR";
    case GR_NOT_RUN: return "NOT RUN";
    case GR_SKIPPED: return "SKIP";
    }
    return "UNKNOWN";
}

/* The status as the json format spells it. */
static const char *status_key(gr_status s)
{
    switch (s) {
    case GR_PASS: return "pass";
    case GR_FAIL: return "fail";
    case GR_ERROR: return "error";
    case GR_NOT_RUN: return "not_run";
    case GR_SKIPPED: return "skipped";
    }
    return "unknown";
}

/* ---- making any bytes printable ------------------------------------------------- */

typedef enum clean_level {
    CLEAN_UTF8,     /* invalid UTF-8 -> U+FFFD; control characters stay (JSON escapes them) */
    CLEAN_CONTROLS, /* also every control character but tab and newline -> U+FFFD; CR and
                     * CRLF -> newline (for the terminal, YAML and XML 1.0) */
    CLEAN_LINE      /* every control character, tab and newline too -> U+FFFD (one
                     * line of a terminal) */
} clean_level;

#define REPLACEMENT "\xEF\xBF\xBD" /* U+FFFD in UTF-8 */

/*
 * The well-formed UTF-8 sequence at s (Unicode Table 3-7: no overlong forms,
 * no surrogates, nothing past U+10FFFF): its length, with the code point in
 * *cp. For an ill-formed one, minus the length of its maximal subpart, which
 * becomes one U+FFFD (Unicode's recommended practice). s is NUL-terminated,
 * and NUL is never a continuation byte, so this never reads past the end.
 */
static int utf8_next(const unsigned char *s, unsigned *cp)
{
    unsigned c = s[0], lo = 0x80, hi = 0xBF;
    int len;

    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        *cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        *cp = c & 0x0F;
        lo = c == 0xE0 ? 0xA0 : 0x80; /* E0 80..9F would be overlong */
        hi = c == 0xED ? 0x9F : 0xBF; /* ED A0..BF would be a surrogate */
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        *cp = c & 0x07;
        lo = c == 0xF0 ? 0x90 : 0x80; /* F0 80..8F would be overlong */
        hi = c == 0xF4 ? 0x8F : 0xBF; /* F4 90.. would pass U+10FFFF */
    } else {
        return -1;
    }
    for (int i = 1; i < len; i++) {
        if (s[i] < lo || s[i] > hi)
            return -i;
        *cp = (*cp << 6) | (s[i] & 0x3F);
        lo = 0x80;
        hi = 0xBF;
    }
    return len;
}

/* The characters that change how the text around them reads without being
 * seen themselves: Unicode's format characters (general category Cf: the
 * bidirectional embeddings, overrides and isolates U+202A-U+202E and
 * U+2066-U+2069, the marks U+200E, U+200F and U+061C, the zero-width
 * U+200B-U+200D and U+2060-U+2064, the BOM U+FEFF, the soft hyphen, the
 * tags, ...), the line and paragraph separators, and the Hangul fillers,
 * letters that draw nothing. Ranges, first and last. */
static const unsigned invisible[][2] = {
    {0x00AD, 0x00AD},   {0x0600, 0x0605},   {0x061C, 0x061C},   {0x06DD, 0x06DD},
    {0x070F, 0x070F},   {0x0890, 0x0891},   {0x08E2, 0x08E2},   {0x115F, 0x1160},
    {0x180E, 0x180E},   {0x200B, 0x200F},   {0x2028, 0x202E},   {0x2060, 0x2064},
    {0x2066, 0x206F},   {0x3164, 0x3164},   {0xFEFF, 0xFEFF},   {0xFFA0, 0xFFA0},
    {0xFFF9, 0xFFFB},   {0x110BD, 0x110BD}, {0x110CD, 0x110CD}, {0x13430, 0x1343F},
    {0x1BCA0, 0x1BCA3}, {0x1D173, 0x1D17A}, {0xE0001, 0xE0001}, {0xE0020, 0xE007F},
};

int gr_invisible_char(unsigned cp)
{
    for (size_t i = 0; i < sizeof invisible / sizeof invisible[0]; i++)
        if (cp >= invisible[i][0] && cp <= invisible[i][1])
            return 1;
    return 0;
}

/* Whether code point cp may appear as it is at this level. CLEAN_CONTROLS
 * keeps what XML 1.0's Char and YAML's c-printable both allow, less DEL,
 * the C1 controls (a terminal obeys some of them) and the invisible
 * characters (gr_invisible_char: a right-to-left override shows what
 * follows it reversed). */
static int keeps(unsigned cp, clean_level level)
{
    if (level == CLEAN_UTF8 || (level == CLEAN_CONTROLS && (cp == '\t' || cp == '\n')))
        return 1;
    if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F))
        return 0;
    return !gr_invisible_char(cp) && cp != 0xFFFE && cp != 0xFFFF;
}

/* s made safe for the level, malloc'd; NULL when out of memory. */
static char *clean_text(const char *s, clean_level level)
{
    const unsigned char *p = (const unsigned char *) s;
    char *out = malloc(3 * strlen(s) + 1), *o = out;

    if (!out)
        return NULL;
    while (*p) {
        unsigned cp = 0;
        int len = utf8_next(p, &cp);
        if (len == 1 && cp == '\r' && level == CLEAN_CONTROLS) {
            *o++ = '\n';
            p += p[1] == '\n' ? 2 : 1;
        } else if (len > 0 && keeps(cp, level)) {
            memcpy(o, p, (size_t) len);
            o += len;
            p += len;
        } else {
            memcpy(o, REPLACEMENT, 3);
            o += 3;
            p += len > 0 ? len : -len;
        }
    }
    *o = '\0';
    return out;
}

int gr_utf8_next(const char *s, unsigned *cp)
{
    return utf8_next((const unsigned char *) s, cp);
}

/* clean_text, or the grader ends: out of memory. */
static char *clean_or_exit(const char *s, clean_level level)
{
    char *c = clean_text(s ? s : "", level);
    if (!c) {
        fputs("grader: out of memory\n", stderr);
        exit(2);
    }
    return c;
}

char *gr_clean_line(const char *s)
{
    return clean_or_exit(s, CLEAN_LINE);
}

/* ---- csv ------------------------------------------------------------------------------ */

/* s, cleaned already, as one cell (gr_write_csv_cell). */
static void csv_cell(FILE *out, const char *s)
{
    int formula = s[0] && strchr("=+-@\t\r", s[0]) != NULL;
    if (!formula && !strpbrk(s, ",\"\r\n")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    if (formula)
        fputc('\'', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

void gr_write_csv_cell(FILE *out, const char *s)
{
    char *c = clean_or_exit(s, CLEAN_CONTROLS);
    csv_cell(out, c);
    free(c);
}

char *gr_html_text(const char *s)
{
    char *c = clean_or_exit(s, CLEAN_CONTROLS);
    char *h = malloc(6 * strlen(c) + 1), *o = h;
    if (!h) {
        fputs("grader: out of memory\n", stderr);
        exit(2);
    }
    for (const char *p = c; *p; p++) {
        const char *entity = *p == '&' ? "&amp;" : *p == '<' ? "&lt;" : *p == '>' ? "&gt;"
                           : *p == '"' ? "&quot;" : *p == '\'' ? "&#39;" : NULL;
        if (entity) {
            strcpy(o, entity);
            o += strlen(entity);
        } else {
            *o++ = *p;
        }
    }
    *o = '\0';
    free(c);
    return h;
}

void gr_write_csv_html_cell(FILE *out, const char *s)
{
    char *h = gr_html_text(s);
    csv_cell(out, h);
    free(h);
}

/* ---- a growing string -------------------------------------------------------------- */

typedef struct strbuf {
    char *s;
    size_t len, cap;
    int failed; /* an allocation failed; s holds what came before */
} strbuf;

static void sb_add(strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void sb_add(strbuf *b, const char *fmt, ...)
{
    va_list ap;
    int n;

    if (b->failed)
        return;
    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->failed = 1;
        return;
    }
    if (b->len + (size_t) n + 1 > b->cap) {
        size_t cap = 2 * (b->len + (size_t) n + 1);
        char *s = realloc(b->s, cap);
        if (!s) {
            b->failed = 1;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    b->len += (size_t) n;
}

/* The string built, or NULL when an allocation failed (then b is freed). */
static char *sb_take(strbuf *b)
{
    if (b->failed || !b->s) {
        free(b->s);
        b->s = NULL;
        return b->failed ? NULL : strdup("");
    }
    return b->s;
}

/* ---- what every format says about a result ------------------------------------------ */

/* What went wrong, in words: the result's message, or a stand-in when the
 * runner recorded none. "" for a pass. */
static const char *message_of(const gr_report *r, const gr_result *res)
{
    if (res->status == GR_PASS)
        return "";
    if (res->message && res->message[0])
        return res->message;
    switch (res->status) {
    case GR_FAIL: return "failed (the test recorded no message)";
    case GR_ERROR: return "did not finish (the test recorded no message)";
    case GR_NOT_RUN:
        return r->build_ok ? "not run" : "not run: the submission did not build";
    case GR_SKIPPED: return "skipped: this machine cannot run it";
    default: return "unknown status";
    }
}

static int shows_output(const gr_result *res, int verbose)
{
    return verbose && res->status != GR_PASS && res->output && res->output[0];
}

/* A test that never ran has nothing to re-read about: the section is named
 * only when a check failed or the test crashed. */
static int shows_reread(const gr_result *res)
{
    return res->status == GR_FAIL || res->status == GR_ERROR;
}

/* Not built because this machine cannot build it (no nvcc): every test is
 * SKIPPED, and the submission is not to blame. */
static int not_buildable_here(const gr_report *r)
{
    return !r->build_ok && r->nresults > 0 && gr_count_status(r, GR_SKIPPED) == r->nresults;
}

/* The sentence that opens the build log of a submission that did not build,
 * without its full stop. */
static const char *build_failed_text(const gr_report *r)
{
    return not_buildable_here(r) ? "It was not built: this machine cannot build it"
                                 : "The submission did not build";
}

static int shows_build_log(const gr_report *r, int verbose)
{
    return r->build_log && r->build_log[0] && (!r->build_ok || verbose);
}

/* "labs/lab0/README.md §3.2 Rounding", malloc'd; NULL when out of memory. */
static char *reread_of(const gr_report *r, const gr_result *res)
{
    strbuf b = {0};
    const char *section = res->test->section;
    sb_add(&b, "labs/%s/README.md%s%s", r->lab->name, section && section[0] ? " " : "",
           section ? section : "");
    return sb_take(&b);
}

/* The result of the test named name (len bytes) in r, or NULL. */
static const gr_result *result_named(const gr_report *r, const char *name, size_t len)
{
    for (int i = 0; i < r->nresults; i++)
        if (strlen(r->results[i].test->name) == len &&
            strncmp(r->results[i].test->name, name, len) == 0)
            return &r->results[i];
    return NULL;
}

int gr_note_builds_on(gr_report *r)
{
    int rc = 0;
    for (int i = 0; i < r->nresults; i++) {
        gr_result *res = &r->results[i];
        const char *p = res->test->builds_on;
        strbuf b = {0};
        int named = 0;

        if (!p || (res->status != GR_FAIL && res->status != GR_ERROR))
            continue;
        while (*p) {
            size_t n;
            p += strspn(p, " ");
            n = strcspn(p, " ");
            const gr_result *dep = n ? result_named(r, p, n) : NULL;
            if (dep && (dep->status == GR_FAIL || dep->status == GR_ERROR)) {
                char *reread = reread_of(r, dep);
                sb_add(&b, "%s%s (%s)", named ? ", and " : "It builds on ", dep->test->name,
                       reread ? reread : "");
                free(reread);
                named++;
            }
            p += n;
        }
        if (named == 0)
            continue;
        sb_add(&b, ", which %s too: fix %s first.\n%s", named > 1 ? "fail" : "fails",
               named > 1 ? "those" : "that", message_of(r, res));
        char *msg = sb_take(&b);
        if (!msg) {
            rc = -1;
            continue;
        }
        free(res->message);
        res->message = msg;
    }
    return rc;
}

int gr_count_status(const gr_report *r, gr_status s)
{
    int n = 0;
    for (int i = 0; i < r->nresults; i++)
        n += r->results[i].status == s;
    return n;
}

/* The points of the tests that were skipped. */
static int skipped_points(const gr_report *r)
{
    int n = 0;
    for (int i = 0; i < r->nresults; i++)
        if (r->results[i].status == GR_SKIPPED)
            n += r->results[i].test->points;
    return n;
}

void gr_reweight(gr_report *r, int reweight)
{
    r->graded_score = r->score;
    r->graded_max = r->max_score - skipped_points(r);
    r->reweighted = 0;
    if (!reweight || r->graded_max <= 0 || r->graded_max >= r->max_score)
        return;
    long long num = 2LL * r->graded_score * r->max_score + r->graded_max;
    r->score = (int)(num / (2LL * r->graded_max));
    r->reweighted = 1;
}

void gr_late_penalty(gr_report *r, int percent)
{
    r->late_penalty = 0;
    r->late_points = 0;
    if (percent <= 0)
        return;
    int kept = (int)((2LL * r->score * (100 - percent) + 100) / 200);
    r->late_penalty = percent;
    r->late_points = r->score - kept;
    r->score = kept;
}

/* Writes each line of text (already cleaned) after indent, an empty line too
 * when blank_too (else it stays empty); a final newline does not make an
 * empty line. */
static void put_lines(FILE *out, const char *indent, const char *text, int blank_too)
{
    while (*text) {
        size_t n = strcspn(text, "\n");
        if (n > 0 || blank_too)
            fprintf(out, "%s%.*s", indent, (int) n, text);
        fputc('\n', out);
        text += n + (text[n] == '\n');
    }
}

/* ---- text: the scorecard ------------------------------------------------------------ */

/* Cleans s and writes it as indented lines; -1 when out of memory. */
static int put_clean_lines(FILE *out, const char *indent, const char *s)
{
    char *c = clean_text(s, CLEAN_CONTROLS);
    if (!c)
        return -1;
    put_lines(out, indent, c, 0);
    free(c);
    return 0;
}

/* Whether result i was skipped for a reason no earlier skipped test gave. */
static int new_skip_reason(const gr_report *r, int i)
{
    if (r->results[i].status != GR_SKIPPED)
        return 0;
    const char *why = message_of(r, &r->results[i]);
    for (int j = 0; j < i; j++)
        if (r->results[j].status == GR_SKIPPED && strcmp(message_of(r, &r->results[j]), why) == 0)
            return 0;
    return 1;
}

/* Each skipped test's reason, once: "Why: REASON" where every one has the
 * same (no GPU), else "Why (test, test): REASON" for each reason in turn
 * (a GPU without what some tests need). 0, or -1 out of memory. */
static int put_skip_reasons(FILE *out, const gr_report *r)
{
    int reasons = 0;
    for (int i = 0; i < r->nresults; i++)
        reasons += new_skip_reason(r, i);
    for (int i = 0; i < r->nresults; i++) {
        if (!new_skip_reason(r, i))
            continue;
        const char *why = message_of(r, &r->results[i]);
        fputs("Why", out);
        if (reasons > 1) {
            const char *sep = " (";
            for (int j = i; j < r->nresults; j++)
                if (r->results[j].status == GR_SKIPPED &&
                    strcmp(message_of(r, &r->results[j]), why) == 0) {
                    fprintf(out, "%s%s", sep, r->results[j].test->name);
                    sep = ", ";
                }
            fputc(')', out);
        }
        fputs(": ", out);
        if (put_clean_lines(out, "", why) != 0)
            return -1;
    }
    return 0;
}

static int write_text(FILE *out, const gr_report *r, int verbose, lab_error *err)
{
    const char *const indent = "      ";
    int status_w = 4, name_w = 0, points_w = 0;

    for (int i = 0; i < r->nresults; i++) {
        const gr_result *res = &r->results[i];
        int n = snprintf(NULL, 0, "%d/%d", res->points, res->test->points);
        if ((int) strlen(gr_status_name(res->status)) > status_w)
            status_w = (int) strlen(gr_status_name(res->status));
        if ((int) strlen(res->test->name) > name_w)
            name_w = (int) strlen(res->test->name);
        if (n > points_w)
            points_w = n;
    }

    fprintf(out, "%s: %s", r->lab->name, r->lab->title ? r->lab->title : "");
    if (r->source) {
        char *source = clean_text(r->source, CLEAN_CONTROLS);
        if (!source)
            return lab_errorf(err, "cannot write the text report: out of memory");
        fprintf(out, "  (graded: %s)", source);
        free(source);
    }
    fputs("\n\n", out);
    if (r->note) {
        char *note = clean_text(r->note, CLEAN_CONTROLS);
        if (!note)
            return lab_errorf(err, "cannot write the text report: out of memory");
        fprintf(out, "Note: %s.\n\n", note);
        free(note);
    }

    if (!r->build_ok && !shows_build_log(r, verbose))
        fprintf(out, "%s (no build output was kept).\n\n", build_failed_text(r));
    if (shows_build_log(r, verbose)) {
        if (r->build_ok)
            fputs("The build printed warnings:\n", out);
        else
            fprintf(out, "%s. The build log says:\n", build_failed_text(r));
        if (put_clean_lines(out, indent, r->build_log) != 0)
            return lab_errorf(err, "cannot write the text report: out of memory");
        fputc('\n', out);
    }

    for (int i = 0; i < r->nresults; i++) {
        const gr_result *res = &r->results[i];
        char points[32], *reread;
        snprintf(points, sizeof points, "%d/%d", res->points, res->test->points);
        fprintf(out, "%-*s  %-*s  %*s", status_w, gr_status_name(res->status), name_w,
                res->test->name, points_w, points);
        if (res->test->title && res->test->title[0])
            fprintf(out, "  %s", res->test->title);
        if (gr_test_hidden(r, res->test))
            fputs("  [hidden inputs]", out);
        fputc('\n', out);
        /* A failed build is explained once, above, not under every test; so
         * is why tests were skipped, below. */
        if (res->status == GR_PASS || res->status == GR_SKIPPED ||
            (res->status == GR_NOT_RUN && !r->build_ok))
            continue;
        if (put_clean_lines(out, indent, message_of(r, res)) != 0)
            return lab_errorf(err, "cannot write the text report: out of memory");
        if (shows_reread(res)) {
            if ((reread = reread_of(r, res)) == NULL)
                return lab_errorf(err, "cannot write the text report: out of memory");
            fprintf(out, "%sre-read: %s\n", indent, reread);
            free(reread);
        }
        if (shows_output(res, verbose)) {
            fprintf(out, "%soutput:\n", indent);
            if (put_clean_lines(out, "        ", res->output) != 0)
                return lab_errorf(err, "cannot write the text report: out of memory");
        }
    }

    if (r->hidden_inputs)
        fputs("\n[hidden inputs]: the test also checked inputs drawn afresh for this grading,\n"
              "against the reference solution.\n", out);
    fprintf(out, "\nScore: %d/%d", r->score, r->max_score);
    if (isfinite(r->seconds) && r->seconds >= 0)
        fprintf(out, "  (%.1f s)", r->seconds);
    fputc('\n', out);
    int skipped = gr_count_status(r, GR_SKIPPED);
    if (skipped > 0) {
        fprintf(out, "%d of %d tests SKIPPED, not passed: %d points were not graded here.\n",
                skipped, r->nresults, skipped_points(r));
        if (r->reweighted)
            fprintf(out, "Re-weighted (--reweight-skipped): %d of the %d points graded here, "
                         "scaled to %d of %d.\n",
                    r->graded_score, r->graded_max, r->score + r->late_points, r->max_score);
        if (put_skip_reasons(out, r) != 0)
            return lab_errorf(err, "cannot write the text report: out of memory");
    }
    if (r->late_penalty > 0)
        fprintf(out, "Late (the platform marked it so): %d%% taken, %d points: %d of %d "
                     "become %d.\n",
                r->late_penalty, r->late_points, r->score + r->late_points, r->max_score,
                r->score);
    return 0;
}

/* ---- json and gradescope, through jansson ----------------------------------------- */

/* A JSON string of s cleaned to the level, or null for NULL; NULL when out
 * of memory. */
static json_t *jstr_at(const char *s, clean_level level)
{
    char *c;
    json_t *j;
    if (!s)
        return json_null();
    if ((c = clean_text(s, level)) == NULL)
        return NULL;
    j = json_string(c);
    free(c);
    return j;
}

/* The json format is a record: it keeps control characters (JSON escapes
 * them) and replaces only invalid UTF-8. */
static json_t *jstr(const char *s)
{
    return jstr_at(s, CLEAN_UTF8);
}

/* Gradescope shows its strings to students in a web page, where control
 * characters have no business. */
static json_t *jstr_shown(const char *s)
{
    return jstr_at(s, CLEAN_CONTROLS);
}

/* Adds value under key, taking the reference; a NULL value (an allocation
 * that failed) or a failed set marks *ok 0. */
static void jset(json_t *obj, const char *key, json_t *value, int *ok)
{
    if (!obj || !value) {
        json_decref(value);
        *ok = 0;
    } else if (json_object_set_new(obj, key, value) != 0) {
        *ok = 0;
    }
}

static void jappend(json_t *arr, json_t *value, int *ok)
{
    if (!arr || !value) {
        json_decref(value);
        *ok = 0;
    } else if (json_array_append_new(arr, value) != 0) {
        *ok = 0;
    }
}

/* Dumps root to out, then a newline, and releases root. */
static int dump_json(FILE *out, json_t *root, int ok, const char *format, lab_error *err)
{
    if (!ok || !root) {
        json_decref(root);
        return lab_errorf(err, "cannot write the %s report: jansson could not build it "
                               "(out of memory?)", format);
    }
    /* A failed write shows in ferror(out), which gr_write_report checks. */
    json_dumpf(root, out, JSON_INDENT(2));
    fputc('\n', out);
    json_decref(root);
    return 0;
}

/* The scorecard, then {"scores": {...}, "scoreboard": [score]} on one line. */
static int write_autolab(FILE *out, const gr_report *r, int verbose, lab_error *err)
{
    if (write_text(out, r, verbose, err) != 0)
        return -1;
    json_t *root = json_object(), *scores = json_object(), *board = json_array();
    int ok = scores && board;
    for (int i = 0; ok && i < r->nresults; i++)
        jset(scores, r->results[i].test->name, json_integer(r->results[i].points), &ok);
    jappend(board, json_integer(r->score), &ok);
    jset(root, "scores", scores, &ok);
    jset(root, "scoreboard", board, &ok);
    if (!ok || !root) {
        json_decref(root);
        return lab_errorf(err, "cannot write the autolab report: jansson could not build it "
                               "(out of memory?)");
    }
    json_dumpf(root, out, JSON_COMPACT);
    fputc('\n', out);
    json_decref(root);
    return 0;
}

static int write_json(FILE *out, const gr_report *r, int verbose, lab_error *err)
{
    json_t *root = json_object(), *tests = json_array();
    int ok = tests != NULL;

    jset(root, "lab", jstr(r->lab->name), &ok);
    jset(root, "title", jstr(r->lab->title), &ok);
    jset(root, "source", jstr(r->source), &ok);
    if (r->note)
        jset(root, "note", jstr(r->note), &ok);
    if (r->student)
        jset(root, "student", jstr(r->student), &ok);
    if (r->grader)
        jset(root, "grader", jstr(r->grader), &ok);
    if (r->grader_sha256)
        jset(root, "grader_sha256", jstr(r->grader_sha256), &ok);
    if (r->files) {
        json_t *files = json_object();
        for (int i = 0; ok && i < r->nfiles; i++)
            jset(files, r->files[i].name, r->files[i].sha256[0] ? json_string(r->files[i].sha256)
                                                                : json_null(), &ok);
        jset(root, "sha256", files, &ok);
    }
    jset(root, "build_ok", json_boolean(r->build_ok), &ok);
    jset(root, "build_log", jstr(r->build_log && r->build_log[0] ? r->build_log : NULL), &ok);
    jset(root, "score", json_integer(r->score), &ok);
    jset(root, "max_score", json_integer(r->max_score), &ok);
    if (r->reweighted) {
        json_t *rw = json_object();
        jset(rw, "graded_score", json_integer(r->graded_score), &ok);
        jset(rw, "graded_max", json_integer(r->graded_max), &ok);
        jset(root, "reweighted", rw, &ok);
    }
    if (r->late_penalty > 0) {
        json_t *late = json_object();
        jset(late, "percent", json_integer(r->late_penalty), &ok);
        jset(late, "points", json_integer(r->late_points), &ok);
        jset(root, "late_penalty", late, &ok);
    }
    /* json_real refuses NaN and infinities: a clock that failed says null. */
    jset(root, "seconds", isfinite(r->seconds) ? json_real(r->seconds) : json_null(), &ok);
    jset(root, "hidden_inputs", json_boolean(r->hidden_inputs), &ok);
    for (int i = 0; ok && i < r->nresults; i++) {
        const gr_result *res = &r->results[i];
        json_t *t = json_object();
        jset(t, "name", jstr(res->test->name), &ok);
        jset(t, "title", jstr(res->test->title), &ok);
        jset(t, "section", jstr(res->test->section), &ok);
        jset(t, "status", json_string(status_key(res->status)), &ok);
        jset(t, "points", json_integer(res->points), &ok);
        jset(t, "max_points", json_integer(res->test->points), &ok);
        jset(t, "seconds", json_real(res->seconds), &ok);
        jset(t, "timeout_s", json_real(res->test->timeout_s), &ok);
        jset(t, "hidden_inputs", json_boolean(gr_test_hidden(r, res->test)), &ok);
        jset(t, "message", res->status == GR_PASS ? json_null() : jstr(message_of(r, res)), &ok);
        jset(t, "output", jstr(shows_output(res, verbose) ? res->output : NULL), &ok);
        jappend(tests, t, &ok);
    }
    jset(root, "tests", tests, &ok);
    return dump_json(out, root, ok, "json", err);
}

/* A Gradescope test's output: what went wrong and where to read about it; ""
 * on a pass. NULL when out of memory. */
static char *gradescope_test_output(const gr_report *r, const gr_result *res, int verbose)
{
    strbuf b = {0};
    char *reread;

    if (res->status == GR_PASS)
        return strdup("");
    sb_add(&b, "%s", message_of(r, res));
    if (b.len > 0 && b.s[b.len - 1] != '\n')
        sb_add(&b, "\n");
    if (shows_reread(res)) {
        if ((reread = reread_of(r, res)) == NULL) {
            free(sb_take(&b));
            return NULL;
        }
        sb_add(&b, "\nre-read: %s\n", reread);
        free(reread);
    }
    if (shows_output(res, verbose))
        sb_add(&b, "\noutput:\n%s", res->output);
    return sb_take(&b);
}

static int write_gradescope(FILE *out, const gr_report *r, int verbose, lab_error *err)
{
    json_t *root = json_object(), *tests = json_array();
    strbuf summary = {0};
    char *text;
    int ok = tests != NULL;

    sb_add(&summary, "%s (%s): %d/%d points; %d of %d tests passed.", r->lab->name,
           r->lab->title ? r->lab->title : "", r->score, r->max_score,
           gr_count_status(r, GR_PASS), r->nresults);
    if (gr_count_status(r, GR_SKIPPED) > 0)
        sb_add(&summary, " %d tests were skipped (this machine cannot run them; see each).",
               gr_count_status(r, GR_SKIPPED));
    if (r->reweighted)
        sb_add(&summary, " Re-weighted: %d of the %d points graded here, scaled to %d of %d.",
               r->graded_score, r->graded_max, r->score + r->late_points, r->max_score);
    if (r->late_penalty > 0)
        sb_add(&summary, " Late: %d%% taken, %d points.", r->late_penalty, r->late_points);
    if (!r->build_ok)
        sb_add(&summary, "\n\n%s.", build_failed_text(r));
    if (shows_build_log(r, verbose))
        sb_add(&summary, "\n\n%s\n\n%s", r->build_ok ? "The build printed warnings:"
                                                    : "The compiler said:", r->build_log);
    text = sb_take(&summary);

    jset(root, "score", json_integer(r->score), &ok);
    jset(root, "max_score", json_integer(r->max_score), &ok);
    /* The spec gives execution_time in whole seconds. */
    if (isfinite(r->seconds) && r->seconds >= 0)
        jset(root, "execution_time", json_integer((json_int_t) lround(r->seconds)), &ok);
    jset(root, "output", text ? jstr_shown(text) : NULL, &ok);
    /* "text" shows the counterexamples as written, in a fixed-width font; the
     * default (simple_format) would run their aligned columns together. */
    jset(root, "output_format", json_string("text"), &ok);
    jset(root, "visibility", json_string("visible"), &ok);
    free(text);
    for (int i = 0; ok && i < r->nresults; i++) {
        const gr_result *res = &r->results[i];
        json_t *t = json_object();
        strbuf name = {0};
        char *s;
        sb_add(&name, "%s: %s", res->test->name, res->test->title ? res->test->title : "");
        if (gr_test_hidden(r, res->test))
            sb_add(&name, " [hidden inputs]");
        s = sb_take(&name);
        jset(t, "name", s ? jstr_shown(s) : NULL, &ok);
        free(s);
        jset(t, "score", json_integer(res->points), &ok);
        jset(t, "max_score", json_integer(res->test->points), &ok);
        jset(t, "status", json_string(res->status == GR_PASS ? "passed" : "failed"), &ok);
        s = gradescope_test_output(r, res, verbose);
        jset(t, "output", s ? jstr_shown(s) : NULL, &ok);
        free(s);
        jset(t, "output_format", json_string("text"), &ok);
        jset(t, "visibility", json_string("visible"), &ok);
        jappend(tests, t, &ok);
    }
    jset(root, "tests", tests, &ok);
    return dump_json(out, root, ok, "gradescope", err);
}

/* ---- tap ----------------------------------------------------------------------------- */

/* A test name for a test point: '#' would start a directive and '\' an
 * escape, so both are escaped as TAP 14 says; control characters become '?'. */
static void put_tap_name(FILE *out, const char *name)
{
    for (const char *p = name; *p; p++) {
        if (*p == '#' || *p == '\\')
            fputc('\\', out);
        fputc((unsigned char) *p < 0x20 || *p == 0x7F ? '?' : *p, out);
    }
}

/* "key: "value"" with value cleaned and quoted as a JSON string, which is a
 * YAML double-quoted scalar. */
static int put_yaml_string(FILE *out, const char *key, const char *value)
{
    json_t *j = jstr_shown(value);
    char *quoted = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;
    json_decref(j);
    if (!quoted)
        return -1;
    fprintf(out, "  %s: %s\n", key, quoted);
    free(quoted);
    return 0;
}

/* "key: |" and the cleaned text as a YAML literal block, indented 4 (TAP's
 * 2 and YAML's 2). Text whose first line is empty or starts with a space or
 * a tab would set the block's indentation itself; it goes out as a quoted
 * string instead (put_yaml_string), which TAP::Parser's YAMLish reads too,
 * where it does not know the "|2" indentation indicator. */
static int put_yaml_block(FILE *out, const char *key, const char *text)
{
    char *c;
    if (text[0] == '\n' || text[0] == ' ' || text[0] == '\t' || text[0] == '\r')
        return put_yaml_string(out, key, text);
    if ((c = clean_text(text, CLEAN_CONTROLS)) == NULL)
        return -1;
    /* Blank lines keep the indentation: TAP::Parser's YAMLish would end the
     * block at a line without it. */
    fprintf(out, "  %s: |\n", key);
    put_lines(out, "    ", c, 1);
    free(c);
    return 0;
}

static int write_tap(FILE *out, const gr_report *r, int verbose, lab_error *err)
{
    fprintf(out, "TAP version 14\n1..%d\n", r->nresults);
    fprintf(out, "# %s: %s\n", r->lab->name, r->lab->title ? r->lab->title : "");
    if (!r->build_ok)
        fprintf(out, "# %s.\n", build_failed_text(r));
    if (shows_build_log(r, verbose)) {
        fputs(r->build_ok ? "# The build printed warnings:\n" : "# The compiler said:\n", out);
        if (put_clean_lines(out, "#   ", r->build_log) != 0)
            return lab_errorf(err, "cannot write the tap report: out of memory");
    }
    for (int i = 0; i < r->nresults; i++) {
        const gr_result *res = &r->results[i];
        char *reread;
        /* A skipped test is "not ok ... # SKIP": a harness shows it as
         * skipped, not failed, and "not ok" keeps it from reading as passed. */
        fprintf(out, "%s %d - ", res->status == GR_PASS ? "ok" : "not ok", i + 1);
        put_tap_name(out, res->test->name);
        if (res->status == GR_SKIPPED)
            fputs(" # SKIP", out);
        fprintf(out, "  # %d/%d points", res->points, res->test->points);
        if (res->seconds > 0)
            fprintf(out, ", %.1f s", res->seconds);
        fputc('\n', out);
        if (res->status == GR_PASS)
            continue;
        fputs("  ---\n", out);
        if (put_yaml_block(out, "message", message_of(r, res)) != 0)
            return lab_errorf(err, "cannot write the tap report: out of memory");
        fprintf(out, "  status: %s\n", status_key(res->status));
        fprintf(out, "  points: %d\n  max_points: %d\n", res->points, res->test->points);
        if (shows_reread(res)) {
            if ((reread = reread_of(r, res)) == NULL ||
                put_yaml_string(out, "re-read", reread) != 0) {
                free(reread);
                return lab_errorf(err, "cannot write the tap report: out of memory");
            }
            free(reread);
        }
        if (shows_output(res, verbose) && put_yaml_block(out, "output", res->output) != 0)
            return lab_errorf(err, "cannot write the tap report: out of memory");
        fputs("  ...\n", out);
    }
    fprintf(out, "# Score: %d/%d\n", r->score, r->max_score);
    return 0;
}

/* ---- junit, through libxml2 ------------------------------------------------------------ */

/* Each returns < 0 on failure, as xmlTextWriter's calls do. */
static int xml_attr(xmlTextWriterPtr w, const char *name, const char *value)
{
    char *c = clean_text(value ? value : "", CLEAN_CONTROLS);
    int rc = c ? xmlTextWriterWriteAttribute(w, BAD_CAST name, BAD_CAST c) : -1;
    free(c);
    return rc;
}

static int xml_attr_int(xmlTextWriterPtr w, const char *name, long value)
{
    return xmlTextWriterWriteFormatAttribute(w, BAD_CAST name, "%ld", value);
}

/* Seconds with three decimals and a '.', whatever the locale. */
static int xml_attr_seconds(xmlTextWriterPtr w, const char *name, double seconds)
{
    long ms = isfinite(seconds) && seconds > 0 ? lround(seconds * 1000) : 0;
    return xmlTextWriterWriteFormatAttribute(w, BAD_CAST name, "%ld.%03ld", ms / 1000, ms % 1000);
}

static int xml_text(xmlTextWriterPtr w, const char *text)
{
    char *c = clean_text(text, CLEAN_CONTROLS);
    int rc = c ? xmlTextWriterWriteString(w, BAD_CAST c) : -1;
    free(c);
    return rc;
}

static int xml_element(xmlTextWriterPtr w, const char *name, const char *text)
{
    char *c = clean_text(text, CLEAN_CONTROLS);
    int rc = c ? xmlTextWriterWriteElement(w, BAD_CAST name, BAD_CAST c) : -1;
    free(c);
    return rc;
}

static int xml_property(xmlTextWriterPtr w, const char *name, const char *value)
{
    if (xmlTextWriterStartElement(w, BAD_CAST "property") < 0 || xml_attr(w, "name", name) < 0 ||
        xml_attr(w, "value", value) < 0)
        return -1;
    return xmlTextWriterEndElement(w);
}

/* The first line of a message, at most 200 bytes, cut on a character
 * boundary: the summary a CI page shows. Cleaned; NULL when out of memory. */
static char *first_line(const char *message)
{
    char *c = clean_text(message, CLEAN_CONTROLS);
    size_t n;
    if (!c)
        return NULL;
    n = strcspn(c, "\n");
    if (n > 200) {
        n = 200;
        while (n > 0 && ((unsigned char) c[n] & 0xC0) == 0x80)
            n--;
    }
    c[n] = '\0';
    return c;
}

/*
 * A test that did not pass is a <failure> when a check failed and an <error>
 * when it crashed or never ran. NOT RUN is an error, not <skipped/>: a
 * submission that did not build earns nothing, and a CI page that shows
 * skipped tests as yellow, or not at all, would hide that. <skipped/> is
 * only for SKIP: a GPU test on a machine without one.
 */
static int xml_testcase(xmlTextWriterPtr w, const gr_report *r, const gr_result *res, int verbose)
{
    const char *tag = res->status == GR_FAIL      ? "failure"
                      : res->status == GR_SKIPPED ? "skipped"
                                                  : "error";
    const char *type = res->status == GR_FAIL      ? "FAIL"
                       : res->status == GR_ERROR   ? "ERROR"
                       : res->status == GR_SKIPPED ? "SKIPPED"
                                                   : "NOT_RUN";
    char *summary = NULL, *reread = NULL;
    strbuf body = {0};
    char *text;
    int rc = -1;

    if (xmlTextWriterStartElement(w, BAD_CAST "testcase") < 0 ||
        xml_attr(w, "classname", r->lab->name) < 0 || xml_attr(w, "name", res->test->name) < 0 ||
        xml_attr_seconds(w, "time", res->seconds) < 0)
        return -1;
    if (res->status != GR_PASS) {
        if ((summary = first_line(message_of(r, res))) == NULL ||
            (shows_reread(res) && (reread = reread_of(r, res)) == NULL))
            goto done;
        sb_add(&body, "%s", message_of(r, res));
        if (body.len > 0 && body.s[body.len - 1] != '\n')
            sb_add(&body, "\n");
        if (reread)
            sb_add(&body, "re-read: %s\n", reread);
        if ((text = sb_take(&body)) == NULL)
            goto done;
        if (xmlTextWriterStartElement(w, BAD_CAST tag) < 0 || xml_attr(w, "message", summary) < 0 ||
            xml_attr(w, "type", type) < 0 || xml_text(w, text) < 0 ||
            xmlTextWriterEndElement(w) < 0) {
            free(text);
            goto done;
        }
        free(text);
        if (shows_output(res, verbose) && xml_element(w, "system-out", res->output) < 0)
            goto done;
    }
    rc = xmlTextWriterEndElement(w);
done:
    free(summary);
    free(reread);
    return rc;
}

static int junit_body(xmlTextWriterPtr w, const gr_report *r, int verbose)
{
    int failures = gr_count_status(r, GR_FAIL);
    int errors = gr_count_status(r, GR_ERROR) + gr_count_status(r, GR_NOT_RUN);
    char number[32];

    if (xmlTextWriterStartDocument(w, NULL, "UTF-8", NULL) < 0)
        return -1;
    for (int level = 0; level < 2; level++) {
        if (xmlTextWriterStartElement(w, BAD_CAST(level == 0 ? "testsuites" : "testsuite")) < 0 ||
            xml_attr(w, "name", r->lab->name) < 0 || xml_attr_int(w, "tests", r->nresults) < 0 ||
            xml_attr_int(w, "failures", failures) < 0 || xml_attr_int(w, "errors", errors) < 0 ||
            (level == 1 && xml_attr_int(w, "skipped", gr_count_status(r, GR_SKIPPED)) < 0) ||
            xml_attr_seconds(w, "time", r->seconds) < 0)
            return -1;
    }
    if (xmlTextWriterStartElement(w, BAD_CAST "properties") < 0)
        return -1;
    snprintf(number, sizeof number, "%d", r->score);
    if (xml_property(w, "score", number) < 0)
        return -1;
    snprintf(number, sizeof number, "%d", r->max_score);
    if (xml_property(w, "max_score", number) < 0 ||
        xml_property(w, "build_ok", r->build_ok ? "true" : "false") < 0 ||
        (r->source && xml_property(w, "source", r->source) < 0) ||
        xmlTextWriterEndElement(w) < 0)
        return -1;
    for (int i = 0; i < r->nresults; i++)
        if (xml_testcase(w, r, &r->results[i], verbose) < 0)
            return -1;
    if (shows_build_log(r, verbose) && xml_element(w, "system-err", r->build_log) < 0)
        return -1;
    return xmlTextWriterEndDocument(w); /* closes testsuite and testsuites */
}

static int write_junit(FILE *out, const gr_report *r, int verbose, lab_error *err)
{
    xmlBufferPtr buf = xmlBufferCreate();
    xmlTextWriterPtr w = buf ? xmlNewTextWriterMemory(buf, 0) : NULL;
    int rc = w ? 0 : -1;

    if (w) {
        if (xmlTextWriterSetIndent(w, 1) < 0 ||
            xmlTextWriterSetIndentString(w, BAD_CAST "  ") < 0 || junit_body(w, r, verbose) < 0)
            rc = -1;
        xmlFreeTextWriter(w); /* flushes into buf */
    }
    if (rc == 0)
        fwrite(xmlBufferContent(buf), 1, (size_t) xmlBufferLength(buf), out);
    if (buf)
        xmlBufferFree(buf);
    if (rc != 0)
        return lab_errorf(err, "cannot write the junit report: libxml2 failed (out of memory?)");
    return 0;
}

/* ---- the entry point ------------------------------------------------------------------ */

/* A report the writers can trust: -1 with err set when it is not one. */
static int check_report(const gr_report *r, lab_error *err)
{
    if (!r || !r->lab || !r->lab->name)
        return lab_errorf(err, "cannot write a report: %s is NULL",
                          !r ? "the report" : !r->lab ? "its lab" : "its lab's name");
    if (r->nresults < 0 || (r->nresults > 0 && !r->results))
        return lab_errorf(err, "cannot write the report for %s: %d results%s", r->lab->name,
                          r->nresults, r->results ? "" : " and results is NULL");
    for (int i = 0; i < r->nresults; i++) {
        const gr_result *res = &r->results[i];
        if (!res->test || !res->test->name)
            return lab_errorf(err, "cannot write the report for %s: result %d has no test",
                              r->lab->name, i);
        if ((unsigned) res->status > GR_SKIPPED)
            return lab_errorf(err, "cannot write the report for %s: %s has unknown status %d",
                              r->lab->name, res->test->name, (int) res->status);
    }
    return 0;
}

int gr_write_report(FILE *out, const gr_report *r, gr_format format, int verbose,
                    lab_error *err)
{
    const char *name;
    int rc;

    if (!out)
        return lab_errorf(err, "cannot write a report: the stream is NULL");
    if ((unsigned) format >= (unsigned) GRADER_COUNT(format_names))
        return lab_errorf(err, "cannot write a report: unknown format %d", (int) format);
    if (check_report(r, err) != 0)
        return -1;
    name = format_names[format];

    errno = 0;
    switch (format) {
    case GR_FORMAT_TEXT: rc = write_text(out, r, verbose, err); break;
    case GR_FORMAT_JSON: rc = write_json(out, r, verbose, err); break;
    case GR_FORMAT_GRADESCOPE: rc = write_gradescope(out, r, verbose, err); break;
    case GR_FORMAT_TAP: rc = write_tap(out, r, verbose, err); break;
    case GR_FORMAT_JUNIT: rc = write_junit(out, r, verbose, err); break;
    case GR_FORMAT_AUTOLAB: rc = write_autolab(out, r, verbose, err); break;
    default: rc = lab_errorf(err, "cannot write a report: unknown format %d", (int) format);
    }
    if (rc != 0)
        return -1;
    /* Output is buffered: a full disk shows here, if not before. */
    if (fflush(out) != 0 || ferror(out))
        return lab_errorf(err, "cannot write the %s report: %s", name,
                          strerror(errno ? errno : EIO));
    return 0;
}
