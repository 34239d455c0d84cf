"""An occurrence index for BPE training, made for long pre-tokens and used for every word (Re-Pair style).

The words (long ones too: CJK sentences under the GPT-2 pattern, whole documents under ``none``)
are laid end to end in one sequence of symbols, a separator between words, as a doubly linked
list over byte positions: a token lives at the position of its first byte. For every pair the index keeps the
positions where it was created; entries are never removed, only checked when the pair is merged
(a position whose pair has changed since cannot hold that pair again, because every merge makes a
fresh id), so a merge costs its own occurrences, not the length of the words that hold them.
"""

from __future__ import annotations

import importlib
import sys
import threading
from array import array
from bisect import bisect_right
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

# Pair (a, b) is keyed by a << _SHIFT | b: an int hashes faster than a tuple.
_SHIFT = 32
_SEP = -1  # the separator between words (and the dead-symbol mark; both are negative)
_CHECK_EVERY = 0x3FFF
# A merge with more recorded sites than this runs vectorized (numpy over the same arrays); fewer
# sites are cheaper one by one in Python.
_VECTOR_SITES = 192
# Positions indexed at a time when the index is built (bounds its temporary arrays).
_BLOCK = 1 << 19
# Sites merged at once by the vectorized path (cancel is checked between such parts).
_PART_SITES = 1 << 17
# A corpus of fewer bytes than this is indexed without numpy when numpy is not loaded yet.
_PLAIN_BYTES = 1 << 18
# numpy adds weighted pair counts as float64, exact only while every sum stays below 2**53; a corpus
# whose weighted length (every pair count is at most that) reaches it is indexed with Python ints.
_FLOAT_EXACT = 1 << 53
# Word counts past this do not fit the int64 weights.
_INT64_MAX = (1 << 63) - 1


