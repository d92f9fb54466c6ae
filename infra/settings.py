"""What every stage's settings object shares: checking the values a person gave (on
the command line or in a pipeline YAML) with the same words wherever they came from."""
import math
from dataclasses import fields

from tabula.infra.errors import TabulaError

MAX_SEED = 2**64 - 1   # the random streams take any unsigned 64-bit seed


class SettingsError(TabulaError):
    """A setting of a stage with a wrong type or value."""


class Settings:
    """A frozen dataclass of one stage's settings, with `check(values)`: values of the
    right type and within `LIMITS` ({name: (low, high)}, None for no bound). FLAGS:
    the command line's name of a setting where it is not the field's with - for _."""
    LIMITS: dict = {}
    FLAGS: dict = {}

    @classmethod
    def said(cls, name: str, where: str = "") -> str:
        """A setting as the person wrote it: where "--" is the command line (its flag),
        else a prefix of the field's name ("stages.train: ")."""
        if where == "--":
            return "--" + cls.FLAGS.get(name, name.replace("_", "-"))
        return where + name

    @classmethod
    def check(cls, values: dict, where: str = "") -> dict:
        """`values` (a dict of some of the settings), checked; returns them."""
        known = {f.name: f for f in fields(cls)}
        for name, value in values.items():
            if name not in known:
                raise SettingsError(f"{where}unknown setting {name}; settings are "
                                    f"{', '.join(known)}")
            said = cls.said(name, where)
            default = known[name].default
            kind = type(default)
            if kind is float and isinstance(value, int) and not isinstance(value, bool):
                value = float(value)
            if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
                raise SettingsError(f"{said} must be {kind.__name__}, not {value!r}")
            if kind is float and not math.isfinite(value):   # NaN passes any comparison
                raise SettingsError(f"{said} must be a finite number, not {value}")
            low, high = cls.LIMITS.get(name, (None, None))
            if (low is not None and value < low) or (high is not None and value > high):
                bounds = " and ".join(
                    f"{word} {bound}" for word, bound in (("at least", low), ("at most", high))
                    if bound is not None)
                raise SettingsError(f"{said} must be {bounds}, not {value}")
        return values
