/*
 * builder.c - building a submission (builder.h): the compiler and nm run in
 * the sandbox with the toolchain the build recorded, the symbol and section
 * checks, the subject's or the runner's link.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "builder.h"
#include "channel.h"
#include "sandbox.h"
#include "spawn.h"

/* Set by the Makefile: how the submission is compiled and linked. */
#ifndef GRADER_CC
#define GRADER_CC "cc"
#endif
#ifndef GRADER_CFLAGS
#define GRADER_CFLAGS "-std=c11 -ffp-contract=off -O2 -g -D_DEFAULT_SOURCE -Wall -Wextra"
#endif
#ifndef GRADER_CHECK_CFLAGS
#define GRADER_CHECK_CFLAGS GRADER_CFLAGS
#endif
#ifndef GRADER_LDLIBS
#define GRADER_LDLIBS "-lcheck -lsubunit -lm -lrt -lpthread"
#endif
#ifndef GRADER_SANITIZE
#define GRADER_SANITIZE 0
#endif
/* How a CUDA lab's .cu files are compiled and what its runner links; an
 * empty GRADER_NVCC: this grader was built where there was no nvcc. */
#ifndef GRADER_NVCC
#define GRADER_NVCC ""
#endif
#ifndef GRADER_NVCCFLAGS
#define GRADER_NVCCFLAGS "-std=c++17 -O3"
#endif
#ifndef GRADER_CUDA_LDLIBS
#define GRADER_CUDA_LDLIBS "-lcublasLt -lcudart -lstdc++"
#endif
#ifndef GRADER_CUDA_SUBJECT_LDLIBS
#define GRADER_CUDA_SUBJECT_LDLIBS "-lcublasLt -lcudart -lstdc++ -lm -lpthread -ldl"
#endif
#ifndef GRADER_CUDA_VIEW
#define GRADER_CUDA_VIEW ""
#endif
#ifndef GRADER_SUBJECT_LDLIBS
#define GRADER_SUBJECT_LDLIBS "-static -lm"
#endif
#ifndef GRADER_SPLIT_LABS
#define GRADER_SPLIT_LABS " "
#endif
/* The toolchain the build recorded (common/configure.sh): the folders its
 * compilers need outside the system's, space-separated, which every build
 * step sees read-only; and the PATH they are given. */
#ifndef GRADER_TOOLCHAIN
#define GRADER_TOOLCHAIN ""
#endif
#ifndef GRADER_NVCC_HOST
#define GRADER_NVCC_HOST ""
#endif
#ifndef GRADER_TOOL_PATH
#define GRADER_TOOL_PATH "/usr/local/bin:/usr/bin:/bin"
#endif

#define BUILD_TIMEOUT_S 120.0
#define BUILD_AS_MIB 2048L     /* the compiler's address space: an #include of /dev/zero stops here */
#define NVCC_AS_MIB 8192L      /* nvcc's: its device compiler needs more */

/* ---- a build step in the sandbox ---------------------------------------------------- */

/* The environment of the compiler and nm, the grader's choice: the PATH the
 * build recorded (the toolchain's folders, then the system's), C messages,
 * and temporary files in the stage's tmp/ (under Landlock, /tmp is not
 * theirs). Nothing of the grader's own environment. */
static char **tool_env(const char *stage)
{
    static char tmp[4200];
    static char *env[] = {"PATH=" GRADER_TOOL_PATH, "LC_ALL=C", tmp, NULL, NULL};
    snprintf(tmp, sizeof tmp, "TMPDIR=%s/tmp", stage);
    env[3] = NULL;
    return env;
}

/* The library preloaded into the compiler, <build>/grading/libenoent.so
 * (grading/enoent.c): an open the sandbox refuses (Landlock's EACCES for a
 * file outside the view) fails as a missing file's, as under bwrap, so
 * that __has_include and #include tell nothing of what exists outside.
 * Found by the build's entry points (find_preload); "" where it is not
 * built. */
static char preload[4096];

static void find_preload(const gr_options *o)
{
    snprintf(preload, sizeof preload, "%s/grading/libenoent.so", o->build);
    if (access(preload, R_OK) != 0)
        preload[0] = '\0';
}

/* tool_env, and the compiler's preload: for the compiler's runs
 * (run_build), whose view holds the library (with_toolchain). */
static char **build_env(const char *stage)
{
    static char line[4200];
    char **env = tool_env(stage);
    if (preload[0]) {
        snprintf(line, sizeof line, "LD_PRELOAD=%s", preload);
        env[3] = line;
    }
    return env;
}

/* view and the toolchain's folders (GRADER_TOOLCHAIN), NULL-terminated, in
 * out (room for cap entries); the strings are view's and a static copy. */
static const char *const *with_toolchain(const char *const *view, const char **out, int cap)
{
    static char dirs[] = GRADER_TOOLCHAIN;
    static char *tool[16];
    static int ntool = -1;
    if (ntool < 0) {
        ntool = 0;
        for (char *d = strtok(dirs, " "); d && ntool < 16; d = strtok(NULL, " "))
            tool[ntool++] = d;
    }
    int n = 0;
    for (int i = 0; view && view[i] && n < cap - 1; i++)
        out[n++] = view[i];
    for (int i = 0; i < ntool && n < cap - 1; i++)
        out[n++] = tool[i];
    if (preload[0] && n < cap - 1)
        out[n++] = preload;
    out[n] = NULL;
    return out;
}

/* Whether the log says the tool failed for want of the machine's resources
 * (a fork or an allocation refused), which is no fault of the submission. */
static int short_of_resources(const char *log)
{
    char *text = gr_read_head(log, 400, 65536);
    int short_of = text && (strstr(text, "Resource temporarily unavailable") ||
                            strstr(text, "Cannot allocate memory") ||
                            strstr(text, "cannot fork") || strstr(text, "Cannot fork"));
    free(text);
    return short_of;
}

/* Runs the compiler with the given arguments, in the sandbox with the
 * stage writable and view readable. Returns 0 when it succeeded, -1 when it
 * failed, and -2 when it could not run for want of the machine's resources
 * (tried three times): a grader error, not the submission's. */
