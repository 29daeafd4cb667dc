/*
 * batch_groups.c - --groups FILE: a group submits once, and every member
 * gets the group's row.
 *
 * FILE is a CSV file with a header row naming its columns: the group is
 * the column "group" or "group_name", the student the column "id",
 * "student", "canvas_user_id", "login_id" or "user_id" (where there are
 * several, the one whose values match the most submissions). That reads a
 * plain list (id,group) and Canvas's export of a group set (name,
 * canvas_user_id, [user_id,] login_id, sections, group_name, ...;
 * GroupCategoriesController#export_headers and #build_row,
 * app/controllers/group_categories_controller.rb), whose canvas_user_id is
 * the id a Canvas download gives; two groups of one name (Canvas allows it)
 * are told apart by its canvas_group_id, each named "G (group N)". A row
 * with an empty group is a student in none.
 *
 * Where exactly one member of a group submitted, each member without a
 * submission of their own gets that submission's score, points and status,
 * a scorecard that says so (<id>.txt, the groupmate's under a first line
 * naming the group), and the gradebook's group column; the summary lists
 * them. Where several members submitted, each is graded on their own, and
 * the summary says so; where none did, every member is "missing". A shard
 * adds no rows (its merge does, as with --roster).
 */
#define _GNU_SOURCE
#include "batch_state.h"

typedef struct group_entry {
    char *id, *key, *group;
    int line;
} group_entry;

static const char *const id_columns[] = {"id", "student", "canvas_user_id", "login_id",
                                         "user_id", NULL};

static void free_entries(group_entry *g, int n)
{
    for (int i = 0; i < n; i++)
        free(g[i].id), free(g[i].key), free(g[i].group);
    free(g);
}

/* The rows of the text, each a malloc'd array of cells; *nrows, and each
 * row's cell count in (*ncells)[r] and line in (*lines)[r]. */
static char ***read_rows(const char *text, int *nrows, int **ncells, int **lines)
{
    char ***rows = NULL;
    int n = 0, cap = 0, line = 1;
    const char *p = text;
    *ncells = NULL;
    *lines = NULL;
    while (*p) {
        int row = line, end = 0, m = 0, mcap = 0;
        char **cells = NULL;
        while (!end) {
            cells = grow(cells, m, &mcap, sizeof *cells);
            cells[m++] = csv_cell(&p, &end, &line);
        }
        int c = cap;
        rows = grow(rows, n, &c, sizeof *rows);
        c = cap;
        *ncells = grow(*ncells, n, &c, sizeof **ncells);
        c = cap;
        *lines = grow(*lines, n, &c, sizeof **lines);
        cap = c;
        rows[n] = cells;
        (*ncells)[n] = m;
        (*lines)[n++] = row;
    }
    *nrows = n;
    return rows;
}

static int column_named(char **cells, int n, const char *name)
{
    for (int i = 0; i < n; i++) {
        char *c = cells[i];
        while (*c == ' ')
            c++;
        size_t len = strlen(c);
        while (len > 0 && c[len - 1] == ' ')
            len--;
        if (len == strlen(name) && strncasecmp(c, name, len) == 0)
            return i;
    }
    return -1;
}

/* Reads FILE into *out; returns the entries, or -1 with err naming the file
 * (and line) and what is wrong. */
