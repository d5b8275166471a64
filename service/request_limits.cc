#include "service/request_limits.h"

#include "absl/strings/str_cat.h"
#include "hlo/ir/status_macros.h"
#include "hlo/proto/literal_proto.h"
#include "hlo/proto/shape_proto.h"

namespace tessera {
namespace service {

absl::StatusOr<int64_t> CheckedBytes(const Shape& shape, int64_t limit, absl::string_view what) {
  int64_t total = 0;
  if (shape.IsTuple()) {
    for (const Shape& element : shape.tuple_shapes()) {
      TS_ASSIGN_OR_RETURN(int64_t bytes, CheckedBytes(element, limit, what));
      if (__builtin_add_overflow(total, bytes, &total) || total > limit) {
        return absl::ResourceExhaustedError(
            absl::StrCat(what, " ", shape.ToString(), " is over the server's limit of ", limit,
                         " bytes per value"));
      }
    }
    return total;
  }
  if (!shape.IsArray()) return 0;
  int64_t bytes = ByteWidth(shape.element_type());
  for (int64_t d : shape.dimensions()) {
    if (d < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, " ", shape.ToString(), " has a negative dimension"));
    }
    if (__builtin_mul_overflow(bytes, d, &bytes) || bytes > limit) {
      return absl::ResourceExhaustedError(
          absl::StrCat(what, " ", shape.ToString(), " is over the server's limit of ", limit,
                       " bytes per value"));
    }
  }
  return bytes;
}

absl::Status CheckModuleValueSizes(const HloModule& module, int64_t limit) {
  for (const HloComputation* computation : module.computations()) {
    for (const HloInstruction* instruction : computation->instructions()) {
      TS_RETURN_IF_ERROR(
          CheckedBytes(instruction->shape(), limit, absl::StrCat("%", instruction->name()))
              .status());
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<Literal> LiteralFromWire(const xla::LiteralProto& proto, int64_t limit,
                                        absl::string_view what) {
  if (!proto.has_shape()) return absl::InvalidArgumentError(absl::StrCat(what, " has no shape"));
  absl::StatusOr<Shape> shape = ShapeFromProto(proto.shape());
  if (!shape.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": ", shape.status().message()));
  }
  TS_RETURN_IF_ERROR(CheckedBytes(*shape, limit, what).status());
  absl::StatusOr<Literal> literal = LiteralFromProto(proto);
  if (!literal.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": ", literal.status().message()));
  }
  return literal;
}

}  // namespace service
}  // namespace tessera
