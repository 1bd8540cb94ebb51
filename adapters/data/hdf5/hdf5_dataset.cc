#include "adapters/data/hdf5/hdf5_dataset.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>

#include "adapters/data/hdf5/hdf5_chunks.h"
#include "adapters/data/hdf5/hdf5_handle.h"
#include "adapters/data/hdf5/hdf5_types.h"
#include "merlin/core/util/crc32c.h"
#include "merlin/core/util/isolated_call.h"
#include "merlin/core/util/log.h"
#include "merlin/core/util/version.h"

namespace merlin::hdf5 {
namespace {

constexpr const char* kFormat = "merlin-collect";
constexpr std::uint64_t kFormatVersion = 1;
constexpr std::uint64_t kIdChunk = 1 << 16;

std::string field_path(const std::string& name) { return "fields/" + name; }
// The mask of a field without NaN (integers, bool, string): 1 where a row has no value.
std::string mask_path(const std::string& name) { return "missing/" + name; }

// What a file says of itself and never changes after it is made, as they are written: the
// `header_crc32c` attribute holds the CRC32C of this text, so damage to any of it is found
// before it is trusted (each value is preceded by its length, so no two headers collide).
// A file with an `/iteration` column says so in its header too (files without one keep the
// header text they always had).
std::string header_text(const std::vector<std::pair<const char*, std::vector<std::string>>>& a,
                        bool iterations) {
  std::string t;
  for (const auto& [name, values] : a) {
    t += name;
    t += '\0';
    for (const auto& v : values) t += std::to_string(v.size()) + ":" + v;
    t += '\0';
  }
  if (iterations) t += std::string("iteration") + '\0' + '\0';
  return t;
}

class Hdf5Dataset final : public data::DatasetSink {
 public:
  Hdf5Dataset(std::string path, data::DatasetLayout layout)
      : path_(std::move(path)), layout_(std::move(layout)) {}
  ~Hdf5Dataset() override {
    close();
    if (!tmp_.empty()) ::unlink(tmp_.c_str());  // made, never appended to: leave nothing
    if (lock_fd_ >= 0) ::close(lock_fd_);
  }

  // The writer lock (an open file description lock on a byte far past the data, which HDF5
  // never locks): held by the collect that writes the file, for the whole time it may write.
  // HDF5's own lock is released when SWMR writing starts, so this is what keeps a second
  // collect out, and what tells a killed writer's file (no lock) from a live one's.
  Result<void> lock_writer(const std::string& file) {
    if (lock_fd_ >= 0) return ok();
    const int fd = ::open(file.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0) return Error::runtime("cannot open " + file + ": " + std::strerror(errno));
    struct flock l {};
    l.l_type = F_WRLCK;
    l.l_whence = SEEK_SET;
    l.l_start = off_t{1} << 62;
    l.l_len = 1;
    if (::fcntl(fd, F_OFD_SETLK, &l) != 0) {
      const int e = errno;
      ::close(fd);
      if (e == EAGAIN || e == EACCES)
        return Error::bad_input(path_ +
                                ": another merlin collect is writing it; wait for it to end, or "
                                "give another -o");
      return Error::runtime("cannot lock " + file + ": " + std::strerror(e));
    }
    lock_fd_ = fd;
    return ok();
  }

  const data::DatasetLayout& layout() const override { return layout_; }
  std::uint64_t rows() const override { return rows_; }

