/*
 * test_report.c - tests of the grading report writer (grading/report.c).
 *
 * Each test builds a gr_report in memory (all passing; a mix of a pass, a
 * failure, a crash and a hostile message; a build that failed), writes it
 * with open_memstream and reads it back: JSON with jansson, XML with
 * libxml2's parser, TAP and the scorecard line by line. The hostile message
 * carries quotes, <&>, tabs, control characters, CRLF and invalid UTF-8, and
 * every format must come out valid all the same. And the two helpers for
 * what is not a report: a CSV cell (formulas neutralised) and a terminal
 * line (no control character).
 *
 * Not for: what the grader decides (statuses, scores); the reports here are
 * made up.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

#include "report.h"

#define FFFD "\xef\xbf\xbd" /* U+FFFD, the replacement character, in UTF-8 */

/* ---- a made-up lab and its reports --------------------------------------------- */

static const grader_test tests[] = {
    {"decode_e4m3", 10, "Decode every E4M3 code", "§2.1 Decoding", 5, 0, NULL},
    {"encode_rne", 15, "Round to nearest, ties to even", "§3.2 Rounding", 7.5, 0, NULL},
    {"saturate", 20, "Saturate out-of-range values", "§3.3 Saturation", 6, 0, NULL},
    {"scale_amax", 5, "Per-tensor scale from amax", "§4 Scaling", 9, 0, NULL},
};
static const char *const hidden_tests[] = {"encode_rne", "scale_amax", 0};
static const grader_lab lab = {.name = "lab0", .title = "FP8 number formats", .mem_limit_mib = 512,
                               .tests = tests, .ntests = 4, .hidden = hidden_tests};

/* Everything a message can throw at a format: quotes, markup, tabs, C0 and
 * C1 controls, DEL, CRLF, a lone CR, a line that would end TAP's YAML block,
 * an XML CDATA end, and invalid UTF-8 (a stray continuation byte, 0xFF, a
 * truncated sequence, an overlong '/', a UTF-8-encoded surrogate). */
static const char hostile[] =
    "gave 0x7f, should be 0x7e: \"quoted\" 'single' <tag attr=\"x\"> & &amp; ]]>\n"
    "\ttab-indented line\x01\x1b[31mred\x1b[0m\x7f\xc2\x85nel\r\n"
    "  ...\n"
    "---\n"
    "# not a comment\rlone CR\n"
    "bad: \x80 \xff \xe2\x82 \xc0\xaf \xed\xa0\x80 end \xe2\x82\xac ok";

static gr_result results_mixed[4];
static gr_report report_mixed;
static gr_result results_pass[4];
static gr_report report_pass;
static gr_result results_nobuild[4];
static gr_report report_nobuild;

static void make_reports(void)
{
    for (int i = 0; i < 4; i++) {
        results_pass[i] = (gr_result){&tests[i], GR_PASS, tests[i].points, NULL, NULL, 0.5};
        results_nobuild[i] = (gr_result){&tests[i], GR_NOT_RUN, 0,
                                         "not run: the submission did not compile", NULL, 0};
    }
    report_pass = (gr_report){&lab, "submissions/alice", 1, NULL, results_pass, 4, 50, 50, 1.25, 0, NULL, NULL, NULL, NULL, 0, NULL, 0, 0, 0, 0, 0};

    results_mixed[0] = (gr_result){&tests[0], GR_PASS, 10, NULL, "printed while passing\n", 1.5};
    results_mixed[1] = (gr_result){&tests[1], GR_FAIL, 0,
                                   "encode(E4M3, 8.5625f): gave 0x51, should be 0x50\n"
                                   "  8.5625 is nearer to 8.0",
                                   "debug: x = 8.5625\n", 0.25};
    results_mixed[2] = (gr_result){&tests[2], GR_FAIL, 0, (char *) hostile, (char *) hostile, 2};
    results_mixed[3] = (gr_result){&tests[3], GR_ERROR, 0, "crashed: SIGSEGV", NULL, 30};
    report_mixed = (gr_report){&lab, "sub\x01mission\xff", 1, "lab0.c:3: warning: unused x\n",
                               results_mixed, 4, 10, 50, 0.5, 0, NULL, NULL, NULL, NULL, 0, NULL, 0, 0, 0, 0, 0};

    report_nobuild = (gr_report){&lab, "submissions/bob", 0,
                                 "lab0.c:12:5: error: expected ';' before '}' token\n"
                                 "   12 |     return x\n"
                                 "      |             ^\n"
                                 "bad byte \xfe <&> \x02\n",
                                 results_nobuild, 4, 0, 50, 0.25, 0, NULL, NULL, NULL, NULL, 0, NULL, 0, 0, 0, 0, 0};
}

/* ---- writing and reading back ---------------------------------------------------- */

/* The report as the format writes it, malloc'd and NUL-terminated. */
static char *render(const gr_report *r, gr_format format, int verbose)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    lab_error err = {{0}};
    ck_assert_ptr_nonnull(f);
    ck_assert_msg(gr_write_report(f, r, format, verbose, &err) == 0, "write failed: %s", err.msg);
    ck_assert_int_eq(fclose(f), 0);
    ck_assert_uint_eq(strlen(buf), len); /* no NUL written */
    return buf;
}

/* Whether s is valid UTF-8, as jansson judges it (it refuses overlong forms,
 * surrogates and everything past U+10FFFF). */
static int valid_utf8(const char *s)
{
    json_t *j = json_string(s);
    json_decref(j);
    return j != NULL;
}

/* The lines of s, split in place (s is modified); their count in *n. */
static char **split_lines(char *s, int *n)
{
    char **lines = NULL;
    int count = 0;
    for (char *p = s; *p;) {
        char *nl = strchr(p, '\n');
        lines = realloc(lines, (size_t) (count + 1) * sizeof *lines);
        ck_assert_ptr_nonnull(lines);
        lines[count++] = p;
        if (!nl)
            break;
        *nl = '\0';
        p = nl + 1;
    }
    *n = count;
    return lines;
}

static int has_line(char **lines, int n, const char *want)
{
    for (int i = 0; i < n; i++)
        if (strcmp(lines[i], want) == 0)
            return 1;
    return 0;
}

/* No control characters but newline and tab, no DEL, no C1 controls. */
static void assert_printable(const char *s)
{
    for (const unsigned char *p = (const unsigned char *) s; *p; p++) {
        ck_assert_msg(*p >= 0x20 || *p == '\n' || *p == '\t', "control byte 0x%02x at %ld", *p,
                      (long) (p - (const unsigned char *) s));
        ck_assert_msg(*p != 0x7f, "DEL at %ld", (long) (p - (const unsigned char *) s));
        ck_assert_msg(!(p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f), "C1 control at %ld",
                      (long) (p - (const unsigned char *) s));
    }
}

/* The JSON object's keys are exactly these. */
static void assert_keys(json_t *obj, const char *const *keys, int n)
{
    const char *key;
    json_t *value;
    ck_assert_msg(json_is_object(obj), "not an object");
    json_object_foreach(obj, key, value) {
        int known = 0;
        (void) value;
        for (int i = 0; i < n; i++)
            known |= strcmp(key, keys[i]) == 0;
        ck_assert_msg(known, "unexpected key \"%s\"", key);
    }
    for (int i = 0; i < n; i++)
        ck_assert_msg(json_object_get(obj, keys[i]) != NULL, "missing key \"%s\"", keys[i]);
    ck_assert_int_eq((int) json_object_size(obj), n);
}

static json_t *parse_json(const char *text)
{
    json_error_t jerr;
    json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
    ck_assert_msg(root != NULL, "invalid JSON, line %d: %s\n%s", jerr.line, jerr.text, text);
    return root;
}

static const char *jget_str(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    ck_assert_msg(json_is_string(v), "\"%s\" is not a string", key);
    return json_string_value(v);
}

static long long jget_int(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    ck_assert_msg(json_is_integer(v), "\"%s\" is not an integer", key);
    return json_integer_value(v);
}

/* ---- names -------------------------------------------------------------------------- */

