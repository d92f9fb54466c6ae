"""tabula pipeline: the whole chain for one game variant from one YAML file."""
import contextlib
import json
import sys
from pathlib import Path

from tabula.pipeline import PipelineError, load_config, run_pipeline

from .common import add_cluster_argument, cluster_over_recipe


def add_parser(sub):
    p = sub.add_parser(
        "pipeline", help="solve -> datagen -> train -> export -> eval report, from a YAML file",
        description="Run the whole chain for the game variant of CONFIG "
                    "(configs/pipeline/quick.yaml is the quick default): solve, datagen, "
                    "train, then finetune and polish where CONFIG has those sections (each "
                    "training again from the best weights before it), export, report. "
                    "Stages whose "
                    "inputs and settings are unchanged since their last run are skipped; "
                    "a changed setting reruns that stage and the ones after it. Ends by "
                    "printing the report's summary table.")
    p.add_argument("config", metavar="CONFIG", help="pipeline YAML (configs/pipeline/*.yaml)")
    p.add_argument("--table", metavar="FILE", default=None,
                   help="a table of the config's variant solved before (tabula solve): the "
                        "solve stage takes it instead of solving again, once it is checked "
                        "to be of the variant and solved at least to the config's tolerance")
    add_cluster_argument(p, default=None, where_else=" (default: the config's cluster:, "
                                                     "else local)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(run=run)


def run(args):
    from tabula.eval.report import summary_table
    config = load_config(args.config)
    cluster_over_recipe(args, config)
    if args.table is not None and not Path(args.table).is_file():
        raise PipelineError(f"no table {args.table}")
    if args.json:   # the stages' own lines go to stderr: stdout holds the JSON alone
        with contextlib.redirect_stdout(sys.stderr):
            summary = run_pipeline(config, log=lambda *_: None, table=args.table)
    else:
        summary = run_pipeline(config, table=args.table)
    if args.json:
        print(json.dumps(summary))
        return 0
    print()
    rows = summary["report"]["players"]
    print(summary_table(rows))
    print(f"\nresults in {summary['workdir']}/: table.h5, data.h5, train/, model.onnx, "
          f"report/REPORT.md")
    return 0
