from google.protobuf import struct_pb2 as _struct_pb2
from lats_pb import environment_pb2 as _environment_pb2
from lats_pb import llm_pb2 as _llm_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class RunStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RUN_STATUS_UNSPECIFIED: _ClassVar[RunStatus]
    RUN_STATUS_RUNNING: _ClassVar[RunStatus]
    RUN_STATUS_SOLVED: _ClassVar[RunStatus]
    RUN_STATUS_FAILED: _ClassVar[RunStatus]
    RUN_STATUS_ERROR: _ClassVar[RunStatus]
    RUN_STATUS_INTERRUPTED: _ClassVar[RunStatus]
    RUN_STATUS_CANCELLED: _ClassVar[RunStatus]
RUN_STATUS_UNSPECIFIED: RunStatus
RUN_STATUS_RUNNING: RunStatus
RUN_STATUS_SOLVED: RunStatus
RUN_STATUS_FAILED: RunStatus
RUN_STATUS_ERROR: RunStatus
RUN_STATUS_INTERRUPTED: RunStatus
RUN_STATUS_CANCELLED: RunStatus

class SearchConfig(_message.Message):
    __slots__ = ("method", "n_samples", "iterations", "max_depth", "exploration_weight", "value_weight", "reflection", "simulate", "temperature", "seed", "model", "max_reflections", "budget", "value_samples", "lm_value", "fallback_env_address", "parallel", "greedy_first", "answer_rule", "dedup", "stop_class_size", "agreement_weight", "lazy_reflection", "widening", "greedy_gate", "branching", "wider_prior", "deeper_prior", "prior_strength", "tie_break", "refine_every_failure", "prune_loops")
    METHOD_FIELD_NUMBER: _ClassVar[int]
    N_SAMPLES_FIELD_NUMBER: _ClassVar[int]
    ITERATIONS_FIELD_NUMBER: _ClassVar[int]
    MAX_DEPTH_FIELD_NUMBER: _ClassVar[int]
    EXPLORATION_WEIGHT_FIELD_NUMBER: _ClassVar[int]
    VALUE_WEIGHT_FIELD_NUMBER: _ClassVar[int]
    REFLECTION_FIELD_NUMBER: _ClassVar[int]
    SIMULATE_FIELD_NUMBER: _ClassVar[int]
    TEMPERATURE_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    MAX_REFLECTIONS_FIELD_NUMBER: _ClassVar[int]
    BUDGET_FIELD_NUMBER: _ClassVar[int]
    VALUE_SAMPLES_FIELD_NUMBER: _ClassVar[int]
    LM_VALUE_FIELD_NUMBER: _ClassVar[int]
    FALLBACK_ENV_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    PARALLEL_FIELD_NUMBER: _ClassVar[int]
    GREEDY_FIRST_FIELD_NUMBER: _ClassVar[int]
    ANSWER_RULE_FIELD_NUMBER: _ClassVar[int]
    DEDUP_FIELD_NUMBER: _ClassVar[int]
    STOP_CLASS_SIZE_FIELD_NUMBER: _ClassVar[int]
    AGREEMENT_WEIGHT_FIELD_NUMBER: _ClassVar[int]
    LAZY_REFLECTION_FIELD_NUMBER: _ClassVar[int]
    WIDENING_FIELD_NUMBER: _ClassVar[int]
    GREEDY_GATE_FIELD_NUMBER: _ClassVar[int]
    BRANCHING_FIELD_NUMBER: _ClassVar[int]
    WIDER_PRIOR_FIELD_NUMBER: _ClassVar[int]
    DEEPER_PRIOR_FIELD_NUMBER: _ClassVar[int]
    PRIOR_STRENGTH_FIELD_NUMBER: _ClassVar[int]
    TIE_BREAK_FIELD_NUMBER: _ClassVar[int]
    REFINE_EVERY_FAILURE_FIELD_NUMBER: _ClassVar[int]
    PRUNE_LOOPS_FIELD_NUMBER: _ClassVar[int]
    method: str
    n_samples: int
    iterations: int
    max_depth: int
    exploration_weight: float
    value_weight: float
    reflection: bool
    simulate: bool
    temperature: float
    seed: int
    model: str
    max_reflections: int
    budget: _llm_pb2.Budget
    value_samples: int
    lm_value: bool
    fallback_env_address: str
    parallel: int
    greedy_first: bool
    answer_rule: str
    dedup: bool
    stop_class_size: int
    agreement_weight: float
    lazy_reflection: bool
    widening: float
    greedy_gate: bool
    branching: str
    wider_prior: float
    deeper_prior: float
    prior_strength: float
    tie_break: bool
    refine_every_failure: bool
    prune_loops: bool
    def __init__(self, method: _Optional[str] = ..., n_samples: _Optional[int] = ..., iterations: _Optional[int] = ..., max_depth: _Optional[int] = ..., exploration_weight: _Optional[float] = ..., value_weight: _Optional[float] = ..., reflection: _Optional[bool] = ..., simulate: _Optional[bool] = ..., temperature: _Optional[float] = ..., seed: _Optional[int] = ..., model: _Optional[str] = ..., max_reflections: _Optional[int] = ..., budget: _Optional[_Union[_llm_pb2.Budget, _Mapping]] = ..., value_samples: _Optional[int] = ..., lm_value: _Optional[bool] = ..., fallback_env_address: _Optional[str] = ..., parallel: _Optional[int] = ..., greedy_first: _Optional[bool] = ..., answer_rule: _Optional[str] = ..., dedup: _Optional[bool] = ..., stop_class_size: _Optional[int] = ..., agreement_weight: _Optional[float] = ..., lazy_reflection: _Optional[bool] = ..., widening: _Optional[float] = ..., greedy_gate: _Optional[bool] = ..., branching: _Optional[str] = ..., wider_prior: _Optional[float] = ..., deeper_prior: _Optional[float] = ..., prior_strength: _Optional[float] = ..., tie_break: _Optional[bool] = ..., refine_every_failure: _Optional[bool] = ..., prune_loops: _Optional[bool] = ...) -> None: ...

