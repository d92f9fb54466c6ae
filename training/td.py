"""Temporal-difference self-play (issue 62): a value network for a game no table can
hold, taught by playing against itself, as TD-Gammon was; made for backgammon's
standard game, whose network gives the nine values of a contact table
(solver/contact.py: cubeless chances, then the no-double equities of each cube state).

Games are played in lockstep, a chunk at a time: each turn, every game's roll and legal
moves come from one compiled call, the network values all the moves' results in one
batch, and the mover plays the move of best cubeless equity. The position before the
roll is labelled with the exact solve's backup of one roll (solver/contact.py:
better_move), the network's values of the results standing in for the table's (the
bear-off tables' chances where both sides bear off: solver/bear_offs.py): the
chosen move's chances, and each cube state's best equity over the moves. Along each
game the chances are then mixed by TD(lambda), the forward view: the lambda-return
G(t) = (1 - lambda) L(t) + lambda G(t + 1) turned to the mover of t, G of a game's
last position its result; lambda = 0 is the one-roll backup alone. The cube's equities
keep the one-roll backup (their backup is not linear: the opponent's cube action).
After each chunk the network takes one pass of Adam over the chunk's positions. A game
still going after MAX_TURNS turns ends there, its last label ending its returns.

Game g of a run (numbered across chunks) draws its rolls from stream g of the seed and
the shuffling of chunk c from its number, so a run stopped after a chunk and resumed
from its checkpoint (WORKDIR/td.ckpt, written whole after every chunk) ends with the
same weights as one never stopped (tests/test_td.py).
"""
import io
import json
import math
import time
from dataclasses import asdict
from pathlib import Path

import numpy as np
import torch
from numba import njit

from tabula.solver.bear_offs import with_bear_offs
from tabula.eval.engine import throw_and_move
from tabula.games.game import OVER
from tabula.games.loop import start_positions
from tabula.infra.atomic import write_atomic
from tabula.infra.errors import TabulaError
from tabula.infra.rng import cumulative, stream_key
from tabula.solver.contact import (BEST_ROOM, VALUES, better_move, turned_chances,
                                   turned_values, won_values)
from tabula.solver.values import value_names
from tabula.training.model import ModelError, ValueNet, read_checkpoint
from tabula.training.settings import TdSettings

CHECKPOINT = "td.ckpt"
# A game still going after this many turns ends there: a network that has not learned
# to race (a wide one, early) can play games of thousands of turns, and a chunk lasts
# as long as its longest game (a standard game is some 55 turns).
MAX_TURNS = 2000
N_VALUES = len(VALUES)
N_CHANCES = 5


class TdError(TabulaError):
    """Settings or a work folder that a TD run cannot use."""


def learning_rate(settings: dict, games_done: int) -> float:
    """The rate for the chunk that starts after games_done games: lr, falling by a
    cosine to lr_end at settings["games"] (a run given more games to go on with
    stretches the rest of its fall over them)."""
    lr, end = settings["lr"], settings["lr_end"]
    if end < 0:
        return lr
    return end + (lr - end) * 0.5 * (1 + math.cos(math.pi * games_done / settings["games"]))


@njit(cache=True)
def _choose_and_label(loss_size, pieces, counts, next_codes, infos, values, labels,
                      chosen):
    """Each decision's move of best cubeless equity (chosen) and its one-roll backup
    (labels, nine values): values holds the network's values of the results of the
    moves that do not win, decision by decision, move by move."""
    best = np.empty(BEST_ROOM)
    k = 0
    for i in range(len(counts)):
        best[:] = -np.inf
        for j in range(counts[i]):
            if infos[i, j] & OVER:
                move = won_values(loss_size(next_codes[i, j], pieces))
            else:
                move = turned_values(values[k])
                k += 1
            if better_move(move, best):
                chosen[i] = j
        labels[i, :] = best[:N_VALUES]


@njit(cache=True)
def lambda_returns(labels, lam, out):
    """The lambda-returns of one game's chances (rows in the order played; the last
    row's label is the game's result): out[t] = (1 - lam) labels[t] + lam
    turned(out[t + 1])."""
    n = len(labels)
    out[n - 1, :] = labels[n - 1, :N_CHANCES]
    for t in range(n - 2, -1, -1):
        after = turned_chances(out[t + 1])
        for q in range(N_CHANCES):
            out[t, q] = (1.0 - lam) * labels[t, q] + lam * after[q]


@njit(cache=True)
def _returns_of_games(labels, starts, lam):
    out = np.empty((len(labels), N_CHANCES))
    for g in range(len(starts) - 1):
        lambda_returns(labels[starts[g]:starts[g + 1]], lam, out[starts[g]:starts[g + 1]])
    return out


