"""The warm worker that runs inside one sandbox (standard library only, Python >= 3.9).

It is started once per sandbox slot and serves runs one at a time over its
stdin/stdout. A request frame is a 4-byte big-endian body length, one flags
byte (1: the request has untrusted tests) and a JSON object; every other frame
is a 4-byte length and a JSON object. The plain-data codec (plain_data.py) and
the pristine-state checks (pristine.py) are prepended to this source.

Two designs, chosen with --design:

split (the secure backends). The worker is a supervisor that never reads a
request: for every run it forks a judge from its pristine state, and the judge
forks the candidate process before it reads anything, so no process ever holds
data of an earlier run. The judge reads the request from the channel, sends the
program to the candidate, and runs the trusted tests itself; each test reaches
the program through a call proxy, arguments going to the candidate and the
return value coming back as plain data (anything else fails that test). The
verdict is computed only in the judge, which the candidate cannot read or patch:
the supervisor is non-dumpable (its forks inherit that), ignores every
catchable signal, and with --seccomp loads a filter, inherited by judge and
candidate, that denies ptrace, process_vm_readv/writev, perf_event_open, bpf,
the keyring calls, mount, unshare, setns, namespace-creating clone, kexec,
sockets other than AF_UNIX and the like. Untrusted tests (a model's own) never
run in the judge: when the flags byte announces them, the judge forks a tester
before reading the request body; the tester holds no channel to the host, runs
under the candidate's uid, and reaches the program through the judge, which
relays its calls and takes its verdicts as plain data. The judge replies to
the host itself; when it ends without replying (the program killed it) or
overruns its deadline (the supervisor kills it then) the supervisor replies for
it. Before replying, the judge kills every process of the run and, with
--pristine, checks that the run left nothing behind (pristine.py); a run that
did gets a reply marked "retire", and the supervisor removes what it can and
exits, so the slot gets a fresh worker.

shared (the insecure control, and the old design kept for comparison). Per
run the worker forks one child that runs the program and then the tests in the
program's own process, streaming records tagged with the run's nonce; a program
that inspects or patches its interpreter can forge its verdict.

Command line: --work DIR (the run's working directory), --wipe DIR (repeatable;
emptied at start, and after each run without --pristine; DIR itself kept),
--design split|shared (default split), --seccomp (split: load the filter, or
refuse to start if python3-seccomp is missing), --pristine (check every run
for what it left, see above), --candidate-uid UID (split: the candidate's and
tester's uid).
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
import signal
import _signal
import string  # noqa: F401
import struct
import sys
import time
import traceback
import types
import typing  # noqa: F401

try:  # in the sandbox, plain_data.py and pristine.py are prepended to this source (see channel.worker_source)
    NotPlainData, Baseline
except NameError:  # imported on the host, e.g. by tests
    from env_servers.sandbox.plain_data import _ENCODER, NotPlainData, _plain, from_json, to_json
    from env_servers.sandbox.pristine import Baseline, last_pid, remove_leftovers, wipe

# The modules marked F401 are imported only to warm them: model-written programs
# import them most, and a run's child then gets them for free. They are state of
# the pristine worker, shared read-only, not of any run.

HEADER = struct.Struct(">I")
REQUEST_HEADER = struct.Struct(">IB")  # body length, flags
FLAG_UNTRUSTED_TESTS = 1
MAX_REQUEST_BYTES = 64 << 20
MAX_RECORD_BYTES = 1 << 20
MAX_CANDIDATE_FRAME_BYTES = 16 << 20
MAX_NAMES = 10000
DETAIL_CHARS = 1000
TRACEBACK_CHARS = 4000
MODULE_NAME = "__solution__"
PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36
EXIT_REPLIED = 0  # the judge sent its reply and the run left nothing behind
EXIT_CHANNEL_CLOSED = 3  # the host closed the channel: the worker ends
EXIT_RETIRE = 4  # the judge sent its reply; the run left traces, so the worker must be replaced
LIMIT_NAMES = ("wall_seconds", "cpu_seconds", "memory_bytes", "max_processes", "max_output_bytes", "max_file_bytes")
ALARM_MARGIN = 0.25  # the judge's own alarm fires this long after the run's deadline
WATCHDOG_MARGIN = 1.5  # the supervisor kills a judge still running this long after the run's deadline
REAP_INTERVAL = 0.05  # how often the supervisor reaps orphans while a run goes on
AF_UNIX = 1


LIBC = ctypes.CDLL(None, use_errno=True)  # made once here, used by every fork
CAPSET, PRCTL = LIBC.capset, LIBC.prctl  # looked up once: each fork finds them made
CANDIDATE_UID = None  # --candidate-uid: the uid the candidate switches to (set once, at startup)
BASELINE = None  # --pristine: the worker's pristine state (pristine.Baseline), taken at startup
CAP_KILL = 5


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


_CAP_HEADER = _CapHeader(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
_ONLY_KILL = (_CapData * 2)()
_ONLY_KILL[0].effective = _ONLY_KILL[0].permitted = 1 << CAP_KILL


def keep_only_kill():
    """Drop every capability but CAP_KILL (the judge must end the candidate, which has another uid)."""
    if CAPSET(ctypes.byref(_CAP_HEADER), _ONLY_KILL) != 0:
        raise OSError(ctypes.get_errno(), "capset failed")


def become_candidate_uid():
    """The candidate's (and tester's) first act when it has a uid of its own: switch to it, losing every capability."""
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


def receive_request_header(fd):
    """(body size, flags) of the next request, or None at EOF; ValueError for an oversized one."""
    header = read_exactly(fd, REQUEST_HEADER.size)
    if header is None:
        return None
    size, flags = REQUEST_HEADER.unpack(header)
    if size > MAX_REQUEST_BYTES:
        raise ValueError("request frame too large")
    return size, flags


def receive_request(fd):
    """The next request (its flags ignored), or None at EOF."""
    header = receive_request_header(fd)
    if header is None:
        return None
    body = read_exactly(fd, header[0])
    return None if body is None else json.loads(body)


def write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def send(fd, message):
    body = json.dumps(message).encode()
    write_all(fd, HEADER.pack(len(body)) + body)


# ---------------------------------------------------------------- tests (both designs)


def printable(text):
    """`text` with any lone surrogate (a program's bytes or messages) escaped, so it is valid UTF-8."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def safe_repr(value):
    try:
        text = repr(value)
    except BaseException as error:  # a hostile __repr__
        text = "<repr failed: %s>" % type(error).__name__
    text = text if len(text) <= DETAIL_CHARS else text[:DETAIL_CHARS] + "..."
    return printable(text)


def describe(error):
    try:
        message = str(error)
    except BaseException:
        message = ""
    text = type(error).__name__ + (": " + message if message else "")
    return printable(text if len(text) <= DETAIL_CHARS else text[:DETAIL_CHARS] + "...")


class RunTimeUp(BaseException):
    """The run's wall-clock limit passed (split design: raised in the judge)."""


class CandidateGone(BaseException):
    """The candidate process ended or broke the judge protocol; the message says which."""


class TesterGone(BaseException):
    """The tester ended or broke its protocol: its remaining tests fail, the run goes on."""


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


def with_setup(namespace, setup):
    """Run the task's trusted setup code in `namespace` (its names win over the program's); an error text or ""."""
    if not setup:
        return ""
    try:
        exec(compile(setup, "<setup>", "exec"), namespace)
    except BaseException as error:
        return "the task's own setup code failed: " + describe(error)
    return ""


def run_tests(tests, namespace, setup, record, first_index=0):
    """Run each test in a copy of `namespace` after the setup; record each verdict."""
    failure = with_setup(namespace, setup)
    for index, source in enumerate(tests, first_index):
        if failure:
            record({"test": index, "passed": False, "detail": failure, "memory": False})
            continue
        passed, detail, memory = run_test(source, namespace)
        record({"test": index, "passed": passed, "detail": detail, "memory": memory})


# ---------------------------------------------------------------- shared design: the run's child


def program_traceback(error):
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename in ("<program>", "<setup>")]
    lines = traceback.format_list(frames) + traceback.format_exception_only(type(error), error)
    text = "Traceback (most recent call last):\n" + "".join(lines)
    return printable(text if len(text) <= TRACEBACK_CHARS else "..." + text[-TRACEBACK_CHARS:])


