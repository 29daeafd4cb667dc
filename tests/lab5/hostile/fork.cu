/* Starts a process from a lab function by a raw clone system call, no
   CLONE_THREAD (nm sees no name): the filter refuses it (threads are the
   CUDA runtime's). x86-64 Linux only. */
/* The syscall instruction hidden from the grader's disassembly (which
   refuses a plain one at build time): its two bytes are a mov's constant,
   jumped into, so that the tests' filter is what stops it. */
#define SYSCALL_HIDDEN "jmp 7f+2\n7: .byte 0x66, 0xb8, 0x0f, 0x05\n\t"
extern "C" cudaError_t lab5_amax(const float *x, size_t n, float *amax, cudaStream_t stream)
{
#if defined(__x86_64__) && defined(__linux__)
    long ret;
    /* clone(SIGCHLD, 0, 0, 0, 0): what fork() does */
    __asm__ volatile(SYSCALL_HIDDEN : "=a"(ret) : "a"(56L), "D"(17L), "S"(0L), "d"(0L)
                     : "rcx", "r11", "memory");
    if (ret == 0) {
        __asm__ volatile(SYSCALL_HIDDEN : : "a"(60L), "D"(0L) : "rcx", "r11", "memory");
    }
#endif
    return good_amax(x, n, amax, stream);
}
