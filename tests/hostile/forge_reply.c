/* Answers the judge's call itself with the subject's "no such call" byte
   on the reply descriptor (4), then returns: the judge fails the test
   against the submission, never as a grader error. */
#include <unistd.h>

float lab0_decode(const lab0_format *f, uint8_t code)
{
    if (write(4, "?", 1) < 0) {
        /* no channel: answer anyway */
    }
    return solution_decode(f, code);
}
