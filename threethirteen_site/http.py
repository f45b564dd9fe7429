"""Django's ASGI handler for HTTP, with each request's synchronous work in one trip to a worker thread.

Django's own ``ASGIHandler`` runs the middleware chain in async mode. Every
middleware here is synchronous (``MiddlewareMixin`` and the site's own), so
each request went back and forth between the event loop and a thread several
times (each ``process_request``/``process_response`` of a mixin in async
mode, each sync-only middleware, the view), in a new thread per request (the
per-request ``ThreadSensitiveContext``).  Those trips were about two thirds
of a trivial page's server CPU and a quarter of a move's (README, "Third
pass").

``OneTripASGIHandler`` reads the body and sends the answer on the event loop
as Django does, and does everything in between (``request_started``, the
request, the whole middleware chain and the view in sync mode, then the
response's ``close()`` with ``request_finished``, which gives the database
connection back) in one call on a fixed pool of threads per process (the
``HTTP_THREADS`` setting), as a threaded WSGI server would.  The database
connection is opened and given back in that one thread, as Django requires.
Code in the view that calls ``async_to_sync`` (the channel layer) still runs
on the server's event loop.

What the request leaves until after its answer (``after_response.later``:
the bots' turns after a person's move) runs once the answer has been sent,
on a thread of its own per process, so it never holds a request thread
while a bot thinks; the request's coroutine does not wait for it.

A streaming response is the one exception: its body is produced while it is
sent, after the call, so the request's database connections are closed in
the worker thread before it is sent, and its ``close()`` runs after.
"""

from __future__ import annotations

import asyncio
import contextvars
import datetime
import logging
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core import signals
from django.core.exceptions import RequestAborted
from django.core.handlers import base
from django.core.handlers.asgi import ASGIHandler, get_script_prefix
from django.db import connections
from django.http import HttpResponseBase
from django.urls import set_script_prefix
from django.utils import timezone

from threethirteen_site import after_response

logger = logging.getLogger(__name__)

#: The scope's key of when the request reached this process (``received_at``).
RECEIVED_AT = "threethirteen.received_at"


def received_at(request: Any) -> datetime.datetime | None:
    """When ``request`` reached the server process, before it waited for anything there (a worker thread, the
    database): a move is judged by when it was made, not by when a hung database let it through.  None outside
    this handler (the test client)."""
    scope = getattr(request, "scope", None)
    return scope.get(RECEIVED_AT) if isinstance(scope, dict) else None


class OneTripASGIHandler(ASGIHandler):
    """``ASGIHandler`` whose requests run their sync work in one worker-thread call (see the module)."""

    def __init__(self, threads: int | None = None) -> None:
        base.BaseHandler.__init__(self)
        self.load_middleware(is_async=False)
        self.executor = ThreadPoolExecutor(max_workers=threads or settings.HTTP_THREADS, thread_name_prefix="http")
        # One thread for the work left until after the answers: the bots think in turn, beside the requests.
        self.after_executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="after-response")
        self.after_tasks: set[asyncio.Task[list[Any]]] = set()  # referenced until done (the loop keeps weak ones)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        await self.handle(scope, receive, send)

    async def handle(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        try:
            body_file = await self.read_body(receive)
        except RequestAborted:
            return
        # Once the whole body is here: a client that sent its headers in time could choose its move after.
        scope = {**scope, RECEIVED_AT: timezone.now()}
        try:
            response, work = await sync_to_async(self.respond, thread_sensitive=False, executor=self.executor)(
                scope, body_file
            )
            try:
                await self.send_response(response, send)
                if response.streaming:
                    await sync_to_async(response.close, thread_sensitive=False, executor=self.executor)()
            finally:
                if work:  # sent, or the person went away: either way the game goes on
                    self.run_later(work)
        finally:
            body_file.close()

    def run_later(self, work: list[Any]) -> None:
        """Start the request's left-over work on the after-response thread, without waiting for it; what it
        hands back (the rest of a long piece of work) is queued again, behind the work queued meanwhile.

        Through ``sync_to_async`` from this event loop, so the channel-layer sends in it (``async_to_sync``)
        come back to this loop, as a request's do; in a context of its own, not the request's (its
        language, time zone and the like).
        """
        run = sync_to_async(after_response.run, thread_sensitive=False, executor=self.after_executor)
        task = asyncio.get_running_loop().create_task(run(work), context=contextvars.Context())
        self.after_tasks.add(task)
        task.add_done_callback(self.after_done)

    def after_done(self, task: asyncio.Task[list[Any]]) -> None:
        self.after_tasks.discard(task)
        if task.cancelled():
            return
        if (error := task.exception()) is not None:  # the runner itself (each piece's own errors are logged)
            logger.error("the work left until after an answer could not run", exc_info=error)
        elif rest := task.result():
            self.run_later(rest)

    def respond(self, scope: dict[str, Any], body_file: Any) -> tuple[HttpResponseBase, list[Any]]:
        """The request's whole synchronous part, in this one worker thread, and what it left until after the
        answer."""
        with after_response.collecting() as work:
            return self.answer(scope, body_file), work

    def answer(self, scope: dict[str, Any], body_file: Any) -> HttpResponseBase:
        set_script_prefix(get_script_prefix(scope))
        signals.request_started.send(sender=self.__class__, scope=scope)
        request, error_response = self.create_request(scope, body_file)
        if request is None:
            assert error_response is not None  # create_request gives one or the other
            error_response.close()
            return error_response
        response = self.get_response(request)
        response._handler_class = self.__class__  # type: ignore[attr-defined]
        if response.streaming:
            # Sent (and closed) later, from another thread: give the connections back here.
            for connection in connections.all(initialized_only=True):
                connection.close()
        else:
            response.close()  # request_finished: the database connection goes back to the pool
        return response
