/*
 * main.c - lab2's demo: the format recommender on the course's tensors, or
 * on yours (README §8), with the lab2.c it is built with.
 *
 *   make lab2 && ./build/lab2/lab2     your lab2.c on the course's tensors
 *                                      (build/lab2/plots)
 *   ./build/lab2/lab2 my_tensor.npy    which format for your own tensor
 *                                      (float32 .npy, any shape)
 *   make plots                         the reference solution's plots
 *                                      (build/plots/lab2)
 *
 * The tensors: five synthetic ones (README §6), gauss_w, relu_act,
 * student_t_grad, lognormal and wide (DIR/syn_<name>_x.npy, DIR
 * data/golden/lab2 unless --synthetic says otherwise), and every
 * capture_stepSSSSS_lL_{w,x,dy}.npy in data/captures (or --captures DIR):
 * what lab3's FP32 training run's GEMMs saw at three steps, per layer its
 * weight w, its input x and its output's gradient dy (README §7). FILE.npy
 * arguments replace them all. For each tensor it calls lab2_tensor_stats,
 * lab2_tensor_scale and lab2_cast_stats for E4M3 and for E5M2, each under
 * its own tensor scale, and lab2_recommend. Then it
 *
 *   1. prints a table, one row per tensor: elements, zeros, amax, the range
 *      in bits (amax over the smallest nonzero |x|, and over the
 *      percentiles), the outlier ratio, each format's saturated and
 *      underflow fractions and SQNR, the recommendation and, for a
 *      capture, what practice does (E4M3 for w and x, E5M2 for dy) with a
 *      mark where the two differ; then NaN and inf counts when there are
 *      any, notes when the functions return nothing yet, and the
 *      recommender's reason wherever it is not practice's;
 *   2. measures what the rule is about (README §5): each layer's weight
 *      gradient dW = dy^T x, in double from FP32 dy and x, then with dy
 *      cast to E4M3 and to E5M2 and back; prints, per step and layer, how
 *      much of dy E4M3 flushes, the relative Frobenius error of dW, and the
 *      share of dW's entries off by more than half their size;
 *   3. draws hist_<name> for each tensor: the histogram of log2|x| over its
 *      finite nonzero elements, with vertical lines where each format's
 *      range lands after scaling (its max, its smallest normal and its
 *      smallest subnormal, divided by the scale).
 *
 * Each plot is written as DIR/hist_<name>.png with the gnuplot script and
 * data beside it (DIR is build/lab2/plots unless -o says otherwise); three
 * of them (a weight, an activation and a gradient) are drawn as text on the
 * terminal unless --no-preview. The command line's common part (-o,
 * --no-preview, --help) and the drawing are common/demo.c's; the tensor
 * options and FILE.npy arguments are taken out here.
 *
 * Not for: grading. It shows whatever the functions return, zeros
 * included, and never trusts them to be in range; `./grader lab2` says
 * whether they are right.
 */
#include "lab2.h"
#include "demo.h"
#include "npy.h"
#include "plot.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_DIR "build/lab2/plots"
#define DEFAULT_SYNTHETIC "data/golden/lab2" /* made by `make goldens` */
#define DEFAULT_CAPTURES "data/captures"     /* made by `make captures` */
#define PLOT_WIDTH 1400     /* of each PNG, in pixels */
#define BINS_PER_BIT 2      /* the histograms' bins are half a bit of log2|x| wide */
#define N_PREVIEW 3         /* histograms drawn on the terminal */
#define NAME_SIZE 64        /* bytes of a tensor's name */
#define PLOT_SIZE 96        /* ... and of its plot's: "hist_", the name, "_2" */
#define WHY_SIZE 512        /* bytes for lab2_recommend's reason */
#define WRAP_COLS 78        /* a reason is wrapped to this width */
#define OFF_FRACTION 0.5    /* a dW entry is off when |error| > this times |dW| */

/* The formats, in the order of a tensor's casts. */
#define N_FORMATS 2
static const fp8_format FORMATS[N_FORMATS] = {FP8_E4M3, FP8_E5M2};
static const char *const FORMAT_NAMES[N_FORMATS] = {"E4M3", "E5M2"};

/* What the demo does, and its own options, for --help (common/demo.c prints
 * the usage line and the common options around it). */
static const char ABOUT[] =
    "Runs your lab2.c on tensors: the course's (five synthetic ones and the 18\n"
    "that lab3's FP32 training run captured) or the float32 .npy files named:\n"
    "\n"
    "    lab2 [options] [FILE.npy ...]\n"
    "\n"
    "Prints a table: each tensor's statistics, what a cast to E4M3 and to E5M2\n"
    "(each under its tensor scale) does to it, the recommended format and,\n"
    "for a capture (capture_stepSSSSS_lL_{w,x,dy}.npy), what practice uses;\n"
    "then the error of each layer's weight gradient dW = dy^T x with dy cast\n"
    "to either format. Draws hist_<name>.png for each tensor: log2|x| with the\n"
    "ranges both formats hold after scaling. Data that cannot be read\n"
    "(missing, corrupt, not float32) exits 1, naming the file.\n"
    "\n"
    "Tensor options, in any order with those below:\n"
    "  --synthetic DIR   the synthetic tensors, DIR/syn_<name>_x.npy (default\n"
    "                    " DEFAULT_SYNTHETIC ", made by `make goldens`)\n"
    "  --captures DIR    every capture_stepSSSSS_lL_{w,x,dy}.npy in DIR (default\n"
    "                    " DEFAULT_CAPTURES ", made by `make captures`; a lab3\n"
    "                    run writes a set to its -o DIR)\n"
    "  FILE.npy ...      these tensors instead (float32, any shape); --\n"
    "                    before a name that starts with '-'";

/* ---- the command line ---------------------------------------------------------- */

/* Which tensors, from the command line. */
typedef struct tensor_options {
    const char *synthetic, *captures;
    bool folder_given;        /* --synthetic or --captures */
    const char **files;       /* FILE.npy arguments: argc entries of room */
    int n_files;
} tensor_options;

/* The value of folder option argv[*i] into *dir. Returns 0, or 2 with a
 * message on stderr. */
static int take_folder(int argc, char **argv, int *i, const char *example, const char **dir)
{
    const char *name = argv[*i];
    if (*i + 1 >= argc || argv[*i + 1][0] == '\0') {
        fprintf(stderr, "lab2: %s needs a folder, e.g. %s %s\n", name, name, example);
        return 2;
    }
    *dir = argv[++*i];
    return 0;
}

/* Takes the tensor options and the FILE.npy arguments out of argv into *t
 * (whose files has room for argc entries) and copies the others, in order,
 * into rest (argv[0] first), for demo_parse_args: common/demo.c has no hook
 * for a lab's own options. The word after -o or --output is copied as it
 * is, whatever it looks like; every word after "--" is a file. Returns 0,
 * or 2 with a message on stderr. */
