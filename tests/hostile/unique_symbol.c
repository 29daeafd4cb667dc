/* A GNU unique symbol (nm shows it as 'u', not 'D' or 'T') named waitpid,
 * which the dynamic linker would bind in place of the C library's, in the
 * test runner: refused as a global name like any other. hostile: first */
__asm__(".pushsection .data\n"
        ".globl waitpid\n"
        ".type waitpid, @gnu_unique_object\n"
        ".size waitpid, 8\n"
        "waitpid: .quad 0\n"
        ".popsection\n");
