/* Opens the reference solution and starts a process through libc's other
 * names for open and fork (__open64 is open64 at the same address; _Fork
 * is fork's own system call; __libc_open64, which only the static libc
 * defines), which a check of exact names lets through: refused at build
 * time, by name. */
extern int __open64(const char *path, int flags, ...);
extern int _Fork(void);
extern int __libc_open64(const char *path, int flags, ...);

float lab0_decode(const lab0_format *f, uint8_t code)
{
    if (__open64("../../../../solutions/lab0/lab0.c", 0) >= 0 || _Fork() == 0 ||
        __libc_open64("/etc/hostname", 0) >= 0)
        return -1.0f;
    return solution_decode(f, code);
}
