/* race.c - conflicting-access detection with vector clocks (see race.h). */
#include "race.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "check.h"
#include "internal.h"

#define GRANULE 64
#define LOCKS 4096
/* A lock covers a run of granules, so that a large access takes one per
 * run: the lock's exchange was half the cost of checking a 4 MiB read. */
#define GRANULES_PER_LOCK 16
#define SITES 2048
#define SITE_LEN 160
#define PAIRS 256 /* pairs of call sites already reported */
/* A PE's own stores (own.c) are tracked in jobs of at most this many PEs:
 * what was published on each heap takes npes * npes words. */
#define OWN_NPES_MAX 1024
/* Jobs in which a PE keeps, per peer, what it learned of that peer's heap
 * by its last look (npes^2 words a PE). */
#define LEARNED_NPES_MAX 64
#define OWN_PAGE 4096 /* the granule of publishing by own stores: a page */
#define SITE_OWN 0x8000 /* in a granule's w_site: a PE's own store */
#define SITE_LOAD 0x4000 /* in its r_site: a PE's plain load of its own heap */
/* in a w_site: a kernel's plain store of data, which the GPU's scopes
 * order for other PEs only through a system-scope fence */
#define SITE_DEV 0x2000
/* The widest write that may be a flag's raise. */
#define FLAG_MAX 8
#define SITE_ID(s) ((uint16_t)((s) & ~(SITE_OWN | SITE_LOAD | SITE_DEV)))
#define UNORDERED "no wait, signal or sync orders the two" /* a report's verdict */

struct gran {
    uint32_t w_pe1, w_clk; /* last write: PE + 1 (0: none), its clock */
    uint16_t w_site;
    uint8_t w_lo, w_hi; /* bytes of the granule it wrote */
    uint32_t r_pe1, r_clk; /* last read */
    uint16_t r_site;
    uint8_t r_lo, r_hi;
};

struct race_hdr {
    int32_t npes;
    uint32_t words_cap;
    uint64_t granules; /* per heap */
    _Atomic uint32_t nraces;
    _Atomic uint32_t disabled;
    _Atomic uint32_t own_entries; /* a page's or heap's entry was published */
    _Atomic uint32_t site_lock;
    uint32_t nsites;
    uint32_t npairs;
    uint32_t pairs[PAIRS];
    _Atomic uint32_t locks[LOCKS];
    char sites[SITES][SITE_LEN];
    /* [id]: the site without its device thread, by which reports are
     * told once per pair (a bug in every thread of a kernel is one) */
    uint16_t base[SITES];
};

/* Words used as flags: key (pe + 1) << 40 | word index, and the join of
 * every clock vector published on it. */
struct word {
    _Atomic uint64_t key;
    _Atomic uint32_t by; /* the last release told where: PE + 1 << 16 | site */
    _Atomic uint32_t vc[]; /* [npes] */
};

struct layout {
    size_t team_vc, words, word_size, kend, heapjoin, shadow, total;
};

static size_t round64(size_t x) { return (x + 63) & ~(size_t)63; }

static struct layout layout_of(int npes, size_t heap_size, uint32_t *cap_p)
{
    struct layout l;
    size_t n = (size_t)npes;
    /* flag words: enough for the collectives' signals on every team and a
     * user's own, within about 32 MiB */
    size_t cap = ((size_t)32 << 20) / (8 + 4 * n);
    cap = cap < 1024 ? 1024 : cap > 65536 ? 65536 : cap;
    l.word_size = round64(sizeof(struct word) + 4 * n);
    l.team_vc = round64(sizeof(struct race_hdr));
    /* a slot per team, and one for the device barrier (all PEs') */
    l.words = l.team_vc + round64((size_t)(SHMEMU__TEAMS_MAX + 1) * 2 * n * 4);
    l.kend = l.words + cap * l.word_size;
    l.heapjoin = l.kend + round64(n * 4);
    l.shadow = l.heapjoin + (n <= OWN_NPES_MAX ? round64(n * n * 4) : 0);
    l.total = l.shadow + n * ((heap_size + GRANULE - 1) / GRANULE) * sizeof(struct gran);
    if (cap_p)
        *cap_p = (uint32_t)cap;
    return l;
}

size_t shmemu__race_ctl_size(int npes, size_t heap_size)
{
    return layout_of(npes, heap_size, NULL).total;
}

/* Shadow per PE from which huge pages are asked for, and the most shadow
 * they are asked for in all. */
#define SHADOW_HUGE_MIN ((size_t)8 << 20)
#define SHADOW_HUGE_MAX ((size_t)1 << 30)

