#include "adapters/data/hdf5/hdf5_chunks.h"

#include <lz4.h>
#include <zlib.h>
#if MERLIN_HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif

#include <algorithm>
#include <atomic>
#include <bit>
#include <thread>
#include <vector>

namespace merlin::hdf5 {
namespace {

void put_be(std::uint64_t v, int bytes, std::vector<unsigned char>& out) {
  for (int i = bytes - 1; i >= 0; --i) out.push_back(static_cast<unsigned char>(v >> (8 * i)));
}

// HDF5's shuffle filter: byte j of every element together, for j = 0 .. element-1.
void shuffle(const unsigned char* in, std::size_t bytes, std::size_t element,
             std::vector<unsigned char>& out) {
  out.resize(bytes);
  const std::size_t n = bytes / element;
  for (std::size_t j = 0; j < element; ++j) {
    unsigned char* to = out.data() + j * n;
    const unsigned char* from = in + j;
    for (std::size_t i = 0; i < n; ++i) to[i] = from[i * element];
  }
  std::copy(in + n * element, in + bytes, out.data() + n * element);  // a remainder, as is
}

// `bytes` deflated in zlib's format (what HDF5's deflate filter writes and reads) at `level`.
void deflate(const unsigned char* in, std::size_t bytes, int level,
             std::vector<unsigned char>& out) {
#if MERLIN_HAVE_LIBDEFLATE
  // One compressor per thread and level, kept while the thread lives (the writing thread
  // encodes a chunk of every round).
  struct Compressor {
    libdeflate_compressor* c = nullptr;
    int level = -1;
    ~Compressor() {
      if (c) libdeflate_free_compressor(c);
    }
  };
  thread_local Compressor z;
  if (z.level != level) {
    if (z.c) libdeflate_free_compressor(z.c);
    z.c = libdeflate_alloc_compressor(level);
    z.level = level;
  }
  if (z.c) {
    out.resize(libdeflate_zlib_compress_bound(z.c, bytes));
    const std::size_t n = libdeflate_zlib_compress(z.c, in, bytes, out.data(), out.size());
    if (n > 0) {
      out.resize(n);
      return;
    }
  }
#endif
  uLongf size = compressBound(bytes);
  out.resize(size);
  compress2(out.data(), &size, in, bytes, level);  // what HDF5's deflate filter does
  out.resize(size);
}

}  // namespace

ChunkCodec chunk_codec(hid_t dataset) {
  ChunkCodec c;
  Hid dcpl(H5Dget_create_plist(dataset));
  if (H5Pget_layout(dcpl.get()) != H5D_CHUNKED) return c;
  const int rank = H5Pget_chunk(dcpl.get(), 0, nullptr);
  if (rank <= 0) return c;
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  H5Pget_chunk(dcpl.get(), rank, dims.data());
  c.chunk_rows = dims[0];
  c.kind = ChunkCodec::Kind::kRaw;
  const int n = H5Pget_nfilters(dcpl.get());
  for (int i = 0; i < n; ++i) {
    unsigned flags = 0, config = 0;
    std::size_t nvalues = 4;
    unsigned values[4] = {0, 0, 0, 0};
    char name[64];
    const H5Z_filter_t f =
        H5Pget_filter2(dcpl.get(), static_cast<unsigned>(i), &flags, &nvalues, values,
                       sizeof name, name, &config);
    if (f == H5Z_FILTER_SHUFFLE && i == 0 && n == 2) {
      c.shuffle = true;
    } else if (f == H5Z_FILTER_DEFLATE && i == n - 1 && (n == 1 || c.shuffle)) {
      c.kind = ChunkCodec::Kind::kGzip;
      c.level = nvalues > 0 ? static_cast<int>(values[0]) : 6;
    } else if (f == kLz4Filter && n == 1 && (nvalues == 0 || values[0] == 0)) {
      c.kind = ChunkCodec::Kind::kLz4;
    } else {
      c.kind = ChunkCodec::Kind::kOther;
      return c;
    }
  }
  if (c.shuffle && c.kind != ChunkCodec::Kind::kGzip) c.kind = ChunkCodec::Kind::kOther;
  return c;
}

void encode_chunk(const ChunkCodec& c, const unsigned char* data, std::size_t bytes,
                  std::size_t element, std::vector<unsigned char>& out) {
  out.clear();
  switch (c.kind) {
    case ChunkCodec::Kind::kGzip: {
      std::vector<unsigned char> shuffled;
      const unsigned char* in = data;
      if (c.shuffle && element > 1) {
        shuffle(data, bytes, element, shuffled);
        in = shuffled.data();
      }
      deflate(in, bytes, c.level, out);
      return;
    }
    case ChunkCodec::Kind::kLz4: {
      // The LZ4 plugin's (filter 32004) layout: the size (8 bytes, big-endian) and the block
      // size (4), then per block its compressed size (4) and bytes; a block that does not
      // shrink is stored as it is, with its own size. One block: the plugin's default block
      // (1 GiB) holds any chunk of ours.
      put_be(bytes, 8, out);
      put_be(bytes, 4, out);
      const std::size_t head = out.size();
      out.resize(head + 4 + static_cast<std::size_t>(LZ4_compressBound(static_cast<int>(bytes))));
      int n = LZ4_compress_default(reinterpret_cast<const char*>(data),
                                   reinterpret_cast<char*>(out.data() + head + 4),
                                   static_cast<int>(bytes), LZ4_compressBound(static_cast<int>(bytes)));
      if (n <= 0 || static_cast<std::size_t>(n) >= bytes) {
        n = static_cast<int>(bytes);
        std::copy(data, data + bytes, out.data() + head + 4);
      }
      std::vector<unsigned char> size;
      put_be(static_cast<std::uint64_t>(n), 4, size);
      std::copy(size.begin(), size.end(), out.begin() + static_cast<std::ptrdiff_t>(head));
      out.resize(head + 4 + static_cast<std::size_t>(n));
      return;
    }
    default:
      out.assign(data, data + bytes);
  }
}

Result<void> write_whole_chunks(hid_t dataset, const ChunkCodec& c, std::uint64_t first_row,
                                std::uint64_t chunks, std::size_t row_bytes, std::size_t element,
                                const unsigned char* data, unsigned threads) {
  const int rank = [&] {
    Hid space(H5Dget_space(dataset));
    return H5Sget_simple_extent_ndims(space.get());
  }();
  const std::size_t chunk_bytes = c.chunk_rows * row_bytes;
  auto write = [&](std::uint64_t k, const void* bytes, std::size_t size) -> Result<void> {
    std::vector<hsize_t> offset(static_cast<std::size_t>(rank), 0);
    offset[0] = first_row + k * c.chunk_rows;
    if (H5Dwrite_chunk(dataset, H5P_DEFAULT, 0, offset.data(), size, bytes) < 0)
      return Error::runtime("HDF5: cannot write a chunk");
    return ok();
  };
  if (c.kind == ChunkCodec::Kind::kRaw) {  // nothing to encode: straight from the batch
    for (std::uint64_t k = 0; k < chunks; ++k)
      if (auto r = write(k, data + k * chunk_bytes, chunk_bytes); !r) return r;
    return ok();
  }
  // Rounds of `threads` chunks: encoded at once, then written in order by this thread.
  threads = std::max(1u, threads);
  std::vector<std::vector<unsigned char>> encoded(threads);
  for (std::uint64_t base = 0; base < chunks; base += threads) {
    const unsigned round = static_cast<unsigned>(std::min<std::uint64_t>(threads, chunks - base));
    auto encode = [&](unsigned t) {
      encode_chunk(c, data + (base + t) * chunk_bytes, chunk_bytes, element, encoded[t]);
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < round; ++t) pool.emplace_back(encode, t);
    encode(0);
    for (auto& th : pool) th.join();
    for (unsigned t = 0; t < round; ++t)
      if (auto r = write(base + t, encoded[t].data(), encoded[t].size()); !r) return r;
  }
  return ok();
}

}  // namespace merlin::hdf5
