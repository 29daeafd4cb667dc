/*
 * fp8cli.c - the fp8 explorer: a command-line window onto the course's number
 * formats (fp8.h), used from lab0 on: the 8-, 6- and 4-bit formats, and FP16
 * and BF16 beside them for comparison.
 *
 *   fp8 explain VALUE...   how a float is stored: code, fields, formula,
 *                          rounding error, neighbours and which rule decided it;
 *                          with --compare, one line per format (fp32, bf16,
 *                          fp16, e4m3, e5m2): who keeps the value
 *   fp8 decode CODE...     what a code means: fields, class, exact value
 *   fp8 table [FORMAT]     every code of a format, one line each; for FP16 and
 *                          BF16 one line per binade (exponent field)
 *   fp8 info [FORMAT]      the parameters of the format table; FP16 and BF16
 *                          in a second table, with epsilon
 *
 * Everything it knows comes from fp8.h: the table row (fp8_info, fp16_info)
 * and the codec. It never decides a rounding itself; it encodes with the
 * library and then explains the result by comparing it with the neighbouring
 * values. The 16-bit formats go through the same code as the 8-bit ones, which
 * reads each format's width and fields from its row.
 *
 * Output is for people: aligned columns, values with %.9g (enough to name any
 * float exactly) and %a. Usage errors print one line and a hint to stderr and
 * exit with status 2.
 */
#include "fp8.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define EXIT_USAGE 2

static const char USAGE[] =
    "fp8 - explore the course's 8-, 6- and 4-bit floating-point formats, and\n"
    "      the 16-bit FP16 and BF16 beside them\n"
    "\n"
    "usage:\n"
    "  fp8 explain VALUE... [-f FORMAT] [--round nearest|zero|away]\n"
    "                       [--saturate | --no-saturate] [--compare]\n"
    "  fp8 decode CODE... [-f FORMAT]\n"
    "  fp8 table [FORMAT]\n"
    "  fp8 info [FORMAT]\n"
    "  fp8 help | --help | --version\n"
    "\n"
    "  explain   encode each VALUE and show the code, its fields, the formula,\n"
    "            the stored value, the rounding error, the representable\n"
    "            neighbours and the rule that picked the result; with --compare,\n"
    "            one line per format instead (fp32, bf16, fp16, e4m3, e5m2): code,\n"
    "            stored value, relative error, and whether it was kept, rounded,\n"
    "            flushed to zero or overflowed\n"
    "  decode    show the fields, class and exact value of each CODE\n"
    "  table     list every code of FORMAT with its value (default e4m3); for\n"
    "            fp16 and bf16 one line per binade (exponent field): its codes,\n"
    "            first and last value and spacing, for the positive codes\n"
    "  info      the parameters of FORMAT, or of every format; fp16 and bf16\n"
    "            in a table of their own, with machine epsilon\n"
    "\n"
    "  -f, --format FORMAT  e4m3 (default), e5m2, e8m0, e2m1, e3m2, e2m3, and the\n"
    "                       16-bit fp16 (or half, binary16, float16) and bf16 (or\n"
    "                       bfloat16); any case\n"
    "  -r, --round MODE     nearest (ties to even; default), zero, away\n"
    "  --saturate           overflow to max finite: the default for the 8-, 6- and\n"
    "                       4-bit formats\n"
    "  --no-saturate        overflow to inf, or to NaN where the format has no inf\n"
    "                       (e4m3, e8m0): the default for fp16 and bf16, as in\n"
    "                       IEEE 754 (e2m1, e3m2, e2m3 have neither: they saturate)\n"
    "\n"
    "  VALUE  a decimal or hex float: 3.14  -0.5  1e-3  0x1p-9  inf  -inf  nan  -0\n"
    "  CODE   decimal (126) or hex (0x7e, 0x7c00); a leading 0 means octal, as in C;\n"
    "         below 2^bits of the format (0x100 for 8 bits, 0x10000 for 16)\n"
    "\n"
    "examples:\n"
    "  fp8 explain 3.14                 how 3.14 is stored in E4M3\n"
    "  fp8 explain 464 470 -f e4m3      a tie to even, and an overflow\n"
    "  fp8 explain 500 --no-saturate    overflow without saturation: NaN\n"
    "  fp8 explain 0x1p-10 --round away a value below the smallest subnormal\n"
    "  fp8 decode 0x7e 0x7f             the largest E4M3 value, and NaN\n"
    "  fp8 decode 0x7c -f e5m2          E5M2 infinity\n"
    "  fp8 explain 70000 -f fp16        past FP16's max, 65504: inf\n"
    "  fp8 explain 70000 -f bf16        BF16 keeps the range, not the digits\n"
    "  fp8 explain 1e-8 --compare       which formats keep 1e-8\n"
    "  fp8 decode 0x3c00 -f fp16        1 in FP16\n"
    "  fp8 table e2m1                   all 16 values of FP4\n"
    "  fp8 table fp16                   FP16's 32 binades\n"
    "  fp8 info                         every format side by side\n"
    "\n"
    "exit status: 0 on success, 2 on a usage error\n";

#define FP8_CLI_VERSION "fp8 (fp8lab) 1.0"

/* ---- errors ------------------------------------------------------------------- */

/* Prints "fp8: <message>" and the hint to stderr; returns the usage status. */
static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("fp8: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs("\nsee fp8 --help\n", stderr);
    va_end(ap);
    return EXIT_USAGE;
}

/* ---- parsing ------------------------------------------------------------------ */

/* A float written in full: decimal, hex (0x1p-9), inf, nan, with a sign.
 * Leading or trailing blanks, or anything left over, make it not a number. */
static int parse_value(const char *s, float *out)
{
    char *end;
    if (*s == '\0' || isspace((unsigned char)*s))
        return -1;
    float x = strtof(s, &end);
    if (end == s || *end != '\0')
        return -1;
    *out = x;
    return 0;
}