void shmemu__race_ctl_init(void *area, int npes, size_t heap_size)
{
    struct race_hdr *h = area;
    h->npes = npes;
    struct layout l = layout_of(npes, heap_size, &h->words_cap);
    /* A large heap is for large buffers, whose accesses touch its shadow
     * a page per 170 bytes of data: on huge pages (where the kernel gives
     * them to private memory: local and sim) a 4-PE check of a 4 MiB
     * device allreduce spent a third less time.  Not where few granules
     * are touched: each touch would cost 2 MiB, so only large shadows,
     * and no more than SHADOW_HUGE_MAX in all (a hint; failure is
     * harmless). */
    size_t shadow = l.total - l.shadow, page = (size_t)2 << 20;
    if (shadow / (size_t)npes >= SHADOW_HUGE_MIN && shadow <= SHADOW_HUGE_MAX) {
        uintptr_t lo = ((uintptr_t)area + l.shadow + page - 1) & ~(uintptr_t)(page - 1),
                  hi = ((uintptr_t)area + l.total) & ~(uintptr_t)(page - 1);
        if (hi > lo)
            (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
    }
    h->granules = (heap_size + GRANULE - 1) / GRANULE;
    h->nsites = 1; /* 0: unknown */
    strcpy(h->sites[0], "?");
}

uint32_t shmemu__race_count(void *area)
{
    return atomic_load(&((struct race_hdr *)area)->nraces);
}

struct site_cache {
    const char *call;
    void *addr;
    struct shmemu__who who;
    uint16_t id;
};

struct shmemu__race {
    struct race_hdr *h;
    struct layout l;
    uint32_t *vc; /* [npes] */
    uint32_t *plain; /* [npes] (own stores tracked): plain_known's */
    /* [npes][npes], per peer: the join of what was published on its heap
     * while me could load it unseen (a run of its view open, until it
     * closed) or by me's last recorded read there.  Where me's loads of
     * a view are watched, what was published since, it cannot have
     * loaded.  NULL: jobs of more than LEARNED_NPES_MAX PEs (all published
     * counts). */
    _Atomic uint32_t *learned;
    int loaded;      /* a plain load was seen since the last release */
    /* While a kernel runs (in_kernel), the stamp of its threads' plain
     * stores of data since the PE's last system-scope fence, ahead of its
     * clock (shmemu__race_dev_data); 0: none */
    uint32_t pending;
    int in_kernel;
    /* [npes] while a kernel runs: what its threads' plain loads may have
     * learned (plain_known) as of the PE's last system-scope fence or
     * acquire, or the kernel's start: what they may read data by */
    uint32_t *acq;
    struct site_cache cache[256];
};

void shmemu__race_count_found(struct shmemu__race *r)
{
    atomic_fetch_add(&r->h->nraces, 1);
}

struct shmemu__race *shmemu__race_new(shmemu__pe *me, void *area)
{
    struct shmemu__race *r = calloc(1, sizeof(*r));
    if (!r)
        return NULL;
    r->h = area;
    r->l = layout_of(me->npes, me->heap_size, NULL);
    r->vc = calloc((size_t)me->npes, sizeof(uint32_t));
    if (!r->vc) {
        free(r);
        return NULL;
    }
    r->vc[me->pe] = 1;
    if (me->npes <= OWN_NPES_MAX && !(r->plain = calloc((size_t)me->npes, sizeof(uint32_t)))) {
        free(r->vc);
        free(r);
        return NULL;
    }
    if (r->plain && me->npes <= LEARNED_NPES_MAX) /* else (no memory) all counts */
        r->learned = calloc((size_t)me->npes * (size_t)me->npes, sizeof(*r->learned));
    return r;
}

int shmemu__race_tracks_own(const struct shmemu__race *r) { return r->plain != NULL; }

void shmemu__race_free(struct shmemu__race *r)
{
    if (r) {
        free((void *)r->learned);
        free(r->acq);
        free(r->plain);
        free(r->vc);
        free(r);
    }
}

uint32_t shmemu__race_clock(const struct shmemu__race *r)
{
    return r->vc[shmemu__self->pe];
}

static void spin_lock(_Atomic uint32_t *l)
{
    while (atomic_exchange_explicit(l, 1, memory_order_acquire))
        shmemu__relax();
}

static void spin_unlock(_Atomic uint32_t *l)
{
    atomic_store_explicit(l, 0, memory_order_release);
}

static void atomic_max(_Atomic uint32_t *p, uint32_t v)
{
    uint32_t cur = atomic_load_explicit(p, memory_order_relaxed);
    while (cur < v && !atomic_compare_exchange_weak(p, &cur, v))
        ;
}

/* Stop looking (a release could not be recorded: going on could report
 * conflicts that are ordered after all). */
static void give_up(shmemu__pe *me, struct shmemu__race *r, const char *why)
{
    if (!atomic_exchange(&r->h->disabled, 1))
        shmemu__check_note(me->job, "race detection stopped in this job: %s", why);
}

uint32_t *shmemu__race_vc_copy(shmemu__pe *me, const struct shmemu__race *r)
{
    uint32_t *vc = malloc((size_t)me->npes * sizeof(uint32_t));
    if (vc)
        memcpy(vc, r->vc, (size_t)me->npes * sizeof(uint32_t));
    return vc;
}

static void join_plain(shmemu__pe *me, struct shmemu__race *r, uint32_t *vc);

uint32_t *shmemu__race_release_begin(shmemu__pe *me, struct shmemu__race *r)
{
    uint32_t *vc = shmemu__race_vc_copy(me, r);
    if (!vc)
        give_up(me, r, "out of memory");
    else if (r->plain && (r->loaded || shmemu__chk_views_any(me)))
        join_plain(me, r, vc); /* it may have polled a flag */
    r->loaded = 0;
    r->vc[me->pe]++;
    shmemu__own_epoch(me);
    return vc;
}

static struct word *word_at(struct shmemu__race *r, uint32_t i)
{
    return (struct word *)(void *)((char *)r->h + r->l.words + (size_t)i * r->l.word_size);
}

/* The join of every clock vector published on pe's heap (its words and
 * pages): what a PE may have learned by loading any word there, which
 * a plain load may have done unseen.  NULL past OWN_NPES_MAX. */
static _Atomic uint32_t *heapjoin(struct shmemu__race *r, int pe)
{
    if (r->l.shadow == r->l.heapjoin)
        return NULL;
    return (_Atomic uint32_t *)(void *)((char *)r->h + r->l.heapjoin) +
           (size_t)pe * (size_t)r->h->npes;
}

static uint32_t hash(uint64_t key, uint32_t cap)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdull;
    key ^= key >> 33;
    return (uint32_t)(key % cap);
}

