"""tabula train: a value net on a data file (training/cli.py: LightningCLI, which
parses the command's own arguments and config)."""


def add_parser(sub):
    sub.add_parser("train", help="train a value net on a data file (tabula train --help)",
                   add_help=False)


def run(argv) -> int:
    from tabula.training.cli import run as train
    return train(argv)
