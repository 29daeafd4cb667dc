/* A global function of a name 1023 characters long (helper_ and 1016 a's),
   a name the length of the grader's old buffer for a line of nm: the line
   was read in pieces, the name's first 511 characters with the next 7
   ("aaaaaaa") as its type, a lower-case one, not global, and the rest
   (" T ...") as a symbol named T: a global name went unseen. Refused at
   build time as any other global name is. */
#define CAT(a, b) a##b
#define XCAT(a, b) CAT(a, b)
#define A8 aaaaaaaa
#define A16 XCAT(A8, A8)
#define A32 XCAT(A16, A16)
#define A64 XCAT(A32, A32)
#define A128 XCAT(A64, A64)
#define A256 XCAT(A128, A128)
#define A512 XCAT(A256, A256)
#define A1016 XCAT(XCAT(XCAT(A512, A256), XCAT(A128, A64)), XCAT(XCAT(A32, A16), A8))
int XCAT(helper_, A1016)(int x)
{
    return x + 1;
}
