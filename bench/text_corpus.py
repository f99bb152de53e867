"""Evaluation corpus for text near-duplicates, built from third-party text Debian ships offline.

Sources: licences (/usr/share/common-licenses), English, Chinese and Japanese man pages
(``manpages``, ``manpages-zh``, ``manpages-ja``), package copyright files and long fortunes
(``fortunes``). Long texts are split at paragraph breaks into chunks of a few to tens of KB.
Base documents that are already near-duplicates of each other (word 5-shingle Jaccard >= 0.4,
e.g. ``libfoo1`` and ``libfoo-dev`` copyright files) are dropped so every unlabelled pair is a
true negative. Each base document then gets realistic edits; a document and its edits form one
positive group. Shared boilerplate and HTML wrappers across groups make hard negatives, as do the
licence families (GPL-2/GPL-3/LGPL) and man pages of one section.
"""

from __future__ import annotations

import glob
import gzip
import hashlib
import html
import os
import random
import re
import shutil
import subprocess
import tempfile
import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = [
    "DEBIAN_PACKAGES",
    "Doc",
    "build_corpus",
    "ensure_packages",
    "fortunes",
    "man_page_texts",
    "missing_sources",
    "strip_roff",
]

#: Debian packages providing the corpus text, with a file each is known by.
DEBIAN_PACKAGES = {
    "manpages": "/usr/share/man/man7/man.7.gz",
    "manpages-zh": "/usr/share/man/zh_CN/man1/ls.1.gz",
    "manpages-ja": "/usr/share/man/ja/man1/ls.1.gz",
    "fortunes": "/usr/share/games/fortunes/literature",
    "fortunes-min": "/usr/share/games/fortunes/fortunes",
}

CHUNK_TARGET = 12_000  # characters
CHUNK_MIN = 2_500
DEDUP_JACCARD = 0.4
MAX_PER_PREFIX = 12

EDITS_SPACED = (
    "rewrap",
    "whitespace_case",
    "sentence_added",
    "sentence_removed",
    "sentence_changed",
    "boilerplate",
    "html",
    "typos",
    "combined",
)
EDITS_CJK = (
    "rewrap",
    "cjk_punct",
    "cjk_chars",
    "sentence_added",
    "sentence_removed",
    "sentence_changed",
    "boilerplate",
    "html",
    "combined",
)


@dataclass(frozen=True, slots=True)
class Doc:
    """One evaluation document; documents with equal ``group`` are near-duplicates."""

    group: int
    source: str  # e.g. "man-en:ls.1#0"
    family: str  # licence / man-en / man-zh / man-ja / copyright / fortune
    lang: str  # en / zh / ja
    edit: str  # "original" or the edit's name
    text: str


def missing_sources() -> list[str]:
    return [pkg for pkg, probe in DEBIAN_PACKAGES.items() if not os.path.exists(probe)]


def ensure_packages() -> list[str]:
    """Install missing corpus packages when root on Debian; return what is still missing."""
    missing = missing_sources()
    if missing and hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("apt-get"):
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        subprocess.run(["apt-get", "update", "-qq"], check=False, env=env)
        subprocess.run(
            ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *missing],
            check=False,
            env=env,
        )
        missing = missing_sources()
    return missing


# --- reading sources -------------------------------------------------------------------------

_ROFF_ESCAPES = re.compile(
    r"\\f(?:\[[^\]]*\]|\(..|.)|\\s[+-]?\d|\\\*(?:\(..|\[[^\]]*\]|.)|\\[&|^%c,/{}]"
)
_ROFF_NAMED = re.compile(r"\\\((..)")
_ROFF_NAMES = {"em": "—", "en": "–", "bu": "•", "lq": "“", "rq": "”", "oq": "‘", "cq": "’"}
_ROFF_TEXT_MACROS = re.compile(r"^\.(?:SH|SS|B|I|BR|BI|IB|RB|RI|IR|SM|SB|IP|TP|Nm|Nd|Ar|Fl)\s+")


