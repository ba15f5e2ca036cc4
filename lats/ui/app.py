"""The run viewer's HTTP application (aiohttp).

Pages (static, drawn in the browser from the JSON API):
  GET /                 the runs, with filters
  GET /run?id=RUN       one run's tree; live while the run is going
JSON API:
  GET /api/runs?environment=&method=&status=&model=&task=&limit=&offset=
                        runs without their trees, newest first
  GET /api/facets       the environments, methods and models to filter by
  GET /api/run?id=RUN   one run with its tree (protobuf's JSON mapping)
  GET /api/events?id=RUN
                        server-sent events: `snapshot` (a run), `search` (a
                        SearchEvent, as `lats solve --json` prints it), then
                        `end`; comments keep idle streams open
Operations: GET /healthz, GET /metrics (Prometheus).

Bad input is a 400 (404 for an unknown run) with a JSON body whose `error`
says what to fix. Every response forbids framing and off-site assets (CSP).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
from pathlib import Path

from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, Counter, Gauge, generate_latest

from lats.run_inspection.views import STATUS_VALUES, message_json
from lats_client import LatsError
from lats.ui.live import RunNotFound, follow_run
from planner.runs import RunQuery, RunStore
from planner.runs.store import MAX_LIST_LIMIT

log = logging.getLogger(__name__)

STATIC = Path(__file__).with_name("static")
STORE_KEY = web.AppKey("store", RunStore)
SETTINGS_KEY = web.AppKey("settings", dict)
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self'; "
                               "script-src 'self'; connect-src 'self'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
HEARTBEAT_SECONDS = 15.0

REQUESTS = Counter("lats_ui_requests_total", "HTTP requests to the run viewer.",
                   ("route", "code"))
LIVE_STREAMS = Gauge("lats_ui_live_streams", "Event streams open to browsers.")


class BadRequest(ValueError):
    """A query parameter that cannot be used (the message says which and why)."""


def _error(status: int, message: str) -> web.Response:
    return web.json_response({"error": message}, status=status)


@web.middleware
async def _observe(request: web.Request, handler):
    route = request.match_info.route.resource
    name = route.canonical if route is not None else "unmatched"
    try:
        response = await handler(request)
    except web.HTTPException as error:
        REQUESTS.labels(name, str(error.status)).inc()
        raise
    except BadRequest as error:
        response = _error(400, str(error))
    except LatsError as error:    # runs read through a planner (--planner): name it
        response = _error(503, f"{error}; retry shortly")
    except Exception:   # noqa: BLE001 - a store failure must be a clean 503, not a crash
        log.exception("%s %s failed", request.method, request.path)
        response = _error(503, "the run store did not answer; retry shortly")
    REQUESTS.labels(name, str(response.status)).inc()
    if not response.prepared:
        response.headers.update(SECURITY_HEADERS)
    return response


def _text(request: web.Request, name: str, limit: int = 200) -> str:
    value = request.query.get(name, "").strip()
    if len(value) > limit:
        raise BadRequest(f"{name} is longer than {limit} characters")
    return value


def _integer(request: web.Request, name: str, default: int, low: int, high: int) -> int:
    raw = request.query.get(name, "")
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise BadRequest(f"{name} must be a whole number, got {raw[:40]!r}") from None
    if not low <= value <= high:
        raise BadRequest(f"{name} must be {low}..{high}, got {value}")
    return value


def _query(request: web.Request) -> RunQuery:
    statuses = []
    for name in filter(None, _text(request, "status").split(",")):
        if name not in STATUS_VALUES:
            raise BadRequest(f"unknown status {name[:40]!r}; use "
                             f"{', '.join(sorted(STATUS_VALUES))}")
        statuses.append(STATUS_VALUES[name])
    return RunQuery(environment=_text(request, "environment"), method=_text(request, "method"),
                    statuses=tuple(statuses), model=_text(request, "model"),
                    task=_text(request, "task"),
                    limit=_integer(request, "limit", 100, 1, MAX_LIST_LIMIT),
                    offset=_integer(request, "offset", 0, 0, 10**9))


def _run_id(request: web.Request) -> str:
    run_id = _text(request, "id", limit=256)
    if not run_id:
        raise BadRequest("give the run as ?id=RUN_ID")
    return run_id


async def list_runs(request: web.Request) -> web.Response:
    query = _query(request)
    store = request.app[STORE_KEY]
    # One more than asked tells whether another page follows.
    found = await store.list_runs(dataclasses.replace(query, limit=query.limit + 1)
                                  if query.limit < MAX_LIST_LIMIT else query)
    more = len(found) > query.limit
    return web.json_response({"runs": [message_json(run) for run in found[:query.limit]],
                              "offset": query.offset, "limit": query.limit, "more": more})


async def facets(request: web.Request) -> web.Response:
    return web.json_response(await request.app[STORE_KEY].facets())


async def get_run(request: web.Request) -> web.Response:
    run_id = _run_id(request)
    run = await request.app[STORE_KEY].get(run_id)
    if run is None:
        return _error(404, f"no run {run_id!r} in the store")
    return web.json_response(message_json(run))


def _frame(kind: str, payload) -> bytes:
    return f"event: {kind}\ndata: {json.dumps(payload, ensure_ascii=False)}\n\n".encode()


async def events(request: web.Request) -> web.StreamResponse:
    run_id = _run_id(request)
    store = request.app[STORE_KEY]
    settings = request.app[SETTINGS_KEY]
    if await store.get(run_id) is None:
        return _error(404, f"no run {run_id!r} in the store")
    response = web.StreamResponse(headers={"Content-Type": "text/event-stream",
                                           "Cache-Control": "no-cache",
                                           "X-Accel-Buffering": "no", **SECURITY_HEADERS})
    await response.prepare(request)
    LIVE_STREAMS.inc()
    updates = follow_run(store, run_id, poll_seconds=settings["poll_seconds"],
                         check_seconds=settings["check_seconds"])
    following = asyncio.ensure_future(anext(updates, None))
    try:
        while True:
            done, _ = await asyncio.wait({following}, timeout=HEARTBEAT_SECONDS)
            if not done:
                await response.write(b": still here\n\n")
                continue
            update = following.result()
            if update is None:
                break
            kind, message = update
            await response.write(_frame("snapshot" if kind == "snapshot" else "search",
                                        message_json(message)))
            following = asyncio.ensure_future(anext(updates, None))
        await response.write(_frame("end", {"run_id": run_id}))
    except RunNotFound:
        await response.write(_frame("end", {"run_id": run_id, "error": "no such run"}))
    except ConnectionResetError:
        pass                      # the browser went away
    finally:
        following.cancel()
        with contextlib.suppress(BaseException):
            await following
        await updates.aclose()
        LIVE_STREAMS.dec()
    return response


async def page(request: web.Request) -> web.FileResponse:
    name = "run.html" if request.path == "/run" else "index.html"
    return web.FileResponse(STATIC / name)


HEALTH_CHECK_SECONDS = 5.0


async def healthz(request: web.Request) -> web.Response:
    """200 while the viewer can read its run store (a lookup of no run), else 503 saying why."""
    try:
        await asyncio.wait_for(request.app[STORE_KEY].get("healthz-probe"), HEALTH_CHECK_SECONDS)
    except Exception as error:  # noqa: BLE001 -- any failure to read the store is "not ready"
        return web.Response(status=503, text=f"the run store cannot be read: {error!r:.300}\n")
    return web.Response(text="ok\n")


async def metrics(request: web.Request) -> web.Response:
    response = web.Response(body=generate_latest())
    response.content_type = CONTENT_TYPE_LATEST.split(";")[0]
    return response


def make_app(store: RunStore, *, poll_seconds: float = 2.0,
             check_seconds: float = 30.0) -> web.Application:
    """The viewer over an opened `store` (the caller opens and closes it)."""
    app = web.Application(middlewares=[_observe])
    app[STORE_KEY] = store
    app[SETTINGS_KEY] = {"poll_seconds": poll_seconds, "check_seconds": check_seconds}
    app.router.add_get("/", page)
    app.router.add_get("/run", page)
    app.router.add_get("/api/runs", list_runs)
    app.router.add_get("/api/facets", facets)
    app.router.add_get("/api/run", get_run)
    app.router.add_get("/api/events", events)
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/metrics", metrics)
    app.router.add_static("/static/", STATIC, follow_symlinks=False)
    return app
