"""How tests reach the program from another process: a proxy per program function, the program's values as plain data.

A call's arguments cross to the candidate (or, for the tester, to the judge
that relays them); its value comes back as plain data, its exception rebuilt
by type and message, and any other value as an `Opaque` that keeps only its
truth. Stdlib modules the program imported are the judge's own.
"""

import builtins
import sys

from env_servers.sandbox.plain_data import NotPlainData
from env_servers.sandbox.worker.candidate import MAX_NAMES
from env_servers.sandbox.worker.run_errors import Unjudgeable
from env_servers.sandbox.worker.texts import DETAIL_CHARS, PROGRAM_LINE, printable


class Caller:
    """How the tests' call proxies reach the program: through `link` to `peer` (the candidate, or the relaying judge)."""

    def __init__(self, link, peer):
        self.link, self.peer = link, peer

    def call(self, name, args, kwargs):
        """Call the program's `name` in the candidate process; the value comes back as plain data."""
        try:
            self.link.send(self.peer, ["call", name, list(args), [[key, value] for key, value in kwargs.items()]])
        except NotPlainData as error:
            raise TypeError(
                "%s cannot be passed to the program's %s(): only plain data (None, bool, int, float, "
                "complex, str, bytes, list, tuple, dict, set, frozenset) crosses to it" % (error, name)
            ) from None
        except RecursionError:
            raise TypeError("the arguments of %s() are nested too deeply to cross to the program" % name) from None
        reply = self.link.receive(self.peer)
        kind = reply[0]
        if kind == "ok" and len(reply) == 2:
            return reply[1]
        if kind == "raised" and len(reply) in (4, 5):
            raise with_program_line(rebuilt_exception(reply[1], reply[2], reply[3]),
                                    reply[4] if len(reply) == 5 else 0)
        if kind == "opaque" and len(reply) == 3 and reply[2] in (True, False, None):
            return Opaque(
                "%s() returned %s; only plain data (None, bool, int, float, complex, str, bytes, list, "
                "tuple, dict, set, frozenset) can be judged" % (name, printable(str(reply[1])[:200])),
                truth=reply[2],
            )
        raise self.peer.gone("broke the judge protocol (an unexpected reply)")


_EXCEPTION_CLASSES = {}


def with_program_line(error, line):
    """`error`, marked with the program's line it was raised at (PROGRAM_LINE), if any."""
    if type(line) is int and line > 0:
        try:
            setattr(error, PROGRAM_LINE, line)
        except BaseException:  # an exception type without a __dict__
            pass
    return error


def rebuilt_exception(name, message, bases):
    """The candidate's exception as the judge raises it: a builtin class, or a named subclass of one."""
    name, message = printable(str(name)[:100]), printable(str(message)[:DETAIL_CHARS])
    prefix = name + ": "
    text = message[len(prefix) :] if message.startswith(prefix) else ("" if message == name else message)
    if not isinstance(bases, list):
        bases = []
    base = BaseException
    for candidate in [name] + [str(b) for b in bases]:
        found = getattr(builtins, candidate, None)
        if isinstance(found, type) and issubclass(found, BaseException):
            base = found
            break
    if base.__name__ == name:
        try:
            return base(text)
        except BaseException:
            pass
    key = (name, base)
    if key not in _EXCEPTION_CLASSES:
        try:
            _EXCEPTION_CLASSES[key] = type(name if name.isidentifier() else "ProgramError", (base,), {"__module__": "program"})
        except TypeError:  # a base that cannot be subclassed
            _EXCEPTION_CLASSES[key] = type(name if name.isidentifier() else "ProgramError", (Exception,), {"__module__": "program"})
    try:
        return _EXCEPTION_CLASSES[key](text)
    except BaseException:
        return Exception(message)


class Opaque:
    """A value of the program's that cannot cross: only its truth (if known) is usable, any other use fails.

    `truth` is what bool() gave in the candidate, so `assert f(x)` can judge a
    returned match object; comparing, indexing or iterating it fails the test
    with `message`.
    """

    def __init__(self, message, truth=None):
        self._message, self._truth = message, truth

    def _refuse(self, *args, **kwargs):
        raise Unjudgeable(self._message)

    def __bool__(self):
        if self._truth is None:
            self._refuse()
        return self._truth

    def __repr__(self):
        return "<%s>" % self._message.split(";")[0]

    __call__ = __getattr__ = __getitem__ = __iter__ = __len__ = __eq__ = __ne__ = _refuse
    __lt__ = __le__ = __gt__ = __ge__ = __contains__ = __hash__ = __add__ = __index__ = _refuse


def unreachable(name, description):
    return "the program's %r is %s, which cannot reach the judge: only plain data and functions cross" % (
        name,
        description,
    )


def program_proxy(caller, name):
    def proxy(*args, **kwargs):
        return caller.call(name, args, kwargs)

    proxy.__name__ = proxy.__qualname__ = name
    return proxy


IMPORTED_FOR_EFFECT = {"this", "antigravity"}  # stdlib modules whose import does something (prints, starts programs)


def importable(module, stdlib):
    """Whether the tests' process may import `module` for a program's name: a standard-library module, not a
    `__main__` of one (importing `unittest.__main__` runs unittest's discovery), nor one imported for effect."""
    parts = module.split(".")
    return parts[0] in stdlib and parts[0] not in IMPORTED_FOR_EFFECT and not any(p.startswith("__") for p in parts)


def judge_namespace(caller, names, entry_points=()):
    """The namespace the tests run in: a proxy per program function, plain values, real stdlib modules.

    A program name that shadows a builtin is left out, so a program cannot swap
    the `abs`, `len` or `isinstance` a test relies on, unless the request names
    it as an entry point (a task whose function is called `sum`).
    """
    namespace = {"__builtins__": builtins, "__name__": "__main__"}
    stdlib = getattr(sys, "stdlib_module_names", ())
    for entry in names[:MAX_NAMES] if isinstance(names, list) else []:
        if not (isinstance(entry, list) and len(entry) == 3 and isinstance(entry[0], str)):
            continue
        name, kind, payload = entry
        if not name.isidentifier() or name.startswith("__"):
            continue
        if hasattr(builtins, name) and name not in entry_points:
            continue
        if kind == "callable":
            namespace[name] = program_proxy(caller, name)
        elif kind == "value":
            namespace[name] = payload
        elif kind == "module" and isinstance(payload, str) and importable(payload, stdlib):
            try:
                __import__(payload)
                namespace[name] = sys.modules[payload]
            except BaseException:
                namespace[name] = Opaque(unreachable(name, "the module %s" % payload[:100]))
        else:
            namespace[name] = Opaque(unreachable(name, printable(str(payload)[:200])))
    return namespace
