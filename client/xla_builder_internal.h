// Helpers shared by the builder's op files; not part of the client API.
#ifndef TESSERA_CLIENT_XLA_BUILDER_INTERNAL_H_
#define TESSERA_CLIENT_XLA_BUILDER_INTERNAL_H_

#include <initializer_list>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "client/xla_builder.h"

namespace tessera {
namespace builder_internal {

// The builder of the first op that has one (null if none: every op came
// from a failed call on no builder, so there is nowhere to report).
inline XlaBuilder* BuilderOf(std::initializer_list<XlaOp> ops) {
  for (const XlaOp& op : ops) {
    if (op.builder() != nullptr) return op.builder();
  }
  return nullptr;
}

// The shape of `op`; on failure the error is recorded on `builder` as
// `what`'s.
inline absl::StatusOr<Shape> OperandShape(XlaBuilder* builder, absl::string_view what, XlaOp op) {
  absl::StatusOr<Shape> shape = builder->GetShape(op);
  if (!shape.ok()) builder->ReportError(what, shape.status());
  return shape;
}

}  // namespace builder_internal
}  // namespace tessera

#endif  // TESSERA_CLIENT_XLA_BUILDER_INTERNAL_H_