static int read_groups(const batch *b, const char *path, group_entry **out, lab_error *err)
{
    char *text = read_csv_file("--groups", path, err);
    if (!text)
        return -1;
    int nrows, *ncells, *lines, rc = 0, n = 0, cap = 0;
    char ***rows = read_rows(text, &nrows, &ncells, &lines);
    free(text);
    group_entry *g = NULL;
    int gcol = nrows > 0 ? column_named(rows[0], ncells[0], "group") : -1;
    if (gcol < 0 && nrows > 0)
        gcol = column_named(rows[0], ncells[0], "group_name");
    /* Canvas's group names need not be unique (Group validates only that a
     * name is there and not too long): its export's canvas_group_id tells
     * two groups of one name apart. */
    int idcol = nrows > 0 ? column_named(rows[0], ncells[0], "canvas_group_id") : -1;
    /* The id column: of those the header names, the one whose values are
     * the most submissions' ids. */
    int icol = -1, best = -1;
    for (int k = 0; nrows > 0 && id_columns[k]; k++) {
        int c = column_named(rows[0], ncells[0], id_columns[k]), hits = 0;
        for (int r = 1; c >= 0 && r < nrows; r++) {
            char *why = c < ncells[r] ? id_refusal(rows[r][c]) : NULL;
            if (c >= ncells[r] || why) {
                free(why);
                continue;
            }
            char *key = id_key(rows[r][c]);
            for (int s = 0; s < b->nsubs; s++)
                hits += b->subs[s].key && strcmp(b->subs[s].key, key) == 0;
            free(key);
        }
        if (c >= 0 && hits > best)
            icol = c, best = hits;
    }
    if (gcol < 0 || icol < 0)
        rc = lab_errorf(err, "--groups %s: its first row names no %s column (a plain list "
                             "has the header id,group; Canvas's export of a group set has "
                             "canvas_user_id and group_name)", path, gcol < 0 ? "group" : "id");
    for (int r = 1; rc == 0 && r < nrows; r++) {
        const char *id = icol < ncells[r] ? rows[r][icol] : "";
        const char *group = gcol < ncells[r] ? rows[r][gcol] : "";
        if (!*id && ncells[r] == 1)
            continue; /* an empty line */
        char *why = id_refusal(id);
        if (why) {
            char *shown = gr_clean_line(id);
            rc = lab_errorf(err, "--groups %s:%d: the id '%s': %s", path, lines[r], shown, why);
            free(shown);
            free(why);
            break;
        }
        if (!*group)
            continue; /* in no group */
        const char *gid = idcol >= 0 && idcol < ncells[r] ? rows[r][idcol] : "";
        char *label = gr_asprintf("%s", group);
        /* Another group of this name: each named with its id too. */
        for (int q = 1; *gid && q < nrows; q++) {
            const char *og = gcol < ncells[q] ? rows[q][gcol] : "";
            const char *oid = idcol < ncells[q] ? rows[q][idcol] : "";
            if (strcmp(og, group) == 0 && *oid && strcmp(oid, gid) != 0) {
                free(label);
                label = gr_asprintf("%s (group %s)", group, gid);
                break;
            }
        }
        g = grow(g, n, &cap, sizeof *g);
        g[n] = (group_entry){gr_asprintf("%s", id), id_key(id), label, lines[r]};
        for (int k = 0; k < n && rc == 0; k++)
            if (strcmp(g[k].key, g[n].key) == 0)
                rc = lab_errorf(err, "--groups %s:%d: the same student as line %d, once case "
                                     "and Unicode normalisation are set aside: one group each",
                                path, lines[r], g[k].line);
        n++;
    }
    for (int r = 0; r < nrows; r++) {
        for (int c = 0; c < ncells[r]; c++)
            free(rows[r][c]);
        free(rows[r]);
    }
    free(rows);
    free(ncells);
    free(lines);
    if (rc != 0) {
        free_entries(g, n);
        return -1;
    }
    *out = g;
    return n;
}

static submission *find_sub(batch *b, const char *key)
{
    for (int k = 0; k < b->nsubs; k++)
        if (b->subs[k].key && strcmp(b->subs[k].key, key) == 0)
            return &b->subs[k];
    return NULL;
}

static int by_sub_id(const void *x, const void *y)
{
    return strcmp(((const submission *)x)->id, ((const submission *)y)->id);
}

