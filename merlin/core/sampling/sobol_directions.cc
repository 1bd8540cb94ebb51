#include "merlin/core/sampling/sobol_directions.h"

#include <boost/random/detail/sobol_table.hpp>

namespace merlin::sampling {
namespace {
using Table = boost::random::detail::qrng_tables::sobol;
static_assert(Table::max_dimension == kSobolMaxDims);
}  // namespace

std::array<std::uint32_t, 32> sobol_directions(std::size_t dim) {
  std::array<std::uint32_t, 32> v{};
  if (dim == 0) {
    for (unsigned k = 0; k < 32; ++k) v[k] = std::uint32_t{1} << (31 - k);
    return v;
  }
  // Boost stores the whole primitive polynomial x^s + a_1 x^(s-1) + ... + 1 as bits; a is its
  // inner coefficients, a_1 the most significant.
  const unsigned poly = Table::polynomial(dim - 1);
  const unsigned s = 31 - static_cast<unsigned>(__builtin_clz(poly));
  const unsigned a = (poly >> 1) & ((1u << (s - 1)) - 1);
  for (unsigned k = 0; k < s && k < 32; ++k)
    v[k] = static_cast<std::uint32_t>(Table::minit(dim - 1, k)) << (31 - k);
  for (unsigned k = s; k < 32; ++k) {
    v[k] = v[k - s] ^ (v[k - s] >> s);
    for (unsigned l = 1; l < s; ++l)
      if ((a >> (s - 1 - l)) & 1) v[k] ^= v[k - l];
  }
  return v;
}

}  // namespace merlin::sampling
