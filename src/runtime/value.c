/* value.c - naming and printing the values point-to-point waits compare
 * (value.h). */
#include <inttypes.h>
#include <stdio.h>

#include "value.h"

const char *shmemu__cmp_name(int cmp)
{
    static const char *const names[] = {"SHMEMU_CMP_EQ", "SHMEMU_CMP_NE",
                                        "SHMEMU_CMP_GT", "SHMEMU_CMP_GE",
                                        "SHMEMU_CMP_LT", "SHMEMU_CMP_LE"};
    return cmp >= 0 && cmp < 6 ? names[cmp] : "an unknown comparison";
}

void shmemu__vt_format(int vt, uint64_t bits, char *buf, size_t len)
{
    if (shmemu__vt_signed(vt))
        snprintf(buf, len, "%" PRId64, shmemu__vt_signed_value(vt, bits));
    else
        snprintf(buf, len, "%" PRIu64, shmemu__vt_unsigned_value(vt, bits));
}