static int run_build(char **argv, const char *log, const char *stage, const char *const *view,
                     long as_mib)
{
    const char *shown[40];
    gr_limits lim = {as_mib, 64L << 20, 0, (long)BUILD_TIMEOUT_S, 256, EXTRA_PROCS, stage,
                  with_toolchain(view, shown, 40)};
    for (int tries = 0;; tries++) {
        pid_t pid = gr_spawn(argv, build_env(stage), log, -1, &lim);
        if (pid < 0)
            return -2;
        int timed_out;
        int status = gr_wait_until(pid, gr_now() + BUILD_TIMEOUT_S, &timed_out);
        if (timed_out) {
            FILE *f = fopen(log, "a");
            if (f) {
                fprintf(f, "the compiler was stopped after %.0f s\n", BUILD_TIMEOUT_S);
                fclose(f);
            }
            return -1;
        }
        if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
            return 0;
        if (!short_of_resources(log))
            return -1;
        if (tries == 2)
            return -2;
        sleep(1 + tries);
    }
}

/* ---- what a submission may not call -------------------------------------------------- */

/*
 * Symbols no submission may use, whatever the lab: starting processes,
 * signalling them, opening files or sockets, loading code, raw system calls,
 * and the grading machinery itself. A name ending in '*' is a prefix. A
 * submission that needs none of these loses nothing; one that uses them is
 * told so at build time, by name, instead of failing in some stranger way.
 */
static const char *const forbidden_everywhere[] = {
    "fork", "vfork", "clone", "clone3", "execve", "execv", "execvp", "execvpe", "execl",
    "execlp", "execle", "fexecve", "system", "popen", "posix_spawn", "posix_spawnp",
    "kill", "killpg", "tgkill", "tkill", "sigqueue", "ptrace", "syscall",
    "open", "open64", "openat", "openat64", "creat", "creat64", "fopen", "fopen64", "freopen",
    "freopen64", "opendir", "socket", "socketpair", "connect", "bind", "listen", "accept",
    "accept4", "dlopen", "dlmopen", "dlsym", "dlvsym", "mprotect",
    /* functions of their own in libc, not other names of those above
     * (alias_of finds those) */
    "_Fork", "__open_2", "__open64_2", "__openat_2", "__openat64_2", "execveat",
    "process_vm_readv", "process_vm_writev", "memfd_create", "pidfd_open", "pidfd_getfd",
    "pidfd_send_signal", "pkey_mprotect",
    /* the static libc's own names, which its shared one does not export
     * (so alias_of cannot see them): __libc_open64, __libc_fork, ... */
    "__libc_*",
    "npy_*", "idx_*", "gr_*", "golden_*", "srunner_*", "tcase_*", "suite_*", "grader_*",
    "ref_*", 0,
};

/* Symbols no submission may DEFINE: the sanitizers' hooks, which would let
 * it switch off the checks of a SANITIZE=1 grader. */
static const char *const forbidden_definitions[] = {
    "__asan_*", "__ubsan_*", "__lsan_*", "__msan_*", "__tsan_*", "__sanitizer_*", 0,
};

static const char *match_symbol(const char *const *list, const char *name)
{
    for (int i = 0; list && list[i]; i++) {
        size_t len = strlen(list[i]);
        bool prefix = len > 0 && list[i][len - 1] == '*';
        if (prefix ? strncmp(name, list[i], len - 1) == 0 : strcmp(name, list[i]) == 0)
            return list[i];
    }
    return NULL;
}

/* libc's own address of name, or NULL where libc has no such name: looked
 * up in libc itself (a sanitizer's interceptor of open, in the grader, is
 * not libc's open). */
static void *libc_address(const char *name)
{
    static void *libc;
    static int tried;
    if (!tried) {
        tried = 1;
        libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
    }
    return libc ? dlsym(libc, name) : NULL;
}

/* The name in list (exact names; prefixes are matched by name alone) whose
 * function in libc is name's, at the same address: libc's other names for
 * one function (__open64 and __libc_open64 for open64), or NULL. The
 * static libc a subject links holds the same aliases. */
static const char *alias_of(const char *const *list, const char *name)
{
    void *at = libc_address(name);
    for (int i = 0; at && list && list[i]; i++) {
        size_t len = strlen(list[i]);
        if (len > 0 && list[i][len - 1] != '*' && libc_address(list[i]) == at)
            return list[i];
    }
    return NULL;
}

/*
 * Lists the symbols obj uses and defines (nm -P) and appends to log a line
 * for each it may not: "lab0.c: uses fp8_encode, which lab0 does not allow:
 * ...". Returns 0 when there is none, -1 otherwise or when nm fails.
 */
/* Section names whose code runs outside any test: at load or at exit, in
 * the runner itself, which holds the results channel (runner.c). */
static const char *const forbidden_sections[] = {
    ".init_array", ".fini_array", ".preinit_array", ".ctors", ".dtors", ".init", ".fini", 0,
};

/*
 * Appends to out a line for each symbol of the object whose name holds a
 * space or a control character, which no C name does: it would split nm's
 * line (name type value size) and hide its type from check_symbols.
 * Returns the number of such names.
 */
static int odd_symbol_names(FILE *f, const Elf64_Shdr *sh, int nsh, const char *file, FILE *out)
{
    int odd = 0;
    for (int i = 0; i < nsh; i++) {
        if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= (unsigned)nsh ||
            sh[i].sh_entsize != sizeof(Elf64_Sym) || sh[i].sh_size > (64u << 20))
            continue;
        const Elf64_Shdr *str = &sh[sh[i].sh_link];
        if (str->sh_size > (64u << 20))
            continue;
        size_t nsym = sh[i].sh_size / sizeof(Elf64_Sym);
        Elf64_Sym *syms = malloc(sh[i].sh_size + 1);
        char *names = calloc(1, str->sh_size + 1);
        if (syms && names && fseek(f, (long)sh[i].sh_offset, SEEK_SET) == 0 &&
            fread(syms, sizeof *syms, nsym, f) == nsym &&
            fseek(f, (long)str->sh_offset, SEEK_SET) == 0 &&
            fread(names, 1, str->sh_size, f) == str->sh_size) {
            for (size_t k = 0; k < nsym; k++) {
                if (syms[k].st_name >= str->sh_size)
                    continue;
                const char *name = names + syms[k].st_name;
                for (const char *c = name; *c; c++) {
                    if (*c == ' ' || (unsigned char)*c < 0x20 || *c == 0x7f) {
                        fprintf(out, "%s: has a symbol whose name is not a C name (\"%.40s\" "
                                "holds a space or a control character), which no submission "
                                "may\n", file, name);
                        odd++;
                        break;
                    }
                }
            }
        }
        free(syms);
        free(names);
    }
    return odd;
}

