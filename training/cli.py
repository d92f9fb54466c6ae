"""`tabula train`: LightningCLI over ValueNet and ValueData, with a run folder holding
the CSV log, the checkpoints (best and last), the config and test_error.json."""
import functools
import json
import logging
import time
import warnings
from argparse import ArgumentError
from pathlib import Path

import torch
import yaml
from lightning.pytorch import Trainer
from lightning.pytorch.callbacks import Callback, EarlyStopping, ModelCheckpoint
from lightning.pytorch.cli import LightningArgumentParser, LightningCLI
from lightning.fabric.utilities.exceptions import MisconfigurationException
from lightning.pytorch.loggers import CSVLogger

from tabula.datagen.datafile import DataError, DataFile
from tabula.infra.errors import OneLineErrors
from tabula.infra.provenance import code_version, machine
from tabula.infra.yamlfile import load_yaml

from .curves import plot_learning_curve
from .data import ValueData
from .evaluate import test_error
from .hard import HardDecisions
from .model import ValueNet, read_checkpoint
from .settings import TrainSettings

DESCRIPTION = """Train an MLP value net on a `tabula datagen` file: tabula train
[fit|validate|test] (fit when none is named). Settings come from a YAML config
(--config configs/NAME.yaml) with model:, data: and trainer: sections; any of them
can be overridden on the command line (--model.hidden '[64, 64]', --trainer.max_epochs
5). Each run gets a new folder, version_N under trainer.default_root_dir (never
overwriting another run): metrics.csv (unless --trainer.logger names another logger or
false), checkpoints/best.ckpt and last.ckpt, config.yaml, learning_curve.png
(training and validation loss, learning rate) and test_error.json (the error on the
held-out test positions, in percentage points). fit --ckpt_path
RUN/checkpoints/last.ckpt resumes a stopped run (weights, optimizer, schedule, epoch);
validate and test --ckpt_path CHECKPOINT measure a checkpoint on the validation or
test split."""


class OneLineParser(OneLineErrors, LightningArgumentParser):
    """LightningCLI's parser, with tabula's one-line errors."""


LINKED = ("game", "pieces", "rules")   # model settings that data.path decides


@functools.lru_cache(maxsize=1)
def _game_of_data(path: str, changed):
    """The game of the data file at `path`, opened (and its checksums checked) once
    for the three links; `changed` (its modification time) keys a rewritten file apart."""
    return DataFile(path).game


def _variant_of(key):
    """The compute function of the link data.path -> model.KEY: the data file's game,
    pieces or rule set."""
    def read(path):
        changed = Path(path).stat().st_mtime_ns if Path(path).is_file() else None
        return getattr(_game_of_data(str(path), changed), {"game": "name"}.get(key, key))
    return read


class TrainCLI(LightningCLI):
    def add_arguments_to_parser(self, parser):
        for key in LINKED:   # the data names the game
            parser.link_arguments("data.path", f"model.{key}", compute_fn=_variant_of(key),
                                  apply_on="parse")
        parser.add_argument("--patience", type=int, default=TrainSettings.patience,
                            help="stop after this many epochs without a better value of "
                                 "the monitored metric")
        parser.add_argument("--monitor", type=str, default=TrainSettings.monitor,
                            help="the validation metric that best.ckpt and early stopping "
                                 "go by: val_loss (the value loss) or val_decision_regret "
                                 "(the mean exact worth the net's greedy choices give away "
                                 "in data.val_decisions' decisions; lower is better)")
        parser.add_argument("--threads", type=int, default=TrainSettings.threads,
                            help="torch threads (0: torch's default, all cores)")
        parser.add_argument("--ckpt_path", type=str | None, default=None,
                            help="fit: a last.ckpt to resume from (weights, optimizer and "
                                 "schedule); validate and test: the checkpoint to measure")

    def instantiate_trainer(self, **kwargs):
        """A trainer whose run folder is a new DEFAULT_ROOT_DIR/version_N: a run never
        overwrites another's files."""
        trainer = self._get(self.config_init, "trainer", default={})
        base = Path(trainer.get("default_root_dir") or "runs/train")
        csv = CSVLogger(base, name="")              # the next free version_N under base
        self.run_folder = Path(csv.log_dir)
        callbacks = list(trainer.get("callbacks") or [])
        # last.ckpt after every epoch (Lightning's save_last writes it only when best.ckpt
        # improves: a run resumed from it would train its epochs since then again)
        folder = self.run_folder / "checkpoints"
        monitor = self.config["monitor"]
        callbacks += [ModelCheckpoint(dirpath=folder, filename="best", monitor=monitor),
                      ModelCheckpoint(dirpath=folder, filename="last",
                                      enable_version_counter=False),
                      # not strict: a run stopped (max_steps, max_time) before it first
                      # validated has no monitored value, and ends without one instead
                      # of failing
                      EarlyStopping(monitor=monitor, patience=self.config["patience"],
                                    strict=False)]
        if self.datamodule.hard:
            callbacks.append(HardDecisions(self.datamodule.hard))
        if trainer.get("logger") in (None, True):   # else the user's own logger (or none)
            kwargs["logger"] = csv
        kwargs["callbacks"] = callbacks
        return super().instantiate_trainer(**kwargs)


