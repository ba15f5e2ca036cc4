"""A word-ladder environment on bare grpcio, written from environment.proto alone.

It imports nothing of the LATS project but the generated stubs (lats_pb), as a
third party would: grpcio, its health and reflection services, protobuf and
the standard library. It follows docs/protocol.md, traps included: request
bytes that do not decode are INVALID_ARGUMENT (grpcio alone says INTERNAL),
NaN or Infinity in an inline task is INVALID_ARGUMENT (MessageToDict would
raise), and calls to the retired lats.v1.Environment are FAILED_PRECONDITION
naming lats.environment.v2.

It does not serialise its state: its snapshots are replays (the Reset and the
actions since), which it re-plays on every call, so any replica continues
any snapshot with no shared key at all.

    python word_ladder_server.py [--host 127.0.0.1] [--port 50080]

The game: change the start word into the target word one letter at a time;
every word on the way must be in the word list.
"""

from __future__ import annotations

import argparse
import base64
import binascii
import copy
import logging
import math
import re
import signal
import sys
import threading
from collections import deque
from concurrent import futures

import grpc
from google.protobuf import json_format
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection
from lats_pb import environment_pb2 as pb
from lats_pb import environment_pb2_grpc as pb_grpc

NAME, VERSION = "word_ladder", "1.0.0"
SERVICE = pb.DESCRIPTOR.services_by_name["Environment"].full_name   # lats.environment.v2.Environment
PROTOCOL = SERVICE.rsplit(".", 1)[0]
RETIRED_SERVICE = "lats.v1.Environment"
MAX_STEPS, MAX_ACTION_BYTES, MAX_BATCH_ACTIONS = 8, 64, 16
MAX_OPTION_BYTES = 1024  # Reset options in all (the ladder takes none)
DEFAULT_PAGE, MAX_PAGE = 100, 1000
MAX_MESSAGE_CHARS = 1000

WORDS = frozenset("""
    cold cord card ward warm word worm wore core care dart darn head heal teal tell tall
    tail lead load goad gold wine wind kind mind mild pine boat coat cost cast cart case
    cave gave game came come code mode more mare mart malt salt melt halt pole hole hold
    bold bolt bird bard barn road lord ford fork work bell ball wall will wild pale pile
""".split())
TASKS = [("cold", "warm"), ("head", "tail"), ("lead", "gold"), ("wine", "mild"),
         ("boat", "cart"), ("game", "code"), ("pole", "hold"), ("bird", "barn"),
         ("salt", "melt"), ("road", "fork"), ("bell", "wall"), ("pine", "mild")]
TASK_IDS = [f"ladder/{start}-{target}" for start, target in TASKS]
SPLIT = "test"
ACTION = re.compile(r"^\s*(?:step\s*\d+\s*:\s*)?([a-z]+)\s*\.?\s*$", re.IGNORECASE)


class Refusal(Exception):
    """A request refused with a status; the message says what to fix."""

    def __init__(self, code: grpc.StatusCode, message: str):
        super().__init__(message)
        self.code = code


def quoted(text: str, limit: int = 40) -> str:
    return repr(text) if len(text) <= limit else f"{text[:limit]!r}... ({len(text)} characters)"


def neighbours(word: str) -> list[str]:
    return sorted(w for w in WORDS if len(w) == len(word) and
                  sum(a != b for a, b in zip(w, word)) == 1)


def distance(start: str, target: str) -> int:
    """Moves on the shortest ladder (-1 if none)."""
    seen, queue = {start: 0}, deque([start])
    while queue:
        word = queue.popleft()
        if word == target:
            return seen[word]
        for nxt in neighbours(word):
            if nxt not in seen:
                seen[nxt] = seen[word] + 1
                queue.append(nxt)
    return -1


assert all(0 < distance(s, t) <= MAX_STEPS for s, t in TASKS), "every task must be solvable"


# --- the rules --------------------------------------------------------------------

class Episode:
    """Where an episode stands; rebuilt from a replay on every call."""

    def __init__(self, task_id: str, start: str, target: str):
        self.task_id, self.start, self.target = task_id, start, target
        self.word, self.steps, self.moves, self.terminated = start, 0, 0, False

    def first_observation(self) -> str:
        return (f"Change {self.start} into {self.target}, one letter at a time; every word "
                f"must be in the word list. Now: {self.start}.")

    def over(self) -> bool:
        return self.terminated or self.steps >= MAX_STEPS

    def advance(self, action: str) -> pb.StepResult:
        """One action: its result (the snapshot is added by the caller)."""
        self.steps += 1
        match = ACTION.match(action)
        word = match.group(1).lower() if match else ""
        if word not in neighbours(self.word):
            why = (f"{quoted(action.strip())} is not a word one letter away from {self.word}"
                   if word else "say one word")
            return self._result(f"Invalid: {why}. Words one letter away from {self.word}: "
                                f"{', '.join(neighbours(self.word))}.", invalid=True)
        self.word, self.moves = word, self.moves + 1
        if word == self.target:
            self.terminated = True
            return self._result(f"Reached {self.target} in {self.moves} moves.", reward=1.0)
        return self._result(f"Now: {word}. Target: {self.target}.")

    def _result(self, observation: str, reward: float = 0.0,
                invalid: bool = False) -> pb.StepResult:
        result = pb.StepResult(observation=observation, reward=reward,
                               terminated=self.terminated,
                               truncated=not self.terminated and self.steps >= MAX_STEPS,
                               invalid_action=invalid, steps=self.steps)
        result.info.update({"word": self.word, "moves": self.moves})
        return result