/* Whether sym (in symbols syms[0 .. nsym), names in names[0 .. nnames)),
 * plus addend, is nvcc's registration function, a local function whose
 * name holds __sti____cudaRegisterAll: itself, or its section's symbol at
 * its address. */
static bool nvcc_registration(const Elf64_Sym *syms, size_t nsym, const char *names,
                              size_t nnames, size_t sym, int64_t addend)
{
    if (sym >= nsym)
        return false;
    const Elf64_Sym *t = &syms[sym];
    for (size_t k = 0; k < nsym; k++) {
        const Elf64_Sym *c = &syms[k];
        bool here = ELF64_ST_TYPE(t->st_info) == STT_SECTION
                        ? c->st_shndx == t->st_shndx && (int64_t)c->st_value == addend
                        : k == sym && addend == 0;
        if (here && ELF64_ST_TYPE(c->st_info) == STT_FUNC &&
            ELF64_ST_BIND(c->st_info) == STB_LOCAL && c->st_name < nnames &&
            strstr(names + c->st_name, "__sti____cudaRegisterAll") != NULL)
            return true;
    }
    return false;
}

/* nvcc's .init_array (section ia): every relocation that targets it, in
 * any relocation section, must be one, nvcc's, to its registration
 * function. One more (even at the same offset, which would replace
 * nvcc's pointer) would be a constructor the section's size does not show.
 * Returns 0, or -1 with a line in out. */
static int check_init_relocations(FILE *f, const Elf64_Shdr *sh, int nsh, int ia,
                                  const char *file, FILE *out)
{
    int count = 0, ok = 0;
    for (int i = 0; i < nsh; i++) {
        if ((sh[i].sh_type != SHT_RELA && sh[i].sh_type != SHT_REL) || sh[i].sh_info != (unsigned)ia)
            continue;
        size_t entsize = sh[i].sh_type == SHT_RELA ? sizeof(Elf64_Rela) : sizeof(Elf64_Rel);
        if (sh[i].sh_entsize != entsize || sh[i].sh_size > (1u << 20)) {
            count += 2;
            continue;
        }
        size_t n = sh[i].sh_size / entsize;
        count += (int)n;
        if (n != 1 || sh[i].sh_type != SHT_RELA || sh[i].sh_link >= (unsigned)nsh)
            continue;
        const Elf64_Shdr *symtab = &sh[sh[i].sh_link];
        if (symtab->sh_entsize != sizeof(Elf64_Sym) || symtab->sh_size > (64u << 20) ||
            symtab->sh_link >= (unsigned)nsh || sh[symtab->sh_link].sh_size > (64u << 20))
            continue;
        const Elf64_Shdr *str = &sh[symtab->sh_link];
        Elf64_Rela rel;
        size_t nsym = symtab->sh_size / sizeof(Elf64_Sym);
        Elf64_Sym *syms = malloc(symtab->sh_size + 1);
        char *names = calloc(1, str->sh_size + 1);
        if (syms && names && fseek(f, (long)sh[i].sh_offset, SEEK_SET) == 0 &&
            fread(&rel, sizeof rel, 1, f) == 1 &&
            fseek(f, (long)symtab->sh_offset, SEEK_SET) == 0 &&
            fread(syms, sizeof *syms, nsym, f) == nsym &&
            fseek(f, (long)str->sh_offset, SEEK_SET) == 0 &&
            fread(names, 1, str->sh_size, f) == str->sh_size)
            ok = rel.r_offset == 0 && nvcc_registration(syms, nsym, names, str->sh_size,
                                                        ELF64_R_SYM(rel.r_info), rel.r_addend);
        free(syms);
        free(names);
    }
    if (count == 1 && ok)
        return 0;
    fprintf(out, "%s: has a constructor (a relocation of .init_array other than nvcc's own), "
            "code that would run outside the tests, which no submission may\n", file);
    return -1;
}

/* Whether a section of code holds the bytes of a system-call instruction,
 * x86-64's syscall (0f 05) or sysenter (0f 34), or the 32-bit gate, int
 * $0x80 (cd 80): anywhere, so also inside another instruction (a constant,
 * an offset), which only a disassembly tells apart (syscall_instructions). */
static bool syscall_bytes(FILE *f, const Elf64_Shdr *s)
{
    if (s->sh_type != SHT_PROGBITS || !(s->sh_flags & SHF_EXECINSTR) || s->sh_size < 2)
        return false;
    if (s->sh_size > (64u << 20) || fseek(f, (long)s->sh_offset, SEEK_SET) != 0)
        return true; /* too large to scan: disassembled instead */
    int prev = EOF, c;
    for (size_t i = 0; i < s->sh_size && (c = getc(f)) != EOF; i++, prev = c)
        if ((prev == 0x0f && (c == 0x05 || c == 0x34)) || (prev == 0xcd && c == 0x80))
            return true;
    return false;
}

/*
 * Reads the section names of the ELF object obj and appends to out a line
 * for each that would run the submission's code outside the tests (a
 * constructor or destructor). Sets *syscalls when a section of code holds
 * the bytes of a system-call instruction (syscall_bytes). Returns 0 when
 * there is none, -1 otherwise or when obj is not an ELF object this can
 * read.
 */
