// The HDF5 MatrixSink of `merlin sample -o x.h5` and the DatasetFormat that makes both.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "adapters/data/hdf5/hdf5_dataset.h"
#include "adapters/data/hdf5/hdf5_format.h"
#include "adapters/data/hdf5/hdf5_handle.h"
#include "merlin/core/util/version.h"

namespace merlin::hdf5 {
namespace {

class Hdf5Matrix final : public data::MatrixSink {
 public:
  Hdf5Matrix(std::string path, std::size_t columns) : path_(std::move(path)), columns_(columns) {}
  ~Hdf5Matrix() override {
    data_.reset();
    file_.reset();
    if (!tmp_.empty()) ::unlink(tmp_.c_str());
  }

  Result<void> create(const std::string& name, const std::vector<std::string>& labels) {
    tmp_.clear();
    auto created = create_temp_beside(path_, tmp_);
    if (!created) return created.error();
    file_ = std::move(*created);
    auto d = create_rows_dataset(file_.get(), name, H5T_IEEE_F64LE, {columns_}, nullptr);
    if (!d) return Error::runtime(path_ + ": " + d.error().message);
    data_ = std::move(*d);
    if (auto r = write_strings_attr(data_.get(), "column_labels", labels); !r)
      return Error::runtime(path_ + ": " + r.error().message);
    for (auto r : {write_string_attr(file_.get(), "merlin_version", merlin_version()),
                   write_string_attr(file_.get(), "hdf5_version", hdf5_version()),
                   write_string_attr(file_.get(), "created", utc_now())})
      if (!r) return Error::runtime(path_ + ": " + r.error().message);
    return ok();
  }

  Result<void> append(const double* values, std::uint64_t rows) override {
    if (auto r = write_rows(data_.get(), H5T_NATIVE_DOUBLE, rows_, rows, values); !r)
      return Error::runtime(path_ + ": " + r.error().message);
    rows_ += rows;
    return ok();
  }

  Result<void> set_attribute(const std::string& name, const std::string& value) override {
    if (auto r = write_string_attr(file_.get(), name.c_str(), value); !r)
      return Error::runtime(path_ + ": " + r.error().message);
    return ok();
  }

  Result<void> set_attribute(const std::string& name, std::uint64_t value) override {
    if (auto r = write_u64_attr(file_.get(), name.c_str(), value); !r)
      return Error::runtime(path_ + ": " + r.error().message);
    return ok();
  }

  Result<void> commit() override {
    data_.reset();
    if (H5Fflush(file_.get(), H5F_SCOPE_GLOBAL) < 0)
      return Error::runtime("cannot write " + path_ + ": HDF5 flush failed");
    file_.reset();
    if (std::rename(tmp_.c_str(), path_.c_str()) != 0)
      return Error::runtime("cannot rename into " + path_ + ": " + std::strerror(errno));
    tmp_.clear();
    return ok();
  }

 private:
  std::string path_, tmp_;
  std::uint64_t columns_ = 0, rows_ = 0;
  Hid file_, data_;
};

class Hdf5Format final : public data::DatasetFormat {
 public:
  Result<std::unique_ptr<data::DatasetSink>> open(const std::string& path) override {
    return open_dataset(path);
  }
  Result<std::unique_ptr<data::DatasetSink>> create(const std::string& path,
                                                    const data::DatasetLayout& layout,
                                                    const data::DatasetOrigin& origin) override {
    return create_dataset(path, layout, origin);
  }
  Result<std::unique_ptr<data::MatrixSink>> create_matrix(
      const std::string& path, const std::string& name,
      const std::vector<std::string>& column_labels) override {
    hdf5_quiet();
    auto m = std::make_unique<Hdf5Matrix>(path, column_labels.size());
    if (auto r = m->create(name, column_labels); !r) return r.error();
    return std::unique_ptr<data::MatrixSink>(std::move(m));
  }
};

}  // namespace

std::unique_ptr<data::DatasetFormat> hdf5_format() {
  hdf5_quiet();
  return std::make_unique<Hdf5Format>();
}

}  // namespace merlin::hdf5