def compile_program(source):
    """The program's code object; a syntax error comes back as ("syntax_error", detail)."""
    try:
        return compile(source, "<program>", "exec"), None
    except (SyntaxError, ValueError, RecursionError, OverflowError, MemoryError) as error:
        return None, ("syntax_error", printable("".join(traceback.format_exception_only(type(error), error))))


def run_program(code, setup, namespace):
    """Run the task's setup, then the program, in the module's `namespace`: None, or (status, detail)."""
    try:
        if setup:
            exec(compile(setup, "<setup>", "exec"), namespace)
        exec(code, namespace)
    except MemoryError:
        return "memory", "MemoryError: the memory limit was exceeded"
    except BaseException as error:
        return "error", program_traceback(error)
    return None


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
    setup = request.get("setup") or ""
    code, failure = compile_program(request["program"])
    if code is not None:
        failure = run_program(code, setup, namespace)
    if failure is not None:
        record({"program": failure[0], "detail": failure[1]})
        record({"done": True})
        exit_now(0)
    record({"program": "ok"})
    tests = list(request["tests"]) + list(request.get("untrusted_tests") or ())  # one process: the control
    run_tests(tests, dict(namespace), setup, record)
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
    for name, value in list(namespace.items())[:MAX_NAMES]:  # the judge takes no more either
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
        _, source, values, setup = message
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
        PRCTL(PR_SET_DUMPABLE, 1, 0, 0, 0)  # its own memory is its own (and pristine)
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
    code, failure = compile_program(source)
    if code is not None:
        failure = run_program(code, setup, namespace)
    try:
        report = ["program", "ok", "", describe_names(namespace)] if failure is None else ["program", *failure, []]
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


