from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class RewardMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    REWARD_MODE_UNSPECIFIED: _ClassVar[RewardMode]
    REWARD_MODE_NONE: _ClassVar[RewardMode]
    REWARD_MODE_ORACLE: _ClassVar[RewardMode]
    REWARD_MODE_HONEST: _ClassVar[RewardMode]
REWARD_MODE_UNSPECIFIED: RewardMode
REWARD_MODE_NONE: RewardMode
REWARD_MODE_ORACLE: RewardMode
REWARD_MODE_HONEST: RewardMode

class DescribeRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class DescribeResponse(_message.Message):
    __slots__ = ("name", "version", "description", "capabilities", "action_grammar", "reward_range", "limits", "prompt_pack", "splits", "facts", "reward_mode")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    CAPABILITIES_FIELD_NUMBER: _ClassVar[int]
    ACTION_GRAMMAR_FIELD_NUMBER: _ClassVar[int]
    REWARD_RANGE_FIELD_NUMBER: _ClassVar[int]
    LIMITS_FIELD_NUMBER: _ClassVar[int]
    PROMPT_PACK_FIELD_NUMBER: _ClassVar[int]
    SPLITS_FIELD_NUMBER: _ClassVar[int]
    FACTS_FIELD_NUMBER: _ClassVar[int]
    REWARD_MODE_FIELD_NUMBER: _ClassVar[int]
    name: str
    version: str
    description: str
    capabilities: Capabilities
    action_grammar: ActionGrammar
    reward_range: RewardRange
    limits: Limits
    prompt_pack: PromptPack
    splits: _containers.RepeatedScalarFieldContainer[str]
    facts: EnvironmentFacts
    reward_mode: RewardMode
    def __init__(self, name: _Optional[str] = ..., version: _Optional[str] = ..., description: _Optional[str] = ..., capabilities: _Optional[_Union[Capabilities, _Mapping]] = ..., action_grammar: _Optional[_Union[ActionGrammar, _Mapping]] = ..., reward_range: _Optional[_Union[RewardRange, _Mapping]] = ..., limits: _Optional[_Union[Limits, _Mapping]] = ..., prompt_pack: _Optional[_Union[PromptPack, _Mapping]] = ..., splits: _Optional[_Iterable[str]] = ..., facts: _Optional[_Union[EnvironmentFacts, _Mapping]] = ..., reward_mode: _Optional[_Union[RewardMode, str]] = ...) -> None: ...

class EnvironmentFacts(_message.Message):
    __slots__ = ("complete_answer_actions", "partial_credit_rewards", "answer_keys", "state_keys")
    COMPLETE_ANSWER_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    PARTIAL_CREDIT_REWARDS_FIELD_NUMBER: _ClassVar[int]
    ANSWER_KEYS_FIELD_NUMBER: _ClassVar[int]
    STATE_KEYS_FIELD_NUMBER: _ClassVar[int]
    complete_answer_actions: bool
    partial_credit_rewards: bool
    answer_keys: bool
    state_keys: bool
    def __init__(self, complete_answer_actions: _Optional[bool] = ..., partial_credit_rewards: _Optional[bool] = ..., answer_keys: _Optional[bool] = ..., state_keys: _Optional[bool] = ...) -> None: ...

class Capabilities(_message.Message):
    __slots__ = ("inline_tasks", "score")
    INLINE_TASKS_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    inline_tasks: bool
    score: bool
    def __init__(self, inline_tasks: _Optional[bool] = ..., score: _Optional[bool] = ...) -> None: ...

class ActionGrammar(_message.Message):
    __slots__ = ("description", "examples", "pattern")
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    EXAMPLES_FIELD_NUMBER: _ClassVar[int]
    PATTERN_FIELD_NUMBER: _ClassVar[int]
    description: str
    examples: _containers.RepeatedScalarFieldContainer[str]
    pattern: str
    def __init__(self, description: _Optional[str] = ..., examples: _Optional[_Iterable[str]] = ..., pattern: _Optional[str] = ...) -> None: ...

class RewardRange(_message.Message):
    __slots__ = ("min", "max", "success_threshold")
    MIN_FIELD_NUMBER: _ClassVar[int]
    MAX_FIELD_NUMBER: _ClassVar[int]
    SUCCESS_THRESHOLD_FIELD_NUMBER: _ClassVar[int]
    min: float
    max: float
    success_threshold: float
    def __init__(self, min: _Optional[float] = ..., max: _Optional[float] = ..., success_threshold: _Optional[float] = ...) -> None: ...

