/*
 * sim_text.h - the text the similarity check compares (similarity.h): a
 * student file as the compiler reads it, made small. Lines joined where
 * they end in a backslash; comments gone; what the preprocessor can be seen
 * to drop (an "#if 0" block, up to its "#else", "#elif" or "#endif") gone;
 * each line trimmed, its runs of blanks one space; a run of braces and
 * semicolons (empty blocks and statements, across lines too) cut to its
 * first four; blank lines gone; the whole cut, at a line's end, to a cap.
 * What is left is what a copy is made of: sim_c compares it token by
 * token, and no layout, comment or dead block can make that slow.
 *
 * Not for: comparing (similarity.c), or telling live code from dead where
 * it takes the preprocessor's knowledge (#ifdef, #if X) to know.
 */
#ifndef FP8LAB_SIM_TEXT_H
#define FP8LAB_SIM_TEXT_H

#include <stddef.h>

/* The cap on one student file's compared text. The largest reference
 * solution (11 KB with its comments) is under a quarter of it; sim_c takes
 * about 5 s on the slowest text this size that was tried (one statement,
 * again and again), well inside the limit on one submission (similarity.c). */
#define SIM_TEXT_CAP (64L << 10)

/* text (len bytes) as the similarity check sees it, NUL-terminated and at
 * most cap bytes long (malloc'd; NULL when out of memory). *cut says whether
 * the cap cut it. trigraphs: the compiler reads them (C11, the course's
 * -std=c11); not C++17 (lab5's .cu), which has none. */
char *gr_sim_text(const char *text, size_t len, size_t cap, int trigraphs, int *cut);

/* Whether the file named name is C, whose trigraphs the compiler reads. */
int gr_sim_trigraphs(const char *name);

#endif
