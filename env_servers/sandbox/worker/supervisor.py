"""The supervisor (split design): PID 1 of the sandbox, or a subreaper; it forks a judge per run, never reads a request.

With --run-namespaces each judge is PID 1 of the run's own PID namespace
(run_namespaces.py): every process of the run dies with its judge.

A judge still running WATCHDOG_MARGIN after the deadline it announced is
killed; a judge that ends without replying gets a reply from the supervisor.
After each run it kills what is left; a run that left traces (or could not be
judged or cleaned) retires the worker, so the slot gets a fresh one.
"""

import os
import select
import signal
import time

from env_servers.sandbox.worker.cleanup import clean_up_files, kill_everything_else, reap_one, retire
from env_servers.sandbox.worker.hardening import die_with_parent
from env_servers.sandbox.worker.host_channel import send
from env_servers.sandbox.worker.judge import EXIT_CHANNEL_CLOSED, EXIT_REPLIED, EXIT_RETIRE, judge_main
from env_servers.sandbox.worker.run_namespaces import fork_in_a_fresh_pid_namespace
from env_servers.sandbox.worker.state import STATE

WATCHDOG_MARGIN = 1.5  # the supervisor kills a judge still running this long after the run's deadline
REAP_INTERVAL = 0.05  # how often the supervisor reaps orphans while a run goes on


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


def supervise(channel_in, channel_out, work_dir, wipe_dirs):
    """Fork a judge per run from this never-touched state; clean up after each. Returns at EOF.

    A run the judge found clean leaves nothing to do but note the probes its
    check consumed. A run that left traces, whose judge died or overran, or
    (without --pristine) whose files could not be removed ends this worker:
    `retire` removes what it can and exits, and the host starts a fresh one.
    Each judge dies with the supervisor (see die_with_parent).
    """
    supervisor = os.getpid()
    while True:
        watchdog_r, watchdog_w = os.pipe()
        pid = fork_in_a_fresh_pid_namespace() if STATE.run_namespaces is not None else os.fork()
        if pid == 0:
            try:
                os.close(watchdog_r)
                die_with_parent(supervisor)
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
        if STATE.baseline is not None:
            STATE.baseline.consumed_probes()
        elif not clean_up_files(work_dir, wipe_dirs):
            retire(wipe_dirs, "files that could not be removed")