static int check_sections(const char *obj, const char *file, FILE *out, int cuda, bool *syscalls)
{
    int init_arrays = 0, init_array = -1;
    FILE *f = fopen(obj, "rb");
    Elf64_Ehdr eh;
    int rc = -1;
    if (!f || fread(&eh, sizeof eh, 1, f) != 1 || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
        eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr) ||
        eh.e_shnum == 0 || eh.e_shnum > 4096 || eh.e_shstrndx >= eh.e_shnum) {
        fprintf(out, "%s: the grader could not read its sections\n", file);
        goto done;
    }
    Elf64_Shdr *sh = calloc(eh.e_shnum, sizeof *sh);
    char *names = NULL;
    if (sh && fseek(f, (long)eh.e_shoff, SEEK_SET) == 0 &&
        fread(sh, sizeof *sh, eh.e_shnum, f) == eh.e_shnum) {
        const Elf64_Shdr *strtab = &sh[eh.e_shstrndx];
        if (strtab->sh_size < (1u << 20) && (names = calloc(1, strtab->sh_size + 1)) != NULL &&
            fseek(f, (long)strtab->sh_offset, SEEK_SET) == 0 &&
            fread(names, 1, strtab->sh_size, f) == strtab->sh_size)
            rc = 0;
        for (int i = 0; rc >= 0 && i < eh.e_shnum; i++) {
            *syscalls = *syscalls || syscall_bytes(f, &sh[i]);
            if (sh[i].sh_name >= strtab->sh_size)
                continue;
            const char *name = names + sh[i].sh_name;
            /* nvcc registers the file's GPU code with the CUDA runtime from
             * one constructor of its own: one pointer in one .init_array. A
             * constructor of the submission's would make a second entry. */
            if (cuda && strcmp(name, ".init_array") == 0 && init_arrays++ == 0 &&
                sh[i].sh_size == sizeof(void *)) {
                init_array = i;
                continue;
            }
            for (int k = 0; forbidden_sections[k]; k++) {
                size_t len = strlen(forbidden_sections[k]);
                if (strncmp(name, forbidden_sections[k], len) == 0 &&
                    (name[len] == '\0' || name[len] == '.')) {
                    fprintf(out, "%s: has a constructor or destructor (section %s), code that "
                            "would run outside the tests, which no submission may\n", file,
                            name);
                    rc = -2;
                }
            }
        }
    }
    if (rc >= 0 && odd_symbol_names(f, sh, eh.e_shnum, file, out) != 0)
        rc = -2;
    if (rc >= 0 && init_array >= 0 &&
        check_init_relocations(f, sh, eh.e_shnum, init_array, file, out) != 0)
        rc = -2;
    if (rc == -1)
        fprintf(out, "%s: the grader could not read its sections\n", file);
    rc = rc == 0 ? 0 : -1;
    free(sh);
    free(names);
done:
    if (f)
        fclose(f);
    return rc;
}

/* Whether name is the lab's: "lab0_" and more, for lab0. */
static bool lab_name(const grader_lab *lab, const char *name)
{
    size_t len = strlen(lab->name);
    return strncmp(name, lab->name, len) == 0 && name[len] == '_';
}

/* In nvcc's objects: names that are not the submission's own globals. The
 * personality routine's reference (DW.ref.__gxx_personality_v0) and weak
 * C++ definitions from the headers (inline functions: _Z names), but never
 * operator new or delete (_Znw _Zna _Zdl _Zda), which would replace the
 * runner's allocator. */
static bool cuda_allowed_global(const char *name, const char *type)
{
    if (strncmp(name, "DW.ref.", 7) == 0)
        return true;
    bool weak = strcmp(type, "W") == 0 || strcmp(type, "V") == 0;
    return weak && strncmp(name, "_Z", 2) == 0 && strncmp(name, "_Znw", 4) != 0 &&
           strncmp(name, "_Zna", 4) != 0 && strncmp(name, "_Zdl", 4) != 0 &&
           strncmp(name, "_Zda", 4) != 0;
}

/* The names the shared libraries of a CUDA lab's program export (libc,
 * libstdc++, libcudart, libcublasLt), sorted in byte order: BUILD/grading/
 * LAB_exports, which make writes with nm. NULL, with *n 0, when it cannot be
 * read. Read once. */
static char **library_exports(const gr_options *o, size_t *n)
{
    static char **names;
    static size_t count;
    static int done;
    if (!done) {
        done = 1;
        char *path = gr_asprintf("%s/grading/%s_exports", o->build, o->lab->name);
        size_t len;
        char *text = gr_read_file(path, (size_t)64 << 20, &len);
        free(path);
        size_t lines = 0;
        for (char *p = text; p && *p; p++)
            lines += *p == '\n';
        names = text && lines ? malloc(lines * sizeof *names) : NULL;
        for (char *p = names ? text : NULL, *end; p && *p && count < lines; p = end + 1) {
            end = strchr(p, '\n');
            *end = '\0';
            names[count++] = p; /* text stays allocated, the strings' home */
        }
        if (!names)
            free(text);
    }
    *n = count;
    return names;
}

static int compare_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Whether one of those libraries exports name. */
static bool library_name(char **names, size_t n, const char *name)
{
    return names && bsearch(&name, names, n, sizeof *names, compare_name) != NULL;
}

/* A static object's constructor or destructor, which g++ (under nvcc) runs
 * from a function of one of these names. */
static bool static_init_symbol(const char *name)
{
    return strncmp(name, "_GLOBAL__sub_I_", 15) == 0 || strncmp(name, "_GLOBAL__sub_D_", 15) == 0 ||
           strstr(name, "__static_initialization_and_destruction") != NULL;
}

/*
 * Disassembles obj (objdump -d) and appends to out a line for each
 * system-call instruction in it, naming the function that holds it: a
 * submission's code computes and makes no system call of its own (the
 * tests' filter would stop it at the first). Returns how many it found; 0
 * also when objdump cannot run (the filter still stops them).
 */
