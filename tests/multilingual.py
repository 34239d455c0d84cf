"""A deterministic multilingual corpus for comparing tokviz's ids with a reference library.

:func:`corpus_lines` builds the same lines on every run and every machine (a seeded
``random.Random``, no network, no files): prose in many scripts (Latin with accents, Cyrillic,
Greek, Arabic, Hebrew, Devanagari, Chinese, Japanese, Thai, Korean), code in several languages,
emoji (ZWJ families, skin tones, flags, keycaps), whitespace runs of every kind, special-token
strings (``<|endoftext|>``, ``<s>``, ``[CLS]`` ...) and their fragments, combining marks (NFD
text, stacked marks) and numbers. Each line mixes a few of these, so tokenizers meet them next to
each other as well as alone. The sentences are written for this file.

Use::

    from tests.multilingual import corpus_lines, corpus_text
    lines = corpus_lines()          # 30,000 lines (the default), deterministic
    few = corpus_lines(500)         # a quick sample for fast tests
"""

from __future__ import annotations

import random
import unicodedata
from functools import lru_cache
from itertools import pairwise

__all__ = ["PROSE", "SPECIAL_STRINGS", "corpus_lines", "corpus_sample", "corpus_text"]

# Short sentences per script, written for this corpus.
PROSE: dict[str, tuple[str, ...]] = {
    "english": (
        "The quick brown fox jumps over the lazy dog.",
        "It's raining again, isn't it? We'll stay inside and read.",
        'She said: "Tokenizers split text into pieces that models can count."',
        "In 2024, about 1,250,000 people visited the museum; that's 3.5% more than before.",
        "I'VE SEEN THINGS YOU WOULDN'T BELIEVE.",
        "Don't panic -- the answer is forty-two (or so they say).",
    ),
    "french": (
        "Le cœur a ses raisons que la raison ne connaît point.",
        "L'été dernier, nous sommes allés à la mer près de Saint-Malo.",
        "Ça coûte 12,50 € — c'est déjà trop cher, non ?",
    ),
    "german": (
        "Die Größe der Straße überrascht selbst die Einwohner von Köln.",
        "Der Führer des Museums erklärte die Gemälde sehr geduldig.",
        "Äpfel, Öl und Übungen: Umlaute sind überall.",
    ),
    "spanish_portuguese": (
        "¿Dónde está la biblioteca? ¡Está cerca de la estación!",
        "A canção foi composta em São Paulo, não em Lisboa.",
        "El niño comió piña y mañana irá al campo.",
    ),
    "nordic_eastern": (
        "Søren og Åse bor i en lille by ved fjorden.",
        "Łódź i Kraków to piękne miasta w Polsce.",
        "Příliš žluťoučký kůň úpěl ďábelské ódy.",
        "Türkçe öğrenmek için her gün çalışıyorum.",
        "Tiếng Việt có nhiều dấu thanh như sắc, huyền, hỏi, ngã, nặng.",
    ),
    "cyrillic": (
        "Привет, мир! Как у тебя дела сегодня?",
        "Москва — столица России, а Киев — столица Украины.",
        "Съешь же ещё этих мягких французских булок, да выпей чаю.",
        "Їжак і ґава жили в одному лісі.",
    ),
    "greek": (
        "Καλημέρα σας! Τι κάνετε σήμερα;",
        "Η Αθήνα είναι μια πόλη με μακρά ιστορία.",
        "Ξεσκεπάζω την ψυχοφθόρα βδελυγμία.",
    ),
    "arabic": (
        "مرحبا بالعالم! كيف حالك اليوم؟",
        "اللغة العربية تكتب من اليمين إلى اليسار.",
        "ذهبت إلى السوق واشتريت ٣ تفاحات و١٢ برتقالة.",
        "السَّلَامُ عَلَيْكُمْ وَرَحْمَةُ اللهِ",
    ),
    "hebrew": (
        "שלום עולם! מה שלומך היום?",
        "העברית נכתבת מימין לשמאל.",
        "בְּרֵאשִׁית בָּרָא אֱלֹהִים",
    ),
    "devanagari": (
        "नमस्ते दुनिया! आप कैसे हैं?",
        "भारत एक विशाल देश है जिसमें कई भाषाएँ बोली जाती हैं।",
        "मैंने आज सुबह चाय पी और किताब पढ़ी।",
    ),
    "chinese": (
        "你好，世界！今天天气很好。",
        "我们明天去北京看长城，好吗？",
        "分词器把文本切成模型能够处理的小块。",
        "繁體中文與簡體中文的字形不同。",
    ),
    "japanese": (
        "こんにちは、世界！お元気ですか？",
        "東京タワーは夜になるととても綺麗です。",
        "カタカナとひらがなと漢字を混ぜて書きます。",
    ),
    "korean": (
        "안녕하세요, 세계! 오늘 기분이 어때요?",
        "한국어는 한글로 쓰고 띄어쓰기를 합니다.",
        "서울에서 부산까지 기차로 세 시간 걸려요.",
    ),
    "thai": (
        "สวัสดีชาวโลก วันนี้อากาศดีมาก",
        "ภาษาไทยไม่มีการเว้นวรรคระหว่างคำ",
    ),
    "other_scripts": (
        "გამარჯობა, მსოფლიო!",
        "Բարեւ աշխարհ։",
        "ሰላም ለዓለም።",
        "வணக்கம் உலகம்!",
        "ᚠᚢᚦᚨᚱᚲ 𐌰𐌱𐌲 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝟙𝟚𝟛",
    ),
}