static int take_tensor_args(int argc, char **argv, tensor_options *t, char **rest, int *n_rest)
{
    t->synthetic = DEFAULT_SYNTHETIC;
    t->captures = DEFAULT_CAPTURES;
    t->folder_given = false;
    t->n_files = 0;
    *n_rest = 0;
    rest[(*n_rest)++] = argv[0];
    bool only_files = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int rc = 0;
        if (only_files || a[0] != '-') {
            t->files[t->n_files++] = a;
        } else if (!strcmp(a, "--")) {
            only_files = true;
        } else if (!strcmp(a, "--synthetic")) {
            rc = take_folder(argc, argv, &i, DEFAULT_SYNTHETIC, &t->synthetic);
            t->folder_given = true;
        } else if (!strcmp(a, "--captures")) {
            rc = take_folder(argc, argv, &i, DEFAULT_CAPTURES, &t->captures);
            t->folder_given = true;
        } else {
            rest[(*n_rest)++] = argv[i];
            if ((!strcmp(a, "-o") || !strcmp(a, "--output")) && i + 1 < argc)
                rest[(*n_rest)++] = argv[++i];
        }
        if (rc != 0)
            return rc;
    }
    rest[*n_rest] = NULL;
    if (t->n_files > 0 && t->folder_given) {
        fprintf(stderr, "lab2: FILE.npy arguments replace the course's tensors, which\n"
                        "      --synthetic and --captures choose: give one or the other\n");
        return 2;
    }
    return 0;
}

/* ---- the tensors ------------------------------------------------------------------ */

/* What a capture holds (capture_stepSSSSS_lL_K.npy, K one of KIND_NAMES). */
typedef enum kind { KIND_NONE = -1, KIND_W, KIND_X, KIND_DY } kind;
#define N_KINDS 3
static const char *const KIND_NAMES[N_KINDS] = {"w", "x", "dy"};

/* Where a tensor comes from: the table's sub-headings. */
typedef enum origin { FROM_SYNTHETIC, FROM_CAPTURES, FROM_FILES } origin;

static const char *const SYNTHETIC_NAMES[] = {"gauss_w", "relu_act", "student_t_grad",
                                              "lognormal", "wide"};
#define N_SYNTHETIC 5

/* One tensor, what lab2.c says about it, and the demo's own count. */
typedef struct tensor {
    char name[NAME_SIZE];   /* "gauss_w", "l1_dy @7035", or a file's name */
    char plot[PLOT_SIZE];   /* its histogram's name: "hist_gauss_w" */
    char *path;             /* malloc'd */
    origin origin;
    kind kind;              /* a capture's; KIND_NONE for any other tensor */
    unsigned long step;     /* a capture's step and layer */
    int layer;
    npy_array a;
    /* what lab2.c returned */
    int stats_rc;
    lab2_stats s;
    float scale[N_FORMATS]; /* lab2_tensor_scale(s.amax, FORMATS[f]) */
    lab2_cast cast[N_FORMATS];
    lab2_choice pick;
    char why[WHY_SIZE];
    /* the demo's own count, to say when lab2.c's differs */
    size_t nan, inf, zeros, nonzero;
    float amax;
    bool preview;           /* its histogram is drawn on the terminal */
} tensor;

typedef struct tensor_set {
    tensor *t;
    size_t n, cap;
} tensor_set;

static void set_free(tensor_set *set)
{
    for (size_t i = 0; i < set->n; i++) {
        free(set->t[i].path);
        npy_free(&set->t[i].a);
    }
    free(set->t);
    memset(set, 0, sizeof *set);
}

/* A new, zeroed tensor at the end of set, with a copy of path. NULL (a
 * message printed) when out of memory. */
static tensor *set_add(tensor_set *set, const char *path, origin from)
{
    if (set->n == set->cap) {
        size_t cap = set->cap ? 2 * set->cap : 32;
        tensor *t = realloc(set->t, cap * sizeof *t);
        if (!t) {
            fprintf(stderr, "lab2: out of memory\n");
            return NULL;
        }
        set->t = t;
        set->cap = cap;
    }
    tensor *t = &set->t[set->n];
    memset(t, 0, sizeof *t);
    t->path = malloc(strlen(path) + 1);
    if (!t->path) {
        fprintf(stderr, "lab2: out of memory\n");
        return NULL;
    }
    strcpy(t->path, path);
    t->origin = from;
    t->kind = KIND_NONE;
    set->n++;
    return t;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* Whether base is a capture's file name, capture_stepSSSSS_lL_K.npy; if so
 * fills t's step, layer, kind, name ("l1_dy @7035") and plot. */
static bool parse_capture(const char *base, tensor *t)
{
    unsigned long step;
    int layer, used = -1;
    char k[3] = "";
    if (sscanf(base, "capture_step%8lu_l%3d_%2[dwxy]%n", &step, &layer, k, &used) != 3 ||
        used < 0 || strcmp(base + used, ".npy") != 0)
        return false;
    for (int i = 0; i < N_KINDS; i++) {
        if (strcmp(k, KIND_NAMES[i]) != 0)
            continue;
        t->kind = (kind)i;
        t->step = step;
        t->layer = layer;
        snprintf(t->name, sizeof t->name, "l%d_%s @%lu", layer, k, step);
        snprintf(t->plot, sizeof t->plot, "hist_step%05lu_l%d_%s", step, layer, k);
        return true;
    }
    return false;
}

/* The name of a tensor from a file given on the command line: a capture's
 * ("l1_dy @7035"), a synthetic one's ("syn_wide_x.npy": "wide"), or the
 * file's name without ".npy". */
static void name_file(tensor *t)
{
    const char *base = base_name(t->path);
    if (parse_capture(base, t))
        return;
    size_t len = strlen(base);
    if (len > 4 && !strcmp(base + len - 4, ".npy"))
        len -= 4;
    if (len > 6 && !strncmp(base, "syn_", 4) && !strncmp(base + len - 2, "_x", 2))
        snprintf(t->name, sizeof t->name, "%.*s", (int)(len - 6), base + 4);
    else
        snprintf(t->name, sizeof t->name, "%.*s", (int)len, base);
    snprintf(t->plot, sizeof t->plot, "hist_%s", t->name);
}

static bool plot_name_taken(const tensor_set *set, size_t i, const char *name)
{
    for (size_t j = 0; j < i; j++)
        if (!strcmp(set->t[j].plot, name))
            return true;
    return false;
}

/* Makes each plot's name a file name (letters, digits, '-', '_', '.'), and
 * unique by adding "_2", "_3" ... to a name an earlier tensor has. */
static void unique_plot_names(tensor_set *set)
{
    char base[PLOT_SIZE];
    for (size_t i = 0; i < set->n; i++) {
        char *p = set->t[i].plot;
        for (char *c = p; *c; c++)
            if (!(isalnum((unsigned char)*c) || *c == '-' || *c == '_' || *c == '.'))
                *c = '_';
        memcpy(base, p, sizeof base);
        for (size_t k = 2; plot_name_taken(set, i, p); k++)
            snprintf(p, PLOT_SIZE, "%.*s_%zu", PLOT_SIZE - 24, base, k);
    }
}

/* Where each source of tensors comes from, printed when one cannot be
 * read. */
static void print_hint(origin from)
{
    if (from == FROM_SYNTHETIC)
        fprintf(stderr, "lab2: nothing analysed. The synthetic tensors (%s by default)\n"
                        "      are made by `make goldens`. Run from the course's top folder,\n"
                        "      or give --synthetic their folder.\n",
                DEFAULT_SYNTHETIC);
    else if (from == FROM_CAPTURES)
        fprintf(stderr, "lab2: nothing analysed. The captures (%s by default) are made\n"
                        "      by `make captures` from lab3's FP32 training run; a lab3 run\n"
                        "      writes a set to its -o DIR (then: lab2 --captures DIR). Run\n"
                        "      from the course's top folder.\n",
                DEFAULT_CAPTURES);
    else
        fprintf(stderr, "lab2: nothing analysed. A FILE.npy argument must be a float32 .npy\n"
                        "      file, of any shape (NumPy: np.save(path, x.astype(np.float32))).\n");
}

/* Reads t->path into t->a: float32, any shape. Returns 0, or -1 with the
 * message (it names the file) and where the file comes from printed. */
static int load_tensor(tensor *t)
{
    lab_error err = {{0}};
    int rc = npy_load(t->path, &t->a, &err);
    if (rc == 0 && t->a.dtype != NPY_F32) {
        rc = lab_errorf(&err, "%s: holds %s; lab2 reads float32", t->path,
                        npy_dtype_name(t->a.dtype));
        npy_free(&t->a);
    }
    if (rc != 0) {
        fprintf(stderr, "lab2: %s\n", err.msg);
        print_hint(t->origin);
    }
    return rc;
}

/* DIR/name into buf (DEMO_STEM_SIZE bytes). Returns 0, or -1 with a
 * message when it does not fit. */
static int join(char *buf, const char *dir, const char *name)
{
    size_t n = strlen(dir);
    const char *sep = n == 0 || dir[n - 1] == '/' ? "" : "/";
    int len = snprintf(buf, DEMO_STEM_SIZE, "%s%s%s", dir, sep, name);
    if (len < 0 || len >= DEMO_STEM_SIZE) {
        fprintf(stderr, "lab2: folder name too long: %s\n", dir);
        return -1;
    }
    return 0;
}

static int add_synthetic(tensor_set *set, const char *dir)
{
    char path[DEMO_STEM_SIZE], base[PLOT_SIZE];
    for (int i = 0; i < N_SYNTHETIC; i++) {
        snprintf(base, sizeof base, "syn_%s_x.npy", SYNTHETIC_NAMES[i]);
        tensor *t = join(path, dir, base) == 0 ? set_add(set, path, FROM_SYNTHETIC) : NULL;
        if (!t)
            return -1;
        snprintf(t->name, sizeof t->name, "%s", SYNTHETIC_NAMES[i]);
        snprintf(t->plot, sizeof t->plot, "hist_%s", SYNTHETIC_NAMES[i]);
    }
    return 0;
}

/* By step, then layer, then kind (w, x, dy). */
static int cmp_capture(const void *a, const void *b)
{
    const tensor *s = a, *t = b;
    if (s->step != t->step)
        return s->step < t->step ? -1 : 1;
    if (s->layer != t->layer)
        return s->layer < t->layer ? -1 : 1;
    return (s->kind > t->kind) - (s->kind < t->kind);
}

/* Every capture in dir, in cmp_capture's order. Returns 0, or -1 with a
 * message (the folder cannot be read or holds none). */
static int add_captures(tensor_set *set, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "lab2: cannot read the folder %s: %s\n", dir, strerror(errno));
        print_hint(FROM_CAPTURES);
        return -1;
    }
    size_t first = set->n;
    char path[DEMO_STEM_SIZE];
    int rc = 0;
    for (struct dirent *e = readdir(d); e && rc == 0; e = readdir(d)) {
        tensor probe = {.kind = KIND_NONE};
        if (!parse_capture(e->d_name, &probe))
            continue;
        tensor *t = join(path, dir, e->d_name) == 0 ? set_add(set, path, FROM_CAPTURES) : NULL;
        if (!t) {
            rc = -1;
            break;
        }
        char *keep = t->path;
        *t = probe;
        t->path = keep;
        t->origin = FROM_CAPTURES;
    }
    closedir(d);
    if (rc == 0 && set->n == first) {
        fprintf(stderr, "lab2: %s holds no capture_stepSSSSS_lL_{w,x,dy}.npy file\n", dir);
        print_hint(FROM_CAPTURES);
        rc = -1;
    }
    if (rc == 0)
        qsort(set->t + first, set->n - first, sizeof *set->t, cmp_capture);
    return rc;
}

