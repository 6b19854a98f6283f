"""PlacerError and the checks every call shares: C return codes, and the
range of values that cross into C as 64-bit unsigned integers (ctypes would
wrap -1 to 2^64 - 1 and 2^64 to 0 without a word)."""
import operator

from . import _lib

ENULL, ENOMEM, ERANGE, EINVAL = _lib.ENULL, _lib.ENOMEM, _lib.ERANGE, _lib.EINVAL


class PlacerError(Exception):
    """A placer call failed. .code is the negative PLACER_E* value, .name its
    name ("PLACER_EFORMAT"), str() the library's message and any detail."""

    def __init__(self, code, detail=""):
        text = _lib.strerror(code).decode("utf-8", "replace")
        self.code = code
        self.name = text.split(":", 1)[0]
        self.detail = detail
        super().__init__(text + (": " + detail if detail else ""))


def check(err, detail=""):
    if err < 0:
        raise PlacerError(err, detail)
    return err


def unsigned(name, value, bits=64):
    """value as an integer in [0, 2^bits), or PlacerError(PLACER_ERANGE)."""
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError("%s must be an integer, not %s" % (name, type(value).__name__)) from None
    if v < 0 or v >= 1 << bits:
        raise PlacerError(ERANGE, "%s is %d: it must be from 0 to 2^%d - 1" % (name, v, bits))
    return v