def non_finite_at(struct, path: str = "inline_task") -> str | None:
    """The path of the first NaN or infinite number in a Struct (JSON has none)."""
    for key, value in struct.fields.items():
        found = _non_finite_value(value, f"{path}.{key}")
        if found:
            return found
    return None


def _non_finite_value(value, path: str) -> str | None:
    kind = value.WhichOneof("kind")
    if kind == "number_value" and not math.isfinite(value.number_value):
        return path
    if kind == "struct_value":
        return non_finite_at(value.struct_value, path)
    if kind == "list_value":
        for index, item in enumerate(value.list_value.values):
            found = _non_finite_value(item, f"{path}[{index}]")
            if found:
                return found
    return None


def episode_of(reset: pb.ResetRequest) -> Episode:
    """A new episode of the task a ResetRequest names."""
    size = sum(len(k.encode()) + len(v.encode()) for k, v in reset.options.items())
    if size > MAX_OPTION_BYTES:
        raise Refusal(grpc.StatusCode.INVALID_ARGUMENT,
                      f"Reset options are {size} bytes in all, more than "
                      f"max_option_bytes={MAX_OPTION_BYTES}; send fewer, shorter options")
    if reset.options:
        raise Refusal(grpc.StatusCode.INVALID_ARGUMENT,
                      f"unknown option(s) {', '.join(quoted(k) for k in sorted(reset.options)[:3])};"
                      " the word ladder takes no options")
    which = reset.WhichOneof("task")
    if which == "task_id" and reset.task_id:
        if reset.task_id not in TASK_IDS:
            raise Refusal(grpc.StatusCode.NOT_FOUND, f"unknown task {quoted(reset.task_id)}; "
                          f"ListTasks names them, e.g. {TASK_IDS[0]!r}")
        start, target = TASKS[TASK_IDS.index(reset.task_id)]
        return Episode(reset.task_id, start, target)
    if which == "inline_task":
        bad = non_finite_at(reset.inline_task)   # before MessageToDict, which raises on NaN
        if bad:
            raise Refusal(grpc.StatusCode.INVALID_ARGUMENT,
                          f"{bad} is not a finite number; send finite numbers only")
        spec = json_format.MessageToDict(reset.inline_task)
        start, target = spec.get("start"), spec.get("target")
        if set(spec) != {"start", "target"} or start not in WORDS or target not in WORDS \
                or distance(start, target) <= 0:
            raise Refusal(grpc.StatusCode.INVALID_ARGUMENT,
                          'inline_task must be {"start": WORD, "target": WORD}: two different '
                          "words of the word list joined by a ladder")
        return Episode(f"inline/{start}-{target}", start, target)
    raise Refusal(grpc.StatusCode.INVALID_ARGUMENT,
                  "name a task: set task_id (see ListTasks) or inline_task")


def check_action(action: str) -> None:
    if not action.strip():
        raise Refusal(grpc.StatusCode.INVALID_ARGUMENT, "action is empty; send one word, e.g. 'cord'")
    size = len(action.encode("utf-8"))
    if size > MAX_ACTION_BYTES:
        raise Refusal(grpc.StatusCode.INVALID_ARGUMENT,
                      f"action is {size} bytes, more than max_action_bytes={MAX_ACTION_BYTES}")


def replayed(snapshot: pb.Snapshot, method: str) -> tuple[Episode, pb.Replay]:
    """The episode a snapshot names: its reset, re-played action by action."""
    kind = snapshot.WhichOneof("kind")
    if kind is None:
        raise Refusal(grpc.StatusCode.INVALID_ARGUMENT,
                      f"{method} needs a snapshot: pass the one Reset or Step returned")
    if kind != "replay":
        raise Refusal(grpc.StatusCode.INVALID_ARGUMENT,
                      f"this server's snapshots are replays, and this one is a {kind}; pass a "
                      "snapshot this environment's Reset or Step returned, unchanged")
    episode = episode_of(snapshot.replay.reset)
    for number, action in enumerate(snapshot.replay.actions, start=1):
        check_action(action)
        if episode.over():
            raise Refusal(grpc.StatusCode.INVALID_ARGUMENT,
                          f"the replay goes on after its episode ended (action {number}); pass "
                          "a snapshot this environment returned")
        episode.advance(action)
    return episode, snapshot.replay


