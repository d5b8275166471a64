// LiteralProto <-> Literal: per-element-type field encoding plus the
// permutation between a layout's physical order and row-major order.
#include "hlo/proto/literal_proto.h"

#include <cstring>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "hlo/ir/status_macros.h"
#include "hlo/proto/shape_proto.h"

namespace tessera {
namespace {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "16-bit literal fields are little-endian bytes; big-endian hosts need a swap");

absl::Status Invalid(absl::string_view message) { return absl::InvalidArgumentError(message); }

// For each position in physical (layout) order, the row-major position of
// the same element.  Empty when the two orders agree.
std::vector<int64_t> PhysicalToRowMajor(const Shape& shape) {
  if (!shape.has_layout()) return {};
  const std::vector<int64_t>& minor_to_major = shape.layout().minor_to_major;
  const int64_t rank = shape.rank();
  bool descending = true;
  for (int64_t i = 0; i < rank; ++i) descending &= minor_to_major[i] == rank - 1 - i;
  if (descending) return {};
  const int64_t count = shape.ElementCount();
  const std::vector<int64_t> strides = RowMajorStrides(shape.dimensions());
  std::vector<int64_t> result;
  result.reserve(count);
  std::vector<int64_t> index(rank, 0);
  int64_t row_major = 0;
  for (int64_t p = 0; p < count; ++p) {
    result.push_back(row_major);
    // Advance the multi-index, fastest along minor_to_major[0].
    for (int64_t k = 0; k < rank; ++k) {
      const int64_t dimension = minor_to_major[k];
      if (++index[dimension] < shape.dimensions(dimension)) {
        row_major += strides[dimension];
        break;
      }
      row_major -= (index[dimension] - 1) * strides[dimension];
      index[dimension] = 0;
    }
  }
  return result;
}

bool IsPermutation(const std::vector<int64_t>& values, int64_t rank) {
  if (static_cast<int64_t>(values.size()) != rank) return false;
  std::vector<bool> seen(rank, false);
  for (int64_t v : values) {
    if (v < 0 || v >= rank || seen[v]) return false;
    seen[v] = true;
  }
  return true;
}

// Copies `count` elements of `width` bytes from physical order into the
// row-major `destination` (or the other way round when `to_physical`).
void Permute(const std::vector<int64_t>& physical_to_row_major, int width, bool to_physical,
             const char* source, char* destination, int64_t count) {
  if (physical_to_row_major.empty()) {
    std::memcpy(destination, source, static_cast<size_t>(count) * width);
    return;
  }
  for (int64_t p = 0; p < count; ++p) {
    const int64_t r = physical_to_row_major[p];
    if (to_physical) {
      std::memcpy(destination + p * width, source + r * width, width);
    } else {
      std::memcpy(destination + r * width, source + p * width, width);
    }
  }
}

// The physical-order bytes of an array literal's proto data, in the IR's
// in-memory element representation; checks the value count first so that
// nothing is allocated for a shape the data does not back.
absl::StatusOr<std::string> PhysicalBytes(const xla::LiteralProto& proto, const Shape& shape) {
  const int64_t count = shape.ElementCount();
  const int width = ByteWidth(shape.element_type());
  const std::string type_name(PrimitiveTypeName(shape.element_type()));
  auto mismatch = [&](absl::string_view field, int64_t have, int64_t want) {
    return Invalid(absl::StrCat("literal of shape ", shape.ToString(), " has ", have,
                                " value(s) in ", field, ", expected ", want));
  };
  auto from_bytes = [&](const std::string& bytes,
                        absl::string_view field) -> absl::StatusOr<std::string> {
    if (static_cast<int64_t>(bytes.size()) != count * width) {
      return Invalid(absl::StrCat("literal of shape ", shape.ToString(), " has ", bytes.size(),
                                  " byte(s) in ", field, ", expected ", count * width));
    }
    return bytes;
  };
  auto from_repeated = [&](const auto& field, absl::string_view name,
                           int64_t per_element) -> absl::StatusOr<std::string> {
    if (field.size() != count * per_element) return mismatch(name, field.size(), count * per_element);
    std::string bytes(static_cast<size_t>(count) * width, '\0');
    if (count != 0) std::memcpy(bytes.data(), field.data(), bytes.size());
    return bytes;
  };
  switch (shape.element_type()) {
    case PRED: {
      if (proto.preds_size() != count) return mismatch("preds", proto.preds_size(), count);
      std::string bytes(static_cast<size_t>(count), '\0');
      for (int64_t i = 0; i < count; ++i) bytes[i] = proto.preds(i) ? 1 : 0;
      return bytes;
    }
    case S8: return from_bytes(proto.s8s(), "s8s");
    case U8: return from_bytes(proto.u8s(), "u8s");
    case S16: return from_bytes(proto.s16s(), "s16s");
    case U16: return from_bytes(proto.u16s(), "u16s");
    case F16: return from_bytes(proto.f16s(), "f16s");
    case BF16: return from_bytes(proto.bf16s(), "bf16s");
    case F8E5M2: return from_bytes(proto.f8e5m2s(), "f8e5m2s");
    case F8E4M3: return from_bytes(proto.f8e4m3s(), "f8e4m3s");
    case F8E3M4: return from_bytes(proto.f8e3m4s(), "f8e3m4s");
    case F8E4M3FN: return from_bytes(proto.f8e4m3fns(), "f8e4m3fns");
    case F8E4M3FNUZ: return from_bytes(proto.f8e4m3fnuzs(), "f8e4m3fnuzs");
    case F8E5M2FNUZ: return from_bytes(proto.f8e5m2fnuzs(), "f8e5m2fnuzs");
    case F8E4M3B11FNUZ: return from_bytes(proto.f8e4m3b11fnuzs(), "f8e4m3b11fnuzs");
    case S32: return from_repeated(proto.s32s(), "s32s", 1);
    case S64: return from_repeated(proto.s64s(), "s64s", 1);
    case U32: return from_repeated(proto.u32s(), "u32s", 1);
    case U64: return from_repeated(proto.u64s(), "u64s", 1);
    case F32: return from_repeated(proto.f32s(), "f32s", 1);
    case F64: return from_repeated(proto.f64s(), "f64s", 1);
    case C64: return from_repeated(proto.c64s(), "c64s", 2);
    case C128: return from_repeated(proto.c128s(), "c128s", 2);
    default:
      return Invalid(absl::StrCat("a literal cannot hold element type ", type_name));
  }
}

absl::StatusOr<Literal> LiteralFromProtoAtDepth(const xla::LiteralProto& proto, int depth) {
  if (depth > kMaxProtoNestingDepth) {
    return Invalid(absl::StrCat("literal nests tuples deeper than ", kMaxProtoNestingDepth));
  }
  if (!proto.has_shape()) return Invalid("literal has no shape");
  TS_ASSIGN_OR_RETURN(Shape shape, ShapeFromProto(proto.shape()));
  if (shape.IsTuple()) {
    if (proto.tuple_literals_size() != shape.tuple_size()) {
      return Invalid(absl::StrCat("tuple literal of shape ", shape.ToString(), " has ",
                                  proto.tuple_literals_size(), " element literal(s)"));
    }
    std::vector<Literal> elements;
    elements.reserve(shape.tuple_size());
    for (int64_t i = 0; i < shape.tuple_size(); ++i) {
      auto element = LiteralFromProtoAtDepth(proto.tuple_literals(i), depth + 1);
      if (!element.ok()) {
        return Invalid(absl::StrCat("tuple element ", i, ": ", element.status().message()));
      }
      if (!ShapesCompatible(element->shape(), shape.tuple_shapes(i))) {
        return Invalid(absl::StrCat("tuple element ", i, " has shape ",
                                    element->shape().ToString(), " but the tuple shape says ",
                                    shape.tuple_shapes(i).ToString()));
      }
      elements.push_back(*std::move(element));
    }
    return Literal::MakeTuple(std::move(elements));
  }
  if (!shape.IsArray()) return Literal::CreateFromShape(shape);  // token or opaque
  for (int64_t size : shape.dimensions()) {
    if (size < 0) return Invalid("literal shape has an unbounded dimension");
  }
  TS_ASSIGN_OR_RETURN(std::string physical, PhysicalBytes(proto, shape));
  TS_ASSIGN_OR_RETURN(Literal literal, Literal::CreateFromShape(shape));
  Permute(PhysicalToRowMajor(shape), ByteWidth(shape.element_type()), /*to_physical=*/false,
          physical.data(), static_cast<char*>(literal.untyped_data()), literal.element_count());
  return literal;
}

// Writes the physical-order bytes of an array literal into its proto field.
void SetProtoData(const Shape& shape, const std::string& bytes, xla::LiteralProto* proto) {
  const int64_t count = shape.ElementCount();
  auto set_repeated = [&](auto* field, int64_t per_element) {
    using Value = typename std::remove_pointer_t<decltype(field)>::value_type;
    field->Resize(static_cast<int>(count * per_element), Value());
    if (count != 0) std::memcpy(field->mutable_data(), bytes.data(), bytes.size());
  };
  switch (shape.element_type()) {
    case PRED:
      for (char b : bytes) proto->add_preds(b != 0);
      break;
    case S8: proto->set_s8s(bytes); break;
    case U8: proto->set_u8s(bytes); break;
    case S16: proto->set_s16s(bytes); break;
    case U16: proto->set_u16s(bytes); break;
    case F16: proto->set_f16s(bytes); break;
    case BF16: proto->set_bf16s(bytes); break;
    case F8E5M2: proto->set_f8e5m2s(bytes); break;
    case F8E4M3: proto->set_f8e4m3s(bytes); break;
    case F8E3M4: proto->set_f8e3m4s(bytes); break;
    case F8E4M3FN: proto->set_f8e4m3fns(bytes); break;
    case F8E4M3FNUZ: proto->set_f8e4m3fnuzs(bytes); break;
    case F8E5M2FNUZ: proto->set_f8e5m2fnuzs(bytes); break;
    case F8E4M3B11FNUZ: proto->set_f8e4m3b11fnuzs(bytes); break;
    case S32: set_repeated(proto->mutable_s32s(), 1); break;
    case S64: set_repeated(proto->mutable_s64s(), 1); break;
    case U32: set_repeated(proto->mutable_u32s(), 1); break;
    case U64: set_repeated(proto->mutable_u64s(), 1); break;
    case F32: set_repeated(proto->mutable_f32s(), 1); break;
    case F64: set_repeated(proto->mutable_f64s(), 1); break;
    case C64: set_repeated(proto->mutable_c64s(), 2); break;
    case C128: set_repeated(proto->mutable_c128s(), 2); break;
    default: break;
  }
}

}  // namespace

