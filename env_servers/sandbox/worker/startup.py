"""The worker's start, common to every design: its arguments, its channel, a pristine state, the ready message.

Command line: --work DIR (the run's working directory), --wipe DIR (repeatable;
emptied at start, and after each run without --pristine; DIR itself kept),
--design NAME (must name the design of the script that runs: its entry module says which),
--seccomp (split: load the filter, or refuse to start if python3-seccomp is
missing), --pristine (check every run for what it left, see pristine.py),
--candidate-uid UID (split: the candidate's and tester's uid),
--run-namespaces (split, with --seccomp: each run gets IPC, network and mount
namespaces of its own, with a fresh tmpfs on each --wipe directory, made by its
judge; the worker refuses to start if they cannot be made; see run_namespaces.py),
--own-user-namespace (with --run-namespaces, where the sandbox grants no capability:
the worker first makes a user namespace of its own to make them in).
"""

import gc
import os
import sys

from env_servers.sandbox.ipc_objects import remove_leftovers
from env_servers.sandbox.pristine import Baseline, wipe
from env_servers.sandbox.worker.hardening import LIBC, PR_SET_CHILD_SUBREAPER, PRCTL
from env_servers.sandbox.worker.host_channel import send
from env_servers.sandbox.worker.state import STATE

FLAGS = ("--seccomp", "--pristine", "--run-namespaces", "--own-user-namespace")
OPTIONS = ("--work", "--wipe", "--design", "--candidate-uid")


def parse_arguments(argv, design):
    """The worker's options; SystemExit for an unknown argument or a design other than this script's."""
    options = {"work": "/tmp/work", "wipe": [], "design": design, "seccomp": False, "pristine": False,
               "candidate-uid": None, "run-namespaces": False, "own-user-namespace": False}  # fmt: skip
    index = 0
    while index < len(argv):
        flag = argv[index]
        if flag in FLAGS:
            options[flag[2:]] = True
            index += 1
            continue
        if flag not in OPTIONS or index + 1 >= len(argv):
            raise SystemExit("unknown argument %r" % flag)
        value = argv[index + 1]
        if flag == "--wipe":
            options["wipe"].append(value)
        else:
            options[flag[2:]] = value
        index += 2
    if options["design"] != design:
        raise SystemExit("--design must be %s: this is the %s design's worker" % (design, design))
    if options["candidate-uid"] is not None:
        options["candidate-uid"] = int(options["candidate-uid"])
    if options["run-namespaces"] and not options["seccomp"]:
        raise SystemExit("--run-namespaces needs --seccomp: the run's filter is stacked on the worker's")
    if options["own-user-namespace"] and not options["run-namespaces"]:
        raise SystemExit("--own-user-namespace needs --run-namespaces: it is made only to make them in")
    return options


def take_the_channel():
    """(channel in, channel out): the host's pipes, moved off fds 0 and 1; this process becomes a subreaper unless it is PID 1."""
    channel_in, channel_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    if os.getpid() != 1:
        PRCTL(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    return channel_in, channel_out


def prepare_work_dir(work_dir):
    """Make the run's working directory, owned by whoever runs the program (the candidate's uid if it has one)."""
    if os.path.isdir(work_dir):
        return
    uid = STATE.candidate_uid
    if uid is None:
        os.makedirs(work_dir, mode=0o700, exist_ok=True)
        return
    pid = os.fork()
    if pid == 0:
        try:
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
            os.makedirs(work_dir, mode=0o700, exist_ok=True)
        finally:
            os._exit(0)
    os.waitpid(pid, 0)


def settle(options, warm_up):
    """Empty the writable directories, remove IPC objects found, run `warm_up`, take the baseline, freeze the heap."""
    work_dir, wipe_dirs = options["work"], options["wipe"]
    for directory in wipe_dirs:
        if not wipe(directory):
            raise SystemExit("the sandbox worker could not empty %s" % directory)
    others = [STATE.candidate_uid] if STATE.candidate_uid is not None else []
    if os.getpid() == 1 and remove_leftovers(others):
        raise SystemExit("the sandbox worker could not remove the IPC objects it found")
    if options["pristine"]:
        prepare_work_dir(work_dir)
    warm_up()
    if options["pristine"]:  # after everything the worker itself makes: the state each run must leave as found
        run_namespaces = STATE.run_namespaces is not None
        STATE.baseline = Baseline([] if run_namespaces else [work_dir] + wipe_dirs, run_namespaces=run_namespaces)
    gc.collect()
    gc.freeze()
    LIBC.malloc_trim(0)  # fewer pages for every fork to copy


def announce_ready(channel_out, options, filtered):
    """Tell the host the worker is ready, and how it runs."""
    send(
        channel_out,
        {
            "ready": True,
            "pid": os.getpid(),
            "python": sys.version.split()[0],
            "design": options["design"],
            "seccomp": filtered,
            "pristine": STATE.baseline is not None,
            "candidate_uid": STATE.candidate_uid,
            "run_namespaces": STATE.run_namespaces is not None,
        },
    )
