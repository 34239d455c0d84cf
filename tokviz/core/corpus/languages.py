"""Which language a parallel-text file holds, read from its name (FLORES-200 or ISO 639 style).

Parallel corpora name one file per language: FLORES-200 as ``eng_Latn.devtest`` (ISO 639-3 code and
ISO 15924 script), smaller sets as ``en.txt``. Parity tables and per-language sweeps group files by
this, so both read it the same way.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

# ISO 639-3 code -> (ISO 639-1 code, English name). The languages of FLORES-200 that tokenizer
# studies report most, across scripts; a file in any other language still loads under its code.
_LANGUAGES: dict[str, tuple[str, str]] = {
    "eng": ("en", "English"),
    "fra": ("fr", "French"),
    "deu": ("de", "German"),
    "spa": ("es", "Spanish"),
    "por": ("pt", "Portuguese"),
    "ita": ("it", "Italian"),
    "nld": ("nl", "Dutch"),
    "swe": ("sv", "Swedish"),
    "fin": ("fi", "Finnish"),
    "hun": ("hu", "Hungarian"),
    "ces": ("cs", "Czech"),
    "pol": ("pl", "Polish"),
    "ron": ("ro", "Romanian"),
    "tur": ("tr", "Turkish"),
    "rus": ("ru", "Russian"),
    "ukr": ("uk", "Ukrainian"),
    "ell": ("el", "Greek"),
    "arb": ("ar", "Arabic"),
    "ara": ("ar", "Arabic"),
    "heb": ("he", "Hebrew"),
    "pes": ("fa", "Persian"),
    "fas": ("fa", "Persian"),
    "urd": ("ur", "Urdu"),
    "hin": ("hi", "Hindi"),
    "mar": ("mr", "Marathi"),
    "ben": ("bn", "Bengali"),
    "tam": ("ta", "Tamil"),
    "tel": ("te", "Telugu"),
    "tha": ("th", "Thai"),
    "mya": ("my", "Burmese"),
    "khm": ("km", "Khmer"),
    "kat": ("ka", "Georgian"),
    "hye": ("hy", "Armenian"),
    "amh": ("am", "Amharic"),
    "swh": ("sw", "Swahili"),
    "swa": ("sw", "Swahili"),
    "yor": ("yo", "Yoruba"),
    "ind": ("id", "Indonesian"),
    "vie": ("vi", "Vietnamese"),
    "zho": ("zh", "Chinese"),
    "jpn": ("ja", "Japanese"),
    "kor": ("ko", "Korean"),
}
_BY_TWO_LETTERS: dict[str, str] = {}
for _three, (_two, _name) in _LANGUAGES.items():
    _BY_TWO_LETTERS.setdefault(_two, _three)

# A language file of records (one sentence a record): JSON Lines (compressed or not) or Parquet.
_RECORDS = r"(?:jsonl|ndjson)(?:\.(?:gz|bz2|xz|zst))?|parquet"
_FLORES_NAME = re.compile(rf"^([a-z]{{3}})_([A-Z][a-z]{{3}})\.(?:dev|devtest|{_RECORDS})$")
# FLORES+ (the maintained continuation of FLORES-200) puts the split first: ``devtest.eng_Latn``.
_FLORES_PLUS_NAME = re.compile(rf"^(?:dev|devtest)\.([a-z]{{3}})_([A-Z][a-z]{{3}})(?:\.(?:{_RECORDS}))?$")
_PLAIN_NAME = re.compile(rf"^([a-z]{{2,3}})(?:[-_]([A-Za-z]{{2,4}}))?\.(?:txt|md|{_RECORDS})$")


@dataclass(frozen=True)
class Language:
    """One language of a parallel set: the code as the file names it, its ISO 639-3 base and a name."""

    code: str
    iso3: str
    name: str

    def matches(self, query: str) -> bool:
        """True when ``query`` names this language: its file code, ISO 639-1/-3 code or English name."""
        q = query.strip()
        if not q:
            return False
        if q == self.code or q.casefold() == self.name.casefold():
            return True
        base = re.split(r"[-_]", q, maxsplit=1)[0].lower()
        return base in (self.iso3, _LANGUAGES.get(self.iso3, ("", ""))[0]) and "_" not in q and "-" not in q


def language_of(path: str | os.PathLike[str]) -> Language | None:
    """The language a file's name declares, or None when the name is not a language file's.

    ``eng_Latn.devtest`` (or FLORES+'s ``devtest.eng_Latn``) -> English (``eng_Latn``); ``zho_Hant.dev`` -> Chinese (Traditional);
    ``en.txt`` -> English; ``pt-BR.txt`` -> Portuguese (BR). Unknown codes keep the code as name.
    A file of records, one sentence each, is named the same way: ``eng_Latn.parquet``, ``en.jsonl.zst``.
    """
    name = os.path.basename(os.fspath(path))
    flores = _FLORES_NAME.match(name) or _FLORES_PLUS_NAME.match(name)
    if flores:
        three, script = flores.group(1), flores.group(2)
        return Language(f"{three}_{script}", three, _display_name(three, script))
    plain = _PLAIN_NAME.match(name)
    if plain:
        code, region = plain.group(1), plain.group(2)
        three = _BY_TWO_LETTERS.get(code, code)
        label = _LANGUAGES.get(three, ("", code))[1]
        full = f"{code}-{region}" if region else code
        return Language(full, three, f"{label} ({region})" if region else label)
    return None


def _display_name(three: str, script: str) -> str:
    base = _LANGUAGES.get(three, ("", three))[1]
    if three == "zho":
        return {"Hans": "Chinese (Simplified)", "Hant": "Chinese (Traditional)"}.get(script, base)
    return base
