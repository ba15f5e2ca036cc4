"""A Python client for the LATS planner: run searches and read runs from a script
or a notebook, with typed events and results instead of raw messages.

    from lats_client import Planner

    with Planner("127.0.0.1:50053") as planner:
        search = planner.solve("127.0.0.1:50051", "game24/900", n=5, k=10)
        for event in search:
            print(event)
        print(search.result().actions)

`Planner` blocks (it works in notebooks, whose own event loop is running);
`AsyncPlanner` is its asyncio twin. Both offer solve (a Search of typed events
ending with Finished), run (one stored run with its tree), runs / runs_page
(stored runs, filtered and paged), facets and watch (a run as it grows).
Errors are LatsError subclasses that name the service, its address and the
status (lats_client.errors). `local_suite` starts the services themselves on
this machine and stops them on exit (lats_client.local). `EnvClient` drives an
environment server directly: describe, list_tasks, reset, step (from any
earlier State, to revert) and score, with typed results
(lats_client.environment).
"""

from lats_runtime.run_status import RunStatus

from lats_client.aio import AsyncPlanner, AsyncSearch
from lats_client.environment import EnvClient
from lats_client.environment_types import (Description, Limits, RewardRange, State, TaskPage,
                                           Transition)
from lats_client.errors import (DeadlineExceeded, EpisodeEnded, InvalidRequest, InvalidSetting,
                                LatsError, NotAnEnvironment, NotAPlanner, NotFound, RunNotFound,
                                ServiceBusy, ServiceUnavailable, TaskNotFound)
from lats_client.events import (Backpropagated, Event, Finished, IterationStarted, NodeAdded,
                                NodeEvaluated, NodeSelected, ReflectionAdded, SetupFinished,
                                SetupStarted, Snapshot, Started, TerminalReached)
from lats_client.local import LocalSuite, local_suite
from lats_client.planner import Planner, Search, SearchStreamError
from lats_client.types import (Facets, Node, Reflection, Result, Run, RunPage, Score, Usage)

__all__ = [
    "AsyncPlanner", "AsyncSearch", "Backpropagated", "DeadlineExceeded", "Description",
    "EnvClient", "EpisodeEnded", "Event", "Facets", "Finished", "InvalidRequest",
    "InvalidSetting", "IterationStarted", "LatsError", "Limits", "local_suite", "LocalSuite",
    "Node", "NodeAdded", "NodeEvaluated", "NodeSelected", "NotAnEnvironment", "NotAPlanner",
    "NotFound", "Planner", "Reflection", "ReflectionAdded", "Result", "RewardRange", "Run",
    "RunNotFound", "RunPage", "RunStatus", "Score", "Search", "SearchStreamError",
    "ServiceBusy", "ServiceUnavailable", "SetupFinished", "SetupStarted", "Snapshot",
    "Started", "State", "TaskNotFound", "TaskPage", "TerminalReached", "Transition", "Usage",
]