class SolveRequest(_message.Message):
    __slots__ = ("env_address", "task_id", "inline_task", "config", "run_id")
    ENV_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    INLINE_TASK_FIELD_NUMBER: _ClassVar[int]
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    env_address: str
    task_id: str
    inline_task: _struct_pb2.Struct
    config: SearchConfig
    run_id: str
    def __init__(self, env_address: _Optional[str] = ..., task_id: _Optional[str] = ..., inline_task: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., config: _Optional[_Union[SearchConfig, _Mapping]] = ..., run_id: _Optional[str] = ...) -> None: ...

class Node(_message.Message):
    __slots__ = ("id", "parent_id", "depth", "action", "observation", "reward", "terminal", "invalid_action", "visits", "value", "lm_score", "sc_score", "sample_count", "reflection", "answer_key", "repeats", "returns_to")
    ID_FIELD_NUMBER: _ClassVar[int]
    PARENT_ID_FIELD_NUMBER: _ClassVar[int]
    DEPTH_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    REWARD_FIELD_NUMBER: _ClassVar[int]
    TERMINAL_FIELD_NUMBER: _ClassVar[int]
    INVALID_ACTION_FIELD_NUMBER: _ClassVar[int]
    VISITS_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    LM_SCORE_FIELD_NUMBER: _ClassVar[int]
    SC_SCORE_FIELD_NUMBER: _ClassVar[int]
    SAMPLE_COUNT_FIELD_NUMBER: _ClassVar[int]
    REFLECTION_FIELD_NUMBER: _ClassVar[int]
    ANSWER_KEY_FIELD_NUMBER: _ClassVar[int]
    REPEATS_FIELD_NUMBER: _ClassVar[int]
    RETURNS_TO_FIELD_NUMBER: _ClassVar[int]
    id: str
    parent_id: str
    depth: int
    action: str
    observation: str
    reward: float
    terminal: bool
    invalid_action: bool
    visits: int
    value: float
    lm_score: float
    sc_score: float
    sample_count: int
    reflection: str
    answer_key: str
    repeats: int
    returns_to: str
    def __init__(self, id: _Optional[str] = ..., parent_id: _Optional[str] = ..., depth: _Optional[int] = ..., action: _Optional[str] = ..., observation: _Optional[str] = ..., reward: _Optional[float] = ..., terminal: _Optional[bool] = ..., invalid_action: _Optional[bool] = ..., visits: _Optional[int] = ..., value: _Optional[float] = ..., lm_score: _Optional[float] = ..., sc_score: _Optional[float] = ..., sample_count: _Optional[int] = ..., reflection: _Optional[str] = ..., answer_key: _Optional[str] = ..., repeats: _Optional[int] = ..., returns_to: _Optional[str] = ...) -> None: ...

