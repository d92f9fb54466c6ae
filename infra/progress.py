"""Progress lines for long work: overwritten in place on a terminal, one every
`every` seconds otherwise (logs), with rate and ETA."""
import sys
import time


class ProgressLine:
    def __init__(self, what: str, total: int, unit: str, quiet: bool = False,
                 stream=None, every: float = 10.0):
        self.what, self.total, self.unit, self.quiet = what, total, unit, quiet
        # sys.stderr of now, not of the first import (a test may have swapped it since)
        self.stream, self.every = stream or sys.stderr, every
        self.started = time.time()
        self.last = 0.0

    def update(self, done: int, extra: str = ""):
        tty = self.stream.isatty()
        now = time.time()
        if self.quiet or done == 0 or (not tty and now - self.last < self.every
                                       and done < self.total):
            return
        self.last = now
        elapsed = now - self.started
        rate = done / elapsed if elapsed > 0 else 0.0
        eta = f"{(self.total - done) / rate:.0f}s" if rate > 0 else "?"
        line = (f"{self.what}: {done:,}/{self.total:,} {self.unit} "
                f"({100 * done / max(self.total, 1):.0f}%), {rate:,.0f} {self.unit}/s, "
                f"ETA {eta}{extra}")
        print(line, end="\r" if tty else "\n", file=self.stream, flush=True)

    def done(self, summary: str = ""):
        if not self.quiet:
            print(f"{self.what}: {summary or 'done'} in {time.time() - self.started:.1f}s"
                  + " " * 20, file=self.stream, flush=True)