/* The tensors the command line asks for, read. Returns 0, or -1 with a
 * message printed (nothing read is kept). */
static int load_set(const tensor_options *opt, tensor_set *set)
{
    memset(set, 0, sizeof *set);
    int rc = 0;
    if (opt->n_files > 0) {
        for (int i = 0; i < opt->n_files && rc == 0; i++) {
            tensor *t = set_add(set, opt->files[i], FROM_FILES);
            if (t)
                name_file(t);
            rc = t ? 0 : -1;
        }
    } else {
        rc = add_synthetic(set, opt->synthetic);
        if (rc == 0)
            rc = add_captures(set, opt->captures);
    }
    for (size_t i = 0; i < set->n && rc == 0; i++)
        rc = load_tensor(&set->t[i]);
    if (rc != 0)
        set_free(set);
    else
        unique_plot_names(set);
    return rc;
}

/* ---- what lab2.c says ------------------------------------------------------------- */

/* The demo's own count of t's elements, to compare lab2_tensor_stats with. */
static void count_elements(tensor *t)
{
    const float *x = t->a.data;
    for (size_t i = 0; i < t->a.count; i++) {
        if (isnan(x[i]))
            t->nan++;
        else if (isinf(x[i]))
            t->inf++;
        else if (x[i] == 0.0f)
            t->zeros++;
        else {
            t->nonzero++;
            t->amax = fmaxf(t->amax, fabsf(x[i]));
        }
    }
}

static void analyse(tensor *t)
{
    const float *x = t->a.data;
    size_t n = t->a.count;
    count_elements(t);
    t->stats_rc = lab2_tensor_stats(x, n, &t->s);
    for (int f = 0; f < N_FORMATS; f++) {
        t->scale[f] = lab2_tensor_scale(t->s.amax, FORMATS[f]);
        lab2_cast_stats(x, n, FORMATS[f], t->scale[f], &t->cast[f]);
    }
    t->pick = lab2_recommend(&t->s, &t->cast[0], &t->cast[1], t->why, sizeof t->why);
    t->why[sizeof t->why - 1] = '\0'; /* never trusted to be terminated */
}

/* What practice casts a capture to: E4M3 in the forward pass (w, x), E5M2
 * in the backward (dy); -1 for a tensor that is no capture. */
static int practice_of(const tensor *t)
{
    return t->kind == KIND_NONE ? -1 : t->kind == KIND_DY ? LAB2_E5M2 : LAB2_E4M3;
}

static bool differs_from_practice(const tensor *t)
{
    return practice_of(t) >= 0 && (int)t->pick != practice_of(t);
}

/* text, wrapped to WRAP_COLS columns, each line indented by indent spaces. */
static void print_wrapped(const char *text, int indent)
{
    int col = indent;
    printf("%*s", indent, "");
    while (*text) {
        size_t word = strcspn(text, " ");
        if (col > indent && col + 1 + (int)word > WRAP_COLS) {
            printf("\n%*s", indent, "");
            col = indent;
        } else if (col > indent) {
            printf(" ");
            col++;
        }
        printf("%.*s", (int)word, text);
        col += (int)word;
        text += word;
        text += strspn(text, " ");
    }
    printf("\n");
}

/* ---- the table -------------------------------------------------------------------- */

