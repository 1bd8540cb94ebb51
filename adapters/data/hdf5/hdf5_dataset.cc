#include "adapters/data/hdf5/hdf5_dataset.h"

#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>

#include "adapters/data/hdf5/hdf5_handle.h"
#include "merlin/util/version.h"

namespace merlin::hdf5 {
namespace {

constexpr const char* kFormat = "merlin-collect";
constexpr std::uint64_t kFormatVersion = 1;
constexpr std::uint64_t kIdChunk = 1 << 16;

std::string field_path(const std::string& name) { return "fields/" + name; }

class Hdf5Dataset final : public data::DatasetSink {
 public:
  Hdf5Dataset(std::string path, data::DatasetLayout layout)
      : path_(std::move(path)), layout_(std::move(layout)) {}
  ~Hdf5Dataset() override {
    close();
    if (!tmp_.empty()) ::unlink(tmp_.c_str());  // made, never appended to: leave nothing
  }

  const data::DatasetLayout& layout() const override { return layout_; }
  std::uint64_t rows() const override { return rows_; }

  // A new file under its temporary name, with every dataset and attribute.
  Result<void> create(const data::DatasetOrigin& origin) {
    tmp_.clear();
    auto created = create_temp_beside(path_, tmp_);
    if (!created) return created.error();
    file_ = std::move(*created);
    const hid_t f = file_.get();
    for (auto r :
         {write_string_attr(f, "format", kFormat),
          write_u64_attr(f, "format_version", kFormatVersion),
          write_string_attr(f, "study", origin.study),
          write_string_attr(f, "spec", origin.spec_text), write_string_attr(f, "vars", origin.vars),
          write_string_attr(f, "workspace", origin.workspace),
          write_string_attr(f, "step", layout_.step), write_strings_attr(f, "files", layout_.files),
          fields_attr(), write_string_attr(f, "merlin_version", merlin_version()),
          write_string_attr(f, "hdf5_version", hdf5_version()),
          write_string_attr(f, "created", utc_now()), write_string_attr(f, "updated", utc_now()),
          write_u64_attr(f, "rows_committed", 0)})
      if (!r) return named(r.error());
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const std::uint64_t no_id = std::numeric_limits<std::uint64_t>::max();
    const std::uint8_t missing = 0;
    auto ids = create_rows_dataset(f, "sample_ids", H5T_STD_U64LE, {}, &no_id);
    auto status = create_rows_dataset(f, "status", H5T_STD_U8LE, {}, &missing);
    if (!ids || !status) return named(Error::runtime("HDF5: cannot create the datasets"));
    ids_ = std::move(*ids);
    status_ = std::move(*status);
    if (!layout_.input_columns.empty()) {
      auto in =
          create_rows_dataset(f, "inputs", H5T_IEEE_F64LE, {layout_.input_columns.size()}, &nan);
      if (!in) return named(in.error());
      inputs_ = std::move(*in);
      if (auto r = write_strings_attr(inputs_.get(), "columns", layout_.input_columns); !r)
        return named(r.error());
    }
    for (const auto& fl : layout_.fields) {
      auto d = create_rows_dataset(f, field_path(fl.name), H5T_IEEE_F64LE, fl.shape, &nan);
      if (!d) return named(d.error());
      fields_.push_back(std::move(*d));
    }
    if (H5Fflush(f, H5F_SCOPE_GLOBAL) < 0) return named(Error::runtime("cannot flush"));
    return ok();
  }