def strip_roff(source: str) -> str:
    """Visible text of a man page: requests dropped, macro arguments and escapes simplified."""
    lines: list[str] = []
    for line in source.splitlines():
        if line.startswith(("'", ".")):
            m = _ROFF_TEXT_MACROS.match(line)
            if m is None:
                if line.startswith((".PP", ".P\n", ".LP", ".sp", ".br")) or line == ".P":
                    lines.append("")
                continue
            line = line[m.end() :].replace('"', "")
        line = _ROFF_NAMED.sub(lambda m: _ROFF_NAMES.get(m.group(1), ""), line)
        line = _ROFF_ESCAPES.sub("", line).replace("\\-", "-").replace("\\e", "\\")
        lines.append(line.replace("\\ ", " "))
    text = "\n".join(lines)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def _read_gz(path: str) -> str:
    with gzip.open(path, "rb") as fh:
        return fh.read().decode("utf-8", "replace")


def _man_pages(pattern: str, stride: int, limit: int) -> Iterator[tuple[str, str]]:
    paths = sorted(glob.glob(pattern))[::stride]
    count = 0
    per_prefix: dict[str, int] = {}
    for path in paths:
        # At most a few pages per command family, so one huge templated set cannot dominate.
        prefix = re.split(r"[_.-]", os.path.basename(path), maxsplit=1)[0]
        per_prefix[prefix] = per_prefix.get(prefix, 0) + 1
        if os.path.islink(path) or per_prefix[prefix] > MAX_PER_PREFIX:
            continue
        raw = _read_gz(path)
        if raw.lstrip().startswith(".so "):
            continue
        text = strip_roff(raw)
        if len(text) >= CHUNK_MIN:
            yield os.path.basename(path).removesuffix(".gz"), text
            count += 1
            if count >= limit:
                return


def man_page_texts(pattern: str, stride: int, limit: int) -> list[str]:
    """Visible text of up to ``limit`` man pages matching ``pattern`` (every ``stride``-th)."""
    return [text for _, text in _man_pages(pattern, stride, limit)]


def _licences() -> Iterator[tuple[str, str]]:
    seen: set[str] = set()
    for path in sorted(glob.glob("/usr/share/common-licenses/*")):
        real = os.path.realpath(path)
        if real in seen or not os.path.isfile(real):
            continue
        seen.add(real)
        yield os.path.basename(path), Path(real).read_text("utf-8", "replace")


def _copyrights(stride: int, limit: int) -> Iterator[tuple[str, str]]:
    count = 0
    for path in sorted(glob.glob("/usr/share/doc/*/copyright"))[::stride]:
        text = Path(path).read_text("utf-8", "replace")
        if len(text) >= CHUNK_MIN:
            yield path.split("/")[-2], text
            count += 1
            if count >= limit:
                return


def fortunes(min_words: int = 0) -> list[str]:
    """Every fortune cookie (optionally only long ones), in a stable order."""
    out: list[str] = []
    for path in sorted(glob.glob("/usr/share/games/fortunes/*")):
        if path.endswith((".dat", ".u8")) or not os.path.isfile(path):
            continue
        for item in Path(path).read_text("utf-8", "replace").split("\n%\n"):
            if len(item.split()) >= min_words and item.strip():
                out.append(item.strip())
    return out


def _chunks(text: str) -> list[str]:
    """Split at paragraph breaks into chunks of about CHUNK_TARGET characters."""
    paras = re.split(r"\n\s*\n", text)
    out: list[str] = []
    cur: list[str] = []
    size = 0
    for para in paras:
        cur.append(para)
        size += len(para) + 2
        if size >= CHUNK_TARGET:
            out.append("\n\n".join(cur))
            cur, size = [], 0
    if cur:
        tail = "\n\n".join(cur)
        if out and len(tail) < CHUNK_MIN:
            out[-1] += "\n\n" + tail
        else:
            out.append(tail)
    return [c for c in out if len(c) >= CHUNK_MIN]


def _base_documents(scale: float) -> list[tuple[str, str, str, str]]:
    """(source, family, lang, text) of every base chunk before de-duplication."""

    def n(x: int) -> int:
        return max(1, int(x * scale))

    items: list[tuple[str, str, str, str]] = []
    groups: list[tuple[str, str, Iterator[tuple[str, str]]]] = [
        ("licence", "en", _licences()),
        ("man-en", "en", _man_pages("/usr/share/man/man[1-8]/*.gz", 7, n(260))),
        ("man-zh", "zh", _man_pages("/usr/share/man/zh_CN/man[1-8]/*.gz", 1, n(170))),
        ("man-ja", "ja", _man_pages("/usr/share/man/ja/man[1-8]/*.gz", 2, n(170))),
        ("copyright", "en", _copyrights(2, n(150))),
    ]
    for family, lang, source in groups:
        for name, text in source:
            for i, chunk in enumerate(_chunks(text)):
                items.append((f"{family}:{name}#{i}", family, lang, chunk))
    return items


