"""The set-up choice of a game whose sides arrange their pieces before play
(games.game.Setup: EinStein würfelt nicht!): the exact value of every pair of
arrangements, read from a solved table, and the value of the game when both sides
choose at once without seeing the other's choice. That is a matrix game (zero-sum,
simultaneous); its value and each side's best mixture of arrangements come from
two linear programs (scipy's linprog), one for each side, whose values must agree.
"""
from dataclasses import dataclass

import numpy as np
from scipy.optimize import linprog

from tabula.games import PositionError
from tabula.games.game import Setup


@dataclass(frozen=True)
class SetupGame:
    arrangements: tuple      # each side's choices (piece numbers on the start squares)
    values: np.ndarray       # [i, j]: the first side's winning chance when it arranges
                             # as arrangements[i] and the other side as arrangements[j]
    value: float             # the first side's chance when both choose best
    first_mix: np.ndarray    # the first side's best mixture (chance of each arrangement)
    second_mix: np.ndarray   # the other side's

    def random_value(self) -> float:
        """The first side's chance when both arrangements are drawn at random."""
        return float(self.values.mean())

    def to_json(self) -> dict:
        label = Setup.label
        return {"arrangements": [label(a) for a in self.arrangements],
                "values": self.values.tolist(), "value": self.value,
                "random_value": self.random_value(),
                "first_mix": {label(a): float(p) for a, p in zip(self.arrangements,
                                                                  self.first_mix) if p > 0},
                "second_mix": {label(a): float(p) for a, p in zip(self.arrangements,
                                                                   self.second_mix) if p > 0}}


def best_mixture(values: np.ndarray) -> tuple[float, np.ndarray]:
    """The row player's best mixture of rows of a zero-sum matrix game (it gets
    values[i, j]) and the value it guarantees: maximise v subject to
    sum_i x_i values[i, j] >= v for every column j, sum x = 1, x >= 0."""
    rows, cols = values.shape
    objective = np.zeros(rows + 1)
    objective[-1] = -1.0                                   # maximise v
    below = np.hstack([-values.T, np.ones((cols, 1))])    # v - x . values[:, j] <= 0
    total = np.hstack([np.ones((1, rows)), np.zeros((1, 1))])
    result = linprog(objective, A_ub=below, b_ub=np.zeros(cols), A_eq=total, b_eq=[1.0],
                     bounds=[(0, None)] * rows + [(None, None)], method="highs")
    if not result.success:
        raise RuntimeError(f"the set-up game's linear program failed: {result.message}")
    mix = np.clip(result.x[:rows], 0.0, None)
    return float(result.x[-1]), mix / mix.sum()


def setup_game(solution) -> SetupGame:
    """The set-up game of a solved table's variant (one value per position)."""
    game = solution.game
    if game.setup is None:
        raise PositionError(f"{game.name}: its sides do not arrange their pieces before "
                            "play, so it has no set-up choice")
    arrangements = game.setup.arrangements
    codes = np.array(game.setup.starts(), dtype=np.int64)
    values = np.asarray(solution.values(codes), dtype=np.float64).reshape(
        len(arrangements), len(arrangements))
    value, first_mix = best_mixture(values)
    second_value, second_mix = best_mixture(1.0 - values.T)   # the other side's chances
    if abs(value - (1.0 - second_value)) > 1e-7:
        raise RuntimeError(f"the set-up game's two linear programs disagree: {value} and "
                           f"{1.0 - second_value}")
    return SetupGame(arrangements, values, value, first_mix, second_mix)
