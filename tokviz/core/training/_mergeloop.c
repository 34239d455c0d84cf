/* The BPE merge loop of tokviz.core.training.train, compiled: the same algorithm as the pure-Python
 * loop (tokviz/core/training/pairindex.py and train._Merger), step for step, so both give the same
 * merges, counts, ties and tied pairs.
 *
 * The words are laid end to end in one sequence of symbols (a separator between words), a doubly
 * linked list over byte positions; a token lives at the position of its first byte. Each pair keeps
 * its count, a pending change (summed over one merge, then applied) and the positions where it was
 * created (never removed, checked when the pair is merged). The pair to merge comes from a lazy
 * max-heap in the Python loop's order: count, then the tie rule (greatest bytes, then smallest
 * ids; or smallest ids, ranked by first occurrence). A pair's count rises only in the merge that
 * makes it, so a pair has one entry at most and the choice and the tied pairs depend on the counts
 * alone, not on how stale the heap is.
 *
 * Loop(words, freqs, first_seen, step_type, ties=True) builds the index (``ties=False`` records
 * neither the ties nor the tied pairs, and keeps no count histogram: what the benchmarks compare
 * against); run(limit, seconds, check) makes up to ``limit`` merges, stopping early once
 * ``seconds`` have passed, and returns one ``step_type`` (MergeStep) per merge. The merges run
 * without the GIL; ``check`` (a callable that raises to cancel) is called with it every 16,384
 * merged sites of one long merge. ``exhausted`` becomes true when no pair is left; ``tokens`` is
 * the corpus's size in tokens after the merges so far.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SEP (-1)
#define TIED_KEPT 8
#define CHECK_EVERY 0x3FFF
#define FRONT 16         /* pairs held out of the heap, best first (see best()) */
#define HIST_SMALL 65536 /* counts below this are kept in an array, larger ones in a hash table */

typedef struct {
    uint64_t key; /* left << 32 | right */
    int64_t count;
    int64_t delta;    /* pending change within one merge */
    uint32_t dstamp;  /* the merge whose change ``delta`` holds */
    uint32_t len, cap;
    int32_t *occ;     /* positions where the pair was created */
} Pair;

typedef struct {
    int64_t count;
    uint64_t key; /* the pair's: compared without a look-up in the pair table */
} Entry;

/* The tokens found on one side of a merge's sites, by token id: the merge that last saw the token
 * there, the weight of its sites, the entry of its new pair; and the tokens seen, in order. */
typedef struct {
    uint32_t *stamp, *idx, *touch;
    int64_t *w;
    uint32_t n;
} Side;

typedef struct {
    int32_t a, b;
    int64_t count, ties, tokens_after;
    uint32_t tied_at, tied_n;
} Record;

/* The record type's fields (MergeStep's), each written straight into its slot. */
static const char *const FIELDS[] = {
    "step", "left_id", "right_id", "left", "right", "new_id", "count", "ties", "tokens_after", "tied",
};
#define NFIELDS 10

typedef struct {
    PyObject_HEAD
    int first_seen;
    int running; /* a run is under way (without the GIL): another thread may not start one */
    int record_ties; /* keep the histogram and the tied pairs (0: measure what they cost) */
    int exhausted;
    int64_t tokens; /* corpus tokens after the merges so far */
    PyTypeObject *step_type;
    Py_ssize_t offsets[NFIELDS];
    /* the sequence */
    Py_ssize_t n;
    int32_t *sym, *nxt, *prv;
    int64_t *wt; /* NULL when every word counts once */
    /* pairs: entries and an open-addressing index (slot = entry + 1, 0 empty) */
    Pair *pairs;
    uint32_t npairs, pcap;
    uint32_t *slots;
    uint64_t smask;
    /* count -> number of pairs with that count: an array for small counts, else a hash (key 0 empty) */
    int64_t *hsmall;
    int64_t *hkeys, *hvals;
    uint64_t hmask, hused;
    /* the lazy heap, and in front of it the last tie group's pairs, valid when put there */
    Entry *heap;
    size_t hn, hcap;
    Entry front[FRONT];
    uint32_t front_pair[FRONT];
    int nfront;
    /* tokens: bytes for the lexicographic rule, per-token scratch for one merge */
    uint8_t *tb;
    size_t tblen, tbcap;
    size_t *toff;
    uint32_t *tlen;
    uint64_t *tkey; /* a token's first 8 bytes, big-endian, zero-padded: orders most tokens at once */
    PyObject **tokobj; /* a token's bytes object, made when a record first names it */
    uint32_t ntok, tcap;
    Side side[2]; /* left of the sites, right of them */
    uint32_t *dtouch;
    size_t dn, dcap;
    uint32_t stamp;
    /* one run's records */
    Record *recs;
    size_t nrec, reccap;
    uint32_t *tied;
    size_t ntied, tiedcap;
    uint32_t *scratch; /* tied pairs of one step */
    size_t scap;
} Loop;

static int grow(void **p, size_t *cap, size_t need, size_t size) {
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap : 16;
    while (c < need) c *= 2;
    void *q = realloc(*p, c * size);
    if (!q) return -1;
    *p = q;
    *cap = c;
    return 0;
}

static inline uint64_t mix(uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return k;
}

/* ---- pairs ---- */