/* The entry for key; create: insert it if missing. */
static struct word *find_key(struct shmemu__race *r, uint64_t key, int create)
{
    uint32_t cap = r->h->words_cap, i = hash(key, cap);
    for (uint32_t probes = 0; probes < cap; probes++, i = (i + 1) % cap) {
        struct word *w = word_at(r, i);
        /* To insert, the slot's first access is the exchange, a write: a
         * load first would map the zero page where the table is private
         * (local, sim), and the write then copy it and flush the TLB of
         * every CPU running a PE. */
        uint64_t k = 0;
        if (create && atomic_compare_exchange_strong(&w->key, &k, key))
            return w;
        if (!create)
            k = atomic_load_explicit(&w->key, memory_order_acquire);
        if (k == key)
            return w;
        if (k == 0 && !create)
            return NULL;
    }
    return NULL;
}

/* The entry for word off of pe's heap. */
static struct word *find_word(struct shmemu__race *r, int pe, size_t off, int create)
{
    return find_key(r, ((uint64_t)(pe + 1) << 40) | (off / 8), create);
}

/* The entry for the page holding off of pe's heap: where a PE's own
 * stores there publish (own.c).  Word indexes stay below 2^37. */
#define PAGE_KEY (1ull << 39)
static struct word *find_page(struct shmemu__race *r, int pe, size_t off, int create)
{
    return find_key(r, ((uint64_t)(pe + 1) << 40) | PAGE_KEY | (off / OWN_PAGE), create);
}

/* The entry for all of pe's heap: the stores to a run of pages opened at
 * once (own.c). */
static struct word *find_heap(struct shmemu__race *r, int pe, int create)
{
    return find_key(r, ((uint64_t)(pe + 1) << 40) | (2 * PAGE_KEY - 1), create);
}

static void join_into(_Atomic uint32_t *dst, const uint32_t *vc, int npes)
{
    for (int i = 0; i < npes; i++)
        if (vc[i])
            atomic_max(&dst[i], vc[i]);
}

/* Join vc into w (an entry of pe's heap, NULL: the table is full) and into
 * what was published on that heap. */
static void publish(shmemu__pe *me, struct shmemu__race *r, int pe, struct word *w,
                    const uint32_t *vc)
{
    if (!w) {
        give_up(me, r, "too many words used as flags");
        return;
    }
    join_into(w->vc, vc, me->npes);
    _Atomic uint32_t *hj = heapjoin(r, pe);
    if (hj)
        join_into(hj, vc, me->npes);
}

void shmemu__race_heap_seen(shmemu__pe *me, struct shmemu__race *r, int pe)
{
    _Atomic uint32_t *l = r->learned ? r->learned + (size_t)pe * (size_t)me->npes : NULL;
    _Atomic uint32_t *hj = l ? heapjoin(r, pe) : NULL;
    for (int i = 0; hj && i < me->npes; i++) {
        uint32_t v = atomic_load_explicit(&hj[i], memory_order_relaxed);
        if (v)
            atomic_max(&l[i], v);
    }
}

void shmemu__race_release(shmemu__pe *me, struct shmemu__race *r, int pe, size_t off,
                          const uint32_t *vc)
{
    if (!vc || atomic_load_explicit(&r->h->disabled, memory_order_relaxed))
        return;
    publish(me, r, pe, find_word(r, pe, off, 1), vc);
}

/* ------------------------------------------------------ the GPU's scopes */

/* A device thread's plain store (through a peer pointer or to its own
 * heap) reaches another GPU in order with the PE's later stores only past
 * a system-scope fence: __threadfence() orders them within the GPU.  So a
 * kernel's plain store of data (more than FLAG_MAX bytes in one
 * instruction: a flag is a word) is stamped with a clock its PE reaches
 * only at its next system-scope fence (or the kernel's end), ahead of
 * every clock it publishes before then: a peer that reads the data having
 * learned only of a flag raised before that fence is reported, naming the
 * fix.  Reads and flags keep their clocks: a flag a kernel raises with no
 * fence still orders its earlier reads before what the peer does next
 * (the last barrier of vLLM's one-shot kernel).  Coarser than a GPU where
 * it cannot err: a fence of any thread of the PE counts for all its
 * stores, so cumulativity through __syncthreads holds.  DATA_GAP is the
 * clocks the PE may move through by other releases between the data and
 * the fence; past it the data counts as released (a bug missed, none
 * invented). */
#define DATA_GAP 256

/* The data stamps a PE's kernels settled by ending, per PE (shared):
 * data written by a kernel that has ended is read by the next one's
 * threads after a flag alone, as vLLM's first barrier does (the kernel's
 * end orders it on the GPU); only data of a kernel still running needs
 * the reader's system-scope acquire. */
static _Atomic uint32_t *kend(struct shmemu__race *r)
{
    return (_Atomic uint32_t *)(void *)((char *)r->h + r->l.kend);
}

static const uint32_t *plain_known(shmemu__pe *me, struct shmemu__race *r, const uint32_t *known,
                                   int reading);

void shmemu__race_dev_kernel(shmemu__pe *me, struct shmemu__race *r, int running)
{
    if (!running && r->pending)
        atomic_max(&kend(r)[me->pe], r->pending);
    shmemu__race_dev_fence(me, r); /* the end of a kernel, and the host before one */
    r->in_kernel = running;
    free(r->acq);
    r->acq = NULL;
    if (running && r->plain) { /* (own stores tracked: plain loads are judged) */
        r->acq = malloc((size_t)me->npes * sizeof(*r->acq));
        if (r->acq)
            shmemu__race_dev_acquire(me, r);
    }
}

