#!/usr/bin/env python3
"""socialgate's aiograpi sidecar: runs the real library behind a JSON-lines protocol on stdin/stdout.

One request per line, one answer per line, matched by id; logs go to stderr.
  {"id": 1, "op": "ping"}                                  → {"id": 1, "ok": true, "result": {version, import_error, ...}}
  {"id": 2, "op": "introspect"}                            → methods.json-shaped list of public Client methods
  {"id": 3, "op": "open", "client": "h1", "settings": {...}, "proxy": "...", "locale": "en_US", "timezone": 3600, "upgrade_app_profile": true?}
  {"id": 4, "op": "call", "client": "h1", "method": "user_info", "kwargs": {...}, "challenge_code": "123456"?}
  {"id": 4, "op": "call", ..., "method": "iter_user_followers_v1", "page": {"cursor": null, "size": 50}} → {items, cursor?}
  {"id": 5, "op": "export", "client": "h1"}                 → the client's settings export
  {"id": 6, "op": "close", "client": "h1"}
  {"id": 7, "op": "cancel", "target": 4}                   → no answer; the target's answer is dropped
Failures answer {"id": n, "ok": false, "error": {"type", "bases", "message", "last_json"?}}.
Calls run concurrently; the calls of one client run one at a time. Whatever reaches stderr is
redacted first (sidecar_redact): the values below are fed to the redactor as they pass.
"""
import asyncio
import builtins
import inspect
import json
import logging
import os
import platform
import sys

from sidecar_codec import SidecarError, convert_kwargs, encode_error, to_json
from sidecar_compat import build_client, capabilities
from sidecar_cursors import Cursors
from sidecar_introspect import describe, public_methods
from sidecar_realtime import op_realtime_start, op_realtime_stop, realtime_capable, stop_realtime
from sidecar_redact import install as install_redaction, kwargs_secrets, proxy_secrets, settings_secrets
from sidecar_tls import count as tls_contexts, share_contexts

LINE_LIMIT = 256 * 1024 * 1024
log = logging.getLogger("socialgate.sidecar")


def claim_stdio():
    """Keep the protocol's pipes private before the library loads: a print() lands on stderr and
    input() reads /dev/null, so nothing the library does can corrupt or steal a protocol line."""
    proto_in, proto_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    builtins.input = _no_terminal
    return os.fdopen(proto_in, "rb", buffering=0), os.fdopen(proto_out, "wb")


def _no_terminal(prompt=""):
    raise EOFError("the socialgate sidecar has no terminal")


def load_library():
    try:
        import httpx  # noqa: F401 (aiograpi's HTTP stack: its clients share TLS contexts from here on)

        share_contexts(httpx)
    except ImportError:
        pass
    try:
        import aiograpi
        from aiograpi import Client
        from aiograpi.exceptions import ChallengeRequired
    except Exception as exc:  # anything the package raises while importing means "not usable"
        return None, None, None, f"{type(exc).__name__}: {exc}"
    return Client, ChallengeRequired, library_version(aiograpi), None


def library_version(module):
    version = getattr(module, "__version__", None)
    if version:
        return str(version)
    try:
        from importlib.metadata import version as dist_version

        return dist_version("aiograpi")
    except Exception:
        return "unknown"


class Entry:
    def __init__(self, client):
        self.client = client
        self.lock = asyncio.Lock()
        self.cursors = Cursors()


