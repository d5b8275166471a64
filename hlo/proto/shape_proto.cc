// Shape and layout protos <-> IR, with the validation an untrusted proto needs.
#include "hlo/proto/shape_proto.h"

#include <limits>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "hlo/ir/status_macros.h"

namespace tessera {
namespace {

absl::Status Invalid(absl::string_view message) { return absl::InvalidArgumentError(message); }

absl::StatusOr<Shape> ShapeFromProtoAtDepth(const xla::ShapeProto& proto, int depth);

// Array dimensions: sizes >= 0, or XLA's unbounded size on a dynamic
// dimension; the element count and byte size must fit in int64.
absl::Status CheckArrayDimensions(const xla::ShapeProto& proto, PrimitiveType type) {
  const int rank = proto.dimensions_size();
  if (proto.is_dynamic_dimension_size() != 0 && proto.is_dynamic_dimension_size() != rank) {
    return Invalid(absl::StrCat("shape has ", rank, " dimension(s) but ",
                                proto.is_dynamic_dimension_size(), " is_dynamic_dimension flag(s)"));
  }
  int64_t bytes = ByteWidth(type);
  for (int i = 0; i < rank; ++i) {
    const int64_t size = proto.dimensions(i);
    const bool dynamic = proto.is_dynamic_dimension_size() != 0 && proto.is_dynamic_dimension(i);
    if (size == Shape::kUnboundedSize && dynamic) continue;
    if (size < 0) return Invalid(absl::StrCat("shape has negative dimension ", size));
    if (size != 0 && bytes > std::numeric_limits<int64_t>::max() / size) {
      return Invalid("shape is too large: its byte size overflows int64");
    }
    bytes *= size;
  }
  return absl::OkStatus();
}

absl::StatusOr<Shape> ShapeFromProtoAtDepth(const xla::ShapeProto& proto, int depth) {
  if (depth > kMaxProtoNestingDepth) {
    return Invalid(absl::StrCat("shape nests tuples deeper than ", kMaxProtoNestingDepth));
  }
  TS_ASSIGN_OR_RETURN(PrimitiveType type, PrimitiveTypeFromProto(proto.element_type()));
  if (type == TUPLE) {
    if (proto.dimensions_size() != 0) return Invalid("tuple shape has dimensions");
    std::vector<Shape> elements;
    elements.reserve(proto.tuple_shapes_size());
    for (const xla::ShapeProto& element : proto.tuple_shapes()) {
      TS_ASSIGN_OR_RETURN(Shape shape, ShapeFromProtoAtDepth(element, depth + 1));
      elements.push_back(std::move(shape));
    }
    return Shape::MakeTuple(std::move(elements));
  }
  if (proto.tuple_shapes_size() != 0) {
    return Invalid(absl::StrCat(PrimitiveTypeName(type), " shape has tuple elements"));
  }
  if (type == TOKEN || type == OPAQUE_TYPE) {
    if (proto.dimensions_size() != 0) {
      return Invalid(absl::StrCat(PrimitiveTypeName(type), " shape has dimensions"));
    }
    return Shape(type, {});
  }
  if (type == PRIMITIVE_TYPE_INVALID) return Invalid("shape has element type PRIMITIVE_TYPE_INVALID");
  TS_RETURN_IF_ERROR(CheckArrayDimensions(proto, type));
  Shape shape(type, std::vector<int64_t>(proto.dimensions().begin(), proto.dimensions().end()));
  for (int i = 0; i < proto.is_dynamic_dimension_size(); ++i) {
    if (proto.is_dynamic_dimension(i)) shape.set_dynamic_dimension(i, true);
  }
  if (proto.has_layout()) {
    TS_ASSIGN_OR_RETURN(Layout layout, LayoutFromProto(proto.layout(), shape.rank()));
    shape.set_layout(std::move(layout));
  }
  return shape;
}

}  // namespace

absl::StatusOr<PrimitiveType> PrimitiveTypeFromProto(int32_t value) {
  if (IsKnownPrimitiveType(value)) return static_cast<PrimitiveType>(value);
  if (xla::PrimitiveType_IsValid(value)) {
    return Invalid(absl::StrCat("element type ",
                                xla::PrimitiveType_Name(static_cast<xla::PrimitiveType>(value)),
                                " (", value, ") is not supported"));
  }
  return Invalid(absl::StrCat("unknown primitive type number ", value));
}

xla::PrimitiveType PrimitiveTypeToProto(PrimitiveType type) {
  // The IR numbers its types as XLA does.
  return static_cast<xla::PrimitiveType>(type);
}

absl::StatusOr<Layout> LayoutFromProto(const xla::LayoutProto& proto, int64_t rank) {
  if (proto.minor_to_major_size() != rank) {
    return Invalid(absl::StrCat("layout has ", proto.minor_to_major_size(),
                                " minor_to_major entries for a rank-", rank, " shape"));
  }
  Layout layout;
  std::vector<bool> seen(rank, false);
  for (int64_t dimension : proto.minor_to_major()) {
    if (dimension < 0 || dimension >= rank || seen[dimension]) {
      return Invalid(absl::StrCat("layout minor_to_major is not a permutation of 0..", rank - 1));
    }
    seen[dimension] = true;
    layout.minor_to_major.push_back(dimension);
  }
  for (int kind : proto.dim_level_types()) {
    if (kind != xla::DIM_DENSE) return Invalid("sparse layouts are not supported");
  }
  for (const xla::TileProto& tile_proto : proto.tiles()) {
    Tile tile;
    for (int64_t size : tile_proto.dimensions()) {
      if (size <= 0 && size != Tile::kCombineDimension) {
        return Invalid(absl::StrCat("layout tile has invalid dimension ", size));
      }
      tile.dimensions.push_back(size);
    }
    layout.tiles.push_back(std::move(tile));
  }
  if (proto.element_size_in_bits() < 0) {
    return Invalid(absl::StrCat("layout has negative element_size_in_bits ",
                                proto.element_size_in_bits()));
  }
  layout.element_size_in_bits = proto.element_size_in_bits();
  layout.memory_space = proto.memory_space();
  return layout;
}

xla::LayoutProto LayoutToProto(const Layout& layout) {
  xla::LayoutProto proto;
  for (int64_t dimension : layout.minor_to_major) proto.add_minor_to_major(dimension);
  for (const Tile& tile : layout.tiles) {
    xla::TileProto* tile_proto = proto.add_tiles();
    for (int64_t size : tile.dimensions) tile_proto->add_dimensions(size);
  }
  proto.set_element_size_in_bits(layout.element_size_in_bits);
  proto.set_memory_space(layout.memory_space);
  return proto;
}

absl::StatusOr<Shape> ShapeFromProto(const xla::ShapeProto& proto) {
  return ShapeFromProtoAtDepth(proto, 0);
}

xla::ShapeProto ShapeToProto(const Shape& shape, bool fill_missing_layouts) {
  xla::ShapeProto proto;
  proto.set_element_type(PrimitiveTypeToProto(shape.element_type()));
  if (shape.IsTuple()) {
    for (const Shape& element : shape.tuple_shapes()) {
      *proto.add_tuple_shapes() = ShapeToProto(element, fill_missing_layouts);
    }
    return proto;
  }
  for (int64_t size : shape.dimensions()) proto.add_dimensions(size);
  if (!shape.dynamic_dimensions().empty()) {
    for (bool dynamic : shape.dynamic_dimensions()) proto.add_is_dynamic_dimension(dynamic);
  }
  if (shape.IsArray()) {
    if (shape.has_layout()) {
      *proto.mutable_layout() = LayoutToProto(shape.layout());
    } else if (fill_missing_layouts) {
      *proto.mutable_layout() = LayoutToProto(Layout::Descending(shape.rank()));
    }
  }
  return proto;
}

absl::StatusOr<ProgramShape> ProgramShapeFromProto(const xla::ProgramShapeProto& proto) {
  ProgramShape program_shape;
  for (int i = 0; i < proto.parameters_size(); ++i) {
    auto shape = ShapeFromProto(proto.parameters(i));
    if (!shape.ok()) {
      return Invalid(absl::StrCat("parameter ", i, ": ", shape.status().message()));
    }
    program_shape.parameters.push_back(*std::move(shape));
  }
  if (proto.parameter_names_size() != 0 &&
      proto.parameter_names_size() != proto.parameters_size()) {
    return Invalid(absl::StrCat(proto.parameters_size(), " parameter(s) but ",
                                proto.parameter_names_size(), " parameter name(s)"));
  }
  program_shape.parameter_names.assign(proto.parameter_names().begin(),
                                       proto.parameter_names().end());
  auto result = ShapeFromProto(proto.result());
  if (!result.ok()) return Invalid(absl::StrCat("result: ", result.status().message()));
  program_shape.result = *std::move(result);
  return program_shape;
}

xla::ProgramShapeProto ProgramShapeToProto(const ProgramShape& program_shape,
                                           bool fill_missing_layouts) {
  xla::ProgramShapeProto proto;
  for (const Shape& parameter : program_shape.parameters) {
    *proto.add_parameters() = ShapeToProto(parameter, fill_missing_layouts);
  }
  for (const std::string& name : program_shape.parameter_names) proto.add_parameter_names(name);
  *proto.mutable_result() = ShapeToProto(program_shape.result, fill_missing_layouts);
  return proto;
}

}  // namespace tessera
