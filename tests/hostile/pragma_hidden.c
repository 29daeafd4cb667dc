/* Asks the compiler about /etc/shadow, a file outside its view: its build
   log must read as pragma_missing's, which asks about a file that does not
   exist (bwrap shows neither; Landlock refuses the first, as the file of
   another user). Which of the two exists is not for a student to learn.
   hostile: first */
#pragma GCC dependency "/etc/shadow"
