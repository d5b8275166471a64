// Helpers shared by the shape_inference_*.cc files: error construction,
// element-type rules, dimension-list checks, and the per-family entry points
// that `InferShape` dispatches to.  Not part of the public API.
#ifndef TESSERA_HLO_ANALYSIS_SHAPE_INFERENCE_INTERNAL_H_
#define TESSERA_HLO_ANALYSIS_SHAPE_INFERENCE_INTERNAL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/types/span.h"
#include "hlo/ir/hlo_computation.h"
#include "hlo/ir/hlo_instruction.h"
#include "hlo/ir/shape.h"

namespace tessera {
namespace shape_inference_internal {

// An InvalidArgument error whose message is the concatenation of `args`
// (anything absl::StrCat takes; std::string_view must be wrapped in
// std::string with this abseil build).
template <typename... Args>
absl::Status Invalid(const Args&... args) {
  return absl::InvalidArgumentError(absl::StrCat(args...));
}

inline std::string Str(const Shape& shape) { return shape.ToString(); }
inline std::string TypeName(PrimitiveType type) { return std::string(PrimitiveTypeName(type)); }
inline std::string OpName(HloOpcode opcode) { return std::string(HloOpcodeString(opcode)); }
// "{1,2,3}".
inline std::string Dims(absl::Span<const int64_t> values) {
  return absl::StrCat("{", absl::StrJoin(values, ","), "}");
}

// An error unless `shape` is an array (not a tuple, token or opaque).
absl::Status ExpectArray(const Shape& shape, const std::string& what);

bool SameElementTypeIgnoringFpPrecision(const Shape& a, const Shape& b);
// The more precise element type of the two, by XLA's order (complex over
// real, then exponent range, significand width, bit width, signedness).
PrimitiveType HigherPrecisionElementType(const Shape& a, const Shape& b);
// `shape` with a new element type; dimensions kept, layout dropped.
Shape WithElementType(const Shape& shape, PrimitiveType type);
Shape ScalarShape(PrimitiveType type);
// The element count of an array, saturating at INT64_MAX instead of
// overflowing; -1 if a dimension is negative.
int64_t SafeElementCount(const Shape& shape);

bool AllUnique(absl::Span<const int64_t> values);
bool IsSortedStrictly(absl::Span<const int64_t> values);
// True when `values` is a permutation of 0..rank-1.
bool IsPermutation(absl::Span<const int64_t> values, int64_t rank);
// An error unless every value is in [0, rank) and no value repeats.
absl::Status CheckDimensionList(absl::Span<const int64_t> values, int64_t rank,
                                const std::string& what);

// Instruction-level helpers (operand counts already checked).
std::vector<const Shape*> OperandShapes(const HloInstruction& hlo, int64_t begin = 0,
                                        int64_t end = -1);
// The signature of called computation `index`; errors if it is missing,
// null or malformed.
absl::StatusOr<ProgramShape> CalledSignature(const HloInstruction& hlo, int64_t index);
// An error unless the instruction calls exactly `count` computations.
absl::Status ExpectCalledComputations(const HloInstruction& hlo, int64_t count);
// The single entry of `dimensions` that concatenate, iota, sort, ... use.
absl::StatusOr<int64_t> SingleDimension(const HloInstruction& hlo, const std::string& what);

// The result element type of dot/convolution: the operands' (more precise)
// type, or the instruction's declared type (XLA's preferred_element_type)
// unless that narrows an integer type.
absl::StatusOr<PrimitiveType> ResultElementType(const std::string& op, PrimitiveType operand_type,
                                                std::optional<PrimitiveType> preferred);

// An error unless the precision config of a dot or convolution has no
// entries or one per operand (`operands`), with XLA's packed-nibble rules.
absl::Status CheckPrecisionConfig(const HloInstruction& hlo, int64_t operands);

// Per-family instruction-level inference; `InferShape` dispatches here and
// prefixes errors with the instruction's name.
absl::StatusOr<Shape> InferElementwiseInstruction(const HloInstruction& hlo);
absl::StatusOr<Shape> InferShapeOpInstruction(const HloInstruction& hlo);
absl::StatusOr<Shape> InferWindowedInstruction(const HloInstruction& hlo);
absl::StatusOr<Shape> InferDotFamilyInstruction(const HloInstruction& hlo);
absl::StatusOr<Shape> InferGatherScatterInstruction(const HloInstruction& hlo);
absl::StatusOr<Shape> InferControlFlowInstruction(const HloInstruction& hlo);
absl::StatusOr<Shape> InferCollectiveInstruction(const HloInstruction& hlo);

}  // namespace shape_inference_internal
}  // namespace tessera

#endif  // TESSERA_HLO_ANALYSIS_SHAPE_INFERENCE_INTERNAL_H_