# ---------------------------------------------------------------- split design: the judge's pipes


class Peer:
    """A process the judge (or the tester) exchanges frames with: its call pipe and the bytes read from it."""

    def __init__(self, name, call_w, reply_r):
        self.name = name  # "the program", "the tests' process", "the judge": for messages
        self.call_w, self.reply_r = call_w, reply_r
        self.inbox = bytearray()

    def take(self, data):
        if len(self.inbox) + len(data) > MAX_CANDIDATE_FRAME_BYTES + HEADER.size:
            raise self.gone("sent more than %d bytes at once" % MAX_CANDIDATE_FRAME_BYTES)
        self.inbox += data

    def gone(self, why):
        return (CandidateGone if self.name == "the program" else TesterGone)("%s %s" % (self.name, why))


class Link:
    """One process's end of its pipes: frames to and from peers, captured output, one deadline, one poller."""

    def __init__(self, deadline, output_limit=0):
        self.deadline = deadline
        self.stdout = Capture(output_limit)
        self.stderr = Capture(output_limit)
        self.sinks = {}
        self.fds = []
        self.poller = select.poll()  # lighter than a selectors object: this runs once per run

    def _watch(self, fd, sink):
        os.set_blocking(fd, False)
        self.sinks[fd] = sink
        self.fds.append(fd)
        self.poller.register(fd, select.POLLIN)

    def watch_output(self, out_r, err_r):
        self._watch(out_r, self.stdout.feed)
        self._watch(err_r, self.stderr.feed)

    def add_peer(self, name, call_w, reply_r):
        peer = Peer(name, call_w, reply_r)
        os.set_blocking(call_w, False)
        self.fds.append(call_w)
        self._watch(reply_r, peer.take)
        return peer

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
            del self.sinks[fd]
            return False
        self.sinks[fd](data)
        return True

    def _wait(self, writing=None):
        """Serve readable pipes until something happens; True if `writing` became writable."""
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise RunTimeUp()
        if writing is not None:
            self.poller.register(writing, select.POLLOUT)
        try:
            events = self.poller.poll(remaining * 1000)
        finally:
            if writing is not None:
                self.poller.unregister(writing)
        writable = False
        for fd, _ in events:
            if fd == writing:
                writable = True
            elif fd in self.sinks:
                self._read(fd)
        return writable

    def send_frame(self, peer, body):
        view = memoryview(HEADER.pack(len(body)) + body)
        while view:
            try:
                view = view[os.write(peer.call_w, view) :]
                continue
            except BlockingIOError:
                pass
            except (BrokenPipeError, ConnectionError):
                raise peer.gone("ended")
            self._wait(writing=peer.call_w)

    def send(self, peer, message):
        """Send `message` (plain data: NotPlainData otherwise)."""
        self.send_frame(peer, _ENCODER.encode(_plain(message, 0)).encode())

    def receive_frame(self, peer):
        """The body of `peer`'s next frame, undecoded."""
        while True:
            if len(peer.inbox) >= HEADER.size:
                (size,) = HEADER.unpack_from(peer.inbox)
                if size > MAX_CANDIDATE_FRAME_BYTES:
                    raise peer.gone("broke the judge protocol (a %d-byte frame)" % size)
                if len(peer.inbox) >= HEADER.size + size:
                    body = bytes(peer.inbox[HEADER.size : HEADER.size + size])
                    del peer.inbox[: HEADER.size + size]
                    return body
            if peer.reply_r not in self.sinks:
                raise peer.gone("ended")
            self._wait()

    def receive(self, peer):
        """`peer`'s next message, as plain data (see plain_data.from_json: decoding is bounded)."""
        body = self.receive_frame(peer)
        try:
            message = from_json(body)
        except (ValueError, TypeError, MemoryError):
            raise peer.gone("broke the judge protocol (a frame that is not plain data, or too much of it)")
        if type(message) is not list or not message or type(message[0]) is not str:
            raise peer.gone("broke the judge protocol (an unexpected message)")
        return message

    def drain(self):
        """Take what the pipes hold now, without waiting."""
        for fd in list(self.sinks):
            while fd in self.sinks and self._read(fd):
                pass

    def close(self):
        for fd in self.fds:
            try:
                os.close(fd)
            except OSError:
                pass


