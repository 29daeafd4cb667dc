/*
 * sim_common.h - what many submissions of a class share, left out of the
 * similarity check (similarity.h), as MOSS's -m option leaves out "a given
 * passage" found in more than m programs (default 10; the moss script's
 * usage text, the clients that wrap it).
 *
 * A passage here is SIM_PASSAGE tokens in a row, C's tokens as the
 * compiler splits them, with every name that is not a keyword of C read as
 * one and the same name, and every number, string and character constant
 * as one of its kind, as sim_c reads them (sim(1): two segments "are
 * similar if they only differ in layout, comment, identifiers, and the
 * contents of numbers, strings and characters"): code written to
 * the same plan is the same passage whatever its names and constants, and
 * a passage sim_c cannot tell from a common one is common too. Each submission's text (sim_text.h,
 * the skeleton's and the handout's lines already out) is split so; a
 * passage found in more than max_share submissions is common, and every
 * token of it is left out of that submission's compared text. What is left,
 * written back a line per line it came from, its tokens one space apart, is
 * what the submission has that few others have: two submissions alike in
 * it are alike in what is rare.
 *
 * Submissions whose texts are the same, as compared (byte for byte after
 * sim_text.h), count once, so that one file handed in by many does not make
 * itself common; copies with their names changed each count.
 *
 * Not for: comparing two texts (sim_c does, similarity.c), or reading a
 * file (the texts are given).
 */
#ifndef FP8LAB_SIM_COMMON_H
#define FP8LAB_SIM_COMMON_H

#include <stddef.h>

/* The tokens of a passage: about one and a half C statements. */
#define SIM_PASSAGE 16

typedef struct gr_sim_rare {
    char *text;        /* what is left of the text (malloc'd; "" where nothing is) */
    size_t tokens;     /* the text's tokens, before */
    size_t rare;       /* and left */
} gr_sim_rare;

/*
 * Splits the n texts (NULL: not one of the class's, skipped) and leaves out
 * of each the passages found in more than max_share of them, into out[k]
 * for each text k. *common is how many distinct passages were common.
 * Returns 0, or -1 when out of memory (out then holds nothing to free).
 */
int gr_sim_common(const char *const *texts, int n, int max_share, gr_sim_rare *out,
                  size_t *common);

/* Frees what gr_sim_common put into out[0..n). */
void gr_sim_rare_free(gr_sim_rare *out, int n);

#endif
