#pragma once
/// Renders numbers the way Merlin pastes them into commands: Python's `str()` of the numpy
/// scalar that `np.load` yields (numpy >= 1.14, non-legacy printing).
#include <cstdint>
#include <string>

namespace merlin::samples {

/// `str(np.float64(v))`: the shortest digits that round-trip; positional when
/// 1e-4 <= |v| < 1e16 or v == 0 (whole numbers keep ".0": "1.0", "1e+15" -> "1000000000000000.0"),
/// otherwise scientific with at least two exponent digits ("1e-05", "1.5e+16").
/// Non-finite values: "nan", "inf", "-inf". Negative zero: "-0.0".
std::string format_float64(double v);

/// `str(np.float32(v))`: as format_float64 but with the shortest digits that round-trip as a
/// float (0.1f -> "0.1"). numpy compares |v| itself against the cutoffs, so 1e-4f (which is
/// slightly below 1e-4) prints "1e-04".
std::string format_float32(float v);

std::string format_int(std::int64_t v);
std::string format_uint(std::uint64_t v);

/// "True" / "False", as Python prints a bool.
inline std::string format_bool(bool v) { return v ? "True" : "False"; }

}  // namespace merlin::samples
