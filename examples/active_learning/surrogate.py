"""An ensemble of small MLPs: the active-learning example's surrogate.

Each member is trained on a bootstrap resample of the data with its own seed; the ensemble's
mean is the prediction and its standard deviation the disagreement the acquisition reads.
Inputs are given already scaled to the unit cube (see space.py); the target is fitted as
log(y) (the amplitude is positive; its log is smoother, so training is steadier) and
standardised here, and the members' predictions are clipped to the log targets' range +- 1
before exp(), so that a member extrapolating wildly cannot blow the mean up. Torch, CPU, one
thread: an ensemble of 5 trains in a few seconds on a few hundred rows.
"""
import numpy as np
import torch

MEMBERS = 5
HIDDEN = 32
ITERATIONS = 300  # L-BFGS iterations per member (full batch)
LOG_TARGET = True  # fit log(y) (y > 0), predict exp: a smoother function to fit


class Ensemble:
    def __init__(self, models, y_mean, y_std, log_target, bounds):
        self.models, self.y_mean, self.y_std = models, y_mean, y_std
        self.log_target, self.bounds = log_target, bounds

    def predict(self, x):
        """(mean, std) over the members at the rows of x (unit-cube inputs), in target units."""
        with torch.no_grad():
            xt = torch.as_tensor(np.asarray(x, dtype=np.float32))
            preds = np.stack([m(xt).numpy()[:, 0] for m in self.models]).astype(np.float64)
        # Clipped to the targets' range and one unit beyond: an extrapolating member must not
        # blow up through exp().
        preds = np.clip(preds * self.y_std + self.y_mean, *self.bounds)
        if self.log_target:
            preds = np.exp(preds)
        return preds.mean(axis=0), preds.std(axis=0)


def _mlp(n_in, hidden):
    return torch.nn.Sequential(
        torch.nn.Linear(n_in, hidden), torch.nn.SiLU(),
        torch.nn.Linear(hidden, hidden), torch.nn.SiLU(),
        torch.nn.Linear(hidden, 1))


def train(x, y, seed, members=MEMBERS, hidden=HIDDEN, iterations=ITERATIONS, log_target=LOG_TARGET):
    """An Ensemble fitted to unit-cube inputs x (n, d) and targets y (n,); deterministic per seed."""
    torch.set_num_threads(1)
    x = np.asarray(x, dtype=np.float32)
    y = np.asarray(y, dtype=np.float64)
    if log_target:
        y = np.log(y)
    y_mean, y_std = float(y.mean()), float(y.std()) or 1.0
    yt_all = torch.as_tensor(((y - y_mean) / y_std).astype(np.float32))[:, None]
    xt_all = torch.as_tensor(x)
    rng = np.random.default_rng(seed)
    models = []
    for k in range(members):
        torch.manual_seed(seed * 1000 + k)
        idx = torch.as_tensor(rng.integers(0, len(x), len(x)))  # bootstrap resample
        xt, yt = xt_all[idx], yt_all[idx]
        model = _mlp(x.shape[1], hidden)
        opt = torch.optim.LBFGS(model.parameters(), lr=1, max_iter=iterations, history_size=50,
                                line_search_fn="strong_wolfe", tolerance_grad=1e-9,
                                tolerance_change=1e-12)

        def closure():
            opt.zero_grad()
            loss = torch.nn.functional.mse_loss(model(xt), yt)
            loss.backward()
            return loss

        opt.step(closure)  # full batch: a few hundred rows, so quasi-Newton beats SGD here
        model.eval()
        models.append(model)
    bounds = (float(y.min()) - 1, float(y.max()) + 1)
    return Ensemble(models, y_mean, y_std, log_target, bounds)
