"""The library's public Client methods, found the way the reference coverage audit finds them:
inspect.getmembers(Client), names without a leading underscore, functions and method descriptors.
The record per method has the shape of the shared methods.json, so the audit reads either."""
import inspect
import re
import sys
from pathlib import Path

_MODULE_PREFIX = re.compile(r"\b(?:[A-Za-z_][A-Za-z0-9_]*\.)+(?=[A-Za-z_])")


def public_methods(client_class):
    return {
        name: value
        for name, value in inspect.getmembers(client_class)
        if not name.startswith("_") and (inspect.isfunction(value) or inspect.ismethoddescriptor(value))
    }


def describe(client_class, version):
    methods = [method_record(name, fn) for name, fn in sorted(public_methods(client_class).items())]
    return {"library": "aiograpi", "version": version, "class": client_class.__name__, "count": len(methods), "methods": methods}


def method_record(name, fn):
    module = getattr(fn, "__module__", "") or ""
    qualname = getattr(fn, "__qualname__", name)
    record = {
        "name": name,
        "area": _area(module),
        "mixin": qualname.split(".")[0] if "." in qualname else "",
        "async": inspect.iscoroutinefunction(fn),
        "params": [],
        "returns": None,
        "varargs": False,
        "varkw": False,
        "signature": "(...)",
    }
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):
        return record
    record["signature"] = _strip(str(signature))
    record["returns"] = _annotation(signature.return_annotation)
    for index, param in enumerate(signature.parameters.values()):
        if index == 0 and param.name == "self":
            continue
        if param.kind is param.VAR_POSITIONAL:
            record["varargs"] = True
        elif param.kind is param.VAR_KEYWORD:
            record["varkw"] = True
        else:
            record["params"].append(_param(param))
    return record


def _area(module):
    """The defining file's name, as the reference lists it (aiograpi/__init__.py → __init__)."""
    source = getattr(sys.modules.get(module), "__file__", None)
    return Path(source).stem if source else module.split(".")[-1]


def _param(param):
    out = {"name": param.name}
    annotation = _annotation(param.annotation)
    if annotation is not None:
        out["type"] = annotation
    if param.default is not param.empty:
        out["default"] = repr(param.default)
    out["required"] = param.default is param.empty
    return out


def _annotation(annotation):
    if annotation is inspect.Signature.empty:
        return None
    if isinstance(annotation, str):
        return _strip(annotation)
    return _strip(inspect.formatannotation(annotation))


_QUOTED = re.compile(r"""('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")""")


def _strip(text):
    """typing.List[aiograpi.types.Media] → List[Media]; quoted defaults are left alone."""
    parts = _QUOTED.split(text)
    return "".join(part if i % 2 else _MODULE_PREFIX.sub("", part.replace("typing.", "")) for i, part in enumerate(parts))
