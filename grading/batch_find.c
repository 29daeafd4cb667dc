/*
 * batch_find.c - finding a batch's submissions: the folder's entries (each
 * a student's folder or archive, or skipped with why), the students' ids
 * (folded so that two spellings of one student are seen), the roster, the
 * duplicates and collisions refused, --only and the shard kept.
 */
#define _GNU_SOURCE
#include "batch_state.h"
#include "unicode_fold.h"

/* ---- student ids ---------------------------------------------------------------------
 *
 * An id is the name of a folder or an archive, so it is whatever bytes a
 * file name holds. One that is not UTF-8 or holds a control character is
 * refused (a gradebook, an LMS and a terminal each read it differently).
 * Two ids are one student's when Unicode calls them canonical caseless
 * equal (D145): "alice" and "Alice", "café" with its é precomposed and
 * decomposed. The test compares NFD(fold(NFD(id))), which is equal exactly
 * when the NFC forms of the folded ids are (unicode_fold.h has the tables).
 */

typedef struct codepoints {
    uint32_t *v;
    int n, cap;
} codepoints;

static void cp_push(codepoints *c, uint32_t cp)
{
    c->v = grow(c->v, c->n, &c->cap, sizeof *c->v);
    c->v[c->n++] = cp;
}

static const uf_map *uf_find(const uf_map *table, size_t n, uint32_t cp)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (table[mid].cp == cp)
            return &table[mid];
        if (table[mid].cp < cp)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static int combining_class(uint32_t cp)
{
    size_t lo = 0, hi = GRADER_COUNT(uf_ccc);
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (uf_ccc[mid].cp == cp)
            return uf_ccc[mid].ccc;
        if (uf_ccc[mid].cp < cp)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

/* Appends cp's full canonical decomposition: Hangul syllables by the
 * algorithm of Unicode's section 3.12, the others from the table. */
static void push_decomposed(codepoints *c, uint32_t cp)
{
    const uint32_t s_base = 0xAC00, l_base = 0x1100, v_base = 0x1161, t_base = 0x11A7;
    const uint32_t t_count = 28, n_count = 21 * 28, s_count = 19 * 21 * 28;
    if (cp >= s_base && cp < s_base + s_count) {
        uint32_t i = cp - s_base;
        cp_push(c, l_base + i / n_count);
        cp_push(c, v_base + (i % n_count) / t_count);
        if (i % t_count)
            cp_push(c, t_base + i % t_count);
        return;
    }
    const uf_map *m = uf_find(uf_decomp, GRADER_COUNT(uf_decomp), cp);
    if (!m) {
        cp_push(c, cp);
        return;
    }
    for (int i = 0; i < m->len; i++)
        cp_push(c, uf_decomp_data[m->off + i]);
}

/* The canonical ordering: marks in a run sorted by class, stably. */
static void canonical_order(codepoints *c)
{
    for (int i = 1; i < c->n; i++) {
        for (int k = i; k > 0; k--) {
            int ck = combining_class(c->v[k]), cprev = combining_class(c->v[k - 1]);
            if (ck == 0 || cprev <= ck)
                break;
            uint32_t t = c->v[k];
            c->v[k] = c->v[k - 1];
            c->v[k - 1] = t;
        }
    }
}

/* NFD of in, into out (emptied first); with fold, each code point's full case
 * folding first. */
static void nfd(const codepoints *in, codepoints *out, int fold)
{
    out->n = 0;
    for (int i = 0; i < in->n; i++) {
        const uf_map *m = fold ? uf_find(uf_fold, GRADER_COUNT(uf_fold), in->v[i]) : NULL;
        if (!m) {
            push_decomposed(out, in->v[i]);
            continue;
        }
        for (int k = 0; k < m->len; k++)
            push_decomposed(out, uf_fold_data[m->off + k]);
    }
    canonical_order(out);
}

char *id_refusal(const char *id)
{
    if (!*id)
        return gr_asprintf("an empty id");
    for (const char *p = id; *p;) {
        unsigned cp;
        int len = gr_utf8_next(p, &cp);
        if (len < 0)
            return gr_asprintf("its name is not UTF-8 (byte 0x%02X at %d): rename it",
                               (unsigned char)*p, (int)(p - id));
        if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F))
            return gr_asprintf("its name holds the control character U+%04X at byte %d: "
                               "rename it", cp, (int)(p - id));
        if (gr_invisible_char(cp))
            return gr_asprintf("its name holds the invisible formatting character U+%04X at "
                               "byte %d, which changes how the text around it reads (U+202E "
                               "shows what follows reversed): rename it", cp, (int)(p - id));
        p += len;
    }
    return NULL;
}