  // A new file under its temporary name, with every dataset and attribute.
  Result<void> create(const data::DatasetOrigin& origin) {
    tmp_.clear();
    created_ = utc_now();
    auto created = create_temp_beside(path_, tmp_, /*swmr_format=*/true);
    if (!created) return created.error();
    file_ = std::move(*created);
    if (auto r = lock_writer(tmp_); !r) return r;
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
          write_string_attr(f, "created", created_), write_fixed_string_attr(f, "updated", created_),
          write_u64_attr(f, "rows_committed", 0), write_u64_attr(f, "rows_rewritten", 0)})
      if (!r) return named(r.error());
    origin_ = origin;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const std::uint64_t no_id = std::numeric_limits<std::uint64_t>::max();
    const std::uint8_t missing = 0;
    auto ids = create_rows_dataset(f, "sample_ids", H5T_STD_U64LE, {}, &no_id);
    auto status = create_rows_dataset(f, "status", H5T_STD_U8LE, {}, &missing);
    if (!ids || !status) return named(Error::runtime("HDF5: cannot create the datasets"));
    ids_ = std::move(*ids);
    status_ = std::move(*status);
    if (layout_.iterations) {
      const std::uint32_t none = 0;
      auto it = create_rows_dataset(f, "iteration", H5T_STD_U32LE, {}, &none);
      if (!it) return named(it.error());
      iter_ = std::move(*it);
    }
    if (!layout_.input_columns.empty()) {
      auto in =
          create_rows_dataset(f, "inputs", H5T_IEEE_F64LE, {layout_.input_columns.size()}, &nan);
      if (!in) return named(in.error());
      inputs_ = std::move(*in);
      if (auto r = write_strings_attr(inputs_.get(), "columns", layout_.input_columns); !r)
        return named(r.error());
    }
    if (auto r = write_u64_attr(f, "header_crc32c", crc32c(header())); !r) return named(r.error());
    for (const auto& fl : layout_.fields) {
      Hid type = file_type_of(fl.type);
      const float nan32 = std::numeric_limits<float>::quiet_NaN();
      const void* fill = fl.type == data::DType::kFloat64   ? static_cast<const void*>(&nan)
                         : fl.type == data::DType::kFloat32 ? static_cast<const void*>(&nan32)
                                                            : nullptr;
      auto d = create_rows_dataset(f, field_path(fl.name), type.get(), fl.shape, fill,
                                   layout_.compression);
      if (!d) return named(d.error());
      if (auto r = write_string_attr(d->get(), "dtype", data::dtype_name(fl.type)); !r)
        return named(r.error());
      fields_.push_back(std::move(*d));
      masks_.emplace_back();
      if (data::needs_mask(fl.type)) {
        const std::uint8_t gone = 1;
        auto m = create_rows_dataset(f, mask_path(fl.name), H5T_STD_U8LE, fl.shape, &gone,
                                     layout_.compression);
        if (!m) return named(m.error());
        masks_.back() = std::move(*m);
      }
    }
    read_codecs();
    if (H5Fflush(f, H5F_SCOPE_GLOBAL) < 0) return named(Error::runtime("cannot flush"));
    // The schema is final (the fields came from the first sample read): from here on only
    // rows are added and attributes rewritten in place, so readers may follow it (SWMR).
    if (auto r = start_swmr_write(f); !r) return named(r.error());
    return ok();
  }

  // An existing file, read-only: checks it is ours and reads its layout.
  Result<void> open() {
    if (H5Fis_hdf5(path_.c_str()) <= 0)
      return Error::bad_input(path_ +
                              ": not an HDF5 file (merlin collect appends only to files "
                              "it made; give another -o)");
    // Opened after the writer lock was taken (open_dataset), or in the probe's child: a
    // superblock that still says "open for write" is a killed writer's.
    Hid fapl = open_fapl(false, /*clear_flags=*/true);
    file_ = Hid(H5Fopen(path_.c_str(), H5F_ACC_RDONLY, fapl.get()));
    if (!file_.valid())
      return Error::bad_input(path_ + ": HDF5 cannot open it (damaged?); give another -o");
    read_only_ = true;
    swmr_ = swmr_capable(file_.get());
    return read_layout();
  }

  // Everything open() and a first append read of the file, read once: the rows' ids and
  // status, the last committed row and the chunk index of every dataset.
  Result<void> read_everything() {
    if (auto r = open(); !r) return r;
    if (auto r = for_each_row([](std::uint64_t, std::uint64_t, data::SampleStatus) {}); !r)
      return r;
    std::vector<hid_t> all = {ids_.get(), status_.get()};
    if (iter_.valid()) all.push_back(iter_.get());
    if (inputs_.valid()) all.push_back(inputs_.get());
    for (const auto& d : fields_) all.push_back(d.get());
    for (const auto& d : masks_)
      if (d.valid()) all.push_back(d.get());
    for (hid_t d : all) {
      auto dims = dataset_dims(d);
      if (rows_ > 0)
        if (auto r = read_any_row(d, rows_ - 1); !r)
          return damaged("its last committed row cannot be read");
      hsize_t chunks = 0;
      Hid space(H5Dget_space(d));  // HDF5 1.10 takes no H5S_ALL here
      if (H5Dget_num_chunks(d, space.get(), &chunks) < 0)
        return damaged("its chunk index cannot be read");
      std::vector<hsize_t> offset(dims.size());
      for (hsize_t c = 0; c < chunks; ++c) {
        unsigned mask = 0;
        haddr_t addr = 0;
        hsize_t size = 0;
        if (H5Dget_chunk_info(d, space.get(), c, offset.data(), &mask, &addr, &size) < 0)
          return damaged("its chunk index cannot be read");
      }
    }
    return ok();
  }

