"""The warm worker that runs inside one sandbox (standard library only, Python >= 3.9).

It is started once per sandbox slot and serves runs one at a time over its
stdin/stdout: each frame is a 4-byte big-endian length and a JSON object. The
plain-data codec (plain_data.py) is prepended to this source.

Two designs, chosen with --design:

split (the secure backends). The worker is a supervisor that never reads a
request: for every run it forks a judge from its pristine state, and the judge
forks the candidate process before it reads anything, so no process ever holds
data of an earlier run. The judge reads the request from the channel, sends the
program to the candidate, and runs the tests itself; each test reaches the
program through a call proxy, arguments going to the candidate and the return
value coming back as plain data (anything else fails that test). The verdict
is computed only in the judge, which the candidate cannot read or patch: the
supervisor is non-dumpable (its forks inherit that), ignores every catchable
signal, and with --seccomp loads a filter, inherited by judge and candidate,
that denies ptrace, process_vm_readv/writev, perf_event_open, bpf, keyctl,
mount, unshare, setns, namespace-creating clone, kexec and the like. The judge
replies to the host itself; when it ends without replying (the program killed
it) the supervisor sends {"lost": true}. After every run the supervisor kills
everything left (it is PID 1 of its PID namespace, or a subreaper) and wipes the
writable directories.

shared (the insecure control, and the old design kept for comparison). Per
run the worker forks one child that runs the program and then the tests in the
program's own process, streaming records tagged with the run's nonce; a program
that inspects or patches its interpreter can forge its verdict.

Command line: --work DIR (the run's working directory, made fresh per run),
--wipe DIR (repeatable; contents removed after each run; DIR itself kept),
--design split|shared (default split), --seccomp (split: load the filter, or
refuse to start if python3-seccomp is missing).
"""

import ast
import bisect  # noqa: F401  (warm: see below)
import builtins
import collections  # noqa: F401
import ctypes
import errno
import functools  # noqa: F401
import gc
import heapq  # noqa: F401
import itertools  # noqa: F401
import json
import math  # noqa: F401
import os
import random
import re  # noqa: F401
import resource
import select
import selectors
import shutil
import signal
import _signal
import stat
import string  # noqa: F401
import struct
import sys
import time
import traceback
import types
import typing  # noqa: F401

try:  # in the sandbox, plain_data.py is prepended to this source (see channel.worker_source)
    NotPlainData
except NameError:  # imported on the host, e.g. by tests
    from env_servers.sandbox.plain_data import _ENCODER, NotPlainData, _plain, _plain_json, from_json, to_json

# The modules marked F401 are imported only to warm them: model-written programs
# import them most, and a run's child then gets them for free. They are state of
# the pristine worker, shared read-only, not of any run.

HEADER = struct.Struct(">I")
MAX_REQUEST_BYTES = 64 << 20
MAX_RECORD_BYTES = 1 << 20
MAX_CANDIDATE_FRAME_BYTES = 16 << 20
MAX_NAMES = 10000
DETAIL_CHARS = 1000
TRACEBACK_CHARS = 4000
MODULE_NAME = "__solution__"
PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36
EXIT_REPLIED = 0  # the judge sent its reply
EXIT_CHANNEL_CLOSED = 3  # the host closed the channel: the worker ends
LIMIT_NAMES = ("wall_seconds", "cpu_seconds", "memory_bytes", "max_processes", "max_output_bytes", "max_file_bytes")
ALARM_MARGIN = 0.25  # the judge's own alarm fires this long after the run's deadline


