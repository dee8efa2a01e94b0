"""Crossing the process boundary: upstream results to JSON, JSON arguments to the types a method's
signature asks for, and exceptions to data the engine's error registry can map."""
import base64
import dataclasses
import enum
import inspect
import math
import re
import typing
import uuid
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from pathlib import Path, PurePath

# Node reads JSON numbers as doubles: integers past 2**53 (media and user pks in raw payloads) would
# silently change, so they cross as strings, which is what the API exposes ids as anyway.
MAX_SAFE_INT = 2**53 - 1
_INTEGER = re.compile(r"-?\d+")


def to_json(value):
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return value if -MAX_SAFE_INT <= value <= MAX_SAFE_INT else str(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    dump = getattr(value, "model_dump", None)
    if callable(dump) and not isinstance(value, type):
        return to_json(dump(mode="json"))
    if isinstance(value, dict):
        return {key if isinstance(key, str) else str(to_json(key)): to_json(item) for key, item in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [to_json(item) for item in value]
    return _scalar(value)


def _scalar(value):
    if isinstance(value, (datetime, date, time)):
        return value.isoformat()
    if isinstance(value, timedelta):
        return value.total_seconds()
    if isinstance(value, PurePath):
        return str(value)
    if isinstance(value, enum.Enum):
        return to_json(value.value)
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, uuid.UUID):
        return str(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return to_json(dataclasses.asdict(value))
    legacy = getattr(value, "dict", None)  # pydantic v1 models
    if callable(legacy) and hasattr(value, "__fields__"):
        return to_json(legacy())
    return str(value)


# -- Arguments -------------------------------------------------------------------------------

def convert_kwargs(fn, kwargs):
    """JSON keyword arguments → what the signature annotates: paths, records, enums."""
    hints = annotations_of(fn)
    return {name: convert(value, hints.get(name)) for name, value in kwargs.items()}


def annotations_of(fn):
    try:
        return typing.get_type_hints(fn)
    except Exception:
        try:
            return {name: p.annotation for name, p in inspect.signature(fn).parameters.items()}
        except (TypeError, ValueError):
            return {}


def convert(value, annotation):
    if value is None or annotation is None or annotation is inspect.Parameter.empty:
        return value
    if isinstance(annotation, str):
        return _convert_named(value, annotation.replace(" ", ""))
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Union or _is_union_type(origin):
        return _convert_union(value, args)
    if origin in (list, tuple, set, typing.Sequence, typing.Iterable) and isinstance(value, list):
        inner = args[0] if args else None
        return [convert(item, inner) for item in value]
    if not isinstance(annotation, type):
        return value
    if annotation is int and isinstance(value, str) and _INTEGER.fullmatch(value):
        return int(value)  # ids travel as strings over HTTP; the library annotates some as int
    if issubclass(annotation, PurePath) and isinstance(value, str):
        return Path(value)
    if issubclass(annotation, enum.Enum) and not isinstance(value, annotation):
        return _enum(annotation, value)
    validate = getattr(annotation, "model_validate", None) or getattr(annotation, "parse_obj", None)
    if callable(validate) and isinstance(value, dict):
        return validate(value)
    return value


def _is_union_type(origin):
    union_type = getattr(__import__("types"), "UnionType", None)  # X | Y (3.10+)
    return union_type is not None and origin is union_type


def _convert_union(value, args):
    members = [a for a in args if a is not type(None)]
    # A value that already is one of the plain members stays as it is (Union[str, Path], Union[Track, Dict]).
    for member in members:
        plain = typing.get_origin(member) or member
        if isinstance(plain, type) and not _is_record(plain) and isinstance(value, plain):
            return value
    for member in members:
        converted = convert(value, member)
        if converted is not value:
            return converted
    return value


def _is_record(cls):
    return callable(getattr(cls, "model_validate", None)) or issubclass(cls, (PurePath, enum.Enum))


def _enum(cls, value):
    try:
        return cls(value)
    except ValueError:
        return cls[value] if isinstance(value, str) and value in cls.__members__ else value


def _convert_named(value, name):
    # Annotations that stayed strings (forward references the library's namespace could not resolve).
    if name in ("Path", "pathlib.Path", "Optional[Path]") and isinstance(value, str):
        return Path(value)
    if name in ("List[Path]", "list[Path]", "Optional[List[Path]]") and isinstance(value, list):
        return [Path(v) if isinstance(v, str) else v for v in value]
    return value


# -- Errors ----------------------------------------------------------------------------------

class SidecarError(Exception):
    """An error of the sidecar itself (not the library's), named for the engine's registry."""

    def __init__(self, kind, message, bases=()):
        super().__init__(message)
        self.kind = kind
        self.bases = list(bases)


def encode_error(exc, client=None):
    cls = type(exc)
    error = {
        "type": cls.__name__,
        "bases": [c.__name__ for c in cls.__mro__[1:] if c is not object],
        "message": message_of(exc),
    }
    if cls.__name__ == "ConnectProxyError" and client is not None and not proxy_of(client):
        # aiograpi raises ConnectProxyError for every failed connection, proxy or not: without a
        # proxy it is the platform that could not be reached, and the caller should be told so.
        error.update(type="ClientConnectionError", bases=["ClientError"], message=f"The platform could not be reached (no proxy is set): {error['message']}")
    if client is not None and any(c.__name__ == "ChallengeError" for c in cls.__mro__):
        error["last_json"] = to_json(getattr(client, "last_json", None) or {})
    error.update(login_details(exc))
    return error


def login_details(exc):
    """What 2.0's login failures carry beyond their class: the CAA step markers (`caa_actions`), and the
    typed reason a generic error wraps (the legacy flow's PleaseWaitFewMinutes, BadPassword, ...)."""
    details = {}
    actions = getattr(exc, "caa_actions", None)
    if isinstance(actions, (list, tuple)):
        details["caa_actions"] = [str(action)[:120] for action in actions[:20]]
    cause = exc.__cause__ or exc.__context__
    if cause is not None and type(cause).__module__.startswith("aiograpi") and type(cause) is not type(exc):
        details["login_reason"] = type(cause).__name__
    return details


def proxy_of(client):
    """The proxy the client's requests go through (set_proxy(None) leaves client.proxy behind)."""
    private = getattr(client, "private", None)
    if private is not None and hasattr(private, "proxy"):
        return getattr(private, "proxy", None)
    return getattr(client, "proxy", None)


def message_of(exc):
    message = getattr(exc, "message", None)
    if isinstance(message, str) and message:
        return message
    return str(exc) or type(exc).__name__
