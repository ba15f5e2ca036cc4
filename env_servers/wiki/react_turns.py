"""The ReAct pack's few-shot examples as chat turns, for models that follow turns.

Acting: the three trajectories of `react_examples.ACT_EXAMPLES` (ReAct's,
verified against this environment by a test), each a conversation: the
question as the user's message, every Thought + Action as the assistant's,
every observation as the user's. A small chat model continues such a
conversation with one step per turn far more reliably than it continues
examples pasted into one message, and the turns are the same prefix for every
step of every question, which a model server keeps in its prompt cache.

Value: short verdicts, one line each, on partial and finished trajectories of
the same three questions (an answer read in an observation, a guess, a loop,
a useful step), so the score line comes within a few tokens. Reflection: two
failed trials of other questions, each diagnosed in two sentences that name
what to search or look up instead.
"""

from __future__ import annotations

import re

from lats_pb import environment_pb2

from env_servers.wiki.react_examples import ACT_EXAMPLES

_STEP = re.compile(r"^(Thought|Action|Observation) (\d+): ", re.M)


def episode_turns(example: str) -> list[tuple[str, str]]:
    """One example ("Question: ...", then Thought/Action/Observation lines) as turns:
    user question, then assistant (thought and action) and user (observation) in turn."""
    lines = example.strip().splitlines()
    turns: list[tuple[str, str]] = [("user", lines[0])]
    for line in lines[1:]:
        role = "user" if line.startswith("Observation") else "assistant"
        if turns[-1][0] == role:
            turns[-1] = (role, turns[-1][1] + "\n" + line)
        else:
            turns.append((role, line))
    return turns


def act_turns() -> list[environment_pb2.ChatTurn]:
    """Every acting example as a conversation, one after another."""
    return [environment_pb2.ChatTurn(role=role, content=content)
            for example in ACT_EXAMPLES.strip().split("\n\n")
            for role, content in episode_turns(example)]


VALUE_REQUEST = (
    'Judge the latest step: will this trajectory reach the correct answer? Reply with one '
    'sentence, then "Thus the correctness score is N" (N from 1 to 10: 1 wrong or stuck, '
    '10 the answer is found and an observation supports it).')

_VALUE_CASES = [
    ("""\
Question: Were Pavel Urysohn and Leonid Levin known for the same type of work?
Thought 1: I need to search Pavel Urysohn and Leonid Levin, find their types of work, then find if they are the same.
Action 1: Search[Pavel Urysohn]
Observation 1: Pavel Samuilovich Urysohn (February 3, 1898 – August 17, 1924) was a Soviet mathematician who is best known for his contributions in dimension theory.""",
     "The question asks whether both did the same work; Urysohn is a mathematician, and "
     "searching Leonid Levin next would settle it. Thus the correctness score is 7"),
    ("""\
Question: Were Pavel Urysohn and Leonid Levin known for the same type of work?
Thought 1: Both are famous scientists, so the answer is yes.
Action 1: Finish[yes]
Observation 1: Episode finished.""",
     "The question asks whether both did the same work, but the answer is a guess: no "
     "observation says what either man worked on. Thus the correctness score is 3"),
    ("""\
Question: Musician and satirist Allie Goertz wrote a song about the "The Simpsons" character Milhouse, who Matt Groening named after who?
Thought 1: I need to search Milhouse and find who it is named after.
Action 1: Search[Milhouse]
Observation 1: Milhouse Mussolini Van Houten is a recurring character in the Fox animated television series The Simpsons voiced by Pamela Hayden and created by Matt Groening.
Thought 2: The paragraph does not say who Milhouse is named after, maybe I can look up "named after".
Action 2: Lookup[named after]
Observation 2: (Result 1 / 1) Milhouse was named after U.S. president Richard Nixon, whose middle name was Milhous.
Thought 3: Milhouse was named after U.S. president Richard Nixon, so the answer is Richard Nixon.
Action 3: Finish[Richard Nixon]
Observation 3: Episode finished.""",
     "The question asks who Milhouse was named after; observation 2 says Richard Nixon, "
     "and that is the answer given. Thus the correctness score is 10"),
    ("""\
Question: The Oberoi family is part of a hotel company that has a head office in what city?
Thought 1: I need to search the Oberoi family and find the hotel company's head office.
Action 1: Search[Oberoi family]
Observation 1: The Oberoi family is an Indian family that is famous for its involvement in hotels, namely through The Oberoi Group.
Thought 2: The Oberoi family is famous for hotels, so the answer is hotels.
Action 2: Finish[hotels]
Observation 2: Episode finished.""",
     "The question asks for a city, but the answer given is not a city, and no observation "
     "names the head office. Thus the correctness score is 1"),
    ("""\
Question: Which documentary is about Finnish rock groups, Adam Clayton Powell or The Saimaa Gesture?
Thought 1: I need to search Adam Clayton Powell and The Saimaa Gesture.
Action 1: Search[Adam Clayton Powell]
Observation 1: Could not find [Adam Clayton Powell]. Similar: ['Adam Clayton Powell III', 'Seventh Avenue (Manhattan)', 'Adam Clayton Powell Jr. State Office Building', 'Isabel Washington Powell', 'Adam Clayton Powell (film)'].
Thought 2: I will search Adam Clayton Powell again.
Action 2: Search[Adam Clayton Powell]
Observation 2: Could not find [Adam Clayton Powell]. Similar: ['Adam Clayton Powell III', 'Seventh Avenue (Manhattan)', 'Adam Clayton Powell Jr. State Office Building', 'Isabel Washington Powell', 'Adam Clayton Powell (film)'].""",
     "The question asks which film is about Finnish rock groups; the trajectory repeats a "
     "search that failed instead of trying 'Adam Clayton Powell (film)' from the "
     "suggestions. Thus the correctness score is 2"),
]

