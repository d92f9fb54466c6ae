"""Small self-contained ONNX models (fp32, int8) with manifests."""