/* A failed test whose rubric entry builds on another failed test names it
 * and its section first; one whose dependency passed, or one that passed,
 * is left alone. */
START_TEST(test_builds_on)
{
    static const grader_test dep_tests[] = {
        {"cast_counts", 6, "counts", "§4 The scaled cast", 5, 0, NULL},
        {"amax", 4, "amax", "§3 amax", 5, 0, NULL},
        {"delayed_cast", 6, "delayed", "§5 Delayed", 5, 0, "amax cast_counts"},
        {"stream", 5, "stream", "§5 Delayed", 5, 0, "amax"},
        {"update", 5, "update", "§6 Scale", 5, 0, "cast_counts"},
    };
    static const grader_lab dep_lab = {.name = "lab1", .title = "t", .tests = dep_tests,
                                       .ntests = 5};
    gr_result res[5] = {
        {&dep_tests[0], GR_FAIL, 0, strdup("counted 3 saturated, should be 4"), NULL, 0},
        {&dep_tests[1], GR_PASS, 4, NULL, NULL, 0},
        {&dep_tests[2], GR_FAIL, 0, strdup("byte 7: gave 0x01"), NULL, 0},
        {&dep_tests[3], GR_FAIL, 0, strdup("step 2: gave 1.5"), NULL, 0},
        {&dep_tests[4], GR_PASS, 5, NULL, NULL, 0},
    };
    gr_report r = {&dep_lab, NULL, 1, NULL, res, 5, 9, 26, 0, 0, NULL, NULL, NULL, NULL, 0, NULL, 0, 0, 0, 0, 0};

    ck_assert_int_eq(gr_note_builds_on(&r), 0);
    ck_assert_str_eq(res[0].message, "counted 3 saturated, should be 4");
    ck_assert_str_eq(res[2].message,
                     "It builds on cast_counts (labs/lab1/README.md §4 The scaled cast), which "
                     "fails too: fix that first.\nbyte 7: gave 0x01");
    ck_assert_str_eq(res[3].message, "step 2: gave 1.5"); /* amax passed */
    ck_assert_ptr_null(res[4].message);
    for (int i = 0; i < 5; i++)
        free(res[i].message);
}
END_TEST

START_TEST(test_format_names)
{
    ck_assert_int_eq(gr_format_from_name("text"), GR_FORMAT_TEXT);
    ck_assert_int_eq(gr_format_from_name("json"), GR_FORMAT_JSON);
    ck_assert_int_eq(gr_format_from_name("gradescope"), GR_FORMAT_GRADESCOPE);
    ck_assert_int_eq(gr_format_from_name("tap"), GR_FORMAT_TAP);
    ck_assert_int_eq(gr_format_from_name("junit"), GR_FORMAT_JUNIT);
    ck_assert_int_eq(gr_format_from_name("autolab"), GR_FORMAT_AUTOLAB);
    ck_assert_int_eq(gr_format_from_name("JSON"), -1);
    ck_assert_int_eq(gr_format_from_name("xml"), -1);
    ck_assert_int_eq(gr_format_from_name(""), -1);
    ck_assert_int_eq(gr_format_from_name(NULL), -1);
    ck_assert_str_eq(gr_status_name(GR_PASS), "PASS");
    ck_assert_str_eq(gr_status_name(GR_FAIL), "FAIL");
    ck_assert_str_eq(gr_status_name(GR_ERROR), "ERROR");
    ck_assert_str_eq(gr_status_name(GR_NOT_RUN), "NOT RUN");
}
END_TEST

/* ---- text --------------------------------------------------------------------------- */

START_TEST(test_text_all_pass)
{
    char *out = render(&report_pass, GR_FORMAT_TEXT, 0);
    int n;
    char **lines = split_lines(out, &n);

    /* header, blank, 4 results, blank, score: nothing else when all pass */
    ck_assert_int_eq(n, 8);
    ck_assert_str_eq(lines[0], "lab0: FP8 number formats  (graded: submissions/alice)");
    ck_assert_str_eq(lines[1], "");
    ck_assert_str_eq(lines[2], "PASS  decode_e4m3  10/10  Decode every E4M3 code");
    ck_assert_str_eq(lines[3], "PASS  encode_rne   15/15  Round to nearest, ties to even");
    ck_assert_str_eq(lines[4], "PASS  saturate     20/20  Saturate out-of-range values");
    ck_assert_str_eq(lines[5], "PASS  scale_amax     5/5  Per-tensor scale from amax");
    ck_assert_str_eq(lines[6], "");
    ck_assert_str_eq(lines[7], "Score: 50/50  (1.2 s)");
    free(lines);
    free(out);
}
END_TEST

START_TEST(test_text_failures)
{
    char *out = render(&report_mixed, GR_FORMAT_TEXT, 0);
    int n;
    char **lines;

    ck_assert(valid_utf8(out));
    assert_printable(out);
    ck_assert_ptr_null(strstr(out, "output:"));            /* not verbose */
    ck_assert_ptr_null(strstr(out, "printed while passing"));
    ck_assert_ptr_null(strstr(out, "warning: unused x"));  /* built: log only when verbose */
    lines = split_lines(out, &n);
    ck_assert_str_eq(lines[0], "lab0: FP8 number formats  (graded: sub" FFFD "mission" FFFD ")");
    ck_assert(has_line(lines, n, "PASS   decode_e4m3  10/10  Decode every E4M3 code"));
    ck_assert(has_line(lines, n, "FAIL   encode_rne    0/15  Round to nearest, ties to even"));
    ck_assert(has_line(lines, n, "      encode(E4M3, 8.5625f): gave 0x51, should be 0x50"));
    ck_assert(has_line(lines, n, "        8.5625 is nearer to 8.0"));
    ck_assert(has_line(lines, n, "      re-read: labs/lab0/README.md §3.2 Rounding"));
    ck_assert(has_line(lines, n, "ERROR  scale_amax     0/5  Per-tensor scale from amax"));
    ck_assert(has_line(lines, n, "      crashed: SIGSEGV"));
    ck_assert(has_line(lines, n, "      re-read: labs/lab0/README.md §4 Scaling"));
    /* the hostile message: every line indented, CR and CRLF made newlines,
     * controls and bad bytes made U+FFFD */
    ck_assert(has_line(lines, n, "      \ttab-indented line" FFFD FFFD "[31mred"
                                 FFFD "[0m" FFFD FFFD "nel"));
    ck_assert(has_line(lines, n, "        ..."));
    ck_assert(has_line(lines, n, "      # not a comment"));
    ck_assert(has_line(lines, n, "      lone CR"));
    ck_assert(has_line(lines, n, "      bad: " FFFD " " FFFD " " FFFD " " FFFD
                                 FFFD " " FFFD FFFD FFFD " end \xe2\x82\xac ok"));
    ck_assert_str_eq(lines[n - 2], "");
    ck_assert_str_eq(lines[n - 1], "Score: 10/50  (0.5 s)");
    free(lines);
    free(out);
}
END_TEST

START_TEST(test_text_verbose)
{
    char *out = render(&report_mixed, GR_FORMAT_TEXT, 1);
    int n;
    char **lines;

    ck_assert(valid_utf8(out));
    assert_printable(out);
    ck_assert_ptr_null(strstr(out, "printed while passing")); /* a pass's output stays out */
    lines = split_lines(out, &n);
    ck_assert(has_line(lines, n, "The build printed warnings:"));
    ck_assert(has_line(lines, n, "      lab0.c:3: warning: unused x"));
    ck_assert(has_line(lines, n, "      output:"));
    ck_assert(has_line(lines, n, "        debug: x = 8.5625"));
    free(lines);
    free(out);
}
END_TEST