/* A fraction as a percentage in a cell of width w; "n/a" when NaN. */
static void print_pct(int w, int decimals, double fraction)
{
    if (isnan(fraction))
        printf(" %*s", w, "n/a");
    else
        printf(" %*.*f", w, decimals, 100.0 * fraction);
}

/* A ratio or a count of bits in a cell of width w: "%.*f" while it fits. */
static void print_num(int w, int decimals, double v)
{
    if (isnan(v))
        printf(" %*s", w, "n/a");
    else if (fabs(v) < 1e4)
        printf(" %*.*f", w, decimals, v);
    else
        printf(" %*.2g", w, v);
}

static void print_db(int w, double v)
{
    if (isnan(v))
        printf(" %*s", w, "n/a");
    else if (isinf(v))
        printf(" %*s", w, v > 0 ? "inf" : "-inf");
    else
        printf(" %*.1f", w, v);
}

static int name_width(const tensor_set *set)
{
    size_t w = strlen("tensor");
    for (size_t i = 0; i < set->n; i++)
        w = strlen(set->t[i].name) > w ? strlen(set->t[i].name) : w;
    return (int)w;
}

static void print_header(int nw)
{
    printf("  %-*s %8s %5s %8s%12s %6s  %20s  %20s\n", nw, "", "", "", "", "range (bits)", "",
           "------- E4M3 -------", "------- E5M2 -------");
    printf("  %-*s %8s %5s %8s %5s %5s %6s", nw, "tensor", "elements", "zeros", "amax", "all",
           "99.9/", "outlier");
    for (int f = 0; f < N_FORMATS; f++)
        printf("  %6s %7s %5s", "sat.", "under-", "SQNR");
    printf("  %-4s  %s\n", "pick", "practice");
    printf("  %-*s %8s %5s %8s %5s %5s %6s", nw, "", "", "(%)", "", "", "0.1", "ratio");
    for (int f = 0; f < N_FORMATS; f++)
        printf("  %6s %7s %5s", "(%)", "flow(%)", "(dB)");
    printf("\n");
}

static void print_row(const tensor *t, int nw)
{
    const lab2_stats *s = &t->s;
    double n = (double)s->n;
    printf("  %-*s %8zu", nw, t->name, s->n);
    print_pct(5, 1, n > 0 ? (double)s->zeros / n : 0.0);
    printf(" %8.3g", (double)s->amax);
    print_num(5, 1, s->range_bits);
    print_num(5, 1, s->range_bits_pct);
    print_num(6, 2, s->outlier_ratio);
    for (int f = 0; f < N_FORMATS; f++) {
        printf(" ");
        print_pct(6, 2, t->cast[f].saturated);
        print_pct(7, 3, t->cast[f].underflow);
        print_db(5, t->cast[f].sqnr_db);
    }
    printf("  %-4s", lab2_choice_name(t->pick));
    if (practice_of(t) >= 0)
        printf("  %s%s", lab2_choice_name((lab2_choice)practice_of(t)),
               differs_from_practice(t) ? " *" : "");
    printf("\n");
}

static const char *const ORIGIN_TITLES[] = {"synthetic (README §6)",
                                            "captured in lab3's training (README §7)",
                                            "your files"};

/* The sentence above the table: how many tensors of each origin, from
 * where, and the capture steps. */
static void print_intro(const tensor_set *set, const tensor_options *opt)
{
    size_t n_syn = 0, n_cap = 0;
    for (size_t i = 0; i < set->n; i++) {
        n_syn += set->t[i].origin == FROM_SYNTHETIC;
        n_cap += set->t[i].origin == FROM_CAPTURES;
    }
    char text[1024];
    if (opt->n_files > 0)
        snprintf(text, sizeof text, "lab2's format recommender on the %zu file%s named "
                 "(README §8).", set->n, set->n == 1 ? "" : "s");
    else
        snprintf(text, sizeof text,
                 "lab2's format recommender (README §8) on %zu tensors: %zu synthetic ones "
                 "from %s (README §6), and %zu that the GEMMs of lab3's %s saw, from %s "
                 "(README §7): per layer, its weight w (out x in), its input x (batch x in) "
                 "and its output's gradient dy (batch x out, times the loss scale).",
                 set->n, n_syn, opt->synthetic, n_cap,
                 strcmp(opt->captures, DEFAULT_CAPTURES) ? "training" : "FP32 training run",
                 opt->captures);
    print_wrapped(text, 0);
    printf("Each cast is under its own tensor scale, lab2_tensor_scale(amax):\n"
           "E4M3's fp8_max / amax = 448 / amax, E5M2's 57344 / amax.\n\n");
}

static void print_legend(bool any_practice)
{
    printf("\n  zeros: of all the elements; amax: the largest finite |x|. range: log2\n"
           "  of amax over the smallest nonzero |x| (all), and of the 99.9th over the\n"
           "  0.1th percentile of the nonzero |x| (99.9/0.1); outlier ratio: amax over\n"
           "  the 99.9th percentile. sat.: the finite elements the cast clamps to\n"
           "  fp8_max (none, when amax lands on it); underflow: the nonzero elements\n"
           "  it flushes to zero; SQNR = 10 log10(sum x^2 / sum (x - x')^2).\n"
           "  pick: lab2_recommend (README §5), E4M3 when its underflow is at most\n"
           "  %g%% and its SQNR at least %g dB, else E5M2 when that one's are, else\n"
           "  keep (BF16/FP32, or a scale per block: lab4).\n",
           100.0 * LAB2_MAX_UNDERFLOW, LAB2_MIN_SQNR_DB);
    if (any_practice)
        printf("  practice: what FP8 training uses (the HYBRID recipe): E4M3 for w and\n"
               "  x in the forward pass, E5M2 for dy in the backward; *: pick differs.\n");
}

static void print_table(const tensor_set *set, const tensor_options *opt)
{
    int nw = name_width(set);
    bool any_practice = false;
    print_intro(set, opt);
    print_header(nw);
    for (size_t i = 0; i < set->n; i++) {
        const tensor *t = &set->t[i];
        if (i == 0 || t->origin != set->t[i - 1].origin)
            printf("  %s:\n", ORIGIN_TITLES[t->origin]);
        print_row(t, nw);
        any_practice = any_practice || practice_of(t) >= 0;
    }
    print_legend(any_practice);
}

/* The NaN and infinite elements, by the demo's own count, when any. */
static void print_nonfinite(const tensor_set *set)
{
    bool any = false;
    for (size_t i = 0; i < set->n; i++) {
        const tensor *t = &set->t[i];
        if (t->nan == 0 && t->inf == 0)
            continue;
        if (!any)
            printf("\n  NaN and infinite elements (the demo's count; every statistic above\n"
                   "  leaves them out):\n");
        any = true;
        printf("    %s: %zu NaN, %zu inf\n", t->name, t->nan, t->inf);
    }
}

/* ---- notes: when lab2.c's numbers cannot be right ----------------------------------- */

/* Whether lab2_tensor_stats's counts or amax for t differ from the demo's;
 * if so, the first difference in words into buf (none when size is 0). */
