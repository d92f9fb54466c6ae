"""The value network: the game's features of packed position codes, then an MLP
giving the logit of the mover's winning chance."""
import lightning as L
import torch
from torch import nn

from games import get_game
from games.game import AGAIN, OVER

ACTIVATIONS = {"relu": nn.ReLU, "gelu": nn.GELU, "silu": nn.SiLU, "tanh": nn.Tanh}
LOSSES = ("bce", "mse")
# oneDNN builds a bfloat16 kernel for each batch shape it meets; padding batches to a
# multiple of this keeps the shapes few (decision batches vary in size every step)
BF16_ROWS = 512


class ValueNet(L.LightningModule):
    """An MLP value net for one game variant.

    Args:
        game: "ur" or "senet".
        pieces: pieces a side of the variant the table was solved for.
        hidden: widths of the hidden layers.
        activation: one of relu, gelu, silu, tanh.
        loss: "bce" (binary cross-entropy of the logit against the exact value) or
            "mse" (squared error of the probability).
        lr: AdamW learning rate, decayed to zero by a cosine over all training steps.
        weight_decay: AdamW weight decay.
        decision_weight: weight of the decision loss (needs data.decisions > 0): the
            KL divergence from the table's choice distribution over a decision's
            moves, softmax(exact worth / temperature), to the net's.
        decision_temperature: in winning-chance units (0.01 = one point).
        init_from: a checkpoint of the same architecture whose weights to start from
            (to continue training with a new learning-rate schedule).
        bf16_epochs: training epochs, from the first, whose hidden layers run in
            bfloat16 (autocast; the weights, the output layer and the loss stay
            float32). About 1.6 times faster steps on a CPU with AMX or AVX512-BF16;
            the float32 epochs after them let the weights settle at full precision.
            Evaluation, export and play always run in float32.
    """

    def __init__(self, game: str = "ur", pieces: int = 7, hidden: list[int] = (256, 256),
                 activation: str = "relu", loss: str = "bce", lr: float = 3e-3,
                 weight_decay: float = 0.0, decision_weight: float = 0.0,
                 decision_temperature: float = 0.01, init_from: str | None = None,
                 bf16_epochs: int = 0):
        super().__init__()
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {', '.join(ACTIVATIONS)}")
        if loss not in LOSSES:
            raise ValueError(f"loss must be one of {', '.join(LOSSES)}")
        self.save_hyperparameters()
        self.game = get_game(game, pieces)
        widths = [self.game.n_features, *hidden]
        layers = []
        for a, b in zip(widths, widths[1:]):
            layers += [nn.Linear(a, b), ACTIVATIONS[activation]()]
        self.mlp = nn.Sequential(*layers, nn.Linear(widths[-1], 1))
        self.bf16 = False   # hidden layers in bfloat16 while training (set each epoch)
        if init_from:
            state = torch.load(init_from, map_location="cpu", weights_only=False)["state_dict"]
            self.load_state_dict(state)

    def forward(self, codes: torch.Tensor) -> torch.Tensor:
        """Logits of the mover's winning chance, shape (n,)."""
        x = self.game.features(codes)
        if not (self.training and self.bf16):
            return self.mlp(x).squeeze(1)
        n = len(x)
        x = nn.functional.pad(x, (0, 0, 0, -n % BF16_ROWS))
        with torch.autocast("cpu", dtype=torch.bfloat16):
            hidden = self.mlp[:-1](x)
        return self.mlp[-1](hidden.float())[:n].squeeze(1)

    def on_train_epoch_start(self):
        self.bf16 = self.current_epoch < self.hparams.bf16_epochs

    def predict(self, codes: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid(self(codes))

    def parameter_count(self) -> int:
        return sum(p.numel() for p in self.parameters())

    def _loss(self, logits, values):
        if self.hparams.loss == "bce":
            return nn.functional.binary_cross_entropy_with_logits(logits, values)
        return nn.functional.mse_loss(torch.sigmoid(logits), values)

    def training_step(self, batch, _):
        codes, values = batch[:2]
        loss = self._loss(self(codes), values)
        self.log("train_loss", loss, prog_bar=True)
        if len(batch) > 2 and self.hparams.decision_weight > 0 and len(batch[2]):
            decision = self._decision_loss(*batch[2:])
            self.log("train_decision_loss", decision)
            loss = loss + self.hparams.decision_weight * decision
        return loss

    def _decision_loss(self, counts, next_codes, infos, exact):
        live = torch.arange(next_codes.shape[1]) < counts.unsqueeze(1)
        over = (infos & OVER) != 0
        again = (infos & AGAIN) != 0
        need = live & ~over
        p = torch.zeros(next_codes.shape)
        p[need] = torch.sigmoid(self(next_codes[need]))
        worth = torch.where(over, 1.0, torch.where(again, p, 1.0 - p))
        t = self.hparams.decision_temperature
        masked = torch.where(live, worth / t, -torch.inf)
        target = torch.softmax(torch.where(live, exact / t, -torch.inf), dim=1)
        log_net = torch.log_softmax(masked, dim=1)
        return -(target * torch.where(live, log_net, 0.0)).sum(1).mean()

    def validation_step(self, batch, _):
        codes, values = batch
        logits = self(codes)
        self.log("val_loss", self._loss(logits, values), prog_bar=True)
        self.log("val_mae_points", 100 * (torch.sigmoid(logits) - values).abs().mean(),
                 prog_bar=True)

    def on_save_checkpoint(self, checkpoint):
        """Record where the training data came from, for export manifests."""
        data = getattr(self.trainer, "datamodule", None) if self._trainer else None
        if data is not None:
            checkpoint["tabula"] = {"data_path": str(data.path),
                                    "data_sha256": data.file.attrs["data_sha256"],
                                    "table_sha256": data.file.attrs["table_sha256"]}

    def configure_optimizers(self):
        optimizer = torch.optim.AdamW(self.parameters(), lr=self.hparams.lr,
                                      weight_decay=self.hparams.weight_decay)
        steps = max(1, int(self.trainer.estimated_stepping_batches))
        schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=steps)
        return {"optimizer": optimizer,
                "lr_scheduler": {"scheduler": schedule, "interval": "step"}}
