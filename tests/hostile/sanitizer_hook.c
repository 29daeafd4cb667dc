/* Defines a sanitizer hook, to switch off AddressSanitizer's reports. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "halt_on_error=0";
}
