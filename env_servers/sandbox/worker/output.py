"""What a run prints: kept up to its limit, the rest counted."""

import sys


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


class CapturedStream:
    """The judge's (or tester's) own stdout/stderr, for tests that print: kept with the candidate's output."""

    def __init__(self, capture):
        self.capture = capture

    def write(self, text):
        self.capture.feed(str(text).encode("utf-8", "replace"))
        return len(text)

    def flush(self):
        pass


def flush_output():
    """Flush this process's stdout and stderr, whatever the program did to them."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass
