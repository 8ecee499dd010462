/* heap.c - symmetric heap bookkeeping (see heap.h). */
#include "heap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Raise *h->high_water to the end of a block. */
static void reach(struct shmemu__heap *h, size_t end)
{
    if (!h->high_water)
        return;
    size_t cur = __atomic_load_n(h->high_water, __ATOMIC_RELAXED);
    while (cur < end && !__atomic_compare_exchange_n(h->high_water, &cur, end, 1,
                                                     __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
}

int shmemu__heap_init(struct shmemu__heap *h, size_t size, size_t reserved, size_t *high_water)
{
    memset(h, 0, sizeof(*h));
    h->high_water = high_water;
    h->cap = 16;
    h->v = malloc(h->cap * sizeof(*h->v));
    if (!h->v)
        return -1;
    h->v[0] = (struct shmemu__blk){.off = 0, .len = size - reserved, .req = 0, .used = 0};
    h->n = 1;
    if (reserved)
        h->v[h->n++] = (struct shmemu__blk){.off = size - reserved, .len = reserved,
                                            .req = reserved, .used = 1};
    h->size = size;
    return 0;
}

void shmemu__heap_fini(struct shmemu__heap *h)
{
    free(h->v);
    memset(h, 0, sizeof(*h));
}

static int reserve(struct shmemu__heap *h, size_t extra)
{
    if (h->n + extra <= h->cap)
        return 0;
    size_t cap = h->cap * 2 + extra;
    struct shmemu__blk *v = realloc(h->v, cap * sizeof(*v));
    if (!v)
        return -1;
    h->v = v;
    h->cap = cap;
    return 0;
}

static void insert_at(struct shmemu__heap *h, size_t i, struct shmemu__blk b)
{
    memmove(&h->v[i + 1], &h->v[i], (h->n - i) * sizeof(b));
    h->v[i] = b;
    h->n++;
}

static void remove_at(struct shmemu__heap *h, size_t i)
{
    memmove(&h->v[i], &h->v[i + 1], (h->n - i - 1) * sizeof(h->v[0]));
    h->n--;
}

/* Index of the block containing off; h->n when off is past the heap. */
static size_t index_of(const struct shmemu__heap *h, size_t off)
{
    if (off >= h->size)
        return h->n;
    size_t lo = 0, hi = h->n; /* invariant: v[lo].off <= off < v[hi].off */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (h->v[mid].off <= off)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

const struct shmemu__blk *shmemu__heap_find(const struct shmemu__heap *h, size_t off)
{
    size_t i = index_of(h, off);
    return i < h->n ? &h->v[i] : NULL;
}

int shmemu__heap_alloc(struct shmemu__heap *h, size_t size, size_t align,
                       size_t *off_p)
{
    if (align < SHMEMU__HEAP_GRAIN)
        align = SHMEMU__HEAP_GRAIN;
    if (size == 0 || size > h->size)
        return -1;
    size_t len = SHMEMU__ROUND_UP(size, SHMEMU__HEAP_GRAIN);

    size_t best = h->n;
    for (size_t i = 0; i < h->n; i++) {
        const struct shmemu__blk *b = &h->v[i];
        if (b->used)
            continue;
        size_t start = SHMEMU__ROUND_UP(b->off, align);
        if (start - b->off > b->len || b->len - (start - b->off) < len)
            continue;
        if (best == h->n || b->len < h->v[best].len)
            best = i;
    }
    if (best == h->n || reserve(h, 2) != 0)
        return -1;

    struct shmemu__blk b = h->v[best];
    size_t start = SHMEMU__ROUND_UP(b.off, align);
    size_t pad = start - b.off, tail = b.len - pad - len;
    size_t i = best;
    h->v[i] = (struct shmemu__blk){.off = start, .len = len, .req = size, .used = 1};
    if (pad) {
        insert_at(h, i, (struct shmemu__blk){.off = b.off, .len = pad});
        i++;
    }
    if (tail)
        insert_at(h, i + 1, (struct shmemu__blk){.off = start + len, .len = tail});
    reach(h, start + len);
    *off_p = start;
    return 0;
}

/* Merge block i with its free successor, if any. */
static void merge_next(struct shmemu__heap *h, size_t i)
{
    if (i + 1 < h->n && !h->v[i].used && !h->v[i + 1].used) {
        h->v[i].len += h->v[i + 1].len;
        remove_at(h, i + 1);
    }
}

int shmemu__heap_free(struct shmemu__heap *h, size_t off)
{
    size_t i = index_of(h, off);
    if (i == h->n || h->v[i].off != off || !h->v[i].used)
        return -1;
    h->v[i].used = 0;
    h->v[i].req = 0;
    merge_next(h, i);
    if (i > 0)
        merge_next(h, i - 1);
    return 0;
}

int shmemu__heap_resize(struct shmemu__heap *h, size_t off, size_t size)
{
    size_t i = index_of(h, off);
    if (i == h->n || h->v[i].off != off || !h->v[i].used || size == 0 ||
        size > h->size)
        return -1;
    size_t len = SHMEMU__ROUND_UP(size, SHMEMU__HEAP_GRAIN);
    struct shmemu__blk *b = &h->v[i];
    if (len > b->len) {
        size_t need = len - b->len;
        if (i + 1 == h->n || h->v[i + 1].used || h->v[i + 1].len < need)
            return -1;
        b->len = len;
        reach(h, off + len);
        h->v[i + 1].off += need;
        h->v[i + 1].len -= need;
        if (h->v[i + 1].len == 0)
            remove_at(h, i + 1);
    } else if (len < b->len) {
        if (reserve(h, 1) != 0)
            return -1;
        b = &h->v[i];
        size_t spare = b->len - len;
        b->len = len;
        insert_at(h, i + 1, (struct shmemu__blk){.off = off + len, .len = spare});
        merge_next(h, i + 1);
    }
    h->v[i].req = size;
    return 0;
}

void shmemu__heap_stats(const struct shmemu__heap *h, size_t *free_p,
                        size_t *largest_p)
{
    size_t total = 0, largest = 0;
    for (size_t i = 0; i < h->n; i++) {
        if (h->v[i].used)
            continue;
        total += h->v[i].len;
        if (h->v[i].len > largest)
            largest = h->v[i].len;
    }
    *free_p = total;
    *largest_p = largest;
}
