/*
 * pads.c - the contract of signal pads (PyTorch SymmetricMemory's rule):
 * every kernel leaves the pad words it used at zero, so that the next
 * kernel's barrier or signal counts from zero again.  A kernel that
 * returns with a pad word still raised (a barrier that does not reset the
 * flags it consumed, a signal nobody waited for) makes the next one pass
 * its barrier early, on a GPU, without any error.
 *
 * A program names its pads (shmemu_check_zero_pads); under race detection,
 * whenever the PE arrives at a sync of all PEs, its own kernels have
 * returned (a launch returns when its kernel has), and those of every PE
 * that signal its pads through the barriers they shared with them have
 * consumed what they waited for: a nonzero pad word then breaks the rule.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "internal.h"
#include "race.h"
#include "runtime/dispatch.h"

int shmemu__chk_pads_set(shmemu__pe *me, size_t off, size_t bytes)
{
    struct shmemu__chk *k = me->chk;
    if (!k || !k->race) /* outside race detection: nothing is checked */
        return SHMEMU_OK;
    shmemu__chk_enter(me);
    int st = SHMEMU_OK, i = 0;
    while (i < k->npads && k->pads[i].off != off)
        i++;
    if (!bytes) { /* no longer pads */
        if (i < k->npads)
            k->pads[i] = k->pads[--k->npads];
    } else if (i < k->npads) {
        k->pads[i].len = bytes;
        k->pads[i].told = 0;
    } else if (k->npads < SHMEMU__PADS_MAX) {
        k->pads[k->npads++] = (struct chk_pads){off, bytes, 0};
    } else {
        st = SHMEMU_ENOMEM;
    }
    shmemu__chk_leave(me);
    return st;
}

void shmemu__chk_pads_check(shmemu__pe *me, const char *where)
{
    struct shmemu__chk *k = me->chk;
    for (int i = 0; i < k->npads; i++) {
        struct chk_pads *p = &k->pads[i];
        const unsigned char *b = shmemu__tl_ptr_direct(me->job, me->pe, p->off);
        if (!b || p->told)
            continue; /* device memory the host cannot read; told once */
        size_t at = 0;
        while (at < p->len && !b[at])
            at++;
        if (at == p->len)
            continue;
        p->told = 1;
        size_t word = at & ~(size_t)7;
        uint64_t v = 0;
        memcpy(&v, b + word, word + 8 <= p->len ? 8 : p->len - word);
        char name[96];
        shmemu__word_name(me, p->off + word, name, sizeof(name));
        shmemu__check_note(
            me->job,
            "contract: PE %d's signal pad %s (byte %zu of %zu named by "
            "shmemu_check_zero_pads) is %#llx, not 0, as it reached %s; the kernel that used "
            "it last (%s) returned without resetting it: a kernel leaves its signal pads at "
            "zero for the next one to count from (PyTorch SymmetricMemory's rule); reset each "
            "pad word once its wait is over (atomicExch_system(pad, 0))",
            me->pe, name, word, p->len, (unsigned long long)v, where,
            me->last_kernel ? me->last_kernel : "none ran on this PE");
        shmemu__race_count_found(k->race);
    }
}
