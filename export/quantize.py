"""int8 weights for an exported value net: each Gemm weight between the first and the
last layer is stored as int8 with one scale per output unit and turned back into
float32 inside the graph (DequantizeLinear); the arithmetic stays float32. Each
quantized layer's bias absorbs the mean shift its rounding causes, (W - W_int8) E[x],
with E[x] the layer's mean input over sample positions (bias correction).

Why not onnxruntime's dynamic quantization: it quantizes the activations with a
range taken over the whole batch, so a position's value depended on the other
positions evaluated with it. Why the first and the last layer stay float32 (the
last has one output unit, so one scale for all its weights) and why the bias
correction: each cut the loss over fp32 several-fold; the measurements are in
docs/BENCHMARKS.md (the int8 rows and notes of "Distillation").
"""
import numpy as np
import onnx
import torch
from onnx import helper, numpy_helper

LEVELS = 127  # symmetric int8: -127 .. 127


def mean_inputs(net, codes) -> dict:
    """Mean input of every Linear layer of `net` over the positions `codes`, by the
    name its weight has in the exported graph (the net is wrapped as `net`)."""
    means, hooks = {}, []
    for name, module in net.named_modules():
        if isinstance(module, torch.nn.Linear):
            def keep(_, inputs, __, key=f"net.{name}.weight"):
                means[key] = inputs[0].double().mean(dim=0).numpy()
            hooks.append(module.register_forward_hook(keep))
    try:
        with torch.no_grad():
            net(torch.from_numpy(codes))
    finally:
        for hook in hooks:
            hook.remove()
    return means


def quantize_weights(src, dst, input_means: dict) -> dict:
    """Write `dst`: the model `src` with int8 weights between the first and the last
    layer (none for a net of one hidden layer); returns what was quantized."""
    model = onnx.load(str(src))
    stored = {i.name: i for i in model.graph.initializer}
    gemms = [n for n in model.graph.node if n.op_type == "Gemm" and n.input[1] in stored]
    if not gemms:
        raise ValueError(f"{src} has no Gemm with a stored weight to quantize")
    targets = gemms[1:-1]
    kept = [g for g in gemms if g not in targets]
    dequantize = {}  # weight name -> the node that rebuilds it from int8
    for gemm in targets:
        transposed = any(a.name == "transB" and a.i for a in gemm.attribute)
        node, rounding_error = _quantize(model, stored[gemm.input[1]], transposed)
        dequantize[gemm.input[1]] = node
        if len(gemm.input) > 2 and gemm.input[2] in stored:
            bias = stored[gemm.input[2]]
            error = rounding_error if transposed else rounding_error.T
            shift = error @ input_means[gemm.input[1]]
            corrected = numpy_helper.to_array(bias) + shift.astype(np.float32)
            bias.CopyFrom(numpy_helper.from_array(corrected, bias.name))
    nodes = []
    for node in model.graph.node:
        if node.op_type == "Gemm" and node.input[1] in dequantize:
            nodes.append(dequantize[node.input[1]])
        nodes.append(node)
    del model.graph.node[:]
    model.graph.node.extend(nodes)
    onnx.save(model, str(dst))
    return {"scheme": "int8 weights, one scale per output unit, bias correction, "
                      "float32 arithmetic",
            "quantized": [g.input[1] for g in targets], "float32": [g.input[1] for g in kept]}


def _quantize(model, initializer, transposed):
    """Replace `initializer` by int8 values and scales; returns the node that
    rebuilds it and the rounding error W - W_int8 (float64)."""
    name = initializer.name
    weight = numpy_helper.to_array(initializer).astype(np.float64)
    axis = 0 if transposed else 1  # the output units' axis of the Gemm weight
    scale = np.abs(weight).max(axis=1 - axis) / LEVELS
    scale = np.where(scale > 0, scale, 1.0).astype(np.float32)
    step = scale.reshape((-1, 1) if axis == 0 else (1, -1)).astype(np.float64)
    values = np.clip(np.round(weight / step), -LEVELS, LEVELS).astype(np.int8)
    model.graph.initializer.remove(initializer)
    model.graph.initializer.extend([
        numpy_helper.from_array(values, f"{name}.int8"),
        numpy_helper.from_array(scale, f"{name}.scale"),
        numpy_helper.from_array(np.zeros(len(scale), dtype=np.int8), f"{name}.zero")])
    node = helper.make_node("DequantizeLinear", [f"{name}.int8", f"{name}.scale",
                                                 f"{name}.zero"], [name], axis=axis)
    return node, weight - values * step