START_TEST(test_text_build_failed)
{
    char *out = render(&report_nobuild, GR_FORMAT_TEXT, 0);
    int n, not_run = 0;
    char **lines;

    ck_assert(valid_utf8(out));
    assert_printable(out);
    lines = split_lines(out, &n);
    ck_assert_str_eq(lines[0], "lab0: FP8 number formats  (graded: submissions/bob)");
    ck_assert(has_line(lines, n, "The submission did not build. The build log says:"));
    ck_assert(has_line(lines, n, "      lab0.c:12:5: error: expected ';' before '}' token"));
    ck_assert(has_line(lines, n, "         12 |     return x"));
    ck_assert(has_line(lines, n, "      bad byte " FFFD " <&> " FFFD));
    for (int i = 0; i < n; i++)
        not_run += strncmp(lines[i], "NOT RUN  ", 9) == 0;
    ck_assert_int_eq(not_run, 4);
    ck_assert(has_line(lines, n, "NOT RUN  saturate     0/20  Saturate out-of-range values"));
    /* the failed build is said once, not under every test */
    ck_assert_ptr_null(strstr(out, "not run:"));
    ck_assert_ptr_null(strstr(out, "re-read:"));
    /* header, blank, "did not compile", 4 log lines, blank, 4 tests, blank, score */
    ck_assert_int_eq(n, 14);
    ck_assert_str_eq(lines[n - 1], "Score: 0/50  (0.2 s)");
    free(lines);
    free(out);
}
END_TEST

/* A build that failed with no log, messages left NULL, a title and a
 * section left NULL and no clock: the scorecard still says what happened. */
START_TEST(test_text_missing_pieces)
{
    static const grader_test bare[] = {{"bare", 3, NULL, NULL, 1, 0, NULL}, {"crash", 2, NULL, NULL, 1, 0, NULL}};
    gr_result res[2] = {{&bare[0], GR_NOT_RUN, 0, NULL, NULL, 0}, {&bare[1], GR_ERROR, 0, NULL, NULL, 0}};
    gr_report r = {&lab, NULL, 0, NULL, res, 1, 0, 3, -1, 0, NULL, NULL, NULL, NULL, 0, NULL, 0, 0, 0, 0, 0};
    char *out = render(&r, GR_FORMAT_TEXT, 1);
    int n;
    char **lines = split_lines(out, &n);

    ck_assert_str_eq(lines[0], "lab0: FP8 number formats");
    ck_assert(has_line(lines, n,
                       "The submission did not build (no build output was kept)."));
    ck_assert(has_line(lines, n, "NOT RUN  bare  0/3"));
    ck_assert_ptr_null(strstr(out, "re-read"));
    ck_assert_str_eq(lines[n - 1], "Score: 0/3");
    free(lines);
    free(out);

    /* it built, then the runner died: a test not run says why, but has no
     * section to re-read; a crash with no message gets a stand-in */
    r.build_ok = 1;
    r.nresults = 2;
    out = render(&r, GR_FORMAT_TEXT, 0);
    lines = split_lines(out, &n);
    ck_assert(has_line(lines, n, "NOT RUN  bare   0/3"));
    ck_assert(has_line(lines, n, "      not run"));
    ck_assert(has_line(lines, n, "ERROR    crash  0/2"));
    ck_assert(has_line(lines, n, "      did not finish (the test recorded no message)"));
    ck_assert(has_line(lines, n, "      re-read: labs/lab0/README.md"));
    ck_assert_int_eq(n, 9);
    free(lines);
    free(out);
}
END_TEST

/* ---- json --------------------------------------------------------------------------- */

static const char *const json_keys[] = {"lab", "title", "source", "build_ok", "build_log",
                                        "score", "max_score", "seconds", "hidden_inputs",
                                        "tests"};
static const char *const json_test_keys[] = {"name", "title", "section", "status", "points",
                                             "max_points", "seconds", "timeout_s",
                                             "hidden_inputs", "message", "output"};

START_TEST(test_json_mixed)
{
    static const char *const statuses[] = {"pass", "fail", "fail", "error"};
    char *out = render(&report_mixed, GR_FORMAT_JSON, 0);
    json_t *root = parse_json(out), *arr;

    assert_keys(root, json_keys, 10);
    ck_assert_str_eq(jget_str(root, "lab"), "lab0");
    ck_assert_str_eq(jget_str(root, "title"), "FP8 number formats");
    ck_assert_str_eq(jget_str(root, "source"), "sub\x01mission" FFFD);
    ck_assert(json_is_true(json_object_get(root, "build_ok")));
    ck_assert_str_eq(jget_str(root, "build_log"), "lab0.c:3: warning: unused x\n");
    ck_assert_int_eq(jget_int(root, "score"), 10);
    ck_assert_int_eq(jget_int(root, "max_score"), 50);
    ck_assert_double_eq_tol(json_number_value(json_object_get(root, "seconds")), 0.5, 1e-9);
    arr = json_object_get(root, "tests");
    ck_assert(json_is_array(arr));
    ck_assert_int_eq((int) json_array_size(arr), 4);
    for (int i = 0; i < 4; i++) {
        json_t *t = json_array_get(arr, (size_t) i);
        assert_keys(t, json_test_keys, 11);
        ck_assert_str_eq(jget_str(t, "name"), tests[i].name);
        ck_assert_str_eq(jget_str(t, "title"), tests[i].title);
        ck_assert_str_eq(jget_str(t, "section"), tests[i].section);
        ck_assert_str_eq(jget_str(t, "status"), statuses[i]);
        ck_assert_int_eq(jget_int(t, "points"), results_mixed[i].points);
        ck_assert_int_eq(jget_int(t, "max_points"), tests[i].points);
        ck_assert_double_eq_tol(json_number_value(json_object_get(t, "seconds")),
                                results_mixed[i].seconds, 1e-9);
        ck_assert_double_eq_tol(json_number_value(json_object_get(t, "timeout_s")),
                                tests[i].timeout_s, 1e-9);
        ck_assert(json_is_null(json_object_get(t, "output"))); /* not verbose */
        ck_assert(i == 0 ? json_is_null(json_object_get(t, "message"))
                         : json_is_string(json_object_get(t, "message")));
    }
    /* JSON carries control characters (escaped); only bad bytes are replaced */
    {
        const char *m = jget_str(json_array_get(arr, 2), "message");
        ck_assert_ptr_nonnull(strstr(m, "\"quoted\" 'single' <tag attr=\"x\"> & &amp; ]]>\n\t"));
        ck_assert_ptr_nonnull(strstr(m, "line\x01\x1b[31mred"));
        ck_assert_ptr_nonnull(strstr(m, "nel\r\n"));
        ck_assert_ptr_nonnull(strstr(m, "bad: " FFFD " " FFFD " " FFFD " "));
        ck_assert_ptr_nonnull(strstr(m, " end \xe2\x82\xac ok"));
        ck_assert_ptr_null(strstr(m, "\xff"));
    }
    json_decref(root);
    free(out);
}
END_TEST

START_TEST(test_json_verbose_and_build_failed)
{
    char *out = render(&report_mixed, GR_FORMAT_JSON, 1);
    json_t *root = parse_json(out), *arr = json_object_get(root, "tests");

    ck_assert(json_is_null(json_object_get(json_array_get(arr, 0), "output"))); /* a pass */
    ck_assert_str_eq(jget_str(json_array_get(arr, 1), "output"), "debug: x = 8.5625\n");
    ck_assert(json_is_string(json_object_get(json_array_get(arr, 2), "output")));
    ck_assert(json_is_null(json_object_get(json_array_get(arr, 3), "output"))); /* none kept */
    json_decref(root);
    free(out);

    out = render(&report_nobuild, GR_FORMAT_JSON, 0);
    root = parse_json(out);
    assert_keys(root, json_keys, 10);
    ck_assert(json_is_false(json_object_get(root, "build_ok")));
    ck_assert_ptr_nonnull(strstr(jget_str(root, "build_log"), "expected ';' before '}'"));
    ck_assert_int_eq(jget_int(root, "score"), 0);
    arr = json_object_get(root, "tests");
    ck_assert_int_eq((int) json_array_size(arr), 4);
    for (int i = 0; i < 4; i++)
        ck_assert_str_eq(jget_str(json_array_get(arr, (size_t) i), "status"), "not_run");
    json_decref(root);
    free(out);

    out = render(&report_pass, GR_FORMAT_JSON, 1);
    root = parse_json(out);
    ck_assert(json_is_null(json_object_get(root, "build_log")));
    json_decref(root);
    free(out);
}
END_TEST

