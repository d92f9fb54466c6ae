"""Progress of long work, the one facility every stage uses: on a terminal a tqdm
bar that redraws in place and is cleared when the work ends; elsewhere (a pipe, a
log file) a plain line every `every` seconds. The ETA comes from the work done
(positions, games' turns), never from wall-clock guesses; a `note` (the sweep, the
change) rides on the same line, so there is one ETA on screen."""
import sys
import time

from tqdm import tqdm


class Progress:
    def __init__(self, what: str, total: float | None, unit: str, quiet: bool = False,
                 stream=None, every: float = 10.0):
        self.what, self.total, self.unit, self.quiet = what, total, unit, quiet
        # sys.stderr of now, not of the first import (a test may have swapped it since)
        self.stream, self.every = stream or sys.stderr, every
        self.started = time.time()
        self.last = self.started   # the first plain line after `every` s: a rate worth showing
        self.end_shown = False     # whether a line at the total has been printed
        self.bar = None
        if not quiet and self._tty():
            self.bar = tqdm(total=total, desc=what, unit=unit, file=self.stream, leave=False,
                            dynamic_ncols=True, unit_scale=True, mininterval=0.2)

    def _tty(self) -> bool:
        isatty = getattr(self.stream, "isatty", None)
        return bool(isatty and isatty())

    def update(self, done: float, total: float | None = None, note: str = ""):
        """`done` units of work so far, of `total` (a new estimate, if given)."""
        if total is not None:
            self.total = total
        if self.quiet:
            return
        if self.bar is not None:
            if total is not None:
                self.bar.total = total
            if note:
                self.bar.set_postfix_str(note, refresh=False)
            self.bar.update(done - self.bar.n)   # redrawn at most every 0.2 s
            return
        now = time.time()
        at_end = self.total is not None and done >= self.total
        if now - self.last < self.every and (not at_end or self.end_shown):
            return   # a line every `every` s, and one as soon as the work reaches its total
        self.last, self.end_shown = now, at_end
        print(self.line(done, note), file=self.stream, flush=True)

    def line(self, done: float, note: str = "") -> str:
        """The plain progress line: work done, share, rate and ETA from the work done."""
        elapsed = time.time() - self.started
        rate = done / elapsed if elapsed > 0 else 0.0
        share = eta = ""
        if self.total:
            share = f"/{self.total:,.0f} ({100 * done / self.total:.0f}%)"
            eta = (f", ETA {(self.total - done) / rate:.0f} s" if rate > 0 and done > 0
                   else ", ETA ?")
        return (f"{self.what}: {done:,.0f}{share} {self.unit}, {rate:,.0f} {self.unit}/s"
                f"{eta}" + (f"; {note}" if note else ""))

    def say(self, text: str):
        """A line that stays (above the bar on a terminal)."""
        if self.quiet:
            return
        if self.bar is not None:
            self.bar.write(text, file=self.stream)
        else:
            print(text, file=self.stream, flush=True)

    def done(self, summary: str = ""):
        if self.bar is not None:
            self.bar.close()
        if not self.quiet:
            print(f"{self.what}: {summary or 'done'} in {time.time() - self.started:.1f} s",
                  file=self.stream, flush=True)