class RunResult(_message.Message):
    __slots__ = ("status", "actions", "final_observation", "reward", "score", "scored", "usage", "iterations", "nodes_expanded", "nodes", "wall_seconds", "error", "reward_mode", "model", "config", "environment", "task_id", "stop_reason", "method", "model_seconds", "answer_node_id", "second_term", "value_parse_failures", "repeats_merged", "greedy_node_id", "answer_reason", "calls_by_kind", "partial_credit_rewards")
    class CallsByKindEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    STATUS_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    FINAL_OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    REWARD_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    SCORED_FIELD_NUMBER: _ClassVar[int]
    USAGE_FIELD_NUMBER: _ClassVar[int]
    ITERATIONS_FIELD_NUMBER: _ClassVar[int]
    NODES_EXPANDED_FIELD_NUMBER: _ClassVar[int]
    NODES_FIELD_NUMBER: _ClassVar[int]
    WALL_SECONDS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    REWARD_MODE_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    ENVIRONMENT_FIELD_NUMBER: _ClassVar[int]
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    STOP_REASON_FIELD_NUMBER: _ClassVar[int]
    METHOD_FIELD_NUMBER: _ClassVar[int]
    MODEL_SECONDS_FIELD_NUMBER: _ClassVar[int]
    ANSWER_NODE_ID_FIELD_NUMBER: _ClassVar[int]
    SECOND_TERM_FIELD_NUMBER: _ClassVar[int]
    VALUE_PARSE_FAILURES_FIELD_NUMBER: _ClassVar[int]
    REPEATS_MERGED_FIELD_NUMBER: _ClassVar[int]
    GREEDY_NODE_ID_FIELD_NUMBER: _ClassVar[int]
    ANSWER_REASON_FIELD_NUMBER: _ClassVar[int]
    CALLS_BY_KIND_FIELD_NUMBER: _ClassVar[int]
    PARTIAL_CREDIT_REWARDS_FIELD_NUMBER: _ClassVar[int]
    status: RunStatus
    actions: _containers.RepeatedScalarFieldContainer[str]
    final_observation: str
    reward: float
    score: _environment_pb2.ScoreResponse
    scored: bool
    usage: _llm_pb2.Usage
    iterations: int
    nodes_expanded: int
    nodes: int
    wall_seconds: float
    error: str
    reward_mode: _environment_pb2.RewardMode
    model: str
    config: SearchConfig
    environment: str
    task_id: str
    stop_reason: str
    method: str
    model_seconds: float
    answer_node_id: str
    second_term: str
    value_parse_failures: int
    repeats_merged: int
    greedy_node_id: str
    answer_reason: str
    calls_by_kind: _containers.ScalarMap[str, int]
    partial_credit_rewards: bool
    def __init__(self, status: _Optional[_Union[RunStatus, str]] = ..., actions: _Optional[_Iterable[str]] = ..., final_observation: _Optional[str] = ..., reward: _Optional[float] = ..., score: _Optional[_Union[_environment_pb2.ScoreResponse, _Mapping]] = ..., scored: _Optional[bool] = ..., usage: _Optional[_Union[_llm_pb2.Usage, _Mapping]] = ..., iterations: _Optional[int] = ..., nodes_expanded: _Optional[int] = ..., nodes: _Optional[int] = ..., wall_seconds: _Optional[float] = ..., error: _Optional[str] = ..., reward_mode: _Optional[_Union[_environment_pb2.RewardMode, str]] = ..., model: _Optional[str] = ..., config: _Optional[_Union[SearchConfig, _Mapping]] = ..., environment: _Optional[str] = ..., task_id: _Optional[str] = ..., stop_reason: _Optional[str] = ..., method: _Optional[str] = ..., model_seconds: _Optional[float] = ..., answer_node_id: _Optional[str] = ..., second_term: _Optional[str] = ..., value_parse_failures: _Optional[int] = ..., repeats_merged: _Optional[int] = ..., greedy_node_id: _Optional[str] = ..., answer_reason: _Optional[str] = ..., calls_by_kind: _Optional[_Mapping[str, int]] = ..., partial_credit_rewards: _Optional[bool] = ...) -> None: ...

