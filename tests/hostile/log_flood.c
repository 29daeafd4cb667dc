/* Makes the compiler write more than 4 MiB of warnings (65536, from a
   doubling macro), then stops the build: the log the student gets back is
   rewritten whole however long it is, so it names only lab0.c, never the
   grader's folders. hostile: first */
#define W _Pragma("GCC warning \"a line of the flood, to make the build log long\"")
#define W2 W W
#define W4 W2 W2
#define W8 W4 W4
#define W16 W8 W8
#define W32 W16 W16
#define W64 W32 W32
#define W128 W64 W64
#define W256 W128 W128
#define W512 W256 W256
#define W1K W512 W512
#define W2K W1K W1K
#define W4K W2K W2K
#define W8K W4K W4K
#define W16K W8K W8K
W16K W16K W16K W16K
#error the end of the flood