  Result<void> for_each_row(
      const std::function<void(std::uint64_t, std::uint64_t, data::SampleStatus)>& each) override {
    return for_each_keyed_row([&](std::uint64_t row, std::uint64_t id, std::uint32_t,
                                  data::SampleStatus st) { each(row, id, st); });
  }

  Result<void> for_each_keyed_row(
      const std::function<void(std::uint64_t, std::uint64_t, std::uint32_t, data::SampleStatus)>&
          each) override {
    std::vector<std::uint64_t> ids;
    std::vector<std::uint8_t> status;
    std::vector<std::uint32_t> iterations;
    for (std::uint64_t first = 0; first < rows_; first += kIdChunk) {
      const std::uint64_t count = std::min(kIdChunk, rows_ - first);
      ids.resize(count);
      status.resize(count);
      iterations.assign(count, 1);
      if (!read_rows(ids_.get(), H5T_NATIVE_UINT64, first, count, ids.data()))
        return damaged("/sample_ids cannot be read");
      if (!read_rows(status_.get(), H5T_NATIVE_UINT8, first, count, status.data()))
        return damaged("/status cannot be read");
      if (iter_.valid() &&
          !read_rows(iter_.get(), H5T_NATIVE_UINT32, first, count, iterations.data()))
        return damaged("/iteration cannot be read");
      for (std::uint64_t i = 0; i < count; ++i) {
        if (status[i] > static_cast<std::uint8_t>(data::SampleStatus::kMalformed))
          return damaged("row " + std::to_string(first + i) + " has status " +
                         std::to_string(status[i]) + ", not one of 0 to 3");
        if (iter_.valid() && iterations[i] == 0)
          return damaged("row " + std::to_string(first + i) + " has iteration 0 (they start at 1)");
        each(first + i, ids[i], iterations[i], static_cast<data::SampleStatus>(status[i]));
      }
    }
    return ok();
  }

  std::uint64_t rows_rewritten() const override { return rewritten_; }
  void set_compress_threads(unsigned threads) override { threads_ = std::max(1u, threads); }

  Result<void> rewrite(const std::vector<std::uint64_t>& rows, const data::RowBatch& b) override {
    if (read_only_)
      if (auto r = reopen_for_writing(); !r) return r;
    const std::uint64_t n = rows.size();
    if (b.status.size() != n || b.fields.size() != layout_.fields.size())
      return named(Error::runtime("a rewrite not of the dataset's layout"));
    for (std::size_t i = 0; i < fields_.size(); ++i)
      if (!fits(b.fields[i], layout_.fields[i], n))
        return named(Error::runtime("a rewrite not of the dataset's layout"));
    for (auto row : rows)
      if (row >= rows_) return named(Error::runtime("a rewrite past the committed rows"));
    // Runs of consecutive rows are written at once: the fields first, the status last.
    auto each_run = [&](const std::function<Result<void>(std::uint64_t, std::uint64_t)>& run) {
      for (std::uint64_t i = 0; i < n;) {
        std::uint64_t k = 1;
        while (i + k < n && rows[i + k] == rows[i] + k) ++k;
        if (auto r = run(i, k); !r) return r;
        i += k;
      }
      return Result<void>(ok());
    };
    Result<void> r = ok();
    for (std::size_t f = 0; r && f < fields_.size(); ++f) {
      const std::uint64_t w = layout_.fields[f].size();
      const auto t = layout_.fields[f].type;
      r = each_run([&](std::uint64_t i, std::uint64_t k) {
        auto w1 = write_column(fields_[f].get(), t, rows[i], k, w, b.fields[f], i * w, false);
        if (w1 && masks_[f].valid())
          w1 = overwrite_rows(masks_[f].get(), H5T_NATIVE_UINT8, rows[i], k,
                              b.fields[f].missing.data() + i * w);
        return w1;
      });
    }
    if (r && H5Fflush(file_.get(), H5F_SCOPE_GLOBAL) < 0) r = Error::runtime("cannot flush");
    if (r)
      r = each_run([&](std::uint64_t i, std::uint64_t k) {
        return overwrite_rows(status_.get(), H5T_NATIVE_UINT8, rows[i], k, b.status.data() + i);
      });
    if (r && H5Fflush(file_.get(), H5F_SCOPE_GLOBAL) < 0) r = Error::runtime("cannot flush");
    if (r) r = write_u64_attr(file_.get(), "rows_rewritten", rewritten_ + n);
    if (r) r = write_fixed_string_attr(file_.get(), "updated", utc_now());
    if (r && H5Fflush(file_.get(), H5F_SCOPE_GLOBAL) < 0) r = Error::runtime("cannot flush");
    if (!r) return named(r.error());
    rewritten_ += n;
    return ok();
  }

