/*
 * similarity.c - which submissions of a class look alike (similarity.h).
 */
#include "similarity.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nettle/sha2.h>

#include "atomic_file.h"
#include "grade.h"
#include "report.h"
#include "sandbox.h"
#include "sim_common.h"
#include "sim_text.h"
#include "spawn.h"

#define SIM_MAX_FILE (4L << 20)  /* a student file past this is not compared */
/* The limit on one submission's comparison with all the others: six times
 * what sim_c takes on the slowest text the cap lets through (sim_text.h).
 * A submission past it is named; the others' comparisons are their own. */
#define SIM_LIMIT_S 30.0
#define SIM_MEM_MIB 2048          /* sim_c's memory, a class of a thousand at the cap */
#define SIM_SHOWN 20              /* pairs the summary shows; the file has them all */

/* s's line [p, end) without its leading and trailing blanks. */
static void trim(const char **p, const char **end)
{
    while (*p < *end && (**p == ' ' || **p == '\t' || **p == '\r'))
        (*p)++;
    while (*end > *p && ((*end)[-1] == ' ' || (*end)[-1] == '\t' || (*end)[-1] == '\r'))
        (*end)--;
}

/* Whether the line [p, end), trimmed, is one of the lines of skeleton
 * (the skeleton's file, or the handout's code; NULL: none). */
static int in_skeleton(const char *skeleton, const char *p, const char *end)
{
    trim(&p, &end);
    size_t n = (size_t)(end - p);
    if (n == 0 || !skeleton)
        return n == 0;
    for (const char *s = skeleton; *s;) {
        const char *e = s + strcspn(s, "\n");
        const char *a = s, *b = e;
        trim(&a, &b);
        if ((size_t)(b - a) == n && memcmp(a, p, n) == 0)
            return 1;
        s = *e ? e + 1 : e;
    }
    return 0;
}

/* The lines of the handout's C code (markdown, its ``` blocks marked c,
 * cpp, c++ or cuda), as the check sees them; malloc'd, NULL where none. */
static char *handout_code(const char *md)
{
    size_t size = strlen(md) + 1, used = 0;
    char *code = malloc(size);
    int in = 0;
    if (!code)
        return NULL;
    for (const char *p = md; *p;) {
        size_t n = strcspn(p, "\n");
        if (n >= 3 && strncmp(p, "```", 3) == 0) {
            const char *tag = p + 3;
            size_t t = n - 3;
            while (t > 0 && (tag[t - 1] == ' ' || tag[t - 1] == '\r'))
                t--;
            in = !in && ((t == 1 && *tag == 'c') || (t == 3 && strncmp(tag, "cpp", 3) == 0) ||
                         (t == 3 && strncmp(tag, "c++", 3) == 0) ||
                         (t == 4 && strncmp(tag, "cuda", 4) == 0));
        } else if (in) {
            memcpy(code + used, p, n);
            used += n;
            code[used++] = '\n';
        }
        p += n + (p[n] == '\n');
    }
    code[used] = '\0';
    int cut;
    char *seen = used > 0 ? gr_sim_text(code, used, SIM_MAX_FILE, 1, &cut) : NULL;
    free(code);
    return seen;
}

typedef struct sub {
    char hex[65];      /* the sha256 of its files, as graded */
    char *path;        /* its filtered copy */
    char *rare_path;   /* that, less what many share (sim_common.h); NULL: not made */
    size_t tokens;     /* its filtered copy's tokens */
    size_t rare;       /* those left in its rare copy */
    long given;        /* its lines left out as the skeleton's or the handout's */
    int has_text;
    int has_rare;
    int skeleton;      /* the skeleton, unchanged: left out of the comparison */
    int cut;           /* a file of it was cut at the cap */
    int slow[2];       /* its comparison in each pass (all it wrote, what is rare) ran
                          past the limit: 1, or sim_c failed on it: -1 */
} sub;

/* The sha256 prepare gives a submission whose files are the skeleton's
 * (skeleton[f] NULL where the course has no such file). */
