"""The unpickler of weights_only loads: a pickle machine of its own, written in Python,
that runs every opcode of protocols 0 to 5 but can only build what the allowlist
allows.

Python's pickle.Unpickler cannot be made safe by overriding find_class alone: its
opcodes also call methods of whatever objects the stack holds (SETITEMS calls
__setitem__, BUILD calls __setstate__ or setattr, APPENDS calls extend). This machine,
like torch's _weights_only_unpickler, decides every such step itself:

- GLOBAL / STACK_GLOBAL / INST look the name up in the allowlist (_allowlist.py); a
  name that is not there raises pickle.UnpicklingError. Nothing is ever imported.
- REDUCE, NEWOBJ, NEWOBJ_EX, INST and OBJ call only what the allowlist maps the name
  to: ember's checked stand-ins for torch's rebuild functions and for the classes
  protocol 2 calls (bytes, set, torch.Size, ...), or a global the user allowed.
- BUILD sets the state of OrderedDict / Counter (their attributes) and of instances
  of the classes the user allowed, nothing else; APPEND(S) only extends lists,
  SETITEM(S) only fills dicts, ADDITEMS only fills sets.
- BINPERSID only asks for a storage ("storage", ...); the extension registry (EXT*),
  out-of-band buffers and text persistent ids are refused.

Any other problem with the bytes (a truncated stream, an unknown opcode, a stack or
memo that does not hold what an opcode needs) also raises pickle.UnpicklingError.

One more limit: tuples and frozensets may nest at most _MAX_NESTING deep. Hashing one
(as a dict key or set element) recurses in C without Python's recursion check, so a
pickle of a million nested 1-tuples used as a key would crash the interpreter.
"""
import _compat_pickle
import codecs
import collections
import pickle
import sys
from struct import unpack

from ._allowlist import BLOCKED_BUILTINS, BLOCKED_MODULES
from ._errors import type_name
from ._torch_names import unsupported

UnpicklingError = pickle.UnpicklingError

_MAX_NESTING = 1000
_DICT_TYPES = (dict, collections.OrderedDict, collections.Counter)
_BUILDABLE = (collections.OrderedDict, collections.Counter)  # their attributes, as torch allows


def describe(obj):
    """A short name for an object in a message, computed without calling its __repr__
    (which for a deep structure from the file could itself be costly)."""
    if isinstance(obj, type) or callable(obj) and hasattr(obj, "__qualname__"):
        return f"{getattr(obj, '__module__', '?')}.{obj.__qualname__}"
    return f"a {type_name(obj)}"


def refusal(full_name):
    """torch's message for a global that is not allowed, with ember's API to allow it."""
    shown = full_name[len("builtins."):] if full_name.startswith("builtins.") else full_name
    return (f"Unsupported global: GLOBAL {shown} was not an allowed global by default. Please use "
            f"`ember.serialization.add_safe_globals([{shown}])` or the "
            f"`ember.serialization.safe_globals([{shown}])` context manager to allowlist this "
            "global if you trust this class/function.")


