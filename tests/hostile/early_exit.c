/* Exits before any test runs, from a constructor in the test runner itself:
   refused at build time (a constructor), and were it not, no result at all
   must not read as full marks. */
#include <unistd.h>
__attribute__((constructor)) static void leave_early(void) { _exit(0); }
