"""Progress of a long command: a bar on a terminal, a plain line every tenth elsewhere."""

from __future__ import annotations

from types import TracebackType

from django.core.management.base import OutputWrapper
from tqdm import tqdm

STEPS = 10


class _Stream:
    """A file-like view of a command's stdout for tqdm (no line ending added to writes)."""

    def __init__(self, out: OutputWrapper) -> None:
        self.out = out

    def write(self, text: str) -> None:
        self.out.write(text, ending="")

    def flush(self) -> None:
        self.out.flush()


class Progress:
    """Count finished work towards a total and show it through a command's stdout."""

    def __init__(self, out: OutputWrapper, total: int, label: str, unit: str = "items") -> None:
        self.out, self.total, self.label, self.unit = out, total, label, unit
        self.done = 0
        self.reported_step = 0
        self.bar = (
            tqdm(total=total, desc=label, unit=f" {unit}", file=_Stream(out), dynamic_ncols=True)
            if out.isatty()
            else None
        )

    def update(self, count: int) -> None:
        """Record `count` more finished units."""
        self.done += count
        if self.bar is not None:
            self.bar.update(count)
            return
        step = self.done * STEPS // self.total if self.total else STEPS
        if step > self.reported_step:
            self.reported_step = step
            self.out.write(
                f"{self.label}: {self.done:,} of {self.total:,} {self.unit} "
                f"({self.done * 100 // max(self.total, 1)}%)"
            )

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()

    def __enter__(self) -> Progress:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
