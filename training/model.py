"""The value network: the game's features of packed position codes, then an MLP
giving the logit of the mover's winning chance (for race tables, one logit for each
value the table gives: solver/values.py)."""
import math
import pickle
import sys
import warnings

import lightning as L
import torch
from lightning.pytorch.callbacks import Timer
from lightning.pytorch.trainer.states import TrainerFn
from torch import nn

from tabula.games import get_game
from tabula.infra.errors import TabulaError
from tabula.games.game import AGAIN, OVER
from tabula.solver.values import value_names, value_ranges
from tabula.training.decisions import valued_moves
from tabula.training.optimizers import OPTIMIZERS, make_optimizer
from tabula.training.schedule import cosine_to_limits

ACTIVATIONS = {"relu": nn.ReLU, "gelu": nn.GELU, "silu": nn.SiLU, "tanh": nn.Tanh}
LOSSES = ("bce", "mse")
# oneDNN builds a bfloat16 kernel for each batch shape it meets; padding batches to a
# multiple of this keeps the shapes few (decision batches vary in size every step)
BF16_ROWS = 512


def torch_worths(infos, values):
    """games.game.worths in torch (the tests pin the two together): 1 if the move won,
    V(next) if the mover throws again, 1 - V(next) if the turn passes."""
    over = (infos & OVER) != 0
    again = (infos & AGAIN) != 0
    return torch.where(over, 1.0, torch.where(again, values, 1.0 - values))


def torch_next_values(infos, worths):
    """The inverse of torch_worths for moves that do not end the game: V(next), the
    winning chance of the side to throw after the move, from the mover's worth."""
    return torch.where((infos & AGAIN) != 0, worths, 1.0 - worths)


def fast_bfloat16(device: torch.device) -> bool:
    """Whether bfloat16 matrix products are fast on `device`. On a CPU oneDNN needs
    AVX-512 (AVX512-BF16 or AMX at best); on one with AVX2 only, autocast takes a
    reference path that made the Ur step about 17 times slower than float32
    (docs/BENCHMARKS.md, "Decisions made once")."""
    if device.type == "cpu":
        return torch.ops.mkldnn._is_mkldnn_bf16_supported()
    return device.type == "cuda" and torch.cuda.is_bf16_supported()


def _live(counts, width):
    """Which of `width` move slots hold a move: slot j < count, made where counts live."""
    return torch.arange(width, device=counts.device) < counts.unsqueeze(-1)


class ModelError(TabulaError):
    """Model settings that cannot be built, or a checkpoint that does not fit them."""


def _first_line(err) -> str:
    """An unreadable file's error, cut to one line for a one-line refusal."""
    return (str(err).strip().splitlines() or ["unreadable"])[0]


def read_checkpoint(path) -> dict:
    """A checkpoint's contents, read with torch's weights-only unpickler: a file that
    would run code (a pickle with a payload) is refused, never executed."""
    try:
        with warnings.catch_warnings():   # torch's warnings about the file: said below
            warnings.simplefilter("ignore")
            raw = torch.load(path, map_location="cpu", weights_only=True)
    except FileNotFoundError:
        raise ModelError(f"no checkpoint file {path}") from None
    except pickle.UnpicklingError as err:   # torch's text advises loading it unsafely
        said = ("it holds Python objects besides weights (a pickle that could run code "
                "when loaded), which tabula never loads" if "GLOBAL" in str(err)
                else "not a file of weights torch wrote")
        raise ModelError(f"{path} is not a checkpoint tabula can read safely: {said}") \
            from None
    except Exception as err:  # noqa: BLE001 - any unreadable file gets one line
        raise ModelError(f"{path} is not a checkpoint tabula can read safely "
                         f"({_first_line(err)})") from None
    if not isinstance(raw, dict) or "state_dict" not in raw:
        raise ModelError(f"{path} is not a checkpoint of a tabula value net (tabula train)")
    return raw


