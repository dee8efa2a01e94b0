"""One TLS context per distinct verification setting, shared by every HTTP client of the sidecar.

aiograpi builds six httpx clients per Client (private, public, graphql sessions and their rebuilds on
every proxy or verification change), and httpx builds a fresh SSL context for each, loading the CA
bundle every time: about 0.45 s of CPU and 2.5 MB per account. A context built from the same
settings verifies the same way, so clients with equal settings can share one. The key is everything
the context is built from (verify: True, False or a CA file path; the client certificate; trust_env,
which lets SSL_CERT_FILE choose the bundle; http2, which decides the ALPN list httpcore writes into
the context), so a client whose library turns verification off, points it at another bundle or
changes proxy gets the context its settings ask for, as before. A context handed in by the caller
is left alone.
"""
import threading

_lock = threading.Lock()
_contexts = {}


def share_contexts(httpx_module):
    """Wraps httpx.AsyncClient and httpx.Client once; returns False when httpx has no such hook."""
    create = getattr(httpx_module, "create_ssl_context", None)
    if create is None:
        return False
    for name in ("AsyncClient", "Client"):
        cls = getattr(httpx_module, name, None)
        if cls is not None and not getattr(cls.__init__, "_socialgate_shared_tls", False):
            cls.__init__ = _sharing(cls.__init__, create)
    return True


def _sharing(init, create):
    def __init__(self, *args, verify=True, cert=None, trust_env=True, http2=False, **kwargs):
        if isinstance(verify, (bool, str)) and cert is None:
            verify = shared_context(create, verify, trust_env, http2)
        elif cert is not None:
            kwargs["cert"] = cert
        init(self, *args, verify=verify, trust_env=trust_env, http2=http2, **kwargs)

    __init__._socialgate_shared_tls = True
    return __init__


def shared_context(create, verify, trust_env, http2):
    key = (verify, trust_env, http2)
    context = _contexts.get(key)
    if context is None:
        with _lock:
            context = _contexts.get(key)
            if context is None:
                context = _contexts[key] = create(verify=verify, trust_env=trust_env)
    return context


def count():
    return len(_contexts)
