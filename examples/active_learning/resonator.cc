// resonator: the active-learning example's simulation. A damped harmonic oscillator driven at
// frequency OMEGA (in units of its natural frequency) with damping ratio ZETA,
//   x'' + 2 ZETA x' + x = cos(OMEGA t),   x(0) = x'(0) = 0,
// integrated with fourth-order Runge-Kutta until the start-up transient has died out
// (exp(-ZETA t) < 1e-5); the steady-state amplitude is the largest |x| over the last three
// drive periods. Near OMEGA = 1 with little damping the amplitude is a tall, narrow ridge
// (height about 1 / (2 ZETA), width about 2 ZETA): the feature active learning has to find.
//
// Writes result.json: {"amplitude": A, "omega": W, "zeta": Z, "steps": N}. With --table IN.csv
// (rows OMEGA,ZETA without a header, as `merlin sample` writes them) it simulates every row and
// writes OUT as CSV (a header omega,zeta,amplitude, then a line per row) instead: the held-out
// set's and the benchmark's batch mode, the same code as one simulation per task.
//
//   resonator --omega 0.98 --zeta 0.05 [--out result.json]
//   resonator --table points.csv --out amplitudes.csv
// Exit codes: 0 done, 2 bad arguments, 1 a file could not be read or written.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

constexpr double kPi = 3.14159265358979323846;

struct Result {
  double amplitude;
  long steps;
};

Result simulate(double omega, double zeta) {
  const double period = 2 * kPi / omega;
  const double dt = std::min(period, 2 * kPi) / 200;  // 200 steps per drive or natural period
  const double settle = std::log(1e5) / zeta;          // transient below 1e-5 of its start
  const long n_settle = static_cast<long>(std::ceil(settle / dt));
  const long n_measure = static_cast<long>(std::ceil(3 * period / dt));
  auto accel = [&](double t, double x, double v) { return std::cos(omega * t) - 2 * zeta * v - x; };
  double t = 0, x = 0, v = 0, amp = 0;
  for (long i = 0; i < n_settle + n_measure; ++i) {
    const double k1x = v, k1v = accel(t, x, v);
    const double k2x = v + dt / 2 * k1v, k2v = accel(t + dt / 2, x + dt / 2 * k1x, v + dt / 2 * k1v);
    const double k3x = v + dt / 2 * k2v, k3v = accel(t + dt / 2, x + dt / 2 * k2x, v + dt / 2 * k2v);
    const double k4x = v + dt * k3v, k4v = accel(t + dt, x + dt * k3x, v + dt * k3v);
    x += dt / 6 * (k1x + 2 * k2x + 2 * k3x + k4x);
    v += dt / 6 * (k1v + 2 * k2v + 2 * k3v + k4v);
    t += dt;
    if (i >= n_settle) amp = std::max(amp, std::fabs(x));
  }
  return {amp, n_settle + n_measure};
}

bool parse(const char* s, double& out) {
  char* end = nullptr;
  out = std::strtod(s, &end);
  return end != s && *end == '\0' && std::isfinite(out);
}

int usage(const char* why) {
  std::fprintf(stderr,
               "resonator: %s\nusage: resonator --omega W --zeta Z [--out result.json]\n"
               "       resonator --table IN.csv --out OUT.csv\n"
               "  W in (0, 10], Z in (0, 1]\n",
               why);
  return 2;
}

bool in_range(double omega, double zeta) { return omega > 0 && omega <= 10 && zeta > 0 && zeta <= 1; }

int run_table(const std::string& in, const std::string& out) {
  FILE* f = std::fopen(in.c_str(), "r");
  if (!f) return std::perror(in.c_str()), 1;
  FILE* o = std::fopen(out.c_str(), "w");
  if (!o) return std::perror(out.c_str()), std::fclose(f), 1;
  char line[256];
  int rc = 0;
  std::fprintf(o, "omega,zeta,amplitude\n");
  while (std::fgets(line, sizeof line, f)) {
    double omega, zeta;
    if (std::sscanf(line, "%lf,%lf", &omega, &zeta) != 2 || !in_range(omega, zeta)) {
      std::fprintf(stderr, "resonator: %s: bad row: %s", in.c_str(), line);
      rc = 2;
      break;
    }
    std::fprintf(o, "%.17g,%.17g,%.17g\n", omega, zeta, simulate(omega, zeta).amplitude);
  }
  std::fclose(f);
  if (std::fclose(o) != 0) return std::perror(out.c_str()), 1;
  return rc;
}

}  // namespace

int main(int argc, char** argv) {
  double omega = NAN, zeta = NAN;
  std::string out = "result.json", table;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) return usage(("missing value after " + a).c_str());
    const char* val = argv[++i];
    if (a == "--omega") {
      if (!parse(val, omega)) return usage("--omega is not a number");
    } else if (a == "--zeta") {
      if (!parse(val, zeta)) return usage("--zeta is not a number");
    } else if (a == "--out") {
      out = val;
    } else if (a == "--table") {
      table = val;
    } else {
      return usage(("unknown option " + a).c_str());
    }
  }
  if (!table.empty()) return run_table(table, out);
  if (!in_range(omega, zeta)) return usage("--omega and --zeta are required and in range");
  const Result r = simulate(omega, zeta);
  FILE* o = std::fopen(out.c_str(), "w");
  if (!o) return std::perror(out.c_str()), 1;
  std::fprintf(o, "{\"amplitude\": %.17g, \"omega\": %.17g, \"zeta\": %.17g, \"steps\": %ld}\n",
               r.amplitude, omega, zeta, r.steps);
  if (std::fclose(o) != 0) return std::perror(out.c_str()), 1;
  return 0;
}