/* A code: decimal, 0x hex or 0 octal (strtoul base 0), no sign. */
static int parse_code(const char *s, unsigned long *out)
{
    char *end;
    if (!isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    unsigned long v = strtoul(s, &end, 0);
    if (*end != '\0' || errno != 0)
        return -1;
    *out = v;
    return 0;
}

static int parse_rounding(const char *s, fp8_rounding *out)
{
    static const struct {
        const char *name;
        fp8_rounding rnd;
    } names[] = {
        {"nearest", FP8_ROUND_NEAREST_EVEN},
        {"nearest-even", FP8_ROUND_NEAREST_EVEN},
        {"rne", FP8_ROUND_NEAREST_EVEN},
        {"zero", FP8_ROUND_TOWARD_ZERO},
        {"truncate", FP8_ROUND_TOWARD_ZERO},
        {"away", FP8_ROUND_AWAY_FROM_ZERO},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (strcasecmp(s, names[i].name) == 0) {
            *out = names[i].rnd;
            return 0;
        }
    }
    return -1;
}

/* ---- the formats ---------------------------------------------------------------
 *
 * The explorer treats the 8-bit table (fp8_format, codes in a uint8_t) and the
 * 16-bit one (fp16_format, codes in a uint16_t) alike: a cli_format numbers
 * them one after the other, and the functions below hand each call to the
 * library function of its width. Everything else reads the table row (bits,
 * exp_bits, man_bits, ...) and holds a code in an unsigned.
 */
typedef int cli_format;
#define WIDE FP8_FORMAT_COUNT /* the cli_format of FP16_HALF; FP16_BF16 is next */
#define FORMAT_COUNT (FP8_FORMAT_COUNT + FP16_FORMAT_COUNT)

static bool is_wide(cli_format fmt)
{
    return fmt >= WIDE;
}

static fp8_format narrow(cli_format fmt)
{
    return (fp8_format)fmt;
}

static fp16_format wide(cli_format fmt)
{
    return (fp16_format)(fmt - WIDE);
}

static const fp8_format_info *info(cli_format fmt)
{
    return is_wide(fmt) ? fp16_info(wide(fmt)) : fp8_info(narrow(fmt));
}

static unsigned code_count(cli_format fmt)
{
    return 1u << info(fmt)->bits;
}

static unsigned encode(float x, cli_format fmt, bool saturate, fp8_rounding rnd)
{
    return is_wide(fmt) ? fp16_encode_rounded(x, wide(fmt), saturate, rnd)
                        : fp8_encode_rounded(x, narrow(fmt), saturate, rnd);
}

static float decode(unsigned code, cli_format fmt)
{
    return is_wide(fmt) ? fp16_decode((uint16_t)code, wide(fmt))
                        : fp8_decode((uint8_t)code, narrow(fmt));
}

static fp8_fields split(unsigned code, cli_format fmt)
{
    return is_wide(fmt) ? fp16_split((uint16_t)code, wide(fmt))
                        : fp8_split((uint8_t)code, narrow(fmt));
}

/* One of the library's classifications, fp8_is_X or fp16_is_X by width. */
static bool code_is(unsigned code, cli_format fmt, bool (*is8)(uint8_t, fp8_format),
                    bool (*is16)(uint16_t, fp16_format))
{
    return is_wide(fmt) ? is16((uint16_t)code, wide(fmt)) : is8((uint8_t)code, narrow(fmt));
}

static bool is_nan(unsigned code, cli_format fmt)
{
    return code_is(code, fmt, fp8_is_nan, fp16_is_nan);
}

static bool is_inf(unsigned code, cli_format fmt)
{
    return code_is(code, fmt, fp8_is_inf, fp16_is_inf);
}

static bool is_zero(unsigned code, cli_format fmt)
{
    return code_is(code, fmt, fp8_is_zero, fp16_is_zero);
}

static bool is_subnormal(unsigned code, cli_format fmt)
{
    return code_is(code, fmt, fp8_is_subnormal, fp16_is_subnormal);
}

/* Overflow without --saturate or --no-saturate: the 8-bit (and 6- and 4-bit)
 * formats saturate, as the course's scaled casts do; FP16 and BF16 follow
 * IEEE 754 and overflow to inf, as __float2half_rn and __float2bfloat16_rn do. */
static bool default_saturate(cli_format fmt)
{
    return !is_wide(fmt);
}

/* Any name fp8_format_from_name or fp16_format_from_name takes. */
static int format_from_name(const char *name, cli_format *out)
{
    fp8_format f8;
    fp16_format f16;
    if (fp8_format_from_name(name, &f8) == 0) {
        *out = (cli_format)f8;
        return 0;
    }
    if (fp16_format_from_name(name, &f16) == 0) {
        *out = WIDE + (cli_format)f16;
        return 0;
    }
    return -1;
}

/* Names every format in the message, from the table. */
static int unknown_format(const char *name)
{
    char names[128] = "";
    for (cli_format k = 0; k < FORMAT_COUNT; k++) {
        strcat(names, k ? " " : "");
        strcat(names, info(k)->name);
    }
    return usage_error("unknown format '%s' (formats: %s; any case)", name, names);
}

/* ---- the command line ---------------------------------------------------------- */

enum { OPT_FORMAT = 1, OPT_ROUND = 2, OPT_SATURATE = 4, OPT_COMPARE = 8 };

typedef struct cli_args {
    cli_format fmt;
    bool fmt_given;
    int saturate;     /* 1 --saturate, 0 --no-saturate, -1 the format's default */
    bool compare;     /* explain --compare */
    fp8_rounding rnd;
    int npos;
    const char **pos; /* positional arguments, in order */
} cli_args;

/* Whether an argument that starts with '-' is a value (-0.5, -inf), not an option. */
static bool is_negative_value(const char *s)
{
    float x;
    return s[0] == '-' && s[1] != '-' && parse_value(s, &x) == 0;
}

/* The value of an option: "--format=e5m2", or the next argument. */
static const char *option_value(const char *eq, int argc, char **argv, int *i)
{
    if (eq)
        return eq + 1;
    if (*i + 1 >= argc)
        return NULL;
    return argv[++*i];
}

static bool option_is(const char *arg, const char *lng, const char *shrt, const char **eq)
{
    size_t n = strlen(lng);
    *eq = NULL;
    if (shrt && strcmp(arg, shrt) == 0)
        return true;
    if (strncmp(arg, lng, n) != 0)
        return false;
    if (arg[n] == '=')
        *eq = arg + n;
    return arg[n] == '\0' || arg[n] == '=';
}

/* Reads the options and positionals after the command; `allowed` is the set
 * of OPT_ flags the command takes. Returns 0, or the usage status. */
static int parse_args(int argc, char **argv, const char *cmd, unsigned allowed, cli_args *a)
{
    bool options_done = false;
    for (int i = 0; i < argc; i++) {
        const char *arg = argv[i], *eq, *val;
        if (options_done || arg[0] != '-' || arg[1] == '\0' || is_negative_value(arg)) {
            a->pos[a->npos++] = arg;
        } else if (strcmp(arg, "--") == 0) {
            options_done = true;
        } else if (option_is(arg, "--format", "-f", &eq) && (allowed & OPT_FORMAT)) {
            if (!(val = option_value(eq, argc, argv, &i)))
                return usage_error("%s needs a format name", arg);
            if (format_from_name(val, &a->fmt) != 0)
                return unknown_format(val);
            a->fmt_given = true;
        } else if (option_is(arg, "--round", "-r", &eq) && (allowed & OPT_ROUND)) {
            if (!(val = option_value(eq, argc, argv, &i)))
                return usage_error("%s needs a mode: nearest, zero or away", arg);
            if (parse_rounding(val, &a->rnd) != 0)
                return usage_error("unknown rounding '%s' (modes: nearest, zero, away)", val);
        } else if (strcmp(arg, "--no-saturate") == 0 && (allowed & OPT_SATURATE)) {
            a->saturate = 0;
        } else if (strcmp(arg, "--saturate") == 0 && (allowed & OPT_SATURATE)) {
            a->saturate = 1;
        } else if (strcmp(arg, "--compare") == 0 && (allowed & OPT_COMPARE)) {
            a->compare = true;
        } else {
            return usage_error("'%s' is not an option of fp8 %s", arg, cmd);
        }
    }
    return 0;
}

/* ---- describing codes ------------------------------------------------------------ */

/* Writes the low n bits of v into out, most significant first. */
static void put_bits(char *out, unsigned v, int n)
{
    for (int i = 0; i < n; i++)
        out[i] = (char)('0' + ((v >> (n - 1 - i)) & 1));
    out[n] = '\0';
}

/* The longest code_string ("0x7c00") and fields_string ("0 11111 1111111111"),
 * with their terminating zeros. */
#define CODE_CHARS 8
#define FIELD_CHARS 20

/* "0 1000 101": the fields of a code, sign | exponent | mantissa, each only
 * where the format has it. out needs FIELD_CHARS bytes. */
static void fields_string(unsigned code, cli_format fmt, char *out)
{
    const fp8_format_info *f = info(fmt);
    fp8_fields fl = split(code, fmt);
    char *p = out;
    if (f->has_sign) {
        *p++ = (char)('0' + fl.sign);
        *p++ = ' ';
    }
    put_bits(p, fl.exponent, f->exp_bits);
    p += f->exp_bits;
    if (f->man_bits > 0) {
        *p++ = ' ';
        put_bits(p, fl.mantissa, f->man_bits);
    }
}

/* "s eeee mmm": the layout of a code, aligned with fields_string. */
static void layout_string(cli_format fmt, char *out)
{
    const fp8_format_info *f = info(fmt);
    char *p = out;
    if (f->has_sign) {
        *p++ = 's';
        *p++ = ' ';
    }
    memset(p, 'e', (size_t)f->exp_bits);
    p += f->exp_bits;
    if (f->man_bits > 0) {
        *p++ = ' ';
        memset(p, 'm', (size_t)f->man_bits);
        p += f->man_bits;
    }
    *p = '\0';
}

/* "0x7e", "0x1f", "0x7", "0x7c00": as many hex digits as the format's width
 * needs. */
static void code_string(unsigned code, cli_format fmt, char *out, size_t n)
{
    size_t digits = (size_t)(info(fmt)->bits + 3) / 4;
    if (n < digits + 3) {
        *out = '\0';
        return;
    }
    out[0] = '0';
    out[1] = 'x';
    for (size_t i = 0; i < digits; i++)
        out[2 + i] = "0123456789abcdef"[(code >> (4 * (digits - 1 - i))) & 0xFu];
    out[2 + digits] = '\0';
}

/* A value for people: %.9g, with NaN and infinities spelled out. */
static void value_string(double v, char *out, size_t n)
{
    if (isnan(v))
        snprintf(out, n, "NaN");
    else if (isinf(v))
        snprintf(out, n, "%sinf", v < 0 ? "-" : "+");
    else
        snprintf(out, n, "%.9g", v);
}

static bool is_max(unsigned code, cli_format fmt)
{
    const fp8_format_info *f = info(fmt);
    unsigned sign = f->has_sign ? 1u << (f->bits - 1) : 0;
    return (code & ~sign) == f->max_code;
}

static const char *class_name(unsigned code, cli_format fmt)
{
    if (is_nan(code, fmt))
        return "NaN";
    if (is_inf(code, fmt))
        return "inf";
    if (is_zero(code, fmt))
        return "zero";
    if (is_subnormal(code, fmt))
        return "subnormal";
    if (is_max(code, fmt))
        return "max";
    return "normal";
}

/* The significand in binary, "1.101b" or "0.011b". out needs FIELD_CHARS bytes. */
static void significand_string(unsigned lead, unsigned mantissa, int man_bits, char *out)
{
    out[0] = (char)('0' + lead);
    out[1] = '.';
    put_bits(out + 2, mantissa, man_bits);
    strcat(out, "b");
}

/* The value of a code worked out with its numbers, e.g.
 * "(-1)^0 x 1.101b x 2^(8-7) = 1.625 x 2^1 = 3.25". */
static void formula_string(unsigned code, cli_format fmt, char *out, size_t n)
{
    const fp8_format_info *f = info(fmt);
    fp8_fields fl = split(code, fmt);
    char v[32];
    value_string(decode(code, fmt), v, sizeof v);

    if (is_nan(code, fmt)) {
        snprintf(out, n, "exponent all ones, mantissa %s: NaN",
                 f->nan_kind == FP8_NAN_IEEE ? "not 0" : "all ones");
    } else if (is_inf(code, fmt)) {
        snprintf(out, n, "exponent all ones, mantissa 0: %s", v);
    } else if (f->man_bits == 0) { /* E8M0: a power of two, nothing else */
        int e = (int)fl.exponent - f->bias;
        snprintf(out, n, "2^(%u-%d) = 2^%d = %s", fl.exponent, f->bias, e, v);
    } else {
        bool sub = fl.exponent == 0 && f->has_subnormals;
        int biased = sub ? 1 : (int)fl.exponent;
        int e = biased - f->bias;
        double sig = (double)((sub ? 0u : 1u << f->man_bits) + fl.mantissa) /
                     (double)(1u << f->man_bits);
        char bin[FIELD_CHARS];
        significand_string(sub ? 0 : 1, fl.mantissa, f->man_bits, bin);
        snprintf(out, n, "(-1)^%u x %s x 2^(%d-%d) = %s%.9g x 2^%d = %s", fl.sign, bin, biased,
                 f->bias, fl.sign ? "-" : "", sig, e, v);
    }
}

/* The lines that describe a code, shared by decode and explain; the value
 * line is labelled `value_label`. */
static void print_code(unsigned code, cli_format fmt, const char *value_label)
{
    const fp8_format_info *f = info(fmt);
    fp8_fields fl = split(code, fmt);
    char hex[CODE_CHARS], fields[FIELD_CHARS], layout[FIELD_CHARS], bits[FIELD_CHARS];
    char formula[160], v[32];
    float value = decode(code, fmt);

    code_string(code, fmt, hex, sizeof hex);
    fields_string(code, fmt, fields);
    layout_string(fmt, layout);
    value_string(value, v, sizeof v);
    formula_string(code, fmt, formula, sizeof formula);

    printf("  %-11s %s = %s  (%s)\n", "code", hex, fields, layout);
    if (f->has_sign)
        printf("  %-11s %u (%s)\n", "sign", fl.sign, fl.sign ? "-" : "+");
    else
        printf("  %-11s none (%s has no sign bit)\n", "sign", f->name);
    put_bits(bits, fl.exponent, f->exp_bits);
    if (!isfinite(value))
        printf("  %-11s %sb = %u: all ones\n", "exponent", bits, fl.exponent);
    else if (fl.exponent == 0 && f->has_subnormals)
        printf("  %-11s %sb = 0: subnormal or zero, read as 1 - %d = %d\n", "exponent", bits,
               f->bias, 1 - f->bias);
    else
        printf("  %-11s %sb = %u, unbiased %u - %d = %d\n", "exponent", bits, fl.exponent,
               fl.exponent, f->bias, (int)fl.exponent - f->bias);
    if (f->man_bits > 0 && isfinite(value)) {
        bool sub = fl.exponent == 0 && f->has_subnormals;
        double sig = (sub ? 0 : 1) + (double)fl.mantissa / (1u << f->man_bits);
        put_bits(bits, fl.mantissa, f->man_bits);
        printf("  %-11s %sb = %u: significand %d + %u/%u = %.9g\n", "mantissa", bits,
               fl.mantissa, sub ? 0 : 1, fl.mantissa, 1u << f->man_bits, sig);
    } else if (f->man_bits > 0) {
        put_bits(bits, fl.mantissa, f->man_bits);
        printf("  %-11s %sb = %u\n", "mantissa", bits, fl.mantissa);
    } else {
        printf("  %-11s none (%s is a power of two)\n", "mantissa", f->name);
    }
    printf("  %-11s %s\n", "class", class_name(code, fmt));
    printf("  %-11s %s\n", "formula", formula);
    if (isfinite(value))
        printf("  %-11s %s  (%a)\n", value_label, v, (double)value);
    else
        printf("  %-11s %s\n", value_label, v);
}

/* ---- decode ------------------------------------------------------------------------- */

static int cmd_decode(cli_args *a)
{
    const fp8_format_info *f = info(a->fmt);
    unsigned long *codes = calloc((size_t)a->npos + 1, sizeof *codes);
    if (!codes)
        return usage_error("out of memory");
    if (a->npos == 0) {
        free(codes);
        return usage_error("decode needs a code, e.g. fp8 decode 0x7e");
    }
    for (int i = 0; i < a->npos; i++) {
        if (parse_code(a->pos[i], &codes[i]) != 0) {
            free(codes);
            return usage_error("'%s' is not a code (decimal, or hex as 0x7e)", a->pos[i]);
        }
        if (codes[i] >= code_count(a->fmt)) {
            int status = usage_error("code %s does not fit %s: %d bits, 0 to 0x%x", a->pos[i],
                                     f->title, f->bits, code_count(a->fmt) - 1);
            free(codes);
            return status;
        }
    }
    for (int i = 0; i < a->npos; i++) {
        char hex[CODE_CHARS];
        code_string(codes[i], a->fmt, hex, sizeof hex);
        printf("%s%s in %s\n", i ? "\n" : "", hex, f->title);
        print_code(codes[i], a->fmt, "value");
    }
    free(codes);
    return 0;
}

/* ---- explain ------------------------------------------------------------------------- */

/* The code of a representable value (its sign kept, -0 included). */
static unsigned code_of(float v, cli_format fmt)
{
    return encode(v, fmt, true, FP8_ROUND_NEAREST_EVEN);
}

/* fp8_neighbours or fp16_neighbours, where the zero next to a negative value
 * is -0. */
static void neighbours(float x, cli_format fmt, float *lo, float *hi)
{
    if (is_wide(fmt))
        fp16_neighbours(x, wide(fmt), lo, hi);
    else
        fp8_neighbours(x, narrow(fmt), lo, hi);
    if (signbit(x)) {
        *lo = *lo == 0 ? -0.0f : *lo;
        *hi = *hi == 0 ? -0.0f : *hi;
    }
}

/* "3.25 (0x45)", or a note where there is no such neighbour. */
static void neighbour_string(float v, cli_format fmt, char *out, size_t n)
{
    char val[32], hex[CODE_CHARS];
    if (isinf(v)) {
        snprintf(out, n, "none (out of range)");
        return;
    }
    value_string(v, val, sizeof val);
    code_string(code_of(v, fmt), fmt, hex, sizeof hex);
    snprintf(out, n, "%-15s (%s)", val, hex);
}

/* What became of a value past max finite, read off the code it got. */
static const char *overflow_result(unsigned code, cli_format fmt)
{
    if (is_nan(code, fmt))
        return "overflow -> NaN";
    if (is_inf(code, fmt))
        return decode(code, fmt) < 0 ? "overflow -> -inf" : "overflow -> inf";
    return "saturated to max finite";
}

/* Rounding of a value past max finite m (|x| > m). The rounding works as if
 * the format went on: the next value up would be m + ulp(m). */
static void explain_overflow(float x, unsigned code, const fp8_format_info *f, cli_format fmt,
                             fp8_rounding rnd, char *out, size_t n)
{
    double sign = x < 0 ? -1 : 1, ax = fabs((double)x);
    double m = f->max_finite, next = m + ldexp(1.0, f->emax - f->man_bits);
    double mid = (m + next) / 2;
    bool max_even = (f->max_code & 1) == 0;
    char sm[32], snext[32], hex[CODE_CHARS];
    value_string(sign * m, sm, sizeof sm);
    value_string(sign * next, snext, sizeof snext);
    code_string(code_of((float)(sign * m), fmt), fmt, hex, sizeof hex);

    if (isinf(x)) {
        snprintf(out, n, "infinite input: %s",
                 is_inf(code, fmt) ? (x < 0 ? "stored as -inf" : "stored as +inf")
                                       : overflow_result(code, fmt));
    } else if (rnd == FP8_ROUND_TOWARD_ZERO) {
        snprintf(out, n, "rounded toward zero to max finite %s (toward zero never overflows)",
                 sm);
    } else if (rnd == FP8_ROUND_NEAREST_EVEN && ax < mid) {
        snprintf(out, n, "rounded to nearest: max finite %s (the next step, %s, is past it)", sm,
                 snext);
    } else if (rnd == FP8_ROUND_NEAREST_EVEN && ax == mid && max_even) {
        snprintf(out, n, "tie, to even: halfway between max finite %s (%s, even) and %s; kept %s",
                 sm, hex, snext, sm);
    } else if (rnd == FP8_ROUND_NEAREST_EVEN && ax == mid) {
        snprintf(out, n, "tie, to even: max finite %s (%s) is odd, so it goes to %s, past max: %s",
                 sm, hex, snext, overflow_result(code, fmt));
    } else {
        const char *why = rnd == FP8_ROUND_AWAY_FROM_ZERO ? "rounded away from zero"
                                                          : "rounded to nearest";
        snprintf(out, n, "%s: %s, past max finite %s: %s", why, snext, sm,
                 overflow_result(code, fmt));
    }
}

/* Rounding of a value inside the range: between its neighbours lo < x < hi,
 * stored as v (one of the two). */
static void explain_between(float x, float v, float lo, float hi, cli_format fmt,
                            fp8_rounding rnd, char *out, size_t n)
{
    const char *dir = v == lo ? "down" : "up";
    double dlo = (double)x - lo, dhi = (double)hi - x;
    if (rnd == FP8_ROUND_TOWARD_ZERO) {
        snprintf(out, n, "rounded %s, toward zero (truncated)", dir);
    } else if (rnd == FP8_ROUND_AWAY_FROM_ZERO) {
        snprintf(out, n, "rounded %s, away from zero", dir);
    } else if (dlo == dhi) {
        char s[32], hex[CODE_CHARS];
        value_string(v, s, sizeof s);
        code_string(code_of(v, fmt), fmt, hex, sizeof hex);
        snprintf(out, n, "tie, to even: halfway (%.3g from each); %s (%s) has the even code",
                 dlo, s, hex);
    } else {
        char slo[32], shi[32];
        value_string(lo, slo, sizeof slo);
        value_string(hi, shi, sizeof shi);
        snprintf(out, n, "rounded %s to nearest: %.3g from %s below, %.3g from %s above", dir,
                 dlo, slo, dhi, shi);
    }
}

/* Which rule turned x (what the format sees: |input| for E8M0) into code. */
static void explain_rounding(float x, unsigned code, cli_format fmt, fp8_rounding rnd, char *out,
                             size_t n)
{
    const fp8_format_info *f = info(fmt);
    float v = decode(code, fmt), lo, hi;
    size_t len;

    if (isnan(x)) {
        if (f->nan_kind == FP8_NAN_NONE)
            snprintf(out, n, "NaN input: %s has no NaN, so NaN is stored as +max finite", f->name);
        else
            snprintf(out, n, "NaN input: stored as the canonical NaN");
        return;
    }
    if (fabsf(x) > f->max_finite) {
        explain_overflow(x, code, f, fmt, rnd, out, n);
        return;
    }
    if (!f->has_zero && fabsf(x) < f->min_subnormal) {
        snprintf(out, n, "%s has no zero: values below its smallest, 2^%d, are stored as it",
                 f->name, f->emin);
        return;
    }
    neighbours(x, fmt, &lo, &hi);
    if (lo == hi)
        snprintf(out, n, "exact: the input is a value of %s, no rounding", f->name);
    else
        explain_between(x, v, lo, hi, fmt, rnd, out, n);
    len = strlen(out);
    if (v == 0 && x != 0)
        snprintf(out + len, n - len, "; underflow to zero");
    else if (is_subnormal(code, fmt))
        snprintf(out + len, n - len, "; subnormal result");
}

/* Whether fmt saturates with the options given: --saturate, --no-saturate or
 * the format's default. */
static bool saturates(const cli_args *a, cli_format fmt)
{
    return a->saturate < 0 ? default_saturate(fmt) : a->saturate != 0;
}

/* One line on what happens past max finite with these settings, and what the
 * other setting would give. */
static void print_saturation(const fp8_format_info *f, cli_format fmt, const cli_args *a)
{
    bool on = saturates(a, fmt);
    const char *how = a->saturate < 0 ? "default" : on ? "--saturate" : "--no-saturate";
    const char *special = f->has_inf ? "inf" : "NaN";
    char sm[32], hex[CODE_CHARS], hmax[CODE_CHARS];
    value_string(f->max_finite, sm, sizeof sm);
    code_string(f->has_inf ? f->inf_code : f->nan_code, fmt, hex, sizeof hex);
    code_string(f->max_code, fmt, hmax, sizeof hmax);
    if (!f->has_inf && f->nan_kind == FP8_NAN_NONE)
        printf("  %-11s always: %s has no inf or NaN, so anything past %s is stored as %s\n",
               "saturation", f->name, sm, sm);
    else if (on)
        printf("  %-11s on (%s): past %s, and inf, give %s; --no-saturate gives %s (%s)\n",
               "saturation", how, sm, sm, special, hex);
    else
        printf("  %-11s off (%s): past %s, and inf, give %s; --saturate gives %s (%s)\n",
               "saturation", how, sm, special, sm, hmax);
}

static const char *rounding_name(fp8_rounding rnd)
{
    switch (rnd) {
    case FP8_ROUND_TOWARD_ZERO:
        return "toward zero";
    case FP8_ROUND_AWAY_FROM_ZERO:
        return "away from zero";
    default:
        return "to nearest, ties to even";
    }
}

/* The input line(s): the text, and the float the codec sees. */
static void print_input(const char *text, float x, const fp8_format_info *f)
{
    double d = strtod(text, NULL); /* the input as written, to a double's precision */
    const char *note = "";
    if (isinf(x) && !isinf(d))
        note = ", beyond the range of float";
    else if (!isnan(x) && (double)x != d)
        note = ", the nearest float";
    printf("  %-11s %s\n", "input", text);
    if (isfinite(x))
        printf("  %-11s %.9g  (%a%s)\n", "as float", (double)x, (double)x, note);
    else
        printf("  %-11s %s%s\n", "as float", isnan(x) ? "NaN" : x < 0 ? "-inf" : "+inf", note);
    if (!f->has_sign && signbit(x))
        printf("  %-11s %.9g  (%s has no sign: it stores |input|)\n", "|input|",
               (double)fabsf(x), f->name);
}

/* The rounding error lines: stored - input, absolute and relative. */
static void print_error(float x, float v)
{
    if (!isfinite(x) || !isfinite(v)) {
        printf("  %-11s none to speak of (input or result is not finite)\n", "error");
        return;
    }
    double err = (double)v - (double)x;
    if (x != 0)
        printf("  %-11s %+.9g absolute, %+.3g%% relative  (stored - input)\n", "error", err,
               100.0 * err / fabs((double)x));
    else
        printf("  %-11s %+.9g  (stored - input)\n", "error", err);
}

static void explain_one(const char *text, float input, const cli_args *a)
{
    const fp8_format_info *f = info(a->fmt);
    float x = f->has_sign ? input : fabsf(input); /* what the format encodes */
    unsigned code = encode(x, a->fmt, saturates(a, a->fmt), a->rnd);
    float v = decode(code, a->fmt), lo, hi;
    char below[64], above[64], why[256];

    printf("%s in %s, rounding %s\n", text, f->title, rounding_name(a->rnd));
    print_input(text, input, f);
    print_code(code, a->fmt, "stored");
    print_error(x, v);

    neighbours(x, a->fmt, &lo, &hi);
    if (isnan(x)) {
        printf("  %-11s none (NaN has no neighbours)\n", "below");
        printf("  %-11s none\n", "above");
    } else {
        neighbour_string(lo, a->fmt, below, sizeof below);
        neighbour_string(hi, a->fmt, above, sizeof above);
        printf("  %-11s %s\n", "below", below);
        printf("  %-11s %s\n", "above", above);
    }
    explain_rounding(x, code, a->fmt, a->rnd, why, sizeof why);
    printf("  %-11s %s\n", "rounding", why);
    print_saturation(f, a->fmt, a);
}

/* ---- explain --compare ----------------------------------------------------------- */

/* What became of `want`, the input as written, stored as v: kept, rounded,
 * flushed to zero, or past the format's range (`overflowed`: it would be inf
 * or NaN without saturation), `overflow` saying what it gave. */
static const char *fate(double want, float v, bool subnormal, bool overflowed,
                        const char *overflow)
{
    if ((double)v == want || (isnan(want) && isnan(v)))
        return "kept";
    if (overflowed)
        return overflow;
    if (v == 0)
        return "flushed to zero";
    return subnormal ? "rounded, subnormal" : "rounded";
}

/* One line of the comparison: the format, the code, the value stored, its
 * error relative to the input as written, and its fate. */
static void print_compare_row(const char *name, const char *code, double want, float v,
                              const char *result)
{
    char stored[32], err[32];
    value_string(v, stored, sizeof stored);
    if ((double)v == want || (isnan(want) && isnan(v)))
        snprintf(err, sizeof err, "0");
    else if (!isfinite(v) || !isfinite(want) || want == 0)
        snprintf(err, sizeof err, "-");
    else
        snprintf(err, sizeof err, "%+.3g%%", 100.0 * ((double)v - want) / fabs(want));
    printf("  %-6s  %-10s  %-15s  %-11s  %s\n", name, code, stored, err, result);
}

/* explain --compare: the value in FP32 (the input itself, read as a float),
 * BF16, FP16, E4M3 and E5M2, one line each, to see which keep it. */
static void explain_compare(const char *text, float x, const cli_args *a)
{
    static const cli_format compared[] = {WIDE + FP16_BF16, WIDE + FP16_HALF, FP8_E4M3,
                                          FP8_E5M2};
    double want = strtod(text, NULL);
    uint32_t bits;
    char code[16], on[64] = "", off[64] = "";
    memcpy(&bits, &x, sizeof bits);
    snprintf(code, sizeof code, "0x%08x", (unsigned)bits);

    printf("%s in each format, rounding %s\n", text, rounding_name(a->rnd));
    printf("  %-6s  %-10s  %-15s  %-11s  %s\n", "format", "code", "stored", "error", "result");
    print_compare_row("fp32", code, want, x,
                      fate(want, x, fpclassify(x) == FP_SUBNORMAL, isinf(x), "overflow -> inf"));
    for (size_t k = 0; k < sizeof compared / sizeof compared[0]; k++) {
        cli_format fmt = compared[k];
        unsigned c = encode(x, fmt, saturates(a, fmt), a->rnd);
        float v = decode(c, fmt);
        bool overflowed = !isfinite(decode(encode(x, fmt, false, a->rnd), fmt)) && !isnan(x);
        code_string(c, fmt, code, sizeof code);
        print_compare_row(info(fmt)->name, code, want, v,
                          fate(want, v, is_subnormal(c, fmt), overflowed, overflow_result(c, fmt)));
        char *list = saturates(a, fmt) ? on : off;
        strcat(list, " ");
        strcat(list, info(fmt)->name);
    }
    printf("  error: stored - input as written, relative to the input; fp32 is the input\n"
           "  itself, read as a float (to nearest)\n");
    printf("  saturation (%s):%s%s%s%s\n",
           a->saturate < 0 ? "each format's default" : a->saturate ? "--saturate" : "--no-saturate",
           *on ? " on for" : "", on, *on && *off ? "; off for" : *off ? " off for" : "", off);
}

static int cmd_explain(cli_args *a)
{
    float *values = calloc((size_t)a->npos + 1, sizeof *values);
    if (!values)
        return usage_error("out of memory");
    if (a->npos == 0) {
        free(values);
        return usage_error("explain needs a value, e.g. fp8 explain 3.14");
    }
    for (int i = 0; i < a->npos; i++) {
        if (parse_value(a->pos[i], &values[i]) != 0) {
            free(values);
            return usage_error("'%s' is not a number", a->pos[i]);
        }
    }
    if (a->compare && a->fmt_given) {
        free(values);
        return usage_error("--compare shows every format: leave out --format");
    }
    for (int i = 0; i < a->npos; i++) {
        if (i)
            putchar('\n');
        if (a->compare)
            explain_compare(a->pos[i], values[i], a);
        else
            explain_one(a->pos[i], values[i], a);
    }
    free(values);
    return 0;
}

/* ---- table and info ------------------------------------------------------------------ */

/* "2^-6": a power of two by its exponent. */
static void power_string(float v, char *out, size_t n)
{
    int e;
    frexpf(v, &e);
    snprintf(out, n, "2^%d", e - 1);
}

/* Reads the positional format names into fmts (or a->fmt where there are
 * none and `all` is false; every format where `all`). Returns the count, or
 * -1 after reporting an unknown name. */
static int formats_from_args(const cli_args *a, bool all, cli_format *fmts)
{
    int n = 0;
    if (a->fmt_given)
        fmts[n++] = a->fmt;
    for (int i = 0; i < a->npos; i++) {
        if (format_from_name(a->pos[i], &fmts[n]) != 0) {
            unknown_format(a->pos[i]);
            return -1;
        }
        n++;
    }
    if (n == 0 && all) {
        for (cli_format k = 0; k < FORMAT_COUNT; k++)
            fmts[n++] = k;
    } else if (n == 0) {
        fmts[n++] = a->fmt;
    }
    return n;
}

/* Machine epsilon, 2^-man_bits, is shown for FP16 and BF16 only: for the 8-bit
 * formats it is one of lab0's exercises. */
static bool shows_epsilon(cli_format fmt)
{
    return is_wide(fmt);
}

/* "max finite 448 (0x7e), min normal 0.015625 (0x08), min subnormal
 * 0.001953125 (0x01)", and for FP16 and BF16 ", epsilon 2^-10 = 0.0009765625". */
static void limits_string(cli_format fmt, char *out, size_t n)
{
    const fp8_format_info *f = info(fmt);
    char pmax[32], pnorm[32], psub[48], v[32], cmax[CODE_CHARS], cnorm[CODE_CHARS],
        csub[CODE_CHARS];
    value_string(f->max_finite, pmax, sizeof pmax);
    value_string(f->min_normal, pnorm, sizeof pnorm);
    code_string(code_of(f->max_finite, fmt), fmt, cmax, sizeof cmax);
    code_string(code_of(f->min_normal, fmt), fmt, cnorm, sizeof cnorm);
    if (f->has_subnormals) {
        value_string(f->min_subnormal, v, sizeof v);
        code_string(code_of(f->min_subnormal, fmt), fmt, csub, sizeof csub);
        snprintf(psub, sizeof psub, "%s (%s)", v, csub);
    } else {
        snprintf(psub, sizeof psub, "none");
    }
    int len = snprintf(out, n, "max finite %s (%s), min normal %s (%s), min subnormal %s", pmax,
                       cmax, pnorm, cnorm, psub);
    if (shows_epsilon(fmt) && len > 0 && (size_t)len < n)
        snprintf(out + len, n - (size_t)len, ", epsilon 2^-%d = %.9g", f->man_bits,
                 ldexp(1.0, -f->man_bits));
}

/* Every code of a format of up to 8 bits, one line each. */
static void print_codes(cli_format fmt)
{
    char layout[FIELD_CHARS], hex[CODE_CHARS], fields[FIELD_CHARS], v[32];
    layout_string(fmt, layout);
    printf("%s: all %u codes\n", info(fmt)->title, code_count(fmt));
    printf("%-6s %-11s %-16s %s\n", "code", layout, "value", "class");
    for (unsigned c = 0; c < code_count(fmt); c++) {
        code_string(c, fmt, hex, sizeof hex);
        fields_string(c, fmt, fields);
        value_string(decode(c, fmt), v, sizeof v);
        printf("%-6s %-11s %-16s %s\n", hex, fields, v, class_name(c, fmt));
    }
}

/* A wider format, one line per exponent field (a binade): its codes, its
 * first and last value, the spacing of its values and the classes in it.
 * Positive codes; those with the sign bit set hold the same values negated. */
static void print_binades(cli_format fmt)
{
    const fp8_format_info *f = info(fmt);
    unsigned man = (1u << f->man_bits) - 1;
    char head[FIELD_CHARS], sign[CODE_CHARS];
    memset(head, 'e', (size_t)f->exp_bits);
    head[f->exp_bits] = '\0';
    code_string(1u << (f->bits - 1), fmt, sign, sizeof sign);
    printf("%s: %u codes, one line per exponent field; positive codes only (the sign bit, "
           "%s, negates them)\n",
           f->title, code_count(fmt), sign);
    printf("%-*s  %-13s  %-15s  %-15s  %-7s  %s\n", f->exp_bits, head, "codes", "from", "to",
           "spacing", "class");
    for (unsigned e = 0; e < 1u << f->exp_bits; e++) {
        unsigned first = e << f->man_bits, last = first | man;
        const char *k0 = class_name(first, fmt), *k1 = class_name(last, fmt);
        char bits[FIELD_CHARS], c0[CODE_CHARS], c1[CODE_CHARS], codes[2 * CODE_CHARS], lo[32],
            hi[32], step[16], cls[32];
        put_bits(bits, e, f->exp_bits);
        code_string(first, fmt, c0, sizeof c0);
        code_string(last, fmt, c1, sizeof c1);
        snprintf(codes, sizeof codes, "%s-%s", c0, c1);
        value_string(decode(first, fmt), lo, sizeof lo);
        value_string(decode(last, fmt), hi, sizeof hi);
        if (isfinite(decode(first, fmt)))
            snprintf(step, sizeof step, "2^%d", (e ? (int)e : 1) - f->bias - f->man_bits);
        else
            snprintf(step, sizeof step, "-");
        snprintf(cls, sizeof cls, strcmp(k0, k1) ? "%s, %s" : "%s", k0, k1);
        printf("%-*s  %-13s  %-15s  %-15s  %-7s  %s\n", f->exp_bits, bits, codes, lo, hi, step,
               cls);
    }
}

/* Every code, or for the 16-bit formats every binade, and the limits. */
static void print_table(cli_format fmt)
{
    const fp8_format_info *f = info(fmt);
    char limits[256];
    if (f->bits > 8)
        print_binades(fmt);
    else
        print_codes(fmt);
    limits_string(fmt, limits, sizeof limits);
    printf("%s: %s\n", f->name, limits);
    printf("source: %s\n", f->source);
}

static int cmd_table(cli_args *a)
{
    cli_format fmts[64];
    if (a->npos > 32)
        return usage_error("too many formats");
    int n = formats_from_args(a, false, fmts);
    if (n < 0)
        return EXIT_USAGE;
    for (int i = 0; i < n; i++) {
        if (i)
            putchar('\n');
        print_table(fmts[i]);
    }
    return 0;
}

/* "0x7f 0xff": a code and, in a signed format, its negative twin. */
static void code_pair(unsigned code, const fp8_format_info *f, cli_format fmt, char *out,
                      size_t n)
{
    char pos[CODE_CHARS], neg[CODE_CHARS];
    code_string(code, fmt, pos, sizeof pos);
    if (!f->has_sign) {
        snprintf(out, n, "%s", pos);
        return;
    }
    code_string(code | (1u << (f->bits - 1)), fmt, neg, sizeof neg);
    snprintf(out, n, "%s %s", pos, neg);
}

/* The NaN codes of a format: "none", "0x7f 0xff", "0x7d-0x7f 0xfd-0xff". */
static void nan_codes(const fp8_format_info *f, cli_format fmt, char *out, size_t n)
{
    if (f->nan_kind == FP8_NAN_NONE) {
        snprintf(out, n, "none");
    } else if (f->nan_kind == FP8_NAN_ALL_ONES) {
        code_pair(f->nan_code, f, fmt, out, n);
    } else {
        unsigned first = ((1u << f->exp_bits) - 1) << f->man_bits | 1u;
        unsigned last = (1u << (f->bits - (f->has_sign ? 1 : 0))) - 1;
        unsigned s = f->has_sign ? 1u << (f->bits - 1) : 0;
        char a[CODE_CHARS], b[CODE_CHARS], c[CODE_CHARS], d[CODE_CHARS];
        code_string(first, fmt, a, sizeof a);
        code_string(last, fmt, b, sizeof b);
        code_string(first | s, fmt, c, sizeof c);
        code_string(last | s, fmt, d, sizeof d);
        if (s)
            snprintf(out, n, "%s-%s %s-%s", a, b, c, d);
        else
            snprintf(out, n, "%s-%s", a, b);
    }
}

/* One line of the info table: the twelve columns, the epsilon column only
 * where `epsilon`; the inf column is inf_width wide. */
static void print_info_line(const char *const col[12], bool epsilon, int inf_width)
{
    printf("%-6s  %4s  %4s  %3s  %3s  %4s  %-14s  %-10s  %-13s  ", col[0], col[1], col[2],
           col[3], col[4], col[5], col[6], col[7], col[8]);
    if (epsilon)
        printf("%-7s  ", col[9]);
    printf("%-*s  %s\n", inf_width, col[10], col[11]);
}

static void print_info_row(cli_format fmt, bool epsilon, int inf_width)
{
    const fp8_format_info *f = info(fmt);
    char bits[8], sign[8], exp[8], man[8], bias[8], max[32], norm[16], sub[16], eps[16],
        inf[2 * CODE_CHARS], nan[4 * CODE_CHARS];
    snprintf(bits, sizeof bits, "%d", f->bits);
    snprintf(sign, sizeof sign, "%d", f->has_sign ? 1 : 0);
    snprintf(exp, sizeof exp, "%d", f->exp_bits);
    snprintf(man, sizeof man, "%d", f->man_bits);
    snprintf(bias, sizeof bias, "%d", f->bias);
    value_string(f->max_finite, max, sizeof max);
    power_string(f->min_normal, norm, sizeof norm);
    if (f->has_subnormals)
        power_string(f->min_subnormal, sub, sizeof sub);
    else
        snprintf(sub, sizeof sub, "none");
    snprintf(eps, sizeof eps, "2^-%d", f->man_bits);
    if (f->has_inf)
        code_pair(f->inf_code, f, fmt, inf, sizeof inf);
    else
        snprintf(inf, sizeof inf, "none");
    nan_codes(f, fmt, nan, sizeof nan);
    const char *const col[12] = {f->name, bits, sign, exp, man, bias,
                                 max,     norm, sub,  eps, inf, nan};
    print_info_line(col, epsilon, inf_width);
}

/* The info table of the formats in fmts of one width: the 8-bit ones
 * (wide false) as lab0 shows them, or FP16 and BF16 (wide true) with their
 * epsilon and, under the table, their limits in decimal; after a blank line
 * where `after` (a table came before). Returns whether there were any. */
static bool print_info_table(const cli_format *fmts, int n, bool wide, bool after)
{
    static const char *const head[12] = {"format",     "bits",       "sign",
                                         "exp",        "man",        "bias",
                                         "max finite", "min normal", "min subnormal",
                                         "epsilon",    "inf",        "NaN"};
    int inf_width = 9; /* "0x7c 0xfc": two codes of the widest format */
    bool any = false, epsilon = false;
    for (int i = 0; i < n; i++) {
        if (is_wide(fmts[i]) != wide)
            continue;
        int w = 2 * ((info(fmts[i])->bits + 3) / 4 + 2) + 1;
        inf_width = w > inf_width ? w : inf_width;
        epsilon = epsilon || shows_epsilon(fmts[i]);
        any = true;
    }
    if (!any)
        return false;
    if (after)
        putchar('\n');
    print_info_line(head, epsilon, inf_width);
    for (int i = 0; i < n; i++)
        if (is_wide(fmts[i]) == wide)
            print_info_row(fmts[i], epsilon, inf_width);
    if (wide)
        putchar('\n');
    for (int i = 0; wide && i < n; i++) {
        char limits[256];
        if (!is_wide(fmts[i]))
            continue;
        limits_string(fmts[i], limits, sizeof limits);
        printf("%-6s  %s\n", info(fmts[i])->name, limits);
    }
    return true;
}

static int cmd_info(cli_args *a)
{
    cli_format fmts[64];
    if (a->npos > 32)
        return usage_error("too many formats");
    int n = formats_from_args(a, true, fmts);
    if (n < 0)
        return EXIT_USAGE;
    bool narrow_shown = print_info_table(fmts, n, false, false);
    print_info_table(fmts, n, true, narrow_shown);
    printf("\n");
    for (int i = 0; i < n; i++) {
        const fp8_format_info *f = info(fmts[i]);
        printf("%-6s  %s: %s\n", f->name, f->title, f->source);
    }
    return 0;
}

/* ---- main ------------------------------------------------------------------------------ */

typedef struct command {
    const char *name;
    unsigned options;
    int (*run)(cli_args *a);
} command;

static const command COMMANDS[] = {
    {"explain", OPT_FORMAT | OPT_ROUND | OPT_SATURATE | OPT_COMPARE, cmd_explain},
    {"decode", OPT_FORMAT, cmd_decode},
    {"table", OPT_FORMAT, cmd_table},
    {"info", OPT_FORMAT, cmd_info},
};

static bool is_help(const char *s)
{
    return strcmp(s, "help") == 0 || strcmp(s, "--help") == 0 || strcmp(s, "-h") == 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || is_help(argv[1])) {
        fputs(USAGE, stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        puts(FP8_CLI_VERSION);
        return 0;
    }
    for (size_t k = 0; k < sizeof COMMANDS / sizeof COMMANDS[0]; k++) {
        if (strcmp(argv[1], COMMANDS[k].name) != 0)
            continue;
        const char **pos = calloc((size_t)argc, sizeof *pos);
        if (!pos)
            return usage_error("out of memory");
        cli_args a = {FP8_E4M3, false, -1, false, FP8_ROUND_NEAREST_EVEN, 0, pos};
        int status = parse_args(argc - 2, argv + 2, argv[1], COMMANDS[k].options, &a);
        if (status == 0)
            status = COMMANDS[k].run(&a);
        free(pos);
        return status;
    }
    return usage_error("unknown command '%s' (commands: explain, decode, table, info, help)",
                       argv[1]);
}