absl::StatusOr<Literal> LiteralFromProto(const xla::LiteralProto& proto) {
  return LiteralFromProtoAtDepth(proto, 0);
}

absl::StatusOr<xla::LiteralProto> LiteralToProto(const Literal& literal) {
  xla::LiteralProto proto;
  const Shape& shape = literal.shape();
  *proto.mutable_shape() = ShapeToProto(shape, /*fill_missing_layouts=*/true);
  if (shape.IsTuple()) {
    for (int64_t i = 0; i < literal.tuple_size(); ++i) {
      TS_ASSIGN_OR_RETURN(*proto.add_tuple_literals(), LiteralToProto(literal.tuple_element(i)));
    }
    return proto;
  }
  if (!shape.IsArray()) return proto;
  if (shape.has_layout() && !IsPermutation(shape.layout().minor_to_major, shape.rank())) {
    return Invalid(absl::StrCat("literal layout ", shape.layout().ToString(),
                                " is not a permutation of its rank ", shape.rank()));
  }
  const int width = ByteWidth(shape.element_type());
  std::string physical(static_cast<size_t>(literal.size_bytes()), '\0');
  Permute(PhysicalToRowMajor(shape), width, /*to_physical=*/true,
          static_cast<const char*>(literal.untyped_data()), physical.data(),
          literal.element_count());
  SetProtoData(shape, physical, &proto);
  return proto;
}

}  // namespace tessera
