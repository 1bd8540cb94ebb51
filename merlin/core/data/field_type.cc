#include "merlin/core/data/field_type.h"

#include <cstring>
#include <limits>

namespace merlin::data {
namespace {

struct TypeInfo {
  DType type;
  const char* name;
  std::size_t size;
};

constexpr TypeInfo kTypes[] = {
    {DType::kFloat64, "float64", 8}, {DType::kFloat32, "float32", 4}, {DType::kInt64, "int64", 8},
    {DType::kInt32, "int32", 4},     {DType::kInt16, "int16", 2},     {DType::kInt8, "int8", 1},
    {DType::kUInt64, "uint64", 8},   {DType::kUInt32, "uint32", 4},   {DType::kUInt16, "uint16", 2},
    {DType::kUInt8, "uint8", 1},     {DType::kBool, "bool", 1},       {DType::kString, "string", 0},
};

const TypeInfo& info(DType t) { return kTypes[static_cast<std::size_t>(t)]; }

}  // namespace

std::size_t dtype_size(DType t) { return info(t).size; }
const char* dtype_name(DType t) { return info(t).name; }

std::optional<DType> dtype_named(const std::string& name) {
  for (const auto& i : kTypes)
    if (name == i.name) return i.type;
  return std::nullopt;
}

bool is_float(DType t) { return t == DType::kFloat64 || t == DType::kFloat32; }

Result<DType> json_field_type(const JsonKinds& k) {
  const bool numeric = k.floats || k.ints || k.big || k.bools;
  if (k.strings && numeric)
    return Error::bad_input("strings mixed with numbers or booleans in one field");
  if (k.strings) return DType::kString;
  if (k.floats || k.big || !numeric) return DType::kFloat64;  // all null: NaN
  if (k.ints) return DType::kInt64;
  return DType::kBool;
}

double FieldColumn::f64(std::size_t i) const {
  double v;
  std::memcpy(&v, bytes.data() + i * sizeof v, sizeof v);
  return v;
}

void FieldColumn::push_f64(std::initializer_list<double> v) {
  for (double x : v) {
    const auto* p = reinterpret_cast<const unsigned char*>(&x);
    bytes.insert(bytes.end(), p, p + sizeof x);
  }
}

}  // namespace merlin::data