void shmemu__race_dev_acquire(shmemu__pe *me, struct shmemu__race *r)
{
    if (!r->acq)
        return;
    const uint32_t *pk = plain_known(me, r, r->vc, -1);
    for (int i = 0; i < me->npes; i++)
        r->acq[i] = pk[i] > r->acq[i] ? pk[i] : r->acq[i];
}

void shmemu__race_dev_fence(shmemu__pe *me, struct shmemu__race *r)
{
    if (r->pending && r->vc[me->pe] < r->pending)
        r->vc[me->pe] = r->pending;
    r->pending = 0;
    shmemu__race_dev_acquire(me, r); /* a fence is an acquire too */
}

int shmemu__race_dev_data(shmemu__pe *me, struct shmemu__race *r, size_t n, uint32_t *stamp)
{
    if (!r->in_kernel || n <= FLAG_MAX || !me->chk || !shmemu__chk_who(me->chk))
        return 0;
    uint32_t now = r->vc[me->pe];
    if (r->pending <= now)
        r->pending = now > UINT32_MAX - DATA_GAP ? now : now + DATA_GAP;
    *stamp = r->pending;
    return 1;
}

/* A PE's plain stores, unseen, may be flags: its clock vector now goes on
 * a page's entry, or the whole heap's. */
void shmemu__race_heap_release(shmemu__pe *me, struct shmemu__race *r)
{
    if (!atomic_load_explicit(&r->h->disabled, memory_order_relaxed)) {
        atomic_store_explicit(&r->h->own_entries, 1, memory_order_release);
        publish(me, r, me->pe, find_heap(r, me->pe, 1), r->vc);
    }
}

void shmemu__race_page_release(shmemu__pe *me, struct shmemu__race *r, size_t off)
{
    if (!atomic_load_explicit(&r->h->disabled, memory_order_relaxed)) {
        atomic_store_explicit(&r->h->own_entries, 1, memory_order_release);
        publish(me, r, me->pe, find_page(r, me->pe, off, 1), r->vc);
    }
}

static struct gran *gran_at(struct shmemu__race *r, int pe, uint64_t g)
{
    return (struct gran *)(void *)((char *)r->h + r->l.shadow) + (uint64_t)pe * r->h->granules + g;
}

static _Atomic uint32_t *gran_lock(struct shmemu__race *r, int pe, uint64_t g)
{
    return &r->h->locks[((uint64_t)pe * 0x9e3779b1u + g / GRANULES_PER_LOCK) % LOCKS];
}

/* Learn what e holds; 1 if that was news. */
static int learn(shmemu__pe *me, struct shmemu__race *r, struct word *e)
{
    int news = 0;
    for (int i = 0; i < me->npes; i++) {
        uint32_t v = atomic_load_explicit(&e->vc[i], memory_order_relaxed);
        if (v > r->vc[i])
            r->vc[i] = v, news = 1;
    }
    return news;
}

void shmemu__race_acquire(shmemu__pe *me, struct shmemu__race *r, int pe, size_t off, size_t n)
{
    int news = 0;
    /* A flag the owner stored with a plain store (the host's or a
     * kernel's) publishes on its page, or (a run of pages) on the heap. */
    int pages = n && atomic_load_explicit(&r->h->own_entries, memory_order_acquire);
    struct word *all = pages ? find_heap(r, pe, 0) : NULL;
    if (all)
        news |= learn(me, r, all);
    for (size_t p = off & ~(size_t)(OWN_PAGE - 1); pages && p < off + n; p += OWN_PAGE) {
        struct word *e = find_page(r, pe, p, 0);
        if (e)
            news |= learn(me, r, e);
    }
    for (size_t w = off & ~(size_t)7; w < off + n; w += 8) {
        struct word *e = find_word(r, pe, w, 0);
        if (e) {
            news |= learn(me, r, e);
            continue;
        }
        /* Not a published word (a large put wrote it): learn at least of
         * the writer itself. */
        uint64_t g = w / GRANULE;
        if (g >= r->h->granules)
            continue;
        _Atomic uint32_t *l = gran_lock(r, pe, g);
        spin_lock(l);
        struct gran *s = gran_at(r, pe, g);
        uint32_t wp = s->w_pe1, wc = s->w_clk;
        spin_unlock(l);
        if (wp && wc > r->vc[wp - 1])
            r->vc[wp - 1] = wc, news = 1;
    }
    if (news)
        shmemu__own_epoch(me);
}

/* 1 if PE i published on a word of [off, off + n) of pe's heap what r has
 * not learned. */
static int unlearned_by(struct shmemu__race *r, int pe, size_t off, size_t n, int i)
{
    for (size_t w = off & ~(size_t)7; w < off + n; w += 8) {
        struct word *e = find_word(r, pe, w, 0);
        if (e && atomic_load_explicit(&e->vc[i], memory_order_relaxed) > r->vc[i])
            return 1;
    }
    return 0;
}

/* Site id's text into buf[len] (left as it is for id 0: none). */
static void site_text(struct shmemu__race *r, uint16_t id, char *buf, size_t len)
{
    spin_lock(&r->h->site_lock);
    if (id && id < r->h->nsites && len)
        shmemu__strlcpy(buf, r->h->sites[id], len);
    spin_unlock(&r->h->site_lock);
}