REFLECT_REQUEST = (
    "This trial did not end with an answer known to be right. In one or two sentences, say "
    "what went wrong in it and what to do instead next time: name the entity to search or "
    "the keyword to look up.")

_REFLECT_CASES = [
    ("""\
Question: Kam Heskin plays Paige Morgan in a 2004 film directed by who?
Thought 1: I need to search Kam Heskin and find the 2004 film, then its director.
Action 1: Search[Kam Heskin]
Observation 1: Kam Erika Heskin (born May 8, 1973) is an American actress. Heskin went on in 2003 to play Elizabeth Bennet in an independent film Pride & Prejudice: A Latter-Day Comedy, Robin in Charmed (2004), and Paige Morgan in The Prince and Me film franchise (2006–2010).
Thought 2: I need to search The Prince & Me (2004 film).
Action 2: Search[The Prince & Me (2004 film)]
Observation 2: Could not find [The Prince & Me (2004 film)]. Similar: ['The Prince & Me', 'The Prince & Me 2: The Royal Wedding', 'Kam Heskin', 'Prince of Darkness (film)', 'Prince of Persia: The Sands of Time (film)'].
Thought 3: I need to search The Prince & Me (2004 film).
Action 3: Search[The Prince & Me (2004 film)]
Observation 3: Could not find [The Prince & Me (2004 film)]. Similar: ['The Prince & Me', 'The Prince & Me 2: The Royal Wedding', 'Kam Heskin', 'Prince of Darkness (film)', 'Prince of Persia: The Sands of Time (film)'].""",
     "I searched a title that does not exist twice instead of one the suggestions offered. "
     "Next time I will search The Prince & Me and look up \"directed\"."),
    ("""\
Question: The Oberoi family is part of a hotel company that has a head office in what city?
Thought 1: The Oberoi family runs hotels in Mumbai, so the answer is Mumbai.
Action 1: Finish[Mumbai]
Observation 1: Episode finished.""",
     "I answered from memory without searching anything, so nothing supports Mumbai. Next "
     "time I will search Oberoi family and look up \"head office\" before I answer."),
]


def _request(case: str, request: str) -> str:
    return f"{case}\n{request}"


def value_turns() -> list[environment_pb2.ChatTurn]:
    return [turn for case, verdict in _VALUE_CASES for turn in (
        environment_pb2.ChatTurn(role="user", content=_request(case, VALUE_REQUEST)),
        environment_pb2.ChatTurn(role="assistant", content=verdict))]


def reflect_turns() -> list[environment_pb2.ChatTurn]:
    return [turn for case, reflection in _REFLECT_CASES for turn in (
        environment_pb2.ChatTurn(role="user", content=_request(case, REFLECT_REQUEST)),
        environment_pb2.ChatTurn(role="assistant", content=reflection))]