# --- paging -----------------------------------------------------------------------

def page_token(offset: int) -> str:
    return base64.urlsafe_b64encode(f"{SPLIT}@{offset}".encode()).decode()


def offset_of(token: str) -> int:
    if not token:
        return 0
    try:
        split, _, offset = base64.urlsafe_b64decode(token.encode()).decode().partition("@")
        number = int(offset)
    except (binascii.Error, UnicodeError, ValueError):
        number, split = -1, ""
    if split != SPLIT or page_token(number) != token or not 0 < number < len(TASK_IDS):
        raise Refusal(grpc.StatusCode.INVALID_ARGUMENT,
                      f"page_token {quoted(token)} is not one this server issued; pass "
                      "next_page_token unchanged, or '' for the first page")
    return number


# --- the service ------------------------------------------------------------------

def answered(method):
    """Refusals become their status; anything else is INTERNAL, and is logged."""

    def handler(self, request, context):
        try:
            return method(self, request, context)
        except Refusal as refusal:
            context.abort(refusal.code, str(refusal)[:MAX_MESSAGE_CHARS])
        except Exception as error:  # noqa: BLE001 - a bug: report it, keep serving
            logging.exception("%s failed", method.__name__)
            context.abort(grpc.StatusCode.INTERNAL,
                          f"environment error in {method.__name__}: {error}"[:MAX_MESSAGE_CHARS])

    handler.__name__ = method.__name__
    return handler


PACK = pb.PromptPack(
    instructions=("Change the start word into the target word by changing one letter at a "
                  "time. Every word must be in the word list. Answer with the next word only."),
    examples=("Change lead into gold, one letter at a time; every word must be in the word "
              "list. Now: lead.\nStep 1: load\nObservation: Now: load. Target: gold.\n"
              "Step 2: goad\nObservation: Now: goad. Target: gold.\nStep 3: gold\n"
              "Observation: Reached gold in 3 moves."),
    act_template="{instructions}\n\n{examples}\n\n{reflections}{task}\n{trajectory}Step {step}:",
    value_template=("{instructions}\n{task}\n{trajectory}How close is the last word to the "
                    "target, from 1 (far) to 10 (reached)? Closeness:"),
    reflect_template=("{instructions}\n{task}\n{trajectory}{outcome}\nIn one sentence, what "
                      "should be done differently?"),
    step_template="Step {step}: {action}\nObservation: {observation}\n",
    reflection_template="Reflection {index}: {reflection}\n",
    reflections_header="Lessons from earlier attempts:\n",
    value_pattern=r"(\d+(?:\.\d+)?)", value_min=1, value_max=10,
    act_stop=["\n"], value_stop=["\n"], act_max_tokens=16, value_max_tokens=8,
    reflect_max_tokens=64, action_prefix_pattern=r"^Step \d+:\s*",
    search_hints=pb.SearchHints(max_depth=6, n_samples=2, iterations=8, simulate=False))