class RecordCount(Callback):
    """Training records drawn in this fit: a run stopped by its time limit, or resumed,
    trains other than whole epochs of the split."""

    def __init__(self):
        self.records = 0

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        self.records += len(batch["codes"])


class HeldBack(logging.Handler):
    """Lightning's info lines (the seed, the accelerators) and warnings, kept back
    while the run is set up: a mistake in the settings is then one line; a run that
    starts gets them all, in order."""
    NAMES = ("lightning.pytorch", "lightning.fabric")

    def __init__(self):
        super().__init__()
        self.records = []
        self.loggers = [logging.getLogger(name) for name in self.NAMES]
        self.saved = [(lg.handlers, lg.propagate) for lg in self.loggers]
        for lg in self.loggers:
            lg.handlers, lg.propagate = [self], False
        self.warnings = warnings.catch_warnings(record=True)
        self.caught = self.warnings.__enter__()
        warnings.simplefilter("default")

    def emit(self, record):
        self.records.append(record)

    def restore(self, replay: bool):
        self.warnings.__exit__(None, None, None)
        for lg, (handlers, propagate) in zip(self.loggers, self.saved):
            lg.handlers, lg.propagate = handlers, propagate
        if replay:
            for record in self.records:
                logging.getLogger(record.name).handle(record)
            for w in self.caught:
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)


def check_settings(config):
    """Settings of the run that Lightning would take and fail on later, or never."""
    epochs = (config.get("trainer") or {}).get("max_epochs")
    if epochs is not None and (epochs == 0 or epochs < -1):
        raise DataError(f"trainer.max_epochs must be at least 1 (or -1: no limit), not {epochs}")
    for key in ("patience", "threads"):
        if config.get(key, 0) < 0:
            raise DataError(f"{key} must be 0 or more, not {config[key]}")
    monitor = config.get("monitor", TrainSettings.monitor)
    TrainSettings.check({"monitor": monitor}, "--")
    if monitor == "val_decision_regret" and not (config.get("data") or {}).get("val_decisions"):
        raise DataError("--monitor val_decision_regret is measured on data.val_decisions: "
                        "set it (e.g. 1024)")


def check_before_data(config: dict, game) -> None:
    """A `tabula train` config (model, data and trainer sections) checked for `game` as
    training checks it, before its data file exists: the types of every setting, then
    their values, the model built and its model.init_from read (a checkpoint that would
    run code is refused). A pipeline calls this before its first stage, so that a bad
    training setting is refused before the solve and the data set, not after."""
    parser = LightningArgumentParser(exit_on_error=False)
    parser.add_lightning_class_args(Trainer, "trainer")
    parser.add_class_arguments(ValueNet, "model", skip=set(LINKED))
    parser.add_class_arguments(ValueData, "data", skip={"path", "table"})
    sections = {"trainer": config.get("trainer") or {},
                "model": config.get("model") or {},
                "data": {k: v for k, v in (config.get("data") or {}).items()
                         if k not in ("path", "table")}}
    try:
        parsed = parser.parse_object(sections)
    except ArgumentError as err:
        raise DataError(" ".join(str(err).split())[:300]) from None
    check_settings(config)
    ValueData.check_counts(**{key: parsed.data[key] for key in ValueData.LOWEST})
    ValueNet(**parsed.model.as_dict(), game=game.name, pieces=game.pieces, rules=game.rules)


def _check_config_files(argv):
    """Config files must be UTF-8 text (jsonargparse would stop with a traceback), and
    may not name the game, which comes from the data (jsonargparse would let a linked
    key of a config file pass unread)."""
    for i, arg in enumerate(argv):
        path = arg.partition("=")[2] if arg.startswith("--config=") else (
            argv[i + 1] if arg == "--config" and i + 1 < len(argv) else None)
        if path and Path(path).is_file():
            try:
                text = Path(path).read_bytes().decode("utf-8")
            except UnicodeDecodeError:
                raise DataError(f"{path} is not UTF-8 text") from None
            try:
                model = (load_yaml(text) or {}).get("model") or {}
            except (yaml.YAMLError, AttributeError):
                continue   # jsonargparse says what is wrong with it
            named = [key for key in LINKED if isinstance(model, dict) and key in model]
            if named:
                raise DataError(f"{path}: model.{named[0]} comes from the data file "
                                "(data.path names the game, its pieces and rules): remove it")


SUBCOMMANDS = ("fit", "validate", "test")


