/*
 * landlock.c - Landlock rulesets (landlock.h).
 */
#define _GNU_SOURCE
#include "landlock.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The rights of each ABI version: 1 the first thirteen, 2 REFER, 3
 * TRUNCATE, 5 IOCTL_DEV. */
static uint64_t handled(int abi)
{
    uint64_t all = (1ULL << 13) - 1;
    if (abi >= 2)
        all |= 1ULL << 13;
    if (abi >= 3)
        all |= 1ULL << 14;
    if (abi >= 5)
        all |= 1ULL << 15;
    return all;
}

int gr_landlock_abi(void)
{
    long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    return abi > 0 ? (int)abi : 0;
}

int gr_landlock_ruleset(int abi)
{
    struct landlock_ruleset_attr attr = {.handled_access_fs = handled(abi)};
    return (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
}

int gr_landlock_allow(int ruleset, int abi, const char *path, uint64_t access)
{
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? 0 : -1;
    int rc = gr_landlock_allow_fd(ruleset, abi, fd, access);
    int saved = errno;
    close(fd);
    errno = saved;
    return rc;
}

int gr_landlock_allow_fd(int ruleset, int abi, int fd, uint64_t access)
{
    struct stat st;
    if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode))
        access &= LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |
                  LANDLOCK_ACCESS_FS_READ_FILE | (1ULL << 14) | (1ULL << 15);
    struct landlock_path_beneath_attr rule = {.allowed_access = access & handled(abi),
                                              .parent_fd = fd};
    return rule.allowed_access == 0
               ? 0
               : (int)syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
}

int gr_landlock_enforce(int ruleset)
{
    int rc = prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    if (rc == 0)
        rc = (int)syscall(SYS_landlock_restrict_self, ruleset, 0);
    int saved = errno;
    close(ruleset);
    errno = saved;
    return rc;
}