class Sidecar:
    def __init__(self, out, secrets, client_class, challenge_required, version, import_error):
        self.out = out
        self.secrets = secrets
        self.Client = client_class
        self.ChallengeRequired = challenge_required
        self.version = version
        self.import_error = import_error
        self.methods = set(public_methods(client_class)) if client_class else set()
        self.clients = {}
        self.tasks = {}
        # client handle -> the task reading its realtime connection
        self.realtime = {}
        self.signatures = {}

    # -- wire --
    def send(self, message):
        try:
            line = json.dumps(message, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError, RecursionError) as exc:
            error = {"type": "SidecarProtocolError", "bases": [], "message": f"result is not serialisable: {exc}"}
            line = json.dumps({"id": message.get("id"), "ok": False, "error": error})
        self.out.write(line.encode("utf-8") + b"\n")
        self.out.flush()

    def dispatch(self, message):
        op, rid = message.get("op"), message.get("id")
        if op == "cancel":
            task = self.tasks.get(message.get("target"))
            if task:
                task.cancel()
            return
        handler = OPS.get(op)
        if handler is None:
            self.send({"id": rid, "ok": False, "error": {"type": "SidecarProtocolError", "bases": [], "message": f"unknown op {op!r}"}})
            return
        task = asyncio.ensure_future(self.run(rid, handler, message))
        self.tasks[rid] = task
        task.add_done_callback(lambda _: self.tasks.pop(rid, None))

    async def run(self, rid, handler, message):
        try:
            result = await handler(self, message)
        except asyncio.CancelledError:
            return  # the caller gave up (timeout or abort) and expects no answer
        except SidecarError as exc:
            self.send({"id": rid, "ok": False, "error": {"type": exc.kind, "bases": exc.bases, "message": str(exc)}})
        except Exception as exc:
            entry = self.clients.get(message.get("client"))
            self.send({"id": rid, "ok": False, "error": encode_error(exc, entry.client if entry else None)})
        else:
            self.send({"id": rid, "ok": True, "result": result})

    # -- clients --
    def require_library(self):
        if self.Client is None:
            raise SidecarError("SidecarUnavailable", f"aiograpi is not importable: {self.import_error}")

    def entry(self, message):
        self.require_library()
        entry = self.clients.get(message.get("client"))
        if entry is None:
            raise SidecarError("SidecarClientNotOpen", "no client is open under this handle")
        return entry

    def install_handlers(self, client):
        # aiograpi's defaults call input(); a server answers the challenge with a 403 instead.
        required = self.ChallengeRequired

        async def challenge_code_handler(username, choice=None, **kwargs):
            raise required("Challenge code required: resolve it with POST /auth/challenge/resolve and the security code you received")

        async def change_password_handler(username, *args, **kwargs):
            raise required("The platform asks for a new password: change it in the official app, then log in again")

        client.challenge_code_handler = challenge_code_handler
        client.change_password_handler = change_password_handler

    def remember(self, handle, client):
        """The client's current cookies and device ids join the redactor (a login sets new ones)."""
        try:
            self.secrets.hold(handle, settings_secrets(client.get_settings()), rolling=True)
        except Exception:
            log.warning("could not read a client's settings for redaction", exc_info=True)

    def method(self, client, name):
        if not isinstance(name, str) or name not in self.methods:
            raise AttributeError(f"'Client' object has no attribute {name!r}")
        return getattr(client, name)

    def check_keywords(self, name, fn, kwargs):
        """A keyword this library's method does not take (a 1.12 parameter under 1.0.9) is refused by
        name before the call, instead of a TypeError from deep inside the library."""
        accepted = self.signatures.get(name)
        if accepted is None:
            accepted = self.signatures[name] = accepted_keywords(fn)
        if accepted is True:
            return
        for keyword in kwargs:
            if keyword not in accepted:
                raise SidecarError(
                    "SidecarUnsupportedParameter",
                    f"{name}() got an unexpected keyword argument '{keyword}': aiograpi {self.version} "
                    f"does not take {keyword} (it needs a newer aiograpi: 1.12 or later)",
                    ["TypeError"],
                )

    async def close_all(self):
        for task in list(self.tasks.values()) + list(self.realtime.values()):
            task.cancel()
        for handle in list(self.clients):
            await release(self.clients.pop(handle).client)