class Caller:
    """How the tests' call proxies reach the program: through `link` to `peer` (the candidate, or the relaying judge)."""

    def __init__(self, link, peer):
        self.link, self.peer = link, peer

    def call(self, name, args, kwargs):
        """Call the program's `name` in the candidate process; the value comes back as plain data."""
        try:
            self.link.send(self.peer, ["call", name, list(args), [[key, value] for key, value in kwargs.items()]])
        except NotPlainData as error:
            raise TypeError(
                "%s cannot be passed to the program's %s(): only plain data (None, bool, int, float, "
                "complex, str, bytes, list, tuple, dict, set, frozenset) crosses to it" % (error, name)
            ) from None
        except RecursionError:
            raise TypeError("the arguments of %s() are nested too deeply to cross to the program" % name) from None
        reply = self.link.receive(self.peer)
        kind = reply[0]
        if kind == "ok" and len(reply) == 2:
            return reply[1]
        if kind == "raised" and len(reply) == 4:
            raise rebuilt_exception(reply[1], reply[2], reply[3])
        if kind == "opaque" and len(reply) == 3 and reply[2] in (True, False, None):
            return Opaque(
                "%s() returned %s; only plain data (None, bool, int, float, complex, str, bytes, list, "
                "tuple, dict, set, frozenset) can be judged" % (name, printable(str(reply[1])[:200])),
                truth=reply[2],
            )
        raise self.peer.gone("broke the judge protocol (an unexpected reply)")


_EXCEPTION_CLASSES = {}


def rebuilt_exception(name, message, bases):
    """The candidate's exception as the judge raises it: a builtin class, or a named subclass of one."""
    name, message = printable(str(name)[:100]), printable(str(message)[:DETAIL_CHARS])
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


def program_proxy(caller, name):
    def proxy(*args, **kwargs):
        return caller.call(name, args, kwargs)

    proxy.__name__ = proxy.__qualname__ = name
    return proxy


def judge_namespace(caller, names, entry_points=()):
    """The namespace the tests run in: a proxy per program function, plain values, real stdlib modules.

    A program name that shadows a builtin is left out, so a program cannot swap
    the `abs`, `len` or `isinstance` a test relies on, unless the request names
    it as an entry point (a task whose function is called `sum`).
    """
    namespace = {"__builtins__": builtins, "__name__": "__main__"}
    stdlib = getattr(sys, "stdlib_module_names", ())
    for entry in names[:MAX_NAMES] if isinstance(names, list) else []:
        if not (isinstance(entry, list) and len(entry) == 3 and isinstance(entry[0], str)):
            continue
        name, kind, payload = entry
        if not name.isidentifier() or name.startswith("__"):
            continue
        if hasattr(builtins, name) and name not in entry_points:
            continue
        if kind == "callable":
            namespace[name] = program_proxy(caller, name)
        elif kind == "value":
            namespace[name] = payload
        elif kind == "module" and isinstance(payload, str) and payload.split(".")[0] in stdlib:
            try:
                __import__(payload)
                namespace[name] = sys.modules[payload]
            except BaseException:
                namespace[name] = Opaque(unreachable(name, "the module %s" % payload[:100]))
        else:
            namespace[name] = Opaque(unreachable(name, printable(str(payload)[:200])))
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


# ---------------------------------------------------------------- split design: the tester


def tester_main(from_judge, to_judge, work_dir):
    """The process of the request's untrusted tests (forked by the judge before it read the request): never returns.

    It keeps only its two pipes to the judge (no channel to the host, none to
    the candidate), runs under the candidate's uid where it has one, and stays
    non-dumpable. Its calls go to the judge, which relays them to the program;
    its verdicts go back as plain data. Whatever its tests do (they may patch
    this process or forge their own verdicts), they reach no other run and no
    verdict but their own.
    """
    exit_now = os._exit
    try:
        if CANDIDATE_UID is not None:
            become_candidate_uid()
        os.setsid()
        keep = sorted({0, 1, 2, from_judge, to_judge})
        for low, high in zip(keep, keep[1:] + [1 << 16]):
            if high > low + 1:
                os.closerange(low + 1, high)
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.close(null)
        try:
            os.chdir(work_dir)
        except OSError:
            pass
        os.umask(0o077)
        message = candidate_frame(from_judge)
        if message is None:
            exit_now(0)
        _, names, tests, setup, entry_points, values = message
        limits = dict(zip(LIMIT_NAMES, values))
        limits["max_processes"] = max(1, int(limits["max_processes"]) + (-1 if CANDIDATE_UID is not None else 1))
        set_limits(limits)
        gc.enable()
        random.seed(0)
        link = Link(time.monotonic() + float(limits["wall_seconds"]), int(limits["max_output_bytes"]))
        judge = link.add_peer("the judge", to_judge, from_judge)
        sys.stdout, sys.stderr = _Output(link.stdout), _Output(link.stderr)

        def record(verdict):
            link.send(judge, ["verdict", verdict["test"], verdict["passed"], verdict["detail"], verdict["memory"]])

        run_tests(tests, judge_namespace(Caller(link, judge), names, tuple(entry_points)), setup, record)
        link.send(judge, ["done", link.stdout.text(), link.stderr.text()])
    except BaseException:
        pass
    exit_now(0)


