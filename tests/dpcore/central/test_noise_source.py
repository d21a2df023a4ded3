"""The buffered CSPRNG source of dpcore.central.noise (issue 13: samplers faster than OpenDP's):
uniform integers, bits never shared between threads or with a forked child."""

from __future__ import annotations

import multiprocessing
import threading

from scipy import stats

from dpcore.central import noise
from dpcore.central.noise import SecretsRandomSource


def test_randbelow_is_uniform() -> None:
    source = SecretsRandomSource()
    for n in (2, 3, 10, 17, 1000):
        draws = 200 * n if n < 1000 else 100_000
        counts = [0] * n
        for _ in range(draws):
            counts[source.randbelow(n)] += 1
        assert stats.chisquare(counts).pvalue > 1e-6
    big = (1 << 300) + 12345
    assert all(0 <= source.randbelow(big) < big for _ in range(200))
    assert source.randbelow(1) == 0


def _child_draws(queue: multiprocessing.Queue, source: SecretsRandomSource) -> None:
    queue.put([source.randbelow(1 << 64) for _ in range(8)])


def test_forked_child_does_not_reuse_the_parents_bits() -> None:
    source = SecretsRandomSource()
    source.randbelow(1 << 20)  # fill the pool
    ctx = multiprocessing.get_context("fork")
    queue: multiprocessing.Queue = ctx.Queue()
    child = ctx.Process(target=_child_draws, args=(queue, source))
    child.start()
    theirs = queue.get(timeout=30)
    child.join(timeout=30)
    ours = [source.randbelow(1 << 64) for _ in range(8)]
    assert ours != theirs


def test_threads_do_not_share_bits() -> None:
    source = SecretsRandomSource()
    results: dict[int, list[int]] = {}

    def work(i: int) -> None:
        results[i] = [source.randbelow(1 << 64) for _ in range(64)]

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    seen = [v for vals in results.values() for v in vals]
    assert len(set(seen)) == len(seen)


def test_csprng_module_draws_only_from_secrets() -> None:
    """Like test_noise_module_uses_only_secrets, for the buffered source: it has no randomness of
    its own (dpcore.central.noise hands it ``secrets.token_bytes``); ``os`` is used for
    ``os.register_at_fork`` alone (never ``os.urandom``)."""
    import ast
    from pathlib import Path

    path = Path(__file__).resolve().parents[3] / "dpcore" / "central" / "csprng.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names} | {
        n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
    }
    assert imported == {"__future__", "os", "threading", "collections.abc"}
    os_uses = {
        n.attr
        for n in ast.walk(tree)
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "os"
    }
    assert os_uses == {"register_at_fork"}
    import secrets

    assert SecretsRandomSource()._token_bytes is secrets.token_bytes
    assert isinstance(noise._DEFAULT_SOURCE, SecretsRandomSource)