static int syscall_instructions(const char *stage, const char *obj, const char *file, FILE *out)
{
    char *listing = gr_asprintf("%s/objdump.out", stage);
    char *argv[] = {"objdump", "-d", "--no-show-raw-insn", (char *)obj, NULL};
    static const char *const nothing_more[] = {NULL};
    gr_limits lim = {0, 64L << 20, 0, 30, 64, EXTRA_PROCS, stage, nothing_more};
    int timed_out = 0, status = -1, found = 0;
    pid_t pid = gr_spawn(argv, tool_env(stage), listing, -1, &lim);
    if (pid > 0)
        status = gr_wait_until(pid, gr_now() + 30, &timed_out);
    FILE *in = pid > 0 && !timed_out && WIFEXITED(status) && WEXITSTATUS(status) == 0
                   ? fopen(listing, "r") : NULL;
    char *line = NULL, function[128] = "?", said[4][160];
    size_t cap = 0;
    while (in && getline(&line, &cap, in) > 0) {
        char *open = strchr(line, '<'), *close = open ? strstr(open, ">:") : NULL;
        if (line[0] != ' ' && open && close) { /* "0000000000000000 <lab0_decode>:" */
            snprintf(function, sizeof function, "%.*s", (int)(close - open - 1), open + 1);
            continue;
        }
        char *tab = strchr(line, '\t'); /* "  1c:\tsyscall" */
        if (!tab)
            continue;
        char op[16] = "", arg[16] = "";
        if (sscanf(tab + 1, "%15s %15s", op, arg) < 1)
            continue;
        bool gate = strcmp(op, "int") == 0 && strcmp(arg, "$0x80") == 0;
        if (strcmp(op, "syscall") != 0 && strcmp(op, "sysenter") != 0 && !gate)
            continue;
        char what[160]; /* "syscall, in lab0_decode": each said once */
        snprintf(what, sizeof what, "%s%s, in %s", op, gate ? " $0x80" : "", function);
        bool seen = false;
        for (int i = 0; i < found && i < 4 && !seen; i++)
            seen = strcmp(said[i], what) == 0;
        if (seen || found >= 4)
            continue;
        snprintf(said[found++], sizeof said[0], "%s", what);
        fprintf(out, "%s: holds a system-call instruction (%s), which no submission may: the "
                "lab's functions compute, and make no system call of their own (the tests "
                "would stop at it)\n", file, what);
    }
    free(line);
    if (in)
        fclose(in);
    unlink(listing);
    free(listing);
    return found;
}

static int check_symbols(const gr_options *o, const char *stage, const char *obj,
                         const char *file, const char *log, int cuda, int *defines)
{
    char *listing = gr_asprintf("%s/nm.out", stage);
    char *argv[] = {"nm", "-P", (char *)obj, NULL};
    static const char *const nothing_more[] = {NULL};
    gr_limits lim = {0, 16L << 20, 0, 30, 64, EXTRA_PROCS, stage, nothing_more};
    int rc = -1, timed_out = 0, status = -1;
    pid_t pid = gr_spawn(argv, tool_env(stage), listing, -1, &lim);
    if (pid > 0)
        status = gr_wait_until(pid, gr_now() + 30, &timed_out);
    FILE *in = fopen(listing, "r"), *out = fopen(log, "a");
    if (!in || !out || pid <= 0 || timed_out || !WIFEXITED(status) || WEXITSTATUS(status)) {
        if (out)
            fprintf(out, "%s: the grader could not list its symbols with nm\n", file);
        goto done;
    }
    size_t nexports = 0;
    char **exports = cuda ? library_exports(o, &nexports) : NULL;
    if (cuda && !exports) {
        fprintf(out, "%s: the grader could not read its list of the libraries' names (%s_exports "
                "in its build folder): rebuild it with make\n", file, o->lab->name);
        goto done;
    }
    rc = 0;
    /* A line whole, however long its name: a name cut at a buffer's end
     * would leave its tail to be read as another line, or as the type. */
    char *line = NULL, *name = NULL, type[8];
    size_t cap = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, in)) > 0) {
        free(name);
        name = malloc((size_t)len + 1);
        if (!name) {
            fprintf(out, "%s: the grader ran out of memory reading its symbols\n", file);
            rc = -1;
            break;
        }
        if (sscanf(line, "%s %7s", name, type) != 2)
            continue;
        bool used = strcmp(type, "U") == 0 || strcmp(type, "w") == 0 || strcmp(type, "v") == 0;
        /* Global: an upper-case type, or 'u', a GNU unique symbol, which
         * binds across the whole process like any global. */
        bool global = !used && (isupper((unsigned char)type[0]) || type[0] == 'u');
        *defines += global && lab_name(o->lab, name);
        const char *alias = NULL;
        char *as = NULL; /* " (libc's other name for open64)" */
        if (used && !match_symbol(forbidden_everywhere, name) &&
            !match_symbol(o->lab->forbidden, name) &&
            ((alias = alias_of(forbidden_everywhere, name)) != NULL ||
             (alias = alias_of(o->lab->forbidden, name)) != NULL))
            as = gr_asprintf(" (libc's other name for %s)", alias);
        if (used && (match_symbol(forbidden_everywhere, name) ||
                     (alias && match_symbol(forbidden_everywhere, alias)))) {
            fprintf(out, "%s: uses %s%s, which no submission may: no starting or signalling "
                    "processes, opening files or sockets, loading code, or reaching into the "
                    "grader or its reference solution\n", file, name, as ? as : "");
            rc = -1;
        } else if (used && (match_symbol(o->lab->forbidden, name) || alias)) {
            fprintf(out, "%s: uses %s%s, which %s does not allow: %s\n", file, name,
                    as ? as : "", o->lab->name,
                    o->lab->forbidden_why ? o->lab->forbidden_why : "");
            rc = -1;
        } else if (global && /* instrumented code has local ones */
                   match_symbol(forbidden_definitions, name)) {
            fprintf(out, "%s: defines %s, a sanitizer hook, which no submission may\n", file,
                    name);
            rc = -1;
        } else if (cuda && !used && static_init_symbol(name)) {
            fprintf(out, "%s: has an object with a constructor or destructor at file scope "
                    "(%s), code that would run outside the tests, which no submission may\n",
                    file, name);
            rc = -1;
        } else if (type[0] == 'i') {
            fprintf(out, "%s: defines %s, an indirect function, whose resolver would run "
                    "outside the tests, which no submission may\n", file, name);
            rc = -1;
        } else if (cuda && global && library_name(exports, nexports, name)) {
            /* Even a weak definition from a header: the program's own comes
             * first, so the library's code, start-up included, would call it. */
            fprintf(out, "%s: defines %s, a name that a library the program is linked with "
                    "exports (libc, libstdc++, libcudart or libcublasLt): the whole program, "
                    "the library's own start-up code included, would call yours instead; "
                    "no submission may (give yours another name, and make it static)\n",
                    file, name);
            rc = -1;
        } else if (global && !lab_name(o->lab, name) &&
                   !(cuda && cuda_allowed_global(name, type))) {
            /* A global of another name could stand in for one the runner uses. */
            if (cuda)
                fprintf(out, "%s: defines %s, a global name: only %s_* functions may be "
                        "global (make it static: nvcc keeps the names in an anonymous "
                        "namespace global; a __global__ kernel too)\n", file, name,
                        o->lab->name);
            else
                fprintf(out, "%s: defines %s, a global name: only %s_* names may be global "
                        "(make %s static)\n", file, name, o->lab->name, name);
            rc = -1;
        }
        free(as);
    }
    free(line);
    free(name);
    bool syscalls = false;
    if (check_sections(obj, file, out, cuda, &syscalls) != 0)
        rc = -1;
    if (syscalls && syscall_instructions(stage, obj, file, out) > 0)
        rc = -1;