  Result<void> append(const data::RowBatch& b) override {
    if (read_only_)
      if (auto r = reopen_for_writing(); !r) return r;
    const std::uint64_t n = b.rows();
    if (b.status.size() != n || b.inputs.size() != n * layout_.input_columns.size() ||
        b.fields.size() != layout_.fields.size() ||
        b.iterations.size() != (layout_.iterations ? n : 0))
      return named(Error::runtime("a batch not of the dataset's layout"));
    for (std::size_t i = 0; i < fields_.size(); ++i)
      if (!fits(b.fields[i], layout_.fields[i], n))
        return named(Error::runtime("a batch not of the dataset's layout"));
    // Every other dataset is written and flushed before /sample_ids grows: a reader that
    // follows the file live (SWMR) takes /sample_ids' length as the rows it may read, and
    // finds them in every dataset.
    Result<void> r = ok();
    for (std::size_t i = 0; r && i < fields_.size(); ++i) {
      r = write_field(i, layout_.fields[i], n, b.fields[i]);
      if (r && masks_[i].valid())
        r = write_rows(masks_[i].get(), H5T_NATIVE_UINT8, rows_, n, b.fields[i].missing.data());
    }
    if (r && inputs_.valid())
      r = write_rows(inputs_.get(), H5T_NATIVE_DOUBLE, rows_, n, b.inputs.data());
    if (r && iter_.valid())
      r = write_rows(iter_.get(), H5T_NATIVE_UINT32, rows_, n, b.iterations.data());
    if (r) r = write_rows(status_.get(), H5T_NATIVE_UINT8, rows_, n, b.status.data());
    for (std::size_t i = 0; r && i < fields_.size(); ++i) {
      r = flush_dataset(fields_[i].get());
      if (r && masks_[i].valid()) r = flush_dataset(masks_[i].get());
    }
    if (r && inputs_.valid()) r = flush_dataset(inputs_.get());
    if (r && iter_.valid()) r = flush_dataset(iter_.get());
    if (r) r = flush_dataset(status_.get());
    if (r) r = write_rows(ids_.get(), H5T_NATIVE_UINT64, rows_, n, b.ids.data());
    if (r) r = flush_dataset(ids_.get());
    if (!r) return named(r.error());
    // The data first, then the count that makes it part of the file.
    if (H5Fflush(file_.get(), H5F_SCOPE_GLOBAL) < 0) return named(Error::runtime("cannot flush"));
    if (auto c = write_u64_attr(file_.get(), "rows_committed", rows_ + n); !c)
      return named(c.error());
    if (auto u = write_fixed_string_attr(file_.get(), "updated", utc_now()); !u)
      return named(u.error());
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
  // Whether a column holds n rows of the field (and its mask when it has one).
  static bool fits(const data::FieldColumn& c, const data::FieldLayout& fl, std::uint64_t n) {
    const std::uint64_t want = n * fl.size();
    const std::uint64_t held = fl.type == data::DType::kString
                                   ? c.strings.size()
                                   : c.bytes.size() / data::dtype_size(fl.type);
    return held == want && (!data::needs_mask(fl.type) || c.missing.size() == want);
  }

  // Appends n rows of field i at row rows_: whole chunks straight to the file (encoded by
  // threads_ threads), the rows before and after them through H5Dwrite.
  Result<void> write_field(std::size_t i, const data::FieldLayout& fl, std::uint64_t n,
                           const data::FieldColumn& c) {
    if (fl.type == data::DType::kString)
      return write_column(fields_[i].get(), fl.type, rows_, n, fl.size(), c, 0, true);
    Hid mem = mem_type_of(fl.type);
    auto r = append_rows(fields_[i].get(), codecs_[i], mem.get(), data::dtype_size(fl.type),
                         fl.size(), n, c.bytes.data());
    if (r && masks_[i].valid())
      r = append_rows(masks_[i].get(), mask_codecs_[i], H5T_NATIVE_UINT8, 1, fl.size(), n,
                      c.missing.data());
    return r;
  }

  Result<void> append_rows(hid_t d, const ChunkCodec& codec, hid_t mem, std::size_t element,
                           std::uint64_t width, std::uint64_t n, const unsigned char* data) {
    const bool direct = codec.kind != ChunkCodec::Kind::kOther && codec.chunk_rows > 0 &&
                        std::endian::native == std::endian::little;
    if (!direct) return write_rows(d, mem, rows_, n, data);
    if (auto r = write_rows(d, mem, rows_ + n, 0, nullptr); !r) return r;  // the extent
    const std::uint64_t cr = codec.chunk_rows, end = rows_ + n;
    const std::uint64_t a = std::min(end, (rows_ + cr - 1) / cr * cr);
    const std::uint64_t b = std::max(a, end / cr * cr);
    const std::size_t row_bytes = width * element;
    if (a > rows_)
      if (auto r = overwrite_rows(d, mem, rows_, a - rows_, data); !r) return r;
    if (b > a)
      if (auto r = write_whole_chunks(d, codec, a, (b - a) / cr, row_bytes, element,
                                      data + (a - rows_) * row_bytes, threads_);
          !r)
        return r;
    if (end > b) return overwrite_rows(d, mem, b, end - b, data + (b - rows_) * row_bytes);
    return ok();
  }

  // How each field (and mask) is chunked and filtered, for append_rows.
  void read_codecs() {
    codecs_.clear();
    mask_codecs_.clear();
    for (std::size_t i = 0; i < fields_.size(); ++i) {
      codecs_.push_back(chunk_codec(fields_[i].get()));
      mask_codecs_.push_back(masks_[i].valid() ? chunk_codec(masks_[i].get()) : ChunkCodec{});
    }
  }

  Error named(Error e) const {
    e.message = path_ + ": " + e.message;
    return e;
  }

  Error damaged(const std::string& why) const {
    return Error::bad_input(path_ + ": damaged (" + why +
                            "); merlin collect does not append to it: give another -o, or "
                            "move the file away to collect anew");
  }

  // The text header_crc32c covers: the attributes that never change after the file is made.
  std::string header() const {
    return header_text({{"format", {kFormat}},
                        {"format_version", {std::to_string(kFormatVersion)}},
                        {"study", {origin_.study}},
                        {"spec", {origin_.spec_text}},
                        {"vars", {origin_.vars}},
                        {"workspace", {origin_.workspace}},
                        {"step", {layout_.step}},
                        {"files", layout_.files},
                        {"fields", field_names()},
                        {"input_columns", layout_.input_columns},
                        {"created", {created_}}},
                       layout_.iterations);
  }

  std::vector<std::string> field_names() const {
    std::vector<std::string> names;
    for (const auto& f : layout_.fields) names.push_back(f.name);
    return names;
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
    auto rewritten = read_u64_attr(f, "rows_rewritten");  // absent in files made before it existed
    rewritten_ = rewritten ? *rewritten : 0;
    ids_ = Hid(H5Dopen2(f, "sample_ids", H5P_DEFAULT));
    status_ = Hid(H5Dopen2(f, "status", H5P_DEFAULT));
    if (!ids_.valid() || !status_.valid()) return not_ours("no /sample_ids or /status");
    auto short_of = [&](hid_t d) { return dataset_dims(d).empty() || dataset_dims(d)[0] < rows_; };
    if (short_of(ids_.get()) || short_of(status_.get()))
      return not_ours("fewer rows than rows_committed");
    if (H5Lexists(f, "iteration", H5P_DEFAULT) > 0) {
      iter_ = Hid(H5Dopen2(f, "iteration", H5P_DEFAULT));
      if (!iter_.valid() || short_of(iter_.get())) return not_ours("a damaged /iteration");
      layout_.iterations = true;
    }
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
      const auto type = dataset_dtype(d.get());
      if (!type) return not_ours("/" + field_path(name) + " of a type merlin collect does not write");
      layout_.fields.push_back({name, {dims.begin() + 1, dims.end()}, *type});
      fields_.push_back(std::move(d));
      masks_.emplace_back();
      if (data::needs_mask(*type)) {
        Hid m(H5Dopen2(f, mask_path(name).c_str(), H5P_DEFAULT));
        auto mdims = m.valid() ? dataset_dims(m.get()) : std::vector<std::uint64_t>{};
        if (mdims != dims && (mdims.empty() || mdims[0] < rows_))
          return not_ours("no or a damaged /" + mask_path(name));
        masks_.back() = std::move(m);
      }
    }
    return check_header();
  }