/* A PE other than me whose release on a word of [off, off + n) of pe's
 * heap me has not learned (the last writer of its granule first, if it is
 * one), with that writer's site into site[len] ("" if another wrote
 * last); -1 if none. */
int shmemu__race_unlearned(shmemu__pe *me, struct shmemu__race *r, int pe, size_t off, size_t n,
                           char *site, size_t len)
{
    if (len)
        site[0] = '\0';
    if (atomic_load_explicit(&r->h->disabled, memory_order_relaxed))
        return -1;
    uint32_t wp = 0;
    uint16_t ws = 0;
    uint64_t g = off / GRANULE;
    if (g < r->h->granules) {
        _Atomic uint32_t *l = gran_lock(r, pe, g);
        spin_lock(l);
        struct gran *s = gran_at(r, pe, g);
        wp = s->w_pe1, ws = SITE_ID(s->w_site);
        spin_unlock(l);
    }
    if (wp && (int)wp - 1 != me->pe && unlearned_by(r, pe, off, n, (int)wp - 1)) {
        site_text(r, ws, site, len);
        return (int)wp - 1;
    }
    for (int i = 0; i < me->npes; i++) {
        if (i == me->pe || !unlearned_by(r, pe, off, n, i))
            continue;
        /* where i's release there was told, if it was the last */
        struct word *e = find_word(r, pe, off & ~(size_t)7, 0);
        uint32_t by = e ? atomic_load_explicit(&e->by, memory_order_relaxed) : 0;
        if (by >> 16 == (uint32_t)i + 1)
            site_text(r, (uint16_t)(by & 0xffff), site, len);
        return i;
    }
    return -1;
}

/* ------------------------------------------------------------ call sites */

/* The id of a site's text in the shared table (0: the table is full);
 * base: the id of the same site without its device thread (0: itself). */
static uint16_t text_id_based(struct shmemu__race *r, const char *text, uint16_t base)
{
    struct race_hdr *h = r->h;
    uint16_t id = 0;
    spin_lock(&h->site_lock);
    for (uint32_t i = 1; i < h->nsites && !id; i++)
        if (!strcmp(h->sites[i], text))
            id = (uint16_t)i;
    if (!id && h->nsites < SITES) {
        shmemu__strlcpy(h->sites[h->nsites], text, SITE_LEN);
        h->base[h->nsites] = base ? base : (uint16_t)h->nsites;
        id = (uint16_t)h->nsites++;
    }
    spin_unlock(&h->site_lock);
    return id;
}

static uint16_t text_id(struct shmemu__race *r, const char *text)
{
    return text_id_based(r, text, 0);
}


/* The id of the site text the cache keeps for (call, key, who); on a
 * miss, text (called with buf[SITE_LEN] and the device thread's words, ""
 * for the host) writes it. */
static uint16_t cached_site(struct shmemu__race *r, const char *call, void *key,
                            const struct shmemu__who *who,
                            void (*text)(char *buf, const char *by, const void *arg),
                            const void *arg)
{
    static const struct shmemu__who host;
    if (!who || !who->dev)
        who = &host;
    unsigned slot = (unsigned)(((uintptr_t)key >> 2) ^ ((uintptr_t)call >> 3) ^
                               (who->thread[0] * 7u + who->block[0] * 131u)) % 256;
    struct site_cache *c = &r->cache[slot];
    if (c->id && c->call == call && c->addr == key && !memcmp(&c->who, who, sizeof(*who)))
        return c->id;
    char buf[SITE_LEN], by[64];
    uint16_t base = 0;
    if (who->dev) { /* the site as the host's first, for the pairs told */
        text(buf, "", arg);
        base = text_id(r, buf);
    }
    shmemu__chk_who_text(who, by, sizeof(by));
    text(buf, by, arg);
    c->call = call;
    c->addr = key;
    c->who = *who;
    c->id = text_id_based(r, buf, base);
    return c->id;
}

struct code_site {
    shmemu__pe *me;
    const char *call;
    void *addr;
};

static void code_site_text(char *buf, const char *by, const void *arg)
{
    const struct code_site *s = arg;
    char at[CHK_SITE + 100]; /* and the source line, where the module has one */
    snprintf(buf, SITE_LEN, "%s%s (at %s)", s->call ? s->call : "?", by,
             shmemu__chk_site_line(s->me->chk, s->addr, at, sizeof(at)));
}

static uint16_t site_id(shmemu__pe *me, struct shmemu__race *r, const char *call, void *addr,
                        const struct shmemu__who *who)
{
    struct code_site s = {me, call, addr};
    return cached_site(r, call, addr, who, code_site_text, &s);
}

void shmemu__race_release_by(shmemu__pe *me, struct shmemu__race *r, int pe, size_t off,
                             const uint32_t *vc, const char *where)
{
    shmemu__race_release(me, r, pe, off, vc);
    struct word *w = vc ? find_word(r, pe, off, 0) : NULL;
    if (w)
        atomic_store_explicit(&w->by, (uint32_t)(me->pe + 1) << 16 | text_id(r, where),
                              memory_order_relaxed);
}

/* Report the conflict between the new access and a recorded one, once per
 * pair of call sites. */
