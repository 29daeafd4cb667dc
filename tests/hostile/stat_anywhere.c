/* Stats paths outside its folder through the call glibc's own fstat makes,
 * newfstatat with AT_EMPTY_PATH (0x1000), whose path the kernel follows
 * whenever it is not empty: metadata of any file, and whether it exists.
 * Its answers are right unless a stat worked, which makes them wrong: the
 * filter must answer the call without reaching any path. */
#include <fcntl.h>
#include <sys/stat.h>

float lab0_decode(const lab0_format *f, uint8_t code)
{
    struct stat st;
    if (fstatat(AT_FDCWD, "/", &st, 0x1000) == 0 ||
        fstatat(AT_FDCWD, "/etc/hostname", &st, 0x1000) == 0)
        return -1.0f;
    return solution_decode(f, code);
}
