"""Small self-contained ONNX models (fp32, int8) with manifests."""
if __name__ == "export":   # the old import path: the same modules as tabula.export
    from tabula.infra.old_import_paths import hand_over
    hand_over(__name__)