LIBC = ctypes.CDLL(None, use_errno=True)  # made once here, used by every fork
CANDIDATE_UID = None  # --candidate-uid: the uid the candidate switches to (set once, at startup)
CAP_KILL = 5


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def keep_only_kill():
    """Drop every capability but CAP_KILL (the judge must end the candidate, which has another uid)."""
    header = _CapHeader(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3
    data = (_CapData * 2)()
    data[0].effective = data[0].permitted = 1 << CAP_KILL
    if LIBC.capset(ctypes.byref(header), data) != 0:
        raise OSError(ctypes.get_errno(), "capset failed")


def become_candidate_uid():
    """The candidate's first act when it has a uid of its own: switch to it, losing every capability."""
    os.setgroups([])
    os.setresgid(CANDIDATE_UID, CANDIDATE_UID, CANDIDATE_UID)
    os.setresuid(CANDIDATE_UID, CANDIDATE_UID, CANDIDATE_UID)


def read_exactly(fd, size):
    chunks = []
    while size:
        chunk = os.read(fd, min(size, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def receive(fd, limit=MAX_REQUEST_BYTES):
    header = read_exactly(fd, HEADER.size)
    if header is None:
        return None
    (size,) = HEADER.unpack(header)
    if size > limit:
        raise ValueError("request frame too large")
    body = read_exactly(fd, size)
    return None if body is None else json.loads(body)


def write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def send(fd, message):
    body = json.dumps(message).encode()
    write_all(fd, HEADER.pack(len(body)) + body)


# ---------------------------------------------------------------- tests (both designs)


def safe_repr(value):
    try:
        text = repr(value)
    except BaseException as error:  # a hostile __repr__
        text = "<repr failed: %s>" % type(error).__name__
    return text if len(text) <= DETAIL_CHARS else text[:DETAIL_CHARS] + "..."


def describe(error):
    try:
        message = str(error)
    except BaseException:
        message = ""
    text = type(error).__name__ + (": " + message if message else "")
    return text if len(text) <= DETAIL_CHARS else text[:DETAIL_CHARS] + "..."


class RunTimeUp(BaseException):
    """The run's wall-clock limit passed (split design: raised in the judge)."""


class CandidateGone(BaseException):
    """The candidate process ended or broke the judge protocol; the message says which."""


class Unjudgeable(BaseException):
    """A value that cannot cross between candidate and judge; fails the test that met it.

    A BaseException, so a test's own `except Exception` cannot turn it into a pass.
    """


ACTUAL = "__sandbox_actual__"
HOLDS = "__sandbox_holds__"


def split_assert(node):
    """Turn `assert L op R` into `ACTUAL = L; HOLDS = ACTUAL op R`; any other assert sets both to its test."""
    test = node.test
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        compare = ast.Compare(
            left=ast.Name(id=ACTUAL, ctx=ast.Load()), ops=test.ops, comparators=test.comparators
        )
        body = [
            ast.Assign(targets=[ast.Name(id=ACTUAL, ctx=ast.Store())], value=test.left),
            ast.Assign(targets=[ast.Name(id=HOLDS, ctx=ast.Store())], value=compare),
        ]
    else:
        body = [
            ast.Assign(targets=[ast.Name(id=ACTUAL, ctx=ast.Store())], value=test),
            ast.Assign(
                targets=[ast.Name(id=HOLDS, ctx=ast.Store())], value=ast.Name(id=ACTUAL, ctx=ast.Load())
            ),
        ]
    for statement in body:
        ast.copy_location(statement, node)
    return ast.fix_missing_locations(ast.Module(body=body, type_ignores=[]))


def run_test(source, program_namespace):
    """Run one test in a copy of the program's namespace; return (passed, detail, memory).

    A single `assert` reports the value of its left operand (or of its whole
    expression) when it fails, as "# output: <repr>"; any other block passes
    if it runs without raising.
    """
    namespace = dict(program_namespace)
    try:
        tree = ast.parse(source, "<test>", "exec")
        if len(tree.body) == 1 and isinstance(tree.body[0], ast.Assert):
            exec(compile(split_assert(tree.body[0]), "<test>", "exec"), namespace)
            if namespace[HOLDS]:
                return True, "", False
            return False, "# output: " + safe_repr(namespace[ACTUAL]), False
        exec(compile(tree, "<test>", "exec"), namespace)
        return True, "", False
    except (RunTimeUp, CandidateGone):
        raise
    except MemoryError:
        return False, "MemoryError: the memory limit was exceeded", True
    except Unjudgeable as error:
        return False, str(error), False
    except BaseException as error:
        return False, describe(error), False


# ---------------------------------------------------------------- shared design: the run's child


def program_traceback(error):
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == "<program>"]
    lines = traceback.format_list(frames) + traceback.format_exception_only(type(error), error)
    text = "Traceback (most recent call last):\n" + "".join(lines)
    return text if len(text) <= TRACEBACK_CHARS else "..." + text[-TRACEBACK_CHARS:]


def set_limits(limits):
    def cap(kind, value):
        try:
            resource.setrlimit(kind, (value, value))
        except (ValueError, OSError):
            soft, hard = resource.getrlimit(kind)
            if hard != resource.RLIM_INFINITY and value > hard:
                resource.setrlimit(kind, (hard, hard))

    cpu = max(1, int(limits["cpu_seconds"]))
    soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
    resource.setrlimit(
        resource.RLIMIT_CPU, (cpu, cpu + 1 if hard == resource.RLIM_INFINITY else min(cpu + 1, hard))
    )
    cap(resource.RLIMIT_AS, int(limits["memory_bytes"]))
    cap(resource.RLIMIT_NPROC, int(limits["max_processes"]))
    cap(resource.RLIMIT_FSIZE, int(limits["max_file_bytes"]))
    cap(resource.RLIMIT_NOFILE, 64)
    cap(resource.RLIMIT_CORE, 0)


def child_main(request, work_dir, result_fd, out_fd, err_fd):
    """Runs in the forked child: never returns."""
    write, dumps, exit_now = os.write, json.dumps, os._exit
    nonce = request.pop("nonce")

    def record(message):
        message["nonce"] = nonce  # the host ignores records without it
        data = (dumps(message) + "\n").encode()
        while data:
            data = data[write(result_fd, data) :]

    try:
        os.setsid()
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(out_fd, 1)
        os.dup2(err_fd, 2)
        keep = sorted({0, 1, 2, result_fd})
        for low, high in zip(keep, keep[1:] + [1 << 16]):
            if high > low + 1:
                os.closerange(low + 1, high)
        os.chdir(work_dir)
        os.umask(0o077)
        for stream in (sys.stdout, sys.stderr):  # pristine: the worker never writes to them
            stream.reconfigure(line_buffering=True)
        sys.argv = [MODULE_NAME]
        set_limits(request["limits"])
        gc.enable()
        random.seed(0)  # every run the same random state (fork re-seeds from the OS)
    except BaseException as error:
        try:
            record({"setup_error": describe(error)})
        finally:
            exit_now(70)

    module = types.ModuleType(MODULE_NAME)
    sys.modules[MODULE_NAME] = module
    namespace = module.__dict__
    try:
        code = compile(request["program"], "<program>", "exec")
        exec(code, namespace)
    except (SyntaxError, ValueError, RecursionError, OverflowError) as error:
        if "code" in locals():  # raised by the program, not by the compiler
            record({"program": "error", "detail": program_traceback(error)})
        else:
            detail = "".join(traceback.format_exception_only(type(error), error))
            record({"program": "syntax_error", "detail": detail})
        record({"done": True})
        exit_now(0)
    except MemoryError:
        record({"program": "memory", "detail": "MemoryError: the memory limit was exceeded"})
        record({"done": True})
        exit_now(0)
    except BaseException as error:
        record({"program": "error", "detail": program_traceback(error)})
        record({"done": True})
        exit_now(0)
    record({"program": "ok"})
    for index, source in enumerate(request["tests"]):
        passed, detail, memory = run_test(source, namespace)
        record({"test": index, "passed": passed, "detail": detail, "memory": memory})
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass
    record({"done": True})
    exit_now(0)


# ---------------------------------------------------------------- split design: the candidate


def restore_default_signals():
    """Undo the supervisor's ignoring: back to what a fresh Python interpreter has."""
    for number in IGNORED_NUMBERS:  # _signal, not signal: no enum work in every fork
        _signal.signal(number, _signal.SIG_DFL)
    _signal.signal(int(signal.SIGINT), _signal.default_int_handler)
    _signal.signal(int(signal.SIGPIPE), _signal.SIG_IGN)
    _signal.signal(int(signal.SIGXFSZ), _signal.SIG_IGN)


def candidate_frame(fd):
    """One frame from the judge, decoded as plain data (None when the judge is gone)."""
    header = read_exactly(fd, HEADER.size)
    if header is None:
        return None
    body = read_exactly(fd, HEADER.unpack(header)[0])
    return None if body is None else from_json(body)


def reply_to_judge(fd, message):
    """Send a message already made of plain data (see plain_data._plain)."""
    body = _ENCODER.encode(message).encode()
    write_all(fd, HEADER.pack(len(body)) + body)


def describe_names(namespace):
    """[name, kind, payload] for each top-level name the tests may use (dunder names excluded)."""
    described = []
    for name, value in list(namespace.items())[:MAX_NAMES]:
        if not isinstance(name, str) or name.startswith("__"):
            continue
        try:
            if isinstance(value, types.ModuleType):
                described.append([name, "module", str(value.__name__)])
            elif callable(value):
                described.append([name, "callable", None])
            else:
                described.append([name, "value", _plain(value, 0)])
        except NotPlainData as error:
            described.append([name, "opaque", str(error)])
        except BaseException as error:
            described.append([name, "opaque", "an object the judge cannot read (%s)" % type(error).__name__])
    return described


def exception_reply(error):
    bases = []
    for cls in type(error).__mro__[:20]:
        try:
            bases.append(str(cls.__name__)[:100])
        except BaseException:
            bases.append("BaseException")
    return ["raised", bases[0], describe(error), bases]


def serve_call(namespace, message):
    """Run one call of the judge's; the reply is plain data, an exception, or why it is neither."""
    try:
        _, name, args, pairs = message
        function = namespace[name]
        result = function(*args, **dict(pairs))
    except BaseException as error:
        return exception_reply(error)
    try:
        return ["ok", _plain(result, 0)]
    except NotPlainData as error:
        description = str(error)
    except BaseException as error:
        description = "a value the judge cannot read (%s)" % type(error).__name__
    try:
        truth = bool(result)  # as much as `assert f(x)` needs; the program could return True as well
    except BaseException:
        truth = None
    return ["opaque", description, truth]


def flush_output():
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass


def candidate_main(program_r, reply_w, out_w, err_w, work_dir):
    """The candidate process (forked before the judge read any request): never returns."""
    exit_now = os._exit
    try:
        if CANDIDATE_UID is not None:
            become_candidate_uid()
        restore_default_signals()
        keep = sorted({0, 1, 2, program_r, reply_w, out_w, err_w})
        for low, high in zip(keep, keep[1:] + [1 << 16]):
            if high > low + 1:
                os.closerange(low + 1, high)
        message = candidate_frame(program_r)
        if message is None:
            exit_now(0)
        _, source, values = message
        limits = dict(zip(LIMIT_NAMES, values))
        os.setsid()
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(out_w, 1)
        os.dup2(err_w, 2)
        for fd in (null, out_w, err_w):
            if fd > 2:
                os.close(fd)
        try:
            os.mkdir(work_dir, 0o700)
        except FileExistsError:
            pass
        os.chdir(work_dir)
        os.umask(0o077)
        sys.argv = [MODULE_NAME]
        LIBC.prctl(PR_SET_DUMPABLE, 1, 0, 0, 0)  # its own memory is its own (and pristine)
        try:  # under a shared memory cap the candidate goes first
            adjust = os.open("/proc/self/oom_score_adj", os.O_WRONLY)
            try:
                os.write(adjust, b"1000")
            finally:
                os.close(adjust)
        except OSError:
            pass
        # The run's processes are its judge, the candidate and what the candidate
        # starts: at most max_processes. RLIMIT_NPROC counts the processes of the
        # candidate's uid. With a uid of its own that is the candidate's side alone
        # (the judge is one fewer); with the judge's uid it is the supervisor and the
        # judge as well (the supervisor, not the run's, is one more).
        own = CANDIDATE_UID is not None
        limits["max_processes"] = max(1, int(limits["max_processes"]) + (-1 if own else 1))
        set_limits(limits)
        gc.enable()
        random.seed(0)  # every run the same random state (fork re-seeds from the OS)
    except BaseException:
        exit_now(70)

    module = types.ModuleType(MODULE_NAME)
    sys.modules[MODULE_NAME] = module
    namespace = module.__dict__
    try:
        code = compile(source, "<program>", "exec")
        exec(code, namespace)
        report = ["program", "ok", "", describe_names(namespace)]
    except (SyntaxError, ValueError, RecursionError, OverflowError) as error:
        if "code" in locals():  # raised by the program, not by the compiler
            report = ["program", "error", program_traceback(error), []]
        else:
            report = ["program", "syntax_error", "".join(traceback.format_exception_only(type(error), error)), []]
    except MemoryError:
        report = ["program", "memory", "MemoryError: the memory limit was exceeded", []]
    except BaseException as error:
        report = ["program", "error", program_traceback(error), []]
    flush_output()
    try:
        reply_to_judge(reply_w, report)
        while True:
            message = candidate_frame(program_r)
            if message is None:
                break
            reply = serve_call(namespace, message)
            flush_output()
            reply_to_judge(reply_w, reply)
    except BaseException:
        pass
    exit_now(0)


# ---------------------------------------------------------------- split design: the judge


class CandidateLink:
    """The judge's end of the pipes to its candidate: calls out, replies and output in, one deadline."""

    def __init__(self, pid, call_w, reply_r, out_r, err_r, output_limit, deadline):
        self.pid = pid
        self.call_w = call_w
        self.reply_r = reply_r
        self.deadline = deadline
        self.stdout = Capture(output_limit)
        self.stderr = Capture(output_limit)
        self.sinks = {out_r: self.stdout.feed, err_r: self.stderr.feed, reply_r: self._take_reply}
        self.inbox = bytearray()
        self.poller = select.poll()  # lighter than a selectors object: this runs once per run
        for fd in list(self.sinks) + [call_w]:
            os.set_blocking(fd, False)
        for fd in self.sinks:
            self.poller.register(fd, select.POLLIN)
        self.open_fds = set(self.sinks)

    def _take_reply(self, data):
        if len(self.inbox) + len(data) > MAX_CANDIDATE_FRAME_BYTES + HEADER.size:
            raise CandidateGone("the program sent the judge more than %d bytes at once" % MAX_CANDIDATE_FRAME_BYTES)
        self.inbox += data

    def _read(self, fd):
        """Read one chunk from `fd` into its sink; False once it is empty or closed."""
        try:
            data = os.read(fd, 1 << 16)
        except BlockingIOError:
            return False
        except OSError:
            data = b""
        if not data:
            self.poller.unregister(fd)
            self.open_fds.discard(fd)
            return False
        self.sinks[fd](data)
        return True

    def _wait(self, writing):
        """Serve readable pipes until something happens; True if the call pipe is writable."""
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise RunTimeUp()
        if writing:
            self.poller.register(self.call_w, select.POLLOUT)
        try:
            events = self.poller.poll(remaining * 1000)
        finally:
            if writing:
                self.poller.unregister(self.call_w)
        writable = False
        for fd, _ in events:
            if fd == self.call_w:
                writable = True
            else:
                self._read(fd)
        return writable

    def send(self, message):
        """Send `message` (plain data: NotPlainData otherwise)."""
        body = _ENCODER.encode(_plain(message, 0)).encode()
        view = memoryview(HEADER.pack(len(body)) + body)
        while view:
            try:
                view = view[os.write(self.call_w, view) :]
                continue
            except BlockingIOError:
                pass
            except (BrokenPipeError, ConnectionError):
                raise CandidateGone("the program's process ended")
            self._wait(writing=True)

    def receive(self):
        """The candidate's next message, as plain data."""
        while True:
            if len(self.inbox) >= HEADER.size:
                (size,) = HEADER.unpack_from(self.inbox)
                if size > MAX_CANDIDATE_FRAME_BYTES:
                    raise CandidateGone("the program broke the judge protocol (a %d-byte frame)" % size)
                if len(self.inbox) >= HEADER.size + size:
                    body = bytes(self.inbox[HEADER.size : HEADER.size + size])
                    del self.inbox[: HEADER.size + size]
                    try:
                        message = from_json(body)
                    except (ValueError, TypeError, MemoryError):
                        raise CandidateGone("the program broke the judge protocol (a frame that is not plain data)")
                    if type(message) is not list or not message or type(message[0]) is not str:
                        raise CandidateGone("the program broke the judge protocol (an unexpected message)")
                    return message
            if self.reply_r not in self.open_fds:
                raise CandidateGone("the program's process ended")
            self._wait(writing=False)

    def call(self, name, args, kwargs):
        """Call the program's `name` in the candidate process; the value comes back as plain data."""
        try:
            self.send(["call", name, list(args), [[key, value] for key, value in kwargs.items()]])
        except NotPlainData as error:
            raise TypeError(
                "%s cannot be passed to the program's %s(): only plain data (None, bool, int, float, "
                "complex, str, bytes, list, tuple, dict, set, frozenset) crosses to it" % (error, name)
            ) from None
        except RecursionError:
            raise TypeError("the arguments of %s() are nested too deeply to cross to the program" % name) from None
        reply = self.receive()
        kind = reply[0]
        if kind == "ok" and len(reply) == 2:
            return reply[1]
        if kind == "raised" and len(reply) == 4:
            raise rebuilt_exception(reply[1], reply[2], reply[3])
        if kind == "opaque" and len(reply) == 3 and reply[2] in (True, False, None):
            return Opaque(
                "%s() returned %s; only plain data (None, bool, int, float, complex, str, bytes, list, "
                "tuple, dict, set, frozenset) can be judged" % (name, str(reply[1])[:200]),
                truth=reply[2],
            )
        raise CandidateGone("the program broke the judge protocol (an unexpected reply)")

    def drain(self):
        """Take what the candidate's pipes hold now, without waiting."""
        for fd in list(self.open_fds):
            while fd in self.open_fds and self._read(fd):
                pass

    def close(self):
        for fd in list(self.sinks) + [self.call_w]:
            try:
                os.close(fd)
            except OSError:
                pass


_EXCEPTION_CLASSES = {}


def rebuilt_exception(name, message, bases):
    """The candidate's exception as the judge raises it: a builtin class, or a named subclass of one."""
    name, message = str(name)[:100], str(message)[:DETAIL_CHARS]
    prefix = name + ": "
    text = message[len(prefix) :] if message.startswith(prefix) else ("" if message == name else message)
    if not isinstance(bases, list):
        bases = []
    base = BaseException
    for candidate in [name] + [str(b) for b in bases]:
        found = getattr(builtins, candidate, None)
        if isinstance(found, type) and issubclass(found, BaseException):
            base = found
            break
    if base.__name__ == name:
        try:
            return base(text)
        except BaseException:
            pass
    key = (name, base)
    if key not in _EXCEPTION_CLASSES:
        try:
            _EXCEPTION_CLASSES[key] = type(name if name.isidentifier() else "ProgramError", (base,), {"__module__": "program"})
        except TypeError:  # a base that cannot be subclassed
            _EXCEPTION_CLASSES[key] = type(name if name.isidentifier() else "ProgramError", (Exception,), {"__module__": "program"})
    try:
        return _EXCEPTION_CLASSES[key](text)
    except BaseException:
        return Exception(message)


class Opaque:
    """A value of the program's that cannot cross: only its truth (if known) is usable, any other use fails.

    `truth` is what bool() gave in the candidate, so `assert f(x)` can judge a
    returned match object; comparing, indexing or iterating it fails the test
    with `message`.
    """

    def __init__(self, message, truth=None):
        self._message, self._truth = message, truth

    def _refuse(self, *args, **kwargs):
        raise Unjudgeable(self._message)

    def __bool__(self):
        if self._truth is None:
            self._refuse()
        return self._truth

    def __repr__(self):
        return "<%s>" % self._message.split(";")[0]

    __call__ = __getattr__ = __getitem__ = __iter__ = __len__ = __eq__ = __ne__ = _refuse
    __lt__ = __le__ = __gt__ = __ge__ = __contains__ = __hash__ = __add__ = __index__ = _refuse


def unreachable(name, description):
    return "the program's %r is %s, which cannot reach the judge: only plain data and functions cross" % (
        name,
        description,
    )


def program_proxy(link, name):
    def proxy(*args, **kwargs):
        return link.call(name, args, kwargs)

    proxy.__name__ = proxy.__qualname__ = name
    return proxy


def judge_namespace(link, names, entry_points=()):
    """The namespace the tests run in: a proxy per program function, plain values, real stdlib modules.

    A program name that shadows a builtin is left out, so a program cannot swap
    the `abs`, `len` or `isinstance` a test relies on, unless the request names
    it as an entry point (a task whose function is called `sum`).
    """
    namespace = {"__builtins__": builtins, "__name__": "__main__"}
    stdlib = getattr(sys, "stdlib_module_names", ())
    for entry in names if isinstance(names, list) else []:
        if not (isinstance(entry, list) and len(entry) == 3 and isinstance(entry[0], str)):
            continue
        name, kind, payload = entry
        if not name.isidentifier() or name.startswith("__"):
            continue
        if hasattr(builtins, name) and name not in entry_points:
            continue
        if kind == "callable":
            namespace[name] = program_proxy(link, name)
        elif kind == "value":
            namespace[name] = payload
        elif kind == "module" and isinstance(payload, str) and payload.split(".")[0] in stdlib:
            try:
                __import__(payload)
                namespace[name] = sys.modules[payload]
            except BaseException:
                namespace[name] = Opaque(unreachable(name, "the module %s" % payload[:100]))
        else:
            namespace[name] = Opaque(unreachable(name, str(payload)[:200]))
    return namespace


class _Output:
    """The judge's own stdout/stderr (tests that print): kept with the candidate's output."""

    def __init__(self, capture):
        self.capture = capture

    def write(self, text):
        self.capture.feed(str(text).encode("utf-8", "replace"))
        return len(text)

    def flush(self):
        pass


def kill_the_rest_of_the_namespace(give_up_after=2.0):
    """SIGKILL every process of the namespace but its init and this judge, until none is alive.

    kill(-1) spares init (the supervisor, which reaps them) and the caller. A
    process killed is a zombie at most; a fork racing the kill is caught by the
    next round.
    """
    me, give_up = os.getpid(), time.monotonic() + give_up_after
    while time.monotonic() < give_up:
        try:
            os.kill(-1, signal.SIGKILL)
        except ProcessLookupError:
            return
        alive = False
        for entry in os.listdir("/proc"):
            if entry.isdigit() and int(entry) not in (1, me):
                try:
                    with open("/proc/%s/stat" % entry, "rb") as handle:
                        state = handle.read().rsplit(b")", 1)[1].split()[0]
                except OSError:
                    continue
                if state not in (b"Z", b"X"):
                    alive = True
                    break
        if not alive:
            return
        time.sleep(0.0005)  # let the killed finish dying


def own_end(pid, grace=0.2):
    """The wait status of a candidate that ended by itself (its pipes close just before it is reapable)."""
    give_up = time.monotonic() + grace
    while True:
        ended, status = os.waitpid(pid, os.WNOHANG)
        if ended:
            return status
        if time.monotonic() >= give_up:
            return None
        time.sleep(0.002)


def on_alarm(signum, frame):
    raise RunTimeUp()


def judge(link, request, record):
    """Send the program, run each test against it, `record` every verdict; return (timed_out, lost)."""
    timed_out, lost = False, ""
    try:
        link.send(["program", request["program"], [request["limits"][name] for name in LIMIT_NAMES]])
        report = link.receive()
        if len(report) != 4 or report[0] != "program" or report[1] not in ("ok", "error", "syntax_error", "memory"):
            raise CandidateGone("the program broke the judge protocol (no program report)")
        record({"program": report[1], "detail": str(report[2])[:TRACEBACK_CHARS]})
        if report[1] == "ok":
            namespace = judge_namespace(link, report[3], request.get("entry_points") or ())
            for index, source in enumerate(request["tests"]):
                passed, detail, memory = run_test(source, namespace)
                record({"test": index, "passed": passed, "detail": detail, "memory": memory})
        record({"done": True})
    except RunTimeUp:
        _signal.setitimer(_signal.ITIMER_REAL, 0)
        timed_out = True
    except CandidateGone as gone:
        _signal.setitimer(_signal.ITIMER_REAL, 0)
        lost = str(gone)
    _signal.setitimer(_signal.ITIMER_REAL, 0)
    return timed_out, lost


def end_candidate(pid, lost):
    """Kill the candidate and everything of the run; its wait status if it had ended by itself."""
    status = own_end(pid) if lost else None
    for target in (-pid, pid):
        try:
            os.kill(target, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    if status is None:
        os.waitpid(pid, 0)  # blocks until it is gone, without spinning
    if os.getppid() == 1:  # a PID namespace of our own: end the run's every process before replying
        kill_the_rest_of_the_namespace()
    return status


def judge_main(channel_in, channel_out, work_dir):
    """The judge of one run (forked by the supervisor before any request): never returns.

    It keeps the supervisor's deafness to catchable signals, so a program that
    signals its parent cannot end the judging; the candidate gets them back.
    """
    program_r, program_w = os.pipe()
    reply_r, reply_w = os.pipe()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            candidate_main(program_r, reply_w, out_w, err_w, work_dir)
        finally:
            os._exit(70)
    for fd in (program_r, reply_w, out_w, err_w):
        os.close(fd)
    if CANDIDATE_UID is not None:
        keep_only_kill()
    try:
        request = receive(channel_in)
    except (ValueError, OSError):
        request = None
    if request is None:
        os._exit(EXIT_CHANNEL_CLOSED)
    nonce = request["nonce"]
    limits = request["limits"]
    random.seed(0)  # tests that draw random inputs draw the same ones every run
    started = time.monotonic()
    deadline = started + float(limits["wall_seconds"])
    _signal.signal(int(signal.SIGALRM), on_alarm)  # a backstop for tests that loop in the judge itself
    _signal.setitimer(_signal.ITIMER_REAL, float(limits["wall_seconds"]) + ALARM_MARGIN)
    link = CandidateLink(pid, program_w, reply_r, out_r, err_r, int(limits["max_output_bytes"]), deadline)
    sys.stdout, sys.stderr = _Output(link.stdout), _Output(link.stderr)
    records = []

    def record(message):
        message["nonce"] = nonce
        records.append(message)  # the judge is trusted: records travel as objects, not text lines

    timed_out, lost = judge(link, request, record)
    _signal.signal(int(signal.SIGALRM), _signal.SIG_IGN)
    status = end_candidate(pid, lost)
    link.drain()
    link.close()
    died_by = os.WTERMSIG(status) if status is not None and os.WIFSIGNALED(status) else 0
    exit_code = os.WEXITSTATUS(status) if status is not None and os.WIFEXITED(status) else None
    stderr = link.stderr.text()
    if lost:
        stderr += ("\n" if stderr and not stderr.endswith("\n") else "") + lost
    reply = {
        "records": records,
        "stdout": link.stdout.text(),
        "stderr": stderr,
        "timed_out": timed_out,
        "signal": died_by,
        "exit_code": exit_code if lost else 0,
        "wall_seconds": time.monotonic() - started,
        "nonce": nonce,
    }
    try:
        send(channel_out, reply)
    finally:
        os._exit(EXIT_REPLIED)


# ---------------------------------------------------------------- housekeeping, and the shared design's run


class Capture:
    """Keeps the first `limit` bytes read from a pipe, counts the rest."""

    def __init__(self, limit):
        self.limit = limit
        self.chunks = []
        self.kept = 0
        self.dropped = 0

    def feed(self, data):
        room = self.limit - self.kept
        if room > 0:
            self.chunks.append(data[:room])
            self.kept += min(room, len(data))
        self.dropped += max(0, len(data) - max(room, 0))

    def text(self):
        body = b"".join(self.chunks).decode("utf-8", "replace")
        if self.dropped:
            body += "\n[output truncated: %d more bytes]" % self.dropped
        return body


def kill_everything_else():
    """Kill and reap every process of this sandbox but the worker itself."""
    if os.getpid() == 1:
        while True:
            try:
                os.kill(-1, signal.SIGKILL)
            except ProcessLookupError:
                pass
            if not reap(block=True):
                return
    else:  # no PID namespace (insecure process backend): we are a subreaper
        while True:
            children = child_pids()
            for pid in children:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            if not reap(block=True) and not children:
                return


def child_pids():
    me = str(os.getpid())
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry, "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        if fields[1].decode() == me:
            found.append(int(entry))
    return found


def reap(block):
    """Reap children; return True if any was reaped."""
    reaped = False
    while True:
        try:
            pid, _ = os.waitpid(-1, 0 if block else os.WNOHANG)
        except ChildProcessError:
            return reaped
        except InterruptedError:
            continue
        if pid == 0:
            return reaped
        reaped = True
        if block:
            return True


def wipe(directory):
    """Remove everything inside `directory` (restoring permissions a run may have removed)."""

    def make_writable_and_retry(function, path, _error):
        try:
            parent = os.path.dirname(path)
            os.chmod(parent, stat.S_IRWXU)
            if os.path.isdir(path) and not os.path.islink(path):
                os.chmod(path, stat.S_IRWXU)
            function(path)
        except OSError:
            pass

    try:
        os.chmod(directory, stat.S_IRWXU | (os.stat(directory).st_mode & 0o7777))
    except OSError:
        pass  # not ours (e.g. a root-owned sticky /dev/shm): our files in it are still removable
    try:
        entries = os.listdir(directory)
    except OSError:
        return
    for name in entries:
        path = os.path.join(directory, name)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, onerror=make_writable_and_retry)
        else:
            try:
                os.unlink(path)
            except OSError:
                pass


def clean_up_files(work_dir, wipe_dirs):
    """Leave the writable directories empty, as the next run must find them."""
    try:
        os.rmdir(work_dir)  # the common case: the run wrote no file
    except OSError:
        pass
    for directory in wipe_dirs:
        try:
            entries = os.listdir(directory)
        except OSError:
            continue
        if entries:
            wipe(directory)
        reset_metadata(directory)
    if os.path.dirname(work_dir) not in wipe_dirs:
        shutil.rmtree(work_dir, ignore_errors=True)


def reset_metadata(directory):
    """Drop extended attributes and times a run could set on a kept directory to pass data on."""
    try:
        for name in os.listxattr(directory):
            os.removexattr(directory, name)
    except OSError:
        pass
    try:
        os.utime(directory, (0, 0))
    except OSError:
        pass


def remove_sysv_ipc():
    """Drop System V shared memory, queues and semaphores a run created (they outlive processes).

    Only an object's owner may remove it. When the candidate has a uid of its
    own, a short-lived child switches to that uid to do it: the supervisor
    itself never changes its credentials, which would also clear the
    parent-death signal that ends it with its sandbox.
    """
    found = [(kind, sysv_ipc_ids(kind)) for kind in ("shm", "msg", "sem")]
    found = [(kind, idents) for kind, idents in found if idents]
    if not found:
        return
    if CANDIDATE_UID is None:
        remove_sysv_ids(found)
        return
    pid = os.fork()
    if pid == 0:
        try:
            os.setresuid(CANDIDATE_UID, CANDIDATE_UID, CANDIDATE_UID)
            remove_sysv_ids(found)
        finally:
            os._exit(0)
    while True:
        try:
            os.waitpid(pid, 0)
            return
        except InterruptedError:
            continue
        except ChildProcessError:
            return


def sysv_ipc_ids(kind):
    """The ids of the System V objects of one kind (shm, msg or sem) in this IPC namespace."""
    try:
        fd = os.open("/proc/sysvipc/" + kind, os.O_RDONLY)
        try:
            rows = os.read(fd, 1 << 20).decode().splitlines()[1:]
        finally:
            os.close(fd)
    except OSError:
        return []
    return [int(row.split()[1]) for row in rows]


def remove_sysv_ids(found):
    for kind, idents in found:
        for ident in idents:
            if kind == "shm":
                LIBC.shmctl(ident, 0, None)  # IPC_RMID
            elif kind == "msg":
                LIBC.msgctl(ident, 0, None)
            else:
                LIBC.semctl(ident, 0, 0)


def serve_run(request, work_dir, wipe_dirs):
    limits = request["limits"]
    output_limit = int(limits["max_output_bytes"])
    deadline = time.monotonic() + float(limits["wall_seconds"])
    started = time.monotonic()
    os.makedirs(work_dir, mode=0o700, exist_ok=True)
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    res_r, res_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            for fd in (out_r, err_r, res_r):
                os.close(fd)
            child_main(request, work_dir, res_w, out_w, err_w)
        finally:
            os._exit(70)
    for fd in (out_w, err_w, res_w):
        os.close(fd)
    stdout, stderr = Capture(output_limit), Capture(output_limit)
    results = bytearray()
    pidfd = os.pidfd_open(pid)
    selector = selectors.DefaultSelector()
    sinks = {out_r: stdout.feed, err_r: stderr.feed, res_r: results.extend}
    for fd in sinks:
        os.set_blocking(fd, False)
        selector.register(fd, selectors.EVENT_READ)
    selector.register(pidfd, selectors.EVENT_READ)
    timed_out = False
    exited = False

    open_fds = set(sinks)

    def read_some(fd):
        """Read one chunk into its sink; False once the pipe is empty or closed."""
        try:
            data = os.read(fd, 1 << 16)
        except BlockingIOError:
            return False
        if not data:
            selector.unregister(fd)
            open_fds.discard(fd)
            return False
        if fd == res_r and len(results) + len(data) > MAX_RECORD_BYTES:
            data = data[: max(0, MAX_RECORD_BYTES - len(results))]
        sinks[fd](data)
        return True

    def pump(events):
        for key, _ in events:
            if key.fd != pidfd:
                read_some(key.fd)

    while not exited:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            timed_out = True
            break
        events = selector.select(remaining)
        exited = any(key.fd == pidfd for key, _ in events)
        pump(events)
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    _, wait_status = os.waitpid(pid, 0)
    kill_everything_else()
    for fd in list(open_fds):  # every writer is dead: read what is left up to EOF
        while fd in open_fds and read_some(fd):
            pass
    for fd in list(open_fds) + [pidfd]:
        selector.unregister(fd)
    for fd in list(sinks) + [pidfd]:
        os.close(fd)
    selector.close()
    wall = time.monotonic() - started
    clean_up_files(work_dir, wipe_dirs)
    if os.getpid() == 1:  # System V IPC is per IPC namespace: only clear our own
        remove_sysv_ipc()
    signal_number = os.WTERMSIG(wait_status) if os.WIFSIGNALED(wait_status) else 0
    return {
        "records": [line.decode("utf-8", "replace") for line in bytes(results).splitlines()],
        "stdout": stdout.text(),
        "stderr": stderr.text(),
        "timed_out": timed_out,
        "signal": signal_number,
        "exit_code": os.WEXITSTATUS(wait_status) if os.WIFEXITED(wait_status) else None,
        "wall_seconds": wall,
    }




# ---------------------------------------------------------------- split design: the supervisor

SUPERVISOR_IGNORES = (
    "SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGPIPE", "SIGALRM",
    "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGXCPU", "SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH",
)  # fmt: skip
DENIED_SYSCALLS = (
    "ptrace", "process_vm_readv", "process_vm_writev", "perf_event_open", "bpf", "keyctl",
    "add_key", "request_key", "mount", "umount2", "move_mount", "open_tree", "fsopen", "fsmount",
    "fspick", "mount_setattr", "pivot_root", "chroot", "unshare", "setns", "kexec_load",
    "kexec_file_load", "init_module", "finit_module", "delete_module", "reboot", "swapon", "swapoff",
    "acct", "quotactl", "syslog", "userfaultfd", "io_uring_setup", "io_uring_enter",
    "io_uring_register", "open_by_handle_at", "name_to_handle_at", "lookup_dcookie", "fanotify_init",
    "process_madvise", "pidfd_getfd", "kcmp", "settimeofday", "clock_settime", "clock_adjtime",
    "adjtimex", "vhangup", "uselib", "personality",
)  # fmt: skip
IGNORED_NUMBERS = tuple(int(getattr(signal, name)) for name in SUPERVISOR_IGNORES)
CLONE_NEW_FLAGS = (0x00000080, 0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000)


def harden(use_seccomp):
    """Make this process (and every fork of it) non-dumpable, deaf to signals and, optionally, filtered.

    The filter (libseccomp through python3-seccomp) answers EPERM to every
    syscall in DENIED_SYSCALLS and to clone with a namespace flag, and ENOSYS to
    clone3 (whose flags it cannot see), so the C library falls back to clone.
    Syscalls of another architecture (e.g. 32-bit int 0x80) kill the process.
    """
    if LIBC.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_DUMPABLE, 0) failed")
    for number in IGNORED_NUMBERS:
        _signal.signal(number, _signal.SIG_IGN)
    if not use_seccomp:
        return False
    try:
        import seccomp
    except ImportError:
        raise SystemExit(
            "the sandbox needs libseccomp's Python binding in the sandbox's python3: "
            "install the Debian package python3-seccomp (`make setup` does)"
        ) from None
    denied = seccomp.ERRNO(errno.EPERM)
    rules = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    for name in DENIED_SYSCALLS:
        try:
            rules.add_rule(denied, name)
        except (RuntimeError, ValueError, OSError):
            pass  # a syscall this architecture does not have
    for flag in CLONE_NEW_FLAGS:
        rules.add_rule(denied, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))
    rules.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    rules.load()
    return True