static bool stats_differ(const tensor *t, char *buf, size_t size)
{
    const lab2_stats *s = &t->s;
    const struct {
        const char *field, *what;
        size_t got, want;
    } counts[] = {
        {"nonzero", "finite nonzero elements", s->nonzero, t->nonzero},
        {"zeros", "zeros", s->zeros, t->zeros},
        {"nan", "NaN elements", s->nan, t->nan},
        {"inf", "infinite elements", s->inf, t->inf},
        {"n", "elements", s->n, t->a.count},
    };
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
        if (counts[i].got != counts[i].want) {
            snprintf(buf, size, "%s = %zu for %s, which has %zu %s", counts[i].field,
                     counts[i].got, t->name, counts[i].want, counts[i].what);
            return true;
        }
    if (s->amax != t->amax) {
        snprintf(buf, size, "amax = %g for %s, whose largest |x| is %g", (double)s->amax,
                 t->name, (double)t->amax);
        return true;
    }
    return false;
}

/* Whether a cast of t cannot be right: an MSE of 0 makes the SQNR +inf, so
 * a finite SQNR with MSE 0 (the skeleton's zeros) is no cast at all. */
static bool cast_empty(const tensor *t)
{
    for (int f = 0; f < N_FORMATS; f++)
        if (t->nonzero > 0 && t->cast[f].mse == 0.0 && isfinite(t->cast[f].sqnr_db))
            return true;
    return false;
}

/* Whether lab2_tensor_scale maps t's amax (the demo's) to 1 where fp8_max /
 * amax is not 1: the skeleton's stub. */
static bool scale_stuck(const tensor *t)
{
    if (!(t->amax > 0.0f && isfinite(t->amax)))
        return false;
    for (int f = 0; f < N_FORMATS; f++)
        if (lab2_tensor_scale(t->amax, FORMATS[f]) == 1.0f &&
            fp8_info(FORMATS[f])->max_finite != t->amax)
            return true;
    return false;
}

/* One note: the first tensor where test holds, in words, and how many do. */
static bool note_first(const tensor_set *set, bool (*test)(const tensor *t), size_t *first,
                       size_t *count)
{
    *count = 0;
    for (size_t i = set->n; i-- > 0;)
        if (test(&set->t[i])) {
            *first = i;
            ++*count;
        }
    return *count > 0;
}

static bool stats_wrong(const tensor *t)
{
    return t->stats_rc != 0 || stats_differ(t, NULL, 0);
}

static bool reason_todo(const tensor *t)
{
    return !strncmp(t->why, "TODO", 4);
}

/* "all 23 tensors" or "5 of the 23 tensors", into buf. */
static const char *how_many(size_t k, size_t n, char *buf, size_t size)
{
    if (k == n)
        snprintf(buf, size, "all %zu tensors", n);
    else
        snprintf(buf, size, "%zu of the %zu tensors", k, n);
    return buf;
}

/* A note: a blank line, then text wrapped. */
static void print_note(const char *text)
{
    printf("\n");
    print_wrapped(text, 0);
}

static bool note_stats(const tensor_set *set, char *text, size_t size)
{
    size_t i, k;
    char what[256], count[64];
    if (!note_first(set, stats_wrong, &i, &k))
        return false;
    snprintf(what, sizeof what, "returned -1 (out of memory) for %s", set->t[i].name);
    if (set->t[i].stats_rc == 0)
        stats_differ(&set->t[i], what, sizeof what);
    snprintf(text, size,
             "Note: lab2_tensor_stats gave %s (%s disagree with the demo's own count): the "
             "functions return nothing yet (the skeleton's zeros), or wrong ones; README §2, §3.",
             what, how_many(k, set->n, count, sizeof count));
    return true;
}

static bool note_scale(const tensor_set *set, char *text, size_t size)
{
    size_t i, k;
    char count[64];
    if (!note_first(set, scale_stuck, &i, &k))
        return false;
    snprintf(text, size,
             "Note: lab2_tensor_scale gives 1 for the amax of %s, %g, not fp8_max / amax (%s): "
             "not written yet? README §4.",
             set->t[i].name, (double)set->t[i].amax, how_many(k, set->n, count, sizeof count));
    return true;
}

static bool note_casts(const tensor_set *set, char *text, size_t size)
{
    size_t i, k;
    char count[64];
    if (!note_first(set, cast_empty, &i, &k))
        return false;
    snprintf(text, size,
             "Note: lab2_cast_stats gave an MSE of 0 with a finite SQNR for %s (%s), which no "
             "cast can: not written yet? README §4.",
             set->t[i].name, how_many(k, set->n, count, sizeof count));
    return true;
}

static bool note_reasons(const tensor_set *set, char *text, size_t size)
{
    size_t i, k;
    char count[64];
    if (!note_first(set, reason_todo, &i, &k))
        return false;
    snprintf(text, size,
             "Note: lab2_recommend's reason is \"%s\" (%s): not written yet, so each pick is "
             "the skeleton's; README §5.",
             set->t[i].why, how_many(k, set->n, count, sizeof count));
    return true;
}

/* Says so when lab2.c returns nothing yet (the skeleton) or numbers that
 * cannot be right. Returns whether it said anything. */
static bool print_notes(const tensor_set *set)
{
    bool (*const notes[])(const tensor_set *set, char *text, size_t size) = {
        note_stats, note_scale, note_casts, note_reasons};
    char text[1024];
    bool any = false;
    for (size_t i = 0; i < sizeof notes / sizeof notes[0]; i++)
        if (notes[i](set, text, sizeof text)) {
            print_note(text);
            any = true;
        }
    if (any)
        printf("\nThe table shows what the functions return, as they are.\n");
    return any;
}

/* ---- the reasons ------------------------------------------------------------------ */

/* lab2_recommend's reason for each tensor whose pick is not practice's, or
 * that has no practice; "TODO" reasons (the skeleton's) only counted. */
static void print_reasons(const tensor_set *set)
{
    size_t same = 0, todo = 0;
    printf("\nWhy (lab2_recommend's reason), for each tensor with no practice to compare\n"
           "with or whose pick differs from it:\n\n");
    for (size_t i = 0; i < set->n; i++) {
        const tensor *t = &set->t[i];
        if (practice_of(t) >= 0 && !differs_from_practice(t)) {
            same++;
            continue;
        }
        if (reason_todo(t)) {
            todo++;
            continue;
        }
        printf("  %s: %s", t->name, lab2_choice_name(t->pick));
        if (differs_from_practice(t))
            printf(" (practice: %s)", lab2_choice_name((lab2_choice)practice_of(t)));
        printf("\n");
        print_wrapped(t->why[0] ? t->why : "(no reason given)", 4);
    }
    if (todo > 0)
        printf("  %zu tensor%s: no reason yet (\"TODO\", see the note above).\n", todo,
               todo == 1 ? "" : "s");
    if (same > 0)
        printf("\n  The other %zu tensor%s get%s practice's format.\n", same, same == 1 ? "" : "s",
               same == 1 ? "s" : "");
}

/* ---- the measurement behind the rule ------------------------------------------------ */

/* One layer at one step: its weight gradient dW = dy^T x with dy in FP32,
 * and with dy cast to each format and back. */
typedef struct measurement {
    const tensor *x, *dy;
    double rel_error[N_FORMATS]; /* ||dW' - dW|| / ||dW|| (Frobenius norms) */
    double off[N_FORMATS];       /* the share of dW's nonzero entries with
                                    |dW' - dW| > OFF_FRACTION |dW| */
} measurement;

/* dy's round trip through fmt under scale, as lab2_cast_stats does it:
 * out = decode(encode(dy * scale)) * scale_inv. */
