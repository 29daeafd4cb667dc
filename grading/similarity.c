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
#include "spawn.h"

#define SIM_MAX_FILE (4L << 20)  /* a student file past this is not compared */
#define SIM_TIMEOUT_S 300
#define SIM_SHOWN 20              /* pairs the summary shows; the file has them all */

/* s's line [p, end) without its leading and trailing blanks. */
static void trim(const char **p, const char **end)
{
    while (*p < *end && (**p == ' ' || **p == '\t' || **p == '\r'))
        (*p)++;
    while (*end > *p && ((*end)[-1] == ' ' || (*end)[-1] == '\t' || (*end)[-1] == '\r'))
        (*end)--;
}

/* Whether the line [p, end), trimmed, is one of the skeleton's lines. */
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

typedef struct sub {
    char hex[65];      /* the sha256 of its files, as graded */
    char *path;        /* its filtered copy */
    int has_text;
    int skeleton;      /* the skeleton, unchanged: left out of the comparison */
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
 * lacks to s->path. */
static int prepare(const gr_sim_input *in, const char *const *files, char *const *skeleton,
                   sub *s, lab_error *err)
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
        for (const char *p = text; *p;) {
            const char *e = p + strcspn(p, "\n");
            if (!in_skeleton(skeleton[f], p, e)) {
                fwrite(p, 1, (size_t)(e - p), out);
                fputc('\n', out);
                s->has_text = 1;
            }
            p = *e ? e + 1 : e;
        }
        free(text);
    }
    sha256_digest(&ctx, sizeof digest, digest);
    for (int i = 0; i < SHA256_DIGEST_SIZE; i++)
        snprintf(s->hex + 2 * i, 3, "%02x", digest[i]);
    if (fclose(out) != 0)
        return lab_errorf(err, "%s: cannot write: %s", s->path, strerror(errno));
    return 0;
}

/* Runs sim_c over the files listed in list, its report into out; 0 when it
 * ran and ended well, 127 when there is no sim_c, else -1. */