static int pairs_rehash(Loop *s, uint64_t size) {
    uint32_t *slots = calloc(size, sizeof(uint32_t));
    if (!slots) return -1;
    uint64_t mask = size - 1;
    for (uint32_t i = 0; i < s->npairs; i++) {
        uint64_t h = mix(s->pairs[i].key) & mask;
        while (slots[h]) h = (h + 1) & mask;
        slots[h] = i + 1;
    }
    free(s->slots);
    s->slots = slots;
    s->smask = mask;
    return 0;
}

/* The entry of pair ``key``, made (count 0, no sites) when absent; UINT32_MAX when out of memory. */
static uint32_t pair_get(Loop *s, uint64_t key) {
    uint64_t h = mix(key) & s->smask;
    uint32_t v;
    while ((v = s->slots[h])) {
        if (s->pairs[v - 1].key == key) return v - 1;
        h = (h + 1) & s->smask;
    }
    if ((uint64_t)(s->npairs + 1) * 2 > s->smask + 1) {
        if (pairs_rehash(s, (s->smask + 1) * 2) < 0) return UINT32_MAX;
        return pair_get(s, key);
    }
    if (s->npairs == UINT32_MAX - 1) return UINT32_MAX;
    size_t cap = s->pcap;
    if (grow((void **)&s->pairs, &cap, (size_t)s->npairs + 1, sizeof(Pair)) < 0) return UINT32_MAX;
    s->pcap = (uint32_t)cap;
    Pair *p = &s->pairs[s->npairs];
    memset(p, 0, sizeof(Pair));
    p->key = key;
    s->slots[h] = s->npairs + 1;
    return s->npairs++;
}

/* The entry of pair ``key``, which exists. */
static uint32_t pair_find(const Loop *s, uint64_t key) {
    uint64_t h = mix(key) & s->smask;
    uint32_t v;
    while ((v = s->slots[h])) {
        if (s->pairs[v - 1].key == key) return v - 1;
        h = (h + 1) & s->smask;
    }
    return UINT32_MAX;
}

static int occ_add(Pair *p, int32_t pos) {
    if (p->len == p->cap) {
        uint32_t c = p->cap ? p->cap * 2 : 4;
        int32_t *q = realloc(p->occ, (size_t)c * sizeof(int32_t));
        if (!q) return -1;
        p->occ = q;
        p->cap = c;
    }
    p->occ[p->len++] = pos;
    return 0;
}

static void occ_free(Pair *p) {
    free(p->occ);
    p->occ = NULL;
    p->len = p->cap = 0;
}

/* ---- the count histogram ---- */

static int hist_rehash(Loop *s, uint64_t size) {
    int64_t *keys = calloc(size, sizeof(int64_t)), *vals = calloc(size, sizeof(int64_t));
    if (!keys || !vals) {
        free(keys);
        free(vals);
        return -1;
    }
    uint64_t mask = size - 1;
    for (uint64_t i = 0; s->hkeys && i <= s->hmask; i++) {
        if (!s->hkeys[i]) continue;
        uint64_t h = mix((uint64_t)s->hkeys[i]) & mask;
        while (keys[h]) h = (h + 1) & mask;
        keys[h] = s->hkeys[i];
        vals[h] = s->hvals[i];
    }
    free(s->hkeys);
    free(s->hvals);
    s->hkeys = keys;
    s->hvals = vals;
    s->hmask = mask;
    return 0;
}

/* The slot of count ``c`` (> 0), made when absent; -1 when out of memory. */
static int64_t hist_slot(Loop *s, int64_t c) {
    uint64_t h = mix((uint64_t)c) & s->hmask;
    while (s->hkeys[h]) {
        if (s->hkeys[h] == c) return (int64_t)h;
        h = (h + 1) & s->hmask;
    }
    if ((s->hused + 1) * 2 > s->hmask + 1) {
        if (hist_rehash(s, (s->hmask + 1) * 2) < 0) return -1;
        return hist_slot(s, c);
    }
    s->hkeys[h] = c;
    s->hvals[h] = 0;
    s->hused++;
    return (int64_t)h;
}

static int hist_add(Loop *s, int64_t c, int64_t d) {
    if (c < HIST_SMALL) {
        s->hsmall[c] += d;
        return 0;
    }
    int64_t h = hist_slot(s, c);
    if (h < 0) return -1;
    s->hvals[h] += d;
    return 0;
}

/* ---- the heap ---- */

static inline int tok_cmp(const Loop *s, uint32_t x, uint32_t y) {
    if (x == y) return 0;
    uint64_t px = s->tkey[x], py = s->tkey[y];
    if (px != py) return px < py ? -1 : 1; /* a difference in the padded prefixes is a real one */
    uint32_t lx = s->tlen[x], ly = s->tlen[y];
    int c = memcmp(s->tb + s->toff[x], s->tb + s->toff[y], lx < ly ? lx : ly);
    if (c) return c;
    return lx < ly ? -1 : lx > ly;
}

/* Whether entry x pops before entry y: the higher count, then the tie rule's order. */
static inline int before(const Loop *s, Entry x, Entry y) {
    if (x.count != y.count) return x.count > y.count;
    uint64_t kx = x.key, ky = y.key;
    if (kx == ky) return 0;
    if (!s->first_seen) {
        int c = tok_cmp(s, (uint32_t)(kx >> 32), (uint32_t)(ky >> 32));
        if (c) return c > 0;
        c = tok_cmp(s, (uint32_t)kx, (uint32_t)ky);
        if (c) return c > 0;
    }
    return kx < ky;
}

