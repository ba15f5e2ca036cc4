"""Reading a shopping goal out of a human instruction, heuristically.

`parse_instruction("i need gluten free vegetarian smoked peppered bacon - 4
ounce (pack of 2)")` gives ParsedInstruction(product_type="smoked peppered
bacon", attributes=("gluten free",), options={"size": "4 ounce (pack of 2)"}).

How (in this order, each match cut out of the text before the next step):
  1. options: "size X" / "X size" and measures ("4 ounce (pack of 2)", "16
     inch", "pack of 6") become `size` (a second measure `style`); "color X" /
     "X color" / a known colour word become `color`; "X flavor" becomes
     `flavor name`; "X scent" becomes `scent`.
  2. attributes: known phrases (vocabulary.ATTRIBUTE_PHRASES), "X free" and
     "easy to X", at most MAX_ATTRIBUTES.
  3. product type: after the lead-in ("i am looking for"), the first clause
     (cut at words such as "that", "with", "for") that still holds a content
     word; its last one to three content words.
It is a heuristic over free text written by people: it misses options worded
unusually ("forty inch waist"), and now and then takes a brand or an
adjective for the type. The catalog is generated from the same parse, so the
target product always matches its goal whatever the parse says.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from env_servers.webshop import vocabulary as vocab

MAX_ATTRIBUTES = 4
MAX_TYPE_WORDS = 3
FALLBACK_TYPE = "item"


@dataclass(frozen=True)
class ParsedInstruction:
    product_type: str
    attributes: tuple[str, ...] = ()
    options: dict[str, str] = field(default_factory=dict)


def _alternation(phrases) -> str:
    ordered = sorted(set(phrases), key=len, reverse=True)
    return "|".join(r"[\s-]+".join(map(re.escape, p.split())) for p in ordered)


_NUMBER = r"\d+(?:[.,/]\d+)?"
_SPACED_UNITS = [u for u in vocab.UNITS if len(u) > 2 and u != "in"] + ["oz", "lb", "ft",
                                                                        "gb", "tb", "ml"]
_ATTACHED_UNITS = [u for u in vocab.UNITS if u not in _SPACED_UNITS]
_PACK_OF = r"(?:\s*[-,(]?\s*\(?\s*(?:pack|set|case|box)\s+of\s+\d+\s*\)?)?"
_DIMENSION = r"\d+(?:\.\d+)?\s*(?:w|h|l|d|in|inch|inches|ft|feet|cm|mm|\"|')?"
_MEASURE = re.compile(
    rf"(?<![\w.]){_DIMENSION}\s*(?:x|by|\*)\s*{_DIMENSION}(?:\s*(?:x|by|\*)\s*{_DIMENSION})?"
    rf"(?:\s*(?:{_alternation(_SPACED_UNITS)}))?(?![\w.])"
    rf"|(?<![\w.]){_NUMBER}"
    rf"(?:\s*-?\s*(?:{_alternation(_SPACED_UNITS)})|(?:{_alternation(_ATTACHED_UNITS)}))"
    rf"(?!\w){_PACK_OF}"
    rf"|\b(?:pack|set|box|case|bundle|package)\s+of\s+\d+\b"
)
_SIZE_WORDS = _alternation(vocab.SIZE_WORDS)
_SIZE_NUMBER = (r"(?:(?:us|uk|eu)\s+)?\d[\w.+/\"'-]*(?:\s+(?:wide|narrow|x-wide|regular|long|"
                r"short|petite|tall|plus|big|x|by|\d[\w.\"]*)){0,3}")
_SIZE_AFTER = re.compile(
    rf"(?:\b(?:us|uk|eu)\s+)?\bsize[ds]?\b\s*(?P<marker>of|is|:|-|=)?\s*"
    rf"(?P<v>{_SIZE_NUMBER}|(?:{_SIZE_WORDS})\b|[\w+#.-]+(?:\s+[\w+#.-]+)?)")
_SIZE_BEFORE = re.compile(
    rf"(?P<v>\b(?:{_SIZE_WORDS})|(?<![\w.])\d[\w.+-]*(?:\s+(?:wide|narrow|xl))?)[\s-]+size[ds]?\b")
_SIZE_WORD = re.compile(
    r"\b(?P<v>\d?x{1,3}-(?:large|small)|extra[\s-]large|extra[\s-]small)\b"
    r"|\bin\s+(?:a\s+|an\s+)?(?P<w>small|medium|large)\b(?!\s+\w+\s+(?:of|for))")

_COLOR_NAMES = _alternation(vocab.COLORS)
_COLOR_MODIFIERS = "|".join(vocab.COLOR_MODIFIERS)
_KNOWN_COLOR = (rf"(?:(?:{_COLOR_MODIFIERS})\s+)?(?:{_COLOR_NAMES})"
                rf"(?:\s+(?:and|&)\s+(?:{_COLOR_NAMES}))?")
_COLOR_VALUE = r"[#\w][\w#&+'|/-]*(?:\s+[\w#&+'|/-]+){0,3}"
_COLOR_MARKED = re.compile(
    r"\b(?:(?:in|of|with)\s+(?:the\s+|a\s+)?colou?rs?\b|the\s+colou?rs?\b"
    r"|colou?rs?\s*(?::|-|=|\bof\b|\bis\b|\bshould\s+be\b|\bnamed?\b|\bcalled\b))"
    rf"\s*(?P<v>{_COLOR_VALUE})")
_COLOR_PLAIN = re.compile(rf"\bcolou?rs?\s+(?P<v>{_KNOWN_COLOR}|#\w+)\b")
_COLOR_BEFORE = re.compile(r"(?P<v>(?:[\w#&+-]+\s+){0,2}[\w#&+-]+)[\s-]+colou?r(?:ed|s)?\b")
_COLOR_WORD = re.compile(
    rf"\b(?P<v>{_KNOWN_COLOR})\b"
    r"(?!\s+(?:pepper|tea|rice|beans?|wine|chocolate|noise|tie|sugar|olives?|truffles?|onions?|"
    r"vinegar|label|board|lights?|head|widow|belt|mold|eye|friday|oak|ink|toner|sage|salt|"
    r"pearls?|diamond|gold|silver|walnut|bread|flour|quinoa|lentils?|sesame|cheddar)\b)")
# "hair color", "nail color": products, not colours.
_PRODUCT_COLOR_WORDS = frozenset({"hair", "nail", "lip", "eye", "food", "water", "body",
                                  "face", "skin", "permanent", "true", "correct", "same"})
_FLAVOR = re.compile(r"(?P<v>(?:[\w&'-]+\s+){0,2}[\w&'-]+)\s+flavou?r(?:ed|s)?\b")
_SCENT = re.compile(r"(?P<v>(?:[\w&'-]+\s+){0,2}[\w&'-]+)\s+scent(?:ed|s)?\b")

_VALUE_STOPWORDS = frozenset(
    "a an the of in with and or for is are be it that which some any one this my your their "
    "to as by on at its also please choose pick select should must has have having get want "
    "need like would i im me color colour size".split())

_FREE = re.compile(r"\b(?P<w>[a-z][a-z0-9]*)[\s-]+free\b")
_EASY_TO = re.compile(rf"\beasy[\s-]+to[\s-]+(?P<w>{vocab.EASY_TO_VERB})\b")
_ATTRIBUTE = re.compile(rf"\b(?:{_alternation(vocab.ATTRIBUTE_PHRASES)})\b")
_LEAD_IN = re.compile(
    r"^(?:(?:hi|hello|hey|please|ok|okay|so|well)\b[\s,.!]*)*(?:"
    r"(?:i\s*(?:am|'m|m)\s+|im\s+|i\s+)?(?:really\s+)?"
    r"(?:looking|searching|locking|shopping|interested|trying|hoping)(?:\s+(?:for|in|to))?"
    r"(?:\s+(?:buy|buying|get|getting|find|finding|purchase|purchasing|order|ordering|see))?"
    r"|(?:i\s*(?:would|'d|d)|id)\s+(?:like|love|prefer)"
    r"(?:\s+to\s+(?:buy|get|find|purchase|order|have|see))?"
    r"|(?:i\s+)?(?:really\s+)?(?:need|want|require)"
    r"(?:\s+to\s+(?:buy|get|find|purchase|order|have|see))?(?:\s+(?:me|myself))?"
    r"|(?:can|could|would)\s+(?:you|i|we)\s+(?:please\s+)?(?:find|get|buy|show|order|have|"
    r"look\s+for)(?:\s+me)?"
    r"|(?:find|get|buy|show|order|pick|give|bring|search\s+for|look\s+for|locate)(?:\s+me)?"
    r"(?:\s+for)?"
    r"|help\s+me\s+(?:to\s+)?(?:find|get|buy|look\s+for)"
    r")\b\s*")
_CONTAINER_OF = re.compile(
    r"\b(?:pairs?|packs?|sets?|box(?:es)?|bags?|bottles?|packages?|bundles?|cases?|jars?|cans?|"
    r"couple|cubes?|cartons?|tubes?|dozen)\s+of\b")
_CLAUSE_SPLIT = re.compile(
    r"[;:!?()\[\]|]|\.(?!\d)|\s-\s|\b(?:thats?|which|who|with|for|made|in|to|and|it|should|"
    r"must|also|but|from|under|without|so|because|having|has|have|is|are|was|were|can|could|"
    r"will|would|if|or|on|at|by|as|than|when|where|while|like|plus|including|suitable|"
    r"compatible)\b")
_TOKEN = re.compile(r"[a-z0-9][a-z0-9&'+-]*")
_UNIT_WORDS = frozenset(vocab.UNITS)


def normalize(text: str) -> str:
    """Lower case, plain quotes, single spaces, no trailing punctuation."""
    text = text.lower().replace("’", "'").replace("‘", "'").replace("“", '"').replace("”", '"')
    return re.sub(r"\s+", " ", text).strip().rstrip(".!?, ")


def parse_instruction(instruction: str) -> ParsedInstruction:
    """The product type, attributes and options an instruction asks for."""
    text = _LEAD_IN.sub("", normalize(instruction), count=1)
    options, text = _extract_options(text)
    attributes, text = _extract_attributes(text)
    text = _extract_flavor_and_scent(text, options)
    return ParsedInstruction(_product_type(text), attributes, options)


# ------------------------------------------------------------------ options
def _cut(text: str, span: tuple[int, int]) -> str:
    return f"{text[:span[0]]} , {text[span[1]:]}"


def _before_span(text: str, match: re.Match, value: str) -> tuple[int, int]:
    """From the value (which precedes its keyword) to the end of the match."""
    start = text.rfind(value, match.start(), match.end())
    return (start if start >= 0 else match.start(), match.end())


def _after_span(text: str, match: re.Match, value: str) -> tuple[int, int]:
    """From the keyword to the end of the value (which follows it)."""
    start = text.find(value, match.start("v"), match.end())
    return (match.start(), start + len(value) if start >= 0 else match.end())


def _trim(value: str, keep_inner_and: bool = False) -> str:
    """Drops stopwords at both ends (and before the last one, for values that
    precede their keyword: "tuna that has jalapeno" -> "jalapeno")."""
    words = value.replace("(", " ( ").replace(")", " ) ").split()
    if keep_inner_and:
        for index in range(len(words) - 1, -1, -1):
            if words[index] in _VALUE_STOPWORDS and words[index] not in ("and", "&"):
                words = words[index + 1:]
                break
    while words and words[0] in _VALUE_STOPWORDS | {"and", "&"}:
        words.pop(0)
    while words and words[-1] in _VALUE_STOPWORDS | {"and", "&"}:
        words.pop()
    return " ".join(words).replace("( ", "(").replace(" )", ")").strip(" ,.;:-")


def _extract_options(text: str) -> tuple[dict[str, str], str]:
    options: dict[str, str] = {}
    finders = (("size", _find_size), ("size", _find_measure), ("style", _find_measure),
               ("color", _find_color))
    for name, finder in finders:
        if name in options:
            continue
        found = finder(text)
        if found and found[0]:
            options[name], text = found[0], _cut(text, found[1])
    return options, text


def _extract_flavor_and_scent(text: str, options: dict[str, str]) -> str:
    """Runs after the attributes are cut out ("gluten free original flavor")."""
    for name, pattern in (("flavor name", _FLAVOR), ("scent", _SCENT)):
        found = _find_before(pattern)(text)
        if found and found[0]:
            options[name], text = found[0], _cut(text, found[1])
    return text


def _find_size(text: str):
    before = _SIZE_BEFORE.search(text)
    if before:
        return _trim(before.group("v")), before.span()
    after = _SIZE_AFTER.search(text)
    if after:
        value = after.group("v")
        known = value[0].isdigit() or value.split()[0] in ("us", "uk", "eu") or (
            value in vocab.SIZE_WORDS or re.sub(r"[\s-]+", " ", value) in vocab.SIZE_WORDS)
        if known or after.group("marker"):
            value = _trim(_size_words(value))
            return value, _after_span(text, after, value)
    word = _SIZE_WORD.search(text)
    if word:
        return (word.group("v") or word.group("w")).replace(" ", "-"), word.span()
    return None


def _size_words(value: str) -> str:
    kept = []
    for word in value.split():
        if kept and word in _VALUE_STOPWORDS:
            break
        kept.append(word)
    return " ".join(kept)


def _find_measure(text: str):
    measure = _MEASURE.search(text)
    return (_trim(measure.group(0)), measure.span()) if measure else None


def _find_color(text: str):
    before = _COLOR_BEFORE.search(text)
    if before:
        known = re.search(rf"(?:{_KNOWN_COLOR})$", before.group("v"))
        if known:
            return known.group(0), _before_span(text, before, known.group(0))
    marked = _COLOR_MARKED.search(text)
    if marked:
        value = _marked_color(marked.group("v"))
        if value:
            return value, _after_span(text, marked, value)
    plain = _COLOR_PLAIN.search(text)
    if plain:
        return plain.group("v"), plain.span()
    if before:
        last = before.group("v").split()[-1]
        if last not in _VALUE_STOPWORDS | vocab.TYPE_STOPWORDS | _PRODUCT_COLOR_WORDS:
            return last, _before_span(text, before, last)
    word = _COLOR_WORD.search(text)
    if word:
        return word.group("v"), word.span()
    return None


def _marked_color(value: str) -> str:
    """The colour after "the color": a known colour, a "#27"-style code, or
    the words up to the next stopword (at most two)."""
    words = value.split()
    while words and words[0] in _VALUE_STOPWORDS:
        words.pop(0)
    text = " ".join(words)
    known = re.match(rf"(?:{_KNOWN_COLOR})\b", text)
    if known:
        return known.group(0)
    if words and (words[0].startswith("#") or words[0][0].isdigit()):
        return words[0].rstrip(",.;")
    kept = []
    for word in words[:2]:
        if word in _VALUE_STOPWORDS or word in vocab.TYPE_STOPWORDS:
            break
        kept.append(word)
        if word.endswith((",", ".", ";")):
            break
    return _trim(" ".join(kept))


def _find_before(pattern: re.Pattern):
    def find(text: str):
        match = pattern.search(text)
        if match:
            value = _trim(match.group("v"), keep_inner_and=True)
            return value, _before_span(text, match, value)
        return None
    return find


# --------------------------------------------------------------- attributes
def _extract_attributes(text: str) -> tuple[tuple[str, ...], str]:
    found: list[tuple[int, int, str]] = []
    for match in _FREE.finditer(text):
        if match.group("w") not in vocab.NOT_FREE_ATTRIBUTES:
            found.append((match.start(), match.end(), f"{match.group('w')} free"))
    for match in _EASY_TO.finditer(text):
        found.append((match.start(), match.end(), f"easy to {match.group('w')}"))
    for match in _ATTRIBUTE.finditer(text):
        found.append((match.start(), match.end(), re.sub(r"[\s-]+", " ", match.group(0))))
    found.sort()
    attributes: list[str] = []
    spans: list[tuple[int, int]] = []
    for start, end, phrase in found:
        if any(start < s_end and s_start < end for s_start, s_end in spans):
            continue  # overlaps an attribute already taken
        if phrase in attributes or len(attributes) >= MAX_ATTRIBUTES:
            continue
        attributes.append(phrase)
        spans.append((start, end))
    for start, end in sorted(spans, reverse=True):
        text = f"{text[:start]} {text[end:]}"
    return tuple(attributes), text


# ------------------------------------------------------------- product type
def _product_type(text: str) -> str:
    text = _CONTAINER_OF.sub(" ", text)
    for clause in _CLAUSE_SPLIT.split(text):
        words = [w.strip("'-+&") for w in _TOKEN.findall(clause)]
        words = [w for w in words if len(w) > 1 and w not in vocab.TYPE_STOPWORDS
                 and w not in _UNIT_WORDS and not w[0].isdigit()]
        if words:
            return " ".join(words[-MAX_TYPE_WORDS:])
    return FALLBACK_TYPE