int apply_groups(batch *b, lab_error *err)
{
    if (!b->o->groups)
        return 0;
    group_entry *g = NULL;
    int n = read_groups(b, b->o->groups, &g, err);
    if (n < 0)
        return -1;
    /* Every member gets a row, "missing" until filled (not in a shard: its
     * merge adds them). */
    int cap = b->nsubs;
    for (int i = 0; i < n && b->o->shard_n == 0; i++) {
        if (find_sub(b, g[i].key))
            continue;
        submission *s = add_missing(b, g[i].id, g[i].key, &cap);
        s->on_roster = !b->o->roster;
    }
    for (int i = 0; i < n; i++) {
        submission *s = find_sub(b, g[i].key);
        if (!s)
            continue;
        free(s->group);
        s->group = gr_asprintf("%s", g[i].group);
    }
    /* A member with no submission of their own is scored on the group's
     * one submission. */
    for (int i = 0; i < n; i++) {
        submission *s = find_sub(b, g[i].key);
        if (!s || s->status != SUB_MISSING)
            continue;
        const char *from = NULL;
        int submitted = 0;
        for (int k = 0; k < n; k++) {
            submission *t = find_sub(b, g[k].key);
            if (t && t->status != SUB_MISSING && strcmp(g[k].group, g[i].group) == 0) {
                submitted++;
                from = t->id;
            }
        }
        if (submitted == 1)
            s->group_of = gr_asprintf("%s", from);
    }
    /* A group where more than one member submitted: each is graded on
     * their own, and the summary lists them. */
    for (int i = 0; i < n; i++) {
        submission *s = find_sub(b, g[i].key);
        int own = 0;
        for (int k = 0; s && s->status != SUB_MISSING && k < n; k++) {
            submission *t = find_sub(b, g[k].key);
            own += t && t->status != SUB_MISSING && strcmp(g[k].group, g[i].group) == 0;
        }
        if (s)
            s->group_several = own > 1;
    }
    free_entries(g, n);
    if (b->nsubs > 1)
        qsort(b->subs, (size_t)b->nsubs, sizeof *b->subs, by_sub_id);
    return 0;
}

/* s's scorecard: the groupmate's, under a line naming the group. */
static void write_member_card(const batch *b, const submission *s)
{
    char *from = gr_asprintf("%s/%s.txt", b->json_dir, s->group_of);
    char *to = gr_asprintf("%s/%s.txt", b->json_dir, s->id);
    FILE *in = fopen(from, "rb");
    atomic_file af;
    lab_error err;
    if (in && atomic_file_open(&af, to, &err) == 0) {
        char *group = gr_clean_line(s->group), *mate = gr_clean_line(s->group_of);
        fprintf(af.f, "Group %s: scored on %s's submission, the group's.\n\n", group, mate);
        free(group);
        free(mate);
        char buf[8192];
        size_t got;
        while ((got = fread(buf, 1, sizeof buf, in)) > 0)
            fwrite(buf, 1, got, af.f);
        if (atomic_file_commit(&af, &err) != 0)
            fprintf(stderr, "grader: %s\n", err.msg);
    }
    if (in)
        fclose(in);
    free(from);
    free(to);
}

void fill_groups(batch *b)
{
    for (int k = 0; k < b->nsubs; k++) {
        submission *s = &b->subs[k];
        if (!s->group_of || s->status != SUB_MISSING)
            continue;
        const submission *t = NULL;
        for (int j = 0; j < b->nsubs && !t; j++)
            if (strcmp(b->subs[j].id, s->group_of) == 0)
                t = &b->subs[j];
        if (!t || t->status == SUB_MISSING || t->unmerged)
            continue;
        s->status = t->status;
        s->score = t->score;
        s->max_score = t->max_score;
        memcpy(s->points, t->points, (size_t)b->lab->ntests * sizeof *s->points);
        memcpy(s->passed, t->passed, (size_t)b->lab->ntests * sizeof *s->passed);
        s->skipped = t->skipped;
        s->reweighted = t->reweighted;
        s->hidden = t->hidden;
        s->late = t->late;
        s->late_points = t->late_points;
        free(s->error);
        s->error = t->error ? gr_asprintf("%s", t->error) : NULL;
        write_member_card(b, s);
    }
}