class SearchEvent(_message.Message):
    __slots__ = ("run_id", "seq", "started", "iteration", "selected", "node_added", "node_evaluated", "reflection", "backpropagated", "terminal", "finished", "setup_started", "setup_finished")
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    STARTED_FIELD_NUMBER: _ClassVar[int]
    ITERATION_FIELD_NUMBER: _ClassVar[int]
    SELECTED_FIELD_NUMBER: _ClassVar[int]
    NODE_ADDED_FIELD_NUMBER: _ClassVar[int]
    NODE_EVALUATED_FIELD_NUMBER: _ClassVar[int]
    REFLECTION_FIELD_NUMBER: _ClassVar[int]
    BACKPROPAGATED_FIELD_NUMBER: _ClassVar[int]
    TERMINAL_FIELD_NUMBER: _ClassVar[int]
    FINISHED_FIELD_NUMBER: _ClassVar[int]
    SETUP_STARTED_FIELD_NUMBER: _ClassVar[int]
    SETUP_FINISHED_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    seq: int
    started: RunStarted
    iteration: IterationStarted
    selected: NodeSelected
    node_added: Node
    node_evaluated: Node
    reflection: ReflectionAdded
    backpropagated: Backpropagated
    terminal: Node
    finished: RunResult
    setup_started: SetupStarted
    setup_finished: SetupFinished
    def __init__(self, run_id: _Optional[str] = ..., seq: _Optional[int] = ..., started: _Optional[_Union[RunStarted, _Mapping]] = ..., iteration: _Optional[_Union[IterationStarted, _Mapping]] = ..., selected: _Optional[_Union[NodeSelected, _Mapping]] = ..., node_added: _Optional[_Union[Node, _Mapping]] = ..., node_evaluated: _Optional[_Union[Node, _Mapping]] = ..., reflection: _Optional[_Union[ReflectionAdded, _Mapping]] = ..., backpropagated: _Optional[_Union[Backpropagated, _Mapping]] = ..., terminal: _Optional[_Union[Node, _Mapping]] = ..., finished: _Optional[_Union[RunResult, _Mapping]] = ..., setup_started: _Optional[_Union[SetupStarted, _Mapping]] = ..., setup_finished: _Optional[_Union[SetupFinished, _Mapping]] = ...) -> None: ...

class SetupStarted(_message.Message):
    __slots__ = ("option",)
    OPTION_FIELD_NUMBER: _ClassVar[int]
    option: str
    def __init__(self, option: _Optional[str] = ...) -> None: ...

class SetupFinished(_message.Message):
    __slots__ = ("option", "text", "seconds")
    OPTION_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    SECONDS_FIELD_NUMBER: _ClassVar[int]
    option: str
    text: str
    seconds: float
    def __init__(self, option: _Optional[str] = ..., text: _Optional[str] = ..., seconds: _Optional[float] = ...) -> None: ...

class RunStarted(_message.Message):
    __slots__ = ("task_id", "task", "config", "environment", "reward_mode", "second_term", "reset_info")
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    TASK_FIELD_NUMBER: _ClassVar[int]
    CONFIG_FIELD_NUMBER: _ClassVar[int]
    ENVIRONMENT_FIELD_NUMBER: _ClassVar[int]
    REWARD_MODE_FIELD_NUMBER: _ClassVar[int]
    SECOND_TERM_FIELD_NUMBER: _ClassVar[int]
    RESET_INFO_FIELD_NUMBER: _ClassVar[int]
    task_id: str
    task: str
    config: SearchConfig
    environment: str
    reward_mode: _environment_pb2.RewardMode
    second_term: str
    reset_info: _struct_pb2.Struct
    def __init__(self, task_id: _Optional[str] = ..., task: _Optional[str] = ..., config: _Optional[_Union[SearchConfig, _Mapping]] = ..., environment: _Optional[str] = ..., reward_mode: _Optional[_Union[_environment_pb2.RewardMode, str]] = ..., second_term: _Optional[str] = ..., reset_info: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ...) -> None: ...

