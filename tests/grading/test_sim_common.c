/*
 * test_sim_common.c - tests of what many submissions share, left out of the
 * similarity check (grading/sim_common.c).
 *
 * Texts made up here, with what the answer must be worked out by hand: a
 * passage is SIM_PASSAGE tokens; C's tokens as the compiler splits them
 * ("<<=" one, a string with an escaped quote one); any name that is not a
 * keyword reads as any other; a passage in more than max_share texts goes,
 * and exactly that many keep it; texts the same count once; what is left
 * keeps its lines.
 *
 * And the text they are made from (grading/sim_text.c): an "#if 0" block
 * dropped only where an #endif the compiler also reads closes it, "%:"
 * and "??=" read as '#', "??/" at a line's end joining it to the next.
 *
 * Not for: the comparison of what is left (sim_c's, test_similarity.sh).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_common.h"
#include "sim_text.h"

/* A statement of 2n tokens: n names from letter c joined by '+', then ';'.
 * Its passages, names read as one, are three: those from a name ("V + V
 * ... +"), those from a '+' ("+ V ... V"), and the last ("V + ... V ;"). */
static char *names(char c, int n)
{
    char *s = malloc((size_t)n * 6 + 4), *w = s;
    for (int i = 0; i < n; i++)
        w += sprintf(w, "%s%c%d", i ? " + " : "", c, i);
    strcpy(w, " ;\n");
    return s;
}

static size_t count_tokens(const char *text)
{
    const char *const texts[] = {text};
    gr_sim_rare out[1];
    size_t common;
    ck_assert_int_eq(gr_sim_common(texts, 1, 10, out, &common), 0);
    size_t n = out[0].tokens;
    gr_sim_rare_free(out, 1);
    return n;
}

START_TEST(test_tokens)
{
    ck_assert_uint_eq(count_tokens("x <<= 3;\n"), 4);
    ck_assert_uint_eq(count_tokens("p->q++ >= 1.5e-3f;\n"), 7);
    ck_assert_uint_eq(count_tokens("s = \"a \\\" b\"; c = '\\'';\n"), 8);
    ck_assert_uint_eq(count_tokens("a...b ## c\n"), 5);
    ck_assert_uint_eq(count_tokens("0x1p+8 + .5\n"), 3);
    ck_assert_uint_eq(count_tokens(""), 0);
}
END_TEST

/* Three texts with a long statement in common, each under other names:
 * with max_share 2 it is common (in 3) and goes; with 3 it stays. */
START_TEST(test_names_read_as_one)
{
    char *a = names('a', 20), *b = names('b', 20), *c = names('c', 20);
    const char *const texts[] = {a, b, c};
    gr_sim_rare out[3];
    size_t common;
    ck_assert_int_eq(gr_sim_common(texts, 3, 2, out, &common), 0);
    /* 20 names, 19 '+', one ';': 40 tokens, 25 passages, of three kinds,
     * all common. */
    ck_assert_uint_eq(common, 3);
    for (int k = 0; k < 3; k++) {
        ck_assert_uint_eq(out[k].tokens, 40);
        ck_assert_uint_eq(out[k].rare, 0);
        ck_assert_str_eq(out[k].text, "");
    }
    gr_sim_rare_free(out, 3);
    ck_assert_int_eq(gr_sim_common(texts, 3, 3, out, &common), 0);
    ck_assert_uint_eq(common, 0);
    ck_assert_uint_eq(out[1].rare, 40);
    gr_sim_rare_free(out, 3);
    free(a);
    free(b);
    free(c);
}
END_TEST