/* ---- gradescope ----------------------------------------------------------------------- */

static const char *const gs_keys[] = {"score", "max_score", "execution_time", "output",
                                      "output_format", "visibility", "tests"};
static const char *const gs_test_keys[] = {"name", "score", "max_score", "status", "output",
                                           "output_format", "visibility"};

START_TEST(test_gradescope_mixed)
{
    static const char *const names[] = {
        "decode_e4m3: Decode every E4M3 code", "encode_rne: Round to nearest, ties to even",
        "saturate: Saturate out-of-range values", "scale_amax: Per-tensor scale from amax"};
    static const char *const statuses[] = {"passed", "failed", "failed", "failed"};
    char *out = render(&report_mixed, GR_FORMAT_GRADESCOPE, 0);
    json_t *root = parse_json(out), *arr;
    long long sum = 0;

    assert_keys(root, gs_keys, 7);
    ck_assert_int_eq(jget_int(root, "score"), 10);
    ck_assert_int_eq(jget_int(root, "max_score"), 50);
    ck_assert_int_eq(jget_int(root, "execution_time"), 1); /* 0.5 s, rounded */
    ck_assert_str_eq(jget_str(root, "visibility"), "visible");
    ck_assert_str_eq(jget_str(root, "output_format"), "text");
    ck_assert_str_eq(jget_str(root, "output"),
                     "lab0 (FP8 number formats): 10/50 points; 1 of 4 tests passed.");
    arr = json_object_get(root, "tests");
    ck_assert_int_eq((int) json_array_size(arr), 4);
    for (int i = 0; i < 4; i++) {
        json_t *t = json_array_get(arr, (size_t) i);
        assert_keys(t, gs_test_keys, 7);
        ck_assert_str_eq(jget_str(t, "name"), names[i]);
        ck_assert_int_eq(jget_int(t, "score"), results_mixed[i].points);
        ck_assert_int_eq(jget_int(t, "max_score"), tests[i].points);
        ck_assert_str_eq(jget_str(t, "status"), statuses[i]);
        ck_assert_str_eq(jget_str(t, "visibility"), "visible");
        sum += jget_int(t, "score");
    }
    ck_assert_int_eq(sum, jget_int(root, "score"));
    ck_assert_str_eq(jget_str(json_array_get(arr, 0), "output"), "");
    ck_assert_str_eq(jget_str(json_array_get(arr, 1), "output"),
                     "encode(E4M3, 8.5625f): gave 0x51, should be 0x50\n"
                     "  8.5625 is nearer to 8.0\n\nre-read: labs/lab0/README.md §3.2 Rounding\n");
    ck_assert_str_eq(jget_str(json_array_get(arr, 3), "output"),
                     "crashed: SIGSEGV\n\nre-read: labs/lab0/README.md §4 Scaling\n");
    ck_assert_ptr_nonnull(strstr(jget_str(json_array_get(arr, 2), "output"), "<tag attr=\"x\">"));
    for (int i = 0; i < 4; i++) {
        assert_printable(jget_str(json_array_get(arr, (size_t) i), "output"));
        assert_printable(jget_str(json_array_get(arr, (size_t) i), "name"));
    }
    json_decref(root);
    free(out);
}
END_TEST

START_TEST(test_gradescope_build_failed)
{
    char *out = render(&report_nobuild, GR_FORMAT_GRADESCOPE, 0);
    json_t *root = parse_json(out), *arr;
    const char *summary;

    assert_keys(root, gs_keys, 7);
    summary = jget_str(root, "output");
    ck_assert_ptr_nonnull(strstr(summary, "0/50 points; 0 of 4 tests passed."));
    ck_assert_ptr_nonnull(strstr(summary, "did not build"));
    ck_assert_ptr_nonnull(strstr(summary, "lab0.c:12:5: error: expected ';' before '}' token\n"));
    /* shown to students: controls replaced too, unlike in the json format */
    ck_assert_ptr_nonnull(strstr(summary, "bad byte " FFFD " <&> " FFFD "\n"));
    arr = json_object_get(root, "tests");
    for (int i = 0; i < 4; i++) {
        json_t *t = json_array_get(arr, (size_t) i);
        ck_assert_str_eq(jget_str(t, "status"), "failed");
        ck_assert_int_eq(jget_int(t, "score"), 0);
        ck_assert_ptr_nonnull(strstr(jget_str(t, "output"), "did not compile"));
        ck_assert_ptr_null(strstr(jget_str(t, "output"), "re-read")); /* nothing to re-read */
    }
    json_decref(root);
    free(out);
}
END_TEST

/* ---- tap ------------------------------------------------------------------------------ */

/* Reads a TAP 14 stream the way a harness does and checks it against r:
 * version, plan, one test point per result in order, a YAML block after
 * each "not ok" and nowhere else, and the score comment at the end. */
static void check_tap(const gr_report *r, int verbose)
{
    char *out = render(r, GR_FORMAT_TAP, verbose);
    int n, points = 0, blocks = 0, plan = -1, not_passed = 0;
    char **lines;

    for (int i = 0; i < r->nresults; i++)
        not_passed += r->results[i].status != GR_PASS;

    ck_assert(valid_utf8(out));
    assert_printable(out);
    lines = split_lines(out, &n);
    ck_assert_str_eq(lines[0], "TAP version 14");
    ck_assert_int_eq(sscanf(lines[1], "1..%d", &plan), 1);
    ck_assert_int_eq(plan, r->nresults);
    for (int i = 2; i < n; i++) {
        int num = 0, ok, off = 0;
        char name[64];
        if (lines[i][0] == '#' || lines[i][0] == '\0')
            continue;
        ok = strncmp(lines[i], "ok ", 3) == 0;
        ck_assert_msg(ok || strncmp(lines[i], "not ok ", 7) == 0, "line %d: %s", i + 1, lines[i]);
        ck_assert_int_eq(sscanf(lines[i] + (ok ? 3 : 7), "%d - %63s%n", &num, name, &off), 2);
        ck_assert_int_eq(num, points + 1);
        ck_assert_str_eq(name, r->results[points].test->name);
        ck_assert_int_eq(ok, r->results[points].status == GR_PASS);
        {
            /* the points, then the run's time where it ran */
            char want[64];
            int n = snprintf(want, sizeof want, "  # %d/%d points", r->results[points].points,
                             r->results[points].test->points);
            if (r->results[points].seconds > 0)
                snprintf(want + n, sizeof want - (size_t)n, ", %.1f s",
                         r->results[points].seconds);
            ck_assert_str_eq(lines[i] + (ok ? 3 : 7) + off, want);
        }
        points++;
        if (!ok) {
            /* the block runs from "  ---" to the first "  ...", every line
             * inside indented at least two spaces */
            ck_assert_str_eq(lines[++i], "  ---");
            ck_assert_str_eq(lines[++i], "  message: |");
            while (++i < n && strcmp(lines[i], "  ...") != 0)
                ck_assert_msg(lines[i][0] == '\0' || strncmp(lines[i], "  ", 2) == 0,
                              "line %d escapes the YAML block: %s", i + 1, lines[i]);
            ck_assert_int_lt(i, n);
            blocks++;
        }
    }
    ck_assert_int_eq(points, plan);
    ck_assert_int_eq(blocks, not_passed);
    {
        char want[64];
        snprintf(want, sizeof want, "# Score: %d/%d", r->score, r->max_score);
        ck_assert_str_eq(lines[n - 1], want);
    }
    free(lines);
    free(out);
}

START_TEST(test_tap)
{
    check_tap(&report_pass, 0);
    check_tap(&report_mixed, 0);
    check_tap(&report_mixed, 1);
    check_tap(&report_nobuild, 0);
}
END_TEST