def _shingle_sets(texts: list[str]) -> list[np.ndarray]:
    """Distinct word 5-shingle hashes of each text (ground truth for de-duplication)."""
    out = []
    for text in texts:
        words = (
            re.findall(r"\w", text.lower()) if _is_cjk(text) else re.findall(r"\w+", text.lower())
        )
        grams = {" ".join(words[i : i + 5]) for i in range(max(1, len(words) - 4))}
        digests = [hashlib.blake2b(g.encode(), digest_size=8).digest() for g in grams]
        out.append(np.unique(np.frombuffer(b"".join(digests), dtype="<u8")))
    return out


def _dedup(items: list[tuple[str, str, str, str]]) -> tuple[list[tuple[str, str, str, str]], int]:
    """Drop base chunks that are near-duplicates (Jaccard >= DEDUP_JACCARD) of an earlier one."""
    from scipy import sparse  # bench-only dependency (installed with imagehash)

    sets = _shingle_sets([t for *_, t in items])
    allh = np.concatenate(sets)
    ids, col = np.unique(allh, return_inverse=True)
    row = np.repeat(np.arange(len(sets)), [s.size for s in sets])
    mat = sparse.csr_matrix(
        (np.ones(col.size, dtype=np.float32), (row, col)), shape=(len(sets), ids.size)
    )
    inter = (mat @ mat.T).tocoo()
    sizes = np.array([s.size for s in sets], dtype=np.float64)
    keep = np.ones(len(items), dtype=bool)
    jac = inter.data / (sizes[inter.row] + sizes[inter.col] - inter.data)
    order = np.argsort(inter.col, kind="stable")
    for r, c, j in zip(inter.row[order], inter.col[order], jac[order], strict=True):
        if r < c and j >= DEDUP_JACCARD and keep[r]:
            keep[c] = False
    return [it for it, k in zip(items, keep, strict=True) if k], int((~keep).sum())


# --- edits -----------------------------------------------------------------------------------

_CJK_CHAR = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]")


def _is_cjk(text: str) -> bool:
    return len(_CJK_CHAR.findall(text[:4000])) > 200


HEADER = (
    "Home | Products | Downloads | Support | Community | About us | Contact\n"
    "You are reading the archived copy of this page. Sign in to save it to your reading list.\n\n"
)
FOOTER = (
    "\n\nCopyright © 2024 Example Docs Portal. All rights reserved. Terms of use | Privacy "
    "policy | Cookie settings. Page generated by the archive service; report a problem with "
    "this page to the webmaster.\n"
)
HTML_HEAD = (
    "<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>{title}</title>\n"
    "<style>body{{font-family:sans-serif}} nav a{{margin:0 1em}}</style>\n"
    "<script>window.dataLayer=window.dataLayer||[];function gtag(){{dataLayer.push(arguments)}}"
    "gtag('js',new Date());</script></head>\n<body>\n<nav><a href='/'>Home</a> "
    "<a href='/docs'>Documentation</a> <a href='/search'>Search</a></nav>\n<main>\n"
)
HTML_TAIL = "</main>\n<footer><p>Last updated 2024-03-01</p></footer>\n</body></html>\n"


def _sentences(text: str, cjk: bool) -> list[str]:
    pattern = r"(?<=[。！？!?])|\n" if cjk else r"(?<=[.!?])\s+"
    return [s for s in re.split(pattern, text) if s.strip()]


def _pick_sentence(parts: list[str], rng: random.Random) -> int:
    """Index of a random real sentence (not a whole list or table that lacks full stops)."""
    fits = [i for i, p in enumerate(parts) if 10 <= len(p) <= 300] or list(range(len(parts)))
    return rng.choice(fits)


def _join(parts: list[str], cjk: bool) -> str:
    return ("\n" if cjk else " ").join(parts)


