#pragma once
/// Inverse cumulative distribution functions for `merlin sample`'s per-column distributions:
/// pure numerics, no state. Each takes u in (0, 1); callers keep u away from 0 and 1.
namespace merlin::sampling {

/// Φ(x), the standard normal CDF (via erfc, accurate in both tails).
double normal_cdf(double x);

/// Φ^-1(u): Acklam's rational approximation (relative error 1.15e-9) refined by one Halley step
/// on erfc, to about 1e-15.
double normal_quantile(double u);

/// The u-quantile of N(mu, sigma^2) truncated to [lo, hi] (lo < hi): by Φ on the nearer tail so
/// far-out intervals keep their precision.
double truncnorm_quantile(double u, double mu, double sigma, double lo, double hi);

/// I_x(a, b), the regularized incomplete beta function (a, b > 0, x in [0, 1]): the continued
/// fraction (modified Lentz), on the side of x where it converges fast.
double beta_cdf(double x, double a, double b);

/// The u-quantile of Beta(a, b) on [0, 1]: Newton steps on beta_cdf kept inside a bisection
/// bracket, to 1e-14 or 200 steps.
double beta_quantile(double u, double a, double b);

}  // namespace merlin::sampling
