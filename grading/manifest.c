/*
 * manifest.c - checks a lab's goldens against data/MANIFEST before grading.
 *
 * data/MANIFEST is in sha256sum's format, one line per file of data/:
 *     <64 hex digits><two spaces><path relative to data/>
 * (`make goldens` writes it with sha256sum; `sha256sum -c` reads it too).
 * The grader refuses a golden whose digest differs, a listed golden that is
 * missing, and a file in the lab's golden folder, or in a folder inside it,
 * that is not listed.
 *
 * Not for: writing the manifest.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <nettle/sha2.h>

#include "grade.h"

/* The sha256 of the file at path, as 64 lowercase hex digits. */
static int sha256_file(const char *path, char hex[65], lab_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return lab_errorf(err, "%s: cannot open: %s", path, strerror(errno));
    struct sha256_ctx ctx;
    unsigned char buf[65536], digest[SHA256_DIGEST_SIZE];
    size_t n;
    sha256_init(&ctx);
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        sha256_update(&ctx, n, buf);
    int bad = ferror(f);
    fclose(f);
    if (bad)
        return lab_errorf(err, "%s: read error", path);
    sha256_digest(&ctx, sizeof digest, digest);
    for (int i = 0; i < SHA256_DIGEST_SIZE; i++)
        snprintf(hex + 2 * i, 3, "%02x", digest[i]);
    return 0;
}

/* Whether name appears in the manifest under folder (e.g. "golden/lab0"). */
static int listed(const char *manifest, const char *folder, const char *name)
{
    FILE *f = fopen(manifest, "r");
    char line[4096], want[4096];
    int found = 0;
    if (!f)
        return 0;
    snprintf(want, sizeof want, "%s/%s", folder, name);
    while (!found && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        found = strlen(line) > 66 && strcmp(line + 66, want) == 0;
    }
    fclose(f);
    return found;
}

/* Fails on a file under data_dir/folder, or in a folder inside it (lab6's
 * goldens are in two), that the manifest does not list. */
static int unlisted(const char *manifest, const char *data_dir, const char *folder,
                    lab_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", data_dir, folder);
    DIR *d = opendir(path);
    if (!d)
        return lab_errorf(err, "%s: cannot open: %s", path, strerror(errno));
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || listed(manifest, folder, e->d_name))
            continue;
        char sub[4096], full[8192];
        struct stat st;
        snprintf(sub, sizeof sub, "%s/%s", folder, e->d_name);
        snprintf(full, sizeof full, "%s/%s", path, e->d_name);
        if (lstat(full, &st) == 0 && S_ISDIR(st.st_mode) && strlen(sub) < 1024)
            rc = unlisted(manifest, data_dir, sub, err);
        else
            rc = lab_errorf(err, "%s is not listed in %s", full, manifest);
    }
    closedir(d);
    return rc;
}

int gr_verify_goldens(const char *data_dir, const char *folder, lab_error *err)
{
    char manifest[4096], path[4096], line[4096], hex[65];
    int count = 0, lineno = 0;

    snprintf(manifest, sizeof manifest, "%s/MANIFEST", data_dir);
    FILE *f = fopen(manifest, "r");
    if (!f)
        return lab_errorf(err, "%s: cannot open: %s (run make goldens)", manifest,
                          strerror(errno));
    size_t flen = strlen(folder);
    while (fgets(line, sizeof line, f)) {
        lineno++;
        line[strcspn(line, "\n")] = '\0';
        if (strlen(line) < 67 || strspn(line, "0123456789abcdef") != 64 ||
            line[64] != ' ' || line[65] != ' ') {
            fclose(f);
            return lab_errorf(err, "%s:%d: not a sha256sum line", manifest, lineno);
        }
        const char *rel = line + 66;
        if (strncmp(rel, folder, flen) != 0 || rel[flen] != '/')
            continue;
        snprintf(path, sizeof path, "%s/%s", data_dir, rel);
        if (sha256_file(path, hex, err) != 0) {
            fclose(f);
            return -1;
        }
        if (memcmp(hex, line, 64) != 0) {
            fclose(f);
            return lab_errorf(err, "%s: sha256 is %.12s..., %s says %.12s...: the golden has "
                              "changed (restore it with git checkout, or run make goldens)",
                              path, hex, manifest, line);
        }
        count++;
    }
    fclose(f);
    if (count == 0)
        return lab_errorf(err, "%s lists no files under %s/", manifest, folder);

    return unlisted(manifest, data_dir, folder, err);
}
