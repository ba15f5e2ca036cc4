"""The warm worker that runs inside one sandbox (standard library only, Python >= 3.9).

It is started once per sandbox slot and serves runs one at a time over its
stdin/stdout: each frame is a 4-byte big-endian length and a JSON object.

Per run it forks a child from its pristine state (it never runs untrusted code
itself, so nothing one run imports or defines reaches the next), sets the run's
rlimits in the child, runs the program then each test, and streams one JSON
record per event to a private result pipe. The child writes the run's nonce
in every record and a "done" record only after the last test; the host ignores
records without the nonce and treats a run without "done" as crashed, whatever
the exit code. After the child ends (or the wall-clock deadline passes) the
worker kills every process the run left, reaps them (it is PID 1 of its PID
namespace, or a subreaper), and wipes the writable directories.

Command line: --work DIR (the run's working directory, made fresh per run),
--wipe DIR (repeatable; contents removed after each run; DIR itself kept).
"""

import ast
import bisect  # noqa: F401  (warm: see below)
import collections  # noqa: F401
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
import selectors
import shutil
import signal
import stat
import string  # noqa: F401
import struct
import sys
import time
import traceback
import types
import typing  # noqa: F401

# The modules marked F401 are imported only to warm them: model-written programs
# import them most, and a run's child then gets them for free. They are state of
# the pristine worker, shared read-only, not of any run.

HEADER = struct.Struct(">I")
MAX_REQUEST_BYTES = 64 << 20
MAX_RECORD_BYTES = 1 << 20
DETAIL_CHARS = 1000
TRACEBACK_CHARS = 4000
MODULE_NAME = "__solution__"
PR_SET_CHILD_SUBREAPER = 36


def read_exactly(fd, size):
    chunks = []
    while size:
        chunk = os.read(fd, min(size, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def receive(fd):
    header = read_exactly(fd, HEADER.size)
    if header is None:
        return None
    (size,) = HEADER.unpack(header)
    if size > MAX_REQUEST_BYTES:
        raise ValueError("request frame too large")
    body = read_exactly(fd, size)
    return None if body is None else json.loads(body)


def send(fd, message):
    body = json.dumps(message).encode()
    data = HEADER.pack(len(body)) + body
    while data:
        data = data[os.write(fd, data) :]


# ---------------------------------------------------------------- the run's child


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
    except MemoryError:
        return False, "MemoryError: the memory limit was exceeded", True
    except BaseException as error:
        return False, describe(error), False


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


# ---------------------------------------------------------------- the worker


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
    """Drop System V shared memory, queues and semaphores a run created (they outlive processes)."""
    for kind in ("shm", "msg", "sem"):
        try:
            fd = os.open("/proc/sysvipc/" + kind, os.O_RDONLY)
            try:
                rows = os.read(fd, 1 << 20).decode().splitlines()[1:]
            finally:
                os.close(fd)
        except OSError:
            continue
        if not rows:
            continue
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        for row in rows:
            ident = int(row.split()[1])
            if kind == "shm":
                libc.shmctl(ident, 0, None)  # IPC_RMID
            elif kind == "msg":
                libc.msgctl(ident, 0, None)
            else:
                libc.semctl(ident, 0, 0)


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


def parse_arguments(argv):
    work_dir, wipe_dirs = "/tmp/work", []
    index = 0
    while index < len(argv):
        if argv[index] == "--work":
            work_dir = argv[index + 1]
        elif argv[index] == "--wipe":
            wipe_dirs.append(argv[index + 1])
        else:
            raise SystemExit("unknown argument %r" % argv[index])
        index += 2
    return work_dir, wipe_dirs


def main():
    work_dir, wipe_dirs = parse_arguments(sys.argv[1:])
    channel_in, channel_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    if os.getpid() != 1:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    for directory in wipe_dirs:
        wipe(directory)
    random.seed(0)  # every run starts from the same random state: reruns reproduce
    gc.collect()
    gc.freeze()
    send(channel_out, {"ready": True, "pid": os.getpid(), "python": sys.version.split()[0]})
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


if __name__ == "__main__":
    main()
