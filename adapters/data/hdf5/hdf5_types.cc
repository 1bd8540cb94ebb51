#include "adapters/data/hdf5/hdf5_types.h"

#include <vector>

namespace merlin::hdf5 {

using data::DType;

namespace {

Hid string_type() {
  Hid t(H5Tcopy(H5T_C_S1));
  H5Tset_size(t.get(), H5T_VARIABLE);
  H5Tset_cset(t.get(), H5T_CSET_UTF8);
  return t;
}

hid_t file_type_id(DType t) {
  switch (t) {
    case DType::kFloat64: return H5T_IEEE_F64LE;
    case DType::kFloat32: return H5T_IEEE_F32LE;
    case DType::kInt64: return H5T_STD_I64LE;
    case DType::kInt32: return H5T_STD_I32LE;
    case DType::kInt16: return H5T_STD_I16LE;
    case DType::kInt8: return H5T_STD_I8LE;
    case DType::kUInt64: return H5T_STD_U64LE;
    case DType::kUInt32: return H5T_STD_U32LE;
    case DType::kUInt16: return H5T_STD_U16LE;
    case DType::kUInt8:
    case DType::kBool: return H5T_STD_U8LE;
    case DType::kString: break;
  }
  return -1;
}

hid_t mem_type_id(DType t) {
  switch (t) {
    case DType::kFloat64: return H5T_NATIVE_DOUBLE;
    case DType::kFloat32: return H5T_NATIVE_FLOAT;
    case DType::kInt64: return H5T_NATIVE_INT64;
    case DType::kInt32: return H5T_NATIVE_INT32;
    case DType::kInt16: return H5T_NATIVE_INT16;
    case DType::kInt8: return H5T_NATIVE_INT8;
    case DType::kUInt64: return H5T_NATIVE_UINT64;
    case DType::kUInt32: return H5T_NATIVE_UINT32;
    case DType::kUInt16: return H5T_NATIVE_UINT16;
    case DType::kUInt8:
    case DType::kBool: return H5T_NATIVE_UINT8;
    case DType::kString: break;
  }
  return -1;
}

}  // namespace

Hid file_type_of(DType t) {
  if (t == DType::kString) return string_type();
  return Hid(H5Tcopy(file_type_id(t)));
}

Hid mem_type_of(DType t) {
  if (t == DType::kString) return string_type();
  return Hid(H5Tcopy(mem_type_id(t)));
}

std::optional<DType> dataset_dtype(hid_t dataset) {
  if (H5Aexists(dataset, "dtype") > 0)
    if (auto name = read_string_attr(dataset, "dtype"))
      if (auto t = data::dtype_named(*name)) return t;
  Hid type(H5Dget_type(dataset));
  const std::size_t size = H5Tget_size(type.get());
  switch (H5Tget_class(type.get())) {
    case H5T_FLOAT:
      if (size == 8) return DType::kFloat64;
      if (size == 4) return DType::kFloat32;
      return std::nullopt;
    case H5T_INTEGER: {
      const bool sign = H5Tget_sign(type.get()) == H5T_SGN_2;
      switch (size) {
        case 1: return sign ? DType::kInt8 : DType::kUInt8;
        case 2: return sign ? DType::kInt16 : DType::kUInt16;
        case 4: return sign ? DType::kInt32 : DType::kUInt32;
        case 8: return sign ? DType::kInt64 : DType::kUInt64;
      }
      return std::nullopt;
    }
    case H5T_STRING:
      return H5Tis_variable_str(type.get()) > 0 ? std::optional(DType::kString) : std::nullopt;
    default:
      return std::nullopt;
  }
}

Result<void> write_column(hid_t dataset, DType t, std::uint64_t first, std::uint64_t rows,
                          std::uint64_t width, const data::FieldColumn& col, std::uint64_t from,
                          bool grow) {
  Hid mem = mem_type_of(t);
  const void* data = nullptr;
  std::vector<const char*> texts;
  if (t == DType::kString) {
    texts.reserve(rows * width);
    for (std::uint64_t i = 0; i < rows * width; ++i) texts.push_back(col.strings[from + i].c_str());
    data = texts.data();
  } else {
    data = col.bytes.data() + from * data::dtype_size(t);
  }
  return grow ? write_rows(dataset, mem.get(), first, rows, data)
              : overwrite_rows(dataset, mem.get(), first, rows, data);
}

Result<void> read_any_row(hid_t dataset, std::uint64_t row) {
  std::uint64_t width = 1;
  auto dims = dataset_dims(dataset);
  for (std::size_t i = 1; i < dims.size(); ++i) width *= dims[i];
  if (width > (1u << 24)) return ok();  // too large to check at once: left to the chunk index
  Hid type(H5Dget_type(dataset));
  Hid mem(H5Tget_native_type(type.get(), H5T_DIR_DEFAULT));
  if (!mem.valid()) return Error::runtime("no native type");
  std::vector<unsigned char> buf(width * H5Tget_size(mem.get()));
  if (auto r = read_rows(dataset, mem.get(), row, 1, buf.data()); !r) return r;
  if (H5Tis_variable_str(mem.get()) > 0) {
    hsize_t n = width;
    Hid space(H5Screate_simple(1, &n, nullptr));
    H5Dvlen_reclaim(mem.get(), space.get(), H5P_DEFAULT, buf.data());
  }
  return ok();
}

}  // namespace merlin::hdf5