char *id_key(const char *id)
{
    codepoints raw = {0}, a = {0}, b = {0};
    for (const char *p = id; *p;) {
        unsigned cp;
        int len = gr_utf8_next(p, &cp);
        cp_push(&raw, cp);
        p += len;
    }
    nfd(&raw, &a, 0);
    nfd(&a, &b, 1);
    char *key = xcalloc((size_t)b.n * 4 + 1, 1), *o = key;
    for (int i = 0; i < b.n; i++) {
        uint32_t cp = b.v[i];
        if (cp < 0x80) {
            *o++ = (char)cp;
        } else if (cp < 0x800) {
            *o++ = (char)(0xC0 | cp >> 6);
            *o++ = (char)(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            *o++ = (char)(0xE0 | cp >> 12);
            *o++ = (char)(0x80 | (cp >> 6 & 0x3F));
            *o++ = (char)(0x80 | (cp & 0x3F));
        } else {
            *o++ = (char)(0xF0 | cp >> 18);
            *o++ = (char)(0x80 | (cp >> 12 & 0x3F));
            *o++ = (char)(0x80 | (cp >> 6 & 0x3F));
            *o++ = (char)(0x80 | (cp & 0x3F));
        }
    }
    free(raw.v);
    free(a.v);
    free(b.v);
    return key;
}

/* ---- the submissions folder ------------------------------------------------------- */

/* Archives the grader does not read (unpack.h lists those it does). */
static const char *const unread_suffixes[] = {".7z", ".rar", ".gz", ".bz2", ".xz", 0};

static int unread_archive(const char *name)
{
    size_t len = strlen(name);
    for (int i = 0; unread_suffixes[i]; i++) {
        size_t n = strlen(unread_suffixes[i]);
        if (len > n && strcasecmp(name + len - n, unread_suffixes[i]) == 0)
            return 1;
    }
    return 0;
}

/* Why an entry of the submissions folder is not graded; NULL when it is.
 * *refused: the entry may be a student's, and the instructor must act. A
 * link is never followed (the grader runs as root: it could lead anywhere). */
static const char *why_skipped(const char *name, const char *path, const struct stat *grades,
                               int *refused)
{
    struct stat st;
    *refused = 0;
    if (name[0] == '.')
        return "hidden";
    if (lstat(path, &st) != 0)
        return "cannot be read";
    if (st.st_dev == grades->st_dev && st.st_ino == grades->st_ino)
        return "the folder the reports go to";
    if (S_ISLNK(st.st_mode)) {
        *refused = 1;
        return "a symbolic link, which the grader does not follow: put the folder or "
               "archive itself in its place";
    }
    if (S_ISDIR(st.st_mode))
        return NULL;
    if (S_ISREG(st.st_mode) && gr_archive_suffix(name))
        return NULL;
    if (unread_archive(name))
        return "an archive the grader does not read (it reads .zip and .tar, plain or "
               "compressed with gzip, bzip2 or xz)";
    return "not a folder or an archive";
}

static int by_id(const void *a, const void *b)
{
    return strcmp(((const submission *)a)->id, ((const submission *)b)->id);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const skipped_entry *)a)->name, ((const skipped_entry *)b)->name);
}


/* The submission's name as the student knows it: in the submissions folder,
 * "alice", "bob.zip"; from a platform's download, the archive the student
 * uploaded ("lab3.zip"), not the <id>.zip it was read into. */
const char *entry_name(const submission *s)
{
    if (s->upload)
        return s->upload;
    const char *slash = strrchr(s->source, '/');
    return slash ? slash + 1 : s->source;
}

