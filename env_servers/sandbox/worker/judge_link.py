"""The judge's (and the tester's) end of its pipes: frames to and from its peers, their output, one deadline."""

import os
import select
import time

from env_servers.sandbox.plain_data import _ENCODER, _plain, from_json
from env_servers.sandbox.worker.host_channel import HEADER
from env_servers.sandbox.worker.output import Capture
from env_servers.sandbox.worker.run_errors import CandidateGone, RunTimeUp, TesterGone

MAX_CANDIDATE_FRAME_BYTES = 16 << 20


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
