/*
 * x86_insn.c - reading the faulting instruction for checked pointers
 * (x86_insn.h).  The common stores are carried out from the fault itself:
 * their bytes become the put, and the program goes on after the
 * instruction -- one signal in all instead of a fault, a trap and two
 * remappings.  Anything else (segment overrides, masked stores, ...) is
 * single-stepped by pointers.c.
 */
#include <cpuid.h>
#include <signal.h> /* the signal frame's xsave layout */
#include <string.h>

#include "x86_insn.h"

#if defined(__x86_64__)

static const int greg_of[16] = {REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP,
                                REG_RSI, REG_RDI, REG_R8,  REG_R9,  REG_R10, REG_R11,
                                REG_R12, REG_R13, REG_R14, REG_R15};

int shmemu__x86_atomic(const unsigned char *p)
{
    for (int i = 0; i < 15; i++, p++) {
        switch (*p) {
        case 0xf0:
            return 1;
        case 0xf2: case 0xf3: case 0x2e: case 0x36: case 0x3e: case 0x26: case 0x64:
        case 0x65: case 0x66: case 0x67:
            continue;
        default:
            break;
        }
        if ((*p & 0xf0) == 0x40) /* REX */
            continue;
        return *p == 0x86 || *p == 0x87;
    }
    return 0;
}

int shmemu__x86_rep_string(const unsigned char *p, struct shmemu__rep_string *r)
{
    int rep = 0, opsize = 0, rexw = 0;
    for (unsigned i = 0; i < 15; i++) {
        unsigned char b = p[i];
        if (b == 0xf3) {
            rep = 1;
            rexw = 0;
        } else if (b == 0x66) {
            opsize = 1;
            rexw = 0;
        } else if (b == 0x2e || b == 0x36 || b == 0x3e || b == 0x26 || b == 0x64 ||
                   b == 0x65 || b == 0x67 || b == 0xf2 || b == 0xf0) {
            if (b == 0xf2 || b == 0xf0)
                return 0;
            rexw = 0;
        } else if ((b & 0xf0) == 0x40) {
            rexw = (b & 8) != 0;
        } else {
            if (!rep || (b != 0xa4 && b != 0xa5 && b != 0xaa && b != 0xab))
                return 0;
            r->movs = b == 0xa4 || b == 0xa5;
            r->size = (b == 0xa4 || b == 0xaa) ? 1 : rexw ? 8 : opsize ? 2 : 4;
            r->len = i + 1;
            return 1;
        }
    }
    return 0;
}

/* Where the signal frame's xsave area keeps state component c (CPUID leaf
 * 0xd): 2, the upper halves of ymm0-15; 6, the upper halves of zmm0-15; 7,
 * zmm16-31.  0 if unknown. */
static unsigned xsave_offset(unsigned c)
{
    unsigned a, b, cx, d;
    if (!__get_cpuid_count(0xd, c, &a, &b, &cx, &d) || !a)
        return 0;
    return b;
}
static unsigned comp_at[8];

void shmemu__x86_init(void)
{
    for (unsigned c = 2; c < 8; c++)
        comp_at[c] = xsave_offset(c);
}

/* size bytes (16, 32 or 64; fewer: the low ones) of vector register n
 * (xmm/ymm/zmm 0-31) into out, from the signal frame. */
static int vec_reg(const ucontext_t *uc, unsigned n, unsigned size, unsigned char *out)
{
    const unsigned char *fp = (const unsigned char *)uc->uc_mcontext.fpregs;
    if (!fp || n > 31)
        return 0;
    if (n < 16 && size <= 16) {
        memcpy(out, fp + 160 + 16 * n, size);
        return 1;
    }
    const struct _fpx_sw_bytes *sw = (const void *)(fp + 464);
    if (sw->magic1 != FP_XSTATE_MAGIC1)
        return 0;
    uint64_t bv; /* the xsave header: components not in their init state */
    memcpy(&bv, fp + 512, sizeof(bv));
    /* (component, its offset for register n, bytes) for each 16-byte lane */
    for (unsigned lane = 0; lane * 16 < size; lane++) {
        unsigned c, at;
        if (n >= 16) {
            c = 7;
            at = comp_at[7] + 64 * (n - 16) + 16 * lane;
        } else if (lane == 0) {
            memcpy(out, fp + 160 + 16 * n, 16);
            continue;
        } else if (lane == 1) {
            c = 2;
            at = comp_at[2] + 16 * n;
        } else {
            c = 6;
            at = comp_at[6] + 32 * n + 16 * (lane - 2);
        }
        if (!(sw->xstate_bv & (1u << c)) || !comp_at[c] || at + 16 > sw->xstate_size)
            return 0;
        if (bv & (1u << c))
            memcpy(out + 16 * lane, fp + at, 16);
        else
            memset(out + 16 * lane, 0, 16);
    }
    return 1;
}