def read_initial_weights(path) -> dict:
    """The weights model.init_from names: a checkpoint's (read_checkpoint), or those of
    an fp32 model file `tabula export` wrote (.onnx), so that a shipped model, which
    comes without its checkpoint, can be trained on."""
    if not str(path).endswith(".onnx"):
        return read_checkpoint(path)["state_dict"]
    import onnx   # here, not above: it adds over a second to every start of training
    from onnx import numpy_helper
    try:
        graph = onnx.load(path).graph
    except FileNotFoundError:
        raise ModelError(f"no model file {path}") from None
    except Exception as err:  # noqa: BLE001 - any unreadable file gets one line
        raise ModelError(f"{path} is not an ONNX file ({_first_line(err)})") from None
    # the export wraps the net as `net` (export.onnx_export.Prediction)
    weights = {t.name.removeprefix("net."): torch.from_numpy(numpy_helper.to_array(t).copy())
               for t in graph.initializer if t.name.startswith("net.")}
    if any(name.endswith(".int8") for name in weights):
        raise ModelError(f"{path} is an int8 model, whose weights are rounded: start from "
                         "the fp32 model exported beside it")
    if not weights:
        raise ModelError(f"{path} is not a value net `tabula export` wrote (no net weights)")
    return weights


class ValueNet(L.LightningModule):
    """An MLP value net for one game variant.

    Args:
        game: a registered game's name; pieces: pieces a side; rules: the rule set
            (the game's first if None). `tabula train` takes all three from the data
            file (data.path), so a config names the data and the game follows.
        hidden: widths of the hidden layers.
        activation: one of relu, gelu, silu, tanh.
        loss: "bce" (binary cross-entropy of the logit against the exact value) or
            "mse" (squared error of the probability).
        lr: the learning rate, decayed to zero by a cosine over the run: over all
            training steps, or over trainer.max_time where that ends first
            (training/schedule.py).
        weight_decay: the optimizer's weight decay.
        equity_weight: in a money game (a table of several values), the weight of each
            equity column's value loss beside a chance column's 1 (the weights then
            scaled to a mean of 1). An equity is mapped to [0, 1] from a range six
            points wide, so its errors weigh about six times less than a chance's at 1;
            yet the players choose moves and cube actions by the equities alone.
        decision_weight: weight of the decision loss (needs data.decisions > 0): the
            cross-entropy from the table's choice distribution over a decision's
            moves, softmax(exact worth / temperature), to the net's (the KL divergence
            plus the target's entropy, which the net does not change: same gradients).
            In a money game (a table of several values) a move is worth the mover's
            equity with the cube centred (solver/contact_table.py: decision_worths).
        decision_temperature: in winning-chance units (0.01 = one point), or in
            points of equity in a money game.
        afterstate_weight: weight of a value loss on the positions after the decisions'
            moves (needs decision_weight > 0 and a table of one value): the decision
            loss already runs the net on them and the table's worths give their exact
            values, so they are labelled positions at no extra forward pass.
        search_weight: weight of the searched-decision loss (needs data.searched > 0
            and a table of one value):
            the same cross-entropy, with the net's worth of each move taken through one
            throw of expectimax past it, as the net+search player scores it.
        init_from: a checkpoint, or an fp32 model file of `tabula export` (.onnx), of
            the same architecture whose weights to start from (to continue training
            with a new learning-rate schedule).
        bf16_epochs: training epochs, from the first, whose hidden layers run in
            bfloat16 (autocast; the weights, the output layer and the loss stay
            float32). Faster steps on a CPU with AMX or AVX512-BF16 (docs/BENCHMARKS.md);
            the float32 epochs after them let the weights settle at full precision.
            Ignored, with a warning, where bfloat16 is not fast (fast_bfloat16).
            Evaluation, export and play always run in float32.
        optimizer: "adamw" for every weight, or "muon" for the weights between
            hidden layers and AdamW for the rest (training/optimizers.py; needs two
            hidden layers or more).
    """

    def __init__(self, game: str, pieces: int, hidden: list[int] = (256, 256),
                 activation: str = "relu", loss: str = "bce", lr: float = 3e-3,
                 weight_decay: float = 0.0, equity_weight: float = 1.0,
                 decision_weight: float = 0.0, decision_temperature: float = 0.01,
                 afterstate_weight: float = 0.0, search_weight: float = 0.0,
                 init_from: str | None = None, bf16_epochs: int = 0,
                 rules: str | None = None, optimizer: str = "adamw"):
        super().__init__()
        if activation not in ACTIVATIONS:
            raise ModelError(f"activation must be one of {', '.join(ACTIVATIONS)}")
        if loss not in LOSSES:
            raise ModelError(f"loss must be one of {', '.join(LOSSES)}")
        if optimizer not in OPTIMIZERS:
            raise ModelError(f"model.optimizer must be one of {', '.join(OPTIMIZERS)}, "
                             f"not {optimizer!r}")
        if not hidden or any(isinstance(w, bool) or not isinstance(w, int) or w < 1
                             for w in hidden):
            raise ModelError(f"model.hidden must list one or more layer widths of at least "
                             f"1, not {list(hidden)}")
        if optimizer == "muon" and len(hidden) < 2:
            raise ModelError("model.optimizer muon steps the weights between hidden layers: "
                             f"model.hidden needs two layers or more, not {list(hidden)}")
        for name, value, low in (("lr", lr, 0.0), ("equity_weight", equity_weight, 0.0),
                                 ("decision_temperature", decision_temperature, 0.0)):
            if not (value > low and math.isfinite(value)):
                raise ModelError(f"model.{name} must be more than {low:g} and finite, "
                                 f"not {value}")
        for name, value in (("weight_decay", weight_decay), ("decision_weight",
                                                             decision_weight),
                            ("afterstate_weight", afterstate_weight),
                            ("search_weight", search_weight), ("bf16_epochs", bf16_epochs)):
            if not (value >= 0 and math.isfinite(value)):
                raise ModelError(f"model.{name} must be 0 or more and finite, not {value}")
        self.save_hyperparameters()
        self.game = get_game(game, pieces, rules)
        widths = [self.game.encoding.n_features, *hidden]
        layers = []
        for a, b in zip(widths, widths[1:]):
            layers += [nn.Linear(a, b), ACTIVATIONS[activation]()]
        self.names = value_names(self.game)
        if afterstate_weight > 0 and (decision_weight == 0 or len(self.names) > 1):
            raise ModelError("model.afterstate_weight needs model.decision_weight > 0 and a "
                             f"table of one value ({game}'s has {len(self.names)})")
        if equity_weight != 1.0 and len(self.names) == 1:
            raise ModelError(f"model.equity_weight needs a table of equities ({game}'s holds "
                             "winning chances alone)")
        if search_weight > 0 and len(self.names) > 1:
            raise ModelError("model.search_weight needs a table of one value ("
                             f"{game}'s has {len(self.names)})")
        self.mlp = nn.Sequential(*layers, nn.Linear(widths[-1], len(self.names)))
        # each output is a logit of its value mapped from its range onto [0, 1]
        low, high = value_ranges(self.game)
        self.unit_scale = [1.0 / (h - v) for v, h in zip(low, high)]
        self.unit_shift = [-v / (h - v) for v, h in zip(low, high)]
        weights = [equity_weight if v < 0 else 1.0 for v in low]   # an equity goes below 0
        self.column_weights = [w * len(weights) / sum(weights) for w in weights]
        self.bf16 = False   # hidden layers in bfloat16 while training (set each epoch)
        if init_from:
            self.load_weights(read_initial_weights(init_from),
                              f"model.init_from {init_from} does not fit this model (game, "
                              "pieces and hidden widths must be its own)")

    def load_weights(self, state: dict, refusal: str):
        """Load state, or refuse in one line (refusal, then torch's last line) where its
        names or shapes are not this net's."""
        try:
            self.load_state_dict(state)
        except RuntimeError as err:
            raise ModelError(f"{refusal}: {str(err).splitlines()[-1].strip()}") from None

    @classmethod
    def from_checkpoint(cls, path) -> tuple["ValueNet", dict]:
        """The net of a `tabula train` checkpoint, read safely (read_checkpoint), and
        the checkpoint's contents."""
        raw = read_checkpoint(path)
        hparams = {k: v for k, v in raw.get("hyper_parameters", {}).items()
                   if not k.startswith("_")}
        if "game" not in hparams or "hidden" not in hparams:
            raise ModelError(f"{path} is not a checkpoint of a tabula value net (tabula train)")
        try:
            net = cls(**{**hparams, "init_from": None})   # its weights are the checkpoint's
        except TypeError as err:   # a setting this ValueNet does not take
            raise ModelError(f"{path} is not a checkpoint of a tabula value net ({err})") from None
        net.load_weights(raw["state_dict"], f"the weights in {path} do not fit the net its "
                                            "settings describe")
        return net, raw

    def forward(self, codes: torch.Tensor) -> torch.Tensor:
        """Logits of the mover's winning chance, shape (n,); with several values, of
        each value mapped to [0, 1], shape (n, k)."""
        return self.from_features(self.game.encoding.features(codes))

    def from_features(self, x: torch.Tensor) -> torch.Tensor:
        """forward's logits from the positions' network inputs (game.encoding)."""
        if not (self.training and self.bf16):
            return self._shaped(self.mlp(x))
        n = len(x)
        x = nn.functional.pad(x, (0, 0, 0, -n % BF16_ROWS))
        with torch.autocast(x.device.type, dtype=torch.bfloat16):
            hidden = self.mlp[:-1](x)
        return self._shaped(self.mlp[-1](hidden.float())[:n])

    def _shaped(self, out):
        return out.squeeze(1) if len(self.names) == 1 else out

    def _to_unit(self, values):
        if len(self.names) == 1:
            return values
        return values * values.new_tensor(self.unit_scale) + values.new_tensor(self.unit_shift)

    def on_train_start(self):
        if self.hparams.bf16_epochs and not fast_bfloat16(self.device):
            print(f"tabula train: no fast bfloat16 on this {self.device.type} (a CPU needs "
                  "AVX-512): model.bf16_epochs ignored, every epoch runs in float32",
                  file=sys.stderr)

    def on_train_epoch_start(self):
        self.bf16 = (self.current_epoch < self.hparams.bf16_epochs
                     and fast_bfloat16(self.device))

    def predict(self, codes: torch.Tensor) -> torch.Tensor:
        """The mover's winning chance (n,), or each value of solver.values (n, k)."""
        return self._values(self(codes))

    def _values(self, logits):
        """predict's values from forward's logits."""
        unit = torch.sigmoid(logits)
        if len(self.names) == 1:
            return unit
        return (unit - unit.new_tensor(self.unit_shift)) / unit.new_tensor(self.unit_scale)

    def _batch_logits(self, batch):
        """The logits of a batch's positions, from the network inputs the data holds
        (data.features_in_memory), else from their codes."""
        if "features" in batch:
            return self.from_features(batch["features"])
        return self(batch["codes"])

    def parameter_count(self) -> int:
        return sum(p.numel() for p in self.parameters())

    def _loss(self, logits, values):
        values = self._to_unit(values)
        if self.hparams.loss == "bce":
            each = nn.functional.binary_cross_entropy_with_logits(logits, values,
                                                                  reduction="none")
        else:
            each = (torch.sigmoid(logits) - values) ** 2
        if len(self.names) > 1:
            each = each * each.new_tensor(self.column_weights)
        return each.mean()

    def training_step(self, batch, _):
        loss = self._loss(self._batch_logits(batch), batch["values"])
        self.log("train_loss", loss, prog_bar=True)
        self.log("lr", self.lr_schedulers().get_last_lr()[0])
        decisions, searched = batch.get("decisions"), batch.get("searched")
        if decisions and len(decisions[0]) and self.hparams.decision_weight > 0:
            decision, afterstate = self._decision_losses(
                *decisions, features=batch.get("decision_features"))
            self.log("train_decision_loss", decision)
            loss = loss + self.hparams.decision_weight * decision
            if afterstate is not None:
                self.log("train_afterstate_loss", afterstate)
                loss = loss + self.hparams.afterstate_weight * afterstate
        if searched and len(searched[0]) and self.hparams.search_weight > 0:
            decision = self._searched_decision_loss(*searched)
            self.log("train_searched_decision_loss", decision)
            loss = loss + self.hparams.search_weight * decision
        return loss

    def _move_worths(self, infos, live, values_of_next):
        """The mover's winning chance after each move (torch_worths), with
        values_of_next(need) giving V of the codes under the mask `need`."""
        need = valued_moves(live, infos)
        v = torch.zeros(infos.shape, device=infos.device)
        v[need] = values_of_next(need)
        return torch_worths(infos, v)

    def _equity_worths(self, need, logits, exact):
        """A money game's moves as its table's decision_worths values them (solver/
        contact_table.py), in the cube states of `exact` (n, M, states): the mover's
        equity with the cube centred, owned and unavailable (the first `states`), the
        opponent on roll doubling when right (solver/contact.py: turned_values), from the
        net's values of the positions after the moves (`need`, whose logits are given); a
        move that ends the game is worth its win."""
        values = self._values(logits)
        centered, owned, unavailable = (values[:, self.names.index(name)]
                                        for name in ("centered", "owned", "unavailable"))
        doubled = torch.clamp(2 * unavailable, max=1.0)
        turned = torch.stack([-torch.maximum(centered, doubled), -unavailable,
                              -torch.maximum(owned, doubled)], dim=1)
        worth = torch.where(need.unsqueeze(2), 0.0, exact).to(values.dtype)
        worth[need] = turned[:, :exact.shape[2]]
        return worth

    def _choice_loss(self, worth, live, exact, shares=None):
        """Cross-entropy from the table's choice distribution softmax(exact / t) over a
        decision's live moves (or a search's visit shares, given) to the net's
        softmax(worth / t)."""
        t = self.hparams.decision_temperature
        target = shares if shares is not None else \
            torch.softmax(torch.where(live, exact / t, -torch.inf), dim=1)
        log_net = torch.log_softmax(torch.where(live, worth / t, -torch.inf), dim=1)
        return -(target * torch.where(live, log_net, 0.0)).sum(1).mean()

    def _decision_worths(self, counts, next_codes, infos, exact, features=None):
        """The net's worth of each move of decisions beside the exact worths, a money
        game's cube states each a decision of its own (rows): (worth, live, exact), and
        the logits of the positions after the moves that need a value (`need`), from
        their network inputs where given (data.decision_features_in_memory)."""
        live = _live(counts, next_codes.shape[1])
        need = valued_moves(live, infos)
        logits = self(next_codes[need]) if features is None else self.from_features(features)
        if len(self.names) == 1:
            worth = self._move_worths(infos, live, lambda _: torch.sigmoid(logits))
            return worth, live, exact, logits, need
        by_state = exact if exact.dim() == 3 else exact.unsqueeze(2)
        worth = self._equity_worths(need, logits, by_state)

        def each(t):
            return t.transpose(1, 2).reshape(-1, t.shape[1])
        return (each(worth), live.repeat_interleave(by_state.shape[2], dim=0), each(by_state),
                logits, need)

    def _decision_losses(self, counts, next_codes, infos, exact, shares=None, features=None):
        """The decision loss (towards the visit shares where given; a money game's
        decisions have none), and the value loss on the positions after its moves (None
        without model.afterstate_weight, and in a money game); `features`: the inputs
        of the positions after the moves, where held (_decision_worths)."""
        worth, live, exact_each, logits, need = self._decision_worths(counts, next_codes,
                                                                      infos, exact, features)
        if len(self.names) > 1:
            return self._choice_loss(worth, live, exact_each), None
        afterstate = None
        if self.hparams.afterstate_weight > 0:
            afterstate = self._loss(logits, torch_next_values(infos[need], exact[need])
                                    .to(logits.dtype))
        return self._choice_loss(worth, live, exact, shares), afterstate

    @torch.no_grad()
    def decision_regrets(self, counts, next_codes, infos, exact) -> torch.Tensor:
        """What the net's greedy choice gives away in each decision: the best move's
        exact worth less that of the move the net values most (in a money game, one
        row per cube state of the mover in `exact`: decision i's at rows i*S..i*S+S-1)."""
        worth, live, exact, _, _ = self._decision_worths(counts, next_codes, infos, exact)
        choice = torch.where(live, worth, -torch.inf).argmax(1)
        best = torch.where(live, exact, -torch.inf).max(1).values
        return best - exact.gather(1, choice[:, None])[:, 0]

    def _searched_decision_loss(self, counts, next_codes, infos, exact, *leaves):
        live = _live(counts, next_codes.shape[1])
        return self._choice_loss(self.searched_worths(live, infos, *leaves), live, exact)

    def searched_worths(self, live, infos, leaf_counts, leaf_codes, leaf_infos):
        """The net+search player's worth of each live move of decisions: one throw of
        expectimax past the move over the net's values. The leaf arrays
        (training.decisions.searched_decisions_for) hold every throw's moves after each
        move that needs a value, in row-major order of those moves."""
        leaf_live = _live(leaf_counts, leaf_codes.shape[2])
        leaf_worth = self._move_worths(leaf_infos, leaf_live,
                                       lambda need: torch.sigmoid(self(leaf_codes[need])))
        best = torch.where(leaf_live, leaf_worth, -torch.inf).max(dim=2).values
        searched = best @ torch.as_tensor(self.game.probs, dtype=best.dtype, device=best.device)
        return self._move_worths(infos, live, lambda need: searched)

    def validation_step(self, batch, _):
        self._evaluate(batch, "val")

    def test_step(self, batch, _):
        self._evaluate(batch, "test")

    def _evaluate(self, batch, split):
        values = batch["values"]
        logits = self._batch_logits(batch)
        self.log(f"{split}_loss", self._loss(logits, values), prog_bar=True)
        win, wanted = (logits, values) if len(self.names) == 1 else (logits[:, 0], values[:, 0])
        self.log(f"{split}_mae_points", 100 * (torch.sigmoid(win) - wanted).abs().mean(),
                 prog_bar=True)
        if len(self.names) > 1:
            self.log(f"{split}_mae_equity", (self._values(logits) - values)[:, 1:].abs().mean(),
                     prog_bar=True)
        decisions = batch.get("decisions")
        if decisions and len(decisions[0]):   # data.val_decisions
            regrets = self.decision_regrets(*decisions)
            self.log(f"{split}_decision_regret", regrets.mean(), batch_size=len(regrets))

    def on_save_checkpoint(self, checkpoint):
        """Record where the training data came from, for export manifests."""
        data = getattr(self.trainer, "datamodule", None) if self._trainer else None
        if data is not None:
            checkpoint["tabula"] = {"data_path": str(data.path),
                                    "data_sha256": data.file.attrs["data_sha256"],
                                    "table_sha256": data.file.attrs.get("table_sha256")}

    def on_load_checkpoint(self, checkpoint):
        """Refuse to resume (--ckpt_path) a run whose optimizer or schedule state this
        code cannot continue: one of another model.optimizer, or a schedule of runs
        before training/schedule.py (a CosineAnnealingLR's). Reading the checkpoint's
        weights (validate, test, export) is not refused."""
        fitting = self._trainer is not None and self.trainer.state.fn == TrainerFn.FITTING
        if not fitting:
            return
        restart = "start a new run from its weights with --model.init_from instead of --ckpt_path"
        trained = checkpoint.get("hyper_parameters", {}).get("optimizer", "adamw")
        if trained != self.hparams.optimizer:
            raise ModelError(f"this checkpoint was trained with model.optimizer {trained}, "
                             f"not {self.hparams.optimizer}: resume it with its own, or "
                             f"{restart}")
        if any("lr_lambdas" not in state for state in checkpoint.get("lr_schedulers", [])):
            raise ModelError("this checkpoint's learning-rate schedule is of an older "
                             f"tabula and cannot be resumed; {restart}")

    def configure_optimizers(self):
        optimizer = make_optimizer(self.hparams.optimizer,
                                   [m for m in self.mlp if isinstance(m, nn.Linear)],
                                   list(self.parameters()), self.hparams.lr,
                                   self.hparams.weight_decay)
        timers = [c for c in self.trainer.callbacks if isinstance(c, Timer)]
        schedule = cosine_to_limits(optimizer, int(self.trainer.estimated_stepping_batches),
                                    timers[0] if timers else None)
        return {"optimizer": optimizer,
                "lr_scheduler": {"scheduler": schedule, "interval": "step"}}