static void round_trip(const float *dy, size_t n, fp8_format fmt, float scale, float *out)
{
    float scale_inv = 1.0f / scale;
    for (size_t i = 0; i < n; i++)
        out[i] = fp8_decode(fp8_encode(dy[i] * scale, fmt, true), fmt) * scale_inv;
}

/* dw[k][o][i] = sum over b of dy[k][b][o] x[b][i], for k = 0, 1, 2 (dy in
 * FP32 and its two round trips), in double: a product of two floats is
 * exact in it. One pass over x serves all three; dw[k] is zeroed first. */
static void weight_gradients(const float *x, const float *const dy[3], size_t batch,
                             size_t out, size_t in, double *const dw[3])
{
    for (int k = 0; k < 3; k++)
        memset(dw[k], 0, out * in * sizeof(double));
    for (size_t b = 0; b < batch; b++) {
        const float *xb = x + b * in;
        for (size_t o = 0; o < out; o++) {
            double d0 = dy[0][b * out + o], d1 = dy[1][b * out + o], d2 = dy[2][b * out + o];
            if (d0 == 0.0 && d1 == 0.0 && d2 == 0.0)
                continue; /* most of a ReLU layer's dy */
            double *w0 = dw[0] + o * in, *w1 = dw[1] + o * in, *w2 = dw[2] + o * in;
            for (size_t i = 0; i < in; i++) {
                double xi = xb[i];
                w0[i] += d0 * xi;
                w1[i] += d1 * xi;
                w2[i] += d2 * xi;
            }
        }
    }
}

/* got against ref (n entries): the relative Frobenius error, and the share
 * of ref's nonzero entries that got misses by more than OFF_FRACTION of
 * their size (a NaN misses). NaN where there is nothing to divide by. */
static void compare(const double *ref, const double *got, size_t n, double *rel_error,
                    double *off)
{
    double sum_ref = 0.0, sum_err = 0.0;
    size_t nonzero = 0, missed = 0;
    for (size_t i = 0; i < n; i++) {
        double e = got[i] - ref[i];
        sum_ref += ref[i] * ref[i];
        sum_err += e * e;
        if (ref[i] != 0.0) {
            nonzero++;
            missed += !(fabs(e) <= OFF_FRACTION * fabs(ref[i]));
        }
    }
    *rel_error = sum_ref > 0.0 ? sqrt(sum_err / sum_ref) : NAN;
    *off = nonzero > 0 ? (double)missed / (double)nonzero : NAN;
}

/* Fills m for its x (batch x in) and dy (batch x out), each dy cast under
 * the scale lab2_tensor_scale gave it. Returns 0, or -1 (message printed)
 * when out of memory. */
static int measure(measurement *m)
{
    const tensor *x = m->x, *dy = m->dy;
    size_t batch = dy->a.shape[0], out = dy->a.shape[1], in = x->a.shape[1];
    float *cast[N_FORMATS] = {malloc(batch * out * sizeof(float)),
                              malloc(batch * out * sizeof(float))};
    double *dw[3] = {malloc(out * in * sizeof(double)), malloc(out * in * sizeof(double)),
                     malloc(out * in * sizeof(double))};
    int rc = cast[0] && cast[1] && dw[0] && dw[1] && dw[2] ? 0 : -1;
    if (rc == 0) {
        for (int f = 0; f < N_FORMATS; f++)
            round_trip(dy->a.data, batch * out, FORMATS[f], dy->scale[f], cast[f]);
        const float *dys[3] = {dy->a.data, cast[0], cast[1]};
        weight_gradients(x->a.data, dys, batch, out, in, dw);
        for (int f = 0; f < N_FORMATS; f++)
            compare(dw[0], dw[1 + f], out * in, &m->rel_error[f], &m->off[f]);
    } else {
        fprintf(stderr, "lab2: out of memory for dW of %s\n", dy->name);
    }
    for (int k = 0; k < 3; k++)
        free(dw[k]);
    for (int f = 0; f < N_FORMATS; f++)
        free(cast[f]);
    return rc;
}

/* The x that goes with dy (same step and layer, batch x in with dy's
 * batch, neither empty), or NULL. */
static const tensor *input_of(const tensor_set *set, const tensor *dy)
{
    for (size_t i = 0; i < set->n; i++) {
        const tensor *x = &set->t[i];
        if (x->kind == KIND_X && x->step == dy->step && x->layer == dy->layer &&
            x->a.ndim == 2 && dy->a.ndim == 2 && x->a.shape[0] == dy->a.shape[0] &&
            x->a.count > 0 && dy->a.count > 0)
            return x;
    }
    return NULL;
}

static void print_measurement_header(void)
{
    printf("\nThe measurement behind the rule (README §5): each layer's weight gradient\n"
           "dW = dy^T x (out x in, summed over the batch), in double from FP32 dy and\n"
           "x, then with dy cast to E4M3 or to E5M2 and back, each under\n"
           "lab2_tensor_scale of dy's amax; x stays FP32.\n\n");
    printf("  %7s %6s %12s  %24s  %24s\n", "", "", "dy that E4M3", "-------- E4M3 dy -------",
           "-------- E5M2 dy -------");
    printf("  %7s %6s %12s  %11s %12s  %11s %12s\n", "step", "layer", "flushes (%)",
           "rel. error", "entries off", "rel. error", "entries off");
}

static void print_measurement(const measurement *m)
{
    printf("  %7lu %6d", m->dy->step, m->dy->layer);
    print_pct(12, 3, m->dy->cast[0].underflow);
    printf(" ");
    for (int f = 0; f < N_FORMATS; f++) {
        if (isnan(m->rel_error[f]))
            printf("  %11s", "n/a");
        else
            printf("  %11.3e", m->rel_error[f]);
        print_pct(12, 3, m->off[f]);
    }
    printf("\n");
}

/* What the rows say, in numbers. */
static void print_findings(const measurement *m, size_t n)
{
    size_t frob = 0, off = 0, low = 0, low_both = 0, worst = 0;
    for (size_t i = 0; i < n; i++) {
        double uf = m[i].dy->cast[0].underflow;
        frob += m[i].rel_error[0] < m[i].rel_error[1];
        off += m[i].off[0] > m[i].off[1];
        if (uf <= LAB2_MAX_UNDERFLOW) {
            low++;
            low_both += m[i].rel_error[0] < m[i].rel_error[1] && m[i].off[0] <= m[i].off[1];
        }
        if (uf > m[worst].dy->cast[0].underflow)
            worst = i;
    }
    const measurement *w = &m[worst];
    char text[1024], more[256] = "";
    if (low > 0)
        snprintf(more, sizeof more,
                 " Where E4M3 flushes at most %g%% (the rule's threshold), it is the better "
                 "by both measures in %zu of %zu.",
                 100.0 * LAB2_MAX_UNDERFLOW, low_both, low);
    snprintf(text, sizeof text,
             "E4M3's Frobenius error is the smaller in %zu of the %zu, as its SQNR predicts; "
             "its share of entries off is the larger in %zu. Where E4M3 flushes the most of "
             "dy (step %lu, layer %d: %.1f%%), %.3f%% of dW's entries are off with E4M3, "
             "%.3f%% with E5M2.%s",
             frob, n, off, w->dy->step, w->dy->layer, 100.0 * w->dy->cast[0].underflow,
             100.0 * w->off[0], 100.0 * w->off[1], more);
    print_wrapped(text, 2);
}