class RestrictedUnpickler:
    """Unpickles one pickle from file (read(n) and readline()), building only what
    the allowlist allows.

    default_globals: {"module.name": (object, stand-in function or None)}, see
    _allowlist.default_globals; user_globals: {"module.name": object} that the user
    allowed, called and built as they are; persistent_load(pid) resolves the storages
    the pickle names; encoding decodes the byte strings of Python 2 pickles ("bytes"
    keeps them as bytes).
    """

    def __init__(self, file, default_globals, user_globals, persistent_load=None,
                 encoding="utf-8", errors="strict"):
        self._read = file.read
        self._readline = file.readline
        self._tell = getattr(file, "tell", None)
        self._names = {name: obj for name, (obj, _) in default_globals.items()}
        # Stand-ins by the id of the object the pickle holds; the objects are kept in
        # the tables, so the ids stay theirs for the whole load.
        self._calls = {id(obj): call for obj, call in default_globals.values() if call is not None}
        self._names.update((name, obj) for name, obj in user_globals.items()
                           if name not in self._names)
        self._user = {id(obj): obj for obj in user_globals.values()}
        self._persistent_load = persistent_load
        self._encoding, self._errors = encoding, errors
        self._nest = {}  # id -> (tuple or frozenset, how deeply it nests)
        self.proto = 0

    # ---- the machine ---------------------------------------------------------------------
    def load(self):
        self.stack, self.metastack, self.memo = [], [], {}
        try:
            while True:
                key = self._read(1)
                if not key:
                    raise UnpicklingError("pickle data was truncated")
                op = _DISPATCH.get(key[0])
                if op is None:
                    raise UnpicklingError(f"unsupported pickle opcode {key!r}")
                if op(self):
                    return self._result
        except _Passthrough as p:
            raise p.error  # from persistent_load: the format reader's own error
        except (UnpicklingError, RuntimeError, MemoryError):
            # RuntimeError: a storage or tensor rebuild that the checks refused, with its
            # own message (and RecursionError, which is one).
            raise
        except Exception as e:  # noqa: BLE001  (any other error means malformed bytes)
            where = f" (at byte {self._tell() - 1})" if self._tell is not None else ""
            raise UnpicklingError(f"malformed pickle data{where}: {type(e).__name__}: {e}") from e

    def _exact(self, n):
        data = self._read(n)
        if len(data) != n:
            raise UnpicklingError("pickle data was truncated")
        return data

    def _line(self):
        line = self._readline()
        if not line.endswith(b"\n"):
            raise UnpicklingError("pickle data was truncated")
        return line[:-1]

    def _pop_mark(self):
        if not self.metastack:
            raise UnpicklingError("could not find MARK")
        items = self.stack
        self.stack = self.metastack.pop()
        return items

    def _push(self, value):
        self.stack.append(value)

    # ---- nesting of hashable containers ------------------------------------------------
    def _nesting(self, x):
        """How deeply x nests tuples and frozensets: what hash(x) recurses through."""
        if type(x) not in (tuple, frozenset):
            return 0
        known = self._nest.get(id(x))
        if known is not None and known[0] is x:
            return known[1]
        # Not made by this machine (a user class made it): measure, without recursion.
        depth, todo, deepest = 0, [(x, 1)], {}
        while todo:
            item, d = todo.pop()
            if d > _MAX_NESTING:
                raise UnpicklingError(f"tuples or frozensets nest more than {_MAX_NESTING} deep")
            if deepest.get(id(item), 0) >= d:
                continue  # met before at this depth or deeper (a shared child)
            deepest[id(item)] = d
            depth = max(depth, d)
            todo.extend((c, d + 1) for c in item if type(c) in (tuple, frozenset))
        self._nest[id(x)] = (x, depth)
        return depth

    def _hashable(self, items):
        """items, after checking that none nests too deeply to hash."""
        for x in items:
            self._nesting(x)
        return items

    def _container(self, kind, items):
        """A tuple or frozenset of items, whose nesting is recorded."""
        depth = 1 + max((self._nesting(x) for x in items), default=0)
        if depth > _MAX_NESTING:
            raise UnpicklingError(f"tuples or frozensets nest more than {_MAX_NESTING} deep")
        obj = kind(items)
        self._nest[id(obj)] = (obj, depth)
        return obj

    # ---- globals and calls ---------------------------------------------------------------
    def _find(self, module, name):
        if self.proto < 3:  # Python 2 names (__builtin__.set), as pickle's fix_imports maps them
            if (module, name) in _compat_pickle.NAME_MAPPING:
                module, name = _compat_pickle.NAME_MAPPING[(module, name)]
            elif module in _compat_pickle.IMPORT_MAPPING:
                module = _compat_pickle.IMPORT_MAPPING[module]
        full = f"{module}.{name}"
        if module.partition(".")[0] in BLOCKED_MODULES or (
                module == "builtins" and name in BLOCKED_BUILTINS):
            raise UnpicklingError(f"Trying to load unsupported GLOBAL {full} whose module {module} "
                                  "is blocked.")
        if full in self._names:
            return self._names[full]
        reason = unsupported(full)
        if reason is not None:
            raise UnpicklingError(f"the checkpoint cannot be loaded by ember: {reason}")
        raise UnpicklingError(refusal(full))

    def _call(self, func, args, kwargs=None):
        if type(args) is not tuple or (kwargs is not None and type(kwargs) is not dict):
            raise UnpicklingError(f"the arguments of a call are a {type_name(args)}, not a tuple")
        kwargs = kwargs or {}
        call = self._calls.get(id(func))
        if call is not None:
            for a in args:  # set([...]), OrderedDict([(k, v), ...]): elements get hashed
                if type(a) is list:
                    self._hashable(a)
            return call(*args, **kwargs)
        if self._user.get(id(func)) is func:
            return func(*args, **kwargs)
        raise UnpicklingError(f"Trying to call reduce for unrecognized function {describe(func)}")

    def _new(self, cls, args, kwargs=None):
        """NEWOBJ: cls.__new__(cls, *args) for an allowed class."""
        if not isinstance(cls, type):
            raise UnpicklingError(f"NEWOBJ needs a class, not {describe(cls)}")
        if id(cls) in self._calls:  # a class ember stands in for: call the stand-in
            return self._call(cls, args, kwargs)
        if self._user.get(id(cls)) is cls:
            if type(args) is not tuple or (kwargs is not None and type(kwargs) is not dict):
                raise UnpicklingError("the arguments of NEWOBJ are not a tuple")
            return cls.__new__(cls, *args, **(kwargs or {}))
        raise UnpicklingError("Can only create new object for nn.Parameter or classes "
                              f"allowlisted via `add_safe_globals` but got {describe(cls)}")

    def _instantiate(self, cls, args):
        """INST / OBJ (protocols 0 and 1), as pickle._instantiate does it."""
        args = tuple(args)
        if id(cls) in self._calls or not isinstance(cls, type) or args:
            return self._call(cls, args)
        if self._user.get(id(cls)) is cls:
            return cls.__new__(cls)
        raise UnpicklingError(f"Can only create instances of classes allowlisted via "
                              f"`add_safe_globals`, but got {describe(cls)}")

    def _is_user_type(self, t):
        return self._user.get(id(t)) is t

    def _build(self, inst, state):
        t = type(inst)
        user = self._is_user_type(t)
        if not (user or t in _BUILDABLE):
            raise UnpicklingError("Can only build Tensor, Parameter, OrderedDict or types "
                                  f"allowlisted via `add_safe_globals`, but got {type_name(inst)}")
        # __setstate__ of the class: one that an earlier BUILD put in the instance's
        # __dict__ (from the file) must not be what gets called.
        setstate = getattr(t, "__setstate__", None)
        if user and setstate is not None:
            setstate(inst, state)
            return
        slots = None
        if isinstance(state, tuple) and len(state) == 2:
            state, slots = state
        if state:
            if type(state) is not dict or not all(type(k) is str for k in state):
                raise UnpicklingError(f"the state of a {type_name(inst)} is not a dict of "
                                      "attributes")
            inst.__dict__.update(state)
        if slots:
            if not user or type(slots) is not dict:
                raise UnpicklingError(f"a {type_name(inst)} has no slots to set")
            for k, v in slots.items():
                setattr(inst, k, v)

    def _target(self, allowed, what):
        target = self.stack[-1]
        t = type(target)
        if t in allowed or (self._is_user_type(t) and isinstance(target, allowed)):
            return target
        raise UnpicklingError(f"Can only {what} {', '.join(a.__name__ for a in allowed)}, but "
                              f"got {type_name(target)}")

    def _decode_string(self, data):
        # Python 2 str: bytes whose meaning the caller's encoding gives.
        if self._encoding == "bytes":
            return data
        return data.decode(self._encoding, self._errors)

    def _persistent(self, pid):
        if self._persistent_load is None:
            raise UnpicklingError("this pickle may not refer to persistent objects")
        if type(pid) is not tuple or not pid or pid[0] not in ("storage", b"storage"):
            raise UnpicklingError("only storages may be loaded by persistent id, not "
                                  f"{describe(pid)}")
        try:
            return self._persistent_load(pid)
        except Exception as e:
            raise _Passthrough(e) from None


