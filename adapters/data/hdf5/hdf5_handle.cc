#include "adapters/data/hdf5/hdf5_handle.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <mutex>

#include "merlin/core/data/chunking.h"
#include "merlin/core/util/log.h"

namespace merlin::hdf5 {
namespace {

Error attr_error(const char* what, const char* name) {
  return Error::runtime(std::string("HDF5: cannot ") + what + " attribute '" + name + "'");
}

Hid vlen_string_type() {
  Hid t(H5Tcopy(H5T_C_S1));
  H5Tset_size(t.get(), H5T_VARIABLE);
  H5Tset_cset(t.get(), H5T_CSET_UTF8);
  return t;
}

// Makes the attribute anew (deleting one of the same name first).
Result<Hid> fresh_attr(hid_t obj, const char* name, hid_t type, hid_t space) {
  if (H5Aexists(obj, name) > 0) H5Adelete(obj, name);
  Hid a(H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT));
  if (!a.valid()) return attr_error("create", name);
  return a;
}

}  // namespace

Result<Hid> create_temp_beside(const std::string& path, std::string& tmp, bool swmr_format) {
  const auto p = std::filesystem::path(path);
  std::string name =
      (p.parent_path() / ("." + p.filename().string() + ".tmp." + std::to_string(::getpid())))
          .string();
  // The 1.8 file format: object headers and the superblock carry checksums, so damage to
  // them is an error when the file is read again, not a wild read (HDF5 >= 1.8 reads it).
  Hid fapl(H5Pcreate(H5P_FILE_ACCESS));
  H5Pset_libver_bounds(fapl.get(), swmr_format ? H5F_LIBVER_LATEST : H5F_LIBVER_V18,
                       H5F_LIBVER_LATEST);
  Hid file(H5Fcreate(name.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl.get()));
  if (!file.valid()) return Error::runtime("cannot create " + path + ": " + std::strerror(errno));
  tmp = std::move(name);
  return file;
}

Hid open_fapl(bool latest, bool clear_flags) {
  Hid fapl(H5Pcreate(H5P_FILE_ACCESS));
  if (latest) H5Pset_libver_bounds(fapl.get(), H5F_LIBVER_LATEST, H5F_LIBVER_LATEST);
  // The property h5clear sets (registered in every file access list, not in the public API).
  hbool_t clear = clear_flags;
  if (clear_flags) H5Pset(fapl.get(), "clear_status_flags", &clear);
  return fapl;
}

bool swmr_capable(hid_t file) {
  H5F_info2_t info{};
  return H5Fget_info2(file, &info) >= 0 && info.super.version >= 3;
}

Result<void> start_swmr_write(hid_t file) {
  if (H5Fstart_swmr_write(file) < 0) return Error::runtime("HDF5: cannot start SWMR writing");
  return ok();
}

Result<void> flush_dataset(hid_t dataset) {
  if (H5Dflush(dataset) < 0) return Error::runtime("HDF5: cannot flush a dataset");
  return ok();
}

Result<void> write_fixed_string_attr(hid_t obj, const char* name, const std::string& value) {
  Hid type(H5Tcopy(H5T_C_S1));
  H5Tset_size(type.get(), std::max<std::size_t>(value.size(), 1));
  H5Tset_strpad(type.get(), H5T_STR_NULLPAD);
  H5Tset_cset(type.get(), H5T_CSET_UTF8);
  if (H5Aexists(obj, name) > 0) {
    Hid a(H5Aopen(obj, name, H5P_DEFAULT));
    Hid have(a.valid() ? H5Aget_type(a.get()) : -1);
    if (have.valid() && H5Tget_class(have.get()) == H5T_STRING &&
        H5Tis_variable_str(have.get()) == 0 && H5Tget_size(have.get()) == H5Tget_size(type.get())) {
      if (H5Awrite(a.get(), type.get(), value.c_str()) < 0) return attr_error("write", name);
      return ok();
    }
  }
  Hid space(H5Screate(H5S_SCALAR));
  auto a = fresh_attr(obj, name, type.get(), space.get());
  if (!a) return a.error();
  if (H5Awrite(a->get(), type.get(), value.c_str()) < 0) return attr_error("write", name);
  return ok();
}

void hdf5_quiet() {
  static std::once_flag once;
  // --log-level debug keeps HDF5's own error stack (printed on stderr where it fails).
  std::call_once(once, [] {
    if (log::level() != log::Level::kDebug) H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  });
}

std::string hdf5_version() {
  unsigned maj = 0, min = 0, rel = 0;
  H5get_libversion(&maj, &min, &rel);
  return std::to_string(maj) + "." + std::to_string(min) + "." + std::to_string(rel);
}

