"""The HotPotQA questions an environment serves, and their splits.

Task ids are `hotpotqa/<i>`, i the question's 0-based position in the dev set
(`hotpot_dev_v1_simplified.json`, the order ReAct and LATS use); a HotPotQA
`_id` is accepted too when an indexed file carried it. Splits:
  indexed  the questions of the offline index (their paragraphs are searchable
           offline; the vendored file gives dev questions 0-99). Offline only.
  dev      every dev question of the question list (7,405).
Inline tasks are {"question": "...", "answer": "..."} (answer optional; without
one, Score has nothing to compare with). Inline answers travel in the snapshot.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from env_servers.core.errors import InvalidRequest, InvalidTask, TaskNotFound
from env_servers.wiki.hotpot_files import HotpotFileError, Question, read_questions

PREFIX = "hotpotqa/"
_TASK_ID = re.compile(r"^hotpotqa/(\d{1,7})$")
MAX_INLINE_CHARS = 2000


def task_id(index: int) -> str:
    return f"{PREFIX}{index}"


class QuestionSet:
    """Questions by task id: the question list, overridden by indexed questions."""

    def __init__(self, questions_file: Path | None, indexed: Iterable[Question] = (),
                 splits: Sequence[str] = ("indexed", "dev")):
        listed: list[Question] = []
        if questions_file is not None:
            try:
                listed = read_questions(questions_file)
            except HotpotFileError as error:
                raise FileNotFoundError(
                    f"{error}; set LATS_HOTPOTQA_QUESTIONS to hotpot_dev_v1_simplified.json"
                ) from error
        self._by_index = {q.index: q for q in listed}
        indexed = sorted(indexed, key=lambda q: q.index)
        self._by_index.update((q.index, q) for q in indexed)
        self._by_qid = {q.qid: q for q in self._by_index.values() if q.qid}
        self._split_ids = {
            "indexed": [task_id(q.index) for q in indexed],
            "dev": [task_id(q.index) for q in listed] or [task_id(q.index) for q in indexed],
        }
        self.splits = tuple(splits)

    def __len__(self) -> int:
        return len(self._by_index)

    def ids(self, split: str) -> list[str]:
        if split not in self.splits:
            raise InvalidRequest(f"unknown split {split!r}; choose one of {', '.join(self.splits)}")
        return list(self._split_ids[split])

    def get(self, task: str) -> Question:
        match = _TASK_ID.match(task)
        found = self._by_index.get(int(match.group(1))) if match else self._by_qid.get(task)
        if found is None:
            last = max(self._by_index, default=-1)
            raise TaskNotFound(
                f"unknown task {task[:80]!r}; ids look like hotpotqa/0 (0-{last}) or a "
                "HotPotQA _id of an indexed question; ListTasks lists them")
        return found


def inline_question(spec: Mapping[str, Any]) -> Question:
    """The question of an inline task {"question": ..., "answer": ...}."""
    unknown = set(spec) - {"question", "answer"}
    question, answer = spec.get("question"), spec.get("answer", "")
    if unknown or not isinstance(question, str) or not isinstance(answer, str):
        raise InvalidTask('an inline hotpotqa task is {"question": "...", "answer": "..."} '
                          "(answer optional, both strings)")
    if not question.strip() or len(question) + len(answer) > MAX_INLINE_CHARS:
        raise InvalidTask(f"the inline question must be 1 to {MAX_INLINE_CHARS} characters")
    return Question(index=-1, question=question.strip(), answer=answer.strip())
