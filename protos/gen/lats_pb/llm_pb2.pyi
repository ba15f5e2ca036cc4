from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class FinishReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FINISH_REASON_UNSPECIFIED: _ClassVar[FinishReason]
    FINISH_REASON_STOP: _ClassVar[FinishReason]
    FINISH_REASON_LENGTH: _ClassVar[FinishReason]
    FINISH_REASON_FILTERED: _ClassVar[FinishReason]
FINISH_REASON_UNSPECIFIED: FinishReason
FINISH_REASON_STOP: FinishReason
FINISH_REASON_LENGTH: FinishReason
FINISH_REASON_FILTERED: FinishReason

class ChatMessage(_message.Message):
    __slots__ = ("role", "content")
    ROLE_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    role: str
    content: str
    def __init__(self, role: _Optional[str] = ..., content: _Optional[str] = ...) -> None: ...

class GenerateRequest(_message.Message):
    __slots__ = ("messages", "n", "temperature", "stop", "max_tokens", "seed", "model", "run_id", "budget", "purpose", "top_p")
    MESSAGES_FIELD_NUMBER: _ClassVar[int]
    N_FIELD_NUMBER: _ClassVar[int]
    TEMPERATURE_FIELD_NUMBER: _ClassVar[int]
    STOP_FIELD_NUMBER: _ClassVar[int]
    MAX_TOKENS_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    BUDGET_FIELD_NUMBER: _ClassVar[int]
    PURPOSE_FIELD_NUMBER: _ClassVar[int]
    TOP_P_FIELD_NUMBER: _ClassVar[int]
    messages: _containers.RepeatedCompositeFieldContainer[ChatMessage]
    n: int
    temperature: float
    stop: _containers.RepeatedScalarFieldContainer[str]
    max_tokens: int
    seed: int
    model: str
    run_id: str
    budget: Budget
    purpose: str
    top_p: float
    def __init__(self, messages: _Optional[_Iterable[_Union[ChatMessage, _Mapping]]] = ..., n: _Optional[int] = ..., temperature: _Optional[float] = ..., stop: _Optional[_Iterable[str]] = ..., max_tokens: _Optional[int] = ..., seed: _Optional[int] = ..., model: _Optional[str] = ..., run_id: _Optional[str] = ..., budget: _Optional[_Union[Budget, _Mapping]] = ..., purpose: _Optional[str] = ..., top_p: _Optional[float] = ...) -> None: ...

class Budget(_message.Message):
    __slots__ = ("max_calls", "max_total_tokens")
    MAX_CALLS_FIELD_NUMBER: _ClassVar[int]
    MAX_TOTAL_TOKENS_FIELD_NUMBER: _ClassVar[int]
    max_calls: int
    max_total_tokens: int
    def __init__(self, max_calls: _Optional[int] = ..., max_total_tokens: _Optional[int] = ...) -> None: ...

class Choice(_message.Message):
    __slots__ = ("text", "finish_reason")
    TEXT_FIELD_NUMBER: _ClassVar[int]
    FINISH_REASON_FIELD_NUMBER: _ClassVar[int]
    text: str
    finish_reason: FinishReason
    def __init__(self, text: _Optional[str] = ..., finish_reason: _Optional[_Union[FinishReason, str]] = ...) -> None: ...

class Usage(_message.Message):
    __slots__ = ("calls", "prompt_tokens", "completion_tokens", "cached_prompt_tokens", "draft_tokens", "draft_accepted_tokens")
    CALLS_FIELD_NUMBER: _ClassVar[int]
    PROMPT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    COMPLETION_TOKENS_FIELD_NUMBER: _ClassVar[int]
    CACHED_PROMPT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    DRAFT_TOKENS_FIELD_NUMBER: _ClassVar[int]
    DRAFT_ACCEPTED_TOKENS_FIELD_NUMBER: _ClassVar[int]
    calls: int
    prompt_tokens: int
    completion_tokens: int
    cached_prompt_tokens: int
    draft_tokens: int
    draft_accepted_tokens: int
    def __init__(self, calls: _Optional[int] = ..., prompt_tokens: _Optional[int] = ..., completion_tokens: _Optional[int] = ..., cached_prompt_tokens: _Optional[int] = ..., draft_tokens: _Optional[int] = ..., draft_accepted_tokens: _Optional[int] = ...) -> None: ...

class GenerateResponse(_message.Message):
    __slots__ = ("choices", "usage", "model", "backend", "run_usage")
    CHOICES_FIELD_NUMBER: _ClassVar[int]
    USAGE_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    BACKEND_FIELD_NUMBER: _ClassVar[int]
    RUN_USAGE_FIELD_NUMBER: _ClassVar[int]
    choices: _containers.RepeatedCompositeFieldContainer[Choice]
    usage: Usage
    model: str
    backend: str
    run_usage: Usage
    def __init__(self, choices: _Optional[_Iterable[_Union[Choice, _Mapping]]] = ..., usage: _Optional[_Union[Usage, _Mapping]] = ..., model: _Optional[str] = ..., backend: _Optional[str] = ..., run_usage: _Optional[_Union[Usage, _Mapping]] = ...) -> None: ...

class GetUsageRequest(_message.Message):
    __slots__ = ("run_id",)
    RUN_ID_FIELD_NUMBER: _ClassVar[int]
    run_id: str
    def __init__(self, run_id: _Optional[str] = ...) -> None: ...

class GetUsageResponse(_message.Message):
    __slots__ = ("usage",)
    USAGE_FIELD_NUMBER: _ClassVar[int]
    usage: Usage
    def __init__(self, usage: _Optional[_Union[Usage, _Mapping]] = ...) -> None: ...

class DescribeBackendRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class DescribeBackendResponse(_message.Message):
    __slots__ = ("backend", "model", "max_concurrency", "max_samples")
    BACKEND_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    MAX_CONCURRENCY_FIELD_NUMBER: _ClassVar[int]
    MAX_SAMPLES_FIELD_NUMBER: _ClassVar[int]
    backend: str
    model: str
    max_concurrency: int
    max_samples: int
    def __init__(self, backend: _Optional[str] = ..., model: _Optional[str] = ..., max_concurrency: _Optional[int] = ..., max_samples: _Optional[int] = ...) -> None: ...
