"""How far a trained net is from the table on held-out positions, in percentage points."""
import numpy as np
import torch


@torch.no_grad()
def predict(model, codes: np.ndarray, batch: int = 65536) -> np.ndarray:
    """The net's winning chance for each code (float64)."""
    model.eval()
    device = next(model.parameters()).device
    out = [model.predict(torch.from_numpy(codes[i:i + batch]).to(device)).double().cpu().numpy()
           for i in range(0, len(codes), batch)]
    return np.concatenate(out) if out else np.empty(0)


def _errors(points: np.ndarray) -> dict:
    if len(points) == 0:
        return {"records": 0, "mean_points": None, "max_points": None}
    return {"records": int(len(points)), "mean_points": float(points.mean()),
            "max_points": float(points.max())}


def test_error(model, data_file, train_codes) -> dict:
    """Absolute error on the test split, overall and on the records whose position
    is none of `train_codes`, those trained on (all of them when the split is by
    position)."""
    codes = data_file.read("test", "codes")
    values = data_file.read("test", "values").astype(np.float64)
    unseen = ~np.isin(codes, train_codes)
    error = np.abs(predict(model, codes) - values)
    if error.ndim == 1:
        points = 100 * error
        return {"test": _errors(points), "unseen_in_training": _errors(points[unseen])}
    points = 100 * error[:, 0]     # race tables: the winning chance, then each equity
    answer = {"test": _errors(points), "unseen_in_training": _errors(points[unseen])}
    for k, name in enumerate(model.names[1:], 1):
        answer[f"{name}_equity"] = {"mean": float(error[:, k].mean()),
                                    "max": float(error[:, k].max())}
    return answer
