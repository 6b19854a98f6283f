"""A C pointer that several Python threads may use while one closes it.

ctypes releases the GIL during every C call, so without this a close() in
one thread could free a snapshot (or router) under a lookup running in
another: a use-after-free. Each call takes the handle (a count of calls in
flight, under a lock) and gives it back; close() marks it closed at once,
so no new call starts, and waits for the calls in flight before freeing.
take() hands the pointer to a new owner (a router) the same way."""
import threading

from ._errors import PlacerError, ENULL


class ClosedError(PlacerError, ValueError):
    """The object was closed, or handed to a router that owns it now."""


class Handle:
    __slots__ = ("_ptr", "_free", "_what", "_cond", "_users", "_gone", "__weakref__")

    def __init__(self, ptr, free, what):
        self._ptr = ptr
        self._free = free
        self._what = what
        self._cond = threading.Condition(threading.Lock())
        self._users = 0
        self._gone = None  # why it cannot be used any more, once closed or taken

    def acquire(self):
        """The pointer, counted as in use until release()."""
        with self._cond:
            if self._gone:
                raise ClosedError(ENULL, self._gone)
            self._users += 1
            return self._ptr

    def release(self):
        with self._cond:
            self._users -= 1
            if not self._users:
                self._cond.notify_all()

    def _retire(self, why):
        """Refuse new calls, wait for those in flight; the pointer, or None
        when it was already retired."""
        with self._cond:
            if self._gone:
                return None
            self._gone = why
            while self._users:
                self._cond.wait()
            ptr, self._ptr = self._ptr, None
            return ptr

    def close(self):
        ptr = self._retire("the %s is closed" % self._what)
        if ptr:
            self._free(ptr)

    def take(self, owner):
        """Hand the pointer over: from now on it is owner's to free, and
        every use of this handle raises ClosedError."""
        ptr = self._retire("the %s was handed to %s, which owns it now" % (self._what, owner))
        if ptr is None:
            raise ClosedError(ENULL, self._gone)
        return ptr

    @property
    def closed(self):
        return self._gone is not None