/* A 4-ary heap: half the depth of a binary one, and a node's children share a cache line. */
static void sift_down(Loop *s, size_t i) {
    Entry *h = s->heap;
    size_t n = s->hn;
    Entry e = h[i];
    for (;;) {
        size_t c = 4 * i + 1;
        if (c >= n) break;
        size_t best = c, end = c + 4 < n ? c + 4 : n;
        for (size_t k = c + 1; k < end; k++)
            if (before(s, h[k], h[best])) best = k;
        if (!before(s, h[best], e)) break;
        h[i] = h[best];
        i = best;
    }
    h[i] = e;
}

static int heap_push(Loop *s, uint32_t pair, int64_t count) {
    if (grow((void **)&s->heap, &s->hcap, s->hn + 1, sizeof(Entry)) < 0) return -1;
    Entry e = {count, s->pairs[pair].key};
    size_t i = s->hn++;
    while (i) {
        size_t up = (i - 1) / 4;
        if (!before(s, e, s->heap[up])) break;
        s->heap[i] = s->heap[up];
        i = up;
    }
    s->heap[i] = e;
    return 0;
}

static Entry heap_pop(Loop *s) {
    Entry top = s->heap[0];
    s->hn--;
    if (s->hn) {
        s->heap[0] = s->heap[s->hn];
        sift_down(s, 0);
    }
    return top;
}

/* Make the heap's top entry one whose count is its pair's count (stale entries dropped, or pushed
 * again at the pair's lower count): 1 when there is one, 0 when the heap runs out, -1 out of memory.
 * A pair has one entry at most (its count rises only in the merge that makes it), so the pairs come
 * out in the order of their current counts and the tie rule, however stale the entries are. */
static int heap_settle(Loop *s, uint32_t *pair) {
    while (s->hn) {
        Entry e = s->heap[0];
        uint32_t pi = pair_find(s, e.key);
        int64_t cur = s->pairs[pi].count;
        if (cur == e.count) {
            *pair = pi;
            return 1;
        }
        heap_pop(s);
        if (cur > 0 && cur < e.count && heap_push(s, pi, cur) < 0) return -1;
    }
    return 0;
}

/* Give the front's pairs whose counts fell since they were put there back to the heap. */
static int front_settle(Loop *s) {
    int kept = 0;
    for (int t = 0; t < s->nfront; t++) {
        uint32_t pi = s->front_pair[t];
        int64_t cur = s->pairs[pi].count;
        if (cur == s->front[t].count) {
            s->front[kept] = s->front[t];
            s->front_pair[kept++] = pi;
        } else if (cur > 0 && heap_push(s, pi, cur) < 0) {
            return -1;
        }
    }
    s->nfront = kept;
    return 0;
}

/* Take the best pair of the front and the heap (the front settled): 1, 0 when none, -1 out of memory. */
static int take_best(Loop *s, uint32_t *pair, int64_t *count) {
    uint32_t hp = 0;
    int r = heap_settle(s, &hp);
    if (r < 0) return -1;
    if (s->nfront && (!r || before(s, s->front[0], s->heap[0]))) {
        *pair = s->front_pair[0];
        *count = s->front[0].count;
        s->nfront--;
        memmove(s->front, s->front + 1, (size_t)s->nfront * sizeof(Entry));
        memmove(s->front_pair, s->front_pair + 1, (size_t)s->nfront * sizeof(uint32_t));
        return 1;
    }
    if (!r) return 0;
    *pair = hp;
    *count = heap_pop(s).count;
    return 1;
}

/* ---- tokens ---- */

/* Room for one more token's records. */
static int tok_room(Loop *s) {
    if (s->ntok < s->tcap) return 0;
    size_t c = s->tcap ? (size_t)s->tcap * 2 : 512;
    void *p;
#define GROW_ARRAY(field, type)                               \
    if (!(p = realloc(s->field, c * sizeof(type)))) return -1; \
    s->field = p;
    GROW_ARRAY(toff, size_t)
    GROW_ARRAY(tlen, uint32_t)
    GROW_ARRAY(tkey, uint64_t)
    GROW_ARRAY(tokobj, PyObject *)
    for (int k = 0; k < 2; k++) {
        GROW_ARRAY(side[k].stamp, uint32_t)
        GROW_ARRAY(side[k].idx, uint32_t)
        GROW_ARRAY(side[k].w, int64_t)
        GROW_ARRAY(side[k].touch, uint32_t)
        memset(s->side[k].stamp + s->tcap, 0, (c - s->tcap) * sizeof(uint32_t));
    }
#undef GROW_ARRAY
    memset(s->tokobj + s->tcap, 0, (c - s->tcap) * sizeof(PyObject *));
    s->tcap = (uint32_t)c;
    return 0;
}

/* A new token: the bytes of token ``a`` then those of ``b`` (a byte when ``a`` is -1, ``b`` its value). */
static int tok_add(Loop *s, int32_t a, int32_t b) {
    uint32_t len = a < 0 ? 1 : s->tlen[a] + s->tlen[b];
    if (tok_room(s) < 0 || grow((void **)&s->tb, &s->tbcap, s->tblen + len, 1) < 0) return -1;
    if (a < 0) {
        s->tb[s->tblen] = (uint8_t)b;
    } else {
        memcpy(s->tb + s->tblen, s->tb + s->toff[a], s->tlen[a]);
        memcpy(s->tb + s->tblen + s->tlen[a], s->tb + s->toff[b], s->tlen[b]);
    }
    s->toff[s->ntok] = s->tblen;
    s->tlen[s->ntok] = len;
    uint64_t prefix = 0;
    for (uint32_t k = 0; k < 8; k++) prefix = prefix << 8 | (k < len ? s->tb[s->tblen + k] : 0);
    s->tkey[s->ntok] = prefix;
    s->tblen += len;
    s->ntok++;
    return 0;
}