def warm_up():
    """Run the judge's and the candidate's common paths once, on no request's data.

    What they create lazily (codec state, compiler and ast state) then exists
    in the supervisor already, so each run's forks do not build it again.
    Standard streams become line-buffered here, for the candidate's output.
    """
    for stream in (sys.stdout, sys.stderr):  # fds 1 and 2: the candidate's pipes once it runs
        stream.reconfigure(line_buffering=True)
    message = ["call", "f", [1, 2.5, "x", b"y", (1,), {1: [2]}, {3}, frozenset(), None, True], [["k", 1j]]]
    from_json(to_json(message))
    namespace = {"__builtins__": builtins}
    run_test("assert f(1) == 2", dict(namespace, f=lambda x: 2 * x))
    run_test("x = [i for i in range(3)]\nassert x", namespace)
    describe_names({"f": len, "v": [1], "m": sys})
    exception_reply(ValueError("warm"))


def supervise(channel_in, channel_out, work_dir, wipe_dirs):
    """Fork a judge per run from this never-touched state; clean up after each. Returns at EOF."""
    while True:
        pid = os.fork()
        if pid == 0:
            try:
                judge_main(channel_in, channel_out, work_dir)
            finally:
                os._exit(70)
        while True:  # reap whatever ends (the judge kills the run's orphans) until the judge itself
            try:
                ended, status = os.waitpid(-1, 0)
            except InterruptedError:
                continue
            except ChildProcessError:
                status = 0
                break
            if ended == pid:
                break
        code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
        kill_everything_else()
        if code == EXIT_CHANNEL_CLOSED:
            return
        if code != EXIT_REPLIED:
            died = "signal %d" % os.WTERMSIG(status) if os.WIFSIGNALED(status) else "exit code %s" % code
            send(channel_out, {"lost": True, "detail": "the run's judge ended before replying (%s)" % died})
        clean_up_files(work_dir, wipe_dirs)
        if os.getpid() == 1:
            remove_sysv_ipc()


