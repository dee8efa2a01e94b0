"""What the installed aiograpi can do, told by its capabilities (never by its version string), and the
client construction that depends on them.

- 2.0 made login() run only the new (CAA) login flow and kept the old one as login_legacy(); it made
  private HTTP/2 through curl_cffi the default transport (a `private_transport` constructor choice).
- Saved app profiles from before the new login need `override_app_version=True` to be upgraded (a
  constructor flag every supported release takes); an operator asks for it on PATCH /auth/settings.
- 1.12 keeps a P-256 device signing key in the settings export (`usdid.private_key`) and reads it
  while building the client: an export whose key the library cannot read is named here
  (DeviceKeyUnreadable), so the service answers a 4xx with a way out instead of an unmapped error.
- 2.0.6 added media_upload_status (lost upload answers) and video_refresh_resources (expired video
  addresses); 1.12 the async iterators jobs page with.
"""
import inspect

from sidecar_codec import SidecarError

ITERATORS = ("iter_user_followers_v1", "iter_user_medias", "iter_hashtag_medias")
HELPERS = ("login_legacy", "media_upload_status", "video_refresh_resources")


def capabilities(client_class):
    if client_class is None:
        return {}
    found = {name: callable(getattr(client_class, name, None)) for name in HELPERS}
    return {
        **found,
        "transport": default_transport(client_class),
        "device_key": callable(getattr(client_class, "set_usdid_settings", None)),
        "app_profile_upgrade": "override_app_version" in constructor_params(client_class),
        "iterators": [name for name in ITERATORS if callable(getattr(client_class, name, None))],
    }


def constructor_params(client_class):
    try:
        return inspect.signature(client_class.__init__).parameters
    except (TypeError, ValueError):
        return {}


def default_transport(client_class):
    """The private API's transport: the constructor's `private_transport` default where it has one
    (2.0: HTTP/2 through curl_cffi), else httpx (1.x)."""
    param = constructor_params(client_class).get("private_transport")
    if param is None:
        return "httpx"
    default = param.default
    return str(default) if default not in (inspect.Parameter.empty, None) else "httpx"


def build_client(client_class, settings, proxy, upgrade_app_profile=False):
    kwargs = {"settings": settings or {}, "proxy": proxy or None}
    if upgrade_app_profile:
        if "override_app_version" not in constructor_params(client_class):
            raise SidecarError("SidecarUnsupported", "this aiograpi cannot upgrade a saved app profile (its Client takes no override_app_version)")
        kwargs["override_app_version"] = True
    try:
        return client_class(**kwargs)
    except Exception as exc:
        if device_key_at_fault(client_class, kwargs):
            raise SidecarError(
                "DeviceKeyUnreadable",
                f"the settings export's device signing key (usdid.private_key) cannot be read by this aiograpi ({type(exc).__name__})",
                ["ClientError"],
            ) from None
        raise


def device_key_at_fault(client_class, kwargs):
    """The export has a device key, and without it the same client builds: the key is what fails."""
    settings = kwargs["settings"]
    usdid = settings.get("usdid") if isinstance(settings, dict) else None
    if not isinstance(usdid, dict) or not usdid.get("private_key"):
        return False
    try:
        client_class(**{**kwargs, "settings": {key: value for key, value in settings.items() if key != "usdid"}})
    except Exception:
        return False
    return True

