/* Includes /etc/shadow, so that the compiler's messages would show it in
   the report: in the sandbox, as nobody, it cannot read it. hostile: first */
#include "/etc/shadow"
