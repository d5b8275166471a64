// Conversions between the IR's shape types (PrimitiveType, Layout, Shape,
// ProgramShape) and their xla.* protos.  Import functions validate every
// field, since protos come from untrusted clients: unknown element types,
// negative or overflowing dimensions, layouts that are not permutations and
// absurd nesting are errors, never crashes.
#ifndef TESSERA_HLO_PROTO_SHAPE_PROTO_H_
#define TESSERA_HLO_PROTO_SHAPE_PROTO_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "hlo/ir/hlo_computation.h"
#include "hlo/ir/shape.h"
#include "hlo/proto/hlo.pb.h"

namespace tessera {

// Deepest tuple (or tuple literal / tuple sharding) nesting an import accepts.
inline constexpr int kMaxProtoNestingDepth = 64;

// The IR element type for an xla::PrimitiveType number; an error for numbers
// XLA does not define and for XLA types Tessera does not support (F8, S4...).
absl::StatusOr<PrimitiveType> PrimitiveTypeFromProto(int32_t value);
xla::PrimitiveType PrimitiveTypeToProto(PrimitiveType type);

// A layout for an array of `rank` dimensions.
absl::StatusOr<Layout> LayoutFromProto(const xla::LayoutProto& proto, int64_t rank);
xla::LayoutProto LayoutToProto(const Layout& layout);

// Shapes keep their layouts exactly as given (a shape without a LayoutProto
// has no layout).  Export writes the descending (row-major) layout for array
// shapes that have none when `fill_missing_layouts`, as XLA, whose shapes
// always carry layouts, would.
absl::StatusOr<Shape> ShapeFromProto(const xla::ShapeProto& proto);
xla::ShapeProto ShapeToProto(const Shape& shape, bool fill_missing_layouts = true);

absl::StatusOr<ProgramShape> ProgramShapeFromProto(const xla::ProgramShapeProto& proto);
xla::ProgramShapeProto ProgramShapeToProto(const ProgramShape& program_shape,
                                           bool fill_missing_layouts = true);

}  // namespace tessera

#endif  // TESSERA_HLO_PROTO_SHAPE_PROTO_H_
