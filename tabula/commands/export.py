"""tabula export: a trained checkpoint as self-contained ONNX models with manifests."""
import json
from pathlib import Path

from tabula.export.settings import ExportSettings

from .common import UsageError, check_output


def add_parser(sub):
    p = sub.add_parser(
        "export", help="write a trained value net as an ONNX model (+ int8) with a manifest",
        description="One self-contained ONNX file (weights inside) taking packed position "
                    "codes (int64, any batch size) and giving the mover's winning chance; "
                    "the features are computed inside the graph. A manifest JSON beside it "
                    "records the game, the input layout, sizes, SHA-256 values and the "
                    "parity against PyTorch on 20,000 positions (fp32 must be within 1e-6).")
    p.add_argument("checkpoint", metavar="CHECKPOINT", help="a checkpoint of tabula train")
    p.add_argument("--out", required=True, metavar="MODEL.onnx", help="fp32 model to write")
    p.add_argument("--int8", action="store_true", default=ExportSettings.int8,
                   help="also write MODEL.int8.onnx: int8 weights (one scale per unit; the "
                        "first and last layers stay float32), float32 arithmetic")
    p.add_argument("--force", action="store_true",
                   help="replace MODEL.onnx, MODEL.json and their int8 files where they exist")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(run=run)


def run(args):
    out = Path(args.out)
    if out.suffix != ".onnx":
        raise UsageError("--out must end in .onnx")
    from tabula.export.onnx_export import export, written_paths
    for path in written_paths(out, int8=args.int8):
        check_output(path, args.force)
    results = export(args.checkpoint, out, int8=args.int8)
    if args.json:
        print(json.dumps(results))
        return 0
    for precision, r in results.items():
        parity = r["parity"]
        print(f"{precision}: {r['model']} ({r['bytes']:,} bytes), manifest {r['manifest']}; "
              f"largest difference from PyTorch {parity['max_abs_diff']:.2e}, mean "
              f"{parity['mean_abs_diff']:.2e} on {parity['positions']:,} positions")
    return 0