static void skeleton_hash(const char *const *files, char *const *skeleton, char hex[65])
{
    struct sha256_ctx ctx;
    unsigned char digest[SHA256_DIGEST_SIZE];
    sha256_init(&ctx);
    for (int f = 0; files[f]; f++) {
        sha256_update(&ctx, strlen(files[f]) + 1, (const uint8_t *)files[f]);
        if (skeleton[f])
            sha256_update(&ctx, strlen(skeleton[f]), (const uint8_t *)skeleton[f]);
        else
            sha256_update(&ctx, 1, (const uint8_t *)"-");
    }
    sha256_digest(&ctx, sizeof digest, digest);
    for (int i = 0; i < SHA256_DIGEST_SIZE; i++)
        snprintf(hex + 2 * i, 3, "%02x", digest[i]);
}

/* Hashes submission k's files and writes their lines that the skeleton
 * and the handout's code lack, each file as the check sees it (sim_text.h),
 * to s->path. */
static int prepare(const gr_sim_input *in, const char *const *files, char *const *skeleton,
                   const char *handout, sub *s, lab_error *err)
{
    struct sha256_ctx ctx;
    unsigned char digest[SHA256_DIGEST_SIZE];
    FILE *out = fopen(s->path, "w");
    if (!out)
        return lab_errorf(err, "%s: cannot create: %s", s->path, strerror(errno));
    sha256_init(&ctx);
    for (int f = 0; files[f]; f++) {
        char *path = gr_asprintf("%s/%s", in->dir, files[f]);
        size_t len = 0;
        char *text = gr_read_file(path, SIM_MAX_FILE, &len);
        free(path);
        /* The name, then the bytes: lab.c "ab" + x.c "" is not lab.c "a" + x.c "b". */
        sha256_update(&ctx, strlen(files[f]) + 1, (const uint8_t *)files[f]);
        if (!text) {
            sha256_update(&ctx, 1, (const uint8_t *)"-");
            continue;
        }
        sha256_update(&ctx, len, (const uint8_t *)text);
        int cut = 0;
        char *seen = gr_sim_text(text, len, SIM_TEXT_CAP, gr_sim_trigraphs(files[f]), &cut);
        free(text);
        if (!seen) {
            fclose(out);
            return lab_errorf(err, "similarity: out of memory");
        }
        s->cut |= cut;
        for (const char *p = seen; *p;) {
            const char *e = p + strcspn(p, "\n");
            if (!in_skeleton(skeleton[f], p, e) && !in_skeleton(handout, p, e)) {
                fwrite(p, 1, (size_t)(e - p), out);
                fputc('\n', out);
                s->has_text = 1;
            } else if (e > p) {
                s->given++;
            }
            p = *e ? e + 1 : e;
        }
        free(seen);
    }
    sha256_digest(&ctx, sizeof digest, digest);
    for (int i = 0; i < SHA256_DIGEST_SIZE; i++)
        snprintf(s->hex + 2 * i, 3, "%02x", digest[i]);
    if (fclose(out) != 0)
        return lab_errorf(err, "%s: cannot write: %s", s->path, strerror(errno));
    return 0;
}

/* sim_c's path on PATH (malloc'd), or NULL where it is not installed. */
static char *find_sim_c(void)
{
    const char *path = getenv("PATH");
    for (const char *p = path ? path : ""; *p;) {
        size_t n = strcspn(p, ":");
        char *cand = gr_asprintf("%.*s/sim_c", (int)n, p);
        if (n > 0 && cand[0] == '/' && access(cand, X_OK) == 0)
            return cand;
        free(cand);
        p += n + (p[n] == ':');
    }
    return NULL;
}

/* Runs sim_c on the new file against the old ones (nold of them), in the
 * sandbox, reading only in_dir and writing only jail, its report into log.
 * Returns 0 when it ended well within limit seconds, 1 when it ran past
 * them, -1 when it failed. */
