"""An ensemble of small MLPs: the active-learning example's surrogate.

Each member is trained on a bootstrap resample of the data with its own seed; the ensemble's
mean is the prediction and its standard deviation the disagreement the acquisition reads.
Inputs are given already scaled to the unit cube (see space.py); the target is standardised
here. Torch, CPU, one thread: an ensemble of 5 trains in a few seconds on a few hundred rows.
"""
import numpy as np
import torch

MEMBERS = 5
HIDDEN = 32
ITERATIONS = 300  # L-BFGS iterations per member (full batch)


class Ensemble:
    def __init__(self, models, y_mean, y_std):
        self.models, self.y_mean, self.y_std = models, y_mean, y_std

    def predict(self, x):
        """(mean, std) over the members at the rows of x (unit-cube inputs), in target units."""
        with torch.no_grad():
            xt = torch.as_tensor(np.asarray(x, dtype=np.float32))
            preds = np.stack([m(xt).numpy()[:, 0] for m in self.models])
        preds = preds * self.y_std + self.y_mean
        return preds.mean(axis=0), preds.std(axis=0)


def _mlp(n_in, hidden):
    return torch.nn.Sequential(
        torch.nn.Linear(n_in, hidden), torch.nn.SiLU(),
        torch.nn.Linear(hidden, hidden), torch.nn.SiLU(),
        torch.nn.Linear(hidden, 1))


def train(x, y, seed, members=MEMBERS, hidden=HIDDEN, iterations=ITERATIONS):
    """An Ensemble fitted to unit-cube inputs x (n, d) and targets y (n,); deterministic per seed."""
    torch.set_num_threads(1)
    x = np.asarray(x, dtype=np.float32)
    y = np.asarray(y, dtype=np.float64)
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
    return Ensemble(models, y_mean, y_std)
