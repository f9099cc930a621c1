"""Many sessions summarized on every core: the first scan of a long history.

A first scan reads every transcript once (10,000 sessions, 200 MB, is some
seconds of CPU per core), and the sessions are independent of one another.
``summaries`` hands them out in chunks to forked worker processes and yields
the results in the order of the refs, so a caller cannot tell a parallel
read from a serial one but by the clock.

Forking is only safe in a process that runs one thread (a child of a
threaded process can inherit a lock another thread held), so a process with
more than one thread, such as the service with its scheduler and watcher,
reads serially; so does a batch too small to pay for the workers. A worker
that dies (a reader crashing the interpreter, the machine out of memory)
leaves nothing unread: the refs not yet returned are read in this process.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence

from dreamd.logs import get_logger
from dreamd.readers import Reader, SessionRef
from dreamd.sessioninfo import SessionInfo
from dreamd.staterows import pack_sessions, unpack_sessions

__all__ = ["PARALLEL_FROM", "pool_size", "summaries"]

log = get_logger("dreamd.readpool")

#: Fewer sessions than this are read in this process: forking the workers and shipping
#: the results back would cost more than the second core saves.
PARALLEL_FROM = 200
#: Sessions in one worker's task: enough to make the round trip negligible, few enough
#: that the work evens out between the workers and the progress moves.
CHUNK = 64
#: Workers at most, however many cores: the results come back through this process.
MAX_WORKERS = 8
#: Seconds between a worker's looks at whether its parent is still there.
_PARENT_POLL = 0.5

#: (reader, ref) -> the session's summary; ``catalog.summarize_safely``.
Summarize = Callable[[Reader, SessionRef], SessionInfo]

#: What a forked worker reads with: set in the parent just before the fork, so the
#: workers inherit it rather than receive it pickled (a test's reader need not pickle).
_WORK: tuple[Mapping[str, Reader], Summarize] | None = None


def pool_size(sessions: int, cores: int, threads: int) -> int:
    """Worker processes for ``sessions`` to read: 0 (read here) unless the batch is large
    enough, there is more than one core, and this process runs one thread."""
    if sessions < PARALLEL_FROM or cores < 2 or threads > 1:
        return 0
    return min(cores, MAX_WORKERS, -(-sessions // CHUNK))


def usable_cores() -> int:
    """The cores this process may run on (its affinity, where the system tells it)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def summaries(
    readers: Mapping[str, Reader],
    refs: Sequence[SessionRef],
    summarize: Summarize,
    *,
    workers: int | None = None,
) -> Iterator[SessionInfo]:
    """``summarize(readers[ref.tool], ref)`` of every ref, in order.

    ``workers`` None picks ``pool_size``; 0 reads every ref here.
    """
    if workers is None:
        workers = pool_size(len(refs), usable_cores(), threading.active_count())
    done = 0
    if workers > 0:
        try:
            for chunk in _in_workers(readers, refs, summarize, workers):
                done += len(chunk)
                yield from chunk
        except _PoolFailed as failure:
            log.warning(
                "catalog.workers_failed",
                reason=str(failure.__cause__ or failure),
                read_here=len(refs) - done,
            )
    for ref in refs[done:]:
        yield summarize(readers[ref.tool], ref)


class _PoolFailed(Exception):
    """The worker pool broke (a worker died or raised, no process could be forked); the
    refs it did not return are read in this process, where any failure is the one a
    serial read would meet."""


def _in_workers(
    readers: Mapping[str, Reader], refs: Sequence[SessionRef], summarize: Summarize, workers: int
) -> Iterator[list[SessionInfo]]:
    """Each chunk's summaries, in order, read by ``workers`` forked processes."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    global _WORK
    chunks = [refs[start : start + CHUNK] for start in range(0, len(refs), CHUNK)]
    _WORK = (readers, summarize)
    try:
        pool = ProcessPoolExecutor(
            workers,
            mp_context=multiprocessing.get_context("fork"),
            initializer=_worker_started,
            initargs=(os.getpid(),),
        )
    except (OSError, ValueError) as error:
        _WORK = None
        raise _PoolFailed("the worker processes could not be started") from error
    try:
        try:
            results = pool.map(_summarize_chunk, chunks)  # forks the workers
        except OSError as error:
            raise _PoolFailed("the worker processes could not be started") from error
        while True:
            try:
                chunk = unpack_sessions(next(results))
            except StopIteration:
                return
            except BrokenProcessPool as error:
                raise _PoolFailed("a worker process ended before its sessions were read") from error
            except Exception as error:  # what a worker raised: here it is what it would be
                raise _PoolFailed("a worker failed to summarize its sessions") from error
            yield chunk
    finally:
        _WORK = None
        pool.shutdown(wait=True, cancel_futures=True)


def _worker_started(parent: int) -> None:
    """In a new worker: leave interrupts to the parent, and end when the parent ends.

    Ctrl-C reaches the whole process group; the parent stops the pool, a worker
    printing its own traceback would only add noise. A parent killed outright
    cannot stop its workers, and a worker waiting for its next chunk would wait
    forever: each one watches that its parent is still the one that forked it.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_exit_with, args=(parent,), daemon=True).start()


def _exit_with(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(_PARENT_POLL)
    os._exit(1)


def _summarize_chunk(refs: Sequence[SessionRef]) -> bytes:
    """In a worker: the summaries of one chunk (with what the parent set before forking),
    packed as the session cache packs them (``staterows.pack_sessions``).

    Packed and unpacked in C, the chunk crosses to the parent as one string of bytes:
    pickling ten thousand named tuples with their datetimes and file versions cost the
    workers and the parent about three times as much.
    """
    assert _WORK is not None, "a worker runs only in a process forked by _in_workers"
    readers, summarize = _WORK
    return pack_sessions([summarize(readers[ref.tool], ref) for ref in refs])
