// projectile: the example ensemble's simulation. A point mass launched at speed V0 (m/s) and
// ANGLE (degrees above the horizon) under gravity and quadratic air drag (acceleration
// -DRAG * |v| * v, DRAG in 1/m), integrated with fourth-order Runge-Kutta until it lands.
//
// Writes result.json (scalars: range, max_height, flight_time, impact_speed, impact_angle; and
// the apex as [x, y]) and trajectory.npy (float64, shape (POINTS, 2): x and y at POINTS times
// evenly spaced over the flight). Standalone C++17 so a study can compile it in its first step.
//
//   projectile --v0 30 --angle 45 --drag 0.01 [--points 64] [--dt 1e-3]
//              [--out result.json] [--trajectory trajectory.npy]
// Exit codes: 0 done, 2 bad arguments, 1 an output could not be written.
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr double kGravity = 9.80665;
constexpr double kPi = 3.14159265358979323846;

struct State {
  double x, y, vx, vy;
};

State derivative(const State& s, double drag) {
  const double speed = std::hypot(s.vx, s.vy);
  return {s.vx, s.vy, -drag * speed * s.vx, -kGravity - drag * speed * s.vy};
}

State step(const State& s, double dt, double drag) {
  auto add = [](const State& a, const State& b, double h) {
    return State{a.x + h * b.x, a.y + h * b.y, a.vx + h * b.vx, a.vy + h * b.vy};
  };
  const State k1 = derivative(s, drag);
  const State k2 = derivative(add(s, k1, dt / 2), drag);
  const State k3 = derivative(add(s, k2, dt / 2), drag);
  const State k4 = derivative(add(s, k3, dt), drag);
  return {s.x + dt / 6 * (k1.x + 2 * k2.x + 2 * k3.x + k4.x),
          s.y + dt / 6 * (k1.y + 2 * k2.y + 2 * k3.y + k4.y),
          s.vx + dt / 6 * (k1.vx + 2 * k2.vx + 2 * k3.vx + k4.vx),
          s.vy + dt / 6 * (k1.vy + 2 * k2.vy + 2 * k3.vy + k4.vy)};
}

struct Flight {
  std::vector<double> t;
  std::vector<State> path;  // path[i] at t[i]; the last point is the landing (y = 0)
  double max_height = 0, apex_x = 0;
};

Flight fly(double v0, double angle_deg, double drag, double dt) {
  const double a = angle_deg * kPi / 180;
  State s{0, 0, v0 * std::cos(a), v0 * std::sin(a)};
  Flight f;
  double t = 0;
  f.t.push_back(t);
  f.path.push_back(s);
  for (;;) {
    State next = step(s, dt, drag);
    if (next.y > f.max_height) {
      f.max_height = next.y;
      f.apex_x = next.x;
    }
    if (next.y < 0) {  // landed within this step: interpolate to y = 0
      const double frac = s.y / (s.y - next.y);
      State land{s.x + frac * (next.x - s.x), 0, s.vx + frac * (next.vx - s.vx),
                 s.vy + frac * (next.vy - s.vy)};
      f.t.push_back(t + frac * dt);
      f.path.push_back(land);
      return f;
    }
    s = next;
    t += dt;
    f.t.push_back(t);
    f.path.push_back(s);
  }
}

// Linear interpolation of the path at time `at`.
State at_time(const Flight& f, double at) {
  std::size_t hi = 1;
  while (hi + 1 < f.t.size() && f.t[hi] < at) ++hi;
  const double span = f.t[hi] - f.t[hi - 1];
  const double w = span > 0 ? (at - f.t[hi - 1]) / span : 0;
  const State& a = f.path[hi - 1];
  const State& b = f.path[hi];
  return {a.x + w * (b.x - a.x), a.y + w * (b.y - a.y), a.vx + w * (b.vx - a.vx),
          a.vy + w * (b.vy - a.vy)};
}