class IterationStarted(_message.Message):
    __slots__ = ("iteration",)
    ITERATION_FIELD_NUMBER: _ClassVar[int]
    iteration: int
    def __init__(self, iteration: _Optional[int] = ...) -> None: ...

class NodeSelected(_message.Message):
    __slots__ = ("node_id", "iteration")
    NODE_ID_FIELD_NUMBER: _ClassVar[int]
    ITERATION_FIELD_NUMBER: _ClassVar[int]
    node_id: str
    iteration: int
    def __init__(self, node_id: _Optional[str] = ..., iteration: _Optional[int] = ...) -> None: ...

class ReflectionAdded(_message.Message):
    __slots__ = ("node_id", "text")
    NODE_ID_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    node_id: str
    text: str
    def __init__(self, node_id: _Optional[str] = ..., text: _Optional[str] = ...) -> None: ...

class Backpropagated(_message.Message):
    __slots__ = ("leaf_id", "reward", "path")
    LEAF_ID_FIELD_NUMBER: _ClassVar[int]
    REWARD_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    leaf_id: str
    reward: float
    path: _containers.RepeatedCompositeFieldContainer[Node]
    def __init__(self, leaf_id: _Optional[str] = ..., reward: _Optional[float] = ..., path: _Optional[_Iterable[_Union[Node, _Mapping]]] = ...) -> None: ...

class GetRunRequest(_message.Message):
    __slots__ = ("run_id",)
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    def __init__(self, run_id: _Optional[str] = ...) -> None: ...

class WatchRunRequest(_message.Message):
    __slots__ = ("run_id",)
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    def __init__(self, run_id: _Optional[str] = ...) -> None: ...

class ListRunsRequest(_message.Message):
    __slots__ = ("environment", "method", "statuses", "model", "task", "run_id_prefix", "page_size", "page_token", "include_facets")
    ENVIRONMENT_FIELD_NUMBER: _ClassVar[int]
    METHOD_FIELD_NUMBER: _ClassVar[int]
    STATUSES_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    TASK_FIELD_NUMBER: _ClassVar[int]
    RUN_ID_PREFIX_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_FACETS_FIELD_NUMBER: _ClassVar[int]
    environment: str
    method: str
    statuses: _containers.RepeatedScalarFieldContainer[RunStatus]
    model: str
    task: str
    run_id_prefix: str
    page_size: int
    page_token: str
    include_facets: bool
    def __init__(self, environment: _Optional[str] = ..., method: _Optional[str] = ..., statuses: _Optional[_Iterable[_Union[RunStatus, str]]] = ..., model: _Optional[str] = ..., task: _Optional[str] = ..., run_id_prefix: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., include_facets: _Optional[bool] = ...) -> None: ...

class ListRunsResponse(_message.Message):
    __slots__ = ("runs", "next_page_token", "facets")
    RUNS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    FACETS_FIELD_NUMBER: _ClassVar[int]
    runs: _containers.RepeatedCompositeFieldContainer[Run]
    next_page_token: str
    facets: RunFacets
    def __init__(self, runs: _Optional[_Iterable[_Union[Run, _Mapping]]] = ..., next_page_token: _Optional[str] = ..., facets: _Optional[_Union[RunFacets, _Mapping]] = ...) -> None: ...

class RunFacets(_message.Message):
    __slots__ = ("environments", "methods", "models")
    ENVIRONMENTS_FIELD_NUMBER: _ClassVar[int]
    METHODS_FIELD_NUMBER: _ClassVar[int]
    MODELS_FIELD_NUMBER: _ClassVar[int]
    environments: _containers.RepeatedScalarFieldContainer[str]
    methods: _containers.RepeatedScalarFieldContainer[str]
    models: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, environments: _Optional[_Iterable[str]] = ..., methods: _Optional[_Iterable[str]] = ..., models: _Optional[_Iterable[str]] = ...) -> None: ...