static void add_skipped(batch *b, const char *name, char *why, int refused, int *cap)
{
    b->skipped = grow(b->skipped, b->nskipped, cap, sizeof *b->skipped);
    b->skipped[b->nskipped++] = (skipped_entry){gr_asprintf("%s", name), why, refused, 0};
}

/* The entry name (a folder, or an archive) becomes submission id, unless
 * it cannot be one (id_refusal): then it is refused. */
static void add_submission(batch *b, const char *name, char *source, int *cap, int *cap_skipped)
{
    size_t suffix = is_dir(source) ? 0 : gr_archive_suffix(name);
    char *id = gr_asprintf("%.*s", (int)(strlen(name) - suffix), name);
    char *why = id_refusal(id);
    if (why) {
        add_skipped(b, name, why, 1, cap_skipped);
        free(id);
        free(source);
        return;
    }
    b->subs = grow(b->subs, b->nsubs, cap, sizeof *b->subs);
    submission *s = &b->subs[b->nsubs++];
    memset(s, 0, sizeof *s);
    s->id = id;
    s->key = id_key(id);
    s->archive = suffix > 0;
    s->source = source;
    s->report = gr_asprintf("%s/%s.json", b->json_dir, s->id);
    s->points = xcalloc((size_t)b->lab->ntests, sizeof *s->points);
    hash_submission(b, s);
    s->passed = xcalloc((size_t)b->lab->ntests, sizeof *s->passed);
}

void free_submission(submission *s)
{
    free(s->id);
    free(s->source);
    free(s->report);
    free(s->points);
    free(s->passed);
    free(s->error);
    free(s->note);
    free(s->key);
    free(s->hashes);
    free(s->name);
    free(s->group);
    free(s->group_of);
}

/* Two entries with one id (alice/ and alice.zip): the folder is graded, the
 * archive skipped. b->subs is sorted by id. */
static void skip_duplicates(batch *b, int *cap_skipped)
{
    int kept = 0;
    for (int k = 0; k < b->nsubs; k++) {
        submission *s = &b->subs[k];
        if (kept > 0 && strcmp(b->subs[kept - 1].id, s->id) == 0) {
            submission *first = &b->subs[kept - 1];
            if (first->archive && !s->archive) {
                submission t = *first;
                *first = *s;
                *s = t;
            }
            const char *slash = strrchr(s->source, '/');
            add_skipped(b, slash ? slash + 1 : s->source,
                        gr_asprintf("the same student id as another entry, which is graded: "
                                    "remove one"), 0, cap_skipped);
            free_submission(s);
            continue;
        }
        if (kept != k)
            b->subs[kept] = *s;
        kept++;
    }
    b->nsubs = kept;
}

static int by_key(const void *a, const void *b)
{
    const submission *x = *(submission *const *)a, *y = *(submission *const *)b;
    int c = strcmp(x->key, y->key);
    return c ? c : strcmp(x->id, y->id);
}

/* Two or more ids that are one student's (id_key): each is refused, an
 * error naming the others, never a second row that looks like a grade. */
static void refuse_collisions(batch *b)
{
    submission **order = xcalloc((size_t)b->nsubs, sizeof *order);
    for (int k = 0; k < b->nsubs; k++)
        order[k] = &b->subs[k];
    qsort(order, (size_t)b->nsubs, sizeof *order, by_key);
    for (int k = 0, end; k < b->nsubs; k = end) {
        for (end = k + 1; end < b->nsubs && strcmp(order[end]->key, order[k]->key) == 0;)
            end++;
        if (end - k < 2)
            continue;
        for (int i = k; i < end; i++) {
            char *others = gr_asprintf("%s", "");
            for (int m = k; m < end; m++) {
                if (m == i)
                    continue;
                char *more = gr_asprintf("%s%s'%s'", others, *others ? ", " : "", order[m]->id);
                free(others);
                others = more;
            }
            submission *s = order[i];
            s->refused = 1;
            s->status = SUB_ERROR;
            s->max_score = grader_lab_points(b->lab);
            s->error = gr_asprintf("not graded: the same student as %s once case and Unicode "
                                   "normalisation are set aside: rename or remove one",
                                   others);
            free(others);
        }
    }
    free(order);
}

