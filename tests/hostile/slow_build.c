/* Takes the compiler seconds (a table of 2^20 ones from a doubling macro):
   long enough for the batch to see it running, as an unprivileged user,
   with bwrap and without. It answers correctly. hostile: first */
#define P0 1,
#define P1 P0 P0
#define P2 P1 P1
#define P3 P2 P2
#define P4 P3 P3
#define P5 P4 P4
#define P6 P5 P5
#define P7 P6 P6
#define P8 P7 P7
#define P9 P8 P8
#define P10 P9 P9
#define P11 P10 P10
#define P12 P11 P11
#define P13 P12 P12
#define P14 P13 P13
#define P15 P14 P14
#define P16 P15 P15
#define P17 P16 P16
#define P18 P17 P17
#define P19 P18 P18
#define P20 P19 P19
__attribute__((used)) static const unsigned char pad_table[] = {P20};