/* ---- one merge ---- */

static int delta_add(Loop *s, uint32_t i, int64_t d) {
    Pair *p = &s->pairs[i];
    if (p->dstamp != s->stamp) {
        p->dstamp = s->stamp;
        p->delta = 0;
        if (grow((void **)&s->dtouch, &s->dcap, s->dn + 1, sizeof(uint32_t)) < 0) return -1;
        s->dtouch[s->dn++] = i;
    }
    p->delta += d;
    return 0;
}

/* Token ``x`` stood on side ``sd`` of a site merged now, at ``pos``, with weight ``w``; ``key`` is
 * the pair it makes with the new token there. */
static inline int beside(Loop *s, Side *sd, int32_t x, uint64_t key, int32_t pos, int64_t w) {
    if (sd->stamp[x] != s->stamp) {
        sd->stamp[x] = s->stamp;
        sd->w[x] = 0;
        uint32_t q = pair_get(s, key);
        if (q == UINT32_MAX) return -1;
        sd->idx[x] = q;
        sd->touch[sd->n++] = (uint32_t)x;
    }
    sd->w[x] += w;
    return occ_add(&s->pairs[sd->idx[x]], pos);
}

static int cmp_pos(const void *x, const void *y) {
    int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
    return (a > b) - (a < b);
}

/* Merge every site of pair ``pi`` into a new token (the next id); ``saved`` gets the tokens saved.
 * Returns 0, -1 out of memory, -2 when ``check`` raised (with the GIL held then by the caller's
 * thread state ``ts``, released again before returning). */
static int merge(Loop *s, uint32_t pi, int64_t *saved, PyObject *check, PyThreadState **ts) {
    uint64_t key = s->pairs[pi].key;
    int32_t a = (int32_t)(key >> 32), b = (int32_t)(uint32_t)key;
    int32_t new_id = (int32_t)s->ntok;
    if (tok_add(s, a, b) < 0) return -1;
    s->stamp++;
    s->dn = 0;
    int32_t *sites = s->pairs[pi].occ;
    uint32_t nsites = s->pairs[pi].len;
    s->pairs[pi].occ = NULL;
    s->pairs[pi].len = s->pairs[pi].cap = 0;
    *saved = 0;
    /* Overlapping runs (a == b) merge left to right, so their sites are taken in order. */
    if (a == b && nsites) qsort(sites, nsites, sizeof(int32_t), cmp_pos);
    int32_t *sym = s->sym, *nxt = s->nxt, *prv = s->prv;
    const int64_t *wt = s->wt;
    uint32_t done = 0;
    s->side[0].n = s->side[1].n = 0;
    int64_t w = 1, total = 0;
    int err = 0;
    for (uint32_t t = 0; t < nsites; t++) {
        int32_t i = sites[t];
        if (sym[i] != a) continue;
        int32_t j = nxt[i];
        if (sym[j] != b) continue;
        if (check != Py_None && (++done & CHECK_EVERY) == 0) {
            PyEval_RestoreThread(*ts);
            PyObject *r = PyObject_CallNoArgs(check);
            Py_XDECREF(r);
            *ts = PyEval_SaveThread();
            if (!r) {
                err = -2;
                break;
            }
        }
        if (wt) w = wt[i];
        total += w;
        int32_t k = nxt[j];
        sym[i] = new_id;
        sym[j] = SEP;
        nxt[i] = k;
        prv[k] = i;
        int32_t h = prv[i];
        int32_t x = sym[h], y = sym[k];
        if (x >= 0 && beside(s, &s->side[0], x, (uint64_t)(uint32_t)x << 32 | (uint32_t)new_id, h, w) < 0) {
            err = -1;
            break;
        }
        if (y >= 0 && beside(s, &s->side[1], y, (uint64_t)(uint32_t)new_id << 32 | (uint32_t)y, i, w) < 0) {
            err = -1;
            break;
        }
    }
    free(sites);
    if (err) return err;
    *saved = total;
    /* Each x left of a merged pair turns (x, a) into (x, new); each x right of it (b, x) into (new, x). */
    for (int k = 0; k < 2; k++) {
        Side *sd = &s->side[k];
        for (uint32_t t = 0; t < sd->n; t++) {
            uint32_t x = sd->touch[t];
            uint64_t key = k == 0 ? (uint64_t)x << 32 | (uint32_t)a : (uint64_t)(uint32_t)b << 32 | x;
            uint32_t old = pair_get(s, key);
            if (old == UINT32_MAX || delta_add(s, old, -sd->w[x]) < 0 || delta_add(s, sd->idx[x], sd->w[x]) < 0)
                return -1;
        }
    }
    /* Fold the changes into the counts, the histogram and the heap. A pair whose count reaches 0
     * never gains a site again (new sites always hold the newest token), so its sites are freed. */
    for (size_t t = 0; t < s->dn; t++) {
        uint32_t q = s->dtouch[t];
        Pair *p = &s->pairs[q];
        int64_t d = p->delta;
        if (d == 0 || q == pi) continue;
        int64_t old = p->count, now = old + d;
        if (old && s->record_ties && hist_add(s, old, -1) < 0) return -1;
        if (now > 0) {
            p->count = now;
            if (s->record_ties && hist_add(s, now, 1) < 0) return -1;
            if (d > 0 && heap_push(s, q, now) < 0) return -1;
        } else {
            p->count = 0;
            occ_free(&s->pairs[q]);
        }
    }
    Pair *m = &s->pairs[pi];
    if (m->count && s->record_ties && hist_add(s, m->count, -1) < 0) return -1;
    m->count = 0;
    return 0;
}

