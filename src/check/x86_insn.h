/*
 * x86_insn.h - the x86-64 instruction that faulted on a checked pointer's
 * page (pointers.c), read from its bytes and the signal frame: whether it
 * is atomic on memory, a `rep` string operation, or a plain store whose
 * address and bytes can be taken without running it.
 */
#ifndef SHMEMU_CHECK_X86_INSN_H
#define SHMEMU_CHECK_X86_INSN_H

#if defined(__x86_64__)
#include <stdint.h>
#include <ucontext.h>

/* `rep movs` or `rep stos` (what memcpy and memset use for large sizes). */
struct shmemu__rep_string {
    int movs;      /* else stos */
    unsigned size; /* bytes per element */
    unsigned len;  /* bytes of the instruction */
};

/* A store carried out from the fault itself: at ea, size bytes. */
struct shmemu__store {
    uintptr_t ea;
    unsigned size, len;
    unsigned char bytes[64];
};

/* Where the signal frame keeps the vector registers' upper halves: once,
 * before any decoding (CPUID). */
void shmemu__x86_init(void);

/* 1 if the instruction at p is atomic on its memory operand: a lock
 * prefix, or xchg with memory (a write fault means the operand is memory). */
int shmemu__x86_atomic(const unsigned char *p);

/* 1 and *r if the instruction at p is `rep movs` or `rep stos`. */
int shmemu__x86_rep_string(const unsigned char *p, struct shmemu__rep_string *r);

/* 1 and *st if the faulting instruction of uc is one of the common stores
 * (mov from a register or an immediate; the SSE, AVX and unmasked AVX-512
 * moves of a vector register to memory); 0 for anything else, which is
 * then single-stepped. */
int shmemu__x86_decode_store(const ucontext_t *uc, struct shmemu__store *st);

/* 1, the address and the bytes if the faulting instruction of uc is one of
 * the common loads (mov, movzx/movsx, cmp and test with memory; the SSE,
 * AVX and unmasked AVX-512 moves from memory); 0 for anything else. */
int shmemu__x86_decode_load(const ucontext_t *uc, uintptr_t *ea, unsigned *size);
#endif

#endif
