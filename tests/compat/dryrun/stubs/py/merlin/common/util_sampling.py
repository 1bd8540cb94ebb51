"""scale_samples as Merlin's example sample scripts call it: columns of samples drawn in
limits_norm mapped linearly (or in log10 where do_log) onto each column's (lo, hi)."""
import numpy as np


def scale_samples(samples_norm, limits, limits_norm=(0, 1), do_log=False):
    norms = np.asarray(samples_norm, dtype=float)
    if norms.ndim != 2:
        raise ValueError("samples must be a 2-D (nsamples, ndims) array")
    ndims = norms.shape[1]
    logs = list(do_log) if hasattr(do_log, "__iter__") else [do_log] * ndims
    out = np.empty_like(norms)
    n_lo, n_hi = limits_norm
    for j, ((lo, hi), log) in enumerate(zip(limits, logs)):
        if log:
            lo, hi = np.log10(lo), np.log10(hi)
        slope = (hi - lo) / (n_hi - n_lo)
        col = slope * (norms[:, j] - n_lo) + lo
        out[:, j] = 10.0 ** col if log else col
    return out
