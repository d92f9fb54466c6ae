"""Small self-contained ONNX models with a manifest (not built yet: issue 6)."""