_ASCII_WORD = re.compile(r"[0-9A-Za-z]")


def _rewrap(text: str, rng: random.Random, cjk: bool) -> str:
    """Re-flow each paragraph to another width, as an editor would (no word is split)."""
    paras = re.split(r"\n\s*\n", text)
    if not cjk:
        width = rng.choice([40, 60, 100])
        return "\n\n".join(
            textwrap.fill(p.replace("\n", " "), width, break_long_words=False) for p in paras
        )
    width = rng.choice([25, 40, 60])
    out = []
    for para in paras:
        # Join lines: no space between CJK characters, a space between Latin words.
        lines = para.split("\n")
        flat = lines[0]
        for line in lines[1:]:
            latin = flat[-1:].isascii() and line[:1].isascii()
            flat += (" " if latin else "") + line
        broken, col = [], 0
        for i, ch in enumerate(flat):
            nxt = flat[i + 1 : i + 2]
            broken.append(ch)
            col += 1
            inside_word = bool(_ASCII_WORD.match(ch)) and bool(_ASCII_WORD.match(nxt))
            if col >= width and not inside_word and ch != " ":
                broken.append("\n")
                col = 0
        out.append("".join(broken))
    return "\n\n".join(out)


def _whitespace_case(text: str, rng: random.Random) -> str:
    lines = text.split("\n")
    out = []
    for line in lines:
        r = rng.random()
        if r < 0.05:
            line = line.upper()
        elif r < 0.10:
            line = line.title()
        if rng.random() < 0.3:
            line = "  " + line.replace(" ", "  ").rstrip() + "\t"
        out.append(line)
        if rng.random() < 0.05:
            out.append("")
    return "\n".join(out)


def _sentence_added(text: str, rng: random.Random, cjk: bool, donor: str) -> str:
    parts = _sentences(text, cjk)
    donors = [d for d in _sentences(donor, cjk) if 10 <= len(d) <= 300]
    extra = rng.choice(donors) if donors else donor[:200]
    parts.insert(rng.randrange(len(parts) + 1), extra)
    return _join(parts, cjk)


def _sentence_removed(text: str, rng: random.Random, cjk: bool) -> str:
    parts = _sentences(text, cjk)
    if len(parts) > 1:
        del parts[_pick_sentence(parts, rng)]
    return _join(parts, cjk)


def _sentence_changed(text: str, rng: random.Random, cjk: bool) -> str:
    parts = _sentences(text, cjk)
    i = _pick_sentence(parts, rng)
    if cjk:
        chars = list(parts[i])
        for _ in range(3):
            chars[rng.randrange(len(chars))] = rng.choice("的是在了不和有大这主中人上为们地")
        parts[i] = "".join(chars)
    else:
        words = parts[i].split()
        for _ in range(min(3, len(words))):
            words[rng.randrange(len(words))] = rng.choice(
                ["quickly", "system", "never", "value", "option", "another", "file", "the"]
            )
        parts[i] = " ".join(words)
    return _join(parts, cjk)


