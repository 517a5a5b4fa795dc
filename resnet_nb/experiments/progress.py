"""The remaining-time estimate of the experiment chapters' engine (book/exp_*.ipynb): the relative
cost of a work item, the seconds per unit of cost measured on records, and one progress bar
over the items of a run.
"""

from __future__ import annotations

import threading
import time

from tqdm.auto import tqdm

from resnet_nb.shared.store import item_key, iter_records

__all__ = ["item_cost", "seconds_per_cost", "format_seconds", "Progress"]


def item_cost(module, item: dict) -> float:
    """Relative cost of a work item, for the remaining-time estimate (not a time).

    A figure module may define ``cost(item)``; otherwise the cost grows with the depth and
    is proportional to the epochs, runs, learning rates and training samples the item holds.
    Only ratios between items of one figure matter: the seconds per unit of cost are measured
    (from earlier records and from the items finished in this run)."""
    if hasattr(module, "cost"):
        return float(module.cost(item))
    c = float(item.get("depth", item.get("blocks", 1))) + 8.0
    c *= float(item.get("epochs", 1000)) / 1000.0
    c *= float(item.get("runs", 1)) * float(len(item.get("lrs", [0])))
    c *= float(item.get("n_train", 1000)) / 1000.0
    return max(c, 1e-3)


def seconds_per_cost(module, folders) -> float | None:
    """Seconds per unit of :func:`item_cost`, from the wall times of records in ``folders``."""
    wall = cost = 0.0
    for folder in folders:
        if folder is None:
            continue
        for body in iter_records(folder):
            try:
                w = float(body["provenance"]["wall_time_s"])
                c = item_cost(module, body["item"])
            except (ValueError, KeyError, TypeError):
                continue
            wall, cost = wall + w, cost + c
    return wall / cost if cost > 0 else None


def format_seconds(s: float) -> str:
    s = int(round(max(s, 0.0)))
    h, rem = divmod(s, 3600)
    m, sec = divmod(rem, 60)
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m:02d}:{sec:02d}"


class Progress:
    """One progress bar over the cost of the items, with a remaining-time estimate.

    The estimate is (cost of the items not started + what is left of the items running) times
    the seconds per unit of cost, divided by the number of processes that still have work. The
    seconds per unit of cost come from this run's finished items once there are any, before that
    from the records of earlier runs (this store, then the committed results), so an estimate is
    shown from the first second, and a resumed run is not misled by the items it skipped."""

    def __init__(self, module, name, items, done_items, jobs, prior_spc, progress):
        self.module, self.jobs, self.prior = module, jobs, prior_spc
        self.t0 = time.perf_counter()
        self.cost = {item_key(i): item_cost(module, i) for i in items}
        self.total = sum(self.cost.values())
        done_cost = sum(self.cost[item_key(i)] for i in done_items)
        self.pending = {item_key(i) for i in items} - {item_key(i) for i in done_items}
        self.running = {}  # key -> start time
        self.run_wall = self.run_cost = 0.0
        self.lock = threading.Lock()
        self.bar = tqdm(
            total=round(self.total, 3),
            initial=round(done_cost, 3),
            desc=name,
            disable=not progress,
            unit="cost",
            bar_format="{desc}: {percentage:3.0f}%|{bar}| {postfix}",
        )
        self._stop = threading.Event()
        self._thread = None
        if progress:
            self._thread = threading.Thread(target=self._tick, daemon=True)
            self._thread.start()
        self.refresh()

    def spc(self):
        if self.run_cost > 0:
            return self.run_wall / self.run_cost
        return self.prior

    def remaining(self, now: float | None = None) -> float | None:
        now = time.perf_counter() if now is None else now
        spc = self.spc()
        with self.lock:
            # an item that has run for t seconds shows that its cost takes at least t seconds
            seen = max(((now - t) / self.cost[k] for k, t in self.running.items()), default=None)
        if spc is None or (seen is not None and seen > spc):
            spc = seen if spc is None or (seen is not None and seen > spc) else spc
        if spc is None or spc <= 0:
            return None
        with self.lock:
            left = sum(self.cost[k] for k in self.pending) * spc
            left += sum(max(self.cost[k] * spc - (now - t), 0.0) for k, t in self.running.items())
            busy = len(self.pending) + len(self.running)
        return left / max(min(self.jobs, busy), 1) if busy else 0.0

    def text(self) -> str:
        rem = self.remaining()
        left = len(self.pending) + len(self.running)
        if rem is None:
            est = "remaining time: measuring the first item"
        else:
            est = f"about {format_seconds(rem)} left"
        return f"{left} items to go, {est}, elapsed {format_seconds(time.perf_counter() - self.t0)}"

    def start(self, item):
        with self.lock:
            k = item_key(item)
            self.pending.discard(k)
            self.running[k] = time.perf_counter()

    def finish(self, item, wall, computed: bool = True):
        """``item`` is done; ``computed=False``: it was read back (another run had finished it),
        so its wall time says nothing about the seconds per unit of cost."""
        with self.lock:
            k = item_key(item)
            self.running.pop(k, None)
            self.pending.discard(k)
            if computed:
                self.run_wall += wall
                self.run_cost += self.cost[k]
        self.bar.update(round(self.cost[k], 3))
        self.refresh()

    def requeue(self, item):
        """``item`` was started but is not being computed (another run holds it): pending again."""
        with self.lock:
            k = item_key(item)
            self.running.pop(k, None)
            self.pending.add(k)

    def refresh(self):
        self.bar.set_postfix_str(self.text(), refresh=True)

    def _tick(self):
        while not self._stop.wait(1.0):
            self.refresh()

    def close(self):
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        self.bar.close()
