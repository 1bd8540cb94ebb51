"""Which simulations to run next: the K candidates where the ensemble disagrees most, kept apart.

Pure numpy, no training: `propose` takes the ensemble's standard deviation at candidate points
and returns the indices of K of them. Greedy: take the highest score, then damp every score
by a distance term to the points already taken (and to the data), so one disagreement hot spot
does not get K near-duplicates.
"""
import numpy as np


def propose(candidates, std, k, taken=None, radius=0.03):
    """Indices of k rows of `candidates` (unit cube, (m, d)) by descending std, diversified.

    Each score is multiplied by (1 - exp(-(d / radius)^2)), d the distance to the nearest point
    already chosen or in `taken` (the dataset). Deterministic: ties go to the lower index.
    """
    candidates = np.asarray(candidates, float)
    score = np.asarray(std, float).copy()
    k = min(k, len(candidates))
    nearest = np.full(len(candidates), np.inf)
    if taken is not None and len(taken):
        for p in np.asarray(taken, float):
            nearest = np.minimum(nearest, np.linalg.norm(candidates - p, axis=1))
    chosen = []
    for _ in range(k):
        damped = score * (1 - np.exp(-(nearest / radius) ** 2))
        damped[chosen] = -np.inf
        i = int(np.argmax(damped))
        chosen.append(i)
        nearest = np.minimum(nearest, np.linalg.norm(candidates - candidates[i], axis=1))
    return np.array(chosen, dtype=int)