  // The header's checksum, when the file has one (files made before it existed have none).
  Result<void> check_header() {
    const hid_t f = file_.get();
    if (H5Aexists(f, "header_crc32c") <= 0) return ok();
    auto want = read_u64_attr(f, "header_crc32c");
    auto study = read_string_attr(f, "study");
    auto spec = read_string_attr(f, "spec");
    auto vars = read_string_attr(f, "vars");
    auto workspace = read_string_attr(f, "workspace");
    auto created = read_string_attr(f, "created");
    if (!want || !study || !spec || !vars || !workspace || !created)
      return damaged("its header attributes cannot be read");
    origin_ = {*study, *spec, *vars, *workspace};
    created_ = *created;
    if (crc32c(header()) != *want)
      return damaged("its header attributes do not match their checksum header_crc32c");
    return ok();
  }

  // Closes the read-only handles, opens for writing, drops rows past rows_committed.
  Result<void> reopen_for_writing() {
    close();
    // A file of the latest format (this merlin's) is written with SWMR; one of the 1.8 format
    // (an older merlin's) is appended to as before, without it: readers must not open it
    // while it is written.
    if (auto r = lock_writer(path_); !r) return r;
    Hid fapl = open_fapl(swmr_, /*clear_flags=*/true);
    file_ = Hid(H5Fopen(path_.c_str(), H5F_ACC_RDWR, fapl.get()));
    if (!file_.valid()) return Error::runtime("cannot open " + path_ + " for writing (HDF5)");
    if (!swmr_)
      log::warn(
          "collect: {} was made by an older merlin (HDF5 1.8 file format): appending without "
          "SWMR, so it cannot be read while collect writes it (collect into a new file to read "
          "it live)",
          path_);
    const hid_t f = file_.get();
    ids_ = Hid(H5Dopen2(f, "sample_ids", H5P_DEFAULT));
    status_ = Hid(H5Dopen2(f, "status", H5P_DEFAULT));
    if (layout_.iterations) {
      iter_ = Hid(H5Dopen2(f, "iteration", H5P_DEFAULT));
      if (!iter_.valid()) return named(Error::runtime("a dataset went missing"));
    }
    if (!layout_.input_columns.empty()) inputs_ = Hid(H5Dopen2(f, "inputs", H5P_DEFAULT));
    for (const auto& fl : layout_.fields) {
      fields_.emplace_back(H5Dopen2(f, field_path(fl.name).c_str(), H5P_DEFAULT));
      masks_.emplace_back();
      if (data::needs_mask(fl.type))
        masks_.back() = Hid(H5Dopen2(f, mask_path(fl.name).c_str(), H5P_DEFAULT));
    }
    std::vector<hid_t> all = {ids_.get(), status_.get()};
    if (iter_.valid()) all.push_back(iter_.get());
    if (inputs_.valid()) all.push_back(inputs_.get());
    for (const auto& d : fields_) all.push_back(d.get());
    for (std::size_t i = 0; i < masks_.size(); ++i)
      if (data::needs_mask(layout_.fields[i].type)) all.push_back(masks_[i].get());
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
    read_codecs();
    if (swmr_)
      if (auto r = start_swmr_write(f); !r) return named(r.error());
    read_only_ = false;
    return ok();
  }

