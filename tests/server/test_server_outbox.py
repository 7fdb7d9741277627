"""A live connection's outbox (blockyard.server.sockets.Outbox): whoever sends
only queues, the connection's own task writes in order, so a slow reader never
delays the others; a close comes after what was sent before it; a reader too far
behind is closed. In process, on sockets that record what they are given."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from starlette.websockets import WebSocket

from blockyard.server.livecache import RoundMoves
from blockyard.server.referee import Move
from blockyard.server.room import Room, Watcher
from blockyard.server.sockets import MAX_BEHIND, SIGNED_OUT, TOO_SLOW, Outbox, encode


class Recorder:
    """A socket that records what it is sent; ``stuck`` ones wait until let go."""

    def __init__(self, stuck: bool = False, gone: bool = False) -> None:
        self.sent: list[Any] = []
        self.texts: list[str] = []
        self.closed: tuple[int, str] | None = None
        self.go = asyncio.Event()
        if not stuck:
            self.go.set()
        self.gone = gone

    async def send_json(self, message: Any) -> None:
        await self.go.wait()
        if self.gone:
            raise ConnectionResetError("the peer is gone")
        self.sent.append(message)

    async def send_text(self, text: str) -> None:
        await self.send_json(json.loads(text))
        self.texts.append(text)

    async def close(self, code: int = 1000, reason: str = "") -> None:
        self.closed = (code, reason)


async def settle() -> None:
    for _ in range(20):  # every ready task runs: no time passes
        await asyncio.sleep(0)


def test_a_slow_reader_never_delays_the_others() -> None:
    async def run() -> None:
        slow, fast = Recorder(stuck=True), Recorder()
        boxes = [Outbox(slow), Outbox(fast)]  # type: ignore[arg-type]
        for box in boxes:
            box.start()
        for n in range(50):  # a fan-out: posting never waits for a socket
            for box in boxes:
                box.post({"type": "move", "n": n})
        await settle()
        assert [m["n"] for m in fast.sent] == list(range(50))
        assert slow.sent == []
        slow.go.set()  # the slow reader reads at last: everything, in order
        await settle()
        assert [m["n"] for m in slow.sent] == list(range(50))
        for box in boxes:
            await box.stop()

    asyncio.run(run())


def test_a_socket_that_takes_the_message_at_once_is_written_to_with_no_task() -> None:
    async def run() -> None:
        socket, stuck = Recorder(), Recorder(stuck=True)
        ready, waiting = Outbox(socket), Outbox(stuck)  # type: ignore[arg-type]
        for box in (ready, waiting):
            box.start()
            box.post({"n": 1})
        # written before post returned, no task left behind (a send is nearly always so)
        assert socket.sent == [{"n": 1}] and ready._writer is None
        assert stuck.sent == [] and waiting._writer is not None  # carried on by a task
        waiting.post({"n": 2})
        stuck.go.set()
        await settle()
        assert stuck.sent == [{"n": 1}, {"n": 2}] and waiting._writer is None  # done: let go
        stuck.go.clear()
        waiting.post({"n": 3})  # waits again: stopped meanwhile, its task is cancelled
        writer = waiting._writer
        await waiting.stop()
        assert writer is not None and writer.cancelled() and stuck.sent == [{"n": 1}, {"n": 2}]
        await ready.stop()

    asyncio.run(run())


def test_a_close_comes_after_what_was_sent_before_it_and_nothing_after() -> None:
    async def run() -> None:
        socket = Recorder()
        box = Outbox(socket)  # type: ignore[arg-type]
        box.start()
        box.post({"n": 1})
        box.post({"n": 2})
        box.close_signed_out()
        box.post({"n": 3})
        box.close(1000)  # a second close does nothing
        await settle()
        assert socket.sent == [{"n": 1}, {"n": 2},
                               {"type": "refused", "reason": SIGNED_OUT, "kind": "signed-out"}]
        assert socket.closed == (4401, "") and box.closing
        await box.stop()

    asyncio.run(run())


def test_a_reader_too_far_behind_is_closed_and_its_queue_dropped() -> None:
    async def run() -> None:
        socket = Recorder(stuck=True)
        box = Outbox(socket)  # type: ignore[arg-type]
        box.start()
        for n in range(MAX_BEHIND + 10):
            box.post({"n": n})
        assert box.closing
        socket.go.set()
        await settle()
        # at most the message the writer held when it stopped waiting, then the close
        assert len(socket.sent) <= 1
        assert socket.closed == (1008, TOO_SLOW)
        await box.stop()

    asyncio.run(run())


def test_a_gone_peer_stops_the_writing_and_the_flush_returns() -> None:
    async def run() -> None:
        socket = Recorder(gone=True)
        box = Outbox(socket)  # type: ignore[arg-type]
        box.start()
        for n in range(5):
            box.post({"n": n})
        await settle()
        assert socket.sent == []
        waiting = asyncio.ensure_future(box.flushed(seconds=3600))
        await settle()
        assert waiting.done()  # at once: nothing is left to write
        box.post({"n": 5})  # still only queued: the connection's reader ends it
        await box.stop()
        await box.flushed()  # stopped: nothing to wait for

    asyncio.run(run())


class TextSocket:
    """A socket that keeps the text frames it is given, in ``sent`` (shared)."""

    def __init__(self, sent: list[str]) -> None:
        self.sent = sent

    async def send_text(self, text: str) -> None:
        self.sent.append(text)


def watching(room: Room, table_id: int, count: int, sent: list[str]) -> list[Watcher]:
    """``count`` connections of a table in ``room``, writing to ``sent``."""
    watchers = [Watcher(TextSocket(sent), None) for _ in range(count)]  # type: ignore[arg-type]
    for watcher in watchers:
        room.enter(table_id, watcher)
        watcher.greeted = True  # sent the table (SeatViews.greet)
    return watchers


def test_a_message_fanned_out_is_encoded_once_as_send_json_writes_it() -> None:
    # the table's connections get the same text, written once for all of them, and
    # it is the text Starlette's send_json writes (no spaces, UTF-8 as it is)
    sent: list[str] = []

    async def run() -> None:
        room = Room()
        watchers = watching(room, 7, 3, sent)
        message = {"type": "said", "seat": 1, "name": "zoë", "phrase": "thanks"}
        room.send(7, message)
        await settle()
        assert len(sent) == 3 and len({id(text) for text in sent}) == 1
        replies: list[str] = []

        class Starlette(WebSocket):
            def __init__(self) -> None:
                pass

            async def send(self, frame: Any) -> None:
                replies.append(frame["text"])

        await Starlette().send_json(message)
        assert sent[0] == replies[0] == encode(message)
        for watcher in watchers:
            room.leave(7, watcher)
            await watcher.outbox.stop()

    asyncio.run(run())


def test_each_move_is_encoded_once_for_every_connection_it_reaches() -> None:
    sent: list[str] = []

    async def run() -> None:
        room = Room()
        watchers = watching(room, 3, 2, sent)
        known = RoundMoves(1)
        known.add(Move(0, 1, ["place", 0, 0, 0], 10, False))
        room.send_moves(3, known)
        room.send_moves(3, known)  # nothing new: nothing sent again
        await settle()
        assert [json.loads(text)["score"] for text in sent] == [10, 10]
        assert sent[0] is sent[1]
        for watcher in watchers:
            room.leave(3, watcher)
            await watcher.outbox.stop()

    asyncio.run(run())


def test_a_connection_not_yet_sent_the_table_gets_no_move_before_it() -> None:
    # a move fanned out while a connection opens (between entering the room and
    # being sent the table) waits for the table: then every move so far, in order
    sent: list[str] = []

    async def run() -> None:
        room = Room()
        (opening,) = watching(room, 5, 1, sent)
        opening.greeted = False
        known = RoundMoves(1)
        known.add(Move(0, 1, ["place", 0, 0, 0], 10, False))
        room.send_moves(5, known)  # another connection's move, meanwhile
        assert sent == []
        opening.post(encode({"type": "table"}))  # greeted (SeatViews.greet), then its own send
        opening.greeted = True
        known.add(Move(1, 1, ["place", 1, 0, 0], 4, False))
        room.send_moves(5, known, only=opening)
        room.send_moves(5, known)  # nothing new for it: nothing sent again
        await settle()
        assert [json.loads(text)["type"] for text in sent] == ["table", "move", "move"]
        assert [json.loads(text)["score"] for text in sent[1:]] == [10, 4]
        room.leave(5, opening)
        await opening.outbox.stop()

    asyncio.run(run())