/* ---- choosing the pair ---- */

static int64_t hist_get(Loop *s, int64_t c) {
    if (c < HIST_SMALL) return s->hsmall[c];
    uint64_t h = mix((uint64_t)c) & s->hmask;
    while (s->hkeys[h]) {
        if (s->hkeys[h] == c) return s->hvals[h];
        h = (h + 1) & s->hmask;
    }
    return 0;
}

/* The first position of pair ``pi`` still holding it. */
static int32_t first_position(Loop *s, uint32_t pi) {
    Pair *p = &s->pairs[pi];
    int32_t a = (int32_t)(p->key >> 32), b = (int32_t)(uint32_t)p->key;
    int32_t best = INT32_MAX;
    for (uint32_t t = 0; t < p->len; t++) {
        int32_t i = p->occ[t];
        if (i < best && s->sym[i] == a && s->sym[s->nxt[i]] == b) best = i;
    }
    return best;
}

typedef struct {
    int32_t pos;
    uint32_t order, pair;
} Ranked;

static int cmp_ranked(const void *x, const void *y) {
    const Ranked *p = x, *q = y;
    if (p->pos != q->pos) return p->pos < q->pos ? -1 : 1;
    return (p->order > q->order) - (p->order < q->order);
}

/* Choose the next pair into ``scratch`` (the chosen pair first, then the tied ones kept) and set
 * ``count``, ``ties`` and ``ntied``. Returns 1, 0 when no pair is left, -1 out of memory. */
static int best(Loop *s, int64_t *count, int64_t *ties, size_t *ntied) {
    uint32_t top;
    int64_t c;
    if (front_settle(s) < 0) return -1;
    int r = take_best(s, &top, &c);
    if (r <= 0) return r;
    *count = c;
    if (grow((void **)&s->scratch, &s->scap, TIED_KEPT, sizeof(uint32_t)) < 0) return -1;
    s->scratch[0] = top;
    size_t n = 1;
    if (!s->record_ties && !s->first_seen) {
        *ties = 0;
        *ntied = 0;
        return 1;
    }
    int64_t h = s->record_ties ? hist_get(s, c) : 0;
    *ties = h ? h : 1;
    if (*ties == 1 && s->record_ties) {
        *ntied = 1;
        return 1;
    }
    /* The next pairs at this count, in order: the tied pairs kept (lexicographic), or all of them
     * (first-seen, which ranks them by where they first occur). */
    size_t limit = s->first_seen ? SIZE_MAX : TIED_KEPT;
    while (n < limit) {
        uint32_t e;
        int64_t ec;
        r = take_best(s, &e, &ec);
        if (r < 0) return -1;
        if (r == 0) break;
        if (ec != c) {
            if (heap_push(s, e, ec) < 0) return -1;
            break;
        }
        if (grow((void **)&s->scratch, &s->scap, n + 1, sizeof(uint32_t)) < 0) return -1;
        s->scratch[n++] = e;
    }
    if (!s->first_seen) {
        /* The runners-up go to the front (ahead of what is left there, all worse), where the next
         * step finds them without a heap operation while their counts hold. */
        int keep = s->nfront;
        int room = FRONT - (int)(n - 1);
        while (keep > room) {
            keep--;
            if (heap_push(s, s->front_pair[keep], s->front[keep].count) < 0) return -1;
        }
        memmove(s->front + (n - 1), s->front, (size_t)keep * sizeof(Entry));
        memmove(s->front_pair + (n - 1), s->front_pair, (size_t)keep * sizeof(uint32_t));
        for (size_t t = 1; t < n; t++) {
            s->front[t - 1] = (Entry){c, s->pairs[s->scratch[t]].key};
            s->front_pair[t - 1] = s->scratch[t];
        }
        s->nfront = keep + (int)(n - 1);
        *ntied = n;
        return 1;
    }
    /* First-seen: every pair at this count, ranked by where it first occurs. */
    Ranked *rk = malloc(n * sizeof(Ranked));
    if (!rk) return -1;
    for (size_t t = 0; t < n; t++) {
        rk[t].pos = first_position(s, s->scratch[t]);
        rk[t].order = (uint32_t)t;
        rk[t].pair = s->scratch[t];
    }
    qsort(rk, n, sizeof(Ranked), cmp_ranked);
    for (size_t t = 0; t < n; t++) s->scratch[t] = rk[t].pair;
    free(rk);
    for (size_t t = 1; t < n; t++)
        if (heap_push(s, s->scratch[t], c) < 0) return -1;
    *ntied = n < TIED_KEPT ? n : TIED_KEPT;
    if (!s->record_ties) {
        *ties = 0;
        *ntied = 0;
    }
    return 1;
}

