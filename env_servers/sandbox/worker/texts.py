"""Values, errors and tracebacks as bounded, printable text for a run's reply."""

import traceback

DETAIL_CHARS = 1000
TRACEBACK_CHARS = 4000


def printable(text):
    """`text` with any lone surrogate (a program's bytes or messages) escaped, so it is valid UTF-8."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")


def safe_repr(value):
    try:
        text = repr(value)
    except BaseException as error:  # a hostile __repr__
        text = "<repr failed: %s>" % type(error).__name__
    text = text if len(text) <= DETAIL_CHARS else text[:DETAIL_CHARS] + "..."
    return printable(text)


def describe(error):
    try:
        message = str(error)
    except BaseException:
        message = ""
    text = type(error).__name__ + (": " + message if message else "")
    return printable(text if len(text) <= DETAIL_CHARS else text[:DETAIL_CHARS] + "...")


def program_traceback(error):
    """The traceback of an error the program (or the task's setup) raised, its own frames only."""
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename in ("<program>", "<setup>")]
    lines = traceback.format_list(frames) + traceback.format_exception_only(type(error), error)
    text = "Traceback (most recent call last):\n" + "".join(lines)
    return printable(text if len(text) <= TRACEBACK_CHARS else "..." + text[-TRACEBACK_CHARS:])