/* Keywords are not names: "if" and "while" in the same place differ. */
START_TEST(test_keywords_kept)
{
    char *body = names('v', 10);
    char a[512], b[512];
    snprintf(a, sizeof a, "if (k) %s", body);
    snprintf(b, sizeof b, "while (k) %s", body);
    const char *const two[] = {a, b};
    gr_sim_rare out[2];
    size_t common;
    ck_assert_int_eq(gr_sim_common(two, 2, 1, out, &common), 0);
    /* 4 + 20 tokens, 9 passages each, the first ("if ( k ) V + ...") in a
     * alone; the other 8, of 6 kinds (from "(", "k", ")", a name, a '+',
     * and the last), in both: every token but the keyword is in one. */
    ck_assert_uint_eq(common, 6);
    ck_assert_uint_eq(out[0].tokens, 24);
    ck_assert_uint_eq(out[0].rare, 1);
    ck_assert_str_eq(out[0].text, "if\n");
    ck_assert_str_eq(out[1].text, "while\n");
    gr_sim_rare_free(out, 2);
    free(body);
}
END_TEST

/* Numbers, strings and characters read as any other of their kind, as
 * sim_c reads them: three texts that differ only in their constants share
 * every passage; a number where another has a string does not. */
START_TEST(test_constants_read_as_one)
{
    const char *a = "x = 0x7F + 1 ; y = \"s\" ; z = 'c' ; w = 1.5 + .5 ;\n";
    const char *b = "x = 0x7f + 2 ; y = \"t\\\"\" ; z = '\\'' ; w = 2e-3 + .7 ;\n";
    const char *c = "x = 127 + 3 ; y = \"\" ; z = 'd' ; w = 0x1p+8 + 1. ;\n";
    const char *d = "x = 127 + 3 ; y = 5 ; z = 'd' ; w = 0x1p+8 + 1. ;\n";
    const char *const texts[] = {a, b, c, d};
    gr_sim_rare out[4];
    size_t common;
    ck_assert_int_eq(gr_sim_common(texts, 4, 2, out, &common), 0);
    /* 20 tokens, 5 passages, each in a, b and c; every one of d's holds
     * its number where the others have a string (its 9th token), so none
     * of d's is theirs. */
    ck_assert_uint_eq(out[1].tokens, 20);
    ck_assert_uint_eq(common, 5);
    for (int k = 0; k < 3; k++)
        ck_assert_uint_eq(out[k].rare, 0);
    ck_assert_uint_eq(out[3].rare, 20);
    gr_sim_rare_free(out, 4);
}
END_TEST

/* The same text three times counts once: nothing is common in it; three
 * texts alike but not the same are. */
START_TEST(test_same_text_once)
{
    char *a = names('a', 20), *b = names('b', 20);
    const char *const same[] = {a, a, a, NULL};
    gr_sim_rare out[4];
    size_t common;
    ck_assert_int_eq(gr_sim_common(same, 4, 2, out, &common), 0);
    ck_assert_uint_eq(common, 0);
    ck_assert_uint_eq(out[2].rare, 40);
    ck_assert_ptr_null(out[3].text); /* not one of the class's */
    gr_sim_rare_free(out, 4);
    const char *const alike[] = {a, a, b, a};
    ck_assert_int_eq(gr_sim_common(alike, 4, 1, out, &common), 0);
    ck_assert_uint_eq(common, 3); /* in a and b: 2 texts, more than 1 */
    ck_assert_uint_eq(out[3].rare, 0);
    gr_sim_rare_free(out, 4);
    free(a);
    free(b);
}
END_TEST

/* What is left keeps its lines: a rare line between two common ones stays
 * a line of its own, its tokens one space apart. */
