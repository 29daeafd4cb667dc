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
 * with an empty group is a student in none. Moodle's grading worksheet of a
 * team assignment (Identifier "Participant 123456", Group) gives the
 * participants' numbers; its groups overview (group/overview.php: Grouping,
 * Group, First name, Last name, the identity fields) names students, each
 * found in the assignment's worksheet (--lms-worksheet) by email address,
 * else by full name.
 *
 * A Moodle team assignment's download holds the groups' submissions
 * ("group-<id>", lms_import.c): each joins the group its name is, and its
 * members are given it as a member is a groupmate's below.
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
    char *name;        /* the student's name where the file gives one, or NULL */
    int line;
} group_entry;

static const char *const id_columns[] = {"id", "student", "canvas_user_id", "login_id",
                                         "user_id", NULL};

static void free_entries(group_entry *g, int n)
{
    for (int i = 0; i < n; i++)
        free(g[i].id), free(g[i].key), free(g[i].group), free(g[i].name);
    free(g);
}

/* The id a cell gives: itself, or, in Moodle's Identifier column, the
 * number it ends with ("Participant 123456": the site's word, in its
 * language, then the number, as importgradeslib.php reads it); "" when it
 * has none. */
static char *id_in(const char *cell, int identifier)
{
    if (!identifier)
        return gr_asprintf("%s", cell);
    size_t n = strlen(cell), d = n;
    while (d > 0 && cell[d - 1] >= '0' && cell[d - 1] <= '9')
        d--;
    return gr_asprintf("%s", cell + d);
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

static int column_named(char **cells, int n, const char *name);

/* Moodle's grading worksheet's Group column, which it has only for a team
 * assignment: right after Status (gradingtable.php: 'status', then 'team',
 * get_string('submissionteam') = "Group"; the identity fields come before
 * Status, and one of them may be called Group too); -1 when none. */
static int team_column(char **cells, int n)
{
    int status = column_named(cells, n, "status");
    if (status < 0 || status + 1 >= n)
        return -1;
    return column_named(cells + status + 1, 1, "group") == 0 ? status + 1 : -1;
}

static void free_rows(char ***rows, int nrows, int *ncells, int *lines)
{
    for (int r = 0; r < nrows; r++) {
        for (int c = 0; c < ncells[r]; c++)
            free(rows[r][c]);
        free(rows[r]);
    }
    free(rows);
    free(ncells);
    free(lines);
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

/* Moodle's grading worksheet's participants, for reading its groups
 * overview, which names students, not participants: each row's number,
 * full name and email address ("" where the worksheet has no such column). */
typedef struct participants {
    char ***rows;
    int nrows, *ncells, *lines;
    int id, name, email;
} participants;

static const char *ws_at(const participants *w, int r, int c)
{
    return c >= 0 && c < w->ncells[r] ? w->rows[r][c] : "";
}

/* The participant of the overview's row: matched by email address where
 * both files have it, else by "First Last" as the worksheet's Full name
 * (fullname(), English order). Returns the number (malloc'd), or NULL with
 * *why saying none or which several. */
static char *participant_of(const participants *w, const char *first, const char *last,
                            const char *email, char **why)
{
    char *full = gr_asprintf("%s %s", first, last), *found = NULL, *others = NULL;
    int by_email = *email && w->email >= 0, n = 0;
    for (int r = 1; r < w->nrows; r++) {
        int same = by_email ? strcasecmp(ws_at(w, r, w->email), email) == 0
                            : strcmp(ws_at(w, r, w->name), full) == 0;
        if (!same)
            continue;
        char *num = id_in(ws_at(w, r, w->id), 1);
        char *o = gr_asprintf("%s%s%s", others ? others : "", others ? ", " : "", num);
        free(others);
        others = o;
        if (n++ == 0)
            found = num;
        else
            free(num);
    }
    *why = NULL;
    if (n == 0)
        *why = gr_asprintf("no participant of the worksheet has %s %s", by_email ? "the email "
                           "address" : "the full name", by_email ? email : full);
    else if (n > 1)
        *why = gr_asprintf("%s is participants %s of the worksheet: which? (the site's email "
                           "address in both files tells them apart)", full, others);
    free(full);
    free(others);
    if (n != 1) {
        free(found);
        return NULL;
    }
    return found;
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
    int icol = -1, best = -1, identifier = 0;
    /* Moodle's grading worksheet: the Identifier is the id, whatever other
     * columns the site's identity fields add, and the Group is the column
     * right after Status (team_column). */
    int wcol = nrows > 0 ? column_named(rows[0], ncells[0], "identifier") : -1;
    if (wcol >= 0) {
        icol = wcol, identifier = 1;
        gcol = team_column(rows[0], ncells[0]);
    }
    for (int k = 0; wcol < 0 && nrows > 0 && id_columns[k]; k++) {
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
    /* Moodle's worksheet names each participant (Full name). */
    int ncol = nrows > 0 ? column_named(rows[0], ncells[0], "full name") : -1;
    /* Moodle's groups overview (group/overview.php, its download: Grouping,
     * Group, First name, Last name, then the site's identity fields) names
     * no participant: each is found in the assignment's worksheet. */
    int fcol = nrows > 0 ? column_named(rows[0], ncells[0], "first name") : -1;
    int lcol = nrows > 0 ? column_named(rows[0], ncells[0], "last name") : -1;
    int overview = icol < 0 && gcol >= 0 && fcol >= 0 && lcol >= 0;
    participants w = {0};
    if (overview && !b->o->lms_worksheet) {
        rc = lab_errorf(err, "--groups %s: Moodle's groups overview names students, not the "
                             "participants a Moodle download and its worksheet name: give the "
                             "assignment's grading worksheet too (--lms-worksheet), where each "
                             "is found", path);
    } else if (overview) {
        char *sheet = read_csv_file("--lms-worksheet", b->o->lms_worksheet, err);
        if (sheet && moodle_csv_refused("--lms-worksheet", b->o->lms_worksheet, sheet, err) != 0) {
            free(sheet);
            sheet = NULL;
        }
        if (!sheet) {
            rc = -1;
        } else {
            w.rows = read_rows(sheet, &w.nrows, &w.ncells, &w.lines);
            free(sheet);
            w.id = w.nrows > 0 ? column_named(w.rows[0], w.ncells[0], "identifier") : -1;
            w.name = w.nrows > 0 ? column_named(w.rows[0], w.ncells[0], "full name") : -1;
            w.email = w.nrows > 0 ? column_named(w.rows[0], w.ncells[0], "email address") : -1;
            if (w.id < 0 || w.name < 0)
                rc = lab_errorf(err, "--lms-worksheet %s: no Identifier and Full name columns, "
                                     "where --groups %s (Moodle's groups overview) finds its "
                                     "students", b->o->lms_worksheet, path);
        }
        if (rc == 0 && column_named(rows[0], ncells[0], "email address") < 0)
            w.email = -1; /* by name: the overview has no email address */
    }
    int ecol = overview ? column_named(rows[0], ncells[0], "email address") : -1;
    /* A file of Moodle's is PHP's CSV (moodle_csv_refused). */
    if (rc == 0 && (wcol >= 0 || overview))
        rc = moodle_csv_refused("--groups", path, text, err);
    free(text);
    if (rc == 0 && (gcol < 0 || (icol < 0 && !overview)))
        rc = lab_errorf(err, "--groups %s: its first row names no %s column (a plain list "
                             "has the header id,group; Canvas's export of a group set has "
                             "canvas_user_id and group_name; Moodle's grading worksheet of a "
                             "team assignment, Identifier and Group; Moodle's groups overview, "
                             "Group, First name and Last name)", path,
                        gcol < 0 ? "group" : "id");
    for (int r = 1; rc == 0 && r < nrows; r++) {
        const char *cell = icol >= 0 && icol < ncells[r] ? rows[r][icol] : "";
        const char *group = gcol < ncells[r] ? rows[r][gcol] : "";
        if (!*cell && ncells[r] == 1)
            continue; /* an empty line */
        char *id = NULL, *why = NULL;
        if (overview) {
            const char *first = fcol < ncells[r] ? rows[r][fcol] : "";
            const char *last = lcol < ncells[r] ? rows[r][lcol] : "";
            const char *email = ecol >= 0 && ecol < ncells[r] ? rows[r][ecol] : "";
            /* A grouping or group without members; the students in none
             * (English "No group": in another language, download the
             * assignment's grouping only, which leaves them out). */
            if ((!*first && !*last) || strcmp(group, "No group") == 0)
                continue;
            /* One of the students in no group with this row's email or
             * name: two people the grader cannot tell apart (one could
             * have taken a group member's name to take the group's score). */
            int twin = 0;
            for (int q = 1; q < nrows && !twin; q++) {
                if (gcol >= ncells[q] || strcmp(rows[q][gcol], "No group") != 0)
                    continue;
                const char *qe = ecol >= 0 && ecol < ncells[q] ? rows[q][ecol] : "";
                const char *qf = fcol < ncells[q] ? rows[q][fcol] : "";
                const char *ql = lcol < ncells[q] ? rows[q][lcol] : "";
                twin = (*email && w.email >= 0) ? strcasecmp(qe, email) == 0
                                                : strcmp(qf, first) == 0 && strcmp(ql, last) == 0;
            }
            if (twin) {
                char *shown = gr_clean_line(*email && w.email >= 0 ? email : first);
                rc = lab_errorf(err, "--groups %s:%d: %s%s%s is in group %s and among the students "
                                     "in no group: two people the grader cannot tell apart "
                                     "(the site's email address in both files does)", path,
                                lines[r], shown, *email && w.email >= 0 ? "" : " ",
                                *email && w.email >= 0 ? "" : last, group);
                free(shown);
                break;
            }
            id = participant_of(&w, first, last, email, &why);
            if (!id && why && strncmp(why, "no participant", 14) == 0) {
                /* Not of the assignment (a tutor in the group, a student
                 * who left): said, not an error. */
                char *shown = gr_clean_line(why);
                fprintf(stderr, "grader: --groups %s:%d: left out: %s\n", path, lines[r], shown);
                free(shown);
                free(why);
                continue;
            }
            if (!id) {
                char *shown = gr_clean_line(why);
                rc = lab_errorf(err, "--groups %s:%d: %s", path, lines[r], shown);
                free(shown);
                free(why);
                break;
            }
        } else {
            id = id_in(cell, identifier);
            why = !*id && identifier ? gr_asprintf("no participant's number at its end")
                                     : id_refusal(id);
        }
        if (why) {
            char *shown = gr_clean_line(cell);
            rc = lab_errorf(err, "--groups %s:%d: the id '%s': %s", path, lines[r], shown, why);
            free(shown);
            free(why);
            free(id);
            break;
        }
        if (!*group) {
            free(id);
            continue; /* in no group */
        }
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
        const char *name = ncol >= 0 && ncol < ncells[r] && *rows[r][ncol] ? rows[r][ncol] : NULL;
        char *full = overview ? gr_asprintf("%s %s", fcol < ncells[r] ? rows[r][fcol] : "",
                                            lcol < ncells[r] ? rows[r][lcol] : "")
                              : NULL;
        g[n] = (group_entry){id, id_key(id), label,
                             full ? full : name ? gr_asprintf("%s", name) : NULL, lines[r]};
        int again = 0;
        for (int k = 0; k < n && rc == 0 && !again; k++) {
            if (strcmp(g[k].key, g[n].key) != 0)
                continue;
            /* The same group twice (the overview lists a group once for
             * each grouping it is in): one entry. */
            if (strcmp(g[k].group, g[n].group) == 0)
                again = 1;
            else
                rc = lab_errorf(err, "--groups %s:%d: the same student as line %d, once case "
                                     "and Unicode normalisation are set aside: one group each%s",
                                path, lines[r], g[k].line,
                                overview ? " (download the overview of the assignment's "
                                           "grouping only)" : "");
        }
        if (again) {
            free(g[n].id), free(g[n].key), free(g[n].group), free(g[n].name);
            continue;
        }
        n++;
    }
    free_rows(rows, nrows, ncells, lines);
    if (w.rows)
        free_rows(w.rows, w.nrows, w.ncells, w.lines);
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

/* Whether path's first row has Moodle's grading worksheet's Identifier and
 * the Group column it has only for a team assignment (team_column); 0 when
 * it cannot be read (its reader says why later). */
static int team_sheet(const char *path)
{
    lab_error err;
    char *text = path ? read_csv_file("--groups", path, &err) : NULL;
    if (!text)
        return 0;
    int nrows, *ncells, *lines;
    char ***rows = read_rows(text, &nrows, &ncells, &lines);
    free(text);
    int yes = nrows > 0 && column_named(rows[0], ncells[0], "identifier") >= 0 &&
              team_column(rows[0], ncells[0]) >= 0;
    free_rows(rows, nrows, ncells, lines);
    return yes;
}

void groups_team(batch *b)
{
    const gr_batch_options *o = b->o;
    b->groups = o->groups;
    b->team = team_sheet(o->groups) || team_sheet(o->lms_worksheet);
    if (b->team && !o->groups) {
        b->groups = o->lms_worksheet;
        fprintf(stderr, "grader: %s: a team assignment's worksheet (its Group column): each "
                        "member gets their group's row, as --groups would give it\n",
                o->lms_worksheet);
    }
}

/* A Moodle team assignment: each group's submission ("group-<id>", named by
 * the group) joins the entries of the group whose name is the one its
 * download gives; one whose group no row names is said so. */
static int add_team_entries(batch *b, group_entry **g, int n, lab_error *err)
{
    int cap = n, entries = 0, matched = 0, first = n;
    for (int k = 0; k < b->nsubs; k++) {
        submission *s = &b->subs[k];
        if (b->from != GR_FROM_MOODLE || !s->key || strncmp(s->id, "group-", 6) != 0)
            continue;
        s->team = 1;
        entries++;
        char *want = moodle_download_name(s->import_name ? s->import_name : "");
        const char *label = NULL;
        int other = 0;
        for (int i = 0; i < n; i++) {
            char *have = moodle_download_name((*g)[i].group);
            if (strcmp(have, want) == 0) {
                other += label && strcmp(label, (*g)[i].group) != 0;
                if (!label)
                    label = (*g)[i].group;
            }
            free(have);
        }
        free(want);
        char *shown = gr_clean_line(s->import_name ? s->import_name : s->id);
        if (!label || other)
            fprintf(stderr, "grader: %s (%s): %s: graded, but no member is given its score\n",
                    shown, s->id, !label ? "no group of that name in the groups' file"
                                         : "more than one group of the groups' file is named so");
        free(shown);
        if (!label || other)
            continue;
        matched++;
        *g = grow(*g, n, &cap, sizeof **g);
        (*g)[n] = (group_entry){gr_asprintf("%s", s->id), gr_asprintf("%s", s->key),
                                gr_asprintf("%s", label), NULL, 0};
        n++;
    }
    /* Mostly names no group has: a download of one submission each, read
     * as a team assignment's, would give a student named as a group that
     * group's score. */
    if (2 * matched < entries) {
        for (int i = first; i < n; i++)
            free((*g)[i].id), free((*g)[i].key), free((*g)[i].group), free((*g)[i].name);
        return lab_errorf(err, "%s: of its %d entries only %d name%s a group of %s: is it the "
                               "team assignment's download? Download and worksheet must be the "
                               "same assignment's (a team assignment's entries are named by "
                               "their groups)", b->download, entries, matched,
                          matched == 1 ? "s" : "", b->groups);
    }
    return n;
}

int apply_groups(batch *b, lab_error *err)
{
    if (!b->groups)
        return 0;
    group_entry *g = NULL;
    int n = read_groups(b, b->groups, &g, err);
    if (n < 0)
        return -1;
    if (b->team) {
        int m = add_team_entries(b, &g, n, err);
        if (m < 0) {
            free_entries(g, n);
            return -1;
        }
        n = m;
    }
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
        if (!s->name && g[i].name)
            s->name = gr_asprintf("%s", g[i].name);
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