START_TEST(test_tap_details)
{
    char *out = render(&report_mixed, GR_FORMAT_TAP, 1);
    ck_assert_ptr_nonnull(strstr(out, "\nnot ok 2 - encode_rne  # 0/15 points, 0.2 s\n  ---\n"
                                      "  message: |\n"
                                      "    encode(E4M3, 8.5625f): gave 0x51, should be 0x50\n"
                                      "      8.5625 is nearer to 8.0\n"
                                      "  status: fail\n  points: 0\n  max_points: 15\n"
                                      "  re-read: \"labs/lab0/README.md §3.2 Rounding\"\n"
                                      "  output: |\n    debug: x = 8.5625\n  ...\n"));
    ck_assert_ptr_nonnull(strstr(out, "\n      ...\n")); /* the hostile "  ..." stays inside */
    ck_assert_ptr_nonnull(strstr(out, "\n  status: error\n"));
    free(out);

    out = render(&report_nobuild, GR_FORMAT_TAP, 0);
    ck_assert_ptr_nonnull(strstr(out, "\n# The submission did not build.\n"
                                      "# The compiler said:\n"
                                      "#   lab0.c:12:5: error: expected ';' before '}' token\n"));
    ck_assert_ptr_nonnull(strstr(out, "\n  status: not_run\n"));
    free(out);

    /* a first line that would set the block's indentation goes out quoted;
     * blank lines inside a block keep the indentation */
    {
        gr_result res[2] = {{&tests[0], GR_FAIL, 0, "  leading spaces\n\nafter a blank", NULL, 0},
                            {&tests[1], GR_FAIL, 0, "first\n\nthird\n", NULL, 0}};
        gr_report r = {&lab, NULL, 1, NULL, res, 2, 0, 25, 0, 0, NULL, NULL, NULL, NULL, 0, NULL, 0, 0, 0, 0, 0};
        out = render(&r, GR_FORMAT_TAP, 0);
        ck_assert_ptr_nonnull(
            strstr(out, "\n  ---\n  message: \"  leading spaces\\n\\nafter a blank\"\n"));
        ck_assert_ptr_nonnull(
            strstr(out, "\n  ---\n  message: |\n    first\n    \n    third\n  status: fail\n"));
        free(out);
    }
}
END_TEST

/* ---- junit ------------------------------------------------------------------------------ */

static int count_elements(xmlNodePtr node, const char *name)
{
    int n = 0;
    for (; node; node = node->next)
        if (node->type == XML_ELEMENT_NODE)
            n += (xmlStrcmp(node->name, BAD_CAST name) == 0) + count_elements(node->children, name);
    return n;
}

static xmlNodePtr first_element(xmlNodePtr node, const char *name)
{
    for (; node; node = node->next) {
        xmlNodePtr found;
        if (node->type != XML_ELEMENT_NODE)
            continue;
        if (xmlStrcmp(node->name, BAD_CAST name) == 0)
            return node;
        if ((found = first_element(node->children, name)) != NULL)
            return found;
    }
    return NULL;
}

static void assert_attr(xmlNodePtr node, const char *name, const char *want)
{
    xmlChar *v = xmlGetProp(node, BAD_CAST name);
    ck_assert_msg(v != NULL, "<%s> has no %s", (const char *) node->name, name);
    ck_assert_str_eq((const char *) v, want);
    xmlFree(v);
}