START_TEST(test_lines_kept)
{
    char *c1 = names('a', 20), *c2 = names('b', 20), *c3 = names('c', 20);
    char a[1024], b[1024], c[1024];
    snprintf(a, sizeof a, "%sreturn   x*2;\n%s", c1, c1);
    snprintf(b, sizeof b, "%sq = 1;\n%s", c2, c2);
    snprintf(c, sizeof c, "%sq = 2;\n%s", c3, c3);
    const char *const texts[] = {a, b, c};
    gr_sim_rare out[3];
    size_t common;
    ck_assert_int_eq(gr_sim_common(texts, 3, 2, out, &common), 0);
    /* The 40-token statements are common, and so are the passages from the
     * middle line's number on ("N ; V + V ...", in all three: a number is
     * any number); one that holds more of the middle line is not (a
     * "return x *", b and c "V ="): the middle line is left, less its
     * number and ';'. */
    ck_assert_str_eq(out[0].text, "return x *\n");
    ck_assert_str_eq(out[1].text, "q =\n");
    ck_assert_uint_eq(out[0].tokens, 85);
    ck_assert_uint_eq(out[0].rare, 3);
    gr_sim_rare_free(out, 3);
    free(c1);
    free(c2);
    free(c3);
}
END_TEST

static void expect_seen_as(const char *text, int trigraphs, const char *want)
{
    int cut;
    char *seen = gr_sim_text(text, strlen(text), 4096, trigraphs, &cut);
    ck_assert_ptr_nonnull(seen);
    ck_assert_str_eq(seen, want);
    ck_assert_int_eq(cut, 0);
    free(seen);
}

static void expect_seen(const char *text, const char *want)
{
    expect_seen_as(text, 1, want);
}

/* What the compiler drops is dropped; what it reads, even written to look
 * dropped, is kept. */
START_TEST(test_dead_blocks)
{
    expect_seen("a;\n#if 0\nb;\n#endif\nc;\n", "a;\nc;\n");
    expect_seen("a;\n#if 0\nb;\n#else\nc;\n#endif\n", "a;\nc;\n#endif\n");
    /* Never closed: the compiler would refuse it; read as live. */
    expect_seen("a;\n#if 0\nb;\n", "a;\n#if 0\nb;\n");
    /* Closed by a digraph or a trigraph: the code after it is live. */
    expect_seen("#if 0\n%:endif\nb;\n#if 0\n#endif\n", "b;\n");
    expect_seen("#if 0\n?\?=endif\nb;\n#if 0\n#endif\n", "b;\n"); /* "?\?" is "??" */
    expect_seen("%: if 0\nb;\n%:endif\nc;\n", "c;\n");
    /* "??/" at a line's end joins it: "#if 0 || 1" is live. */
    expect_seen("#if 0 ?\?/\n|| 1\nb;\n#endif\n", "#if 0 || 1\nb;\n#endif\n");
    /* An "#if 0" closed only inside another open group stays live. */
    expect_seen("#if 0\n#if 1\n#endif\nb;\n", "#if 0\n#if 1\n#endif\nb;\n");
    /* C++17 (kernels.cu) has no trigraphs: "?\?/" ends no comment's line
     * there, and the line after it is code. */
    ck_assert_int_eq(gr_sim_trigraphs("kernels.cu"), 0);
    ck_assert_int_eq(gr_sim_trigraphs("lab0.c"), 1);
    expect_seen_as("a; // x ?\?/\nb;\n", 0, "a;\nb;\n");
    expect_seen_as("a; // x ?\?/\nb;\n", 1, "a;\n");
    /* A C++ raw string (kernels.cu) is one line: an "#if 0" inside one and
     * an "#endif" inside another hide nothing between them. */
    expect_seen("s = R\"x(\n#if 0\n)x\";\nb;\nt = R\"(\n#endif\n)\";\nc;\n",
                "s = R\"x( #if 0 )x\";\nb;\nt = R\"( #endif )\";\nc;\n");
    /* An #elif 0 of a closed group is dead to its #else. */
    expect_seen("#if X\na;\n#elif 0\nb;\n#else\nc;\n#endif\n", "#if X\na;\nc;\n#endif\n");
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("sim_common");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_tokens);
    tcase_add_test(tc, test_names_read_as_one);
    tcase_add_test(tc, test_constants_read_as_one);
    tcase_add_test(tc, test_keywords_kept);
    tcase_add_test(tc, test_same_text_once);
    tcase_add_test(tc, test_lines_kept);
    tcase_add_test(tc, test_dead_blocks);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