class PairIndex:
    """Pair counts and an occurrence index over the words of a training corpus.

    ``words`` are the words' bytes, ``freqs`` their counts and ``ids`` their indices in the
    trainer's word table (used by the first-seen tie rule); ``check`` is called between blocks
    while the index is built (it raises to cancel). Counts are exact: every adjacent pair counts
    (``aaa`` holds two ``(a, a)``), and a merge replaces non-overlapping occurrences left to right.
    """

    def __init__(
        self,
        words: Sequence[bytes],
        freqs: Sequence[int],
        ids: Sequence[int],
        check: Callable[[], None] | None = None,
    ) -> None:
        self.ids = list(ids)
        self._small = True  # every id so far is below 2**16
        # Symbols, links and word counts by position: memoryviews of numpy arrays, or arrays.
        self.sym: Any
        self.nxt: Any
        self.prv: Any
        self.wt: Any
        if not _use_numpy(sum(map(len, words))) or _exceeds_floats(words, freqs):
            self._init_plain(words, freqs)
            return
        import numpy as np

        lengths = np.fromiter((len(w) for w in words), dtype=np.int64, count=len(words))
        # Layout: a separator, word 0, a separator, word 1, ..., a separator.
        gaps = np.concatenate(([0], np.cumsum(lengths + 1)))
        n = int(gaps[-1]) + 1
        # One buffer filled in place: a 50 MB single word is copied once, not three times.
        joined = np.zeros(n, dtype=np.uint8)
        if len(words) == 1:
            joined[1:-1] = np.frombuffer(words[0], dtype=np.uint8)
        else:
            joined[1:-1] = np.frombuffer(b"\0".join(words), dtype=np.uint8)
        self.starts = (gaps[:-1] + 1).tolist()
        self.unit = all(f == 1 for f in freqs)
        weight = None
        if not self.unit:
            weight = np.repeat(np.asarray(freqs, dtype=np.int64), lengths + 1)
            weight = np.concatenate(([0], weight))
        is_gap = np.zeros(n, dtype=bool)
        is_gap[gaps] = True
        totals = np.zeros(1 << 16, dtype=np.int64)
        occ: dict[int, array[int]] = {}
        # Every symbol is a byte at first, so a pair's code fits 16 bits and sorts by radix; the
        # sequence is indexed in blocks so temporary arrays stay small for a huge single word.
        for lo in range(0, n - 1, _BLOCK):
            if check is not None:
                check()  # a block takes tens of milliseconds: cancel stays prompt
            hi = min(lo + _BLOCK, n - 1)
            left = joined[lo:hi].astype(np.uint16)
            codes = (left << 8) | joined[lo + 1 : hi + 1]
            ok = ~(is_gap[lo:hi] | is_gap[lo + 1 : hi + 1])
            if weight is None:
                totals += np.bincount(codes[ok], minlength=1 << 16)
            else:
                totals += np.bincount(codes[ok], weights=weight[lo:hi][ok], minlength=1 << 16).astype(
                    np.int64
                )
            order = np.argsort(codes, kind="stable")
            order = order[ok.take(order)]
            grouped = codes.take(order)
            raw = (order + lo).astype(np.int32).tobytes()
            cuts = np.flatnonzero(grouped[1:] != grouped[:-1]) + 1
            bounds = [0, *cuts.tolist(), len(grouped)]
            for k, code in enumerate(grouped[bounds[:-1]].tolist() if len(grouped) else []):
                key = (code >> 8) << _SHIFT | (code & 0xFF)
                lst = occ.get(key)
                if lst is None:
                    lst = occ[key] = array("i")
                lst.frombytes(raw[4 * bounds[k] : 4 * bounds[k + 1]])
            del left, codes, ok, order, grouped, raw
        found = np.flatnonzero(totals)
        # Initial counts, keyed by (left, right) like the rest of the trainer.
        self.initial_counts: dict[tuple[int, int], int] = {
            (code >> 8, code & 0xFF): c for code, c in zip(found.tolist(), totals[found].tolist())
        }
        self.occ = occ
        seq = joined.astype(np.int32)
        del joined
        seq[is_gap] = _SEP
        del is_gap
        # numpy arrays for the vectorized merges, and memoryviews of the same memory for the
        # one-by-one loop (indexing a memoryview is as fast as an array.array, with no copy).
        self._np: Any = np
        self._sym = seq
        self._nxt = np.arange(1, n + 1, dtype=np.int32)
        self._prv = np.arange(-1, n - 1, dtype=np.int32)
        self._wt = weight
        self.sym = seq.data
        self.nxt = self._nxt.data
        self.prv = self._prv.data
        self.wt = None if weight is None else weight.data

    def _init_plain(self, words: Sequence[bytes], freqs: Sequence[int]) -> None:
        """The same index for a small corpus, without numpy (whose import costs more than it saves)."""
        seq = array("i", [_SEP])
        unit = all(f == 1 for f in freqs)
        # Weights past int64 are kept as Python ints (exact at any size, only slower).
        weight: Any = None if unit else array("q", [0]) if max(freqs) <= _INT64_MAX else [0]
        starts: list[int] = []
        counts: dict[tuple[int, int], int] = {}
        occ: dict[int, array[int]] = {}
        for word, f in zip(words, freqs):
            start = len(seq)
            starts.append(start)
            seq.extend(word)
            seq.append(_SEP)
            if weight is not None:
                weight.extend([f] * (len(word) + 1))
            for pos, pair in enumerate(zip(word, word[1:]), start):
                counts[pair] = counts.get(pair, 0) + f
                key = pair[0] << _SHIFT | pair[1]
                lst = occ.get(key)
                if lst is None:
                    occ[key] = array("i", [pos])
                else:
                    lst.append(pos)
        n = len(seq)
        self.starts = starts
        self.unit = unit
        self.initial_counts = counts
        self.occ = occ
        self._np = None
        self.sym = seq
        self.nxt = array("i", range(1, n + 1))
        self.prv = array("i", range(-1, n - 1))
        self.wt = weight

    def merge(
        self,
        a: int,
        b: int,
        new_id: int,
        deltas: dict[tuple[int, int], int],
        check: Callable[[], None] | None = None,
    ) -> int:
        """Merge every occurrence of ``(a, b)`` into ``new_id``; add count changes to ``deltas``.

        Returns the number of corpus tokens saved (occurrences times word counts).
        """
        positions = self.occ.pop(a << _SHIFT | b, None)
        if positions is None:
            return 0
        if len(positions) > _VECTOR_SITES and self._np is not None:
            return self._merge_vector(positions, a, b, new_id, deltas, check)
        # Overlapping runs (a == b) merge left to right, so their sites are taken in order.
        sites: Sequence[int] = sorted(positions) if a == b else positions
        sym = self.sym
        nxt = self.nxt
        prv = self.prv
        wt = self.wt
        left_w: dict[int, int] = {}
        right_w: dict[int, int] = {}
        left_at: defaultdict[int, list[int]] = defaultdict(list)
        right_at: defaultdict[int, list[int]] = defaultdict(list)
        lw_get = left_w.get
        rw_get = right_w.get
        saved = 0
        w = 1
        done = 0
        for i in sites:
            if sym[i] != a:
                continue
            j = nxt[i]
            if sym[j] != b:
                continue
            if check is not None:
                done += 1
                if done & _CHECK_EVERY == 0:
                    check()
            if wt is not None:
                w = wt[i]
            saved += w
            k = nxt[j]
            sym[i] = new_id
            sym[j] = _SEP
            nxt[i] = k
            prv[k] = i
            h = prv[i]
            x = sym[h]
            if x >= 0:
                left_w[x] = lw_get(x, 0) + w
                left_at[x].append(h)
            y = sym[k]
            if y >= 0:
                right_w[y] = rw_get(y, 0) + w
                right_at[y].append(i)
        self._move_neighbours(left_w, left_at, a, new_id, deltas, on_left=True)
        self._move_neighbours(right_w, right_at, b, new_id, deltas, on_left=False)
        return saved

    def _move_neighbours(
        self,
        weights: dict[int, int],
        sites: dict[int, list[int]],
        merged: int,
        new_id: int,
        deltas: dict[tuple[int, int], int],
        on_left: bool,
    ) -> None:
        """The tokens that stood beside a merged pair, on one side: each ``x`` left of it turns its
        pairs ``(x, a)`` into ``(x, new_id)`` (``merged`` is ``a``); each ``x`` right of it turns
        ``(b, x)`` into ``(new_id, x)`` (``merged`` is ``b``). Count changes go into ``deltas``, the
        new pairs' sites into the index.
        """
        occ = self.occ
        get = deltas.get
        for x, c in weights.items():
            if on_left:
                old, new, key = (x, merged), (x, new_id), x << _SHIFT | new_id
            else:
                old, new, key = (merged, x), (new_id, x), new_id << _SHIFT | x
            deltas[old] = get(old, 0) - c
            deltas[new] = get(new, 0) + c
            lst = occ.get(key)
            if lst is None:
                occ[key] = array("i", sites[x])
            else:
                lst.extend(sites[x])

    def _merge_vector(
        self,
        positions: array[int],
        a: int,
        b: int,
        new_id: int,
        deltas: dict[tuple[int, int], int],
        check: Callable[[], None] | None = None,
    ) -> int:
        """:meth:`merge` for many sites at once, with numpy over the same arrays; the same result.

        A pair shared by two neighbouring sites (``a b a b``: the middle ``(b, a)`` before, the
        middle ``(new, new)`` after) is counted from the left site's side only, as the one-by-one
        loop does.
        """
        # take/put rather than fancy indexing: several times faster on int32 positions.
        np = self._np
        sym = self._sym
        nxt = self._nxt
        self._small = new_id < 1 << 16
        cand = np.frombuffer(positions, dtype=np.int32)
        if a == b:
            cand = np.sort(cand)
        cand = cand[sym.take(cand) == a]
        right = nxt.take(cand)
        hit = sym.take(right) == b
        sites = cand[hit]
        ends = right[hit]
        # The candidates are as many as the pair's sites: freed now, they leave room for the merge.
        del cand, right, hit, positions
        if a == b and len(sites) > 1:
            sites, ends = self._every_other_in_runs(sites, ends)
        if not len(sites):
            return 0
        if len(sites) <= _PART_SITES:
            return self._merge_sites(sites, ends, a, b, new_id, deltas)
        # Very many sites: merge them in parts (checking for cancel in between), cut only between
        # sites that are not neighbours, so no part's neighbour is another part's site.
        order = np.argsort(sites, kind="stable")
        sites = sites.take(order)
        ends = ends.take(order)
        free = np.flatnonzero(nxt.take(ends[:-1]) != sites[1:]) + 1
        cuts = [0]
        for k in free.tolist():
            if k - cuts[-1] >= _PART_SITES:
                cuts.append(k)
        cuts.append(len(sites))
        saved = 0
        for lo, hi in zip(cuts, cuts[1:]):
            if check is not None:
                check()
            saved += self._merge_sites(sites[lo:hi], ends[lo:hi], a, b, new_id, deltas)
        return saved

    def _every_other_in_runs(self, sites: Any, ends: Any) -> tuple[Any, Any]:
        """The sites of ``(a, a)`` that merge: in a run of a's, every other one from the run's start
        (left to right). Positions fit 32 bits, so the run arithmetic stays in 32-bit arrays."""
        np = self._np
        follows = np.zeros(len(sites), dtype=bool)
        np.equal(ends[:-1], sites[1:], out=follows[1:])
        index = np.arange(len(sites), dtype=np.int32)
        run_start = np.where(follows, np.int32(0), index)
        del follows
        np.maximum.accumulate(run_start, out=run_start)
        np.subtract(index, run_start, out=index)
        del run_start
        keep = (index & 1) == 0
        del index
        return sites[keep], ends[keep]

    def _merge_sites(
        self, sites: Any, ends: Any, a: int, b: int, new_id: int, deltas: dict[tuple[int, int], int]
    ) -> int:
        """Merge the sites ``sites`` (whose right halves are at ``ends``), all at once."""
        np = self._np
        sym = self._sym
        nxt = self._nxt
        prv = self._prv
        wt = self._wt
        weights = None if wt is None else wt.take(sites)
        saved = len(sites) if weights is None else int(weights.sum())
        after = nxt.take(ends)
        before = prv.take(sites)
        x = sym.take(before)
        y = sym.take(after)
        # Left neighbours that are the end of another site are that site's right neighbours.
        left_ok = x >= 0
        left_ok &= ~((x == b) & (sym.take(prv.take(before)) == a))
        right_ok = y >= 0
        r_sites = sites[right_ok]
        r_after = after[right_ok]
        r_y = y[right_ok]
        r_w = None if weights is None else weights[right_ok]
        # A right neighbour that is itself a site becomes ``new_id`` too.
        r_site = (r_y == a) & (sym.take(nxt.take(r_after)) == b)
        l_x = x[left_ok]
        l_pos = before[left_ok]
        l_w = None if weights is None else weights[left_ok]
        put = np.put
        put(sym, sites, new_id)
        put(sym, ends, _SEP)
        put(nxt, sites, after)
        put(prv, after, sites)
        get = deltas.get
        for k, c in self._totals(l_x, l_w):
            p = (k, a)
            deltas[p] = get(p, 0) - c
            q = (k, new_id)
            deltas[q] = get(q, 0) + c
        for k, c in self._totals(r_y, r_w):
            p = (b, k)
            deltas[p] = get(p, 0) - c
        plain = ~r_site
        for k, c in self._totals(r_y[plain], None if r_w is None else r_w[plain]):
            q = (new_id, k)
            deltas[q] = get(q, 0) + c
        twins = int(r_site.sum()) if r_w is None else int(r_w[r_site].sum())
        if twins:
            q = (new_id, new_id)
            deltas[q] = get(q, 0) + twins
        self._record(l_x, l_pos, lambda k: k << _SHIFT | new_id)
        self._record(r_y[plain], r_sites[plain], lambda k: new_id << _SHIFT | k)
        if twins:
            self._record(r_y[r_site] * 0, r_sites[r_site], lambda k: new_id << _SHIFT | new_id)
        return saved

    def _totals(self, keys: Any, weights: Any) -> list[tuple[int, int]]:
        """(key, total weight) for each distinct key (a symbol id) in ``keys``."""
        np = self._np
        if not len(keys):
            return []
        sums = np.bincount(keys) if weights is None else np.bincount(keys, weights=weights)
        found = np.flatnonzero(sums)
        return list(zip(found.tolist(), [int(v) for v in sums[found].tolist()]))

    def _record(self, keys: Any, positions: Any, code: Callable[[int], int]) -> None:
        """Append ``positions`` to the occurrence lists of the pairs ``code(key)``."""
        if not len(keys):
            return
        np = self._np
        # Ids below 2**16 sort by radix (several times faster than a comparison sort).
        order = np.argsort(keys.astype(np.uint16) if self._small else keys, kind="stable")
        grouped = keys.take(order)
        raw = positions.take(order).astype(np.int32).tobytes()
        cuts = np.flatnonzero(grouped[1:] != grouped[:-1]) + 1
        bounds = [0, *cuts.tolist(), len(grouped)]
        occ = self.occ
        for k, key in enumerate(grouped[bounds[:-1]].tolist()):
            c = code(key)
            lst = occ.get(c)
            if lst is None:
                lst = occ[c] = array("i")
            lst.frombytes(raw[4 * bounds[k] : 4 * bounds[k + 1]])

    def first_position(self, pair: tuple[int, int]) -> tuple[int, int] | None:
        """(word index, byte offset) of the pair's first occurrence in the long words, or None.

        A token sits at the position of its first byte, so the byte offset is the distance from
        the word's start, as the short-word search measures it.
        """
        a, b = pair
        positions = self.occ.get(a << _SHIFT | b)
        if not positions:
            return None
        sym = self.sym
        nxt = self.nxt
        best = -1
        for i in positions:
            if (best < 0 or i < best) and sym[i] == a and sym[nxt[i]] == b:
                best = i
        if best < 0:
            return None
        w = bisect_right(self.starts, best) - 1
        return self.ids[w], best - self.starts[w]


def _exceeds_floats(words: Sequence[bytes], freqs: Sequence[int]) -> bool:
    """Whether a pair count of these words could reach 2**53, past which float64 sums are not exact."""
    if not freqs or max(freqs) * sum(map(len, words)) < _FLOAT_EXACT:
        return False  # the quick bound holds (unweighted counts are added as int64 anyway)
    return sum(len(w) * f for w, f in zip(words, freqs)) >= _FLOAT_EXACT


def _use_numpy(size: int) -> bool:
    """Whether to index ``size`` bytes of words with numpy: when it is loaded already, or for a
    corpus large enough that its vectorized merges pay for importing it (about 0.1 s)."""
    return "numpy" in sys.modules or size >= _PLAIN_BYTES


def preload_numpy(size: int) -> None:
    """Start importing numpy in the background when a corpus of ``size`` bytes will need it.

    The import takes a few hundred milliseconds that cannot be interrupted; done while the corpus
    is counted, it is over before the index is built, so a cancel is never kept waiting by it.
    """
    if "numpy" not in sys.modules and size >= _PLAIN_BYTES:
        threading.Thread(target=importlib.import_module, args=("numpy",), daemon=True).start()