static int run_sim(const char *list, const char *out, int threshold)
{
    char t[16];
    snprintf(t, sizeof t, "%d", threshold);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int in = open(list, O_RDONLY | O_CLOEXEC);
        int o = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
        if (in < 0 || o < 0 || null < 0 || dup2(in, 0) < 0 || dup2(o, 1) < 0 || dup2(null, 2) < 0)
            _exit(126);
        alarm(SIM_TIMEOUT_S);
        /* -p percentages, -e each pair on its own, -a both ways, -s not a
         * file with itself, -T no account of the input, -i names on stdin. */
        execlp("sim_c", "sim_c", "-p", "-e", "-a", "-s", "-T", "-t", t, "-i", (char *)NULL);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        return 127;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

typedef struct pair {
    int a, b;          /* a < b */
    int ab, ba;        /* a's share found in b, and b's in a, percent */
} pair;

static int by_share(const void *x, const void *y)
{
    const pair *p = x, *q = y;
    int mp = p->ab > p->ba ? p->ab : p->ba, mq = q->ab > q->ba ? q->ab : q->ba;
    if (mp != mq)
        return mq - mp;
    return p->a != q->a ? p->a - q->a : p->b - q->b;
}

/* Which submission the filtered copy at path is, or -1. */
static int index_of(const sub *s, int n, const char *path)
{
    for (int k = 0; k < n; k++)
        if (strcmp(s[k].path, path) == 0)
            return k;
    return -1;
}

/* Reads sim_c's "F consists for x % of G material" lines into pairs. */
static pair *read_pairs(const char *path, const sub *s, int n, int *npairs)
{
    FILE *f = fopen(path, "r");
    pair *v = NULL;
    int count = 0, cap = 0;
    char line[8192], a[4096], b[4096];
    int pct;
    while (f && fgets(line, sizeof line, f)) {
        if (sscanf(line, "%4095s consists for %d %% of %4095s material", a, &pct, b) != 3)
            continue;
        int i = index_of(s, n, a), j = index_of(s, n, b);
        if (i < 0 || j < 0 || i == j)
            continue;
        int lo = i < j ? i : j, hi = i < j ? j : i, found = -1;
        for (int k = 0; k < count && found < 0; k++)
            if (v[k].a == lo && v[k].b == hi)
                found = k;
        if (found < 0) {
            if (count == cap) {
                cap = cap ? 2 * cap : 64;
                pair *grown = realloc(v, (size_t)cap * sizeof *v);
                if (!grown)
                    break;
                v = grown;
            }
            v[count] = (pair){lo, hi, 0, 0};
            found = count++;
        }
        if (i == lo)
            v[found].ab = pct > v[found].ab ? pct : v[found].ab;
        else
            v[found].ba = pct > v[found].ba ? pct : v[found].ba;
    }
    if (f)
        fclose(f);
    if (count > 1)
        qsort(v, (size_t)count, sizeof *v, by_share);
    *npairs = count;
    return v;
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

int gr_similarity(const gr_sim_input *in, int n, const char *const *files, const char *skeleton,
                  int threshold, const char *work, const char *out_path, FILE *summary,
                  lab_error *err)
{
    int nfiles = 0;
    while (files[nfiles])
        nfiles++;
    if (mkdir(work, 0700) != 0)
        return lab_errorf(err, "%s: cannot create: %s", work, strerror(errno));
    char **skel = calloc((size_t)nfiles + 1, sizeof *skel);
    sub *s = calloc((size_t)(n > 0 ? n : 1), sizeof *s);
    if (!skel || !s) {
        free(skel);
        free(s);
        return lab_errorf(err, "similarity: out of memory");
    }
    for (int f = 0; f < nfiles; f++) {
        char *path = gr_asprintf("%s/%s", skeleton, files[f]);
        size_t len;
        skel[f] = gr_read_file(path, SIM_MAX_FILE, &len);
        free(path);
    }
    int rc = 0;
    char *list = gr_asprintf("%s/files", work), *raw = gr_asprintf("%s/sim.out", work);
    FILE *lf = fopen(list, "w");
    if (!lf)
        rc = lab_errorf(err, "%s: cannot create: %s", list, strerror(errno));
    char skel_hex[65];
    skeleton_hash(files, skel, skel_hex);
    int unchanged = 0;
    for (int k = 0; rc == 0 && k < n; k++) {
        s[k].path = gr_asprintf("%s/%d.c", work, k);
        rc = prepare(&in[k], files, skel, &s[k], err);
        s[k].skeleton = rc == 0 && strcmp(s[k].hex, skel_hex) == 0;
        unchanged += s[k].skeleton;
        if (rc == 0 && s[k].has_text && !s[k].skeleton)
            fprintf(lf, "%s\n", s[k].path);
    }
    if (lf && fclose(lf) != 0 && rc == 0)
        rc = lab_errorf(err, "%s: cannot write: %s", list, strerror(errno));

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
        int sim = run_sim(list, raw, threshold), npairs = 0;
        pair *pairs = sim == 0 ? read_pairs(raw, s, n, &npairs) : NULL;
        fprintf(af.f, "\nPairs of which either consists for at least %d %% of the other's "
                      "material (sim_c, the skeleton's lines taken out):\n", threshold);
        if (sim == 127) {
            /* Debian 12 has the package, Debian 13 does not. */
            const char *why = "sim_c is not installed (apt-get install similarity-tester, where "
                              "the release has it)";
            fprintf(af.f, "  not compared: %s\n", why);
            fprintf(summary, "  pairs not compared: %s\n", why);
        } else if (sim != 0) {
            fputs("  not compared: sim_c failed\n", af.f);
            fputs("  pairs not compared: sim_c failed\n", summary);
        } else if (npairs == 0) {
            fputs("  none\n", af.f);
            fprintf(summary, "  pairs at or above %d %%: none\n", threshold);
        } else {
            fprintf(summary, "  pairs at or above %d %% (the share of the first's text found in "
                             "the second's, and the other way):\n", threshold);
        }
        for (int k = 0; k < npairs; k++) {
            char *a = gr_clean_line(in[pairs[k].a].id), *b = gr_clean_line(in[pairs[k].b].id);
            fprintf(af.f, "  %3d %%  %3d %%  %s  %s\n", pairs[k].ab, pairs[k].ba, a ? a : "?",
                    b ? b : "?");
            if (k < SIM_SHOWN)
                fprintf(summary, "    %3d %%  %3d %%  %s  %s\n", pairs[k].ab, pairs[k].ba,
                        a ? a : "?", b ? b : "?");
            free(a);
            free(b);
        }
        if (npairs > SIM_SHOWN)
            fprintf(summary, "  ... and %d more pairs (%s)\n", npairs - SIM_SHOWN, out_path);
        if (npairs > 0)
            fputs("  (the first share is how much of the first student's text is found in the "
                  "second's; the second, the other way)\n", af.f);
        free(pairs);
        rc = atomic_file_commit(&af, err);
    }
    for (int k = 0; k < n; k++)
        free(s[k].path);
    for (int f = 0; f < nfiles; f++)
        free(skel[f]);
    free(skel);
    free(s);
    free(list);
    free(raw);
    gr_remove_tree(work);
    return rc;
}