/* Marks the submissions --only names; each must be one of them. */
static int mark_only(batch *b, lab_error *err)
{
    for (int i = 0; i < b->o->nonly; i++) {
        const char *id = b->o->only[i];
        int found = 0;
        for (int k = 0; k < b->nsubs; k++)
            if (strcmp(b->subs[k].id, id) == 0)
                found = b->subs[k].only = 1;
        if (!found) {
            char *shown = gr_clean_line(id);
            lab_errorf(err, "--only %s: no submission with that id in %s", shown, b->download);
            free(shown);
            return -1;
        }
    }
    return 0;
}

/* ---- the roster ---------------------------------------------------------------------
 *
 * --roster FILE: a CSV file (RFC 4180) of the class, a row per student: the
 * id, then the name; a first row whose first cell is "id" is a header. Each
 * id must be one the grader takes (id_refusal), and no two may be one
 * student's (id_key). A submission is matched to the roster by id_key; a
 * student with none gets a row "missing" (score 0); a submission whose id
 * the roster lacks is graded all the same, and listed.
 */

#define ROSTER_MAX_BYTES (16L << 20)

typedef struct roster_entry {
    char *id, *name, *key;
    int line;
    int matched;
} roster_entry;

char *csv_cell(const char **p, int *end_of_row, int *line)
{
    const char *c = *p;
    char *out = xcalloc(strlen(c) + 1, 1), *o = out;
    if (*c == '"') {
        for (c++; *c; c++) {
            if (*c == '"' && c[1] == '"')
                *o++ = *c++;
            else if (*c == '"')
                break;
            else {
                *line += *c == '\n';
                *o++ = *c;
            }
        }
        if (*c == '"')
            c++;
    }
    while (*c && *c != ',' && *c != '\n' && *c != '\r')
        *o++ = *c++;
    *end_of_row = *c != ',';
    if (*c == ',')
        c++;
    else if (*c == '\r' && c[1] == '\n')
        c += 2;
    else if (*c)
        c++;
    *line += *end_of_row && c > *p && c[-1] == '\n';
    *p = c;
    return out;
}

static void free_roster(roster_entry *r, int n)
{
    for (int i = 0; i < n; i++) {
        free(r[i].id);
        free(r[i].name);
        free(r[i].key);
    }
    free(r);
}

/* Reads the roster at path into *out (n entries). Returns n, or -1 with
 * err naming the file, the line and what is wrong. */
char *read_csv_file(const char *option, const char *path, lab_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        lab_errorf(err, "%s %s: cannot open: %s", option, path, strerror(errno));
        return NULL;
    }
    char *text = xcalloc(ROSTER_MAX_BYTES + 1, 1);
    size_t len = fread(text, 1, ROSTER_MAX_BYTES + 1, f);
    int bad = ferror(f);
    fclose(f);
    if (bad || len > ROSTER_MAX_BYTES || memchr(text, '\0', len)) {
        free(text);
        lab_errorf(err, "%s %s: %s", option, path,
                   bad                      ? "cannot be read"
                   : len > ROSTER_MAX_BYTES ? "larger than 16 MiB"
                                            : "holds a NUL byte: not a CSV file");
        return NULL;
    }
    if (strncmp(text, "\xEF\xBB\xBF", 3) == 0) /* a BOM, as spreadsheets write */
        memmove(text, text + 3, len - 2);
    return text;
}

/* The line of text's first backslash before a double quote, or 0. */
static int php_csv_ambiguous(const char *text)
{
    const char *at = strstr(text, "\\\"");
    if (!at)
        return 0;
    int line = 1;
    for (const char *p = text; p < at; p++)
        line += *p == '\n';
    return line;
}

int moodle_csv_refused(const char *option, const char *path, const char *text, lab_error *err)
{
    int line = php_csv_ambiguous(text);
    if (line == 0)
        return 0;
    return lab_errorf(err, "%s %s:%d: a backslash before a double quote, which Moodle reads "
                           "as keeping the quote in the cell (PHP's fgetcsv and fputcsv, whose "
                           "escape is the backslash) and the grader as ending it (RFC 4180): "
                           "where its cells end is not certain. Change that text in Moodle (a "
                           "name, a comment) and download the file again", option, path, line);
}