CODE: tuple[str, ...] = (
    "def encode(self, text: str) -> list[int]:",
    "    return [self.vocab[b] for b in text.encode('utf-8')]",
    "for (int i = 0; i < n; ++i) { sum += a[i] * b[i]; }",
    "const greet = (name) => `Hello, ${name}!`;",
    "SELECT id, name FROM users WHERE age >= 18 ORDER BY name;",
    'fn main() { println!("{:?}", vec![1, 2, 3]); }',
    'if x != None and y <= 0x1F: print(f"{x!r:>10}")',
    '<div class="note">&lt;b&gt;bold&lt;/b&gt; &amp; more</div>',
    '{"key": [1, 2.5e-3, null, true], "nested": {"a": "b"}}',
    "#include <stdio.h>\nint main(void) { return 0; }",
    "git commit -m 'fix: handle CRLF' && make -j4 2>&1 | tee build.log",
    "x += 1;;  y //= 2  # comment with trailing spaces   ",
)

EMOJI: tuple[str, ...] = (
    "👨\u200d👩\u200d👧\u200d👦",  # family (ZWJ)
    "👩🏽\u200d💻",  # woman technologist, medium skin tone
    "🏳️\u200d🌈",  # rainbow flag
    "🧑🏿\u200d🤝\u200d🧑🏻",
    "👍🏽",
    "🇫🇷🇯🇵🇧🇷",
    "1️⃣ #️⃣",
    "❤️‍🔥",
    "😀😃😄😁",
    "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f",  # Scotland (tag sequence)
    "🌍🌎🌏",
)

WHITESPACE: tuple[str, ...] = (
    "   ",
    "\t\t",
    "\n\n",
    " \n ",
    "\r\n",
    "\u00a0",
    "\u3000",
    "\u2028",
    "\u2029",
    "\x85",
    "\u200b",
    "\ufeff",
    "\x0b\x0c",
    "        ",
)

SPECIAL_STRINGS: tuple[str, ...] = (
    "<|endoftext|>",
    "<|im_start|>",
    "<|im_end|>",
    "<|endofprompt|>",
    "<s>",
    "</s>",
    "<unk>",
    "<pad>",
    "[CLS]",
    "[SEP]",
    "[MASK]",
    "<|endof",  # a prefix that never completes
    "text|>",
    "<<|endoftext|>>",
)

# Text whose form changes under NFC/NFKC: decomposed letters, stacked marks, compatibility forms.
COMBINING: tuple[str, ...] = (
    unicodedata.normalize("NFD", "Café naïve Ångström résumé"),
    unicodedata.normalize("NFD", "한국어 텍스트"),
    "e\u0301\u0302\u0303 a\u0308\u0304 o\u0328\u0301",
    "\u0301 stray mark at the start",
    "ﬁﬂ ligatures, ① circled, ｆｕｌｌ ｗｉｄｔｈ, ² ³ ½, Ⅻ, ㍻",
    "ſ K Å ẞ ß İ ı",
)

NUMBERS: tuple[str, ...] = (
    "0",
    "42",
    "3.14159",
    "1,000,000",
    "12345678901234567890",
    "٠١٢٣٤٥٦٧٨٩",
    "१२३",
    "１２３",
    "-7e+10",
)

_KINDS = ("prose", "prose", "prose", "code", "emoji", "space", "special", "combining", "number")


def _piece(rng: random.Random, kind: str) -> str:
    if kind == "prose":
        script = rng.choice(sorted(PROSE))
        return rng.choice(PROSE[script])
    if kind == "code":
        return rng.choice(CODE)
    if kind == "emoji":
        return rng.choice(EMOJI)
    if kind == "space":
        return rng.choice(WHITESPACE) * rng.randint(1, 3)
    if kind == "special":
        return rng.choice(SPECIAL_STRINGS)
    if kind == "combining":
        return rng.choice(COMBINING)
    return rng.choice(NUMBERS)