class _Passthrough(Exception):
    """Carries an error of persistent_load (a damaged storage record, map_location's
    own error) out of the machine unchanged."""

    def __init__(self, error):
        super().__init__(error)
        self.error = error


# ---- opcodes -----------------------------------------------------------------------------
# Each takes the machine and returns True only for STOP. They follow Lib/pickle.py's
# _Unpickler, with the restrictions above.

def _stop(m):
    if not m.stack:
        raise UnpicklingError("the pickle ends with an empty stack")
    m._result = m.stack.pop()
    return True


def _mark(m):
    m.metastack.append(m.stack)
    m.stack = []


def _pop(m):
    if m.stack:
        m.stack.pop()
    else:
        m._pop_mark()


def _proto(m):
    m.proto = m._exact(1)[0]
    if m.proto > pickle.HIGHEST_PROTOCOL:
        raise UnpicklingError(f"unsupported pickle protocol: {m.proto}")


def _frame(m):
    m._exact(8)  # the frame's length: the opcodes follow in order whatever it says


def _int(m):
    data = m._line()
    m._push(False if data == b"00" else True if data == b"01" else int(data, 0))


def _long(m):
    data = m._line()
    m._push(int(data[:-1] if data.endswith(b"L") else data, 0))


def _long4(m):
    (n,) = unpack("<i", m._exact(4))
    if n < 0:
        raise UnpicklingError("LONG pickle has negative byte count")
    m._push(pickle.decode_long(m._exact(n)))