def start_tester(work_dir):
    """Fork the tester; (pid, the judge's write end, the judge's read end)."""
    to_tester_r, to_tester_w = os.pipe()
    to_judge_r, to_judge_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            tester_main(to_tester_r, to_judge_w, work_dir)
        finally:
            os._exit(70)
    os.close(to_tester_r)
    os.close(to_judge_w)
    return pid, to_tester_w, to_judge_r


def run_untrusted_tests(link, candidate, tester, names, request, record, first_index):
    """Have the tester run the untrusted tests, relaying its calls to the candidate; record its verdicts.

    The judge decodes only the tester's own messages (bounded); the program's
    replies reach the tester as they came. A tester that ends or breaks the
    protocol fails the tests it had not reported; the run goes on.
    """
    tests = list(request.get("untrusted_tests") or ())
    reported = set()
    stdout = stderr = ""
    try:
        limits = [request["limits"][name] for name in LIMIT_NAMES]
        link.send(tester, ["tests", names, tests, request.get("setup") or "", request.get("entry_points") or [], limits])
        while True:
            message = link.receive(tester)
            kind = message[0]
            if kind == "call" and len(message) == 4:
                link.send(candidate, message)
                link.send_frame(tester, link.receive_frame(candidate))
            elif kind == "verdict" and len(message) == 5:
                _, index, passed, detail, memory = message
                if type(index) is not int or not 0 <= index < len(tests) or index in reported:
                    raise TesterGone("the tests' process broke the judge protocol (a verdict out of place)")
                reported.add(index)
                record({"test": first_index + index, "passed": passed is True,
                        "detail": printable(str(detail)[: DETAIL_CHARS + 3]), "memory": memory is True})  # fmt: skip
            elif kind == "done" and len(message) == 3:
                stdout, stderr = printable(str(message[1])), printable(str(message[2]))
                break
            else:
                raise TesterGone("the tests' process broke the judge protocol (an unexpected message)")
    except (TesterGone, NotPlainData) as gone:
        why = "not run: %s" % (gone if isinstance(gone, TesterGone) else "the tests' process broke the judge protocol")
        for index in range(len(tests)):
            if index not in reported:
                record({"test": first_index + index, "passed": False, "detail": why, "memory": False})
    link.stdout.feed(stdout.encode("utf-8"))
    link.stderr.feed(stderr.encode("utf-8"))


# ---------------------------------------------------------------- split design: the judge


def judge(link, candidate, tester, request, record):
    """Send the program, run each test against it, `record` every verdict; return (timed_out, lost)."""
    timed_out, lost = False, ""
    try:
        setup = request.get("setup") or ""
        link.send(candidate, ["program", request["program"], [request["limits"][name] for name in LIMIT_NAMES], setup])
        report = link.receive(candidate)
        if len(report) != 4 or report[0] != "program" or report[1] not in ("ok", "error", "syntax_error", "memory"):
            raise CandidateGone("the program broke the judge protocol (no program report)")
        record({"program": report[1], "detail": printable(str(report[2])[:TRACEBACK_CHARS])})
        if report[1] == "ok":
            entry_points = request.get("entry_points") or ()
            trusted = request["tests"]
            namespace = judge_namespace(Caller(link, candidate), report[3], entry_points)
            run_tests(trusted, namespace, setup, record)
            if tester is not None:
                run_untrusted_tests(link, candidate, tester, report[3], request, record, len(trusted))
        record({"done": True})
    except RunTimeUp:
        _signal.setitimer(_signal.ITIMER_REAL, 0)
        timed_out = True
    except CandidateGone as gone:
        _signal.setitimer(_signal.ITIMER_REAL, 0)
        lost = str(gone)
    _signal.setitimer(_signal.ITIMER_REAL, 0)
    return timed_out, lost


