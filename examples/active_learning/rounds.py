"""One round of active learning, shared by the study's `learn` step and the benchmark.

fit_and_score trains the ensemble on the data so far and scores it on the held-out set;
next_points picks the next K simulations where the ensemble disagrees most; decide says
whether to go on. Inputs are unit-cube rows (space.to_unit).
"""
import numpy as np

import acquire
import surrogate

CANDIDATES = 4000  # random candidate points scored per round


def rmse(pred, truth):
    return float(np.sqrt(np.mean((np.asarray(pred) - np.asarray(truth)) ** 2)))


def fit_and_score(x, y, heldout_x, heldout_y, seed, **train_options):
    """(ensemble, held-out RMSE of its mean) after training on (x, y); train_options go to
    surrogate.train (members, hidden, iterations)."""
    ens = surrogate.train(x, y, seed, **train_options)
    mean, _ = ens.predict(heldout_x)
    return ens, rmse(mean, heldout_y)


def next_points(ens, x, k, seed, candidates=CANDIDATES):
    """k unit-cube rows to simulate next: the highest ensemble std among random candidates,
    kept apart from each other and from the data x."""
    rng = np.random.default_rng(seed)
    cand = rng.random((candidates, x.shape[1]))
    _, std = ens.predict(cand)
    return cand[acquire.propose(cand, std, k, taken=x)]


def decide(error, target, samples, k, budget, iteration, max_iterations):
    """'target' (error <= target), 'budget' (another K would pass the budget of simulations),
    'max_iterations' (this was the loop's last iteration) or 'again'."""
    if error <= target:
        return "target"
    if samples + k > budget:
        return "budget"
    if iteration >= max_iterations:
        return "max_iterations"
    return "again"
