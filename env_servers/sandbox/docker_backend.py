"""The Docker backend: each worker is the main process (PID 1) of its own warm container.

Container: network none, read-only root, all capabilities dropped,
no-new-privileges, private IPC, pids/memory/CPU limits, a non-root per-slot
uid, a size-capped tmpfs /tmp owned by that uid (the work dir lives there), no
logging. Each run gets namespaces of its own (worker/run_namespaces.py), made
in a user namespace the worker makes first (--own-user-namespace): for that the
container gets the seccomp profile container_seccomp.json (Docker's default
refuses user namespaces; this one allows them and denies what a sandboxed
program has no use for) and no masked or read-only path under /proc (the
kernel lets a user namespace mount a procfs only where one is fully visible;
each run sees a /proc of its own processes only). Its root is in memory: the
container's first process copies what the sandbox's Python needs onto a
tmpfs, pivots into it and only then starts the worker from it
(memory_root.py), so no run reads or evicts the page cache of the image's
layers on disk, which every container of the image shares (a container's
first run comes about 0.25 s later: 0.43-0.56 s against 0.22-0.30 s; 50 MB
more of its memory, covered by its cap). The host talks to the worker over
the container's attached stdin/stdout (the engine's multiplexed stream), so
no exec is needed per run.
"""

from __future__ import annotations

import asyncio
import errno
import struct
import uuid
from collections import deque
from importlib.resources import files

from env_servers.sandbox.base import SandboxUnavailable
from env_servers.sandbox.cgroups import JUDGE_ALLOWANCE, DockerCgroup
from env_servers.sandbox.bwrap import SANDBOX_ENV, WORK_DIR
from env_servers.sandbox.channel import (
    STDERR_TAIL_BYTES,
    Launcher,
    WorkerChannel,
    check_design,
    design_arguments,
    source_frame,
    until_memory_is_freed,
    worker_command,
)
from env_servers.sandbox.engine import find_engine
from env_servers.sandbox.host_counters import docker_masked_paths
from env_servers.sandbox.image import IMAGE
from env_servers.sandbox.uids import allocate_uid
from env_servers.sandbox.worker_script import SPLIT, WorkerDesign, memory_root_source

STREAM_HEADER = struct.Struct(">BxxxI")
LABEL = "lats.sandbox.pool"
MEMORY_ROOT_BYTES = 96 << 20  # the in-memory root's tmpfs (the tree is about 50 MB), added to the container's cap
SECCOMP_PROFILE = "container_seccomp.json"  # also the code runner's container's (deploy/seccomp/coderunner.json)


def seccomp_profile() -> str:
    """The sandbox containers' seccomp profile (JSON text): Docker's default allowances plus user namespaces."""
    return files("env_servers.sandbox").joinpath(SECCOMP_PROFILE).read_text()


class DockerChannel(WorkerChannel):
    """A worker in a container, reached through an attach socket."""

    def __init__(self, client, container_id: str, raw_socket, host_pid: int, root_bytes: int = 0):
        self.client = client
        self.root_bytes = root_bytes  # what the container's root in memory may hold, beyond every run's cap
        self.container_id = container_id
        self.host_pids = (host_pid,) if host_pid else ()
        self.reader = asyncio.StreamReader(limit=1 << 20)
        self._socket = raw_socket
        self._stderr_tail: deque[bytes] = deque(maxlen=64)
        self._writer: asyncio.StreamWriter | None = None
        self._pump_task: asyncio.Task | None = None
        self._killed = False
        self._memory_cap: int | None = None
        self._cgroup = DockerCgroup(container_id)

    async def open(self) -> None:
        self._socket.setblocking(False)
        stream_reader, self._writer = await asyncio.open_unix_connection(sock=self._socket, limit=1 << 20)
        self._pump_task = asyncio.ensure_future(self._demultiplex(stream_reader))

    async def _demultiplex(self, source: asyncio.StreamReader) -> None:
        try:
            while True:
                header = await source.readexactly(STREAM_HEADER.size)
                stream, size = STREAM_HEADER.unpack(header)
                payload = await source.readexactly(size)
                if stream == 1:
                    self.reader.feed_data(payload)
                else:
                    self._stderr_tail.append(payload)
        except (asyncio.IncompleteReadError, ConnectionError, OSError):
            pass
        finally:
            self.reader.feed_eof()

    async def send(self, data: bytes) -> None:
        self._writer.write(data)
        await self._writer.drain()

    async def kill(self) -> None:
        if self._killed:
            return
        self._killed = True
        if self._writer is not None:
            self._writer.close()
        await asyncio.to_thread(self._remove)
        if self._pump_task is not None:
            self._pump_task.cancel()

    def _remove(self) -> None:
        import docker

        try:
            self.client.api.remove_container(self.container_id, force=True)
        except docker.errors.NotFound:
            pass
        except docker.errors.APIError as error:
            if error.status_code != 409:  # 409: the engine is already removing it (auto_remove)
                raise

    def diagnostics(self) -> str:
        return b"".join(self._stderr_tail).decode("utf-8", "replace")[-STDERR_TAIL_BYTES:]

    @property
    def memory_capped(self) -> bool:
        return True  # the container's memory limit covers all its processes

    async def apply_limits(self, memory_bytes: int, max_processes: int) -> None:
        """Resize the container's caps when a run asks for other limits than the last one.

        A finished run's namespaces, and the shared memory and tmpfs pages they
        hold, are freed asynchronously, and the engine refuses a cap below what
        the container holds: it is retried until that memory is gone (CapsNotSet
        after a few seconds).
        """
        wanted = memory_bytes + JUDGE_ALLOWANCE + self.root_bytes  # processes: the pids limit and RLIMIT_NPROC
        if wanted != self._memory_cap:
            await until_memory_is_freed(lambda: self._set_memory_cap(wanted))
            self._memory_cap = wanted

    def _set_memory_cap(self, wanted: int) -> None:
        import docker

        try:
            self.client.api.update_container(self.container_id, mem_limit=wanted, memswap_limit=wanted)
        except docker.errors.APIError as error:
            raise OSError(errno.EBUSY, str(error)) from error

    def oom_kills(self) -> int:
        return self._cgroup.oom_kills()

    def note_memory_baseline(self) -> None:
        self._cgroup.note_baseline()

    def memory_left_behind(self) -> int:
        return self._cgroup.memory_beyond()