/* The rows' legend, what they say (unless the notes said lab2.c's numbers
 * cannot be right: the rows then use its scales and underflow as they
 * are), and why. */
static void print_lesson(const measurement *m, size_t n, bool trusted)
{
    printf("\n  rel. error: ||dW' - dW|| / ||dW||, Frobenius norms; entries off: the\n"
           "  nonzero entries of dW with |dW' - dW| > |dW| / 2, in %%.\n\n");
    if (trusted)
        print_findings(m, n);
    else
        printf("  These rows use lab2.c's scales and underflow as they are, which the\n"
               "  notes above say are not right yet. What they show once they are:\n");
    printf("\n  The norm is carried by dW's large entries, where E4M3's extra mantissa\n"
           "  bit halves the rounding error. A small entry is a sum over the batch of\n"
           "  small dy's; where E4M3 flushes those to zero, the entry loses much of\n"
           "  itself, or all. SQNR and the Frobenius norm weigh errors by magnitude\n"
           "  and hardly see it; underflow does, which is why the rule looks at it.\n");
}

/* Measures and prints every layer and step that has both its dy and its x.
 * trusted: no note said lab2.c's numbers cannot be right. Returns 0, or
 * -1 when out of memory. */
static int print_measurements(const tensor_set *set, bool trusted)
{
    measurement *m = calloc(set->n, sizeof *m);
    size_t n = 0;
    if (!m) {
        fprintf(stderr, "lab2: out of memory\n");
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; i < set->n && rc == 0; i++) {
        const tensor *dy = &set->t[i], *x = dy->kind == KIND_DY ? input_of(set, dy) : NULL;
        if (!x)
            continue;
        m[n] = (measurement){.x = x, .dy = dy};
        rc = measure(&m[n++]);
    }
    if (rc == 0 && n > 0) {
        print_measurement_header();
        for (size_t i = 0; i < n; i++)
            print_measurement(&m[i]);
        print_lesson(m, n, trusted);
    }
    free(m);
    return rc;
}

/* ---- the histograms ----------------------------------------------------------------- */

#define MIN_BIN (-150 * BINS_PER_BIT) /* log2 of the smallest float subnormal: -149 */
#define MAX_BIN (128 * BINS_PER_BIT)  /* ... of the largest float: below 128 */
#define N_BINS (MAX_BIN - MIN_BIN)

/* The histogram of log2|x| over t's finite nonzero elements, as a
 * staircase: each bin's count from its left edge to its right one, an empty
 * bin a gap, from *lo_x to *hi_x; *most is the largest count. A tensor
 * with none gets one point that is not drawn, and leaves them. */
static int add_histogram(plot *p, const tensor *t, double *lo_x, double *hi_x,
                         size_t *most, lab_error *err)
{
    size_t count[N_BINS] = {0};
    int lo = N_BINS, hi = -1;
    const float *v = t->a.data;
    for (size_t i = 0; i < t->a.count; i++) {
        if (!isfinite(v[i]) || v[i] == 0.0f)
            continue;
        int b = (int)floor(log2(fabs((double)v[i])) * BINS_PER_BIT) - MIN_BIN;
        b = b < 0 ? 0 : b >= N_BINS ? N_BINS - 1 : b;
        count[b]++;
        *most = count[b] > *most ? count[b] : *most;
        lo = b < lo ? b : lo;
        hi = b > hi ? b : hi;
    }
    if (hi < 0) {
        double x0 = 0.0, y0 = NAN;
        return plot_add_series(p, NULL, &x0, &y0, 1, err);
    }
    *lo_x = (double)(lo + MIN_BIN) / BINS_PER_BIT;
    *hi_x = (double)(hi + 1 + MIN_BIN) / BINS_PER_BIT;
    size_t n = 2 * (size_t)(hi - lo + 1), k = 0;
    double *x = malloc(n * sizeof(double)), *y = malloc(n * sizeof(double));
    int rc = x && y ? 0 : lab_errorf(err, "lab2: out of memory for %s's histogram", t->name);
    for (int b = lo; b <= hi && rc == 0; b++) {
        double left = (double)(b + MIN_BIN) / BINS_PER_BIT;
        double c = count[b] > 0 ? (double)count[b] : NAN;
        x[k] = left;
        y[k++] = c;
        x[k] = left + 1.0 / BINS_PER_BIT;
        y[k++] = c;
    }
    if (rc == 0)
        rc = plot_add_series(p, NULL, x, y, n, err);
    if (rc == 0) /* a staircase: markers at its corners would say nothing */
        rc = plot_set_marks(p, PLOT_MARKS_NONE, err);
    free(x);
    free(y);
    return rc;
}

/* The vertical lines: where each format's smallest subnormal and smallest
 * normal land under t's scale s (log2(2^-9 / s) and log2(2^-6 / s) for
 * E4M3), labelled together at the first (two bits apart, two labels would
 * overlap), and its max (log2(448 / s)): one line for both formats when
 * they land together, at amax. Then, solid and red, where elements flush
 * (README §1, §4): x * s rounds to 0 at or below half the smallest
 * subnormal, so every bin left of log2(2^-10 / s) (E4M3) is lost. Widens
 * *lo and *hi to hold them. */
static int add_range_lines(plot *p, const tensor *t, double *lo, double *hi, lab_error *err)
{
    double at[N_FORMATS][3]; /* smallest subnormal, smallest normal, max */
    bool ok[N_FORMATS];
    char label[64];
    for (int f = 0; f < N_FORMATS; f++) {
        const fp8_format_info *info = fp8_info(FORMATS[f]);
        double s = t->scale[f];
        ok[f] = isfinite(s) && s > 0.0;
        if (!ok[f])
            continue; /* no range to draw */
        at[f][0] = log2(info->min_subnormal / s);
        at[f][1] = log2(info->min_normal / s);
        at[f][2] = log2(info->max_finite / s);
        double flush = at[f][0] - 1.0; /* log2(min_subnormal / 2 / s) */
        *lo = fmin(*lo, flush);
        *hi = fmax(*hi, at[f][2]);
        snprintf(label, sizeof label, "%s 2^%d/s, 2^%d/s", FORMAT_NAMES[f],
                 info->emin - info->man_bits, info->emin);
        if (plot_add_vline(p, at[f][0], label, err) != 0 ||
            plot_add_vline(p, at[f][1], NULL, err) != 0)
            return -1;
        snprintf(label, sizeof label, "%s flush: |x| <= 2^%d/s", FORMAT_NAMES[f],
                 info->emin - info->man_bits - 1);
        if (plot_add_vline(p, flush, label, err) != 0 || plot_emphasize_line(p, err) != 0)
            return -1;
    }
    if (ok[0] && ok[1] && fabs(at[0][2] - at[1][2]) < 0.01)
        return plot_add_vline(p, at[0][2], "amax = 448/s = 57344/s", err);
    for (int f = 0; f < N_FORMATS; f++) {
        snprintf(label, sizeof label, "%s %g/s", FORMAT_NAMES[f],
                 (double)fp8_info(FORMATS[f])->max_finite);
        if (ok[f] && plot_add_vline(p, at[f][2], label, err) != 0)
            return -1;
    }
    return 0;
}