  // An existing file, read-only: checks it is ours and reads its layout.
  Result<void> open() {
    if (H5Fis_hdf5(path_.c_str()) <= 0)
      return Error::bad_input(path_ +
                              ": not an HDF5 file (merlin collect appends only to files "
                              "it made; give another -o)");
    file_ = Hid(H5Fopen(path_.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
    if (!file_.valid()) return Error::runtime("cannot open " + path_ + " (HDF5)");
    read_only_ = true;
    return read_layout();
  }

  Result<void> for_each_id(const std::function<void(std::uint64_t)>& each) override {
    std::vector<std::uint64_t> buf;
    for (std::uint64_t first = 0; first < rows_; first += kIdChunk) {
      const hsize_t start = first, count = std::min(kIdChunk, rows_ - first);
      buf.resize(count);
      Hid fspace(H5Dget_space(ids_.get()));
      H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, &start, nullptr, &count, nullptr);
      Hid mspace(H5Screate_simple(1, &count, nullptr));
      if (H5Dread(ids_.get(), H5T_NATIVE_UINT64, mspace.get(), fspace.get(), H5P_DEFAULT,
                  buf.data()) < 0)
        return Error::runtime(path_ + ": cannot read /sample_ids");
      for (auto id : buf) each(id);
    }
    return ok();
  }

  Result<void> append(const data::RowBatch& b) override {
    if (read_only_)
      if (auto r = reopen_for_writing(); !r) return r;
    const std::uint64_t n = b.rows();
    if (b.status.size() != n || b.inputs.size() != n * layout_.input_columns.size() ||
        b.fields.size() != layout_.fields.size())
      return named(Error::runtime("a batch not of the dataset's layout"));
    for (std::size_t i = 0; i < fields_.size(); ++i)
      if (b.fields[i].size() != n * layout_.fields[i].size())
        return named(Error::runtime("a batch not of the dataset's layout"));
    Result<void> r = write_rows(ids_.get(), H5T_NATIVE_UINT64, rows_, n, b.ids.data());
    if (r) r = write_rows(status_.get(), H5T_NATIVE_UINT8, rows_, n, b.status.data());
    if (r && inputs_.valid())
      r = write_rows(inputs_.get(), H5T_NATIVE_DOUBLE, rows_, n, b.inputs.data());
    for (std::size_t i = 0; r && i < fields_.size(); ++i)
      r = write_rows(fields_[i].get(), H5T_NATIVE_DOUBLE, rows_, n, b.fields[i].data());
    if (!r) return named(r.error());
    // The data first, then the count that makes it part of the file.
    if (H5Fflush(file_.get(), H5F_SCOPE_GLOBAL) < 0) return named(Error::runtime("cannot flush"));
    if (auto c = write_u64_attr(file_.get(), "rows_committed", rows_ + n); !c)
      return named(c.error());
    if (auto u = write_string_attr(file_.get(), "updated", utc_now()); !u) return named(u.error());
    if (H5Fflush(file_.get(), H5F_SCOPE_GLOBAL) < 0) return named(Error::runtime("cannot flush"));
    rows_ += n;
    if (!tmp_.empty()) {
      if (std::rename(tmp_.c_str(), path_.c_str()) != 0)
        return Error::runtime("cannot rename " + tmp_ + " to " + path_ + ": " +
                              std::strerror(errno));
      tmp_.clear();
    }
    return ok();
  }

 private:
  Error named(Error e) const {
    e.message = path_ + ": " + e.message;
    return e;
  }

  Result<void> fields_attr() {
    std::vector<std::string> names;
    for (const auto& f : layout_.fields) names.push_back(f.name);
    return write_strings_attr(file_.get(), "fields", names);
  }

  Result<void> read_layout() {
    const hid_t f = file_.get();
    auto not_ours = [&](const std::string& why) {
      return Error::bad_input(path_ + ": not a dataset of merlin collect (" + why +
                              "); give another -o");
    };
    auto format = read_string_attr(f, "format");
    if (!format || *format != kFormat)
      return not_ours("no format attribute '" + std::string(kFormat) + "'");
    auto version = read_u64_attr(f, "format_version");
    if (!version || *version != kFormatVersion) return not_ours("another format_version");
    auto step = read_string_attr(f, "step");
    auto files = read_strings_attr(f, "files");
    auto names = read_strings_attr(f, "fields");
    auto committed = read_u64_attr(f, "rows_committed");
    if (!step || !files || !names || !committed) return not_ours("attributes missing");
    layout_.step = *step;
    layout_.files = *files;
    rows_ = *committed;
    ids_ = Hid(H5Dopen2(f, "sample_ids", H5P_DEFAULT));
    status_ = Hid(H5Dopen2(f, "status", H5P_DEFAULT));
    if (!ids_.valid() || !status_.valid()) return not_ours("no /sample_ids or /status");
    auto short_of = [&](hid_t d) { return dataset_dims(d).empty() || dataset_dims(d)[0] < rows_; };
    if (short_of(ids_.get()) || short_of(status_.get()))
      return not_ours("fewer rows than rows_committed");
    if (H5Lexists(f, "inputs", H5P_DEFAULT) > 0) {
      inputs_ = Hid(H5Dopen2(f, "inputs", H5P_DEFAULT));
      auto cols = inputs_.valid() ? read_strings_attr(inputs_.get(), "columns")
                                  : Result<std::vector<std::string>>(Error::bad_input("x"));
      if (!cols || short_of(inputs_.get())) return not_ours("a damaged /inputs");
      layout_.input_columns = *cols;
    }
    for (const auto& name : *names) {
      Hid d(H5Dopen2(f, field_path(name).c_str(), H5P_DEFAULT));
      if (!d.valid()) return not_ours("no dataset /" + field_path(name));
      auto dims = dataset_dims(d.get());
      if (dims.empty() || dims[0] < rows_) return not_ours("a damaged /" + field_path(name));
      layout_.fields.push_back({name, {dims.begin() + 1, dims.end()}});
      fields_.push_back(std::move(d));
    }
    return ok();
  }

  // Closes the read-only handles, opens for writing, drops rows past rows_committed.
  Result<void> reopen_for_writing() {
    close();
    file_ = Hid(H5Fopen(path_.c_str(), H5F_ACC_RDWR, H5P_DEFAULT));
    if (!file_.valid()) return Error::runtime("cannot open " + path_ + " for writing (HDF5)");
    const hid_t f = file_.get();
    ids_ = Hid(H5Dopen2(f, "sample_ids", H5P_DEFAULT));
    status_ = Hid(H5Dopen2(f, "status", H5P_DEFAULT));
    if (!layout_.input_columns.empty()) inputs_ = Hid(H5Dopen2(f, "inputs", H5P_DEFAULT));
    for (const auto& fl : layout_.fields)
      fields_.emplace_back(H5Dopen2(f, field_path(fl.name).c_str(), H5P_DEFAULT));
    std::vector<hid_t> all = {ids_.get(), status_.get()};
    if (inputs_.valid()) all.push_back(inputs_.get());
    for (const auto& d : fields_) all.push_back(d.get());
    for (hid_t d : all) {
      if (d < 0) return named(Error::runtime("a dataset went missing"));
      auto dims = dataset_dims(d);
      if (dims[0] == rows_) continue;
      // An append interrupted before its rows_committed: those rows were never part of it.
      std::vector<hsize_t> size(dims.begin(), dims.end());
      size[0] = rows_;
      if (H5Dset_extent(d, size.data()) < 0)
        return named(Error::runtime("cannot drop uncommitted rows"));
    }
    read_only_ = false;
    return ok();
  }

  void close() {
    fields_.clear();
    inputs_.reset();
    status_.reset();
    ids_.reset();
    if (file_.valid()) H5Fflush(file_.get(), H5F_SCOPE_GLOBAL);
    file_.reset();
  }

  bool read_only_ = false;  ///< opened, not appended to yet
  std::string path_, tmp_;
  data::DatasetLayout layout_;
  std::uint64_t rows_ = 0;
  Hid file_, ids_, status_, inputs_;
  std::vector<Hid> fields_;
};

}  // namespace

Result<std::unique_ptr<data::DatasetSink>> open_dataset(const std::string& path) {
  hdf5_quiet();
  auto d = std::make_unique<Hdf5Dataset>(path, data::DatasetLayout{});
  if (auto r = d->open(); !r) return r.error();
  return std::unique_ptr<data::DatasetSink>(std::move(d));
}

Result<std::unique_ptr<data::DatasetSink>> create_dataset(const std::string& path,
                                                          const data::DatasetLayout& layout,
                                                          const data::DatasetOrigin& origin) {
  hdf5_quiet();
  auto d = std::make_unique<Hdf5Dataset>(path, layout);
  if (auto r = d->create(origin); !r) return r.error();
  return std::unique_ptr<data::DatasetSink>(std::move(d));
}

}  // namespace merlin::hdf5