static void report(shmemu__pe *me, struct shmemu__race *r, int write, int pe, size_t lo,
                   size_t hi, uint16_t site, int other_write, int other_pe, uint16_t other_site,
                   size_t olo, size_t ohi, const char *why, int scoped)
{
    struct race_hdr *h = r->h;
    char a[SITE_LEN], b[SITE_LEN];
    int fresh = 1;
    spin_lock(&h->site_lock);
    uint16_t s1 = site < h->nsites ? h->base[site] : 0;
    uint16_t s2 = other_site < h->nsites ? h->base[other_site] : 0;
    uint32_t pair = (uint32_t)(s1 < s2 ? s1 : s2) << 16 | (s1 < s2 ? s2 : s1);
    for (uint32_t i = 0; i < h->npairs && fresh; i++)
        fresh = h->pairs[i] != pair;
    if (fresh && h->npairs < PAIRS)
        h->pairs[h->npairs++] = pair;
    memcpy(a, h->sites[site < h->nsites ? site : 0], sizeof(a));
    memcpy(b, h->sites[other_site < h->nsites ? other_site : 0], sizeof(b));
    spin_unlock(&h->site_lock);
    atomic_fetch_add(&h->nraces, 1);
    if (!fresh)
        return;
    /* Bytes of the program's static data: the variable they start in. */
    char var[128] = "", name[96];
    if (shmemu__static_name(me, lo, name, sizeof(name)))
        snprintf(var, sizeof(var), " (%s)", name);
    char scope[560];
    if (scoped == 2) /* the writer's side or the reader's: either may lack it */
        snprintf(scope, sizeof(scope),
                 "nothing orders the two for PE %d's GPU: PE %d's kernel stored the data with "
                 "no system-scope fence between it and the flag PE %d saw, or PE %d's threads "
                 "saw the flag with plain loads and no system-scope acquire after them (a "
                 "load of a flag orders nothing; __threadfence() orders within one GPU only): "
                 "__threadfence_system() goes between the data and the flag, and between the "
                 "poll and the reads (or poll with a _system atomic or shmemu_dev_*_wait_until)",
                 me->pe, other_pe, me->pe, me->pe);
    else if (scoped) /* the other was a device thread's data store */
        snprintf(scope, sizeof(scope),
                 "nothing orders the two: if a flag told PE %d the data was there, no "
                 "system-scope fence of PE %d came between the data and the flag (a GPU's "
                 "stores reach another GPU in order only past __threadfence_system() or "
                 "shmemu_dev_fence/_quiet; __threadfence() orders them within PE %d's GPU "
                 "only)",
                 me->pe, other_pe, other_pe);
    shmemu__check_note(me->job,
                       "race: PE %d's %s %s bytes [%#zx, %#zx)%s of PE %d's heap, which PE "
                       "%d's %s %s [%#zx, %#zx), and %s",
                       me->pe, a, write ? "wrote" : "read", lo, hi, var, pe, other_pe, b,
                       other_write ? "wrote" : "read", olo, ohi, scoped ? scope : why);
}

/* known, and what me may have learned by plain loads, unseen: a flag
 * published anywhere on its own heap or on a heap it has a view of (its
 * shmemu_ptr), or stored there by its owner's plain store; on a view's
 * heap, only what was published while me could load it unseen (learned)
 * where its loads are watched.  Conflicts of a plain store are judged by
 * this: neither side can be shown to have missed the other's flag. */
static const uint32_t *plain_known(shmemu__pe *me, struct shmemu__race *r, const uint32_t *known,
                                   int reading)
{
    uint32_t *pk = r->plain;
    int n = me->npes;
    memcpy(pk, known, (size_t)n * sizeof(uint32_t));
    int views = shmemu__chk_views_any(me);
    for (int q = views ? 0 : me->pe; q < (views ? n : me->pe + 1); q++) {
        _Atomic uint32_t *hj = NULL;
        if (q == me->pe)
            hj = heapjoin(r, q);
        else if (shmemu__chk_view_mapped(me, q)) /* (a read there may be the poll itself) */
            hj = r->learned && q != reading && !shmemu__chk_view_unseen(me, q)
                     ? r->learned + (size_t)q * (size_t)n
                     : heapjoin(r, q);
        for (int i = 0; hj && i < n; i++) {
            uint32_t v = atomic_load_explicit(&hj[i], memory_order_relaxed);
            if (v > pk[i])
                pk[i] = v;
        }
    }
    return pk;
}

/* How an access is judged (access_site's own). */
enum { BY_CALL, /* a host call's: by what me learned through calls */
       PLAIN_STORE, /* me's plain store to its own heap: also by what either
                     * side may have learned by plain loads */
       PLAIN_LOAD, /* me's plain load of its own heap: the same */
       DEV_CALL /* a device call's: the same (its thread may poll plainly) */ };

/* Into vc (a release's), what me may have learned by plain loads: a
 * peer that learns it from the flag then judges its plain accesses by it
 * too, so that a chain of flags polled with plain loads (PE 0 raises PE
 * 2's, PE 2 then PE 1's) orders PE 0's accesses before PE 1's.  Only
 * where me loaded plainly since its last release (its own heap's first
 * load in an epoch faults: seen) or may load through views (not seen). */
static void join_plain(shmemu__pe *me, struct shmemu__race *r, uint32_t *vc)
{
    const uint32_t *pk = plain_known(me, r, vc, -1);
    memcpy(vc, pk, (size_t)me->npes * sizeof(uint32_t));
}

/* Record the access, stamped clock; what was recorded before conflicts
 * unless known (a clock vector) shows it ordered before. */
