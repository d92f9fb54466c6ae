"""Building blocks of the networks' input features.

Each game's `features(codes, pieces)` turns a batch of packed position codes
(a torch int64 tensor) into the network's float32 input. It is written with
tensor methods only (shifts, masks, comparisons, a matrix product; the
methods, not the >> and & operators, which the ONNX exporter does not map), so the
same function runs in training, is traced into the exported ONNX graph (a
model then takes the packed codes directly) and so serves every player.
Nothing here imports torch: constants are made with `codes.new_tensor`.
"""


def bit_planes(codes, first_bit: int, count: int):
    """Bits first_bit .. first_bit+count-1 of each code, as a float array of codes'
    shape and one more axis of `count` (n codes: (n, count))."""
    shifts = codes.new_tensor(list(range(first_bit, first_bit + count)))
    return codes.unsqueeze(-1).bitwise_right_shift(shifts).bitwise_and(1).float()


def field(codes, first_bit: int, width: int):
    """The unsigned integer stored in bits first_bit .. first_bit+width-1."""
    return codes.bitwise_right_shift(first_bit).bitwise_and((1 << width) - 1)


def one_hot(counts, size: int):
    """counts (n,) of 0..size-1 as a float (n, size) one-hot array."""
    return (counts.unsqueeze(1) == counts.new_tensor(list(range(size)))).float()


def weighted_sum(planes, weights):
    """planes (..., k) times a constant weight vector of length k, as a (..., 1) array."""
    return planes @ planes.new_tensor(weights).unsqueeze(1)


def concat(parts):
    """The (n, k_i) arrays side by side, as one (n, sum k_i) array."""
    import torch  # only when features are computed: the rules need no torch
    return torch.cat(parts, dim=1)