bool write_file(const std::string& path, const std::string& bytes) {
  const std::string tmp = path + ".tmp";
  FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) return false;
  const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  if (std::fclose(f) != 0 || !ok) return false;
  return std::rename(tmp.c_str(), path.c_str()) == 0;
}

// A .npy (format 1.0) of float64 rows x cols, C order.
std::string npy(const std::vector<double>& values, std::size_t rows, std::size_t cols) {
  std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': (" +
                       std::to_string(rows) + ", " + std::to_string(cols) + "), }";
  const std::size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header.push_back('\n');
  std::string out("\x93NUMPY\x01\x00", 8);
  out.push_back(static_cast<char>(header.size() & 0xff));
  out.push_back(static_cast<char>(header.size() >> 8));
  out += header;
  out.append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(double));
  return out;
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

int usage(const char* why) {
  std::fprintf(stderr,
               "projectile: %s\nusage: projectile --v0 M_PER_S --angle DEGREES --drag PER_M "
               "[--points N] [--dt S] [--out result.json] [--trajectory trajectory.npy]\n",
               why);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  double v0 = NAN, angle = NAN, drag = NAN, dt = 1e-3;
  long points = 64;
  std::string out = "result.json", trajectory = "trajectory.npy";
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) return usage(("no value after " + flag).c_str());
    const char* value = argv[++i];
    char* end = nullptr;
    const double v = std::strtod(value, &end);
    const bool numeric = end != value && *end == '\0' && std::isfinite(v);
    if (flag == "--out") {
      out = value;
    } else if (flag == "--trajectory") {
      trajectory = value;
    } else if (!numeric) {
      return usage((flag + " needs a finite number, got '" + value + "'").c_str());
    } else if (flag == "--v0") {
      v0 = v;
    } else if (flag == "--angle") {
      angle = v;
    } else if (flag == "--drag") {
      drag = v;
    } else if (flag == "--dt") {
      dt = v;
    } else if (flag == "--points") {
      points = static_cast<long>(v);
    } else {
      return usage(("unknown option " + flag).c_str());
    }
  }
  if (!(v0 > 0)) return usage("--v0 must be a positive speed");
  if (!(angle > 0 && angle < 90)) return usage("--angle must be between 0 and 90 degrees");
  if (!(drag >= 0)) return usage("--drag must be zero or positive");
  if (!(dt > 0 && dt < 1)) return usage("--dt must be in (0, 1) seconds");
  if (points < 2 || points > 100000) return usage("--points must be in [2, 100000]");

  const Flight f = fly(v0, angle, drag, dt);
  const State& land = f.path.back();
  const double flight_time = f.t.back();
  std::vector<double> xy;
  xy.reserve(static_cast<std::size_t>(points) * 2);
  for (long i = 0; i < points; ++i) {
    const State s = at_time(f, flight_time * static_cast<double>(i) / static_cast<double>(points - 1));
    xy.push_back(s.x);
    xy.push_back(s.y);
  }
  const std::string json =
      "{\"range\": " + num(land.x) + ", \"max_height\": " + num(f.max_height) +
      ", \"flight_time\": " + num(flight_time) +
      ", \"impact_speed\": " + num(std::hypot(land.vx, land.vy)) +
      ", \"impact_angle\": " + num(std::atan2(-land.vy, land.vx) * 180 / kPi) +
      ", \"apex\": [" + num(f.apex_x) + ", " + num(f.max_height) + "]}\n";
  if (!write_file(out, json)) {
    std::fprintf(stderr, "projectile: cannot write %s: %s\n", out.c_str(), std::strerror(errno));
    return 1;
  }
  if (!write_file(trajectory, npy(xy, static_cast<std::size_t>(points), 2))) {
    std::fprintf(stderr, "projectile: cannot write %s: %s\n", trajectory.c_str(),
                 std::strerror(errno));
    return 1;
  }
  return 0;
}
