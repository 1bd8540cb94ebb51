#pragma once
/// RAII for HDF5 identifiers (files, groups, datasets, dataspaces, types, property lists,
/// attributes) and the attribute helpers the adapter shares. Only adapters/data/hdf5 includes
/// this (and so hdf5.h). HDF5's own error printing is off (hdf5_quiet): failures come back
/// as values naming the file.
#include <hdf5.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "merlin/core/data/compression.h"
#include "merlin/core/util/result.h"

namespace merlin::hdf5 {

/// Owns one identifier; closes it with H5Idec_ref (right for every kind of identifier).
class Hid {
 public:
  Hid() = default;
  explicit Hid(hid_t id) : id_(id) {}
  Hid(const Hid&) = delete;
  Hid& operator=(const Hid&) = delete;
  Hid(Hid&& o) noexcept : id_(std::exchange(o.id_, -1)) {}
  Hid& operator=(Hid&& o) noexcept {
    if (this != &o) {
      reset();
      id_ = std::exchange(o.id_, -1);
    }
    return *this;
  }
  ~Hid() { reset(); }
  void reset() {
    if (id_ >= 0) H5Idec_ref(id_);
    id_ = -1;
  }
  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }

 private:
  hid_t id_ = -1;
};

/// Turns off HDF5's printing of its error stack (once per process), unless the log level is
/// debug (`--log-level debug`).
void hdf5_quiet();

/// "1.10.8": the library's version.
std::string hdf5_version();

/// Attributes on an object (the root group, a dataset).
/// Creates (truncating) `.<name>.tmp.<pid>` beside `path`: a file that is renamed to `path`
/// once it holds something whole, so `path` never shows a half-made file. Sets `tmp` to its
/// path on success (left empty on failure); the error names `path` and errno's reason.
/// `swmr_format`: the latest file format (HDF5 >= 1.10 reads it), which SWMR writing needs
/// (start_swmr_write); else the 1.8 format.
Result<Hid> create_temp_beside(const std::string& path, std::string& tmp, bool swmr_format = false);

/// A file access property list for opening a dataset file: of the latest file format when
/// `latest` (what an SWMR writer opens with); `clear_flags` opens a file whose SWMR writer
/// was killed (its superblock still says "open for write", which HDF5 refuses otherwise, as
/// h5clear does) — only for a caller that knows no writer is alive (it holds the writer lock).
Hid open_fapl(bool latest, bool clear_flags);

/// Whether the open file is of a format SWMR can write (superblock version 3 or later: made
/// with the latest format). Files of the 1.8 format (older merlin) are not.
bool swmr_capable(hid_t file);

/// Switches the open file to SWMR writing: from now on readers may open it with SWMR read
/// while it is appended to, and no object or attribute may be created or deleted (attributes
/// are only written in place). Every dataset must have been created before.
Result<void> start_swmr_write(hid_t file);

/// Flushes one dataset (its chunks, then its metadata): after it, an SWMR reader that
/// refreshes the dataset sees its rows.
Result<void> flush_dataset(hid_t dataset);

/// A fixed-length text attribute, written in place when it exists with `value`'s length
/// (SWMR allows that, not a new attribute): `updated` moves on this way.
Result<void> write_fixed_string_attr(hid_t obj, const char* name, const std::string& value);

Result<void> write_string_attr(hid_t obj, const char* name, const std::string& value);
Result<void> write_strings_attr(hid_t obj, const char* name, const std::vector<std::string>& v);
Result<void> write_u64_attr(hid_t obj, const char* name, std::uint64_t value);
/// Errors (kBadInput) when the attribute is missing or of another type.
Result<std::string> read_string_attr(hid_t obj, const char* name);
Result<std::vector<std::string>> read_strings_attr(hid_t obj, const char* name);
Result<std::uint64_t> read_u64_attr(hid_t obj, const char* name);

/// A chunked dataset of `type` and shape (0, *shape), extendible along its first dimension,
/// compressed as `c` says (gzip: shuffled, then deflated); `fill` is its fill value (NaN for
/// float fields), or null. Up to 4096 rows or about 1 MiB a chunk (chunk_rows_for).
Result<Hid> create_rows_dataset(hid_t parent, const std::string& name, hid_t type,
                                const std::vector<std::uint64_t>& shape, const void* fill,
                                const data::Compression& c = data::Compression{});

/// HDF5's registered id of the LZ4 filter (a plugin: hdf5-filter-plugin's libh5lz4).
constexpr H5Z_filter_t kLz4Filter = 32004;

/// Current dimensions of a dataset.
std::vector<std::uint64_t> dataset_dims(hid_t dataset);

/// Writes `rows` rows (each `row_size` elements of `mem_type`) at row `first`, growing the
/// dataset to first + rows rows.
Result<void> write_rows(hid_t dataset, hid_t mem_type, std::uint64_t first, std::uint64_t rows,
                        const void* data);
/// Writes `rows` rows at row `first` over what is there (first + rows <= the dataset's rows).
Result<void> overwrite_rows(hid_t dataset, hid_t mem_type, std::uint64_t first, std::uint64_t rows,
                            const void* data);
/// Reads `rows` rows from row `first` into `data` (rows × the row's elements of `mem_type`).
Result<void> read_rows(hid_t dataset, hid_t mem_type, std::uint64_t first, std::uint64_t rows,
                       void* data);

/// The current time as "2026-11-24T10:15:02Z".
std::string utc_now();

}  // namespace merlin::hdf5