class Limits(_message.Message):
    __slots__ = ("max_steps", "max_action_bytes", "max_batch_actions", "max_option_bytes")
    MAX_STEPS_FIELD_NUMBER: _ClassVar[int]
    MAX_ACTION_BYTES_FIELD_NUMBER: _ClassVar[int]
    MAX_BATCH_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    MAX_OPTION_BYTES_FIELD_NUMBER: _ClassVar[int]
    max_steps: int
    max_action_bytes: int
    max_batch_actions: int
    max_option_bytes: int
    def __init__(self, max_steps: _Optional[int] = ..., max_action_bytes: _Optional[int] = ..., max_batch_actions: _Optional[int] = ..., max_option_bytes: _Optional[int] = ...) -> None: ...

class ChatTurn(_message.Message):
    __slots__ = ("role", "content")
    ROLE_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    role: str
    content: str
    def __init__(self, role: _Optional[str] = ..., content: _Optional[str] = ...) -> None: ...

class PromptPack(_message.Message):
    __slots__ = ("instructions", "examples", "act_template", "value_template", "reflect_template", "step_template", "reflection_template", "reflections_header", "value_examples", "act_stop", "value_stop", "value_pattern", "value_min", "value_max", "act_max_tokens", "value_max_tokens", "reflect_max_tokens", "action_prefix_pattern", "setup_template", "setup_option_key", "setup_max_tokens", "variables", "search_hints", "setup_stop", "reflect_stop", "paper_search_hints", "act_turns", "value_turns", "reflect_turns", "observation_turn", "compare_template", "compare_turns", "compare_pattern", "compare_stop", "compare_max_tokens")
    class VariablesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    INSTRUCTIONS_FIELD_NUMBER: _ClassVar[int]
    EXAMPLES_FIELD_NUMBER: _ClassVar[int]
    ACT_TEMPLATE_FIELD_NUMBER: _ClassVar[int]
    VALUE_TEMPLATE_FIELD_NUMBER: _ClassVar[int]
    REFLECT_TEMPLATE_FIELD_NUMBER: _ClassVar[int]
    STEP_TEMPLATE_FIELD_NUMBER: _ClassVar[int]
    REFLECTION_TEMPLATE_FIELD_NUMBER: _ClassVar[int]
    REFLECTIONS_HEADER_FIELD_NUMBER: _ClassVar[int]
    VALUE_EXAMPLES_FIELD_NUMBER: _ClassVar[int]
    ACT_STOP_FIELD_NUMBER: _ClassVar[int]
    VALUE_STOP_FIELD_NUMBER: _ClassVar[int]
    VALUE_PATTERN_FIELD_NUMBER: _ClassVar[int]
    VALUE_MIN_FIELD_NUMBER: _ClassVar[int]
    VALUE_MAX_FIELD_NUMBER: _ClassVar[int]
    ACT_MAX_TOKENS_FIELD_NUMBER: _ClassVar[int]
    VALUE_MAX_TOKENS_FIELD_NUMBER: _ClassVar[int]
    REFLECT_MAX_TOKENS_FIELD_NUMBER: _ClassVar[int]
    ACTION_PREFIX_PATTERN_FIELD_NUMBER: _ClassVar[int]
    SETUP_TEMPLATE_FIELD_NUMBER: _ClassVar[int]
    SETUP_OPTION_KEY_FIELD_NUMBER: _ClassVar[int]
    SETUP_MAX_TOKENS_FIELD_NUMBER: _ClassVar[int]
    VARIABLES_FIELD_NUMBER: _ClassVar[int]
    SEARCH_HINTS_FIELD_NUMBER: _ClassVar[int]
    SETUP_STOP_FIELD_NUMBER: _ClassVar[int]
    REFLECT_STOP_FIELD_NUMBER: _ClassVar[int]
    PAPER_SEARCH_HINTS_FIELD_NUMBER: _ClassVar[int]
    ACT_TURNS_FIELD_NUMBER: _ClassVar[int]
    VALUE_TURNS_FIELD_NUMBER: _ClassVar[int]
    REFLECT_TURNS_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_TURN_FIELD_NUMBER: _ClassVar[int]
    COMPARE_TEMPLATE_FIELD_NUMBER: _ClassVar[int]
    COMPARE_TURNS_FIELD_NUMBER: _ClassVar[int]
    COMPARE_PATTERN_FIELD_NUMBER: _ClassVar[int]
    COMPARE_STOP_FIELD_NUMBER: _ClassVar[int]
    COMPARE_MAX_TOKENS_FIELD_NUMBER: _ClassVar[int]
    instructions: str
    examples: str
    act_template: str
    value_template: str
    reflect_template: str
    step_template: str
    reflection_template: str
    reflections_header: str
    value_examples: str
    act_stop: _containers.RepeatedScalarFieldContainer[str]
    value_stop: _containers.RepeatedScalarFieldContainer[str]
    value_pattern: str
    value_min: float
    value_max: float
    act_max_tokens: int
    value_max_tokens: int
    reflect_max_tokens: int
    action_prefix_pattern: str
    setup_template: str
    setup_option_key: str
    setup_max_tokens: int
    variables: _containers.ScalarMap[str, str]
    search_hints: SearchHints
    setup_stop: _containers.RepeatedScalarFieldContainer[str]
    reflect_stop: _containers.RepeatedScalarFieldContainer[str]
    paper_search_hints: SearchHints
    act_turns: _containers.RepeatedCompositeFieldContainer[ChatTurn]
    value_turns: _containers.RepeatedCompositeFieldContainer[ChatTurn]
    reflect_turns: _containers.RepeatedCompositeFieldContainer[ChatTurn]
    observation_turn: str
    compare_template: str
    compare_turns: _containers.RepeatedCompositeFieldContainer[ChatTurn]
    compare_pattern: str
    compare_stop: _containers.RepeatedScalarFieldContainer[str]
    compare_max_tokens: int
    def __init__(self, instructions: _Optional[str] = ..., examples: _Optional[str] = ..., act_template: _Optional[str] = ..., value_template: _Optional[str] = ..., reflect_template: _Optional[str] = ..., step_template: _Optional[str] = ..., reflection_template: _Optional[str] = ..., reflections_header: _Optional[str] = ..., value_examples: _Optional[str] = ..., act_stop: _Optional[_Iterable[str]] = ..., value_stop: _Optional[_Iterable[str]] = ..., value_pattern: _Optional[str] = ..., value_min: _Optional[float] = ..., value_max: _Optional[float] = ..., act_max_tokens: _Optional[int] = ..., value_max_tokens: _Optional[int] = ..., reflect_max_tokens: _Optional[int] = ..., action_prefix_pattern: _Optional[str] = ..., setup_template: _Optional[str] = ..., setup_option_key: _Optional[str] = ..., setup_max_tokens: _Optional[int] = ..., variables: _Optional[_Mapping[str, str]] = ..., search_hints: _Optional[_Union[SearchHints, _Mapping]] = ..., setup_stop: _Optional[_Iterable[str]] = ..., reflect_stop: _Optional[_Iterable[str]] = ..., paper_search_hints: _Optional[_Union[SearchHints, _Mapping]] = ..., act_turns: _Optional[_Iterable[_Union[ChatTurn, _Mapping]]] = ..., value_turns: _Optional[_Iterable[_Union[ChatTurn, _Mapping]]] = ..., reflect_turns: _Optional[_Iterable[_Union[ChatTurn, _Mapping]]] = ..., observation_turn: _Optional[str] = ..., compare_template: _Optional[str] = ..., compare_turns: _Optional[_Iterable[_Union[ChatTurn, _Mapping]]] = ..., compare_pattern: _Optional[str] = ..., compare_stop: _Optional[_Iterable[str]] = ..., compare_max_tokens: _Optional[int] = ...) -> None: ...