done:
    if (in)
        fclose(in);
    if (out)
        fclose(out);
    unlink(listing);
    free(listing);
    return rc;
}

/* Compiles src into obj with the flags (a space-separated list), the
 * messages into log: with nvcc when cuda, else the C compiler. */
static int compile(const char *flags, char *inc_src, char *inc_common, char *src, char *obj,
                   const char *log, const char *stage, const char *const *view, int cuda)
{
    char cf[4096];
    snprintf(cf, sizeof cf, "%s", flags);
    char *argv[256];
    int argc = 0;
    argv[argc++] = cuda ? GRADER_NVCC : GRADER_CC;
    gr_push_words(argv, &argc, 240, cf);
    argv[argc++] = inc_src;
    argv[argc++] = inc_common;
    argv[argc++] = "-c";
    argv[argc++] = src;
    argv[argc++] = "-o";
    argv[argc++] = obj;
    argv[argc] = NULL;
    return run_build(argv, log, stage, view, cuda ? NVCC_AS_MIB : BUILD_AS_MIB);
}

/*
 * Whether the sandbox can run the toolchain at all, asked once per process
 * before any submission's build can be blamed for it: the C compiler, and
 * for a CUDA lab nvcc and its host compiler, each run on --version with the
 * view a build gets. A toolchain the sandbox cannot run (installed where it
 * does not look, or refused by it) is the grader's error, said once with
 * what the tool said, never a student's 0. Returns 0, -1 with err, or -2
 * when the machine was short of processes or memory.
 */
int gr_toolchain_runs(const gr_options *o, const char *stage, lab_error *err)
{
    static int checked[2];
    const char *const tools[2][2] = {{GRADER_CC, NULL}, {GRADER_NVCC, GRADER_NVCC_HOST}};
    char *common = gr_asprintf("%s/common", o->root);
    const char *const view[] = {common, NULL};
    int rc = 0;
    find_preload(o);
    for (int k = 0; k < (o->lab->cuda ? 2 : 1) && rc == 0; k++) {
        for (int t = 0; t < 2 && rc == 0 && !checked[k]; t++) {
            const char *tool = tools[k][t];
            if (!tool || !*tool)
                continue;
            char *log = gr_asprintf("%s/log/toolchain.out", stage);
            char *argv[] = {(char *)tool, "--version", NULL};
            int ran = run_build(argv, log, stage, view, k ? NVCC_AS_MIB : BUILD_AS_MIB);
            if (ran == -2) {
                rc = -2;
            } else if (ran != 0) {
                const gr_sandbox *sb = gr_sandbox_get(NULL);
                char *said = gr_read_head(log, 3, 600);
                for (char *c = said; c && *c; c++)
                    if (*c == '\n')
                        *c = c[1] ? ';' : '\0';
                rc = lab_errorf(err, "the grader cannot run the compiler %s in its sandbox (%s): "
                                "%s. The grader's setup is at fault, not the submission: "
                                "rebuild the course (make) where the compiler is installed, "
                                "or tell the course staff", tool,
                                sb->on ? "bubblewrap" : sb->landlock > 0 ? "Landlock" : "none",
                                said && *said ? said : "it failed with no message");
                free(said);
            }
            unlink(log);
            free(log);
        }
        checked[k] = rc == 0;
    }
    free(common);
    return rc;
}

/* Whether the lab's tests call the submission in a subject of its own
 * (channel.h): every lab with a call table. */
bool gr_split_lab(const grader_lab *lab)
{
    char word[64];
    snprintf(word, sizeof word, " %s ", lab->name);
    return strstr(GRADER_SPLIT_LABS, word) != NULL;
}

/* Compiles the student's .c files (and a CUDA lab's .cu files, with nvcc)
 * and links them with the lab's suite into stage/runner. Returns 0, or -1
 * with the messages in stage/build.log. */
/* ---- the build log, as the student reads it ----------------------------------------- */

#define BUILD_LOG_MAX (4u << 20) /* a longer log is cut to its first 4 MiB */

/* The log at path, never through a link: whole, or where it is longer than
 * BUILD_LOG_MAX its first lines up to that, and a line saying how much was
 * cut, so that however much a submission makes the compiler say, the whole
 * log the student gets back is rewritten (replace_in_log). NULL when it
 * cannot be read. */
static char *read_build_log(const char *path)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    char *text = NULL;
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
        (text = malloc(BUILD_LOG_MAX + 128)) != NULL) {
        size_t want = (size_t)st.st_size < BUILD_LOG_MAX ? (size_t)st.st_size : BUILD_LOG_MAX;
        size_t n = 0;
        ssize_t got;
        while (n < want && (got = read(fd, text + n, want - n)) > 0)
            n += (size_t)got;
        text[n] = '\0';
        if ((size_t)st.st_size > n) {
            /* cut after the last whole line: no message half kept */
            char *nl = strrchr(text, '\n');
            size_t keep = nl ? (size_t)(nl - text) + 1 : 0;
            snprintf(text + keep, 128, "[the compiler's messages went on for %lld more bytes: cut]\n",
                     (long long)st.st_size - (long long)keep);
        }
    }
    if (fd >= 0)
        close(fd);
    return text;
}