Result<void> write_string_attr(hid_t obj, const char* name, const std::string& value) {
  Hid type = vlen_string_type();
  Hid space(H5Screate(H5S_SCALAR));
  auto a = fresh_attr(obj, name, type.get(), space.get());
  if (!a) return a.error();
  const char* p = value.c_str();
  if (H5Awrite(a->get(), type.get(), &p) < 0) return attr_error("write", name);
  return ok();
}

Result<void> write_strings_attr(hid_t obj, const char* name, const std::vector<std::string>& v) {
  Hid type = vlen_string_type();
  hsize_t n = v.size();
  Hid space(n ? H5Screate_simple(1, &n, nullptr) : H5Screate(H5S_NULL));
  auto a = fresh_attr(obj, name, type.get(), space.get());
  if (!a) return a.error();
  if (!n) return ok();
  std::vector<const char*> ps;
  for (const auto& s : v) ps.push_back(s.c_str());
  if (H5Awrite(a->get(), type.get(), ps.data()) < 0) return attr_error("write", name);
  return ok();
}

Result<void> write_u64_attr(hid_t obj, const char* name, std::uint64_t value) {
  if (H5Aexists(obj, name) > 0) {  // rewritten in place: rows_committed moves on this way
    Hid a(H5Aopen(obj, name, H5P_DEFAULT));
    if (!a.valid() || H5Awrite(a.get(), H5T_NATIVE_UINT64, &value) < 0)
      return attr_error("write", name);
    return ok();
  }
  Hid space(H5Screate(H5S_SCALAR));
  auto a = fresh_attr(obj, name, H5T_STD_U64LE, space.get());
  if (!a) return a.error();
  if (H5Awrite(a->get(), H5T_NATIVE_UINT64, &value) < 0) return attr_error("write", name);
  return ok();
}

Result<std::vector<std::string>> read_strings_attr(hid_t obj, const char* name) {
  if (H5Aexists(obj, name) <= 0)
    return Error::bad_input(std::string("no attribute '") + name + "'");
  Hid a(H5Aopen(obj, name, H5P_DEFAULT));
  Hid ftype(H5Aget_type(a.get()));
  if (H5Tget_class(ftype.get()) != H5T_STRING)
    return Error::bad_input(std::string("attribute '") + name + "' is not text");
  Hid space(H5Aget_space(a.get()));
  const auto n = H5Sget_simple_extent_npoints(space.get());
  std::vector<std::string> out;
  if (n <= 0) return out;
  if (H5Tis_variable_str(ftype.get()) > 0) {
    Hid type = vlen_string_type();
    std::vector<char*> ps(static_cast<std::size_t>(n), nullptr);
    if (H5Aread(a.get(), type.get(), ps.data()) < 0) return attr_error("read", name);
    for (char* p : ps) out.emplace_back(p ? p : "");
    H5Dvlen_reclaim(type.get(), space.get(), H5P_DEFAULT, ps.data());
    return out;
  }
  const std::size_t size = H5Tget_size(ftype.get());  // fixed-width strings (h5py's bytes)
  std::vector<char> buf(size * static_cast<std::size_t>(n));
  if (H5Aread(a.get(), ftype.get(), buf.data()) < 0) return attr_error("read", name);
  for (hssize_t i = 0; i < n; ++i) {
    const char* p = buf.data() + i * size;
    out.emplace_back(p, strnlen(p, size));
  }
  return out;
}

Result<std::string> read_string_attr(hid_t obj, const char* name) {
  auto v = read_strings_attr(obj, name);
  if (!v) return v.error();
  if (v->size() != 1)
    return Error::bad_input(std::string("attribute '") + name + "' is not one text");
  return (*v)[0];
}

Result<std::uint64_t> read_u64_attr(hid_t obj, const char* name) {
  if (H5Aexists(obj, name) <= 0)
    return Error::bad_input(std::string("no attribute '") + name + "'");
  Hid a(H5Aopen(obj, name, H5P_DEFAULT));
  Hid ftype(H5Aget_type(a.get()));
  if (H5Tget_class(ftype.get()) != H5T_INTEGER)
    return Error::bad_input(std::string("attribute '") + name + "' is not an integer");
  std::uint64_t v = 0;
  if (H5Aread(a.get(), H5T_NATIVE_UINT64, &v) < 0) return attr_error("read", name);
  return v;
}

