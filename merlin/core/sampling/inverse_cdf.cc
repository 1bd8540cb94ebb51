#include "merlin/core/sampling/inverse_cdf.h"

#include <algorithm>
#include <cmath>

namespace merlin::sampling {

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

double normal_quantile(double u) {
  // P. J. Acklam's algorithm.
  static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,
                                 -2.759285104469687e+02, 1.383577518672690e+02,
                                 -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02,
                                 -1.556989798598866e+02, 6.680131188771972e+01,
                                 -1.328068155288572e+01};
  static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01,
                                 -2.400758277161838e+00, -2.549732539343734e+00,
                                 4.374664141464968e+00,  2.938163982698783e+00};
  static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01,
                                 2.445134137142996e+00, 3.754408661907416e+00};
  if (u <= 0) return -HUGE_VAL;
  if (u >= 1) return HUGE_VAL;
  constexpr double plow = 0.02425, phigh = 1 - plow;
  double x;
  if (u < plow) {
    double q = std::sqrt(-2 * std::log(u));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else if (u <= phigh) {
    double q = u - 0.5, r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  } else {
    double q = std::sqrt(-2 * std::log1p(-u));
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  // One Halley step; the error is taken on the tail where it is small.
  const double e = x < 0 ? normal_cdf(x) - u : (1 - u) - normal_cdf(-x);
  const double step = e * std::sqrt(2 * M_PI) * std::exp(x * x / 2);
  return x - step / (1 + x * step / 2);
}

double truncnorm_quantile(double u, double mu, double sigma, double lo, double hi) {
  double a = (lo - mu) / sigma, b = (hi - mu) / sigma;
  double z;
  if (a > 0) {  // the upper tail: mirror, so the CDF values stay small and precise
    const double pa = normal_cdf(-a), pb = normal_cdf(-b);
    z = -normal_quantile(pa - u * (pa - pb));
  } else {
    const double pa = normal_cdf(a), pb = normal_cdf(b);
    z = normal_quantile(pa + u * (pb - pa));
  }
  return std::clamp(mu + sigma * z, lo, hi);
}

namespace {

// The continued fraction of I_x(a, b) (Numerical Recipes' betacf, modified Lentz).
double beta_fraction(double x, double a, double b) {
  constexpr double tiny = 1e-300, eps = 1e-16;
  const double qab = a + b, qap = a + 1, qam = a - 1;
  double c = 1, d = 1 - qab * x / qap;
  if (std::fabs(d) < tiny) d = tiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m <= 10000; ++m) {
    const int m2 = 2 * m;
    double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (std::fabs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (std::fabs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1 / d;
    const double del = d * c;
    h *= del;
    if (std::fabs(del - 1) < eps) break;
  }
  return h;
}

double log_beta_front(double x, double a, double b) {  // log(x^a (1-x)^b / B(a, b))
  return std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) +
         b * std::log1p(-x);
}

}  // namespace

double beta_cdf(double x, double a, double b) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double front = std::exp(log_beta_front(x, a, b));
  if (x < (a + 1) / (a + b + 2)) return front * beta_fraction(x, a, b) / a;
  return 1 - front * beta_fraction(1 - x, b, a) / b;
}

double beta_quantile(double u, double a, double b) {
  if (u <= 0) return 0;
  if (u >= 1) return 1;
  double lo = 0, hi = 1, x = a / (a + b);
  const double log_norm = std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b);
  for (int i = 0; i < 200; ++i) {
    const double f = beta_cdf(x, a, b) - u;
    if (f < 0) lo = x; else hi = x;
    if (hi - lo < 1e-15 || f == 0) break;
    const double pdf = std::exp(log_norm + (a - 1) * std::log(x) + (b - 1) * std::log1p(-x));
    double next = pdf > 0 && std::isfinite(pdf) ? x - f / pdf : (lo + hi) / 2;
    if (!(next > lo && next < hi)) next = (lo + hi) / 2;  // Newton left the bracket: bisect
    if (std::fabs(next - x) < 1e-14 * std::max(x, 1e-300)) { x = next; break; }
    x = next;
  }
  return x;
}

}  // namespace merlin::sampling