def _values(net, codes) -> np.ndarray:
    with torch.no_grad():
        return net.predict(torch.from_numpy(codes)).double().numpy()


def label_decisions(game, values_of, codes, counts, next_codes, infos):
    """Each decision's move of best cubeless equity by values_of (codes -> the nine
    values of the side on roll) and its one-roll backup (labels, nine values). A roll
    with no legal move (count 0) passes the same position to the opponent: its row
    becomes one move to the mirror, in place."""
    blocked = np.flatnonzero(counts == 0)
    counts[blocked] = 1
    next_codes[blocked, 0] = [game.mirror(c) for c in codes[blocked]]
    infos[blocked, 0] = 0
    live = np.arange(next_codes.shape[1]) < counts[:, None]
    values = values_of(next_codes[live & ((infos & OVER) == 0)])
    labels = np.empty((len(codes), N_VALUES))
    chosen = np.zeros(len(codes), dtype=np.int64)
    _choose_and_label(game.loss_size, game.pieces, counts, next_codes, infos, values,
                      labels, chosen)
    return chosen, labels


def play_chunk(game, net, first_game: int, games: int, seed: int,
               max_turns: int = MAX_TURNS):
    """Self-play of `games` games numbered from first_game, greedy by the network's
    cubeless equity (where both sides bear off, the bear-off tables' chances:
    solver/bear_offs.py): every position met before a roll (codes), its one-roll backup
    (labels) and its game, in the order played within each game; and how many games
    were cut at max_turns turns (their last label, a backup of the network's values,
    ends their lambda-returns)."""
    values_of = with_bear_offs(game, lambda c: _values(net, c))
    cum_probs = cumulative(game.probs)
    keys = np.array([stream_key(seed, first_game + g) for g in range(games)],
                    dtype=np.uint64)
    codes = start_positions(game, seed, first_game + np.arange(games))
    turns = np.zeros(games, dtype=np.int64)
    active = np.arange(games)
    met, labelled, of_game = [], [], []
    cut = 0
    while len(active):
        _, counts, next_codes, infos = throw_and_move(
            game.moves, game.throws, cum_probs, game.max_moves, codes[active],
            keys[active], turns[active])
        turns[active] += 1
        chosen, labels = label_decisions(game, values_of, codes[active], counts, next_codes,
                                         infos)
        met.append(codes[active])
        labelled.append(labels)
        of_game.append(active)
        rows = np.arange(len(active))
        codes[active] = next_codes[rows, chosen]
        active = active[(infos[rows, chosen] & OVER) == 0]
        cut += int((turns[active] >= max_turns).sum())
        active = active[turns[active] < max_turns]
    of_game = np.concatenate(of_game)
    order = np.argsort(of_game, kind="stable")   # each game's positions, in turn order
    return (np.concatenate(met)[order], np.concatenate(labelled)[order],
            of_game[order], cut)


def targets(labels, of_game, lam: float) -> np.ndarray:
    """Training targets of a chunk: lambda-returns of the chances, the cube's one-roll
    backups (see the module's docstring)."""
    starts = np.flatnonzero(np.r_[True, of_game[1:] != of_game[:-1], True])
    out = labels.copy()
    out[:, :N_CHANCES] = _returns_of_games(labels, starts, lam)
    return out


def train_pass(net, optimizer, codes, values, batch: int, seed: int) -> float:
    """One pass of Adam over (codes, values) in an order drawn from `seed`; the mean
    loss."""
    net.train()
    order = torch.randperm(len(codes), generator=torch.Generator().manual_seed(seed))
    codes, values = torch.from_numpy(codes), torch.from_numpy(values).float()
    total = 0.0
    for s in range(0, len(order), batch):
        rows = order[s:s + batch]
        loss = net._loss(net(codes[rows]), values[rows])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += float(loss.detach()) * len(rows)
    net.eval()
    return total / len(order)


def _checkpoint(net, optimizer, state: dict) -> bytes:
    """The run as a checkpoint `tabula export` reads (a tabula train checkpoint's
    state_dict and hyper_parameters), with the optimizer and the run's state."""
    buffer = io.BytesIO()
    torch.save({"state_dict": net.state_dict(), "hyper_parameters": dict(net.hparams),
                "optimizer": optimizer.state_dict(), "tabula": {"td": state}}, buffer)
    return buffer.getvalue()