def _line(rng: random.Random) -> tuple[str, frozenset[tuple[str, ...]]]:
    """One mixed line and what it is made of (see :func:`corpus_sample`)."""
    kinds_and_parts = []
    for _ in range(rng.randint(1, 4)):
        kind = rng.choice(_KINDS)
        kinds_and_parts.append((kind, _piece(rng, kind)))
    joiners = ("", " ", " ", "  ", "\t")
    first_kind, out = kinds_and_parts[0]
    features: set[tuple[str, ...]] = {("piece", out)}
    for (left_kind, left), (right_kind, right) in pairwise(kinds_and_parts):
        joiner = rng.choice(joiners)
        out += joiner + right
        # Each piece meets each kind of neighbour on each side, through each joiner.
        features |= {
            ("piece", right),
            ("after", left, joiner, right_kind),
            ("before", left_kind, joiner, right),
        }
    if rng.random() < 0.05:
        case = "upper" if rng.random() < 0.5 else "lower"
        out = out.upper() if case == "upper" else out.lower()
        features |= {(case, part) for _, part in kinds_and_parts}
    if rng.random() < 0.03:
        out = " " * rng.randint(1, 40) + out  # an indented or padded line
        features.add(("indented", first_kind))
    return out, frozenset(features)


def _singles() -> list[str]:
    """Every hand-written piece once."""
    singles = [s for group in PROSE.values() for s in group]
    return singles + [*CODE, *EMOJI, *WHITESPACE, *SPECIAL_STRINGS, *COMBINING, *NUMBERS]


@lru_cache(maxsize=4)
def _made(count: int, seed: int) -> tuple[tuple[str, ...], tuple[frozenset[tuple[str, ...]], ...]]:
    rng = random.Random(seed)
    # Every hand-written piece appears at least once, alone, before the mixed lines.
    singles = _singles()[:count]
    lines = list(singles)
    features: list[frozenset[tuple[str, ...]]] = [frozenset({("single", s)}) for s in singles]
    while len(lines) < count:
        line, made_of = _line(rng)
        lines.append(line)
        features.append(made_of)
    return tuple(lines), tuple(features)


def _lines(count: int, seed: int) -> tuple[str, ...]:
    return _made(count, seed)[0]


@lru_cache(maxsize=2)
def _sample(count: int, seed: int, longest: int) -> tuple[str, ...]:
    lines, features = _made(count, seed)
    seen: set[tuple[str, ...]] = set()
    keep = set(sorted(range(len(lines)), key=lambda i: (-len(lines[i]), i))[:longest])
    for i, made_of in enumerate(features):
        if not made_of <= seen:
            keep.add(i)
            seen |= made_of
    return tuple(lines[i] for i in sorted(keep))


def forget_corpora() -> None:
    """Drop the corpora made so far (the 30,000 lines weigh about 100 MB with their sample).

    They are cached for the tests of one module; a module that needs them again remakes them in
    under a second, while a test process running many modules would otherwise keep them all run.
    """
    _sample.cache_clear()
    _made.cache_clear()


def corpus_sample(count: int = 30_000, seed: int = 13, longest: int = 200) -> list[str]:
    """The lines of ``corpus_lines(count, seed)`` that carry all its variety, in corpus order.

    Each corpus line is a few hand-written pieces joined by nothing, spaces or a tab, sometimes
    upper- or lowercased or indented; the 30,000 lines repeat the same pieces in other orders. A
    line is kept when it brings something no earlier kept line has: a piece alone (every script,
    code line, emoji sequence, whitespace run, special string, combining text, number), a piece
    next to a kind of piece it has not met on that side through that joiner, a piece in upper or
    lower case, or an indented line starting with a kind not yet indented. The ``longest`` lines
    are kept too (the longest runs and mixes). What a tokenizer does at a line depends on its
    pieces and on what touches each piece's edges, so a tokenizer that gives the reference's ids
    on this sample meets every script, piece and kind of boundary the full corpus holds.
    """
    return list(_sample(count, seed, longest))


def corpus_lines(count: int = 30_000, seed: int = 13) -> list[str]:
    """``count`` deterministic corpus lines (the same for the same ``count`` and ``seed``).

    A line may itself hold newlines (code, whitespace runs); join with ``"\\n"`` for one text.
    """
    return list(_lines(count, seed))


def corpus_text(count: int = 30_000, seed: int = 13) -> str:
    """The corpus as one text, lines joined by newlines."""
    return "\n".join(_lines(count, seed))
