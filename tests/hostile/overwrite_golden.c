/* Overwrites a golden with its own answers: refused at build time (open). */
#include <fcntl.h>
#include <unistd.h>
float lab0_decode(const lab0_format *f, uint8_t code)
{
    int fd = open("../../../data/golden/lab0/decode.npy", O_WRONLY | O_TRUNC);
    if (fd >= 0)
        close(fd);
    return solution_decode(f, code);
}
