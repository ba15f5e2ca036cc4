"""The shared design's worker (the INSECURE control): it reads each request itself and runs it in one forked child.

Per run the worker forks one child (shared_child.py) that runs the program
and then the tests in the program's own process, streaming records tagged
with the run's nonce; the worker collects them with the child's output and
replies. Arguments: see env_servers/sandbox/worker/startup.py.
"""

import builtins
import errno
import os
import selectors
import signal
import sys
import time

from tests.sandbox.control.shared_child import child_main
from env_servers.sandbox.worker.assertions import run_tests
from env_servers.sandbox.worker.cleanup import clean_up_files, kill_everything_else, retire
from env_servers.sandbox.worker.host_channel import receive_request, send
from env_servers.sandbox.worker.output import Capture
from env_servers.sandbox.worker.program import compile_program, run_program
from env_servers.sandbox.worker.startup import announce_ready, parse_arguments, settle, take_the_channel
from env_servers.sandbox.worker.state import STATE
from env_servers.sandbox.worker.texts import printable

MAX_RECORD_BYTES = 1 << 20


class ChildPipes:
    """The child's stdout, stderr and records, read as they come until it exits or the deadline passes."""

    def __init__(self, pid, out_r, err_r, res_r, output_limit):
        self.stdout, self.stderr = Capture(output_limit), Capture(output_limit)
        self.results = bytearray()
        self.res_r = res_r
        self.pidfd = os.pidfd_open(pid)
        self.selector = selectors.DefaultSelector()
        self.sinks = {out_r: self.stdout.feed, err_r: self.stderr.feed, res_r: self.results.extend}
        for fd in self.sinks:
            os.set_blocking(fd, False)
            self.selector.register(fd, selectors.EVENT_READ)
        self.selector.register(self.pidfd, selectors.EVENT_READ)
        self.open_fds = set(self.sinks)

    def read_some(self, fd):
        """Read one chunk into its sink; False once the pipe is empty or closed."""
        try:
            data = os.read(fd, 1 << 16)
        except BlockingIOError:
            return False
        if not data:
            self.selector.unregister(fd)
            self.open_fds.discard(fd)
            return False
        if fd == self.res_r and len(self.results) + len(data) > MAX_RECORD_BYTES:
            data = data[: max(0, MAX_RECORD_BYTES - len(self.results))]
        self.sinks[fd](data)
        return True

    def until_exit(self, deadline):
        """Read until the child exits; True if the deadline passed first."""
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return True
            events = self.selector.select(remaining)
            for key, _ in events:
                if key.fd != self.pidfd:
                    self.read_some(key.fd)
            if any(key.fd == self.pidfd for key, _ in events):
                return False

    def drain_and_close(self):
        """Every writer is dead: read what is left up to EOF, then close everything."""
        for fd in list(self.open_fds):
            while fd in self.open_fds and self.read_some(fd):
                pass
        for fd in list(self.open_fds) + [self.pidfd]:
            self.selector.unregister(fd)
        for fd in list(self.sinks) + [self.pidfd]:
            os.close(fd)
        self.selector.close()


def fork_child(request, work_dir):
    """Fork the run's child; (pid, its stdout, stderr and records pipes' read ends)."""
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
    return pid, out_r, err_r, res_r


def stop_child(pid):
    """Kill the child and its group; its wait status."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    return os.waitpid(pid, 0)[1]


def serve_run(request, work_dir, wipe_dirs):
    """Run one request in a forked child; the reply (marked "retire" if the run left traces)."""
    limits = request["limits"]
    deadline = time.monotonic() + float(limits["wall_seconds"])
    started = time.monotonic()
    os.makedirs(work_dir, mode=0o700, exist_ok=True)
    pid, out_r, err_r, res_r = fork_child(request, work_dir)
    pipes = ChildPipes(pid, out_r, err_r, res_r, int(limits["max_output_bytes"]))
    timed_out = pipes.until_exit(deadline)
    wait_status = stop_child(pid)
    kill_everything_else()
    pipes.drain_and_close()
    reply = {
        "records": [printable(line.decode("utf-8", "replace")) for line in bytes(pipes.results).splitlines()],
        "stdout": pipes.stdout.text(),
        "stderr": pipes.stderr.text(),
        "timed_out": timed_out,
        "signal": os.WTERMSIG(wait_status) if os.WIFSIGNALED(wait_status) else 0,
        "exit_code": os.WEXITSTATUS(wait_status) if os.WIFEXITED(wait_status) else None,
        "wall_seconds": time.monotonic() - started,
    }
    if STATE.baseline is not None:
        traces = STATE.baseline.traces(pid)
        if traces:
            reply["retire"] = traces
        else:
            STATE.baseline.consumed_probes()
    elif not clean_up_files(work_dir, wipe_dirs):
        reply["retire"] = ["files that could not be removed"]
    return reply


def serve_shared(channel_in, channel_out, work_dir, wipe_dirs):
    """Read each request here, run it in one forked child, reply; returns at EOF."""
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


def warm_up():
    """Run the child's paths once in this process, on no request's data, so each fork finds them made."""
    for stream in (sys.stdout, sys.stderr):
        stream.reconfigure(line_buffering=True)
    for _ in range(20):  # past the interpreter's warm-up count, so the bytecode is specialised here
        namespace = {"__builtins__": builtins, "__name__": "__main__"}
        code, _ = compile_program("def f(x):\n    return 2 * x\n")
        run_program(code, "from typing import List\n", namespace)
        run_tests(["assert f(1) == 2", "x = [i for i in range(3)]\nassert x"], dict(namespace), "", lambda r: r)
        Capture(10).feed(b"warm")
        printable("warm")


def main():
    options = parse_arguments(sys.argv[1:], "shared")
    channel_in, channel_out = take_the_channel()
    settle(options, warm_up)
    announce_ready(channel_out, options, False)
    serve_shared(channel_in, channel_out, options["work"], options["wipe"])


if __name__ == "__main__":
    main()
