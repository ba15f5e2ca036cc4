"""HotPotQA predictions in the official evaluation script's format, with the gold
file of the bench's own subset beside them.

`hotpot_evaluate_v1.py PREDICTIONS GOLD` (hotpotqa/hotpot) reads PREDICTIONS as
{"answer": {id: answer}, "sp": {id: [[title, sentence], ...]}} and GOLD as a
JSON list of {"_id", "answer", "supporting_facts", ...}, and averages exact
match and F1 over GOLD's questions. So:

* a prediction's answer is the argument of the chosen trajectory's
  Finish[answer] ("" when the search never finished: a miss, as the script
  counts a wrong answer);
* an id is the question's HotPotQA `_id` where the data file carries one, else
  our task id (`hotpotqa/7`), the same in both files;
* the agent names no supporting facts, so every "sp" entry is empty: read the
  answer metrics (em, f1), not sp or joint;
* the gold file holds exactly the bench's questions, from the question files
  the server reads by default (the vendored dev questions 0-99 with their
  supporting facts, and the dev question list; LATS_HOTPOTQA_QUESTIONS names
  another list).
"""

from __future__ import annotations

import json
import os
import shlex
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

from env_servers.wiki.actions import find_action
from env_servers.wiki.hotpot_files import Question, read_distractor, read_questions
from env_servers.wiki.settings import DEFAULT_DISTRACTOR_FILE, default_questions_file
from env_servers.wiki.tasks import task_id as hotpot_task_id

SCRIPT = "hotpot_evaluate_v1.py"


def predicted_answer(actions: Iterable[str]) -> str:
    """The answer a trajectory gave: its last Finish[answer], or ""."""
    for action in reversed(list(actions)):
        found = find_action(action)
        if found is not None and found.verb == "finish":
            return found.argument
    return ""


@lru_cache(maxsize=1)
def _questions() -> dict[str, Question]:
    listed = os.environ.get("LATS_HOTPOTQA_QUESTIONS")
    by_id = {hotpot_task_id(q.index): q
             for q in read_questions(Path(listed) if listed else default_questions_file())}
    by_id.update((hotpot_task_id(q.index), q) for q, _ in read_distractor(DEFAULT_DISTRACTOR_FILE))
    return by_id


def gold_record(task_id: str) -> dict:
    """The gold record of one of our question ids (KeyError when no file has it)."""
    question = _questions()[task_id]
    return {"_id": question.qid or task_id, "question": question.question,
            "answer": question.answer, "type": question.type, "level": question.level,
            "supporting_facts": [list(fact) for fact in question.supporting_facts]}


def write_prediction_files(predictions_path: Path, gold_path: Path,
                           answers: Iterable[tuple[str, Iterable[str]]]) -> int:
    """Writes the predictions of (task id, trajectory actions) pairs and the gold
    file of their questions; returns how many questions."""
    predicted: dict[str, str] = {}
    gold: dict[str, dict] = {}
    for task_id, actions in answers:
        record = gold_record(task_id)
        gold.setdefault(record["_id"], record)
        predicted[record["_id"]] = predicted_answer(actions)
    predictions = {"answer": predicted, "sp": {key: [] for key in predicted}}
    predictions_path.write_text(json.dumps(predictions, ensure_ascii=False, indent=1) + "\n",
                                encoding="utf-8")
    gold_path.write_text(json.dumps(list(gold.values()), ensure_ascii=False, indent=1) + "\n",
                         encoding="utf-8")
    return len(predicted)


def evaluation_command(predictions_path: Path, gold_path: Path) -> str:
    """The shell line that runs the official script on the two files."""
    return (f"python {SCRIPT} {shlex.quote(str(predictions_path))} "
            f"{shlex.quote(str(gold_path))}")