def _string(m):
    data = m._line()
    if len(data) < 2 or data[0] != data[-1] or data[:1] not in (b'"', b"'"):
        raise UnpicklingError("the STRING opcode argument must be quoted")
    m._push(m._decode_string(codecs.escape_decode(data[1:-1])[0]))


def _binstring(m):
    (n,) = unpack("<i", m._exact(4))
    if n < 0:
        raise UnpicklingError("BINSTRING pickle has negative byte count")
    m._push(m._decode_string(m._exact(n)))


def _sized(fmt, size, convert):
    def op(m):
        (n,) = unpack(fmt, m._exact(size))
        if n > sys.maxsize:
            raise UnpicklingError("the length of a string exceeds the maximum size")
        m._push(convert(m._exact(n)))
    return op


def _utf8(data):
    return str(data, "utf-8", "surrogatepass")


def _global(m):
    module = m._line().decode("utf-8")
    name = m._line().decode("utf-8")
    m._push(m._find(module, name))


def _stack_global(m):
    name, module = m.stack.pop(), m.stack.pop()
    if type(name) is not str or type(module) is not str:
        raise UnpicklingError("STACK_GLOBAL requires str")
    m._push(m._find(module, name))


def _inst(m):
    module = m._line().decode("ascii")
    name = m._line().decode("ascii")
    cls = m._find(module, name)
    m._push(m._instantiate(cls, m._pop_mark()))


def _obj(m):
    args = m._pop_mark()
    if not args:
        raise UnpicklingError("OBJ needs a class")
    m._push(m._instantiate(args[0], args[1:]))


def _reduce(m):
    args = m.stack.pop()
    m.stack[-1] = m._call(m.stack[-1], args)


def _newobj(m):
    args = m.stack.pop()
    cls = m.stack.pop()
    m._push(m._new(cls, args))


def _newobj_ex(m):
    kwargs = m.stack.pop()
    args = m.stack.pop()
    cls = m.stack.pop()
    m._push(m._new(cls, args, kwargs))


def _build(m):
    state = m.stack.pop()
    m._build(m.stack[-1], state)


def _binpersid(m):
    m._push(m._persistent(m.stack.pop()))


def _refuse(what):
    def op(m):
        raise UnpicklingError(f"{what} are not supported by weights_only loads")
    return op


def _append(m):
    value = m.stack.pop()
    m._target((list,), "append to").append(value)


def _appends(m):
    items = m._pop_mark()
    m._target((list,), "extend").extend(items)


def _setitem(m):
    value = m.stack.pop()
    key = m.stack.pop()
    m._nesting(key)
    m._target(_DICT_TYPES, "SETITEM for")[key] = value


def _setitems(m):
    items = m._pop_mark()
    if len(items) % 2:
        raise UnpicklingError("SETITEMS needs key-value pairs")
    target = m._target(_DICT_TYPES, "SETITEMS for")
    for i in range(0, len(items), 2):
        m._nesting(items[i])
        target[items[i]] = items[i + 1]


def _additems(m):
    items = m._pop_mark()
    m._target((set,), "add items to").update(m._hashable(items))


def _dict(m):
    items = m._pop_mark()
    if len(items) % 2:
        raise UnpicklingError("DICT needs key-value pairs")
    m._hashable(items[0::2])
    m._push({items[i]: items[i + 1] for i in range(0, len(items), 2)})


def _tuple_n(n):
    def op(m):
        if len(m.stack) < n:
            raise UnpicklingError("the stack is too short for TUPLE")
        items = m._container(tuple, m.stack[len(m.stack) - n:])
        del m.stack[len(m.stack) - n:]
        m._push(items)
    return op


def _get_text(m):
    m._push(_memo_get(m, int(m._line())))


def _memo_get(m, i):
    try:
        return m.memo[i]
    except KeyError:
        raise UnpicklingError(f"Memo value not found at index {i}") from None


def _put(m, i):
    if i < 0:
        raise UnpicklingError("negative PUT argument")
    m.memo[i] = m.stack[-1]


def _const(value_factory):
    def op(m):
        m._push(value_factory())
    return op