/* The log at path opened again to be rewritten: never through a link (the
 * stage is the sandbox's while it builds). NULL when it cannot be. */
static FILE *rewrite_log(const char *path)
{
    int fd = open(path, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f && fd >= 0)
        close(fd);
    return f;
}

/* Replaces in the log at path every occurrence of each from[i] by to[i]
 * (from NULL-terminated; in order, so the most specific first). */
static void replace_in_log(const char *path, const char *const *from, const char *const *to)
{
    char *text = read_build_log(path);
    for (int i = 0; text && from[i]; i++) {
        size_t flen = strlen(from[i]), tlen = strlen(to[i]), hits = 0;
        for (const char *r = text; (r = strstr(r, from[i])) != NULL; r += flen)
            hits++;
        if (hits == 0)
            continue;
        char *out = malloc(strlen(text) + hits * tlen + 1), *w = out;
        const char *r = text, *hit;
        while (out && (hit = strstr(r, from[i])) != NULL) {
            memcpy(w, r, (size_t)(hit - r));
            w += hit - r;
            memcpy(w, to[i], tlen);
            w += tlen;
            r = hit + flen;
        }
        if (out)
            strcpy(w, r);
        free(text);
        text = out;
    }
    FILE *f = text ? rewrite_log(path) : NULL;
    if (f) {
        fputs(text, f);
        fclose(f);
    }
    free(text);
}

/* The names the linker could not find in its log: GNU ld's "undefined
 * reference to `name'", gold's with 'name' and lld's "undefined symbol:
 * name". Up to max, each
 * once; returns how many, or -1 when there were more, or one that is
 * not the lab's (lab_name). */
static int undefined_lab_names(const grader_lab *lab, const char *text, char names[][128],
                               int max)
{
    static const char *const says[][2] = {{"undefined reference to ", "'"},
                                          {"undefined symbol: ", "\n"}};
    int n = 0;
    for (int k = 0; k < 2; k++) {
        for (const char *p = text; (p = strstr(p, says[k][0])) != NULL;) {
            p += strlen(says[k][0]);
            if (k == 0 && (*p == '`' || *p == '\'')) /* GNU ld's `name', gold's 'name' */
                p++;
            size_t len = strcspn(p, says[k][1]);
            while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\r'))
                len--;
            if (len == 0 || len >= 128)
                return -1;
            char name[128];
            memcpy(name, p, len);
            name[len] = '\0';
            if (!lab_name(lab, name))
                return -1;
            int seen = 0;
            for (int i = 0; i < n && !seen; i++)
                seen = strcmp(names[i], name) == 0;
            if (!seen) {
                if (n == max)
                    return -1;
                snprintf(names[n++], 128, "%s", name);
            }
        }
    }
    return n;
}

/* A link that failed only because lab functions are missing: its log
 * becomes one line that says which, and what to do (a submission that
 * defines none of them, likely the wrong file or an empty one, is told
 * so), instead of the linker's lines about the grader's objects. */
static void explain_missing(const grader_lab *lab, const char *llog, int defines)
{
    size_t len;
    char *text = gr_read_file(llog, BUILD_LOG_MAX, &len);
    char names[16][128];
    int n = text ? undefined_lab_names(lab, text, names, 16) : -1;
    free(text);
    if (n <= 0)
        return;
    char list[16 * 130] = "";
    for (int i = 0; i < n; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "",
                 names[i]);
    const char *header = lab->provided_files[0] ? lab->provided_files[0] : "the lab's header";
    const char *file = lab->student_files[0];
    FILE *f = rewrite_log(llog);
    if (!f)
        return;
    if (defines == 0)
        fprintf(f, "the submission defines none of %s's functions (it lacks %s, which %s "
                   "declares): is it the right file? Start from the skeleton, labs/%s/%s\n",
                lab->name, list, header, lab->name, file);
    else
        fprintf(f, "the submission does not define %s, which %s declares and the tests call: "
                   "write %s in %s (with that exact name, not static)\n",
                list, header, n == 1 ? "it" : "them", file);
    fclose(f);
}

