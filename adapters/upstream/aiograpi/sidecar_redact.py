"""Keeps secrets out of the sidecar's stderr, which the service copies into its own log.

Everything written there (the sidecar's log, the library's log at any level up to DEBUG, a print()
of the library, a traceback) passes through a redactor line by line: values the sidecar has handed
the library or read back from it (passwords, security and verification codes of any length, proxy
credentials, cookies, session and device ids and the device signing key of a settings export) and
anything shaped like a credential (sessionid=..., a password or code field, a Bearer token) become
[redacted]. aiograpi logs request and response data at DEBUG, and the HTTP
stack below it logs raw headers, so the level alone cannot be trusted to keep them out.
"""
import atexit
import logging
import re
import sys
from urllib.parse import quote, unquote, urlsplit

MASK = "[redacted]"
# Shorter values read back from settings occur by chance too often to be replaced everywhere (a
# pk's digits, a flag). Values the service hands the library (a 4-digit code, a short password) are
# secret at any length: those shorter than this are replaced only as whole words.
MIN_LENGTH = 6
# Values read back from settings rotate (cookies, claims): a client keeps only its newest ones.
ROLLING_LIMIT = 64

# Keyword arguments of Client methods that carry a credential.
SECRET_KWARGS = frozenset({
    "password", "old_password", "new_password", "sessionid", "authorization", "seed",
    "native_auth_data", "opaque_verified_native_auth_data",
    "verification_code", "security_code", "code", "email_code", "phone_code",
})
# Parts of a settings export that hold credentials or identify the device.
# From 1.12, "usdid" holds the device's attestation id and its signing key (a PEM private key).
SECRET_SETTINGS = ("authorization_data", "cookies", "uuids", "mid", "ig_u_rur", "ig_www_claim", "password", "usdid")
# Fields inside them that are public: the account pk and username, a flag.
PUBLIC_FIELDS = frozenset({"ds_user_id", "ds_user", "should_use_header_over_cookies", "registered"})

# name=value, "name": "value", b'name': b'value' for credential-shaped names (Cookie headers too).
KEYED = re.compile(
    r"""(?i)(\b(?:[\w-]*password|sessionid|csrftoken|[\w-]*authorization|(?:set-)?cookie|"""
    r"""(?:verification|security|email|phone)_code|private_key)\b['"]?\s*[:=]\s*(?:b?['"])?)"""
    r"""(?:bearer\s+)?[^\s'"&;,}\]]+"""
)
BEARER = re.compile(r"(?i)\bBearer\s+[\w:.~+/=-]+")
# A PEM block's base64 body, whichever key it is and however it is quoted (a key spans lines).
PEM_BODY = re.compile(r"(-----BEGIN [A-Z ]*PRIVATE KEY-----)(?:.*?)(-----END [A-Z ]*PRIVATE KEY-----|$)")
PEM_LINE = re.compile(r"^[A-Za-z0-9+/]{40,}={0,2}$")
# The wire-level loggers below aiograpi dump raw headers (cookies) at DEBUG: never below WARNING.
WIRE_LOGGERS = ("httpcore", "hpack", "h2", "h11", "urllib3")


