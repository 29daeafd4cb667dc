/* Includes itself without end, before anything else: the compiler stops at
   its nesting limit. hostile: first */
#include __FILE__
