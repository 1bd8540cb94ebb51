#include "merlin/core/sampling/sample_writer.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "merlin/core/sampling/sample_rows.h"
#include "merlin/core/util/io_error.h"

namespace merlin::sampling {
namespace {

constexpr std::uint64_t kBlockRows = 1 << 15;

bool ends_with(const std::string& s, const char* tail) {
  const std::size_t n = std::strlen(tail);
  return s.size() >= n && s.compare(s.size() - n, n, tail) == 0;
}

// NumPy's format 1.0 header for float64 C-order (rows, cols), padded so the data is 64-byte
// aligned.
std::string npy_header(std::uint64_t rows, std::size_t cols) {
  std::string dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (" + std::to_string(rows) +
                     ", " + std::to_string(cols) + "), }";
  std::size_t total = 10 + dict.size() + 1;
  dict.append((64 - total % 64) % 64, ' ');
  dict += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\x00';
  const auto len = static_cast<std::uint16_t>(dict.size());
  out += static_cast<char>(len & 0xff);
  out += static_cast<char>(len >> 8);
  return out + dict;
}

struct FileCloser {
  void operator()(std::FILE* f) const {
    if (f) std::fclose(f);
  }
};

// The design with its real row count (a grid's is grid_side(rows)^columns).
SampleDesign sized(const SampleDesign& design) {
  SampleDesign d = design;
  d.rows = design_rows(d);
  return d;
}

}  // namespace

Error interrupted_error(const std::string& path) {
  return Error::runtime("interrupted: nothing written to " + path);
}

Result<std::uint64_t> write_sample_rows(const SampleDesign& design, const RowBlockSink& sink,
                                        const StopCheck& stopped, const std::string& path) {
  if (auto c = check_design(design); !c) return c.error();
  const SampleDesign d = sized(design);
  const std::size_t cols = d.columns.size();
  std::vector<double> block(kBlockRows * cols);
  for (std::uint64_t first = 0; first < d.rows; first += kBlockRows) {
    if (stopped && stopped()) return interrupted_error(path);
    const std::uint64_t n = std::min(kBlockRows, d.rows - first);
    fill_rows(d, first, n, block.data());
    if (auto r = sink(block.data(), n); !r) return r.error();
  }
  return d.rows;
}

Result<std::uint64_t> write_samples(const SampleDesign& design, const std::string& path,
                                    const WriteOptions& options) {
  const bool npy = ends_with(path, ".npy");
  const bool csv = ends_with(path, ".csv");
  const bool tab = ends_with(path, ".tab") || ends_with(path, ".txt");
  if (ends_with(path, ".h5") || ends_with(path, ".hdf5"))
    return Error::bad_input(path +
                            ": HDF5 sample files are written through "
                            "write_sample_rows (merlin sample -o x.h5)");
  if (!npy && !csv && !tab)
    return Error::bad_input(path + ": the file name ends in none of .npy, .csv, .tab, .txt");
  if (auto c = check_design(design); !c) return c.error();
  const SampleDesign d = sized(design);
  const std::size_t cols = d.columns.size();
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  std::unique_ptr<std::FILE, FileCloser> f(std::fopen(tmp.c_str(), "wb"));
  auto failed = [&](const char* what) {
    const int err = errno;
    // A write cut short by the interrupt's signal is the interrupt, not an I/O error.
    Error e = options.stopped && options.stopped()
                  ? interrupted_error(path)
                  : io_error("cannot " + std::string(what), path, err);
    f.reset();
    ::unlink(tmp.c_str());
    return e;
  };
  if (!f) return failed("create");
  if (npy) {
    const std::string h = npy_header(d.rows, cols);
    if (std::fwrite(h.data(), 1, h.size(), f.get()) != h.size()) return failed("write");
  } else if (options.header) {
    std::string line;
    for (std::size_t c = 0; c < cols; ++c)
      line += (c ? (csv ? "," : " ") : "") +
              (d.columns[c].name.empty() ? "x" + std::to_string(c) : d.columns[c].name);
    line += '\n';
    if (std::fwrite(line.data(), 1, line.size(), f.get()) != line.size()) return failed("write");
  }
  std::vector<double> block(kBlockRows * cols);
  std::string text;
  for (std::uint64_t first = 0; first < d.rows; first += kBlockRows) {
    if (options.stopped && options.stopped()) {
      f.reset();
      ::unlink(tmp.c_str());
      return interrupted_error(path);
    }
    const std::uint64_t n = std::min(kBlockRows, d.rows - first);
    fill_rows(d, first, n, block.data());
    if (npy) {
      if (std::fwrite(block.data(), sizeof(double), n * cols, f.get()) != n * cols)
        return failed("write");
      continue;
    }
    text.clear();
    char buf[32];
    for (std::uint64_t r = 0; r < n; ++r) {
      for (std::size_t c = 0; c < cols; ++c) {
        int len = std::snprintf(buf, sizeof buf, "%.17g", block[r * cols + c]);
        if (c) text += csv ? ',' : ' ';
        text.append(buf, static_cast<std::size_t>(len));
      }
      text += '\n';
    }
    if (std::fwrite(text.data(), 1, text.size(), f.get()) != text.size()) return failed("write");
  }
  if (std::fflush(f.get()) != 0 || ::fsync(fileno(f.get())) != 0) return failed("write");
  if (std::fclose(f.release()) != 0) return failed("close");
  if (std::rename(tmp.c_str(), path.c_str()) != 0) return failed("rename into");
  return d.rows;
}

}  // namespace merlin::sampling