/* The x range: the data and the lines, with room on the right for the last
 * line's label. The y range: counts of 1 above the bottom (a log axis that
 * ends at 1 hides them), and a decade above the largest for the labels. */
static int set_ranges(plot *p, double lo, double hi, size_t most, lab_error *err)
{
    if (!(lo < hi) || most == 0)
        return 0; /* nothing drawn: gnuplot's default ranges */
    if (plot_set_xrange(p, floor(lo - 1.0), ceil(hi + 1.0 + 0.2 * (hi - lo)), err) != 0)
        return -1;
    return plot_set_yrange(p, 0.5, 10.0 * (double)most, err);
}

/* Renders p without a preview or a line of its own (demo_render's job for
 * the previewed ones). Returns as demo_render does. */
static int render_quiet(demo_options *o, plot *p, lab_error *err)
{
    if (!p) {
        fprintf(stderr, "lab2: %s\n", err->msg);
        return -1;
    }
    plot_options po = {.width = PLOT_WIDTH};
    int rc = plot_render(p, &po, err);
    plot_free(p);
    if (rc == PLOT_NO_GNUPLOT)
        o->no_gnuplot = true;
    else if (rc != 0)
        fprintf(stderr, "lab2: %s\n", err->msg);
    return rc;
}

/* Makes t's histogram and renders it as DIR/hist_<name>.png, and on the
 * terminal as plot number when t->preview. Returns 0, PLOT_NO_GNUPLOT, or
 * -1 (message printed). */
static int draw_histogram(const tensor *t, int number, demo_options *o)
{
    char stem[DEMO_STEM_SIZE], title[256];
    if (demo_stem(o, t->plot, stem, sizeof stem) != 0)
        return -1;
    snprintf(title, sizeof title,
             "%s: log2|x| of its %zu finite nonzero elements; E4M3's and E5M2's "
             "ranges under their scales s", t->name, t->nonzero);
    lab_error err = {{0}};
    plot *p = plot_new(stem, title, "log2 |x| (bins of half a bit)",
                       "elements per bin (log scale)", &err);
    double lo = INFINITY, hi = -INFINITY;
    size_t most = 0;
    if (p) {
        plot_set_log_y(p, true);
        /* no lines without data: nothing to hold, and no amax to scale */
        if (add_histogram(p, t, &lo, &hi, &most, &err) != 0 ||
            (most > 0 && (add_range_lines(p, t, &lo, &hi, &err) != 0 ||
                          set_ranges(p, lo, hi, most, &err) != 0))) {
            plot_free(p);
            p = NULL; /* err says why */
        }
    }
    if (!t->preview)
        return render_quiet(o, p, &err);
    if (p)
        printf("Plot %d, %s:\n", number, title);
    return demo_render(o, p, stem, PLOT_WIDTH, &err);
}

static int cmp_step(const void *a, const void *b)
{
    unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;
    return (x > y) - (x < y);
}

/* The histograms drawn on the terminal: a weight, an activation and a
 * gradient (the first of each at the middle one of the capture steps)
 * when there are captures; otherwise the first N_PREVIEW tensors. */
static void choose_previews(tensor_set *set)
{
    unsigned long *steps = malloc((set->n ? set->n : 1) * sizeof *steps);
    size_t n_steps = 0, n_previews = 0;
    for (size_t i = 0; i < set->n && steps; i++)
        if (set->t[i].kind != KIND_NONE)
            steps[n_steps++] = set->t[i].step;
    if (n_steps > 0) {
        qsort(steps, n_steps, sizeof *steps, cmp_step);
        size_t distinct = 1;
        for (size_t i = 1; i < n_steps; i++)
            if (steps[i] != steps[distinct - 1])
                steps[distinct++] = steps[i];
        unsigned long middle = steps[distinct / 2];
        for (int k = 0; k < N_KINDS; k++)
            for (size_t i = 0; i < set->n; i++) {
                tensor *t = &set->t[i];
                if ((int)t->kind == k && t->step == middle) {
                    t->preview = true;
                    n_previews++;
                    break;
                }
            }
    }
    free(steps);
    for (size_t i = 0; i < set->n && n_previews == 0 && i < N_PREVIEW; i++)
        set->t[i].preview = true;
}

/* The other histograms' file names, wrapped. */
static void print_quiet_names(const tensor_set *set, const demo_options *o)
{
    size_t size = 1, len = 0, n = 0;
    for (size_t i = 0; i < set->n; i++)
        size += strlen(set->t[i].plot) + 6;
    char *text = malloc(size);
    if (!text)
        return; /* a list is not worth failing for */
    text[0] = '\0';
    for (size_t i = 0; i < set->n; i++)
        if (!set->t[i].preview) {
            lab_appendf(text, size, &len, "%s%s.png", n ? ", " : "", set->t[i].plot);
            n++;
        }
    if (n > 0) {
        printf("The other %zu histograms, written to %s without a preview:\n", n, o->dir);
        print_wrapped(text, 2);
    }
    free(text);
}

static int draw_histograms(tensor_set *set, demo_options *o)
{
    choose_previews(set);
    printf("\nHistograms (README §8): log2|x| of each tensor's finite nonzero elements,\n"
           "with where each format's range lands under its scale s: its max (448/s,\n"
           "57344/s: amax, for both), its smallest normal (2^-6/s, 2^-14/s) and its\n"
           "smallest subnormal (2^-9/s, 2^-16/s). Below half the smallest subnormal\n"
           "an element flushes to zero; between it and the smallest normal it keeps\n"
           "fewer mantissa bits.\n\n");
    int number = 0;
    for (size_t i = 0; i < set->n; i++)
        if (set->t[i].preview && draw_histogram(&set->t[i], ++number, o) == -1)
            return -1;
    for (size_t i = 0; i < set->n; i++)
        if (!set->t[i].preview && draw_histogram(&set->t[i], 0, o) == -1)
            return -1;
    if (!o->no_gnuplot)
        print_quiet_names(set, o);
    return 0;
}

/* ---- main --------------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    tensor_options opt;
    char **rest = malloc(((size_t)argc + 1) * sizeof *rest);
    opt.files = malloc(((size_t)argc + 1) * sizeof *opt.files);
    if (!rest || !opt.files) {
        fprintf(stderr, "lab2: out of memory\n");
        free(rest);
        free(opt.files);
        return 1;
    }
    int n_rest = 0;
    int rc = take_tensor_args(argc, argv, &opt, rest, &n_rest);
    demo_options o;
    if (rc == 0)
        rc = demo_parse_args(n_rest, rest, "lab2", ABOUT, DEFAULT_DIR, &o);
    free(rest);
    if (rc != 0) {
        free(opt.files);
        return rc == 1 ? 0 : 2; /* 1: after --help */
    }

    tensor_set set;
    if (load_set(&opt, &set) != 0) {
        free(opt.files);
        return 1;
    }
    for (size_t i = 0; i < set.n; i++)
        analyse(&set.t[i]);
    print_table(&set, &opt);
    print_nonfinite(&set);
    bool noted = print_notes(&set);
    print_reasons(&set);
    rc = print_measurements(&set, !noted);
    if (rc == 0)
        rc = draw_histograms(&set, &o);
    demo_note_no_gnuplot(&o); /* when gnuplot was missing */
    set_free(&set);
    free(opt.files);
    return rc == 0 ? 0 : 1;
}
