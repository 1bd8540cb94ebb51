#pragma once
/// Whether a sample file fits where it is to be written, decided before a byte is written:
/// the most the file can take (by its format) against the free space of its file system, so
/// that `merlin sample -n HUGE` is refused with the figures instead of filling the disk.
#include <cstdint>
#include <string>

#include "merlin/core/sampling/sample_design.h"
#include "merlin/core/util/result.h"

namespace merlin::sampling {

/// The most a file of design `d` (its design_rows) takes at `path`, by extension:
/// `.npy` 8 bytes a value and its 128-byte header; `.h5`/`.hdf5` 8 bytes a value (compression
/// only shrinks it) and 64 KiB of HDF5's own; `.csv`/`.tab`/`.txt` 24 bytes a value (`%.17g`
/// and a separator) and a header line. The design must pass check_design (no overflow then).
std::uint64_t estimated_bytes(const SampleDesign& d, const std::string& path);

/// The room asked for an estimate: 5% and 1 MiB more, for the file system's own blocks and
/// whatever else writes there meanwhile.
std::uint64_t bytes_needed(std::uint64_t estimate);

/// kNoSpace (exit 4) when `free_bytes` is less than bytes_needed(`estimate`): "PATH needs about
/// 15.3 MiB and its file system has 7.9 MiB free; free some space, write fewer rows, or write
/// elsewhere".
Result<void> check_room(const std::string& path, std::uint64_t estimate, std::uint64_t free_bytes);

/// "512 B", "15.3 MiB", "2.0 TiB": a size for messages.
std::string bytes_text(std::uint64_t bytes);

}  // namespace merlin::sampling