static void access_site(shmemu__pe *me, struct shmemu__race *r, int write, int pe, size_t off,
                        size_t n, uint32_t clock, const uint32_t *known, uint16_t site,
                        const char *why, int own)
{
    struct race_hdr *h = r->h;
    /* A plain access is judged by what either side may have learned by
     * loads, kept in jobs of at most OWN_NPES_MAX PEs: beyond, none is
     * recorded (a conflict missed, never one invented). */
    if (!n || atomic_load_explicit(&h->disabled, memory_order_relaxed) || (own && !r->plain))
        return;
    /* A read of a peer's heap may be the poll of any flag published there:
     * judged with all of it (taken once the granule's record is seen: a
     * writer publishes before it records), and learned after. */
    int reading = write || pe == me->pe ? -1 : pe;
    const uint32_t *pk = NULL; /* plain_known's, once a record needs it */
    site |= own == PLAIN_LOAD ? SITE_LOAD : own ? SITE_OWN : 0;
    uint32_t me1 = (uint32_t)me->pe + 1;
    int found = 0, o_write = 0, o_pe = 0, o_scoped = 0;
    /* a kernel's plain load: data of a running kernel needs its acquire */
    int dev_reader = own == PLAIN_LOAD && r->acq && me->chk && shmemu__chk_who(me->chk);
    uint16_t o_site = 0;
    size_t o_lo = 0, o_hi = 0;
    _Atomic uint32_t *held = NULL;
    int touched = 0;
    for (uint64_t g = off / GRANULE; g <= (off + n - 1) / GRANULE && g < h->granules; g++) {
        size_t base = (size_t)g * GRANULE;
        uint8_t lo = (uint8_t)(off > base ? off - base : 0);
        uint8_t hi = (uint8_t)(off + n < base + GRANULE ? off + n - base : GRANULE);
        _Atomic uint32_t *l = gran_lock(r, pe, g);
        if (l != held) {
            if (held)
                spin_unlock(held);
            spin_lock(held = l);
        }
        struct gran *s = gran_at(r, pe, g);
        if (!touched || ((uintptr_t)s & 4095) < sizeof(*s) ||
            ((uintptr_t)s & 4095) > 4096 - sizeof(*s)) {
            /* A shadow page's first access is a write: a read first would
             * map the zero page, and the write after it would copy it and
             * flush the TLB of every CPU running a PE (threads).  So is
             * the first access of the page a granule ends in, where it
             * straddles two (its last field, r_site, lies there). */
            touched = 1;
            __atomic_fetch_or(&s->w_pe1, 0, __ATOMIC_RELAXED);
            __atomic_fetch_or(&s->r_site, 0, __ATOMIC_RELAXED);
        }
        if (!found && s->w_pe1 && s->w_pe1 != me1 && s->w_lo < hi && lo < s->w_hi) {
            const uint32_t *k = known;
            /* their plain store, or ours: either side may have learned
             * by a plain load that the other's flag was up */
            if (own || (s->w_site & SITE_OWN))
                k = pk ? pk : (pk = plain_known(me, r, known, reading));
            int wp = (int)s->w_pe1 - 1;
            if (s->w_clk > k[wp]) {
                found = 1, o_write = 1, o_pe = wp, o_site = s->w_site;
                o_scoped = (s->w_site & SITE_DEV) && !write;
                o_lo = base + s->w_lo, o_hi = base + s->w_hi;
            } else if (!write && (s->w_site & SITE_DEV) && dev_reader &&
                       s->w_clk > atomic_load_explicit(&kend(r)[wp], memory_order_relaxed) &&
                       s->w_clk > (known[wp] > r->acq[wp] ? known[wp] : r->acq[wp])) {
                /* ordered only by a flag this kernel's threads loaded with
                 * no system-scope acquire after it */
                found = 1, o_write = 1, o_pe = wp, o_site = s->w_site, o_scoped = 2;
                o_lo = base + s->w_lo, o_hi = base + s->w_hi;
            }
        }
        if (!found && write && s->r_pe1 && s->r_pe1 != me1 && s->r_lo < hi && lo < s->r_hi) {
            /* A plain load may have been a poll of what this writes, if it
             * can be a flag's raise: 8 bytes at most, by a put or by one
             * store instruction.  A wider write is a copy (a put of a
             * buffer, memcpy, a vector loop): no protocol raises a flag so
             * (a flag is a word; device code stores one with a volatile
             * or atomic store, never as part of a copy). */
            int load = (s->r_site & SITE_LOAD) != 0;
            const uint32_t *k = known;
            if (own || load)
                k = pk ? pk : (pk = plain_known(me, r, known, reading));
            if ((!load || n > FLAG_MAX) && s->r_clk > k[s->r_pe1 - 1]) {
                found = 1, o_write = 0, o_pe = (int)s->r_pe1 - 1, o_site = s->r_site;
                o_lo = base + s->r_lo, o_hi = base + s->r_hi;
            }
        }
        if (write) {
            s->w_pe1 = me1, s->w_clk = clock, s->w_site = site, s->w_lo = lo, s->w_hi = hi;
        } else if (own != PLAIN_LOAD || !s->r_pe1 || s->r_pe1 == me1 ||
                   s->r_clk <=
                       (pk ? pk : (pk = plain_known(me, r, known, reading)))[s->r_pe1 - 1]) {
            /* (a plain load keeps another PE's read it is not ordered
             * after: that one's conflicts with the PE's next store) */
            s->r_pe1 = me1, s->r_clk = clock, s->r_site = site, s->r_lo = lo, s->r_hi = hi;
        }
    }
    if (held)
        spin_unlock(held);
    if (reading >= 0 && r->learned)
        shmemu__race_heap_seen(me, r, pe);
    if (found)
        report(me, r, write, pe, off, off + n, SITE_ID(site), o_write, o_pe, SITE_ID(o_site),
               o_lo, o_hi, why, o_scoped);
}