_DISPATCH = {
    pickle.MARK[0]: _mark,
    pickle.STOP[0]: _stop,
    pickle.POP[0]: _pop,
    pickle.POP_MARK[0]: lambda m: m._pop_mark() and None,
    pickle.DUP[0]: lambda m: m._push(m.stack[-1]),
    pickle.FLOAT[0]: lambda m: m._push(float(m._line())),
    pickle.BINFLOAT[0]: lambda m: m._push(unpack(">d", m._exact(8))[0]),
    pickle.INT[0]: _int,
    pickle.BININT[0]: lambda m: m._push(unpack("<i", m._exact(4))[0]),
    pickle.BININT1[0]: lambda m: m._push(m._exact(1)[0]),
    pickle.BININT2[0]: lambda m: m._push(unpack("<H", m._exact(2))[0]),
    pickle.LONG[0]: _long,
    pickle.LONG1[0]: lambda m: m._push(pickle.decode_long(m._exact(m._exact(1)[0]))),
    pickle.LONG4[0]: _long4,
    pickle.NONE[0]: _const(lambda: None),
    pickle.NEWTRUE[0]: _const(lambda: True),
    pickle.NEWFALSE[0]: _const(lambda: False),
    pickle.STRING[0]: _string,
    pickle.BINSTRING[0]: _binstring,
    pickle.SHORT_BINSTRING[0]: lambda m: m._push(m._decode_string(m._exact(m._exact(1)[0]))),
    pickle.UNICODE[0]: lambda m: m._push(str(m._line(), "raw-unicode-escape")),
    pickle.BINUNICODE[0]: _sized("<I", 4, _utf8),
    pickle.BINUNICODE8[0]: _sized("<Q", 8, _utf8),
    pickle.SHORT_BINUNICODE[0]: _sized("<B", 1, _utf8),
    pickle.BINBYTES[0]: _sized("<I", 4, bytes),
    pickle.BINBYTES8[0]: _sized("<Q", 8, bytes),
    pickle.SHORT_BINBYTES[0]: _sized("<B", 1, bytes),
    pickle.BYTEARRAY8[0]: _sized("<Q", 8, bytearray),
    pickle.EMPTY_TUPLE[0]: _const(tuple),
    pickle.TUPLE[0]: lambda m: m._push(m._container(tuple, m._pop_mark())),
    pickle.TUPLE1[0]: _tuple_n(1),
    pickle.TUPLE2[0]: _tuple_n(2),
    pickle.TUPLE3[0]: _tuple_n(3),
    pickle.EMPTY_LIST[0]: _const(list),
    pickle.LIST[0]: lambda m: m._push(list(m._pop_mark())),
    pickle.EMPTY_DICT[0]: _const(dict),
    pickle.DICT[0]: _dict,
    pickle.EMPTY_SET[0]: _const(set),
    pickle.FROZENSET[0]: lambda m: m._push(m._container(frozenset, m._pop_mark())),
    pickle.APPEND[0]: _append,
    pickle.APPENDS[0]: _appends,
    pickle.SETITEM[0]: _setitem,
    pickle.SETITEMS[0]: _setitems,
    pickle.ADDITEMS[0]: _additems,
    pickle.GLOBAL[0]: _global,
    pickle.STACK_GLOBAL[0]: _stack_global,
    pickle.INST[0]: _inst,
    pickle.OBJ[0]: _obj,
    pickle.REDUCE[0]: _reduce,
    pickle.NEWOBJ[0]: _newobj,
    pickle.NEWOBJ_EX[0]: _newobj_ex,
    pickle.BUILD[0]: _build,
    pickle.BINPERSID[0]: _binpersid,
    pickle.PERSID[0]: _refuse("text persistent ids (protocol 0)"),
    pickle.EXT1[0]: _refuse("extension codes (copyreg.add_extension)"),
    pickle.EXT2[0]: _refuse("extension codes (copyreg.add_extension)"),
    pickle.EXT4[0]: _refuse("extension codes (copyreg.add_extension)"),
    pickle.NEXT_BUFFER[0]: _refuse("out-of-band buffers"),
    pickle.READONLY_BUFFER[0]: _refuse("out-of-band buffers"),
    pickle.GET[0]: _get_text,
    pickle.BINGET[0]: lambda m: m._push(_memo_get(m, m._exact(1)[0])),
    pickle.LONG_BINGET[0]: lambda m: m._push(_memo_get(m, unpack("<I", m._exact(4))[0])),
    pickle.PUT[0]: lambda m: _put(m, int(m._line())),
    pickle.BINPUT[0]: lambda m: _put(m, m._exact(1)[0]),
    pickle.LONG_BINPUT[0]: lambda m: _put(m, unpack("<I", m._exact(4))[0]),
    pickle.MEMOIZE[0]: lambda m: _put(m, len(m.memo)),
    pickle.PROTO[0]: _proto,
    pickle.FRAME[0]: _frame,
}
