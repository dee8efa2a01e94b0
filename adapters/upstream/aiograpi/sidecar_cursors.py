"""The library's async iterators (1.12: iter_user_followers_v1, iter_user_medias, iter_hashtag_medias)
read as server-side cursors, a page at a time.

A call that carries `"page": {"cursor": null, "size": n}` starts the iterator and answers its first
n items with a cursor naming the open generator; `"cursor": "<that>"` reads the next n. The answer
is `{"items": [...], "cursor": "..."}`, without a cursor once the iterator is spent. The iterators
take no start cursor and hand none out, so a cursor lives only as long as this process and its
client: one asked for after a restart (or a reopening of the client) is refused as
SidecarCursorGone, and the caller goes on through the chunk method the iterator walks.
"""
import inspect
import itertools

from sidecar_codec import SidecarError, to_json

# Open cursors per client: a job that is cancelled or lost leaves one behind, so the oldest go first.
MOST_PER_CLIENT = 16
_serial = itertools.count(1)


class Cursors:
    def __init__(self):
        self.open = {}

    async def page(self, fn, kwargs, page):
        size = int(page.get("size") or 0)
        if size < 1:
            raise SidecarError("SidecarProtocolError", "page.size must be at least 1")
        cursor = page.get("cursor")
        if cursor is None:
            generator = fn(**kwargs)
            if not inspect.isasyncgen(generator):
                if inspect.iscoroutine(generator):
                    generator.close()  # never started: no "was never awaited" warning
                raise SidecarError("SidecarProtocolError", "only an async iterator is read a page at a time")
            cursor = f"c{next(_serial)}"
            await self.keep(cursor, generator)
        generator = self.open.get(cursor)
        if generator is None:
            raise SidecarError("SidecarCursorGone", "the iterator's cursor is gone (the sidecar or the client was restarted); read on through the chunk method")
        items = []
        while len(items) < size:
            try:
                items.append(await generator.__anext__())
            except StopAsyncIteration:
                self.open.pop(cursor, None)
                return {"items": to_json(items)}
            except BaseException:
                self.open.pop(cursor, None)  # a generator that raised is finished
                raise
        return {"items": to_json(items), "cursor": cursor}

    async def keep(self, cursor, generator):
        while len(self.open) >= MOST_PER_CLIENT:
            oldest = next(iter(self.open))
            await self.open.pop(oldest).aclose()
        self.open[cursor] = generator

    async def close(self):
        for generator in list(self.open.values()):
            try:
                await generator.aclose()
            except Exception:
                pass
        self.open.clear()