class SearchHints(_message.Message):
    __slots__ = ("max_depth", "n_samples", "iterations", "simulate", "root_samples", "reflect_each_failure", "reward_in_value", "value_weight", "temperature", "reflection", "widening", "stop_class_size", "unrefined_failures", "wider_prior", "deeper_prior", "prior_strength", "prune_loops")
    MAX_DEPTH_FIELD_NUMBER: _ClassVar[int]
    N_SAMPLES_FIELD_NUMBER: _ClassVar[int]
    ITERATIONS_FIELD_NUMBER: _ClassVar[int]
    SIMULATE_FIELD_NUMBER: _ClassVar[int]
    ROOT_SAMPLES_FIELD_NUMBER: _ClassVar[int]
    REFLECT_EACH_FAILURE_FIELD_NUMBER: _ClassVar[int]
    REWARD_IN_VALUE_FIELD_NUMBER: _ClassVar[int]
    VALUE_WEIGHT_FIELD_NUMBER: _ClassVar[int]
    TEMPERATURE_FIELD_NUMBER: _ClassVar[int]
    REFLECTION_FIELD_NUMBER: _ClassVar[int]
    WIDENING_FIELD_NUMBER: _ClassVar[int]
    STOP_CLASS_SIZE_FIELD_NUMBER: _ClassVar[int]
    UNREFINED_FAILURES_FIELD_NUMBER: _ClassVar[int]
    WIDER_PRIOR_FIELD_NUMBER: _ClassVar[int]
    DEEPER_PRIOR_FIELD_NUMBER: _ClassVar[int]
    PRIOR_STRENGTH_FIELD_NUMBER: _ClassVar[int]
    PRUNE_LOOPS_FIELD_NUMBER: _ClassVar[int]
    max_depth: int
    n_samples: int
    iterations: int
    simulate: bool
    root_samples: int
    reflect_each_failure: bool
    reward_in_value: bool
    value_weight: float
    temperature: float
    reflection: bool
    widening: float
    stop_class_size: int
    unrefined_failures: _containers.RepeatedScalarFieldContainer[str]
    wider_prior: float
    deeper_prior: float
    prior_strength: float
    prune_loops: bool
    def __init__(self, max_depth: _Optional[int] = ..., n_samples: _Optional[int] = ..., iterations: _Optional[int] = ..., simulate: _Optional[bool] = ..., root_samples: _Optional[int] = ..., reflect_each_failure: _Optional[bool] = ..., reward_in_value: _Optional[bool] = ..., value_weight: _Optional[float] = ..., temperature: _Optional[float] = ..., reflection: _Optional[bool] = ..., widening: _Optional[float] = ..., stop_class_size: _Optional[int] = ..., unrefined_failures: _Optional[_Iterable[str]] = ..., wider_prior: _Optional[float] = ..., deeper_prior: _Optional[float] = ..., prior_strength: _Optional[float] = ..., prune_loops: _Optional[bool] = ...) -> None: ...

