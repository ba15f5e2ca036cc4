"""Starting the GridWalk OpenEnv server (tests/openenv/serve.py) as a real process."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import threading
import time
from collections import deque
from pathlib import Path

import httpx

from lats_runtime.processes import _LISTENING

ROOT = Path(__file__).resolve().parents[2]


@contextlib.contextmanager
def gridwalk_server(max_envs: int = 32, timeout: float = 90.0, port: int = 0):
    """Serves GridWalk through OpenEnv's own app (on `port`, 0: a free one); yields the
    server's http:// URL, under which /steady, /noisy and /drifting are the three kinds
    (tests/openenv/serve.py)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.openenv.serve", "--max-envs", str(max_envs),
         "--port", str(port)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    output: deque = deque(maxlen=200)
    try:
        for line in process.stdout:
            output.append(line)
            match = _LISTENING.search(line)
            if match:
                break
        else:
            process.wait()
            raise AssertionError(f"GridWalk exited with {process.returncode}:\n{''.join(output)}")
        threading.Thread(target=lambda: output.extend(process.stdout), daemon=True).start()
        url = f"http://{match.group(1)}"
        deadline = time.monotonic() + timeout
        while True:
            try:
                if httpx.get(f"{url}/steady/health", timeout=2,
                             trust_env=False).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, f"GridWalk never got healthy:\n{''.join(output)}"
            time.sleep(0.2)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

