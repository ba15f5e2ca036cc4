"""The HotPotQA domains: `hotpotqa` (ReAct on Wikipedia) and `hotpotqa-cot`.

State (JSON, small): `task_id`, `question`, `page` (title of the open page or
null), `lookup` ({"keyword", "cursor"} or null), `answer` (after Finish, else
null) and `observation` (the latest). Page text is never in the
state: it is re-read from the corpus by title, so a fork continues on exactly
its parent's page and lookup cursor. The gold answer is not in the state
either (blobs are signed, not encrypted): it is looked up by task id, except
for inline tasks, whose caller supplied it.

Rewards (`--reward-mode` / LATS_HOTPOTQA_REWARD_MODE, reported as Describe.reward_mode):
  honest (default)  every Step reward is 0; Finish says "Episode finished.";
                    the gold answer is used only by Score.
  oracle            Finish earns 1 on an exact match after HotPotQA
                    normalisation, else 0, and says "Episode finished,
                    reward = N" (the setting of the ReAct and LATS papers).
Score: score = EM, success = EM is 1, metrics em / f1 / precision / recall.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lats_pb import environment_pb2
from lats_runtime.quoting import quoted_list

from env_servers.core import (
    Domain,
    DomainDescription,
    InvalidRequest,
    ResetOutcome,
    ScoreResult,
    State,
    StepOutcome,
    TaskSpec,
)
from env_servers.wiki.actions import ACTION_PATTERN, find_action, invalid_observation
from env_servers.wiki.corpora import open_corpus
from env_servers.wiki.corpus import Corpus
from env_servers.core.answer_keys import answer_key
from env_servers.wiki.metrics import normalize_answer, score_answer
from env_servers.wiki.prompts import cot_prompt_pack, react_prompt_pack
from env_servers.wiki.react import wiki_step
from env_servers.wiki.settings import WikiSettings
from env_servers.wiki.tasks import QuestionSet, inline_question, task_id

REWARD_RANGE = environment_pb2.RewardRange(min=0, max=1, success_threshold=1)

# The examples play task hotpotqa/0 (Scott Derrickson and Ed Wood), the kit's default task.
REACT_GRAMMAR = environment_pb2.ActionGrammar(
    description=(
        "One step: an optional `Thought N: <reasoning>` line, then `Action N: ` and one of "
        "Search[entity] (opens the page titled like entity and shows its first 5 sentences, "
        "else lists up to 5 similar titles), Lookup[keyword] (the next sentence of the open "
        "page containing keyword, as `(Result i / n) ...`) or Finish[answer] (ends the "
        "episode with the answer)."),
    examples=[
        "Search[Scott Derrickson]",
        "Lookup[American]",
        "Thought 3: Scott Derrickson is American. I need Ed Wood's nationality.\n"
        "Action 3: Search[Ed Wood]",
        "Finish[yes]",
    ],
    pattern=ACTION_PATTERN,
)

COT_GRAMMAR = environment_pb2.ActionGrammar(
    description=(
        "Reasoning text; a step that contains Finish[answer] (e.g. on a last line "
        "`Action: Finish[answer]`) ends the episode with that answer, any other text is a "
        "thought the next step continues. Search and Lookup are not available."),
    examples=[
        "Thought: Let's think step by step. Scott Derrickson is an American director.",
        "Thought: Ed Wood was an American filmmaker too, so they share a nationality.\n"
        "Action: Finish[yes]",
    ],
)


class _HotpotDomain(Domain):
    """What both HotPotQA domains share: tasks, reset, rewards, scoring."""

    version = "1.0.0"
    settings_class = WikiSettings

    def __init__(self, settings: WikiSettings | None = None, corpus: Corpus | None = None):
        self.settings = settings or WikiSettings()
        self.corpus = corpus if corpus is not None else open_corpus(self.settings)
        offline = self.corpus.name == "offline"
        indexed = self.corpus.questions() if offline else ()
        self.questions = QuestionSet(self.settings.questions_file, indexed,
                                     ("indexed", "dev") if offline else ("dev",))
        self.oracle = self.settings.reward_mode == "oracle"
        # Live reads block on the network: run them off the event loop.
        self.offload_sync_calls = not offline

    def _description(self, grammar, pack, max_steps: int, max_action_bytes: int):
        return DomainDescription(
            capabilities=environment_pb2.Capabilities(inline_tasks=True, score=True),
            action_grammar=grammar, reward_range=REWARD_RANGE, prompt_pack=pack,
            splits=self.questions.splits, reward_mode=self.settings.reward_mode,
            max_steps=max_steps, max_action_bytes=max_action_bytes,
            facts=environment_pb2.EnvironmentFacts(answer_keys=True, state_keys=True))

    def list_tasks(self, split: str) -> list[str]:
        return self.questions.ids(split)

    def reset(self, task: TaskSpec, seed: int, options: Mapping[str, str]) -> ResetOutcome:
        if options:
            raise InvalidRequest(f"unknown option(s) {quoted_list(options)}: "
                                 f"{self.name} takes no options")
        state: dict[str, Any] = {"page": None, "lookup": None, "answer": None}
        if isinstance(task, str):
            question = self.questions.get(task)
            state["task_id"] = task_id(question.index)
        else:
            question = inline_question(task)
            state["task_id"] = "inline"
            state["gold"] = question.answer or None
        state.update(question=question.question, observation=question.question)
        info = {"corpus": self.corpus.name, "reward_mode": self.settings.reward_mode,
                "type": question.type, "level": question.level, "qid": question.qid}
        return ResetOutcome(state, question.question, state["task_id"], info=info,
                            state_key=state_key(state))

    def observation_of(self, state: State) -> str:
        return state["observation"]

    def _gold(self, state: State) -> str | None:
        if state["task_id"] == "inline":
            return state.get("gold")
        return self.questions.get(state["task_id"]).answer

    def _finish(self, state: State, answer: str, info: Mapping[str, Any]) -> StepOutcome:
        """The terminal step of Finish[answer], rewarded as the mode says."""
        info = dict(info, answer=answer)
        if self.oracle:
            gold = self._gold(state)
            reward = score_answer(answer, gold).em if gold is not None else 0.0
            observation = f"Episode finished, reward = {reward:g}"
            info["em"] = reward
        else:
            reward, observation = 0.0, "Episode finished."
        new_state = dict(state, answer=answer, observation=observation)
        normalised = normalize_answer(answer)
        return StepOutcome(new_state, observation, reward=reward, terminated=True, info=info,
                           answer_key=answer_key("hotpotqa", normalised),
                           state_key=answer_key("finished", normalised))

    def score(self, state: State) -> ScoreResult:
        gold, answer = self._gold(state), state.get("answer")
        if gold is None:
            return ScoreResult(0.0, False, {}, "no gold answer: the inline task gave none")
        if answer is None:
            return ScoreResult(0.0, False, {"em": 0.0, "f1": 0.0, "precision": 0.0,
                                            "recall": 0.0},
                               "no answer: the episode has not reached Finish[answer]")
        result = score_answer(answer, gold)
        return ScoreResult(
            score=result.em, success=result.em == 1.0,
            metrics={"em": result.em, "f1": result.f1, "precision": result.precision,
                     "recall": result.recall},
            details=f"answer {answer!r}, gold {gold!r}: EM {result.em:g}, F1 {result.f1:.3f}")

    def close(self) -> None:
        self.corpus.close()


class HotpotQADomain(_HotpotDomain):
    """ReAct on Wikipedia: Search / Lookup / Finish, one Thought + Action per step."""

    name = "hotpotqa"
    description = (
        "HotPotQA multi-hop questions answered by acting on Wikipedia as in ReAct: "
        "Search[entity], Lookup[keyword], Finish[answer]. Offline the pages come from a "
        "local full-text index of HotPotQA's distractor paragraphs; live, from Wikipedia. "
        "Score reports exact match and F1 under the official HotPotQA normalisation.")

    def describe(self) -> DomainDescription:
        return self._description(REACT_GRAMMAR, react_prompt_pack(ACTION_PATTERN),
                                 max_steps=10, max_action_bytes=4096)

    def step(self, state: State, action: str) -> StepOutcome:
        result = wiki_step(self.corpus, state["page"], state["lookup"], action,
                           self.settings.observation_chars)
        if result.invalid:
            return StepOutcome(state, result.observation, invalid_action=True)
        if result.answer is not None:
            return self._finish(state, result.answer, result.info)
        new_state = dict(state, page=result.page, lookup=result.lookup,
                         observation=result.observation)
        return StepOutcome(new_state, result.observation, info=result.info,
                           state_key=state_key(new_state))


def state_key(state: State) -> str:
    """What the rest of a ReAct episode depends on: the open page, the lookup cursor
    and what the agent was shown (a failed Search's suggestions differ by query);
    not the step's thought."""
    return answer_key("page", state["page"], state["lookup"], state["observation"])


class HotpotQACoTDomain(_HotpotDomain):
    """Chain of thought without Wikipedia: reasoning that ends in Finish[answer]."""

    name = "hotpotqa-cot"
    description = (
        "HotPotQA multi-hop questions answered by chain-of-thought reasoning alone (no "
        "Wikipedia): a step is reasoning text, and one containing Finish[answer] ends the "
        "episode. Score reports exact match and F1 under the official HotPotQA "
        "normalisation.")

    def describe(self) -> DomainDescription:
        return self._description(COT_GRAMMAR, cot_prompt_pack(), max_steps=6,
                                 max_action_bytes=8192)

    def step(self, state: State, action: str) -> StepOutcome:
        found = find_action(action)
        if found is not None and found.verb != "finish":
            return StepOutcome(state, invalid_observation(
                f"{found.verb.capitalize()} is not available when reasoning without "
                "Wikipedia; reason from what you know and end with Finish[answer]"),
                invalid_action=True)
        if found is not None:
            if not found.argument:
                return StepOutcome(state, invalid_observation(
                    "Finish[] is empty; put an answer in the brackets"), invalid_action=True)
            return self._finish(state, found.argument, {"action": "finish"})
        observation = "Thought noted. Continue reasoning, or end with Action: Finish[answer]."
        return StepOutcome(dict(state, observation=observation), observation,
                           info={"action": "thought"})