  void close() {
    fields_.clear();
    masks_.clear();
    inputs_.reset();
    iter_.reset();
    status_.reset();
    ids_.reset();
    if (file_.valid()) H5Fflush(file_.get(), H5F_SCOPE_GLOBAL);
    file_.reset();
  }

  int lock_fd_ = -1;         ///< the writer lock (lock_writer)
  bool read_only_ = false;  ///< opened, not appended to yet
  bool swmr_ = true;        ///< written with SWMR (false: a 1.8-format file of an older merlin)
  std::string path_, tmp_;
  data::DatasetLayout layout_;
  data::DatasetOrigin origin_;
  std::string created_;
  std::uint64_t rows_ = 0;
  std::uint64_t rewritten_ = 0;
  Hid file_, ids_, status_, iter_, inputs_;
  std::vector<Hid> fields_;
  std::vector<Hid> masks_;  ///< per field: its mask, or invalid (a float field)
  std::vector<ChunkCodec> codecs_, mask_codecs_;
  unsigned threads_ = 1;
};

// Reads the file as open() and a first append will, in a child process: a damaged file can
// make libhdf5 crash (H5HG_read on a mangled global heap) or loop, and it is only trusted in
// this process once that child came through. The limit grows with the file's size.
Result<void> probe_in_child(const std::string& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  const auto limit = std::chrono::seconds(60) + std::chrono::seconds(ec ? 0 : size >> 23);
  auto out = isolated_call(
      [&](std::string& message) {
        Hdf5Dataset d(path, data::DatasetLayout{});
        auto r = d.read_everything();
        if (r) return 0;
        message = r.error().message;
        return r.error().code == ErrorCode::kBadInput ? 2 : 1;
      },
      limit);
  using How = IsolatedOutcome::How;
  const std::string advice = "; give another -o, or move the file away to collect anew";
  switch (out.how) {
    case How::kExited:
      if (out.code == 0) return ok();
      if (out.code == 2) return Error::bad_input(out.message);
      return Error::runtime(out.message.empty() ? path + ": cannot be read" : out.message);
    case How::kSignaled:
      return Error::bad_input(path + ": damaged: the HDF5 library crashed reading it (signal " +
                              std::to_string(out.code) + ")" + advice);
    case How::kTimedOut:
      return Error::bad_input(path + ": damaged: the HDF5 library did not finish reading it in " +
                              std::to_string(limit.count()) + " s" + advice);
    case How::kNotRun:
      break;
  }
  return Error::runtime(path + ": cannot check the file in a child process: " + out.message);
}