/* A name as Moodle's download writes it: '_' as ' ', and without
 * what clean_filename drops (PARAM_FILE: control characters and
 * & < > " ` | ' : \ /; downloader.php, get_student_prefix). */
char *moodle_download_name(const char *name)
{
    char *out = gr_asprintf("%s", name), *w = out;
    for (const unsigned char *c = (const unsigned char *)name; *c; c++) {
        if (*c < 0x20 || *c == 0x7f || strchr("&<>\"`|':\\/", *c))
            continue;
        *w++ = *c == '_' ? ' ' : (char)*c;
    }
    *w = '\0';
    return out;
}

static int read_roster(const char *path, roster_entry **out, lab_error *err)
{
    char *text = read_csv_file("--roster", path, err);
    if (!text)
        return -1;
    roster_entry *r = NULL;
    int n = 0, cap = 0, line = 1, rc = 0;
    const char *p = text;
    while (*p && rc == 0) {
        int row = line, end = 0;
        char *cells[2] = {NULL, NULL};
        for (int i = 0; !end; i++) {
            char *c = csv_cell(&p, &end, &line);
            if (i < 2)
                cells[i] = c;
            else
                free(c);
        }
        char *why = cells[0] && *cells[0] ? id_refusal(cells[0]) : NULL;
        if (!cells[0] || !*cells[0]) {
            /* an empty line */
        } else if (n == 0 && row == 1 && strcasecmp(cells[0], "id") == 0) {
            /* the header */
        } else if (why) {
            char *id = gr_clean_line(cells[0]);
            rc = lab_errorf(err, "--roster %s:%d: the id '%s': %s", path, row, id, why);
            free(id);
        } else {
            r = grow(r, n, &cap, sizeof *r);
            r[n] = (roster_entry){cells[0], cells[1] ? cells[1] : gr_asprintf("%s", ""),
                                  id_key(cells[0]), row, 0};
            for (int k = 0; k < n && rc == 0; k++)
                if (strcmp(r[k].key, r[n].key) == 0)
                    rc = lab_errorf(err, "--roster %s:%d: the same student as line %d, once "
                                         "case and Unicode normalisation are set aside",
                                    path, row, r[k].line);
            n++;
            cells[0] = cells[1] = NULL;
        }
        free(why);
        free(cells[0]);
        free(cells[1]);
    }
    free(text);
    if (rc != 0) {
        free_roster(r, n);
        return -1;
    }
    *out = r;
    return n;
}

submission *add_missing(batch *b, const char *id, const char *key, int *cap)
{
    b->subs = grow(b->subs, b->nsubs, cap, sizeof *b->subs);
    submission *s = &b->subs[b->nsubs++];
    memset(s, 0, sizeof *s);
    s->id = gr_asprintf("%s", id);
    s->key = gr_asprintf("%s", key);
    s->source = gr_asprintf("%s", "");
    s->report = gr_asprintf("%s", "");
    s->points = xcalloc((size_t)b->lab->ntests, sizeof *s->points);
    s->passed = xcalloc((size_t)b->lab->ntests, sizeof *s->passed);
    s->status = SUB_MISSING;
    s->max_score = grader_lab_points(b->lab);
    s->late = -1;
    return s;
}

/* Matches the submissions to the roster (before keep_shard); then, unless
 * this is a shard, adds a "missing" row for each student without one. */
static int apply_roster(batch *b, lab_error *err)
{
    for (int k = 0; k < b->nsubs; k++)
        b->subs[k].on_roster = 1;
    if (!b->o->roster)
        return 0;
    roster_entry *r = NULL;
    int n = read_roster(b->o->roster, &r, err);
    if (n < 0)
        return -1;
    for (int k = 0; k < b->nsubs; k++) {
        submission *s = &b->subs[k];
        s->on_roster = 0;
        for (int i = 0; i < n && !s->on_roster; i++) {
            if (strcmp(r[i].key, s->key) != 0)
                continue;
            s->on_roster = r[i].matched = 1;
            s->name = gr_asprintf("%s", r[i].name);
        }
    }
    int cap = b->nsubs;
    for (int i = 0; i < n && b->o->shard_n == 0; i++) {
        if (r[i].matched)
            continue;
        submission *s = add_missing(b, r[i].id, r[i].key, &cap);
        s->name = gr_asprintf("%s", r[i].name);
        s->on_roster = 1;
    }
    free_roster(r, n);
    if (b->nsubs > 1)
        qsort(b->subs, (size_t)b->nsubs, sizeof *b->subs, by_id);
    return 0;
}