class DockerLauncher(Launcher):
    name = "docker"
    secure = True
    makes_run_namespaces = True

    def __init__(
        self,
        *,
        client=None,
        base_url: str | None = None,
        image: str = IMAGE,
        container_memory_bytes: int = (1 << 30) + (256 << 20),
        cpus: float = 1.0,
        pids: int = 128,
        tmp_bytes: int = 128 << 20,
        design: WorkerDesign = SPLIT,
    ):
        import docker

        self.design = check_design(design)
        if client is None:
            base_url = base_url or find_engine()
            if base_url is None:
                raise SandboxUnavailable(
                    "no Docker engine answers (DOCKER_HOST, the private socket, /var/run/docker.sock): "
                    "start one with `python -m env_servers.sandbox docker-up` (root) or set DOCKER_HOST"
                )
            client = docker.DockerClient(base_url=base_url)
        self.client = client
        self.image = image
        try:
            self.client.images.get(image)
        except docker.errors.ImageNotFound as error:
            raise SandboxUnavailable(
                f"the Docker image {image} is missing: "
                "build it with `python -m env_servers.sandbox docker-up`"
            ) from error
        except docker.errors.DockerException as error:
            raise SandboxUnavailable(f"the Docker engine did not answer: {error}") from error
        self.container_memory_bytes = container_memory_bytes
        self.cpus = cpus
        self.pids = pids
        self.tmp_bytes = tmp_bytes
        self.pool_label = uuid.uuid4().hex
        self._uids: dict[int, int] = {}
        self._source = source_frame(self.design)
        self._profile = seccomp_profile() if self.run_namespaces else None
        self._memory_root = memory_root_source()

    def slot_uid(self, slot: int) -> int:
        if slot not in self._uids:
            self._uids[slot] = allocate_uid()
        return self._uids[slot]

    def _create_and_attach(self, slot: int):
        api = self.client.api
        uid = self.slot_uid(slot)
        security = ["no-new-privileges"] + ([f"seccomp={self._profile}"] if self.run_namespaces else [])
        host_config = api.create_host_config(
            network_mode="none",
            read_only=True,
            cap_drop=["ALL"],
            security_opt=security,
            ipc_mode="private",
            pids_limit=self.pids,
            mem_limit=self.container_memory_bytes,
            memswap_limit=self.container_memory_bytes,
            nano_cpus=int(self.cpus * 1e9),
            shm_size=16 << 20,
            tmpfs={"/tmp": f"rw,nosuid,nodev,exec,size={self.tmp_bytes},uid={uid},gid={uid},mode=0700"},
            log_config={"Type": "none", "Config": {}},
            init=False,
            auto_remove=True,  # with stdin closing when we detach, a host that dies leaves no container
        )
        host_config["MaskedPaths"] = docker_masked_paths(self.run_namespaces)  # host-wide counters (host_counters.py)
        if self.run_namespaces:
            host_config["ReadonlyPaths"] = []  # with the masks under /proc: `systempaths=unconfined`
        in_memory = ["python3", "-I", "-c", self._memory_root, "--size", str(MEMORY_ROOT_BYTES), "--"]
        command = [
            *(in_memory if self.run_namespaces else []),
            *worker_command("/usr/bin/python3" if self.run_namespaces else "python3"),
            "--work",
            WORK_DIR,
            "--wipe",
            "/tmp",
            "--wipe",
            "/dev/shm",
            *design_arguments(self.design),
            *(["--run-namespaces", "--own-user-namespace"] if self.run_namespaces else []),
        ]
        container = api.create_container(
            self.image,
            command=command,
            user=f"{uid}:{uid}",
            environment=SANDBOX_ENV,
            working_dir="/tmp",
            hostname="sandbox",
            stdin_open=True,
            tty=False,
            network_disabled=True,
            labels={LABEL: self.pool_label},
            host_config=host_config,
        )
        container_id = container["Id"]
        try:
            sock = api.attach_socket(container_id, params={"stdin": 1, "stdout": 1, "stderr": 1, "stream": 1})
            api.start(container_id)
            host_pid = api.inspect_container(container_id)["State"].get("Pid", 0)
        except Exception:
            api.remove_container(container_id, force=True)
            raise
        raw = getattr(sock, "_sock", sock)
        return container_id, raw, host_pid

    async def start(self, slot: int) -> WorkerChannel:
        container_id, raw, host_pid = await asyncio.to_thread(self._create_and_attach, slot)
        channel = DockerChannel(self.client, container_id, raw, host_pid,
                                MEMORY_ROOT_BYTES if self.run_namespaces else 0)
        await channel.open()
        await channel.send(self._source)
        return channel

    async def aclose(self) -> None:
        def remove_leftovers():
            for container in self.client.api.containers(
                all=True, filters={"label": f"{LABEL}={self.pool_label}"}
            ):
                self.client.api.remove_container(container["Id"], force=True)

        try:
            await asyncio.to_thread(remove_leftovers)
        except Exception:
            pass
        self.client.close()