/* ---- the Python type ---- */

static void Loop_dealloc(Loop *s) {
    for (uint32_t i = 0; s->pairs && i < s->npairs; i++) free(s->pairs[i].occ);
    free(s->pairs);
    free(s->slots);
    free(s->sym);
    free(s->nxt);
    free(s->prv);
    free(s->wt);
    free(s->hsmall);
    free(s->hkeys);
    free(s->hvals);
    free(s->heap);
    free(s->tb);
    free(s->toff);
    free(s->tlen);
    free(s->tkey);
    for (uint32_t t = 0; s->tokobj && t < s->ntok; t++) Py_XDECREF(s->tokobj[t]);
    free(s->tokobj);
    for (int k = 0; k < 2; k++) {
        free(s->side[k].stamp);
        free(s->side[k].idx);
        free(s->side[k].w);
        free(s->side[k].touch);
    }
    free(s->dtouch);
    free(s->recs);
    free(s->tied);
    free(s->scratch);
    Py_XDECREF(s->step_type);
    Py_TYPE(s)->tp_free((PyObject *)s);
}

static int build(Loop *s, PyObject *words, PyObject *freqs) {
    Py_ssize_t nw = PyList_GET_SIZE(words);
    if (PyList_GET_SIZE(freqs) != nw) {
        PyErr_SetString(PyExc_ValueError, "words and freqs differ in length");
        return -1;
    }
    /* Layout: a separator, word 0, a separator, word 1, ..., a separator (words of one byte hold no
     * pair and are left out). Every pair count is at most the weighted length, checked to fit. */
    int64_t n = 1, weighted = 0;
    int unit = 1;
    for (Py_ssize_t w = 0; w < nw; w++) {
        PyObject *word = PyList_GET_ITEM(words, w);
        if (!PyBytes_Check(word)) {
            PyErr_SetString(PyExc_TypeError, "words must be bytes");
            return -1;
        }
        Py_ssize_t len = PyBytes_GET_SIZE(word);
        int64_t f = PyLong_AsLongLong(PyList_GET_ITEM(freqs, w));
        if (f == -1 && PyErr_Occurred()) return -1;
        if (f < 1) {
            PyErr_SetString(PyExc_ValueError, "word counts must be positive");
            return -1;
        }
        int64_t part;
        if (len < 2) {
            if (__builtin_mul_overflow(f, (int64_t)len, &part) || __builtin_add_overflow(weighted, part, &weighted)) {
                PyErr_SetString(PyExc_OverflowError, "token counts could exceed 64 bits");
                return -1;
            }
            continue;
        }
        if (f != 1) unit = 0;
        if (__builtin_mul_overflow(f, (int64_t)len, &part) || __builtin_add_overflow(weighted, part, &weighted)) {
            PyErr_SetString(PyExc_OverflowError, "pair counts could exceed 64 bits");
            return -1;
        }
        n += len + 1;
        if (n >= INT32_MAX) {
            PyErr_SetString(PyExc_OverflowError, "the words exceed 2**31 positions");
            return -1;
        }
    }
    s->n = (Py_ssize_t)n;
    s->tokens = weighted;
    s->sym = malloc((size_t)n * sizeof(int32_t));
    s->nxt = malloc((size_t)n * sizeof(int32_t));
    s->prv = malloc((size_t)n * sizeof(int32_t));
    if (!unit) s->wt = malloc((size_t)n * sizeof(int64_t));
    int64_t *totals = calloc(1 << 16, sizeof(int64_t));
    uint32_t *sizes = calloc(1 << 16, sizeof(uint32_t));
    if (!s->sym || !s->nxt || !s->prv || (!unit && !s->wt) || !totals || !sizes) goto nomem;
    int32_t pos = 0;
    s->sym[0] = SEP;
    if (s->wt) s->wt[0] = 0;
    for (Py_ssize_t w = 0; w < nw; w++) {
        PyObject *word = PyList_GET_ITEM(words, w);
        Py_ssize_t len = PyBytes_GET_SIZE(word);
        if (len < 2) continue;
        const uint8_t *d = (const uint8_t *)PyBytes_AS_STRING(word);
        int64_t f = unit ? 1 : PyLong_AsLongLong(PyList_GET_ITEM(freqs, w));
        for (Py_ssize_t t = 0; t < len; t++) {
            s->sym[++pos] = d[t];
            if (s->wt) s->wt[pos] = f;
            if (t) {
                uint32_t code = (uint32_t)d[t - 1] << 8 | d[t];
                totals[code] += f;
                sizes[code]++;
            }
        }
        s->sym[++pos] = SEP;
        if (s->wt) s->wt[pos] = f;
    }
    for (int32_t i = 0; i < (int32_t)n; i++) {
        s->nxt[i] = i + 1;
        s->prv[i] = i - 1;
    }
    s->hsmall = calloc(HIST_SMALL, sizeof(int64_t));
    if (!s->hsmall || pairs_rehash(s, 1 << 17) < 0 || hist_rehash(s, 1 << 10) < 0) goto nomem;
    uint32_t *where = calloc(1 << 16, sizeof(uint32_t)); /* pair entry + 1 of each code */
    if (!where) goto nomem;
    for (uint32_t code = 0; code < (1 << 16); code++) {
        if (!sizes[code]) continue;
        uint32_t q = pair_get(s, (uint64_t)(code >> 8) << 32 | (code & 0xFF));
        if (q == UINT32_MAX) { free(where); goto nomem; }
        Pair *p = &s->pairs[q];
        p->occ = malloc((size_t)sizes[code] * sizeof(int32_t));
        if (!p->occ) { free(where); goto nomem; }
        p->cap = sizes[code];
        p->count = totals[code];
        where[code] = q + 1;
        if (s->record_ties && hist_add(s, totals[code], 1) < 0) { free(where); goto nomem; }
    }
    for (int32_t i = 1; i + 1 < (int32_t)n; i++) {
        if (s->sym[i] < 0 || s->sym[i + 1] < 0) continue;
        Pair *p = &s->pairs[where[(uint32_t)s->sym[i] << 8 | (uint32_t)s->sym[i + 1]] - 1];
        p->occ[p->len++] = i;
    }
    free(where);
    for (int32_t t = 0; t < 256; t++)
        if (tok_add(s, -1, t) < 0) goto nomem;
    if (grow((void **)&s->heap, &s->hcap, s->npairs, sizeof(Entry)) < 0) goto nomem;
    for (uint32_t q = 0; q < s->npairs; q++) s->heap[q] = (Entry){s->pairs[q].count, s->pairs[q].key};
    s->hn = s->npairs;
    for (size_t i = s->hn > 1 ? (s->hn - 2) / 4 + 1 : 0; i-- > 0;) sift_down(s, i);
    free(totals);
    free(sizes);
    return 0;
nomem:
    free(totals);
    free(sizes);
    PyErr_NoMemory();
    return -1;
}