/* A shard keeps every shard_n-th submission (in id order) from the shard_k-th. */
static void keep_shard(batch *b)
{
    int n = b->o->shard_n, k = b->o->shard_k, kept = 0;
    if (n <= 0)
        return;
    for (int i = 0; i < b->nsubs; i++) {
        if (i % n == k - 1)
            b->subs[kept++] = b->subs[i];
        else
            free_submission(&b->subs[i]);
    }
    b->nsubs = kept;
}

/* Sorts b->dir's entries into submissions and skipped ones. */
int list_submissions(batch *b, lab_error *err)
{
    struct stat grades;
    int cap_subs = 0, cap_skipped = 0;
    if (stat(b->json_dir, &grades) != 0)
        return lab_errorf(err, "%s: %s", b->json_dir, strerror(errno));
    DIR *d = opendir(b->dir);
    if (!d)
        return lab_errorf(err, "%s: cannot read: %s", b->dir, strerror(errno));
    for (;;) {
        errno = 0;
        struct dirent *e = readdir(d);
        if (!e)
            break;
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char *path = gr_asprintf("%s/%s", b->dir, e->d_name);
        int refused;
        const char *why = why_skipped(e->d_name, path, &grades, &refused);
        if (!why) {
            add_submission(b, e->d_name, path, &cap_subs, &cap_skipped);
            continue;
        }
        free(path);
        add_skipped(b, e->d_name, gr_asprintf("%s", why), refused, &cap_skipped);
        b->skipped[b->nskipped - 1].ignored =
            strcmp(why, "hidden") == 0 || strcmp(why, "the folder the reports go to") == 0;
    }
    int read_errno = errno;
    closedir(d);
    if (read_errno)
        return lab_errorf(err, "%s: cannot read: %s", b->dir, strerror(read_errno));
    for (int i = 0; i < b->import.nskipped; i++) {
        add_skipped(b, b->import.skipped[i], gr_asprintf("%s", b->import.why[i]),
                    b->import.refused[i] == 1, &cap_skipped);
        b->skipped[b->nskipped - 1].ignored = b->import.refused[i] == 2;
    }
    /* Late: Canvas's download marks it in the file names (lms_import.h). */
    for (int k = 0; k < b->nsubs; k++) {
        b->subs[k].late = b->from == GR_FROM_CANVAS ? 0 : -1;
        for (int i = 0; i < b->import.nlate; i++)
            if (strcmp(b->subs[k].id, b->import.late_ids[i]) == 0)
                b->subs[k].late = 1;
    }
    /* The download's names, where it has them (a roster's win: apply_roster). */
    for (int k = 0; k < b->nsubs; k++)
        for (int i = 0; i < b->import.n; i++)
            if (strcmp(b->subs[k].id, b->import.ids[i]) == 0) {
                if (b->import.names[i][0])
                    b->subs[k].import_name = b->import.names[i];
                if (b->import.uploads && b->subs[k].archive)
                    b->subs[k].upload = b->import.uploads[i];
            }
    if (b->nsubs > 1)
        qsort(b->subs, (size_t)b->nsubs, sizeof *b->subs, by_id);
    skip_duplicates(b, &cap_skipped);
    refuse_collisions(b);
    if (mark_only(b, err) != 0)
        return -1;
    if (b->o->roster && b->o->shard_n > 0) {
        /* The missing rows are the merge's: a shard only reads the roster. */
        roster_entry *r = NULL;
        int n = read_roster(b->o->roster, &r, err);
        if (n < 0)
            return -1;
        free_roster(r, n);
    }
    keep_shard(b);
    if (apply_roster(b, err) != 0)
        return -1;
    if (b->nskipped > 1)
        qsort(b->skipped, (size_t)b->nskipped, sizeof *b->skipped, by_name);
    return 0;
}

