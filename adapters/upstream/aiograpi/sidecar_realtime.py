"""The realtime stream of a client (aiograpi 1.1 and later): started and stopped by the engine, each
direct message told as a notice without its payload, a dead stream told once."""
import asyncio

from sidecar_codec import SidecarError


def realtime_capable(client_class):
    # aiograpi 1.1 and later: the MQTT realtime client and its message callbacks.
    return bool(client_class) and all(hasattr(client_class, name) for name in ("realtime_on", "realtime_connect", "realtime_read_once", "realtime_disconnect"))


async def op_realtime_start(sidecar, message):
    """Connects the client's realtime stream and subscribes to direct messages. Each message is told to
    the engine as a notice (`{"event": "realtime", "kind": "message"}`, without the payload, whose shape is
    private to the platform: the engine polls the inbox on it); a dead stream as `kind: "lost"`."""
    entry = sidecar.entry(message)
    handle = message.get("client")
    if not realtime_capable(type(entry.client)):
        raise SidecarError("SidecarUnsupported", f"aiograpi {sidecar.version} has no realtime client (1.1 and later have)")
    await stop_realtime(sidecar, handle)
    client = entry.client
    client.realtime_on("message", lambda payload: sidecar.send({"event": "realtime", "client": handle, "kind": "message"}))
    rt = await client.realtime_connect()
    await rt.direct_subscribe()
    sidecar.realtime[handle] = asyncio.ensure_future(read_realtime(sidecar, handle, client))
    return True


async def read_realtime(sidecar, handle, client):
    try:
        while True:
            await client.realtime_read_once()
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # the stream died: the engine reconnects and polls once to catch up
        sidecar.send({"event": "realtime", "client": handle, "kind": "lost", "reason": type(exc).__name__})
    finally:
        sidecar.realtime.pop(handle, None)
        try:
            await client.realtime_disconnect()
        except Exception:
            pass


async def stop_realtime(sidecar, handle):
    task = sidecar.realtime.pop(handle, None)
    if task:
        task.cancel()
        try:
            await task
        except (asyncio.CancelledError, Exception):
            pass
    return task is not None


async def op_realtime_stop(sidecar, message):
    return await stop_realtime(sidecar, message.get("client"))
