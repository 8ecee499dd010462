/* p2p.c - point-to-point synchronisation: waiting on symmetric values. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core.h"
#include "value.h"
#include "wait.h"

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

void shmemu__format_value_wait(struct shmemu__job *job, int pe,
                               const struct shmemu__wait_desc *d, char *buf,
                               size_t len)
{
    char want[32], now[96] = "";
    shmemu__vt_format(d->vtype, d->value, want, sizeof(want));
    const struct shmemu_transport_ops *ops = job->ops;
    if ((ops->caps & SHMEMU_TL_CAP_LOAD_STORE) && SHMEMU_TL_HAS(ops, ptr)) {
        /* Show the value(s) the PE is stuck on, as they are now. */
        size_t n = d->kind == SHMEMU__WAIT_ARRAY ? d->nelems : 1, used = 0;
        int w = shmemu__vt_width(d->vtype);
        for (size_t i = 0; i < n && i < 8 && used + 24 < sizeof(now); i++) {
            uint64_t v = shmemu__vt_load(
                d->vtype, ops->ptr(&job->tl, pe, (size_t)d->off + i * (size_t)w));
            shmemu__vt_format(d->vtype, v, now + used, sizeof(now) - used);
            used += strlen(now + used);
            if (i + 1 < n)
                now[used++] = i == 7 ? '.' : ' ', now[used] = '\0';
        }
    }
    if (d->kind == SHMEMU__WAIT_ARRAY)
        snprintf(buf, len, "in %s(ivars=heap+%#" PRIx64 ", nelems=%" PRIu64
                           ", %s, %s): values are %s",
                 d->call, d->off, d->nelems, shmemu__cmp_name(d->cmp), want,
                 *now ? now : "not readable here");
    else
        snprintf(buf, len, "in %s(ivar=heap+%#" PRIx64 ", %s, %s): ivar is %s", d->call,
                 d->off, shmemu__cmp_name(d->cmp), want, *now ? now : "not readable here");
}
