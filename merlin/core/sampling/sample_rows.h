#pragma once
/// The rows of a SampleDesign, computed block by block: any range of rows from the design
/// alone (counter-based random numbers, a keyed permutation for the Latin hypercube, Sobol
/// points from their index), so memory stays flat in the row count and the same seed gives the
/// same rows however they are blocked.
#include <cstdint>

#include "merlin/core/sampling/sample_design.h"

namespace merlin::sampling {

/// Writes rows [first, first + count) of `d` into `out`, row-major (count × columns), in the
/// columns' bounds and scales. For kGrid, `d.rows` is taken as the grid's row count
/// (grid_side(d.rows, dims)^dims, which the caller computes); star and ccd have
/// design_rows(d) rows. kMaximin is optimised whole (maximin_lhs.h) on its first call for a
/// (rows, columns, seed) on a thread and kept for the blocks that follow.
void fill_rows(const SampleDesign& d, std::uint64_t first, std::uint64_t count, double* out);

}  // namespace merlin::sampling
