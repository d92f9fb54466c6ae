"""The optimizer of a value net's training (model.optimizer): AdamW for every weight, or
Muon for the weight matrices between hidden layers with AdamW for the rest: the first
layer (its inputs are the game's sparse features, not another layer's units), the output
layer and the biases, where Muon's orthogonalised steps are not meant to go. Muon's rate
is matched to AdamW's (torch's adjust_lr_fn "match_rms_adamw"), so one `model.lr` and one
schedule serve both. Measured on hypergammon: docs/BENCHMARKS.md."""
import torch

OPTIMIZERS = ("adamw", "muon")


def make_optimizer(name: str, linears: list, parameters: list, lr: float,
                   weight_decay: float) -> torch.optim.Optimizer:
    """The optimizer `name` over `parameters`; linears: the net's Linear layers in order
    (Muon takes the weights of all but the first and the last)."""
    if name == "adamw":
        return torch.optim.AdamW(parameters, lr=lr, weight_decay=weight_decay)
    inner = [layer.weight for layer in linears[1:-1]]
    rest = [p for p in parameters if all(p is not w for w in inner)]
    return Paired(torch.optim.AdamW(rest, lr=lr, weight_decay=weight_decay),
                  torch.optim.Muon(inner, lr=lr, weight_decay=weight_decay,
                                   adjust_lr_fn="match_rms_adamw"))


class Paired(torch.optim.Optimizer):
    """Two optimizers stepped as one. Their parameter groups are this optimizer's (the
    same dictionaries), so a learning-rate schedule over it sets both; its state is
    theirs, saved and loaded together."""

    def __init__(self, *parts: torch.optim.Optimizer):
        self.parts = parts
        super().__init__(self._parts_groups(), {})

    def _parts_groups(self) -> list:
        return [group for part in self.parts for group in part.param_groups]

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for part in self.parts:
            part.step()
        return loss

    def zero_grad(self, set_to_none: bool = True):
        for part in self.parts:
            part.zero_grad(set_to_none=set_to_none)

    def state_dict(self) -> dict:
        return {"parts": [part.state_dict() for part in self.parts]}

    def load_state_dict(self, state_dict: dict):
        for part, state in zip(self.parts, state_dict["parts"], strict=True):
            part.load_state_dict(state)
        # torch's load_state_dict gives each part new group dictionaries: share them
        # again, else a resumed run's schedule would set rates that no part reads
        self.param_groups = self._parts_groups()
