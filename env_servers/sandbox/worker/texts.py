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


PROGRAM_LINE = "__sandbox_program_line__"


def program_line(error):
    """The program's line (its deepest frame) `error` was raised at, else 0; for an error
    the judge rebuilt from the candidate's reply, the line the candidate saw."""
    try:
        frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == "<program>"]
        if frames and frames[-1].lineno:
            return int(frames[-1].lineno)
        line = vars(error).get(PROGRAM_LINE, 0)
        return line if type(line) is int else 0
    except BaseException:  # a hostile exception or traceback
        return 0


def where_raised(error):
    """' [line N]' for `program_line`, '' when there is none."""
    line = program_line(error)
    return " [line %d]" % line if line else ""


def program_traceback(error):
    """The traceback of an error the program (or the task's setup) raised, its own frames only."""
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename in ("<program>", "<setup>")]
    lines = traceback.format_list(frames) + traceback.format_exception_only(type(error), error)
    text = "Traceback (most recent call last):\n" + "".join(lines)
    return printable(text if len(text) <= TRACEBACK_CHARS else "..." + text[-TRACEBACK_CHARS:])