class Secrets:
    """The values to redact, by the client handle they came with, so a closed client's go too."""

    def __init__(self):
        self.fixed = {}
        self.rolling = {}
        self.pattern = None

    def hold(self, owner, values, rolling=False, any_length=False):
        bucket = (self.rolling if rolling else self.fixed).setdefault(owner, {})
        added = False
        for value in variants(values, 1 if any_length else MIN_LENGTH):
            if value not in bucket:
                bucket[value] = True
                added = True
        if rolling:
            while len(bucket) > ROLLING_LIMIT:
                del bucket[next(iter(bucket))]
        if added:
            self.pattern = None

    def forget(self, owner):
        if self.fixed.pop(owner, None) is not None or self.rolling.pop(owner, None) is not None:
            self.pattern = None

    def redact(self, text):
        text = BEARER.sub("Bearer " + MASK, KEYED.sub(lambda m: m.group(1) + MASK, text))
        text = PEM_BODY.sub(lambda m: m.group(1) + MASK + m.group(2), text)
        if PEM_LINE.match(text.strip()):
            return MASK  # a line of a key printed across lines
        pattern = self.compiled()
        return pattern.sub(MASK, text) if pattern else text

    def compiled(self):
        if self.pattern is None:
            values = {v for bucket in (*self.fixed.values(), *self.rolling.values()) for v in bucket}
            # Longest first, so a value that contains another is replaced whole.
            alternatives = "|".join(_alternative(v) for v in sorted(values, key=len, reverse=True))
            self.pattern = re.compile(alternatives) if alternatives else False
        return self.pattern or None


def _alternative(value):
    # A short value (a 4-digit code) only as a whole word, so the digits of a pk or a count stay.
    if len(value) < MIN_LENGTH:
        return r"(?<![A-Za-z0-9])" + re.escape(value) + r"(?![A-Za-z0-9])"
    return re.escape(value)


def variants(values, min_length=MIN_LENGTH):
    """Each value as written, URL-encoded and decoded (cookies travel encoded), escaped as a repr or
    JSON string shows it, and line by line (a PEM key is logged across lines)."""
    for value in values:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            value = str(value)  # a code sent as a number
        if not isinstance(value, str) or len(value) < min_length:
            continue
        forms = {value, unquote(value), quote(value, safe="")}
        if "\n" in value:
            forms.add(value.replace("\n", "\\n"))
            forms.update(line.strip() for line in value.splitlines())
        for form in forms:
            if len(form) >= min_length:
                yield form


def settings_secrets(settings):
    """The credential and device values of a settings export."""
    found = []
    if isinstance(settings, dict):
        for key in SECRET_SETTINGS:
            collect(settings.get(key), found)
    return found


def collect(value, found):
    if isinstance(value, dict):
        for key, item in value.items():
            if key not in PUBLIC_FIELDS:
                collect(item, found)
    elif isinstance(value, (list, tuple)):
        for item in value:
            collect(item, found)
    elif isinstance(value, str):
        found.append(value)


def kwargs_secrets(kwargs):
    found = []
    for name, value in (kwargs or {}).items():
        if name in SECRET_KWARGS:
            collect(value, found)
        elif name == "settings":
            found.extend(settings_secrets(value))
    return found


def proxy_secrets(proxy):
    if not proxy:
        return []
    try:
        password = urlsplit(proxy).password
    except ValueError:
        password = None
    return [proxy] + ([password] if password else [])


class RedactingStream:
    """Stands in for sys.stderr: whole lines pass through the redactor, so no secret is cut in two."""

    def __init__(self, stream, secrets):
        self.stream = stream
        self.secrets = secrets
        self.pending = ""

    def write(self, text):
        self.pending += text
        *lines, self.pending = self.pending.split("\n")
        for line in lines:
            self.stream.write(self.secrets.redact(line) + "\n")
        return len(text)

    def flush(self):
        self.stream.flush()

    def close(self):
        if self.pending:
            self.stream.write(self.secrets.redact(self.pending) + "\n")
            self.pending = ""
        self.stream.flush()

    def __getattr__(self, name):
        return getattr(self.stream, name)


def install(level_name):
    """Routes stderr, print() and logging through the redactor; returns the secrets to feed it."""
    secrets = Secrets()
    stream = RedactingStream(sys.stderr, secrets)
    sys.stderr = sys.stdout = stream
    atexit.register(stream.close)
    level = getattr(logging, str(level_name).upper(), logging.WARNING)
    logging.basicConfig(stream=stream, level=level, format="%(levelname)s %(name)s: %(message)s")
    for name in WIRE_LOGGERS:
        logging.getLogger(name).setLevel(max(level, logging.WARNING))
    return secrets