Result<Hid> create_rows_dataset(hid_t parent, const std::string& name, hid_t type,
                                const std::vector<std::uint64_t>& shape, const void* fill,
                                const data::Compression& c) {
  const int rank = static_cast<int>(shape.size()) + 1;
  std::vector<hsize_t> dims(rank, 0), max(rank, 0), chunk(rank, 0);
  max[0] = H5S_UNLIMITED;
  std::uint64_t row_bytes = H5Tget_size(type);
  for (std::size_t i = 0; i < shape.size(); ++i) {
    dims[i + 1] = max[i + 1] = chunk[i + 1] = shape[i];
    row_bytes *= std::max<std::uint64_t>(shape[i], 1);
  }
  chunk[0] = data::chunk_rows_for(row_bytes);
  Hid space(H5Screate_simple(rank, dims.data(), max.data()));
  Hid dcpl(H5Pcreate(H5P_DATASET_CREATE));
  H5Pset_chunk(dcpl.get(), rank, chunk.data());
  switch (c.kind) {
    case data::Compression::Kind::kNone:
      break;
    case data::Compression::Kind::kGzip:
      H5Pset_shuffle(dcpl.get());
      H5Pset_deflate(dcpl.get(), static_cast<unsigned>(c.level));
      break;
    case data::Compression::Kind::kLz4: {
      // Optional: without the plugin, a chunk HDF5 itself writes is stored unfiltered (its
      // filter mask says so); the chunks collect compresses itself are LZ4 either way.
      const unsigned block_size = 0;  // the filter's default block
      H5Pset_filter(dcpl.get(), kLz4Filter, H5Z_FLAG_OPTIONAL, 1, &block_size);
      break;
    }
  }
  if (fill) H5Pset_fill_value(dcpl.get(), type, fill);
  Hid lcpl(H5Pcreate(H5P_LINK_CREATE));
  H5Pset_create_intermediate_group(lcpl.get(), 1);
  Hid d(H5Dcreate2(parent, name.c_str(), type, space.get(), lcpl.get(), dcpl.get(), H5P_DEFAULT));
  if (!d.valid()) return Error::runtime("HDF5: cannot create dataset '" + name + "'");
  return d;
}

std::vector<std::uint64_t> dataset_dims(hid_t dataset) {
  Hid space(H5Dget_space(dataset));
  const int rank = H5Sget_simple_extent_ndims(space.get());
  std::vector<hsize_t> dims(rank > 0 ? rank : 0);
  if (rank > 0) H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
  return {dims.begin(), dims.end()};
}

namespace {

// The file and memory dataspaces of rows [first, first + rows) of `dataset`.
std::pair<Hid, Hid> row_spaces(hid_t dataset, std::uint64_t first, std::uint64_t rows) {
  Hid fspace(H5Dget_space(dataset));
  const int rank = H5Sget_simple_extent_ndims(fspace.get());
  std::vector<hsize_t> dims(rank > 0 ? rank : 1, 0);
  if (rank > 0) H5Sget_simple_extent_dims(fspace.get(), dims.data(), nullptr);
  std::vector<hsize_t> start(dims.size(), 0), count(dims.begin(), dims.end());
  start[0] = first;
  count[0] = rows;
  H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr);
  Hid mspace(H5Screate_simple(static_cast<int>(count.size()), count.data(), nullptr));
  return {std::move(fspace), std::move(mspace)};
}

}  // namespace

Result<void> write_rows(hid_t dataset, hid_t mem_type, std::uint64_t first, std::uint64_t rows,
                        const void* data) {
  auto dims = dataset_dims(dataset);
  std::vector<hsize_t> size(dims.begin(), dims.end());
  size[0] = first + rows;
  if (H5Dset_extent(dataset, size.data()) < 0) return Error::runtime("HDF5: cannot extend");
  if (rows == 0) return ok();
  return overwrite_rows(dataset, mem_type, first, rows, data);
}

Result<void> overwrite_rows(hid_t dataset, hid_t mem_type, std::uint64_t first, std::uint64_t rows,
                            const void* data) {
  if (rows == 0) return ok();
  auto [fspace, mspace] = row_spaces(dataset, first, rows);
  if (H5Dwrite(dataset, mem_type, mspace.get(), fspace.get(), H5P_DEFAULT, data) < 0)
    return Error::runtime("HDF5: cannot write rows");
  return ok();
}

Result<void> read_rows(hid_t dataset, hid_t mem_type, std::uint64_t first, std::uint64_t rows,
                       void* data) {
  if (rows == 0) return ok();
  auto [fspace, mspace] = row_spaces(dataset, first, rows);
  if (H5Dread(dataset, mem_type, mspace.get(), fspace.get(), H5P_DEFAULT, data) < 0)
    return Error::runtime("HDF5: cannot read rows");
  return ok();
}

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace merlin::hdf5
