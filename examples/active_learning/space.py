"""The example's input space: OMEGA (drive frequency / natural frequency) on a linear scale and
ZETA (damping ratio) on a log scale, both mapped to [0, 1] for the surrogate."""
import numpy as np

OMEGA = (0.5, 1.5)
ZETA = (0.03, 0.5)  # log scale


def to_unit(omega, zeta):
    """(n, 2) unit-cube coordinates of physical points."""
    u = (np.asarray(omega, float) - OMEGA[0]) / (OMEGA[1] - OMEGA[0])
    v = (np.log(np.asarray(zeta, float)) - np.log(ZETA[0])) / (np.log(ZETA[1]) - np.log(ZETA[0]))
    return np.column_stack([u, v])


def from_unit(u):
    """Physical (omega, zeta) columns of unit-cube rows."""
    u = np.asarray(u, float)
    omega = OMEGA[0] + u[:, 0] * (OMEGA[1] - OMEGA[0])
    zeta = np.exp(np.log(ZETA[0]) + u[:, 1] * (np.log(ZETA[1]) - np.log(ZETA[0])))
    return omega, zeta


def lhs(n, seed, dims=2):
    """A Latin-hypercube sample of n unit-cube rows (one point per stratum in every dimension)."""
    rng = np.random.default_rng(seed)
    cols = [(rng.permutation(n) + rng.random(n)) / n for _ in range(dims)]
    return np.column_stack(cols)


def sample_args():
    """merlin sample's -c arguments for this space."""
    return [f"OMEGA={OMEGA[0]}:{OMEGA[1]}", f"ZETA={ZETA[0]}:{ZETA[1]}:log"]