/* An instruction as far as decoding has read it. */
struct insn {
    const unsigned char *p, *start; /* the next byte, the first */
    int opsize, rep, repne, vex, rip_rel;
    unsigned rex, vl, vpp, map, op, disp8_scale, rhi, reg;
};

/* Legacy prefixes (at most four; fs, gs, 0x67 and lock are not decoded
 * here), then REX. */
static int prefixes(struct insn *in)
{
    const unsigned char *p = in->p;
    for (;; p++) {
        if (p - in->start >= 4)
            return 0;
        if (*p == 0x66)
            in->opsize = 1;
        else if (*p == 0xf3)
            in->rep = 1;
        else if (*p == 0xf2)
            in->repne = 1;
        else if (*p == 0x2e || *p == 0x36 || *p == 0x3e || *p == 0x26)
            continue;
        else
            break;
    }
    if ((*p & 0xf0) == 0x40)
        in->rex = *p++;
    in->p = p;
    return 1;
}

/* EVEX (unmasked, no broadcast, map 0F), VEX (map 0F), or a legacy
 * opcode; the REX bits the vector prefixes carry inverted become in->rex. */
static int opcode(struct insn *in)
{
    const unsigned char *p = in->p;
    in->disp8_scale = 1;
    if (!in->rex && *p == 0x62) {
        if (in->opsize || in->rep || in->repne || (p[1] & 0x0f) != 1 || !(p[2] & 4) ||
            (p[3] & 0x9f) != 0x08)
            return 0;
        in->vex = 1;
        in->rex = 0x40 | (p[1] & 0x80 ? 0 : 4) | (p[1] & 0x40 ? 0 : 2) | (p[1] & 0x20 ? 0 : 1) |
                  (p[2] & 0x80 ? 8 : 0);
        in->rhi = p[1] & 0x10 ? 0 : 16;
        in->vl = (p[3] >> 5) & 3;
        if (in->vl == 3)
            return 0;
        in->vpp = p[2] & 3;
        in->map = 1;
        in->disp8_scale = 16u << in->vl;
        in->op = p[4];
        p += 5;
    } else if (!in->rex && (*p == 0xc5 || *p == 0xc4)) {
        if (in->opsize || in->rep || in->repne)
            return 0;
        in->vex = 1;
        if (*p == 0xc5) {
            in->rex = 0x40 | (p[1] & 0x80 ? 0 : 4);
            in->vl = (p[1] >> 2) & 1;
            in->vpp = p[1] & 3;
            in->map = 1;
            p += 2;
        } else {
            in->rex = 0x40 | (p[1] & 0x80 ? 0 : 4) | (p[1] & 0x40 ? 0 : 2) |
                      (p[1] & 0x20 ? 0 : 1) | (p[2] & 0x80 ? 8 : 0);
            in->map = p[1] & 0x1f;
            in->vl = (p[2] >> 2) & 1;
            in->vpp = p[2] & 3;
            p += 3;
        }
        if (in->map != 1)
            return 0;
        in->op = *p++;
    } else if (*p == 0x0f) {
        in->map = 1;
        in->op = p[1];
        p += 2;
    } else {
        in->op = *p++;
    }
    in->p = p;
    return 1;
}

/* ModRM, SIB and displacement: the register operand, and the effective
 * address (a RIP-relative one is completed once the instruction's end is
 * known). */