def parse_arguments(argv):
    options = {"work": "/tmp/work", "wipe": [], "design": "split", "seccomp": False, "candidate-uid": None}
    index = 0
    while index < len(argv):
        flag = argv[index]
        if flag == "--seccomp":
            options["seccomp"] = True
            index += 1
            continue
        if flag not in ("--work", "--wipe", "--design", "--candidate-uid") or index + 1 >= len(argv):
            raise SystemExit("unknown argument %r" % flag)
        value = argv[index + 1]
        if flag == "--wipe":
            options["wipe"].append(value)
        else:
            options[flag[2:]] = value
        index += 2
    if options["design"] not in ("split", "shared"):
        raise SystemExit("--design must be split or shared")
    if options["candidate-uid"] is not None:
        options["candidate-uid"] = int(options["candidate-uid"])
    return options


def serve_shared(channel_in, channel_out, work_dir, wipe_dirs):
    """The shared design: read each request here, run it in one forked child."""
    while True:
        try:
            request = receive(channel_in)
        except OSError as error:
            if error.errno == errno.EINTR:
                continue
            raise
        if request is None:
            return
        nonce = request["nonce"]
        reply = serve_run(request, work_dir, wipe_dirs)
        reply["nonce"] = nonce
        send(channel_out, reply)


def main():
    options = parse_arguments(sys.argv[1:])
    work_dir, wipe_dirs = options["work"], options["wipe"]
    channel_in, channel_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    if os.getpid() != 1:
        LIBC.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    split = options["design"] == "split"
    global CANDIDATE_UID
    CANDIDATE_UID = options["candidate-uid"] if split else None
    filtered = harden(options["seccomp"]) if split else False
    for directory in wipe_dirs:
        wipe(directory)
    if split:
        warm_up()
    gc.collect()
    gc.freeze()
    LIBC.malloc_trim(0)  # fewer pages for every fork to copy
    send(
        channel_out,
        {
            "ready": True,
            "pid": os.getpid(),
            "python": sys.version.split()[0],
            "design": options["design"],
            "seccomp": filtered,
            "candidate_uid": CANDIDATE_UID,
        },
    )
    if split:
        supervise(channel_in, channel_out, work_dir, wipe_dirs)
    else:
        serve_shared(channel_in, channel_out, work_dir, wipe_dirs)


if __name__ == "__main__":
    main()