/* The slots of the record type: exactly FIELDS, each an object slot. Records are made without
 * calling the type (a frozen dataclass's __init__ costs more than the rest of a merge's record). */
static int find_slots(Loop *s, PyTypeObject *type) {
    PyObject *slots = PyObject_GetAttrString((PyObject *)type, "__slots__");
    Py_ssize_t n = slots ? PySequence_Size(slots) : -1;
    Py_XDECREF(slots);
    if (n != NFIELDS) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "%s has not the %d slots this loop fills", type->tp_name, NFIELDS);
        return -1;
    }
    for (int k = 0; k < NFIELDS; k++) {
        PyObject *d = PyObject_GetAttrString((PyObject *)type, FIELDS[k]);
        if (!d) return -1;
        int ok = PyObject_TypeCheck(d, &PyMemberDescr_Type) &&
                 ((PyMemberDescrObject *)d)->d_member->type == T_OBJECT_EX;
        if (ok) s->offsets[k] = ((PyMemberDescrObject *)d)->d_member->offset;
        Py_DECREF(d);
        if (!ok) {
            PyErr_Format(PyExc_TypeError, "%s.%s is not a slot", type->tp_name, FIELDS[k]);
            return -1;
        }
    }
    Py_INCREF(type);
    s->step_type = type;
    return 0;
}

static int Loop_init(Loop *s, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"words", "freqs", "first_seen", "step_type", "ties", NULL};
    PyObject *words, *freqs;
    PyTypeObject *step_type;
    int first_seen, ties = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!O!pO!|p", kwlist, &PyList_Type, &words, &PyList_Type, &freqs,
                                     &first_seen, &PyType_Type, &step_type, &ties))
        return -1;
    if (s->sym) {
        PyErr_SetString(PyExc_RuntimeError, "Loop is built once");
        return -1;
    }
    if (find_slots(s, step_type) < 0) return -1;
    s->first_seen = first_seen;
    s->record_ties = ties;
    return build(s, words, freqs);
}

static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Token ``id``'s bytes (a borrowed reference), or NULL with an exception set. */
static PyObject *tok_object(Loop *s, uint32_t id) {
    if (!s->tokobj[id]) s->tokobj[id] = PyBytes_FromStringAndSize((const char *)s->tb + s->toff[id], s->tlen[id]);
    return s->tokobj[id];
}