def end_run(candidate_pid, others, lost):
    """Kill the candidate, the tester and everything else of the run; the candidate's wait status if it had ended.

    Before the reply every process of the run is dead: when the pid counter
    shows no process made since the judge's own, killing those is enough;
    otherwise every process of the namespace but its init and the judge is
    killed (the judge's parent is init there: the sandbox's PID namespace).
    """
    status = own_end(candidate_pid) if lost else None
    for pid in [candidate_pid] + others:
        for target in (-pid, pid):
            try:
                os.kill(target, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
    if status is None:
        os.waitpid(candidate_pid, 0)  # blocks until it is gone, without spinning
    for pid in others:
        os.waitpid(pid, 0)
    if os.getppid() == 1 and last_pid() != max([candidate_pid] + others):
        kill_the_rest_of_the_namespace()
    return status


def judge_main(channel_in, channel_out, work_dir, watchdog_w):
    """The judge of one run (forked by the supervisor before any request): never returns.

    It keeps the supervisor's deafness to catchable signals, so a program that
    signals its parent cannot end the judging; the candidate gets them back.
    It tells the supervisor its deadline through `watchdog_w`.
    """
    program_r, program_w = os.pipe()
    reply_r, reply_w = os.pipe()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(watchdog_w)
            candidate_main(program_r, reply_w, out_w, err_w, work_dir)
        finally:
            os._exit(70)
    for fd in (program_r, reply_w, out_w, err_w):
        os.close(fd)
    try:
        header = receive_request_header(channel_in)
    except (ValueError, OSError):
        header = None
    if header is None:
        os._exit(EXIT_CHANNEL_CLOSED)
    tester = None
    if header[1] & FLAG_UNTRUSTED_TESTS:  # forked before the body is read: it never holds the request
        tester = start_tester(work_dir)
    if CANDIDATE_UID is not None:
        keep_only_kill()
    body = read_exactly(channel_in, header[0])
    if body is None:
        os._exit(EXIT_CHANNEL_CLOSED)
    request = json.loads(body)
    nonce = request["nonce"]
    limits = request["limits"]
    random.seed(0)  # tests that draw random inputs draw the same ones every run
    started = time.monotonic()
    deadline = started + float(limits["wall_seconds"])
    try:
        os.write(watchdog_w, b"%.6f" % deadline)
    except OSError:
        pass
    _signal.signal(int(signal.SIGALRM), on_alarm)  # a backstop for tests that loop in the judge itself
    _signal.setitimer(_signal.ITIMER_REAL, float(limits["wall_seconds"]) + ALARM_MARGIN)
    link = Link(deadline, int(limits["max_output_bytes"]))
    link.watch_output(out_r, err_r)
    candidate = link.add_peer("the program", program_w, reply_r)
    tester_peer = link.add_peer("the tests' process", tester[1], tester[2]) if tester else None
    sys.stdout, sys.stderr = _Output(link.stdout), _Output(link.stderr)
    records = []

    def record(message):
        message["nonce"] = nonce
        records.append(message)  # the judge is trusted: records travel as objects, not text lines

    timed_out, lost = judge(link, candidate, tester_peer, request, record)
    _signal.signal(int(signal.SIGALRM), _signal.SIG_IGN)
    status = end_run(pid, [tester[0]] if tester else [], lost)
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
    traces = BASELINE.traces(tester[0] if tester else pid) if BASELINE is not None else []
    if traces:
        reply["retire"] = traces
    try:
        send(channel_out, reply)
    finally:
        os._exit(EXIT_RETIRE if traces else EXIT_REPLIED)


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


def clean_up_files(work_dir, wipe_dirs):
    """Empty the writable directories (no --pristine: the process backend); False if one could not be emptied."""
    emptied = True
    for directory in wipe_dirs:
        try:
            entries = os.listdir(directory)
        except OSError:
            continue
        if entries:
            emptied = wipe(directory) and emptied
    if os.path.dirname(work_dir) not in wipe_dirs and os.path.isdir(work_dir):
        emptied = wipe(work_dir) and emptied
    return emptied


def retire(wipe_dirs, why):
    """The worker is done (a run left traces, or could not be judged or cleaned): remove what it can, then exit.

    The host replaces it. Removing first is a second line: the sandbox's
    namespaces die with the worker anyway, but the memory a run's System V
    segments or files hold is given back at once.
    """
    try:
        sys.__stderr__.write("the sandbox worker retires: %s\n" % why)
        sys.__stderr__.flush()
    except BaseException:
        pass
    try:
        kill_everything_else()
        if os.getpid() == 1:  # an IPC namespace of our own: its objects are ours to remove
            remove_leftovers([CANDIDATE_UID] if CANDIDATE_UID is not None else [])
        for directory in wipe_dirs:
            wipe(directory)
    finally:
        os._exit(0)


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
    signal_number = os.WTERMSIG(wait_status) if os.WIFSIGNALED(wait_status) else 0
    reply = {
        "records": [printable(line.decode("utf-8", "replace")) for line in bytes(results).splitlines()],
        "stdout": stdout.text(),
        "stderr": stderr.text(),
        "timed_out": timed_out,
        "signal": signal_number,
        "exit_code": os.WEXITSTATUS(wait_status) if os.WIFEXITED(wait_status) else None,
        "wall_seconds": wall,
    }
    if BASELINE is not None:
        traces = BASELINE.traces(pid)
        if traces:
            reply["retire"] = traces
        else:
            BASELINE.consumed_probes()
    elif not clean_up_files(work_dir, wipe_dirs):
        reply["retire"] = ["files that could not be removed"]
    return reply




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
# socket() with any family but AF_UNIX is denied as well: no network counter (packets, errors) can carry
# anything from one run to the next, even inside the sandbox's own network namespace.
IGNORED_NUMBERS = tuple(int(getattr(signal, name)) for name in SUPERVISOR_IGNORES)
CLONE_NEW_FLAGS = (0x00000080, 0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000, 0x40000000)


def harden(use_seccomp):
    """Make this process (and every fork of it) non-dumpable, deaf to signals and, optionally, filtered.

    The filter (libseccomp through python3-seccomp) answers EPERM to every
    syscall in DENIED_SYSCALLS, to clone with a namespace flag and to socket()
    for any family but AF_UNIX, and ENOSYS to clone3 (whose flags it cannot
    see), so the C library falls back to clone.
    Syscalls of another architecture (e.g. 32-bit int 0x80) kill the process.
    """
    if PRCTL(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
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
    rules.add_rule(denied, "socket", seccomp.Arg(0, seccomp.NE, AF_UNIX))
    rules.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    rules.load()
    return True


def warm_up():
    """Run the judge's, tester's and candidate's common paths in this process, on no request's data.

    What they create lazily (codec state, compiler and ast state, the
    specialised bytecode of the functions they run) then exists in the
    supervisor already, so each run's forks neither build it again nor write
    to the pages it lives on. Standard streams become line-buffered here, for
    the candidate's output.
    """
    for stream in (sys.stdout, sys.stderr):  # fds 1 and 2: the candidate's pipes once it runs
        stream.reconfigure(line_buffering=True)
    message = ["call", "f", [1, 2.5, "x", b"y", (1,), {1: [2]}, {3}, frozenset(), None, True], [["k", 1j]]]
    program = "def f(x):\n    return 2 * x\n"
    setup = "from typing import List\n"
    for _ in range(20):  # past the interpreter's warm-up count, so the bytecode is specialised here
        from_json(to_json(message))
        from_json(b'["ok", [1, {"t": [2]}]]')
        namespace = {"__builtins__": builtins, "__name__": "__main__"}
        code, _ = compile_program(program)
        run_program(code, setup, namespace)
        names = describe_names(namespace)
        tests_namespace = dict(judge_namespace(Caller(None, None), names, ("f",)), f=lambda x: 2 * x)
        run_tests(["assert f(1) == 2", "x = [i for i in range(3)]\nassert x"], tests_namespace, setup, lambda r: r)
        serve_call(namespace, ["call", "f", [2], []])
        exception_reply(ValueError("warm"))
        rebuilt_exception("ValueError", "ValueError: warm", ["ValueError", "Exception"])
        Capture(10).feed(b"warm")
        printable("warm")
        receive_request_header, end_run, run_untrusted_tests  # noqa: B018  (defined; run in forks only)


def wait_for_judge(pid, watchdog_r):
    """The judge's wait status, reaping the run's orphans meanwhile; (status, overran).

    Once the judge has told its deadline, a judge still running WATCHDOG_MARGIN
    after it (stuck in a C call its alarm cannot interrupt) is killed.
    """
    pidfd = os.pidfd_open(pid)
    poller = select.poll()
    poller.register(pidfd, select.POLLIN)
    poller.register(watchdog_r, select.POLLIN)
    give_up = None
    try:
        while True:
            if give_up is None:
                timeout = None
            else:
                timeout = max(0.0, min(REAP_INTERVAL, give_up - time.monotonic())) * 1000
            events = poller.poll(timeout)
            for fd, _ in events:
                if fd == watchdog_r:
                    data = os.read(watchdog_r, 64)
                    poller.unregister(watchdog_r)
                    if data:
                        try:
                            give_up = float(data) + WATCHDOG_MARGIN
                        except ValueError:
                            give_up = time.monotonic()
            ended, status = os.waitpid(pid, os.WNOHANG)
            if ended:
                return status, False
            while reap_one():  # orphans of the run, re-parented to us: reap them as they die
                pass
            if give_up is not None and time.monotonic() >= give_up:
                os.kill(pid, signal.SIGKILL)
                return os.waitpid(pid, 0)[1], True
    finally:
        os.close(pidfd)


def reap_one():
    """Reap one ended child, if any; True if one was reaped."""
    try:
        ended, _ = os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:
        return False
    return ended > 0


def supervise(channel_in, channel_out, work_dir, wipe_dirs):
    """Fork a judge per run from this never-touched state; clean up after each. Returns at EOF.

    A run the judge found clean leaves nothing to do but note the probes its
    check consumed. A run that left traces, whose judge died or overran, or
    (without --pristine) whose files could not be removed ends this worker:
    `retire` removes what it can and exits, and the host starts a fresh one.
    """
    while True:
        watchdog_r, watchdog_w = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                os.close(watchdog_r)
                judge_main(channel_in, channel_out, work_dir, watchdog_w)
            finally:
                os._exit(70)
        os.close(watchdog_w)
        try:
            status, overran = wait_for_judge(pid, watchdog_r)
        finally:
            os.close(watchdog_r)
        code = os.WEXITSTATUS(status) if os.WIFEXITED(status) else None
        kill_everything_else()
        if code == EXIT_CHANNEL_CLOSED:
            return
        if overran:
            send(channel_out, {"lost": True, "timed_out": True, "retire": ["an overrunning judge"],
                               "detail": "the run's judge overran the time limit and was stopped"})  # fmt: skip
            retire(wipe_dirs, "a judge overran its deadline")
        if code not in (EXIT_REPLIED, EXIT_RETIRE):
            died = "signal %d" % os.WTERMSIG(status) if os.WIFSIGNALED(status) else "exit code %s" % code
            send(channel_out, {"lost": True, "retire": ["a judge that ended before replying"],
                               "detail": "the run's judge ended before replying (%s)" % died})  # fmt: skip
            retire(wipe_dirs, "a judge ended before replying")
        if code == EXIT_RETIRE:
            retire(wipe_dirs, "a run left traces")
        if BASELINE is not None:
            BASELINE.consumed_probes()
        elif not clean_up_files(work_dir, wipe_dirs):
            retire(wipe_dirs, "files that could not be removed")


def parse_arguments(argv):
    options = {"work": "/tmp/work", "wipe": [], "design": "split", "seccomp": False, "pristine": False,
               "candidate-uid": None}  # fmt: skip
    index = 0
    while index < len(argv):
        flag = argv[index]
        if flag in ("--seccomp", "--pristine"):
            options[flag[2:]] = True
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
            request = receive_request(channel_in)
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
        if reply.get("retire"):
            retire(wipe_dirs, "a run left traces")


def prepare_work_dir(work_dir):
    """Make the run's working directory, owned by whoever runs the program (the candidate's uid if it has one)."""
    if os.path.isdir(work_dir):
        return
    if CANDIDATE_UID is None:
        os.makedirs(work_dir, mode=0o700, exist_ok=True)
        return
    pid = os.fork()
    if pid == 0:
        try:
            os.setresgid(CANDIDATE_UID, CANDIDATE_UID, CANDIDATE_UID)
            os.setresuid(CANDIDATE_UID, CANDIDATE_UID, CANDIDATE_UID)
            os.makedirs(work_dir, mode=0o700, exist_ok=True)
        finally:
            os._exit(0)
    os.waitpid(pid, 0)


def main():
    options = parse_arguments(sys.argv[1:])
    work_dir, wipe_dirs = options["work"], options["wipe"]
    channel_in, channel_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    if os.getpid() != 1:
        PRCTL(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    split = options["design"] == "split"
    global CANDIDATE_UID, BASELINE
    CANDIDATE_UID = options["candidate-uid"] if split else None
    filtered = harden(options["seccomp"]) if split else False
    for directory in wipe_dirs:
        if not wipe(directory):
            raise SystemExit("the sandbox worker could not empty %s" % directory)
    if os.getpid() == 1 and remove_leftovers([CANDIDATE_UID] if CANDIDATE_UID is not None else []):
        raise SystemExit("the sandbox worker could not remove the IPC objects it found")
    if options["pristine"]:
        prepare_work_dir(work_dir)
    warm_up()
    if options["pristine"]:  # after everything the worker itself makes: the state each run must leave as found
        BASELINE = Baseline([work_dir] + wipe_dirs)
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
            "pristine": BASELINE is not None,
            "candidate_uid": CANDIDATE_UID,
        },
    )
    if split:
        supervise(channel_in, channel_out, work_dir, wipe_dirs)
    else:
        serve_shared(channel_in, channel_out, work_dir, wipe_dirs)


if __name__ == "__main__":
    main()