class RunUpdate(_message.Message):
    __slots__ = ("snapshot", "event")
    SNAPSHOT_FIELD_NUMBER: _ClassVar[int]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    snapshot: Run
    event: SearchEvent
    def __init__(self, snapshot: _Optional[_Union[Run, _Mapping]] = ..., event: _Optional[_Union[SearchEvent, _Mapping]] = ...) -> None: ...

class ReflectionNote(_message.Message):
    __slots__ = ("node_id", "text")
    NODE_ID_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    node_id: str
    text: str
    def __init__(self, node_id: _Optional[str] = ..., text: _Optional[str] = ...) -> None: ...

class Run(_message.Message):
    __slots__ = ("run_id", "status", "result", "nodes", "reflections", "task_id", "created_at", "owner", "heartbeat_at", "owner_address", "last_seq", "setup", "reflection_notes")
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    NODES_FIELD_NUMBER: _ClassVar[int]
    REFLECTIONS_FIELD_NUMBER: _ClassVar[int]
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    OWNER_FIELD_NUMBER: _ClassVar[int]
    HEARTBEAT_AT_FIELD_NUMBER: _ClassVar[int]
    OWNER_ADDRESS_FIELD_NUMBER: _ClassVar[int]
    LAST_SEQ_FIELD_NUMBER: _ClassVar[int]
    SETUP_FIELD_NUMBER: _ClassVar[int]
    REFLECTION_NOTES_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    status: RunStatus
    result: RunResult
    nodes: _containers.RepeatedCompositeFieldContainer[Node]
    reflections: _containers.RepeatedScalarFieldContainer[str]
    task_id: str
    created_at: str
    owner: str
    heartbeat_at: str
    owner_address: str
    last_seq: int
    setup: str
    reflection_notes: _containers.RepeatedCompositeFieldContainer[ReflectionNote]
    def __init__(self, run_id: _Optional[str] = ..., status: _Optional[_Union[RunStatus, str]] = ..., result: _Optional[_Union[RunResult, _Mapping]] = ..., nodes: _Optional[_Iterable[_Union[Node, _Mapping]]] = ..., reflections: _Optional[_Iterable[str]] = ..., task_id: _Optional[str] = ..., created_at: _Optional[str] = ..., owner: _Optional[str] = ..., heartbeat_at: _Optional[str] = ..., owner_address: _Optional[str] = ..., last_seq: _Optional[int] = ..., setup: _Optional[str] = ..., reflection_notes: _Optional[_Iterable[_Union[ReflectionNote, _Mapping]]] = ...) -> None: ...

class ModelCall(_message.Message):
    __slots__ = ("index", "purpose", "node_id", "key", "prompt", "completions", "actions", "temperature", "seed", "model")
    INDEX_FIELD_NUMBER: _ClassVar[int]
    PURPOSE_FIELD_NUMBER: _ClassVar[int]
    NODE_ID_FIELD_NUMBER: _ClassVar[int]
    KEY_FIELD_NUMBER: _ClassVar[int]
    PROMPT_FIELD_NUMBER: _ClassVar[int]
    COMPLETIONS_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    TEMPERATURE_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    index: int
    purpose: str
    node_id: str
    key: str
    prompt: _containers.RepeatedCompositeFieldContainer[_llm_pb2.ChatMessage]
    completions: _containers.RepeatedScalarFieldContainer[str]
    actions: _containers.RepeatedScalarFieldContainer[str]
    temperature: float
    seed: int
    model: str
    def __init__(self, index: _Optional[int] = ..., purpose: _Optional[str] = ..., node_id: _Optional[str] = ..., key: _Optional[str] = ..., prompt: _Optional[_Iterable[_Union[_llm_pb2.ChatMessage, _Mapping]]] = ..., completions: _Optional[_Iterable[str]] = ..., actions: _Optional[_Iterable[str]] = ..., temperature: _Optional[float] = ..., seed: _Optional[int] = ..., model: _Optional[str] = ...) -> None: ...