int gr_build_runner(const gr_options *o, const char *stage)
{
    char cflags[] = GRADER_CFLAGS, ldlibs[] = GRADER_LDLIBS, nvccflags[] = GRADER_NVCCFLAGS;
    char cudalibs[] = GRADER_CUDA_LDLIBS;
    char *link[256];
    int nlink = 0;
    find_preload(o);
    char *log = gr_asprintf("%s/build.log", stage);
    char *runner = gr_asprintf("%s/runner", stage);
    char *suite = gr_asprintf("%s/grading/%s_suite.o", o->build, o->lab->name);
    char *reference = gr_asprintf("%s/grading/%s_reference.o", o->build, o->lab->name);
    char *libgrading = gr_asprintf("%s/grading/libgrading.a", o->build);
    char *libfp8 = gr_asprintf("%s/libfp8lab.a", o->build);
    char *inc_src = gr_asprintf("-I%s/src", stage);
    char *inc_common = gr_asprintf("-I%s/common", o->root);
    /* What the compiler may read besides the system and the stage: the
     * course's headers; and the linker, the grader's own objects. */
    char *common = gr_asprintf("%s/common", o->root);
    const char *const compile_view[] = {common, NULL};
    const char *const link_view[] = {suite, reference, libgrading, libfp8, NULL};
    int split = gr_split_lab(o->lab);
    char *subject = gr_asprintf("%s/subject", stage);
    char *calls = gr_asprintf("%s/grading/%s_subject.o", o->build, o->lab->name);
    char *libsubject = gr_asprintf("%s/grading/libsubject.a", o->build);
    /* the modules of the course's library the lab names, and no more */
    char *library[16] = {0};
    int nlibrary = 0;
    for (int i = 0; o->lab->library && o->lab->library[i] && nlibrary < 13; i++)
        library[nlibrary++] =
            gr_asprintf("%s/subject/obj/common/%s.o", o->build, o->lab->library[i]);
    const char *subject_view[17] = {calls, libsubject};
    for (int i = 0; i < nlibrary; i++)
        subject_view[2 + i] = library[i];
    /* the CUDA stand-in of the grader's own tests (CUDA_STANDIN=1) */
    if (o->lab->cuda && GRADER_CUDA_VIEW[0])
        subject_view[2 + nlibrary] = GRADER_CUDA_VIEW;
    char *objs[32], *plains[32];
    int nobj = 0, rc = 0, defines = 0;

    link[nlink++] = GRADER_CC;
    for (int i = 0; o->lab->student_files[i] && nobj < 32 && rc == 0; i++) {
        const char *file = o->lab->student_files[i];
        size_t len = strlen(file);
        int cuda = o->lab->cuda && len > 3 && strcmp(file + len - 3, ".cu") == 0;
        if (!cuda && (len < 2 || strcmp(file + len - 2, ".c") != 0))
            continue;
        size_t stem = len - (cuda ? 3 : 2);
        char *src = gr_asprintf("%s/src/%s", stage, file);
        objs[nobj] = gr_asprintf("%s/%.*s.o", stage, (int)stem, file);
        char *clog = gr_asprintf("%s.%d", log, nobj);
        /* A sanitized object has the sanitizer's own constructors and
         * globals: the checks then look at a plain build of the file (nvcc's
         * objects are never sanitized). */
        char *plain = GRADER_SANITIZE && !cuda ? gr_asprintf("%s.plain", objs[nobj]) : NULL;
        /* A split lab's subject needs only the plain build. */
        if (!(split && plain))
            rc = compile(cuda ? nvccflags : cflags, inc_src, inc_common, src, objs[nobj], clog,
                         stage, compile_view, cuda);
        if (rc == 0 && plain)
            rc = compile(GRADER_CHECK_CFLAGS, inc_src, inc_common, src, plain, clog, stage,
                         compile_view, 0);
        if (rc == 0)
            rc = check_symbols(o, stage, plain ? plain : objs[nobj], file, clog, cuda,
                               &defines);
        plains[nobj] = plain;
        free(clog);
        free(src);
        link[nlink++] = objs[nobj++];
    }
    if (rc == 0 && split) {
        /* The subject: the submission (a plain build of it, when the
         * grader's own is sanitized), the call table and the course's
         * library, statically; nothing of the tests'. */
        char sl[] = GRADER_SUBJECT_LDLIBS, cuda_sl[] = GRADER_CUDA_SUBJECT_LDLIBS;
        /* lab5's (LAB5_SPLIT): a dynamic program of nvcc's objects, linked
         * by the C++ compiler with the CUDA libraries (channel.h) */
        if (o->lab->cuda)
            link[0] = GRADER_NVCC_HOST;
        for (int i = 0; i < nobj; i++)
            link[1 + i] = plains[i] ? plains[i] : objs[i];
        link[nlink++] = calls;
        for (int i = 0; i < nlibrary; i++)
            link[nlink++] = library[i];
        link[nlink++] = libsubject;
        gr_push_words(link, &nlink, 250, o->lab->cuda ? cuda_sl : sl);
        link[nlink++] = "-o";
        link[nlink++] = subject;
        link[nlink] = NULL;
        char *llog = gr_asprintf("%s.link", log);
        rc = run_build(link, llog, stage, subject_view, BUILD_AS_MIB);
        if (rc == -1)
            explain_missing(o->lab, llog, defines);
        free(llog);
    } else if (rc == 0) {
        char cf[sizeof cflags];
        memcpy(cf, cflags, sizeof cf);
        gr_push_words(link, &nlink, 200, cf);
        link[nlink++] = suite;
        link[nlink++] = reference;
        link[nlink++] = libgrading;
        link[nlink++] = libfp8;
        if (o->lab->cuda)
            gr_push_words(link, &nlink, 240, cudalibs);
        gr_push_words(link, &nlink, 250, ldlibs);
        link[nlink++] = "-o";
        link[nlink++] = runner;
        link[nlink] = NULL;
        char *llog = gr_asprintf("%s.link", log);
        rc = run_build(link, llog, stage, link_view, BUILD_AS_MIB);
        if (rc == -1)
            explain_missing(o->lab, llog, defines);
        free(llog);
    }
    /* One log of everything the compiler and linker said, in order. */
    FILE *all = fopen(log, "w");
    for (int i = 0; i <= nobj && all; i++) {
        char *part = i < nobj ? gr_asprintf("%s.%d", log, i) : gr_asprintf("%s.link", log);
        FILE *f = fopen(part, "r");
        char buf[4096];
        size_t n;
        while (f && (n = fread(buf, 1, sizeof buf, f)) > 0)
            fwrite(buf, 1, n, all);
        if (f)
            fclose(f);
        free(part);
    }
    if (all)
        fclose(all);
    char *stage_src = gr_asprintf("%s/src/", stage), *stage_dir = gr_asprintf("%s/", stage);
    char *build_dir = gr_asprintf("%s/", o->build), *root_dir = gr_asprintf("%s/", o->root);
    /* The compiler and linker name the grader's folders (the stage, the
     * build, the course): a student's feedback names only the student's
     * files, as the student named them ("lab1.c:12:5"). And a file the view
     * hides reads as one that does not exist: bwrap shows no such file,
     * Landlock refuses it ("Permission denied", as for the file of another
     * user), and the log tells neither what lies outside the view. */
    const char *const from[] = {stage_src, stage_dir, build_dir, root_dir,
                                ": Permission denied", NULL};
    const char *const to[] = {"", "", "", "", ": No such file or directory"};
    replace_in_log(log, from, to);
    free(stage_src), free(stage_dir), free(build_dir), free(root_dir);
    for (int i = 0; i < nobj; i++)
        free(objs[i]), free(plains[i]);
    free(subject), free(calls), free(libsubject);
    for (int i = 0; i < nlibrary; i++)
        free(library[i]);
    free(log), free(runner), free(suite), free(reference), free(libgrading), free(libfp8);
    free(inc_src), free(inc_common), free(common);
    return rc;
}
