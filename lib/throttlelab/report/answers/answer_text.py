"""A report's answer in plain words: the lead (action, then how sure), what it rests on, the method.

Every notebook's answer is an :class:`Answer`.  Its :attr:`Answer.lead` is
what the index, the report's decision box, the notebook's first output, the
CLI line of ``throttlelab run`` and ``answer.json`` show: at most
:data:`MAX_WORDS` words (whitespace-separated), the action with its number
first, then one "How sure" sentence in words (runs, interval, *clear* or *not
yet clear*).  The named procedures and a short glossary go in
:attr:`Answer.method`, which reports show collapsed.

Examples
--------
>>> a = Answer("Give ffmpeg 12 cores (3.9 s per run).", "How sure: 16 runs; clear.", terms=("max-T",))
>>> a.lead, word_count(a.lead), lead_problems(a.lead)
('Give ffmpeg 12 cores (3.9 s per run). How sure: 16 runs; clear.', 13, [])
>>> lead_problems("ffmpeg, threads=auto: max-T adjusted p = 0.04")
['jargon in the lead: max-T', 'a key=value label in the lead: threads=auto']
>>> group_name({"workload": "ffmpeg", "threads": "auto", "contention": 0.0})
'ffmpeg with automatic threads'
>>> change_words(-50.2), change_words(189), change_words(63), change_words(-35)
('halved', 'nearly tripled', 'rose 63%', 'fell 35%')
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from throttlelab import units

#: A lead has at most this many whitespace-separated words (the "Answer." label not counted).
MAX_WORDS = 40
#: Words of our methods that a lead must not use (they belong in the Method section).
JARGON = ("max-T", "Holm", "break-even", "one number per cell", "simulated repeats", "Bonferroni", "alpha")
_KEY_VALUE = re.compile(r"\b[A-Za-z_]+=[^\s,;:)]+")

#: Short definitions shown under "Method" for the terms an answer's method uses.
GLOSSARY = {
    "dead zone": "a CPU limit at which the workload is slower than at a lower limit, by at least the practical "
                 "threshold.",
    "max-T": "single-step max-T: one critical value from the largest of all the limits' test statistics, so the "
             "intervals of every tested limit hold together at 95% (simultaneous bounds).",
    "Holm": "Holm's step-down correction: p-values adjusted for testing several limits or cells at once.",
    "break-even noise": "the run-to-run variation under which a gap between single runs would still be "
                        "significant; a gap that survives 15% noise is called clear.",
    "knee": "the smallest CPU limit within the tolerance of the best value.",
    "simulated repeats": "the sweep drawn again many times from each limit's mean and measured noise; how often "
                         "each limit would be recommended.",
    "Bonferroni": "significance level divided by the number of comparisons, so the whole table keeps its error "
                  "rate.",
    "bootstrap": "the data resampled many times; the spread of the refitted value gives its interval.",
}


@dataclass(frozen=True)
class Answer:
    """A notebook's answer.

    Attributes
    ----------
    action
        What to do, with its number first ("Give ffmpeg 12 cores (3.9 s per run). Avoid 6-7 cores: ...").
    how_sure
        One sentence in words: runs, interval, *clear* or *not yet clear* ("How sure: 16 runs, ...").
    rests_on
        The data the answer rests on ("16 runs, 1-2 per limit (published ffmpeg sweep)").
    method
        The procedures by name (markdown); shown collapsed, with the glossary of ``terms``.
    terms
        Keys of :data:`GLOSSARY` the method uses.
    headlines
        Further findings, one line each, with their statistics.
    """

    action: str
    how_sure: str = ""
    rests_on: str | None = None
    method: str | None = None
    terms: tuple[str, ...] = ()
    headlines: tuple[str, ...] = ()

    @property
    def lead(self) -> str:
        return " ".join(s for s in (self.action.strip(), self.how_sure.strip()) if s)

    def method_markdown(self) -> str | None:
        """The method, then a glossary line per term (markdown); ``None`` when there is neither."""
        parts = [self.method.strip()] if self.method else []
        terms = [t for t in dict.fromkeys(self.terms) if t in GLOSSARY]
        if terms:
            parts.append("\n".join(f"- *{t}*: {GLOSSARY[t]}" for t in terms))
        return "\n\n".join(parts) or None


def word_count(text: str) -> int:
    """Whitespace-separated words."""
    return len(str(text).split())


def lead_problems(text: str | None) -> list[str]:
    """What keeps ``text`` from being a lead: too many words, jargon, ``key=value`` labels."""
    if not text:
        return []
    out = []
    if word_count(text) > MAX_WORDS:
        out.append(f"{word_count(text)} words (at most {MAX_WORDS})")
    low = text.lower()
    out += [f"jargon in the lead: {w}" for w in JARGON if w.lower() in low]
    out += [f"a key=value label in the lead: {m}" for m in _KEY_VALUE.findall(text)]
    return out


def within(required: Sequence[str], optional: Iterable[str] = (), *, budget: int = MAX_WORDS) -> str:
    """The ``required`` sentences, then each ``optional`` one that still fits in ``budget`` words."""
    parts = [s.strip() for s in required if s and s.strip()]
    for s in optional:
        if s and word_count(" ".join([*parts, s])) <= budget:
            parts.append(s.strip())
    return " ".join(parts)


def how_sure(required: Sequence[str], optional: Iterable[str | Sequence[str]] = (), *, action: str = "",
             budget: int = MAX_WORDS) -> str:
    """``How sure: a; b; c.``: the required clauses, then each optional one that keeps ``action`` + this in budget.

    An optional item may be a tuple of alternatives, longest first: the first that fits is taken.

    >>> how_sure(["16 runs"], [("the slowdown is clear " * 9, "the slowdown is clear"), "a clause too many " * 9],
    ...          action="Give it 4 cores.")
    'How sure: 16 runs; the slowdown is clear.'
    """
    clauses = [c.strip() for c in required if c and c.strip()]
    text = lambda cs: f"How sure: {'; '.join(cs)}." if cs else ""  # noqa: E731
    for item in optional:
        for c in ([item] if isinstance(item, str) else item):
            if c and word_count(f"{action} {text([*clauses, c.strip()])}") <= budget:
                clauses.append(c.strip())
                break
    return text(clauses)


def source_name(path: str, default: str) -> str:
    """The input's name for a sentence: the last part of ``path``, ``published:x`` as words, or ``default``.

    >>> source_name("published:automaxprocs", "x"), source_name("/data/raw/sweep/", "x"), source_name("", "x")
    ('the published automaxprocs table', 'sweep', 'x')
    """
    path = str(path or "")
    if path.startswith("published:"):
        return f"the published {path.removeprefix('published:')} table"
    return path.rstrip("/").rsplit("/", 1)[-1] or default


def join_words(items: Sequence[str], last: str = "and") -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    items = [str(i) for i in items]
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} {last} {items[-1]}" if items else ""


def threads_words(threads: object) -> str:
    """``automatic threads``, ``1 thread``, ``4 threads``."""
    t = str(threads)
    if t in ("auto", "None", ""):
        return "automatic threads"
    return units.count(int(t), "thread") if t.isdigit() else f"{t} threads"


def group_name(group: Mapping[str, object], *, among: Sequence[Mapping[str, object]] = ()) -> str:
    """A group of runs in words: ``ffmpeg with automatic threads next to a neighbour using 50%``.

    With ``among`` (every group of the analysis), only the keys that differ between groups are named after the
    workload; the threads are always named otherwise.
    """
    varying = {k for k in group if len({str(g.get(k)) for g in among}) > 1} if among else set(group) - {"workload"}
    words = [str(group.get("workload") or "the workload")]
    if "threads" in varying:
        words.append(f"with {threads_words(group.get('threads'))}")
    share = group.get("contention")
    if "contention" in varying and share is not None and (float(share) or among):
        words.append("alone" if float(share) == 0 else f"next to a neighbour using {units.percent(float(share))}")
    return " ".join(words)


def thread_knob(workload: object) -> str:
    """What the thread count is called for this workload: ``GOMAXPROCS`` for a Go program, else ``threads``."""
    w = str(workload or "").lower()
    return "GOMAXPROCS" if w == "go" or w.startswith(("go-", "go_")) or "gomaxprocs" in w else "threads"


def change_words(change_pct: float) -> str:
    """A change of a quantity in words: ``halved``, ``doubled``, ``nearly tripled``, ``rose 63%``, ``fell 35%``."""
    ratio = 1 + change_pct / 100
    for target, word in ((0.5, "halved"), (2, "doubled"), (3, "tripled"), (4, "quadrupled")):
        if abs(ratio / target - 1) <= 0.03:
            return word
        if target >= 2 and 0.9 <= ratio / target < 0.97:
            return f"nearly {word}"
    if ratio >= 2:
        return f"rose {units.times(ratio)}"
    return f"{'rose' if change_pct > 0 else 'fell'} {units.pct(abs(change_pct))}"


def runs_per(counts: Iterable[int], noun: str = "limit") -> str:
    """``3 per limit`` or ``1-2 per limit``."""
    c = sorted(set(int(x) for x in counts))
    if not c:
        return ""
    return f"{c[0]} per {noun}" if len(c) == 1 else f"{c[0]}-{c[-1]} per {noun}"