def _typos(text: str, rng: random.Random) -> str:
    chars = list(text)
    letters = [i for i, c in enumerate(chars) if c.isalpha()]
    for _ in range(max(3, len(text.split()) // 150)):
        i = rng.choice(letters)
        op = rng.randrange(4)
        if op == 0 and i + 1 < len(chars):
            chars[i], chars[i + 1] = chars[i + 1], chars[i]
        elif op == 1:
            chars[i] = ""
        elif op == 2:
            chars[i] = chars[i] * 2
        else:
            chars[i] = rng.choice("etaoinshrdlu")
    return "".join(chars)


_CJK_PUNCT_SWAPS = {
    "。": ".",
    "、": ",",
    "，": ", ",
    "「": "“",
    "」": "”",
    "（": "(",
    "）": ")",
    "：": ":",
    "；": ";",
    "！": "!",
    "？": "?",
}


def _cjk_punct(text: str, rng: random.Random) -> str:
    out = []
    for c in text:
        if c in _CJK_PUNCT_SWAPS and rng.random() < 0.7:
            out.append(_CJK_PUNCT_SWAPS[c])
        elif c in "。，" and rng.random() < 0.1:
            continue  # punctuation dropped
        else:
            out.append(c)
    return "".join(out)


def _cjk_chars(text: str, rng: random.Random) -> str:
    chars = list(text)
    cjk = [i for i, c in enumerate(chars) if _CJK_CHAR.match(c)]
    for _ in range(max(3, len(cjk) // 300)):
        chars[rng.choice(cjk)] = chars[rng.choice(cjk)]
    return "".join(chars)


def html_page(text: str, title: str) -> str:
    paras = re.split(r"\n\s*\n", text)
    body = "\n".join(f"<p>{html.escape(p)}</p>" for p in paras)
    return HTML_HEAD.format(title=html.escape(title)) + body + "\n" + HTML_TAIL


def html_visible_text(page: str, workdir: str) -> tuple[str, str]:
    """Visible text of an HTML page through dupfinder's extractor (BeautifulSoup if missing)."""
    try:
        from dupfinder.core.extract import extract_text
    except ImportError:
        from bs4 import BeautifulSoup

        soup = BeautifulSoup(page, "html.parser")
        for tag in soup(["script", "style"]):
            tag.decompose()
        return soup.get_text("\n"), "beautifulsoup"
    fd, path = tempfile.mkstemp(suffix=".html", dir=workdir)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(page)
    result = extract_text(path)
    os.unlink(path)
    return (result if isinstance(result, str) else str(getattr(result, "text", result))), "extract"


def _edit(
    name: str, text: str, rng: random.Random, cjk: bool, donor: str, workdir: str, title: str
) -> tuple[str, str | None]:
    if name == "rewrap":
        return _rewrap(text, rng, cjk), None
    if name == "whitespace_case":
        return _whitespace_case(text, rng), None
    if name == "sentence_added":
        return _sentence_added(text, rng, cjk, donor), None
    if name == "sentence_removed":
        return _sentence_removed(text, rng, cjk), None
    if name == "sentence_changed":
        return _sentence_changed(text, rng, cjk), None
    if name == "boilerplate":
        return HEADER + text + FOOTER, None
    if name == "html":
        return html_visible_text(html_page(text, title), workdir)
    if name == "typos":
        return _typos(text, rng), None
    if name == "cjk_punct":
        return _cjk_punct(text, rng), None
    if name == "cjk_chars":
        return _cjk_chars(text, rng), None
    if name == "combined":
        step = _sentence_changed(text, rng, cjk)
        step = _cjk_punct(step, rng) if cjk else _typos(_whitespace_case(step, rng), rng)
        return HEADER + _rewrap(step, rng, cjk) + FOOTER, None
    raise ValueError(f"unknown edit {name!r}")


def build_corpus(
    scale: float = 1.0, seed: int = 7, log: Callable[[str], None] = lambda _: None
) -> tuple[list[Doc], dict[str, object]]:
    """All evaluation documents and a summary (sources, counts, HTML extractor used)."""
    items, dropped = _dedup(_base_documents(scale))
    log(f"{len(items)} base documents ({dropped} near-duplicate base chunks dropped)")
    rng = random.Random(seed)
    docs: list[Doc] = []
    extractor = "none"
    by_lang: dict[str, list[str]] = {}
    for _, _, lang, text in items:
        by_lang.setdefault(lang, []).append(text)
    with tempfile.TemporaryDirectory(prefix="dupfinder-corpus-") as workdir:
        for group, (source, family, lang, text) in enumerate(items):
            cjk = lang in ("zh", "ja")
            docs.append(Doc(group, source, family, lang, "original", text))
            pool = by_lang[lang]
            for name in EDITS_CJK if cjk else EDITS_SPACED:
                donor = pool[rng.randrange(len(pool))]
                title = text.strip().split("\n", 1)[0][:80]
                edited, used = _edit(name, text, rng, cjk, donor, workdir, title)
                extractor = used or extractor
                docs.append(Doc(group, source, family, lang, name, edited))
    families: dict[str, int] = {}
    for _, family, _, _ in items:
        families[family] = families.get(family, 0) + 1
    summary: dict[str, object] = {
        "base_documents": len(items),
        "documents": len(docs),
        "near_duplicate_base_chunks_dropped": dropped,
        "families": families,
        "html_extractor": extractor,
        "mean_chars": round(float(np.mean([len(d.text) for d in docs])), 1),
    }
    return docs, summary