class ListTasksRequest(_message.Message):
    __slots__ = ("split", "page_size", "page_token")
    SPLIT_FIELD_NUMBER: _ClassVar[int]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    split: str
    page_size: int
    page_token: str
    def __init__(self, split: _Optional[str] = ..., page_size: _Optional[int] = ..., page_token: _Optional[str] = ...) -> None: ...

class ListTasksResponse(_message.Message):
    __slots__ = ("task_ids", "next_page_token", "total")
    TASK_IDS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    task_ids: _containers.RepeatedScalarFieldContainer[str]
    next_page_token: str
    total: int
    def __init__(self, task_ids: _Optional[_Iterable[str]] = ..., next_page_token: _Optional[str] = ..., total: _Optional[int] = ...) -> None: ...

class Snapshot(_message.Message):
    __slots__ = ("blob", "replay")
    BLOB_FIELD_NUMBER: _ClassVar[int]
    REPLAY_FIELD_NUMBER: _ClassVar[int]
    blob: bytes
    replay: Replay
    def __init__(self, blob: _Optional[bytes] = ..., replay: _Optional[_Union[Replay, _Mapping]] = ...) -> None: ...

class Replay(_message.Message):
    __slots__ = ("reset", "actions")
    RESET_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    reset: ResetRequest
    actions: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, reset: _Optional[_Union[ResetRequest, _Mapping]] = ..., actions: _Optional[_Iterable[str]] = ...) -> None: ...

class ResetRequest(_message.Message):
    __slots__ = ("task_id", "inline_task", "seed", "options")
    class OptionsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    INLINE_TASK_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    task_id: str
    inline_task: _struct_pb2.Struct
    seed: int
    options: _containers.ScalarMap[str, str]
    def __init__(self, task_id: _Optional[str] = ..., inline_task: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., seed: _Optional[int] = ..., options: _Optional[_Mapping[str, str]] = ...) -> None: ...