/* The document, parsed strictly: no recovery, errors are failures. */
static xmlDocPtr parse_xml(const char *text)
{
    xmlDocPtr doc = xmlReadMemory(text, (int) strlen(text), "report.xml", NULL,
                                  XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    ck_assert_msg(doc != NULL, "invalid XML:\n%s", text);
    return doc;
}

START_TEST(test_junit_mixed)
{
    char *out = render(&report_mixed, GR_FORMAT_JUNIT, 1);
    xmlDocPtr doc = parse_xml(out);
    xmlNodePtr root = xmlDocGetRootElement(doc), suite, tc, failure;
    xmlChar *text;

    ck_assert_str_eq((const char *) root->name, "testsuites");
    ck_assert_int_eq(count_elements(root, "testsuite"), 1);
    ck_assert_int_eq(count_elements(root, "testcase"), 4);
    ck_assert_int_eq(count_elements(root, "failure"), 2);
    ck_assert_int_eq(count_elements(root, "error"), 1);
    ck_assert_int_eq(count_elements(root, "skipped"), 0);
    ck_assert_int_eq(count_elements(root, "system-out"), 2); /* verbose: the two failures' */
    ck_assert_int_eq(count_elements(root, "system-err"), 1); /* verbose: the build warnings */
    suite = first_element(root, "testsuite");
    assert_attr(root, "tests", "4");
    assert_attr(suite, "name", "lab0");
    assert_attr(suite, "tests", "4");
    assert_attr(suite, "failures", "2");
    assert_attr(suite, "errors", "1");
    assert_attr(suite, "time", "0.500");
    {
        xmlNodePtr p = first_element(suite, "property");
        ck_assert_ptr_nonnull(p);
        assert_attr(p, "name", "score");
        assert_attr(p, "value", "10");
        p = p->next;
        while (p && p->type != XML_ELEMENT_NODE)
            p = p->next;
        assert_attr(p, "name", "max_score");
        assert_attr(p, "value", "50");
    }
    tc = first_element(suite, "testcase");
    assert_attr(tc, "classname", "lab0");
    assert_attr(tc, "name", "decode_e4m3");
    assert_attr(tc, "time", "1.500"); /* the test's own run */
    failure = first_element(root, "failure");
    assert_attr(failure, "type", "FAIL");
    assert_attr(failure, "message", "encode(E4M3, 8.5625f): gave 0x51, should be 0x50");
    text = xmlNodeGetContent(failure);
    ck_assert_str_eq((const char *) text, "encode(E4M3, 8.5625f): gave 0x51, should be 0x50\n"
                                          "  8.5625 is nearer to 8.0\n"
                                          "re-read: labs/lab0/README.md §3.2 Rounding\n");
    xmlFree(text);
    /* the hostile one: markup survives as text, the rest as U+FFFD */
    failure = first_element(failure->parent->next, "failure");
    ck_assert_ptr_nonnull(failure);
    assert_attr(failure, "message",
                "gave 0x7f, should be 0x7e: \"quoted\" 'single' <tag attr=\"x\"> & &amp; ]]>");
    text = xmlNodeGetContent(failure);
    ck_assert_ptr_nonnull(strstr((const char *) text, "\ttab-indented line" FFFD));
    ck_assert_ptr_nonnull(
        strstr((const char *) text, "nel\n  ...\n---\n# not a comment\nlone CR\n"));
    xmlFree(text);
    assert_attr(first_element(root, "error"), "type", "ERROR");
    xmlFreeDoc(doc);
    free(out);
}
END_TEST

START_TEST(test_junit_build_failed)
{
    char *out = render(&report_nobuild, GR_FORMAT_JUNIT, 0);
    xmlDocPtr doc = parse_xml(out);
    xmlNodePtr root = xmlDocGetRootElement(doc), err_node;
    xmlChar *text;

    ck_assert_int_eq(count_elements(root, "testcase"), 4);
    ck_assert_int_eq(count_elements(root, "failure"), 0);
    ck_assert_int_eq(count_elements(root, "error"), 4);
    ck_assert_int_eq(count_elements(root, "system-out"), 0);
    ck_assert_int_eq(count_elements(root, "system-err"), 1); /* a failed build's log always */
    assert_attr(first_element(root, "testsuite"), "errors", "4");
    assert_attr(first_element(root, "testsuite"), "failures", "0");
    err_node = first_element(root, "error");
    assert_attr(err_node, "type", "NOT_RUN");
    text = xmlNodeGetContent(first_element(root, "system-err"));
    ck_assert_ptr_nonnull(strstr((const char *) text, "expected ';' before '}' token"));
    ck_assert_ptr_nonnull(strstr((const char *) text, "bad byte " FFFD " <&> " FFFD));
    xmlFree(text);
    xmlFreeDoc(doc);
    free(out);

    out = render(&report_pass, GR_FORMAT_JUNIT, 0);
    doc = parse_xml(out);
    root = xmlDocGetRootElement(doc);
    ck_assert_int_eq(count_elements(root, "testcase"), 4);
    ck_assert_int_eq(count_elements(root, "failure") + count_elements(root, "error"), 0);
    ck_assert_int_eq(count_elements(root, "system-err"), 0);
    xmlFreeDoc(doc);
    free(out);
}
END_TEST

/* ---- hidden inputs ------------------------------------------------------------------------- */

/* Graded with a seed: the lab's hidden tests, and only those, are marked,
 * in text and in json; without a seed, none is. */
START_TEST(test_hidden_inputs)
{
    gr_report r = report_pass;
    r.hidden_inputs = 1;
    char *text = render(&r, GR_FORMAT_TEXT, 0), *plain = render(&report_pass, GR_FORMAT_TEXT, 0);
    ck_assert_ptr_nonnull(strstr(text, "encode_rne   15/15  Round to nearest, ties to even  "
                                       "[hidden inputs]\n"));
    ck_assert_ptr_nonnull(strstr(text, "scale_amax     5/5  Per-tensor scale from amax  "
                                       "[hidden inputs]\n"));
    ck_assert_ptr_nonnull(strstr(text, "decode_e4m3  10/10  Decode every E4M3 code\n"));
    ck_assert_ptr_nonnull(strstr(text, "\n[hidden inputs]: the test also checked"));
    ck_assert_ptr_null(strstr(plain, "hidden"));
    char *js = render(&r, GR_FORMAT_JSON, 0);
    json_t *root = parse_json(js);
    ck_assert(json_is_true(json_object_get(root, "hidden_inputs")));
    json_t *arr = json_object_get(root, "tests");
    for (int i = 0; i < 4; i++) {
        json_t *h = json_object_get(json_array_get(arr, (size_t) i), "hidden_inputs");
        ck_assert_msg(json_is_true(h) == (i == 1 || i == 3), "test %d: hidden_inputs", i);
    }
    json_decref(root);
    free(js);
    free(text);
    free(plain);
}
END_TEST

/* ---- autolab ------------------------------------------------------------------------------ */

/* The scorecard, then one line of JSON: every test's points by name, and the
 * total on the scoreboard; nothing after it. */
START_TEST(test_autolab)
{
    const gr_report *reports[] = {&report_pass, &report_mixed, &report_nobuild};
    for (int i = 0; i < 3; i++) {
        const gr_report *r = reports[i];
        char *out = render(r, GR_FORMAT_AUTOLAB, 0), *text = render(r, GR_FORMAT_TEXT, 0);
        size_t tlen = strlen(text);
        ck_assert_msg(strncmp(out, text, tlen) == 0, "report %d: the scorecard comes first", i);
        const char *line = out + tlen;
        ck_assert_ptr_eq(strchr(line, '\n'), line + strlen(line) - 1); /* one line */
        json_t *root = parse_json(line), *scores = json_object_get(root, "scores");
        ck_assert_int_eq((int) json_object_size(root), 2);
        ck_assert_int_eq((int) json_object_size(scores), r->nresults);
        for (int t = 0; t < r->nresults; t++)
            ck_assert_int_eq(jget_int(scores, r->results[t].test->name), r->results[t].points);
        json_t *board = json_object_get(root, "scoreboard");
        ck_assert_int_eq((int) json_array_size(board), 1);
        ck_assert_int_eq(json_integer_value(json_array_get(board, 0)), r->score);
        json_decref(root);
        free(out);
        free(text);
    }
}
END_TEST

/* ---- every format, every report --------------------------------------------------------- */

/* All 6 formats x 3 reports x verbose or not: valid UTF-8, and the machine
 * formats parse. */
/* A GPU test on a machine without a GPU: SKIP in every format, never a
 * pass, no points, and said so in the summaries. */
START_TEST(test_skipped)
{
    gr_result res[4];
    for (int i = 0; i < 4; i++)
        res[i] = (gr_result){&tests[i], GR_SKIPPED, 0,
                             "it needs a GPU, and no GPU: no device", NULL, 0};
    res[0] = (gr_result){&tests[0], GR_PASS, 10, NULL, NULL, 1};
    gr_report r = {&lab, "labs/lab5", 1, NULL, res, 4, 10, 50, 0.5, 0, NULL, NULL, NULL, NULL, 0, NULL, 0, 0, 0, 0, 0};

    char *text = render(&r, GR_FORMAT_TEXT, 0);
    ck_assert_ptr_nonnull(strstr(text, "SKIP  encode_rne "));
    ck_assert_ptr_nonnull(strstr(text, "\nWhy: it needs a GPU, and no GPU: no device\n"));
    ck_assert_ptr_null(strstr(text, "      it needs a GPU")); /* once, not under each test */
    ck_assert_ptr_nonnull(strstr(text, "3 of 4 tests SKIPPED, not passed: 40 points were not "
                                       "graded here."));
    ck_assert_ptr_null(strstr(text, "re-read"));
    free(text);

    char *json = render(&r, GR_FORMAT_JSON, 0);
    json_error_t jerr;
    json_t *root = json_loads(json, 0, &jerr);
    ck_assert_ptr_nonnull(root);
    json_t *t1 = json_array_get(json_object_get(root, "tests"), 1);
    ck_assert_str_eq(json_string_value(json_object_get(t1, "status")), "skipped");
    ck_assert_int_eq(json_integer_value(json_object_get(t1, "points")), 0);
    json_decref(root);
    free(json);

    char *tap = render(&r, GR_FORMAT_TAP, 0);
    ck_assert_ptr_nonnull(strstr(tap, "\nok 1 - decode_e4m3"));
    ck_assert_ptr_nonnull(strstr(tap, "\nnot ok 2 - encode_rne # SKIP  # 0/15 points\n"));
    free(tap);

    char *junit = render(&r, GR_FORMAT_JUNIT, 0);
    ck_assert_ptr_nonnull(strstr(junit, "skipped=\"3\""));
    ck_assert_ptr_nonnull(strstr(junit, "<skipped message="));
    ck_assert_ptr_nonnull(strstr(junit, "errors=\"0\""));
    free(junit);

    char *gs = render(&r, GR_FORMAT_GRADESCOPE, 0);
    ck_assert_ptr_nonnull(strstr(gs, "3 tests were skipped"));
    ck_assert_ptr_null(strstr(gs, "\"passed\", \"output\": \"SKIPPED"));
    free(gs);
}
END_TEST

/* --reweight-skipped (gr_reweight): the score out of the points graded,
 * scaled to the rubric's 50, rounded to the nearest, a half up; worked by
 * hand. pass, fail and skip are the tests' statuses, in rubric order
 * (decode_e4m3 10, encode_rne 15, saturate 20, scale_amax 5). */
static gr_report reweighted(gr_result *res, const char *how, int reweight)
{
    int score = 0;
    for (int i = 0; i < 4; i++) {
        gr_status st = how[i] == 'p' ? GR_PASS : how[i] == 'f' ? GR_FAIL : GR_SKIPPED;
        int points = st == GR_PASS ? tests[i].points : 0;
        res[i] = (gr_result){&tests[i], st, points,
                             st == GR_SKIPPED ? "needs compute capability 8.9" : NULL, NULL, 0};
        score += points;
    }
    gr_report r = {&lab, "labs/lab5", 1, NULL, res, 4, score, 50, 0.5, 0, NULL, NULL, NULL,
                   NULL, 0, NULL, 0, 0, 0, 0, 0};
    gr_reweight(&r, reweight);
    return r;
}

START_TEST(test_reweight)
{
    static const struct {
        const char *how;
        int reweight, score, graded_score, graded_max, reweighted;
    } cases[] = {
        {"pssp", 1, 50, 15, 15, 1}, /* all that was graded: full marks */
        {"pssf", 1, 33, 10, 15, 1}, /* 10 of 15: 33.3 */
        {"spff", 1, 19, 15, 40, 1}, /* 15 of 40: 18.75 */
        {"sfsp", 1, 13, 5, 20, 1},  /* 5 of 20: 12.5, a half up */
        {"spsf", 1, 38, 15, 20, 1}, /* 15 of 20: 37.5, a half up */
        {"pfsf", 1, 17, 10, 30, 1}, /* 10 of 30: 16.7 */
        {"pssp", 0, 15, 15, 15, 0}, /* without the flag: the rubric's points */
        {"pfpf", 1, 30, 30, 50, 0}, /* nothing skipped: nothing to re-weight */
        {"ssss", 1, 0, 0, 0, 0},    /* nothing graded: 0, not a division by 0 */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        gr_result res[4];
        gr_report r = reweighted(res, cases[k].how, cases[k].reweight);
        ck_assert_msg(r.score == cases[k].score && r.graded_score == cases[k].graded_score &&
                          r.graded_max == cases[k].graded_max &&
                          r.reweighted == cases[k].reweighted && r.max_score == 50,
                      "%s (reweight %d): score %d, graded %d of %d, reweighted %d", cases[k].how,
                      cases[k].reweight, r.score, r.graded_score, r.graded_max, r.reweighted);
    }

    gr_result res[4];
    gr_report r = reweighted(res, "pssf", 1);
    char *text = render(&r, GR_FORMAT_TEXT, 0);
    ck_assert_ptr_nonnull(strstr(text, "\nScore: 33/50"));
    ck_assert_ptr_nonnull(strstr(text, "2 of 4 tests SKIPPED, not passed: 35 points were not "
                                       "graded here.\nRe-weighted (--reweight-skipped): 10 of "
                                       "the 15 points graded here, scaled to 33 of 50.\n"));
    free(text);
    char *json = render(&r, GR_FORMAT_JSON, 0);
    json_t *root = json_loads(json, 0, NULL);
    ck_assert_ptr_nonnull(root);
    ck_assert_int_eq(json_integer_value(json_object_get(root, "score")), 33);
    json_t *rw = json_object_get(root, "reweighted");
    ck_assert_int_eq(json_integer_value(json_object_get(rw, "graded_score")), 10);
    ck_assert_int_eq(json_integer_value(json_object_get(rw, "graded_max")), 15);
    json_decref(root);
    free(json);
    char *gs = render(&r, GR_FORMAT_GRADESCOPE, 0);
    ck_assert_ptr_nonnull(strstr(gs, "Re-weighted: 10 of the 15 points graded here, scaled to "
                                     "33 of 50."));
    free(gs);

    r = reweighted(res, "pssf", 0);
    text = render(&r, GR_FORMAT_TEXT, 0);
    ck_assert_ptr_nonnull(strstr(text, "\nScore: 10/50"));
    ck_assert_ptr_null(strstr(text, "Re-weighted"));
    free(text);
    json = render(&r, GR_FORMAT_JSON, 0);
    ck_assert_ptr_null(strstr(json, "reweighted"));
    free(json);
}
END_TEST

/* gr_late_penalty: percent of the score taken, rounded to the nearest point
 * (a half up), after any re-weighting; worked by hand. */
START_TEST(test_late_penalty)
{
    static const struct {
        int score, percent, kept;
    } cases[] = {
        {90, 10, 81}, {85, 10, 77}, /* 76.5 */ {5, 50, 3}, /* 2.5 */ {7, 50, 4}, /* 3.5 */
        {33, 33, 22}, /* 22.11 */ {100, 100, 0}, {0, 25, 0}, {50, 0, 50},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        gr_result res[4];
        gr_report r = reweighted(res, "pppp", 0);
        r.score = cases[k].score;
        gr_late_penalty(&r, cases[k].percent);
        ck_assert_msg(r.score == cases[k].kept &&
                          r.late_points == cases[k].score - cases[k].kept &&
                          r.late_penalty == cases[k].percent,
                      "%d at %d%%: %d kept, %d taken", cases[k].score, cases[k].percent, r.score,
                      r.late_points);
    }
    /* After re-weighting: 10 of the 15 points graded are 33 of 50; 10 % of
     * that is 3 (3.3), and the scorecard says both. */
    gr_result res[4];
    gr_report r = reweighted(res, "pssf", 1);
    gr_late_penalty(&r, 10);
    ck_assert_int_eq(r.score, 30);
    char *text = render(&r, GR_FORMAT_TEXT, 0);
    ck_assert_ptr_nonnull(strstr(text, "scaled to 33 of 50.\n"));
    ck_assert_ptr_nonnull(strstr(text, "Late (the platform marked it so): 10% taken, 3 points: "
                                       "33 of 50 become 30.\n"));
    free(text);
}
END_TEST

START_TEST(test_every_format_is_valid)
{
    const gr_report *reports[] = {&report_pass, &report_mixed, &report_nobuild};
    for (int f = GR_FORMAT_TEXT; f <= GR_FORMAT_AUTOLAB; f++)
        for (int i = 0; i < 3; i++)
            for (int verbose = 0; verbose < 2; verbose++) {
                char *out = render(reports[i], (gr_format) f, verbose);
                ck_assert_msg(valid_utf8(out), "format %d, report %d: not UTF-8", f, i);
                if (f == GR_FORMAT_JSON || f == GR_FORMAT_GRADESCOPE)
                    json_decref(parse_json(out));
                else if (f == GR_FORMAT_JUNIT)
                    xmlFreeDoc(parse_xml(out));
                else
                    assert_printable(out);
                free(out);
            }
}
END_TEST

/* ---- failures --------------------------------------------------------------------------- */

START_TEST(test_write_to_full_disk)
{
    for (int f = GR_FORMAT_TEXT; f <= GR_FORMAT_AUTOLAB; f++) {
        FILE *full = fopen("/dev/full", "w");
        lab_error err = {{0}};
        ck_assert_ptr_nonnull(full);
        ck_assert_int_eq(gr_write_report(full, &report_mixed, (gr_format) f, 1, &err), -1);
        ck_assert_msg(strstr(err.msg, "cannot write the") != NULL, "message: %s", err.msg);
        ck_assert_msg(strstr(err.msg, "No space left on device") != NULL, "message: %s", err.msg);
        fclose(full);
    }
    {
        FILE *full = fopen("/dev/full", "w");
        lab_error err = {{0}};
        ck_assert_int_eq(gr_write_report(full, &report_pass, GR_FORMAT_JSON, 0, &err), -1);
        ck_assert_str_eq(err.msg, "cannot write the json report: No space left on device");
        ck_assert_int_eq(gr_write_report(full, &report_pass, GR_FORMAT_JSON, 0, NULL), -1);
        fclose(full);
    }
}
END_TEST

START_TEST(test_bad_arguments)
{
    gr_result bad[1] = {{&tests[0], (gr_status) 7, 0, NULL, NULL, 0}};
    gr_report r = report_pass;
    lab_error err = {{0}};
    FILE *f = fopen("/dev/null", "w");

    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(gr_write_report(NULL, &report_pass, GR_FORMAT_TEXT, 0, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.msg, "stream is NULL"));
    ck_assert_int_eq(gr_write_report(f, NULL, GR_FORMAT_TEXT, 0, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.msg, "the report is NULL"));
    ck_assert_int_eq(gr_write_report(f, &report_pass, (gr_format) 6, 0, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.msg, "unknown format 6"));
    ck_assert_int_eq(gr_write_report(f, &report_pass, (gr_format) -1, 0, &err), -1);
    r.results = bad;
    r.nresults = 1;
    ck_assert_int_eq(gr_write_report(f, &r, GR_FORMAT_JSON, 0, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.msg, "decode_e4m3 has unknown status 7"));
    r.results = NULL;
    ck_assert_int_eq(gr_write_report(f, &r, GR_FORMAT_JSON, 0, &err), -1);
    ck_assert_ptr_nonnull(strstr(err.msg, "results is NULL"));
    r.nresults = 0; /* no tests at all is a report, if an empty one */
    ck_assert_int_eq(gr_write_report(f, &r, GR_FORMAT_TAP, 0, &err), 0);
    fclose(f);
}
END_TEST

/* ---- csv cells and terminal lines ---------------------------------------------------- */

/* Each cases[i][0] as write writes it must be cases[i][1]. */
static void check_cells(void (*write)(FILE *, const char *), const char *const (*cases)[2],
                        int n)
{
    for (int i = 0; i < n; i++) {
        char *got = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&got, &len);
        ck_assert_ptr_nonnull(f);
        write(f, cases[i][0]);
        ck_assert_int_eq(fclose(f), 0);
        ck_assert_msg(strcmp(got, cases[i][1]) == 0, "cell %d: got [%s], want [%s]", i, got,
                      cases[i][1]);
        free(got);
    }
}