static void access_bits(shmemu__pe *me, struct shmemu__race *r, int write, int pe, size_t off,
                        size_t n, uint32_t clock, const uint32_t *known, const char *call,
                        void *addr, const struct shmemu__who *who, const char *why, int own,
                        uint16_t bits)
{
    if (n && !atomic_load_explicit(&r->h->disabled, memory_order_relaxed))
        access_site(me, r, write, pe, off, n, clock, known,
                    (uint16_t)(site_id(me, r, call, addr, who) | bits), why, own);
}

static void access_known(shmemu__pe *me, struct shmemu__race *r, int write, int pe, size_t off,
                         size_t n, uint32_t clock, const uint32_t *known, const char *call,
                         void *addr, const struct shmemu__who *who, const char *why, int own)
{
    access_bits(me, r, write, pe, off, n, clock, known, call, addr, who, why, own, 0);
}

void shmemu__race_access(shmemu__pe *me, struct shmemu__race *r, int write, int pe,
                         size_t off, size_t n, uint32_t clock, const char *call, void *addr,
                         const struct shmemu__who *who)
{
    access_known(me, r, write, pe, off, n, clock, r->vc, call, addr, who, UNORDERED, BY_CALL);
}

void shmemu__race_dev_store(shmemu__pe *me, struct shmemu__race *r, int pe, size_t off,
                            size_t n, uint32_t clock, const char *call, void *addr,
                            const struct shmemu__who *who)
{
    access_bits(me, r, 1, pe, off, n, clock, r->vc, call, addr, who, UNORDERED, BY_CALL,
                SITE_DEV);
}

struct line_site {
    const char *call, *file;
    int line;
};

static void line_site_text(char *buf, const char *by, const void *arg)
{
    const struct line_site *s = arg;
    snprintf(buf, SITE_LEN, "%s%s (at %s:%d)", s->call, by, s->file ? s->file : "?", s->line);
}

void shmemu__race_dev_access(shmemu__pe *me, struct shmemu__race *r, int write, int pe,
                             size_t off, size_t n, uint32_t clock, const char *call,
                             const char *file, int line, const char *why,
                             const struct shmemu__who *who)
{
    /* cached by the call and the file's name, the line folded into it */
    struct line_site s = {call, file, line};
    uint16_t site = cached_site(r, call, (void *)((uintptr_t)file ^ ((uintptr_t)line << 20)),
                                who, line_site_text, &s);
    access_site(me, r, write, pe, off, n, clock, r->vc, site, why ? why : UNORDERED, DEV_CALL);
}

void shmemu__race_own_store(shmemu__pe *me, struct shmemu__race *r, size_t off, size_t n,
                            const char *call, void *addr, const struct shmemu__who *who)
{
    /* Published before it is recorded: a peer's poll that finds the
     * record (under its granule's lock) finds the flag it may be, too. */
    shmemu__race_page_release(me, r, off);
    uint32_t clock = r->vc[me->pe];
    int data = shmemu__race_dev_data(me, r, n, &clock); /* a kernel's data: GPU scopes */
    access_bits(me, r, 1, me->pe, off, n, clock, r->vc, call, addr, who, UNORDERED, PLAIN_STORE,
                data ? SITE_DEV : 0);
}

void shmemu__race_plain_load(shmemu__pe *me, struct shmemu__race *r, int pe, size_t off,
                             size_t n, const char *call, void *addr,
                             const struct shmemu__who *who)
{
    r->loaded = 1;
    access_known(me, r, 0, pe, off, n, r->vc[me->pe], r->vc, call, addr, who, UNORDERED,
                 PLAIN_LOAD);
}

void shmemu__race_write_since(shmemu__pe *me, struct shmemu__race *r, int pe, size_t off,
                              size_t n, const uint32_t *then, const char *call, void *addr,
                              const struct shmemu__who *who)
{
    access_known(me, r, 1, pe, off, n, r->vc[me->pe], then, call, addr, who,
                 "the put may land until its context's quiet or fence, which came after "
                 "(a barrier completes the default context only)", BY_CALL);
}

/* ------------------------------------------------------------ team syncs */

static _Atomic uint32_t *team_vc(struct shmemu__race *r, int slot, uint32_t gen)
{
    return (_Atomic uint32_t *)(void *)((char *)r->h + r->l.team_vc) +
           ((size_t)slot * 2 + (gen & 1)) * (size_t)r->h->npes;
}

void shmemu__race_sync_arrive(shmemu__pe *me, struct shmemu__race *r, int slot, uint32_t gen)
{
    _Atomic uint32_t *t = team_vc(r, slot, gen);
    for (int i = 0; i < me->npes; i++)
        if (r->vc[i])
            atomic_max(&t[i], r->vc[i]);
    r->vc[me->pe]++;
    shmemu__own_epoch(me);
}

void shmemu__race_dev_barrier(shmemu__pe *me, struct shmemu__race *r, int done, uint32_t gen)
{
    if (done)
        shmemu__race_sync_done(me, r, SHMEMU__TEAMS_MAX, gen);
    else
        shmemu__race_sync_arrive(me, r, SHMEMU__TEAMS_MAX, gen);
}

void shmemu__race_sync_done(shmemu__pe *me, struct shmemu__race *r, int slot, uint32_t gen)
{
    _Atomic uint32_t *t = team_vc(r, slot, gen);
    int news = 0;
    for (int i = 0; i < me->npes; i++) {
        uint32_t v = atomic_load_explicit(&t[i], memory_order_relaxed);
        if (v > r->vc[i])
            r->vc[i] = v, news = 1;
    }
    if (news)
        shmemu__own_epoch(me);
}
