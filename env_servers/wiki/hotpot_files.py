"""Reading HotPotQA files: the distractor setting and the simplified question list.

Distractor files give each question with its context paragraphs. Accepted
layouts (detected from the content, not the file name):
  * the original `hotpot_dev_distractor_v1.json`: one JSON list of
    {_id, question, answer, supporting_facts, context: [[title, [sentences]], ...],
    type, level}; a question's index is its position in the list;
  * JSON Lines with one such object per line (the vendored
    `hotpotqa_distractor_dev0-99.jsonl`, whose `dev_index` gives the index;
    without it, the line number does);
  * either of the above with the columnar context of the Hugging Face copy:
    context = {"title": [...], "sentences": [[...], ...]}.
The simplified file (`hotpot_dev_v1_simplified.json`, as ReAct and LATS load
it) is a JSON list of {question, answer, type} in dev order.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from env_servers.wiki.pages import clean_sentences
from env_servers.wiki.titles import clean_title


class HotpotFileError(ValueError):
    """A file is not in a HotPotQA layout; the message names the file and the problem."""


@dataclass(frozen=True)
class Question:
    index: int                 # position in the dev set: task id hotpotqa/<index>
    question: str
    answer: str
    qid: str = ""              # HotPotQA _id, when the file has it
    type: str = ""
    level: str = ""
    supporting_facts: tuple = field(default=(), compare=False)


@dataclass(frozen=True)
class Paragraph:
    title: str
    sentences: tuple[str, ...]


def _records(path: Path) -> Iterator[dict[str, Any]]:
    try:
        text = path.read_text("utf-8")
    except OSError as error:
        raise HotpotFileError(f"cannot read {path}: {error.strerror or error}") from error
    start = text.lstrip()[:1]
    try:
        if start == "[":
            records = json.loads(text)
        elif start == "{":
            records = [json.loads(line) for line in text.splitlines() if line.strip()]
        else:
            raise HotpotFileError(
                f"{path} is neither a JSON list nor JSON Lines of HotPotQA questions")
    except json.JSONDecodeError as error:
        raise HotpotFileError(f"{path} is not valid JSON / JSON Lines: {error}") from error
    for record in records:
        if not isinstance(record, dict):
            raise HotpotFileError(f"{path} holds a {type(record).__name__}, not a question object")
        yield record


def _paragraphs(context: Any, where: str) -> list[Paragraph]:
    if isinstance(context, dict):  # columnar: {"title": [...], "sentences": [[...]]}
        context = list(zip(context.get("title", []), context.get("sentences", [])))
    paragraphs = []
    for entry in context or []:
        try:
            title, sentences = entry
        except (TypeError, ValueError) as error:
            raise HotpotFileError(f"{where}: a context entry is not [title, sentences]") from error
        if isinstance(sentences, str):
            sentences = [sentences]
        paragraphs.append(Paragraph(clean_title(str(title)), clean_sentences(map(str, sentences))))
    return paragraphs


def _question(record: dict[str, Any], position: int, where: str) -> Question:
    try:
        question, answer = str(record["question"]), str(record["answer"])
    except KeyError as error:
        raise HotpotFileError(f"{where}: a record has no {error.args[0]!r} field") from error
    index = record.get("dev_index", position)
    return Question(
        index=int(index), question=question.strip(), answer=answer.strip(),
        qid=str(record.get("_id") or record.get("id") or ""),
        type=str(record.get("type", "")), level=str(record.get("level", "")),
        supporting_facts=tuple(tuple(f) for f in record.get("supporting_facts") or ()),
    )


def read_distractor(path: Path) -> Iterator[tuple[Question, list[Paragraph]]]:
    """Each question of a distractor-setting file with its context paragraphs."""
    path = Path(path)
    for position, record in enumerate(_records(path)):
        where = f"{path} record {position}"
        if "context" not in record:
            raise HotpotFileError(
                f"{where} has no 'context': index a distractor-setting file "
                "(e.g. hotpot_dev_distractor_v1.json), not the simplified question list")
        yield _question(record, position, where), _paragraphs(record["context"], where)


def read_questions(path: Path) -> list[Question]:
    """The questions of a simplified (or any HotPotQA) file, in file order."""
    path = Path(path)
    return [_question(r, i, f"{path} record {i}") for i, r in enumerate(_records(path))]