class ResetResponse(_message.Message):
    __slots__ = ("observation", "task_id", "info", "snapshot", "state_key")
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    INFO_FIELD_NUMBER: _ClassVar[int]
    SNAPSHOT_FIELD_NUMBER: _ClassVar[int]
    STATE_KEY_FIELD_NUMBER: _ClassVar[int]
    observation: str
    task_id: str
    info: _struct_pb2.Struct
    snapshot: Snapshot
    state_key: str
    def __init__(self, observation: _Optional[str] = ..., task_id: _Optional[str] = ..., info: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., snapshot: _Optional[_Union[Snapshot, _Mapping]] = ..., state_key: _Optional[str] = ...) -> None: ...

class StepRequest(_message.Message):
    __slots__ = ("snapshot", "actions")
    SNAPSHOT_FIELD_NUMBER: _ClassVar[int]
    ACTIONS_FIELD_NUMBER: _ClassVar[int]
    snapshot: Snapshot
    actions: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, snapshot: _Optional[_Union[Snapshot, _Mapping]] = ..., actions: _Optional[_Iterable[str]] = ...) -> None: ...

class StepResponse(_message.Message):
    __slots__ = ("results",)
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    results: _containers.RepeatedCompositeFieldContainer[StepResult]
    def __init__(self, results: _Optional[_Iterable[_Union[StepResult, _Mapping]]] = ...) -> None: ...

class StepResult(_message.Message):
    __slots__ = ("observation", "reward", "terminated", "truncated", "invalid_action", "info", "steps", "answer_key", "snapshot", "state_key", "answer_facets", "failure_kind")
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    REWARD_FIELD_NUMBER: _ClassVar[int]
    TERMINATED_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    INVALID_ACTION_FIELD_NUMBER: _ClassVar[int]
    INFO_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    ANSWER_KEY_FIELD_NUMBER: _ClassVar[int]
    SNAPSHOT_FIELD_NUMBER: _ClassVar[int]
    STATE_KEY_FIELD_NUMBER: _ClassVar[int]
    ANSWER_FACETS_FIELD_NUMBER: _ClassVar[int]
    FAILURE_KIND_FIELD_NUMBER: _ClassVar[int]
    observation: str
    reward: float
    terminated: bool
    truncated: bool
    invalid_action: bool
    info: _struct_pb2.Struct
    steps: int
    answer_key: str
    snapshot: Snapshot
    state_key: str
    answer_facets: _containers.RepeatedCompositeFieldContainer[AnswerFacet]
    failure_kind: str
    def __init__(self, observation: _Optional[str] = ..., reward: _Optional[float] = ..., terminated: _Optional[bool] = ..., truncated: _Optional[bool] = ..., invalid_action: _Optional[bool] = ..., info: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., steps: _Optional[int] = ..., answer_key: _Optional[str] = ..., snapshot: _Optional[_Union[Snapshot, _Mapping]] = ..., state_key: _Optional[str] = ..., answer_facets: _Optional[_Iterable[_Union[AnswerFacet, _Mapping]]] = ..., failure_kind: _Optional[str] = ...) -> None: ...

class AnswerFacet(_message.Message):
    __slots__ = ("name", "value")
    NAME_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    name: str
    value: str
    def __init__(self, name: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...

class ScoreRequest(_message.Message):
    __slots__ = ("snapshot",)
    SNAPSHOT_FIELD_NUMBER: _ClassVar[int]
    snapshot: Snapshot
    def __init__(self, snapshot: _Optional[_Union[Snapshot, _Mapping]] = ...) -> None: ...

class ScoreResponse(_message.Message):
    __slots__ = ("score", "success", "metrics", "details")
    class MetricsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: float
        def __init__(self, key: _Optional[str] = ..., value: _Optional[float] = ...) -> None: ...
    SCORE_FIELD_NUMBER: _ClassVar[int]
    SUCCESS_FIELD_NUMBER: _ClassVar[int]
    METRICS_FIELD_NUMBER: _ClassVar[int]
    DETAILS_FIELD_NUMBER: _ClassVar[int]
    score: float
    success: bool
    metrics: _containers.ScalarMap[str, float]
    details: str
    def __init__(self, score: _Optional[float] = ..., success: _Optional[bool] = ..., metrics: _Optional[_Mapping[str, float]] = ..., details: _Optional[str] = ...) -> None: ...