static int address(struct insn *in, const greg_t *g, uintptr_t *ea_p)
{
    const unsigned char *p = in->p;
    unsigned modrm = *p++, mod = modrm >> 6, rm = modrm & 7;
    in->reg = ((modrm >> 3) & 7) | (in->rex & 4 ? 8 : 0) | in->rhi;
    if (mod == 3)
        return 0;
    uintptr_t ea = 0;
    if (rm == 4) {
        unsigned sib = *p++, base = sib & 7, index = ((sib >> 3) & 7) | (in->rex & 2 ? 8 : 0);
        if (index != 4)
            ea += (uintptr_t)g[greg_of[index]] << (sib >> 6);
        if (base == 5 && mod == 0) {
            int32_t d;
            memcpy(&d, p, 4);
            p += 4;
            ea += (uintptr_t)(intptr_t)d;
        } else {
            ea += (uintptr_t)g[greg_of[base | (in->rex & 1 ? 8 : 0)]];
        }
    } else if (rm == 5 && mod == 0) {
        in->rip_rel = 1;
    } else {
        ea += (uintptr_t)g[greg_of[rm | (in->rex & 1 ? 8 : 0)]];
    }
    if (mod == 1) {
        ea += (uintptr_t)((intptr_t)(int8_t)*p++ * (intptr_t)in->disp8_scale);
    } else if (mod == 2 || in->rip_rel) {
        int32_t d;
        memcpy(&d, p, 4);
        p += 4;
        ea += (uintptr_t)(intptr_t)d;
    }
    in->p = p;
    *ea_p = ea;
    return 1;
}

/* mov r/m, r (0x88, 0x89): the register's low bytes; 0 if not decoded. */
static unsigned gpr_store(const struct insn *in, const greg_t *g, unsigned char *out)
{
    if (in->rep || in->repne)
        return 0;
    unsigned size;
    uint64_t v;
    if (in->op == 0x88) {
        size = 1;
        if (!in->rex && in->reg >= 4 && in->reg < 8) /* ah, ch, dh, bh */
            v = (uint64_t)g[greg_of[in->reg - 4]] >> 8;
        else
            v = (uint64_t)g[greg_of[in->reg]];
    } else {
        size = in->rex & 8 ? 8 : in->opsize ? 2 : 4;
        v = (uint64_t)g[greg_of[in->reg]];
    }
    memcpy(out, &v, size);
    return size;
}

/* mov r/m, imm (0xc6 /0, 0xc7 /0): the immediate, sign-extended. */
static unsigned imm_store(struct insn *in, unsigned char *out)
{
    if (in->rep || in->repne)
        return 0;
    unsigned size = in->op == 0xc6 ? 1 : in->rex & 8 ? 8 : in->opsize ? 2 : 4;
    unsigned isize = in->op == 0xc6 ? 1 : in->opsize ? 2 : 4;
    int64_t v;
    if (isize == 1) {
        v = (int8_t)*in->p;
    } else if (isize == 2) {
        int16_t x;
        memcpy(&x, in->p, 2);
        v = x;
    } else {
        int32_t x;
        memcpy(&x, in->p, 4);
        v = x;
    }
    in->p += isize;
    memcpy(out, &v, size);
    return size;
}

/* The 0F-map moves to memory (and movnti): the register's bytes. */
/* The 0F map's mandatory prefix: 0 none, 1 66, 2 F3, 3 F2 (from VEX and
 * EVEX, or the legacy prefixes); -1 if more than one. */
static int vec_pp(const struct insn *in)
{
    if (in->vex)
        return (int)in->vpp;
    if (in->opsize + in->rep + in->repne > 1)
        return -1;
    return in->opsize ? 1 : in->rep ? 2 : in->repne ? 3 : 0;
}

static unsigned vec_store(const struct insn *in, const ucontext_t *uc, unsigned char *out)
{
    int pp = vec_pp(in);
    if (pp < 0)
        return 0;
    unsigned vsize = 16u << in->vl, size;
    int w = (in->rex & 8) != 0;
    switch (in->op) {
    case 0x11: /* movups, movupd, movss, movsd */
        size = pp == 2 ? 4 : pp == 3 ? 8 : vsize;
        break;
    case 0x29: /* movaps, movapd */
    case 0x2b: /* movntps, movntpd */
        size = pp <= 1 ? vsize : 0;
        break;
    case 0x7f: /* movdqa, movdqu (EVEX, F2: vmovdqu8/16) */
        size = pp == 1 || pp == 2 || (pp == 3 && in->disp8_scale > 1) ? vsize : 0;
        break;
    case 0xe7: /* movntdq */
        size = pp == 1 ? vsize : 0;
        break;
    case 0xd6: /* movq m64, xmm */
        size = pp == 1 && !in->vl ? 8 : 0;
        break;
    case 0x7e: /* movd, movq r/m, xmm */
        size = pp == 1 && !in->vl ? (w ? 8 : 4) : 0;
        break;
    case 0xc3: { /* movnti */
        if (in->vex || pp)
            return 0;
        uint64_t v = (uint64_t)uc->uc_mcontext.gregs[greg_of[in->reg]];
        memcpy(out, &v, w ? 8 : 4);
        return w ? 8 : 4;
    }
    default:
        return 0;
    }
    if (!size || (in->disp8_scale > 1 && size != vsize))
        return 0;
    return vec_reg(uc, in->reg, size, out) ? size : 0;
}

