/*
 * demo.c - the labs' demos' command line and plot drawing (see demo.h).
 *
 * Not for: anything a single lab's demo prints or plots; a lab's own
 * numbers, tables and plot contents stay in its main.c.
 */
#include "demo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PLOT_HEIGHT 600   /* pixels */
#define PREVIEW_COLS 110  /* characters */
#define PREVIEW_ROWS 32

static void usage(FILE *out, const char *prog, const char *about, const char *default_dir)
{
    fprintf(out,
        "usage: %s [-o DIR] [--no-preview]\n"
        "\n"
        "%s\n"
        "\n"
        "  -o, --output DIR  write the plots (PNG, gnuplot script, data) to DIR,\n"
        "                    created if missing (default %s)\n"
        "  --no-preview      do not draw the plots as text on the terminal\n"
        "  -h, --help        this help\n"
        "\n"
        "exit status: 0 on success (also when gnuplot is missing), 1 when a plot\n"
        "could not be written, 2 on a usage error\n",
        prog, about, default_dir);
}

int demo_parse_args(int argc, char **argv, const char *prog, const char *about,
                    const char *default_dir, demo_options *o)
{
    o->prog = prog;
    o->dir = default_dir;
    o->preview = true;
    o->no_gnuplot = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout, prog, about, default_dir);
            return 1;
        } else if (!strcmp(a, "--no-preview")) {
            o->preview = false;
        } else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
            if (i + 1 >= argc || argv[i + 1][0] == '\0') {
                fprintf(stderr, "%s: %s needs a folder name, e.g. %s %s\n",
                        prog, a, a, default_dir);
                return 2;
            }
            o->dir = argv[++i];
        } else {
            fprintf(stderr, "%s: %s '%s' (try %s --help)\n", prog,
                    a[0] == '-' ? "unknown option" : "unexpected argument", a, prog);
            return 2;
        }
    }
    return 0;
}

int demo_stem(const demo_options *o, const char *name, char *stem, size_t size)
{
    size_t n = strlen(o->dir);
    const char *sep = n == 0 || o->dir[n - 1] == '/' ? "" : "/";
    int len = snprintf(stem, size, "%s%s%s", o->dir, sep, name);
    if (len < 0 || (size_t)len >= size) {
        fprintf(stderr, "%s: output folder name too long: %s\n", o->prog, o->dir);
        return -1;
    }
    return 0;
}

/* Whether the preview on stdout may be coloured: stdout is a terminal,
 * $NO_COLOR is unset or empty (no-color.org), and $TERM is not "dumb". */
static bool color_terminal(void)
{
    const char *no_color = getenv("NO_COLOR"), *term = getenv("TERM");
    return isatty(STDOUT_FILENO) && !(no_color && *no_color) &&
           !(term && strcmp(term, "dumb") == 0);
}

int demo_render(demo_options *o, plot *p, const char *stem, int width, lab_error *err)
{
    if (!p) {
        fprintf(stderr, "%s: %s\n", o->prog, err->msg);
        return -1;
    }
    plot_options po = {0};
    po.width = width;
    po.height = PLOT_HEIGHT;
    po.preview = o->preview ? stdout : NULL;
    po.preview_cols = PREVIEW_COLS;
    po.preview_rows = PREVIEW_ROWS;
    po.preview_color = o->preview && color_terminal();
    fflush(stdout); /* the preview comes after what is printed so far */
    int rc = plot_render(p, &po, err);
    plot_free(p);
    if (rc == 0)
        printf("  wrote %s.png (and %s.gp, its gnuplot script)\n\n", stem, stem);
    else if (rc == PLOT_NO_GNUPLOT)
        o->no_gnuplot = true;
    else
        fprintf(stderr, "%s: %s\n", o->prog, err->msg);
    return rc;
}

void demo_note_no_gnuplot(const demo_options *o)
{
    if (!o->no_gnuplot)
        return;
    printf("\ngnuplot is missing (not found on $PATH), so no plots were drawn;\n"
           "their data and gnuplot scripts are in %s. Install it with\n"
           "`make deps` (or `sudo apt-get install gnuplot-nox`) and run this again.\n",
           o->dir);
}