static int run_sim(const char *sim, const char *new, char *const *old, int nold, int threshold,
                   const char *in_dir, const char *jail, const char *log, double limit)
{
    char t[16];
    snprintf(t, sizeof t, "%d", threshold);
    char **argv = calloc((size_t)nold + 12, sizeof *argv);
    if (!argv)
        return -1;
    int a = 0;
    /* -p percentages, -e each pair on its own, -T no account of the input,
     * -S the new file (before "/") against the old ones only. */
    const char *flags[] = {sim, "-p", "-e", "-T", "-S", "-t", t, new, "/", NULL};
    for (int i = 0; flags[i]; i++)
        argv[a++] = (char *)flags[i];
    for (int i = 0; i < nold; i++)
        argv[a++] = old[i];
    argv[a] = NULL;
    char *envp[] = {"PATH=/usr/bin:/bin", "LC_ALL=C", NULL};
    const char *view[] = {in_dir, NULL};
    gr_limits lim = {.as_mib = SIM_MEM_MIB, .fsize_bytes = 64L << 20,
                     .cpu_s = (long)limit + 2, .nofile = 64, .nproc = EXTRA_PROCS,
                     .jail = jail, .view = view};
    pid_t pid = gr_spawn(argv, envp, log, -1, &lim);
    free(argv);
    if (pid < 0)
        return -1;
    int timed_out;
    int status = gr_wait_until(pid, gr_now() + limit, &timed_out);
    if (timed_out)
        return 1;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

typedef struct pair {
    int a, b;          /* a < b */
    int ab, ba;        /* a's share found in b, and b's in a, percent */
    long shared;       /* the tokens of the larger share, about */
} pair;

/* The most tokens shared first, then the highest share. */
static int by_shared(const void *x, const void *y)
{
    const pair *p = x, *q = y;
    int mp = p->ab > p->ba ? p->ab : p->ba, mq = q->ab > q->ba ? q->ab : q->ba;
    if (p->shared != q->shared)
        return p->shared < q->shared ? 1 : -1;
    if (mp != mq)
        return mq - mp;
    return p->a != q->a ? p->a - q->a : p->b - q->b;
}

/* The copy a pass compares: the filtered one, or its rare part. */
static const char *pass_path(const sub *s, int rare)
{
    return rare ? s->rare_path : s->path;
}

static int in_pass(const sub *s, int rare)
{
    return !s->skeleton && (rare ? s->has_rare : s->has_text);
}

/* Which submission the copy at path is, in the pass, or -1. */
static int index_of(const sub *s, int n, const char *path, int rare)
{
    for (int k = 0; k < n; k++)
        if (pass_path(&s[k], rare) && strcmp(pass_path(&s[k], rare), path) == 0)
            return k;
    return -1;
}

typedef struct pairs {
    pair *v;
    int count, cap;
} pairs;

/* Appends q to p; 0, or -1 when out of memory. */
static int add_pair(pairs *p, const pair *q)
{
    if (p->count == p->cap) {
        int cap = p->cap ? 2 * p->cap : 64;
        pair *grown = realloc(p->v, (size_t)cap * sizeof *grown);
        if (!grown)
            return -1;
        p->v = grown;
        p->cap = cap;
    }
    p->v[p->count++] = *q;
    return 0;
}

/* Adds sim_c's "F consists for x % of G material" lines at path to p. */
static void read_pairs(const char *path, const sub *s, int n, int rare, pairs *p)
{
    FILE *f = fopen(path, "r");
    char line[8192], a[4096], b[4096];
    int pct;
    while (f && fgets(line, sizeof line, f)) {
        if (sscanf(line, "%4095s consists for %d %% of %4095s material", a, &pct, b) != 3)
            continue;
        int i = index_of(s, n, a, rare), j = index_of(s, n, b, rare);
        if (i < 0 || j < 0 || i == j)
            continue;
        int lo = i < j ? i : j, hi = i < j ? j : i, found = -1;
        for (int k = 0; k < p->count && found < 0; k++)
            if (p->v[k].a == lo && p->v[k].b == hi)
                found = k;
        if (found < 0) {
            if (add_pair(p, &(pair){lo, hi, 0, 0, 0}) != 0)
                break;
            found = p->count - 1;
        }
        if (i == lo)
            p->v[found].ab = pct > p->v[found].ab ? pct : p->v[found].ab;
        else
            p->v[found].ba = pct > p->v[found].ba ? pct : p->v[found].ba;
    }
    if (f)
        fclose(f);
}

/* The limit on one submission's comparison: SIM_LIMIT_S, or less for the
 * grader's own tests (FP8LAB_TEST_SIM_LIMIT_S). */
static double sim_limit(void)
{
    const char *test = getenv("FP8LAB_TEST_SIM_LIMIT_S");
    double t = test ? atof(test) : 0;
    return t > 0 && t < SIM_LIMIT_S ? t : SIM_LIMIT_S;
}

/* Compares each submission that has text of its own (rare: of its rare
 * copy) with all the others, one sim_c each under the limit, in the sandbox
 * as its user; marks in s those past it. Returns 0, 127 where there is no
 * sim_c, or -1. */
static int compare_all(sub *s, int n, int threshold, const char *work, int rare, pairs *p)
{
    char *sim = find_sim_c();
    if (!sim)
        return 127;
    const gr_sandbox *sb = gr_sandbox_get(NULL);
    gr_spawn_use_sandbox(sb->on);
    char *in_dir = gr_asprintf("%s/in", work), *jail = gr_asprintf("%s/jail", work);
    char **old = calloc((size_t)(n > 0 ? n : 1), sizeof *old);
    lab_error err = {0};
    int rc = old && (mkdir(jail, 0700) == 0 || errno == EEXIST) &&
                     gr_sandbox_own(sb, jail, &err) == 0 ? 0 : -1;
    double limit = sim_limit();
    for (int k = 0; rc == 0 && k < n; k++) {
        if (!in_pass(&s[k], rare))
            continue;
        if (rare && s[k].slow[0]) { /* slow on all it wrote: not run again */
            s[k].slow[1] = s[k].slow[0];
            continue;
        }
        int nold = 0;
        for (int j = 0; j < n; j++)
            if (j != k && in_pass(&s[j], rare))
                old[nold++] = (char *)pass_path(&s[j], rare);
        if (nold == 0)
            break;
        char *log = gr_asprintf("%s/%d%s.out", work, k, rare ? ".rare" : "");
        int r = run_sim(sim, pass_path(&s[k], rare), old, nold, threshold, in_dir, jail, log,
                        limit);
        if (r == 0)
            read_pairs(log, s, n, rare, p);
        else
            s[k].slow[rare] = r > 0 ? 1 : -1;
        free(log);
    }
    /* Each pair's share in tokens: how much of the one whose share is larger. */
    for (int k = 0; k < p->count; k++) {
        const pair *q = &p->v[k];
        size_t ta = rare ? s[q->a].rare : s[q->a].tokens, tb = rare ? s[q->b].rare : s[q->b].tokens;
        long la = (long)((size_t)q->ab * ta / 100), lb = (long)((size_t)q->ba * tb / 100);
        p->v[k].shared = la > lb ? la : lb;
    }
    if (p->count > 1)
        qsort(p->v, (size_t)p->count, sizeof *p->v, by_shared);
    free(old);
    free(in_dir);
    free(jail);
    free(sim);
    return rc;
}

static const sub *sorted_subs; /* what by_hash compares */

static int by_hash(const void *x, const void *y)
{
    const sub *s = sorted_subs;
    int i = *(const int *)x, j = *(const int *)y;
    int c = strcmp(s[i].hex, s[j].hex);
    return c ? c : i - j;
}

/* Writes the identical groups (each id once, in its group's order) to f
 * and *shown lines of them to summary; returns how many groups. */
static int write_identical(const gr_sim_input *in, const sub *s, int n, FILE *f, FILE *summary)
{
    int *order = malloc((size_t)(n > 0 ? n : 1) * sizeof *order), groups = 0;
    if (!order)
        return 0;
    for (int k = 0; k < n; k++)
        order[k] = k;
    sorted_subs = s;
    qsort(order, (size_t)n, sizeof *order, by_hash);
    fputs("Identical submissions (the same student files, byte for byte):\n", f);
    for (int k = 0; k < n;) {
        int e = k + 1;
        while (e < n && strcmp(s[order[e]].hex, s[order[k]].hex) == 0)
            e++;
        if (e - k > 1 && !s[order[k]].skeleton) {
            groups++;
            for (FILE *out = f; out; out = out == f ? summary : NULL) {
                fputs(out == f ? "  " : "  identical: ", out);
                for (int m = k; m < e; m++) {
                    char *id = gr_clean_line(in[order[m]].id);
                    fprintf(out, "%s%s", m > k ? ", " : "", id ? id : "?");
                    free(id);
                }
                fputc('\n', out);
            }
        }
        k = e;
    }
    if (groups == 0)
        fputs("  none\n", f);
    free(order);
    return groups;
}

/* Names the submissions whose comparison ran past the limit, or on which
 * sim_c failed, in either pass (all they wrote; what is rare, when it ran
 * only there), and those cut at the cap, in f and summary. */
static void write_slow(const gr_sim_input *in, const sub *s, int n, FILE *f, FILE *summary)
{
    char why[5][96];
    snprintf(why[0], sizeof why[0], "its comparison ran past %g s", sim_limit());
    snprintf(why[1], sizeof why[1], "sim_c failed on it");
    snprintf(why[2], sizeof why[2], "its comparison of what is rare ran past %g s", sim_limit());
    snprintf(why[3], sizeof why[3], "sim_c failed on what is rare in it");
    snprintf(why[4], sizeof why[4], "a file of it was cut at %ld KiB", SIM_TEXT_CAP >> 10);
    for (int w = 0; w < 5; w++) {
        int m = 0;
        for (int k = 0; k < n; k++) {
            int hit = w == 0 ? s[k].slow[0] > 0 : w == 1 ? s[k].slow[0] < 0
                    : w == 2 ? !s[k].slow[0] && s[k].slow[1] > 0
                    : w == 3 ? !s[k].slow[0] && s[k].slow[1] < 0 : s[k].cut;
            if (!hit)
                continue;
            char *id = gr_clean_line(in[k].id);
            if (m++ == 0) {
                fprintf(f, "\n%s (%s%s):\n", w < 4 ? "Not compared in full" : "Compared in part",
                        why[w], w < 4 ? "; the others' comparisons with it are listed, each "
                                        "with the share of the other's text found in it" : "");
                fprintf(summary, "  %s (%s): ", w < 4 ? "not compared in full" : "compared in part",
                        why[w]);
            }
            fprintf(f, "  %s\n", id ? id : "?");
            fprintf(summary, "%s%s", m > 1 ? ", " : "", id ? id : "?");
            free(id);
        }
        if (m > 0)
            fputc('\n', summary);
    }
}

/* Reads back each submission's filtered copy, leaves out of it what more
 * than common of them share (sim_common.h) and, where that is anything,
 * writes what is left beside it: the rare copies. *ncommon: the passages
 * left out. Returns 0, or -1 with err set. */
static int make_rare(sub *s, int n, int common, const char *in_dir, size_t *ncommon,
                     lab_error *err)
{
    char **texts = calloc((size_t)(n > 0 ? n : 1), sizeof *texts);
    gr_sim_rare *rare = calloc((size_t)(n > 0 ? n : 1), sizeof *rare);
    int rc = texts && rare ? 0 : lab_errorf(err, "similarity: out of memory");
    for (int k = 0; rc == 0 && k < n; k++) {
        size_t len;
        if (in_pass(&s[k], 0) && !(texts[k] = gr_read_file(s[k].path, 64L << 20, &len)))
            rc = lab_errorf(err, "%s: cannot read: %s", s[k].path, strerror(errno));
    }
    if (rc == 0 && gr_sim_common((const char *const *)texts, n, common, rare, ncommon) != 0)
        rc = lab_errorf(err, "similarity: out of memory");
    for (int k = 0; rc == 0 && k < n; k++) {
        if (!texts[k])
            continue;
        s[k].tokens = rare[k].tokens;
        s[k].rare = rare[k].rare;
        if (*ncommon == 0)
            continue;
        s[k].rare_path = gr_asprintf("%s/%d.rare.c", in_dir, k);
        s[k].has_rare = rare[k].rare > 0;
        FILE *f = fopen(s[k].rare_path, "w");
        int bad = !f || fputs(rare[k].text, f) < 0;
        if (f && fclose(f) != 0)
            bad = 1;
        if (bad || chmod(s[k].rare_path, 0644) != 0)
            rc = lab_errorf(err, "%s: cannot write: %s", s[k].rare_path, strerror(errno));
    }
    if (rare)
        gr_sim_rare_free(rare, n);
    for (int k = 0; texts && k < n; k++)
        free(texts[k]);
    free(texts);
    free(rare);
    return rc;
}


/* Writes the pairs of p to f (all) and summary (the first SIM_SHOWN):
 * both shares, and with tokens, about how many the larger one is. */
static void write_pairs(const gr_sim_input *in, const pairs *p, int tokens, FILE *f,
                        FILE *summary, const char *out_path)
{
    for (int k = 0; k < p->count; k++) {
        const pair *q = &p->v[k];
        char *a = gr_clean_line(in[q->a].id), *b = gr_clean_line(in[q->b].id);
        char count[32] = "";
        if (tokens)
            snprintf(count, sizeof count, "  %6ld", q->shared);
        fprintf(f, "  %3d %%  %4d %%%s  %s  %s\n", q->ab, q->ba, count, a ? a : "?",
                b ? b : "?");
        if (summary && k < SIM_SHOWN)
            fprintf(summary, "    %3d %%  %4d %%%s  %s  %s\n", q->ab, q->ba, count, a ? a : "?",
                    b ? b : "?");
        free(a);
        free(b);
    }
    if (summary && p->count > SIM_SHOWN)
        fprintf(summary, "  ... and %d more pairs (%s)\n", p->count - SIM_SHOWN, out_path);
}

int gr_similarity(const gr_sim_input *in, int n, const char *const *files, const char *skeleton,
                  int threshold, int common, const char *work, const char *out_path,
                  FILE *summary, lab_error *err)
{
    int nfiles = 0;
    while (files[nfiles])
        nfiles++;
    /* work: the grader's; work/in, the texts compared, read by the
     * sandbox's user; work/jail, the one folder sim_c may write. */
    char *in_dir = gr_asprintf("%s/in", work);
    if (mkdir(work, 0700) != 0 || chmod(work, 0711) != 0 || mkdir(in_dir, 0755) != 0) {
        free(in_dir);
        return lab_errorf(err, "%s: cannot create: %s", work, strerror(errno));
    }
    char **skel = calloc((size_t)nfiles + 1, sizeof *skel);
    char **skel_seen = calloc((size_t)nfiles + 1, sizeof *skel_seen);
    sub *s = calloc((size_t)(n > 0 ? n : 1), sizeof *s);
    if (!skel || !skel_seen || !s) {
        free(skel);
        free(skel_seen);
        free(s);
        free(in_dir);
        return lab_errorf(err, "similarity: out of memory");
    }
    for (int f = 0; f < nfiles; f++) {
        char *path = gr_asprintf("%s/%s", skeleton, files[f]);
        size_t len;
        int cut;
        skel[f] = gr_read_file(path, SIM_MAX_FILE, &len);
        skel_seen[f] = skel[f] ? gr_sim_text(skel[f], len, SIM_MAX_FILE, gr_sim_trigraphs(files[f]), &cut) : NULL;
        free(path);
    }
    char *readme = gr_asprintf("%s/README.md", skeleton), *handout = NULL;
    size_t readme_len;
    char *md = gr_read_file(readme, SIM_MAX_FILE, &readme_len);
    if (md)
        handout = handout_code(md);
    free(md);
    free(readme);
    int rc = 0;
    char skel_hex[65];
    skeleton_hash(files, skel, skel_hex);
    int unchanged = 0, compared = 0;
    long given = 0;
    for (int k = 0; rc == 0 && k < n; k++) {
        s[k].path = gr_asprintf("%s/%d.c", in_dir, k);
        rc = prepare(&in[k], files, skel_seen, handout, &s[k], err);
        if (rc == 0 && chmod(s[k].path, 0644) != 0)
            rc = lab_errorf(err, "%s: cannot open it up: %s", s[k].path, strerror(errno));
        s[k].skeleton = rc == 0 && strcmp(s[k].hex, skel_hex) == 0;
        unchanged += s[k].skeleton;
        /* Those the same, byte for byte, count once, as in sim_common.h. */
        int same = 0;
        for (int j = 0; rc == 0 && j < k && !same; j++)
            same = in_pass(&s[j], 0) && strcmp(s[j].hex, s[k].hex) == 0;
        compared += rc == 0 && in_pass(&s[k], 0) && !same;
        given += s[k].skeleton ? 0 : s[k].given;
    }
    size_t ncommon = 0, tokens = 0, rare_tokens = 0;
    if (rc == 0)
        rc = make_rare(s, n, common, in_dir, &ncommon, err);
    for (int k = 0; k < n; k++) {
        tokens += in_pass(&s[k], 0) ? s[k].tokens : 0;
        rare_tokens += in_pass(&s[k], 0) ? s[k].rare : 0;
    }

    atomic_file af;
    if (rc == 0 && atomic_file_open(&af, out_path, err) != 0)
        rc = -1;
    if (rc == 0) {
        fprintf(af.f, "Similarity of %d submissions. It informs; it changes no score.\n\n", n);
        fprintf(summary, "\nSimilarity (it informs; it changes no score; %s):\n", out_path);
        int groups = write_identical(in, s, n, af.f, summary);
        if (groups == 0)
            fputs("  identical: none\n", summary);
        if (unchanged > 0) {
            /* Handed in as given: alike because nothing was written. */
            for (FILE *out = af.f; out; out = out == af.f ? summary : NULL) {
                fputs(out == af.f ? "\nUnchanged skeleton (the lab's files as given, left out of "
                                    "the comparison):\n  "
                                  : "  unchanged skeleton: ", out);
                for (int k = 0, m = 0; k < n; k++) {
                    if (!s[k].skeleton)
                        continue;
                    char *id = gr_clean_line(in[k].id);
                    fprintf(out, "%s%s", m++ ? ", " : "", id ? id : "?");
                    free(id);
                }
                fputc('\n', out);
            }
        }
        /* Handed in with no line of their own: compared with no one, named. */
        int own = 0;
        for (int k = 0; k < n; k++) {
            if (s[k].skeleton || s[k].has_text)
                continue;
            char *id = gr_clean_line(in[k].id);
            int m = ++own;
            if (m == 1) {
                fputs("\nNothing of its own to compare (each line is the skeleton's or the "
                      "handout's, as compared: no comments, no #if 0 blocks):\n  ", af.f);
                fputs("  nothing of its own to compare: ", summary);
            }
            fprintf(af.f, "%s%s", m > 1 ? ", " : "", id ? id : "?");
            fprintf(summary, "%s%s", m > 1 ? ", " : "", id ? id : "?");
            free(id);
        }
        if (own > 0) {
            fputc('\n', af.f);
            fputc('\n', summary);
        }
        /* What is left out, and why: given to everyone, or written by many. */
        int pct = tokens > 0 ? (int)((tokens - rare_tokens) * 100 / tokens) : 0;
        fprintf(af.f, "\nLeft out of the comparison:\n"
                      "  given: %ld lines of the submissions are lines of the skeleton or of the "
                      "handout's code\n", given);
        if (ncommon > 0)
            fprintf(af.f, "  common: %zu passages (%d tokens in a row, any name read as one, "
                          "and any constant as one of its kind) are in more than %d of the %d "
                          "submissions compared (those the same, byte for byte, once), as "
                          "MOSS's -m leaves out: %d %% of the tokens compared\n",
                    ncommon, SIM_PASSAGE, common, compared, pct);
        else
            fprintf(af.f, "  common: nothing: no passage (%d tokens in a row, any name read as "
                          "one, and any constant as one of its kind) is in more than %d of the "
                          "%d submissions compared (those the same, byte for byte, once)\n",
                    SIM_PASSAGE, common, compared);
        fprintf(summary, "  left out: %ld lines the skeleton or the handout gives; ", given);
        if (ncommon > 0)
            fprintf(summary, "%zu passages in more than %d of the %d submissions, %d %% of the "
                             "tokens compared (--similarity-common)\n",
                    ncommon, common, compared, pct);
        else
            fprintf(summary, "no passage is in more than %d of the %d submissions\n", common,
                    compared);

        pairs whole = {0}, rare = {0};
        int sim = compare_all(s, n, threshold, work, 0, &whole);
        if (sim == 0 && ncommon > 0)
            sim = compare_all(s, n, threshold, work, 1, &rare);
        const pairs *listed = ncommon > 0 ? &rare : &whole;
        write_slow(in, s, n, af.f, summary);
        fprintf(af.f, "\nPairs of which either consists for at least %d %% of the other's "
                      "material (sim_c), in what is left once the above is out; those sharing "
                      "the most tokens first:\n", threshold);
        if (sim == 127) {
            /* Debian 12 has the package, Debian 13 does not. */
            const char *why = "sim_c is not installed (apt-get install similarity-tester, where "
                              "the release has it)";
            fprintf(af.f, "  not compared: %s\n", why);
            fprintf(summary, "  pairs not compared: %s\n", why);
        } else if (sim != 0) {
            fputs("  not compared: sim_c's sandbox could not be made\n", af.f);
            fputs("  pairs not compared: sim_c's sandbox could not be made\n", summary);
        } else if (listed->count == 0) {
            fputs("  none\n", af.f);
            fprintf(summary, "  pairs at or above %d %%: none\n", threshold);
        } else {
            fprintf(summary, "  pairs at or above %d %% (the share of the first's text found in "
                             "the second's, the other way, and about how many tokens the larger "
                             "is; the most first):\n", threshold);
            fprintf(af.f, "  first  second  tokens\n");
            fprintf(summary, "    first  second  tokens\n");
        }
        if (sim == 0) {
            write_pairs(in, listed, 1, af.f, summary, out_path);
            if (listed->count > 0)
                fputs("  (first: the share of the first student's text found in the second's; "
                      "second: the other way; tokens: about how many tokens the larger share "
                      "is)\n", af.f);
        }
        /* The pairs alike only in what many share: counted, and listed in
         * the file; those whose rare text was not compared in full, apart. */
        pairs gone = {0}, unfinished = {0};
        unsigned char *listed_bits = calloc(((size_t)n * (size_t)n + 7) / 8 + 1, 1);
        for (int k = 0; listed_bits && k < rare.count; k++) {
            size_t bit = (size_t)rare.v[k].a * (size_t)n + (size_t)rare.v[k].b;
            listed_bits[bit / 8] |= (unsigned char)(1u << (bit % 8));
        }
        for (int k = 0; listed_bits && sim == 0 && ncommon > 0 && k < whole.count; k++) {
            const pair *q = &whole.v[k];
            size_t bit = (size_t)q->a * (size_t)n + (size_t)q->b;
            if (listed_bits[bit / 8] & (1u << (bit % 8)))
                continue;
            add_pair(s[q->a].slow[1] || s[q->b].slow[1] ? &unfinished : &gone, q);
        }
        free(listed_bits);
        if (unfinished.count > 0) {
            fprintf(af.f, "\nNot compared once what many share is out (the comparison of "
                          "either one's rare text did not finish, above): pairs at or above %d "
                          "%% on all they wrote (the shares on all they wrote):\n", threshold);
            write_pairs(in, &unfinished, 0, af.f, NULL, out_path);
            fprintf(summary, "  not compared on what is rare: %d pairs alike at or above %d %% "
                             "on all they wrote (%s lists them)\n",
                    unfinished.count, threshold, out_path);
        }
        free(unfinished.v);
        if (gone.count > 0) {
            fprintf(af.f, "\nLeft out as common: pairs at or above %d %% on all they wrote, and "
                          "under it once what more than %d submissions share is out (the shares "
                          "on all they wrote):\n", threshold, common);
            write_pairs(in, &gone, 0, af.f, NULL, out_path);
            fprintf(summary, "  left out as common: %d pairs alike at or above %d %% only in "
                             "what more than %d submissions share (%s lists them)\n",
                    gone.count, threshold, common, out_path);
        }
        free(gone.v);
        free(whole.v);
        free(rare.v);
        rc = atomic_file_commit(&af, err);
    }
    for (int k = 0; k < n; k++) {
        free(s[k].path);
        free(s[k].rare_path);
    }
    for (int f = 0; f < nfiles; f++)
        free(skel[f]);
    for (int f = 0; f < nfiles; f++)
        free(skel_seen[f]);
    free(skel);
    free(skel_seen);
    free(handout);
    free(s);
    free(in_dir);
    gr_remove_tree(work);
    return rc;
}