def run(argv) -> int:
    """tabula train [fit|validate|test] ... (fit when none is named)."""
    argv = list(argv)
    subcommand = argv.pop(0) if argv[:1] and argv[0] in SUBCOMMANDS else "fit"
    # tabula hands LightningCLI its part of the command line on purpose
    warnings.filterwarnings("ignore", message="LightningCLI's args parameter")
    _check_config_files(argv)
    held = HeldBack()
    try:
        try:
            cli = TrainCLI(ValueNet, ValueData, run=False, args=argv,
                           seed_everything_default=TrainSettings.seed,
                           trainer_defaults={"default_root_dir": "runs/train", "max_epochs": 20},
                           parser_class=OneLineParser,
                           parser_kwargs={"prog": "tabula train", "description": DESCRIPTION})
        except ValueError as err:   # Lightning seeds while it sets up: a seed out of bounds
            if "not in bounds" not in str(err):
                raise
            low, high = TrainSettings.LIMITS["seed"]
            raise DataError(f"seed_everything must be {low}..{high} (or true: a random "
                            f"seed), not {str(err).split()[0]}") from None
        check_settings(cli.config)
        _check_pairing(cli.model, cli.datamodule)
        ckpt = cli.config["ckpt_path"]
        if ckpt is None and subcommand != "fit":
            raise DataError(f"tabula train {subcommand} needs --ckpt_path CHECKPOINT")
        if ckpt is not None:
            # refused before Lightning reads it if it would run code or its weights are
            # not those of the model these settings make (one line, not a traceback)
            cli.model.load_weights(read_checkpoint(ckpt)["state_dict"],
                                   f"the weights in {ckpt} do not fit the model of these "
                                   "settings")
    except MisconfigurationException as err:   # Lightning's refusal of a trainer setting
        held.restore(replay=False)
        reason = " ".join(str(err).split())
        if not torch.cuda.is_available() and any(w in reason.lower() for w in ("gpu", "cuda")):
            reason += (f" (torch {torch.__version__} sees no GPU here: train with "
                       "--trainer.accelerator cpu, or see docs/CHAIN.md for a CUDA build)")
        raise DataError(f"trainer: {reason}") from None
    except BaseException:
        held.restore(replay=False)
        raise
    held.restore(replay=True)
    if subcommand == "fit":
        return _fit(cli, ckpt)
    measure = cli.trainer.validate if subcommand == "validate" else cli.trainer.test
    results = measure(cli.model, datamodule=cli.datamodule, ckpt_path=ckpt, weights_only=True)
    print(json.dumps({"subcommand": subcommand, "checkpoint": ckpt, **results[0]}))
    return 0


def _check_pairing(model, data):
    """Each decision loss must come with its decisions."""
    for weight, count in (("decision_weight", "decisions"), ("search_weight", "searched")):
        if (model.hparams[weight] > 0) != (getattr(data, count) > 0):
            raise DataError(f"model.{weight} and data.{count} go together: the loss needs "
                            "its decisions, and decisions without the loss cost time for "
                            "nothing; set both or neither")


def _fit(cli, ckpt_path=None) -> int:
    model, data, trainer = cli.model, cli.datamodule, cli.trainer
    if cli.config["threads"]:
        torch.set_num_threads(cli.config["threads"])
    game = data.file.game
    count = RecordCount()
    trainer.callbacks.append(count)
    started = time.time()
    trainer.fit(model, data, ckpt_path=ckpt_path, weights_only=True)
    seconds = time.time() - started
    steps = trainer.global_step
    epochs = round(steps / max(trainer.num_training_batches, 1), 2)
    best = trainer.checkpoint_callback.best_model_path
    if best:
        model, _ = ValueNet.from_checkpoint(best)
    errors = test_error(model, data.file, data.read("train", "codes"))
    root = cli.run_folder
    root.mkdir(parents=True, exist_ok=True)
    curve = plot_learning_curve(root / "metrics.csv", root / "learning_curve.png")
    result = {"game": game.name, "pieces": game.pieces, "parameters": model.parameter_count(),
              "hidden": list(model.hparams.hidden), "loss": model.hparams.loss,
              "steps": steps, "epochs": epochs, "train_seconds": seconds,
              "train_records": data.sizes["train"],
              "samples_per_second": count.records / max(seconds, 1e-9),
              "best_checkpoint": best, "data_file": str(data.path),
              "data_sha256": data.file.attrs["data_sha256"], **errors,
              "learning_curve": str(curve) if curve else None,
              "code_version": code_version(), "machine": machine()}
    (root / "test_error.json").write_text(json.dumps(result, indent=2) + "\n")
    t, u = errors["test"], errors["unseen_in_training"]
    print(f"test error: mean {t['mean_points']:.4f} points, largest {t['max_points']:.3f} "
          f"({t['records']:,} records); on positions absent from training: mean "
          f"{u['mean_points']:.4f}, largest {u['max_points']:.3f} ({u['records']:,} records)")
    print(f"{model.parameter_count():,} parameters, {steps:,} steps ({epochs:g} epochs) in "
          f"{seconds:.0f} s; run folder {root} (best checkpoint {best or 'none'})")
    return 0