def accepted_keywords(fn):
    """The keyword names a method takes, or True when it takes any (**kwargs) or cannot be read."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return True
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return True
    return frozenset(p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))


async def release(client):
    """Best effort: close the HTTP sessions a client holds."""
    for name in ("private", "public", "graphql"):
        session = getattr(client, name, None)
        close = getattr(session, "aclose", None) or getattr(session, "_close", None)
        if callable(close):
            try:
                result = close()
                if asyncio.iscoroutine(result):
                    await result
            except Exception:
                log.debug("closing the %s session failed", name, exc_info=True)


# -- operations --

async def op_ping(sidecar, message):
    return {
        "library": "aiograpi",
        "version": sidecar.version,
        "import_error": sidecar.import_error,
        "python": platform.python_version(),
        "pid": os.getpid(),
        "clients": len(sidecar.clients),
        "realtime": realtime_capable(sidecar.Client),
        "capabilities": capabilities(sidecar.Client),
        "tls_contexts": tls_contexts(),
    }


async def op_introspect(sidecar, message):
    sidecar.require_library()
    return describe(sidecar.Client, sidecar.version)


async def op_open(sidecar, message):
    sidecar.require_library()
    # Before the library sees them: it may log its settings and proxy while it builds the client.
    sidecar.secrets.hold(message.get("client"), settings_secrets(message.get("settings")) + proxy_secrets(message.get("proxy")))
    client = build_client(sidecar.Client, message.get("settings"), message.get("proxy"), bool(message.get("upgrade_app_profile")))
    if message.get("locale"):
        client.set_locale(message["locale"])
    if message.get("timezone") is not None:
        client.set_timezone_offset(int(message["timezone"]))
    sidecar.install_handlers(client)
    sidecar.remember(message.get("client"), client)
    previous = sidecar.clients.get(message.get("client"))
    sidecar.clients[message.get("client")] = Entry(client)
    if previous:
        await previous.cursors.close()
        await release(previous.client)
    return True


async def op_call(sidecar, message):
    entry = sidecar.entry(message)
    fn = sidecar.method(entry.client, message.get("method"))
    code = message.get("challenge_code")
    # Whatever the caller typed is secret at any length (a 4-digit code), and the library may print
    # it ("Code entered ..."): held before the call starts.
    sidecar.secrets.hold(message.get("client"), kwargs_secrets(message.get("kwargs")) + ([code] if code else []), any_length=True)
    sidecar.check_keywords(message.get("method"), fn, message.get("kwargs") or {})
    async with entry.lock:
        kwargs = convert_kwargs(fn, message.get("kwargs") or {})
        if code is not None:
            async def challenge_code_handler(username, choice=None, **kwargs):
                return code

            entry.client.challenge_code_handler = challenge_code_handler
        try:
            if message.get("page") is not None:
                return await entry.cursors.page(fn, kwargs, message["page"])
            result = fn(**kwargs)
            if inspect.isawaitable(result):
                result = await result
        finally:
            if code is not None:
                sidecar.install_handlers(entry.client)
            sidecar.remember(message.get("client"), entry.client)
        return to_json(result)


async def op_export(sidecar, message):
    entry = sidecar.entry(message)
    async with entry.lock:
        return to_json(entry.client.get_settings())


async def op_close(sidecar, message):
    sidecar.require_library()
    await stop_realtime(sidecar, message.get("client"))
    entry = sidecar.clients.pop(message.get("client"), None)
    if entry:
        async with entry.lock:
            await entry.cursors.close()
            await release(entry.client)
    sidecar.secrets.forget(message.get("client"))
    return entry is not None


OPS = {
    "ping": op_ping, "introspect": op_introspect, "open": op_open, "call": op_call, "export": op_export, "close": op_close,
    "realtime_start": op_realtime_start, "realtime_stop": op_realtime_stop,
}


async def serve(proto_in, out, secrets):
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=LINE_LIMIT)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), proto_in)
    sidecar = Sidecar(out, secrets, *load_library())
    if sidecar.import_error:
        log.error("aiograpi is not importable: %s", sidecar.import_error)
    while True:
        line = await reader.readline()
        if not line:
            break
        try:
            message = json.loads(line)
            if not isinstance(message, dict):
                raise ValueError("a request is a JSON object")
        except ValueError as exc:
            sidecar.send({"id": None, "ok": False, "error": {"type": "SidecarProtocolError", "bases": [], "message": f"bad request line: {exc}"}})
            continue
        sidecar.dispatch(message)
    await sidecar.close_all()


def main():
    proto_in, out = claim_stdio()
    secrets = install_redaction(os.environ.get("SOCIALGATE_SIDECAR_LOG_LEVEL", "WARNING"))
    asyncio.run(serve(proto_in, out, secrets))


if __name__ == "__main__":
    main()