class WordLadder(pb_grpc.EnvironmentServicer):

    @answered
    def Describe(self, request, context):
        return pb.DescribeResponse(
            name=NAME, version=VERSION,
            description=("Word ladder: change one word into another one letter at a time "
                         "through words of a small list. Served by a bare grpcio process."),
            capabilities=pb.Capabilities(inline_tasks=True, score=True),
            action_grammar=pb.ActionGrammar(
                description="one word of the list that differs from the current word in one letter",
                examples=["cord", "card", "ward", "warm"],   # cold -> warm, the first task
                pattern=r"^\s*[A-Za-z]+\s*$"),
            reward_range=pb.RewardRange(min=0, max=1, success_threshold=1),
            limits=pb.Limits(max_steps=MAX_STEPS, max_action_bytes=MAX_ACTION_BYTES,
                             max_batch_actions=MAX_BATCH_ACTIONS,
                             max_option_bytes=MAX_OPTION_BYTES),
            prompt_pack=PACK, splits=[SPLIT], reward_mode=pb.REWARD_MODE_NONE)

    @answered
    def ListTasks(self, request, context):
        if request.split not in ("", SPLIT):
            raise Refusal(grpc.StatusCode.INVALID_ARGUMENT,
                          f"unknown split {quoted(request.split)}; Describe lists {SPLIT!r}")
        start = offset_of(request.page_token)
        end = start + min(request.page_size or DEFAULT_PAGE, MAX_PAGE)
        return pb.ListTasksResponse(task_ids=TASK_IDS[start:end], total=len(TASK_IDS),
                                    next_page_token=page_token(end) if end < len(TASK_IDS) else "")

    @answered
    def Reset(self, request, context):
        episode = episode_of(request)
        response = pb.ResetResponse(observation=episode.first_observation(),
                                    task_id=episode.task_id,
                                    snapshot=pb.Snapshot(replay=pb.Replay(reset=request)))
        response.info.update({"start": episode.start, "target": episode.target})
        return response

    @answered
    def Step(self, request, context):
        actions = list(request.actions)
        if not 1 <= len(actions) <= MAX_BATCH_ACTIONS:
            raise Refusal(grpc.StatusCode.INVALID_ARGUMENT,
                          f"Step carries {len(actions)} actions; send 1 to "
                          f"limits.max_batch_actions={MAX_BATCH_ACTIONS}")
        for action in actions:
            check_action(action)
        episode, replay = replayed(request.snapshot, "Step")
        if episode.over():
            raise Refusal(grpc.StatusCode.FAILED_PRECONDITION,
                          f"the episode is over after {episode.steps} steps; Reset for a new "
                          "episode or continue from an earlier snapshot")
        response = pb.StepResponse()
        for action in actions:                # each on its own, from the same state
            result = copy.copy(episode).advance(action)
            result.snapshot.replay.reset.CopyFrom(replay.reset)
            result.snapshot.replay.actions.extend([*replay.actions, action])
            response.results.append(result)
        return response

    @answered
    def Score(self, request, context):
        episode, _ = replayed(request.snapshot, "Score")
        solved = episode.word == episode.target
        shortest = distance(episode.start, episode.target)
        response = pb.ScoreResponse(
            score=float(solved), success=solved,
            details=(f"reached {episode.target} in {episode.moves} moves (shortest {shortest})"
                     if solved else f"at {episode.word}, not {episode.target}"))
        response.metrics.update({"moves": episode.moves, "shortest": shortest})
        return response


class Undecodable:
    def __init__(self, error: Exception):
        self.error = error


class TolerantRequests(grpc.ServerInterceptor):
    """grpcio answers request bytes its deserializer cannot parse with INTERNAL; this
    hands them to the handler as a marker, answered INVALID_ARGUMENT instead."""

    def intercept_service(self, continuation, details):
        handler = continuation(details)
        if handler is None or handler.unary_unary is None or handler.request_deserializer is None:
            return handler
        inner, parse = handler.unary_unary, handler.request_deserializer

        def deserialize(data: bytes):
            try:
                return parse(data)
            except Exception as error:  # noqa: BLE001 - DecodeError or anything else
                return Undecodable(error)

        def behaviour(request, context):
            if isinstance(request, Undecodable):
                context.abort(grpc.StatusCode.INVALID_ARGUMENT,
                              f"{details.method}: the request bytes are not a valid message "
                              f"({str(request.error)[:200]}); send a well-formed message")
            return inner(request, context)

        return grpc.unary_unary_rpc_method_handler(
            behaviour, request_deserializer=deserialize,
            response_serializer=handler.response_serializer)


class RetiredVersion(grpc.GenericRpcHandler):
    """Calls to lats.v1.Environment: FAILED_PRECONDITION naming the version spoken here."""

    def service(self, details):
        if not details.method.startswith(f"/{RETIRED_SERVICE}/"):
            return None

        def refuse(request, context):
            context.abort(grpc.StatusCode.FAILED_PRECONDITION,
                          f"{details.method[:100]} belongs to {RETIRED_SERVICE}, a retired "
                          f"version of the environment protocol; this server speaks {PROTOCOL}: "
                          "upgrade the client")

        return grpc.unary_unary_rpc_method_handler(refuse)


def serve(host: str, port: int, grace: float) -> None:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=16),
                         interceptors=[TolerantRequests()])
    pb_grpc.add_EnvironmentServicer_to_server(WordLadder(), server)
    server.add_generic_rpc_handlers((RetiredVersion(),))
    checks = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(checks, server)
    reflection.enable_server_reflection([SERVICE, health.SERVICE_NAME, reflection.SERVICE_NAME],
                                        server)
    bound = server.add_insecure_port(f"{host}:{port}")
    if bound == 0:
        sys.exit(f"cannot listen on {host}:{port}")
    server.start()
    for name in ("", SERVICE):
        checks.set(name, health_pb2.HealthCheckResponse.SERVING)
    print(f"{NAME} listening on {host}:{bound}", flush=True)
    stopping = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stopping.set())
    stopping.wait()
    for name in ("", SERVICE):
        checks.set(name, health_pb2.HealthCheckResponse.NOT_SERVING)
    server.stop(grace).wait()
    print("stopped", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=50080)
    parser.add_argument("--grace", type=float, default=5.0)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO)
    serve(args.host, args.port, args.grace)


if __name__ == "__main__":
    main()