// A file whose SWMR writer was killed (its superblock, of version 3 or later, still says it is
// open for writing): HDF5 refuses it, and its end-of-allocation mark may be short of what the
// writer had written. Cleared as h5clear -s --increment does. Called only under the writer
// lock (no collect is writing it); any other file is left as it is.
Result<void> recover_killed_writer(const std::string& path) {
  unsigned char sb[12] = {};
  {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return ok();  // what to say of it is open()'s
    const ssize_t n = ::pread(fd, sb, sizeof sb, 0);
    ::close(fd);
    if (n != static_cast<ssize_t>(sizeof sb)) return ok();
  }
  constexpr unsigned char kSignature[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};
  constexpr unsigned char kWriteAccess = 0x01, kSwmrWriteAccess = 0x04;
  if (std::memcmp(sb, kSignature, 8) != 0 || sb[8] < 3 ||
      (sb[11] & (kWriteAccess | kSwmrWriteAccess)) == 0)
    return ok();
  log::warn("collect: {} was left open by a collect that was killed; recovering it", path);
  Hid fapl = open_fapl(/*latest=*/true, /*clear_flags=*/true);
  Hid f(H5Fopen(path.c_str(), H5F_ACC_RDWR, fapl.get()));
  if (!f.valid() || H5Fincrement_filesize(f.get(), 0) < 0)
    return Error::bad_input(path + ": damaged (left open by a killed writer, and HDF5 cannot "
                                   "recover it); give another -o, or move the file away to "
                                   "collect anew");
  return ok();
}

}  // namespace

Result<std::unique_ptr<data::DatasetSink>> open_dataset(const std::string& path) {
  hdf5_quiet();
  auto d = std::make_unique<Hdf5Dataset>(path, data::DatasetLayout{});
  if (auto r = d->lock_writer(path); !r) return r.error();
  if (auto r = recover_killed_writer(path); !r) return r.error();
  if (auto r = probe_in_child(path); !r) return r.error();
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