/* The run's records as instances of the record type, their slots filled directly. */
static PyObject *records(Loop *s) {
    PyObject *out = PyList_New((Py_ssize_t)s->nrec);
    if (!out) return NULL;
    int32_t first_id = (int32_t)s->ntok - (int32_t)s->nrec;
    PyObject *prev_tied = NULL; /* the previous record's tied pairs (borrowed: the record holds them) */
    for (size_t r = 0; r < s->nrec; r++) {
        Record *rec = &s->recs[r];
        PyObject *v[NFIELDS] = {NULL};
        PyObject *tied = v[9] = PyTuple_New(rec->tied_n);
        if (!tied) goto fail;
        for (uint32_t t = 0; t < rec->tied_n; t++) {
            uint32_t pi = s->tied[rec->tied_at + t];
            /* A step's runners-up are mostly the previous step's: their tuples are shared. */
            PyObject *pair = NULL;
            for (uint32_t u = 0; r && u < s->recs[r - 1].tied_n && !pair; u++)
                if (s->tied[s->recs[r - 1].tied_at + u] == pi) {
                    pair = PyTuple_GET_ITEM(prev_tied, u);
                    Py_INCREF(pair);
                }
            if (!pair) {
                uint64_t key = s->pairs[pi].key;
                PyObject *left = tok_object(s, (uint32_t)(key >> 32)), *right = tok_object(s, (uint32_t)key);
                pair = left && right ? PyTuple_Pack(2, left, right) : NULL;
                if (!pair) goto fail_values;
                /* Tuples of bytes hold no cycle: left out of the garbage collector's passes. */
                PyObject_GC_UnTrack(pair);
            }
            PyTuple_SET_ITEM(tied, t, pair);
        }
        prev_tied = tied;
        PyObject_GC_UnTrack(tied);
        int32_t new_id = first_id + (int32_t)r;
        v[0] = PyLong_FromLong(new_id - 255);
        v[1] = PyLong_FromLong(rec->a);
        v[2] = PyLong_FromLong(rec->b);
        v[3] = tok_object(s, (uint32_t)rec->a);
        v[4] = tok_object(s, (uint32_t)rec->b);
        Py_XINCREF(v[3]);
        Py_XINCREF(v[4]);
        v[5] = PyLong_FromLong(new_id);
        v[6] = PyLong_FromLongLong(rec->count);
        v[7] = PyLong_FromLongLong(rec->ties);
        v[8] = PyLong_FromLongLong(rec->tokens_after);
        for (int k = 0; k < NFIELDS; k++)
            if (!v[k]) goto fail_values;
        PyObject *item = s->step_type->tp_alloc(s->step_type, 0);
        if (!item) goto fail_values;
        for (int k = 0; k < NFIELDS; k++) *(PyObject **)((char *)item + s->offsets[k]) = v[k];
        PyList_SET_ITEM(out, (Py_ssize_t)r, item);
        continue;
    fail_values:
        for (int k = 0; k < NFIELDS; k++) Py_XDECREF(v[k]);
        goto fail;
    }
    return out;
fail:
    Py_DECREF(out);
    return NULL;
}

static PyObject *Loop_run(Loop *s, PyObject *args) {
    Py_ssize_t limit;
    double seconds;
    PyObject *check = Py_None;
    if (!PyArg_ParseTuple(args, "nd|O", &limit, &seconds, &check)) return NULL;
    if (!s->sym) {
        PyErr_SetString(PyExc_RuntimeError, "Loop is not built");
        return NULL;
    }
    if (s->running) {
        PyErr_SetString(PyExc_RuntimeError, "this loop is already running in another thread");
        return NULL;
    }
    s->running = 1;
    s->nrec = 0;
    s->ntied = 0;
    int err = 0;
    double start = now_seconds();
    PyThreadState *ts = PyEval_SaveThread();
    for (Py_ssize_t done = 0; done < limit && !s->exhausted; done++) {
        int64_t count, ties, saved;
        size_t ntied;
        int r = best(s, &count, &ties, &ntied);
        if (r < 0) {
            err = -1;
            break;
        }
        if (r == 0) {
            s->exhausted = 1;
            break;
        }
        uint32_t pi = s->scratch[0];
        if (grow((void **)&s->recs, &s->reccap, s->nrec + 1, sizeof(Record)) < 0 ||
            grow((void **)&s->tied, &s->tiedcap, s->ntied + ntied, sizeof(uint32_t)) < 0) {
            err = -1;
            break;
        }
        Record *rec = &s->recs[s->nrec++];
        rec->a = (int32_t)(s->pairs[pi].key >> 32);
        rec->b = (int32_t)(uint32_t)s->pairs[pi].key;
        rec->count = count;
        rec->ties = ties;
        rec->tied_at = (uint32_t)s->ntied;
        rec->tied_n = (uint32_t)ntied;
        memcpy(s->tied + s->ntied, s->scratch, ntied * sizeof(uint32_t));
        s->ntied += ntied;
        err = merge(s, pi, &saved, check, &ts);
        if (err) break;
        s->tokens -= saved;
        s->recs[s->nrec - 1].tokens_after = s->tokens;
        if (now_seconds() - start >= seconds) break;
    }
    PyEval_RestoreThread(ts);
    s->running = 0;
    if (err == -1) return PyErr_NoMemory();
    if (err == -2) return NULL;
    return records(s);
}

static PyObject *Loop_get_tokens(Loop *s, void *closure) {
    (void)closure;
    return PyLong_FromLongLong(s->tokens);
}

static PyObject *Loop_get_exhausted(Loop *s, void *closure) {
    (void)closure;
    return PyBool_FromLong(s->exhausted);
}

static PyMethodDef Loop_methods[] = {
    {"run", (PyCFunction)Loop_run, METH_VARARGS,
     "run(limit, seconds, check=None): up to ``limit`` merges, for about ``seconds`` at most; their records."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef Loop_getset[] = {
    {"exhausted", (getter)Loop_get_exhausted, NULL, "Whether no pair is left to merge.", NULL},
    {"tokens", (getter)Loop_get_tokens, NULL, "The corpus's tokens after the merges made so far.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject LoopType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "tokviz.core.training._mergeloop.Loop",
    .tp_basicsize = sizeof(Loop),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The BPE merge loop over an occurrence index of the words: Loop(words, freqs, first_seen).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Loop_init,
    .tp_dealloc = (destructor)Loop_dealloc,
    .tp_methods = Loop_methods,
    .tp_getset = Loop_getset,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_mergeloop", "tokviz's BPE merge loop, compiled.", -1, NULL, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__mergeloop(void) {
    if (PyType_Ready(&LoopType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    Py_INCREF(&LoopType);
    if (PyModule_AddObject(m, "Loop", (PyObject *)&LoopType) < 0) {
        Py_DECREF(&LoopType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
