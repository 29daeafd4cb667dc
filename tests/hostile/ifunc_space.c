/* An indirect function whose name holds a space ("early x"): nm prints
   "early x i ...", which a check splitting on spaces would read as a
   symbol "early" of type "x", and its resolver would run before main, in a
   static subject. Refused at build time by the name. */
__attribute__((used)) static void early_target(void) {}
__attribute__((used)) static void *early_resolver(void) { return (void *)early_target; }
__asm__(".type \"early x\", %gnu_indirect_function\n"
        ".set \"early x\", early_resolver\n"
        ".section .data.rel.ro,\"aw\"\n.p2align 3\n.quad \"early x\"\n.previous\n");