START_TEST(test_csv_cell)
{
    static const char *const cases[][2] = {
        {"alice", "alice"},
        {"", ""},
        {"weird, id", "\"weird, id\""},
        {"say \"hi\"", "\"say \"\"hi\"\"\""},
        {"two\nlines", "\"two\nlines\""},
        /* A spreadsheet's formulas: a ' before, and quoted (OWASP). */
        {"=1+1", "\"'=1+1\""},
        {"+SUM(A1:A9)", "\"'+SUM(A1:A9)\""},
        {"-2", "\"'-2\""},
        {"@x", "\"'@x\""},
        {"\tx", "\"'\tx\""},
        /* A CR is a line break (a terminal's carriage return would hide
         * what comes before it) */
        {"\rx", "\"\nx\""},
        {"=cmd|' /C calc'!A0", "\"'=cmd|' /C calc'!A0\""},
        {"=HYPERLINK(\"http://x\",\"y\")", "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\""},
        /* Only the first character counts. */
        {"a=1", "a=1"},
        {"x-2", "x-2"},
        /* Cleaned as the scorecard is: a terminal's escapes (ESC, an OSC
         * title ended by BEL, U+009B), bidirectional and invisible
         * characters, bytes that are not UTF-8. Letters past ASCII stay. */
        {"a\x1b]0;owned\x07" "b", "a" FFFD "]0;owned" FFFD "b"},
        {"c1\xc2\x9b" "2J", "c1" FFFD "2J"},
        {"rlo\xe2\x80\xae" "gnp.exe", "rlo" FFFD "gnp.exe"},
        {"rli\xe2\x81\xa7x\xe2\x81\xa9", "rli" FFFD "x" FFFD},
        {"zw\xe2\x80\x8bx\xef\xbb\xbf", "zw" FFFD "x" FFFD},
        {"bad\xff", "bad" FFFD},
        {"Jos\xc3\xa9 \xe7\x8e\x8b", "Jos\xc3\xa9 \xe7\x8e\x8b"},
        /* an invisible character before a formula: its U+FFFD comes first */
        {"\xe2\x80\xae=1+1", "\xef\xbf\xbd=1+1"},
    };
    check_cells(gr_write_csv_cell, cases, GRADER_COUNT(cases));
}
END_TEST