def _made_of(game, settings: dict, model: dict) -> dict:
    """What a run's network is made of: all but how many games it goes on to."""
    return {"game": str(game.variant), "model": model,
            **{k: v for k, v in settings.items() if k != "games"}}


def _resume(path: Path, made_of: dict, lr: float):
    """A run's net, optimizer and state from its checkpoint; a checkpoint of another
    game or other settings is refused."""
    raw = read_checkpoint(path)
    state = raw.get("tabula", {}).get("td")
    if not isinstance(state, dict):
        raise TdError(f"{path} is not a checkpoint of tabula td")
    if state.get("made_of") != made_of:
        raise TdError(f"{path} was made of {json.dumps(state.get('made_of'))}, not "
                      f"{json.dumps(made_of)}: use another work folder, or --force to "
                      "start again")
    _check_state(path, state)
    net, _ = ValueNet.from_checkpoint(path)
    optimizer = torch.optim.Adam(net.parameters(), lr=lr)
    try:
        optimizer.load_state_dict(raw["optimizer"])
    except (KeyError, TypeError, ValueError) as err:
        raise TdError(f"{path}: its optimizer's state does not fit the network ({err})"
                      ) from None
    return net, optimizer, state


def _check_state(path: Path, state: dict):
    """The counts a checkpoint carries are what a run writes: games and positions
    whole numbers of 0 or more, seconds a finite number of 0 or more, a list of chunks."""
    def whole(x):
        return isinstance(x, int) and not isinstance(x, bool) and x >= 0
    seconds = state.get("seconds")
    if not (whole(state.get("games")) and whole(state.get("positions"))
            and isinstance(seconds, float) and math.isfinite(seconds) and seconds >= 0
            and isinstance(state.get("chunks"), list)):
        raise TdError(f"{path}: its run's counts are not a run's (games, positions, "
                      "seconds, chunks): a damaged checkpoint; --force starts again")


def td_train(game, workdir, settings: dict, model: dict, force: bool = False,
             log=print) -> dict:
    """Teach a network by self-play to settings["games"] games (TdSettings; `model`:
    hidden and activation), checkpointed in WORKDIR/td.ckpt after every chunk; a run
    with a checkpoint of the same settings goes on from it. Returns the run's state."""
    settings = {**asdict(TdSettings()), **TdSettings.check(settings)}
    if value_names(game) != VALUES:
        raise TdError(f"tabula td teaches networks of contact backgammon's nine values "
                      f"(the standard game), not {game.describe()}")
    work = Path(workdir)
    if work.exists() and not work.is_dir():
        raise TdError(f"{work} is a file, not a work folder")
    work.mkdir(parents=True, exist_ok=True)
    path = work / CHECKPOINT
    made_of = _made_of(game, settings, model)
    if path.is_file() and not force:
        net, optimizer, state = _resume(path, made_of, settings["lr"])
        log(f"resuming {path} at game {state['games']:,}")
    else:
        torch.manual_seed(settings["seed"])
        try:
            net = ValueNet(game.name, game.pieces, rules=game.rules, loss="bce",
                           lr=settings["lr"], **model)
        except (ModelError, TypeError) as err:
            raise TdError(f"model: {err}") from None
        optimizer = torch.optim.Adam(net.parameters(), lr=settings["lr"])
        state = {"made_of": made_of, "games": 0, "positions": 0, "seconds": 0.0,
                 "chunks": []}
    net.eval()
    while state["games"] < settings["games"]:
        started = time.time()
        games = min(settings["chunk"], settings["games"] - state["games"])
        codes, labels, of_game, cut = play_chunk(game, net, state["games"], games,
                                                 settings["seed"])
        played = time.time() - started
        chunk = len(state["chunks"])
        for group in optimizer.param_groups:
            group["lr"] = learning_rate(settings, state["games"])
        loss = train_pass(net, optimizer, codes, targets(labels, of_game, settings["lam"]),
                          settings["batch"], settings["seed"] + chunk)
        seconds = time.time() - started
        state["games"] += games
        state["positions"] += len(codes)
        state["seconds"] += seconds
        state["chunks"].append({"games": games, "positions": len(codes), "loss": loss,
                                "play_seconds": played, "seconds": seconds, "cut": cut})
        write_atomic(path, _checkpoint(net, optimizer, state))
        log(f"game {state['games']:,}: {len(codes):,} positions, loss {loss:.4f}, "
            f"{games / played:.0f} games/s of play, {seconds:.1f} s"
            + (f", {cut} games cut at {MAX_TURNS:,} turns" if cut else ""))
    return {"checkpoint": str(path), **{k: v for k, v in state.items() if k != "chunks"}}
