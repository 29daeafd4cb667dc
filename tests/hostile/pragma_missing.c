/* Asks the compiler about a file that does not exist: what pragma_hidden's
   build log must read as. hostile: first */
#pragma GCC dependency "/etc/fp8lab-no-such-file"