int shmemu__x86_decode_store(const ucontext_t *uc, struct shmemu__store *st)
{
    const greg_t *g = uc->uc_mcontext.gregs;
    struct insn in = {.p = (const unsigned char *)g[REG_RIP]};
    in.start = in.p;
    uintptr_t ea;
    if (!prefixes(&in) || !opcode(&in) || !address(&in, g, &ea))
        return 0;
    unsigned size;
    if (!in.vex && in.map == 0 && (in.op == 0x88 || in.op == 0x89))
        size = gpr_store(&in, g, st->bytes);
    else if (!in.vex && in.map == 0 && (in.op == 0xc6 || in.op == 0xc7) && (in.reg & 7) == 0)
        size = imm_store(&in, st->bytes);
    else if (in.map == 1)
        size = vec_store(&in, uc, st->bytes);
    else
        return 0;
    if (!size)
        return 0;
    if (in.rip_rel)
        ea += (uintptr_t)in.p;
    st->ea = ea;
    st->size = size;
    st->len = (unsigned)(in.p - in.start);
    return 1;
}

/* The 0F-map loads from memory: their bytes; 0 if not decoded. */
static unsigned vec_load(const struct insn *in)
{
    int pp = vec_pp(in);
    if (pp < 0)
        return 0;
    unsigned vsize = 16u << in->vl;
    switch (in->op) {
    case 0xb6: /* movzx, movsx of a byte */
    case 0xbe:
        return in->vex ? 0 : 1;
    case 0xb7: /* of a word */
    case 0xbf:
        return in->vex ? 0 : 2;
    case 0x10: /* movups, movupd, movss, movsd */
        return pp == 2 ? 4 : pp == 3 ? 8 : vsize;
    case 0x28: /* movaps, movapd */
        return pp <= 1 ? vsize : 0;
    case 0x6f: /* movdqa, movdqu (EVEX, F2: vmovdqu8/16) */
        return pp == 1 || pp == 2 || (pp == 3 && in->disp8_scale > 1) ? vsize : 0;
    case 0x6e: /* movd, movq xmm, r/m */
        return pp == 1 && !in->vl ? (in->rex & 8 ? 8 : 4) : 0;
    case 0x7e: /* movq xmm, m64 */
        return pp == 2 && !in->vl ? 8 : 0;
    default:
        return 0;
    }
}

int shmemu__x86_decode_load(const ucontext_t *uc, uintptr_t *ea_p, unsigned *size_p)
{
    const greg_t *g = uc->uc_mcontext.gregs;
    struct insn in = {.p = (const unsigned char *)g[REG_RIP]};
    in.start = in.p;
    uintptr_t ea;
    if (!prefixes(&in) || !opcode(&in) || !address(&in, g, &ea) || in.rip_rel)
        return 0; /* RIP-relative: static data, never the heap */
    unsigned size = 0, wide = in.rex & 8 ? 8 : in.opsize ? 2 : 4;
    if (in.map == 1) {
        size = vec_load(&in);
    } else if (!in.vex && !in.rep && !in.repne) {
        switch (in.op) {
        case 0x8a: /* mov r8, m8; cmp and test of a byte */
        case 0x3a:
        case 0x38:
        case 0x84:
        case 0x80:
            size = 1;
            break;
        case 0x8b: /* mov r, m; cmp and test */
        case 0x3b:
        case 0x39:
        case 0x85:
        case 0x81:
        case 0x83:
            size = wide;
            break;
        case 0x63: /* movsxd */
            size = 4;
            break;
        default:
            break;
        }
    }
    if (!size || (in.disp8_scale > 1 && size != 16u << in.vl))
        return 0;
    *ea_p = ea;
    *size_p = size;
    return 1;
}

#endif