/* A cell Moodle shows as HTML: its markup is text; cleaned and quoted as
 * any cell. */
START_TEST(test_csv_html_cell)
{
    static const char *const cases[][2] = {
        {"no submission", "no submission"},
        {"<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert(1)&gt;"},
        {"a & b", "a &amp; b"},
        {"say \"hi\", 'x'", "\"say &quot;hi&quot;, &#39;x&#39;\""},
        {"&lt;", "&amp;lt;"},
        {"a\x1b[2J<b>\xe2\x80\xae", "a" FFFD "[2J&lt;b&gt;" FFFD},
        {"=1+1", "\"'=1+1\""},
    };
    check_cells(gr_write_csv_html_cell, cases, GRADER_COUNT(cases));
}
END_TEST

START_TEST(test_clean_line)
{
    static const char *const cases[][2] = {
        {"alice", "alice"},
        {"caf\xc3\xa9", "caf\xc3\xa9"},
        {"a\tb\nc\rd", "a" FFFD "b" FFFD "c" FFFD "d"},
        {"esc\x1b[31m", "esc" FFFD "[31m"},
        {"csi\x9b" "2J", "csi" FFFD "2J"},     /* a lone C1 byte: not UTF-8 */
        {"c1\xc2\x9b" "2J", "c1" FFFD "2J"},  /* U+009B, CSI */
        {"del\x7f", "del" FFFD},
        {"bad\xff", "bad" FFFD},
        /* what reorders or hides text on screen: U+202E, U+2066, U+200F,
         * U+061C, U+200B, U+FEFF, U+2028, a tag character (U+E0041) */
        {"a\xe2\x80\xae" "b", "a" FFFD "b"},
        {"a\xe2\x81\xa6" "b\xe2\x80\x8f", "a" FFFD "b" FFFD},
        {"a\xd8\x9c\xe2\x80\x8b\xef\xbb\xbf", "a" FFFD FFFD FFFD},
        {"a\xe2\x80\xa8" "b\xf3\xa0\x81\x81", "a" FFFD "b" FFFD},
        /* and what is only a letter stays */
        {"\xe7\x8e\x8b\xe8\x8a\xb3 \xd8\xb9\xd9\x84\xd9\x8a", "\xe7\x8e\x8b\xe8\x8a\xb3 \xd8\xb9\xd9\x84\xd9\x8a"},
    };
    for (int i = 0; i < GRADER_COUNT(cases); i++) {
        char *got = gr_clean_line(cases[i][0]);
        ck_assert_msg(strcmp(got, cases[i][1]) == 0, "line %d: got [%s], want [%s]", i, got,
                      cases[i][1]);
        free(got);
    }
}
END_TEST

/* ---- the runner --------------------------------------------------------------------------- */

static Suite *report_suite(void)
{
    Suite *s = suite_create("report");
    TCase *tc;

    tc = tcase_create("names");
    tcase_add_test(tc, test_format_names);
    tcase_add_test(tc, test_csv_cell);
    tcase_add_test(tc, test_csv_html_cell);
    tcase_add_test(tc, test_clean_line);
    suite_add_tcase(s, tc);

    tc = tcase_create("text");
    tcase_add_checked_fixture(tc, make_reports, NULL);
    tcase_add_test(tc, test_text_all_pass);
    tcase_add_test(tc, test_text_failures);
    tcase_add_test(tc, test_text_verbose);
    tcase_add_test(tc, test_text_build_failed);
    tcase_add_test(tc, test_text_missing_pieces);
    suite_add_tcase(s, tc);

    tc = tcase_create("json");
    tcase_add_checked_fixture(tc, make_reports, NULL);
    tcase_add_test(tc, test_json_mixed);
    tcase_add_test(tc, test_json_verbose_and_build_failed);
    tcase_add_test(tc, test_gradescope_mixed);
    tcase_add_test(tc, test_gradescope_build_failed);
    suite_add_tcase(s, tc);

    tc = tcase_create("tap");
    tcase_add_checked_fixture(tc, make_reports, NULL);
    tcase_add_test(tc, test_tap);
    tcase_add_test(tc, test_tap_details);
    suite_add_tcase(s, tc);

    tc = tcase_create("junit");
    tcase_add_checked_fixture(tc, make_reports, NULL);
    tcase_add_test(tc, test_junit_mixed);
    tcase_add_test(tc, test_junit_build_failed);
    tcase_add_test(tc, test_autolab);
    tcase_add_test(tc, test_hidden_inputs);
    tcase_add_test(tc, test_skipped);
    tcase_add_test(tc, test_reweight);
    tcase_add_test(tc, test_late_penalty);
    suite_add_tcase(s, tc);

    tc = tcase_create("all formats");
    tcase_add_checked_fixture(tc, make_reports, NULL);
    tcase_add_test(tc, test_every_format_is_valid);
    tcase_add_test(tc, test_write_to_full_disk);
    tcase_add_test(tc, test_bad_arguments);
    tcase_add_test(tc, test_builds_on);
    suite_add_tcase(s, tc);

    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(report_suite());
    int failed;

    srunner_run_all(sr, CK_ENV); /* CK_VERBOSITY=verbose lists every test */
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
