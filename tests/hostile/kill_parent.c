/* Sends SIGKILL to its parent and its process group from lab0_decode:
   refused at build time (kill). */
#include <signal.h>
#include <unistd.h>
float lab0_decode(const lab0_format *f, uint8_t code)
{
    kill(getppid(), SIGKILL);
    kill(0, SIGKILL);
    return solution_decode(f, code);
}
