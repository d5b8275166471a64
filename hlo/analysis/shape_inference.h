// Shape inference: the result shape of every HLO operation from its operand
// shapes and attributes, by the rules of XLA's shape inference
// (xla/service/shape_inference.cc) and HLO verifier.
//
// Two layers:
//   * `InferShape(instruction)` dispatches on the opcode of an instruction and
//     checks everything the instruction carries (operand count, attributes,
//     called computations).  Its errors name the instruction:
//     "%add.3: operand shapes f32[2] and f32[3] are incompatible".
//   * The `Infer...Shape` functions below work on shapes and attribute
//     records alone, so builders can compute a shape before an instruction
//     exists.  Their errors say what is wrong without naming anything.
//
// Where the result cannot be inferred from operands alone (the element type
// of convert, dot and convolution; the dimensions of reshape and broadcast;
// custom-call, infeed, recv, rng-bit-generator, parameter, ...),
// `InferShape` checks the declared shape against what the operands allow and
// returns the declared shape.  Layouts never take part: inferred shapes have
// none, and callers compare shapes with `ShapesCompatible`.
#ifndef TESSERA_HLO_ANALYSIS_SHAPE_INFERENCE_H_
#define TESSERA_HLO_ANALYSIS_SHAPE_INFERENCE_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hlo/ir/hlo_attributes.h"
#include "hlo/ir/hlo_computation.h"
#include "hlo/ir/hlo_instruction.h"
#include "hlo/ir/hlo_opcode.h"
#include "hlo/ir/shape.h"

namespace tessera {

// The result shape of `instruction`, inferred from its operands, attributes
// and called computations (see the file comment for opcodes whose declared
// shape is checked instead).  Never crashes on a malformed instruction:
// wrong operand counts, missing attributes, indices out of range and null or
// malformed called computations are reported as errors.
absl::StatusOr<Shape> InferShape(const HloInstruction& instruction);

// The number of operands `opcode` takes, as [min, max] (max -1: unbounded),
// combining the opcode table with each variadic opcode's own rule.
struct OperandCountRange {
  int64_t min = 0;
  int64_t max = -1;
};
OperandCountRange ExpectedOperandCount(HloOpcode opcode);

// Checks the operand count (and, for opcodes whose count depends on
// attributes or called computations, the exact count) of `instruction`.
absl::Status CheckOperandCount(const HloInstruction& instruction);

// The signature of a called computation: its dense parameters (an error if
// a parameter number is missing) and its root's shape (an error if there is
// no root).
absl::StatusOr<ProgramShape> ComputationSignature(const HloComputation* computation);

// ---------------------------------------------------------------------------
// Shape-level inference, one function per op family.
// ---------------------------------------------------------------------------

// Elementwise (shape_inference_elementwise.cc).
absl::StatusOr<Shape> InferUnaryOpShape(HloOpcode opcode, const Shape& operand);
// Binary elementwise ops on operands of equal dimensions (HLO has no
// implicit broadcasting).  Compare returns PRED.
absl::StatusOr<Shape> InferBinaryOpShape(HloOpcode opcode, const Shape& lhs, const Shape& rhs);
absl::StatusOr<Shape> InferClampShape(const Shape& min, const Shape& operand, const Shape& max);
absl::StatusOr<Shape> InferSelectShape(const Shape& pred, const Shape& on_true,
                                       const Shape& on_false);
absl::StatusOr<Shape> InferConvertShape(const Shape& operand, PrimitiveType new_type);
// Equal widths keep the dimensions; a narrower target appends a minor
// dimension of width ratio; a wider one drops a minor dimension of that size.
absl::StatusOr<Shape> InferBitcastConvertShape(const Shape& operand, PrimitiveType new_type);
absl::StatusOr<Shape> InferStochasticConvertShape(const Shape& operand, const Shape& random,
                                                  PrimitiveType new_type);
absl::StatusOr<Shape> InferReducePrecisionShape(const Shape& operand, int exponent_bits,
                                                int mantissa_bits);
// Checks an explicit comparison type against the operand element type:
// FLOAT or TOTALORDER for floats, FLOAT for complex, SIGNED for signed
// integers, UNSIGNED for unsigned integers and PRED.
absl::Status CheckComparison(PrimitiveType operand_type, ComparisonType type);
absl::StatusOr<Shape> InferMapShape(absl::Span<const Shape* const> operands,
                                    const ProgramShape& to_apply,
                                    absl::Span<const int64_t> dimensions);

// Shape ops (shape_inference_shape_ops.cc).
// XLA's HLO broadcast: operand dimension i becomes output dimension
// `dimensions[i]`; the output shape is given.
absl::StatusOr<Shape> InferBroadcastShape(const Shape& operand, const Shape& output,
                                          absl::Span<const int64_t> dimensions);
absl::StatusOr<Shape> InferReshapeShape(const Shape& operand, const Shape& output);
absl::StatusOr<Shape> InferTransposeShape(const Shape& operand,
                                          absl::Span<const int64_t> permutation);
absl::StatusOr<Shape> InferSliceShape(const Shape& operand, absl::Span<const SliceDimension> slice);
absl::StatusOr<Shape> InferDynamicSliceShape(const Shape& operand,
                                             absl::Span<const Shape* const> start_indices,
                                             absl::Span<const int64_t> slice_sizes);
absl::StatusOr<Shape> InferDynamicUpdateSliceShape(const Shape& operand, const Shape& update,
                                                   absl::Span<const Shape* const> start_indices);
absl::StatusOr<Shape> InferConcatenateShape(absl::Span<const Shape* const> operands,
                                            int64_t dimension);
absl::StatusOr<Shape> InferPadShape(const Shape& operand, const Shape& padding_value,
                                    const PaddingConfig& config);
absl::StatusOr<Shape> InferReverseShape(const Shape& operand, absl::Span<const int64_t> dimensions);
absl::StatusOr<Shape> InferIotaShape(const Shape& output, int64_t iota_dimension);
absl::StatusOr<Shape> InferGetTupleElementShape(const Shape& operand, int64_t index);
absl::StatusOr<Shape> InferTupleShape(absl::Span<const Shape* const> elements);
absl::StatusOr<Shape> InferGetDimensionSizeShape(const Shape& operand, int64_t dimension);
absl::StatusOr<Shape> InferSetDimensionSizeShape(const Shape& operand, const Shape& value,
                                                 int64_t dimension);
absl::StatusOr<Shape> InferTopKShape(const Shape& operand, int64_t k);
absl::StatusOr<Shape> InferSortShape(absl::Span<const Shape* const> operands, int64_t dimension,
                                     const ProgramShape& compare);

// Reductions and windowed ops (shape_inference_windowed.cc).
absl::StatusOr<Shape> InferReduceShape(absl::Span<const Shape* const> operands,
                                       absl::Span<const int64_t> dimensions,
                                       const ProgramShape& reducer);
// The shape of sliding `window` over `base`, with the given element type.
absl::StatusOr<Shape> InferWindowOutputShape(const Shape& base, const Window& window,
                                             PrimitiveType element_type);
absl::StatusOr<Shape> InferReduceWindowShape(absl::Span<const Shape* const> operands,
                                             absl::Span<const Shape* const> init_values,
                                             const Window& window, const ProgramShape& reducer);
absl::StatusOr<Shape> InferSelectAndScatterShape(const Shape& operand, const ProgramShape& select,
                                                 const Window& window, const Shape& source,
                                                 const Shape& init_value,
                                                 const ProgramShape& scatter);
// `preferred_type` (XLA's preferred_element_type) is the result element type
// the instruction declares; nullopt keeps the operands' type.
absl::StatusOr<Shape> InferConvolutionShape(const Shape& lhs, const Shape& rhs,
                                            int64_t feature_group_count, int64_t batch_group_count,
                                            const Window& window,
                                            const ConvolutionDimensionNumbers& dnums,
                                            std::optional<PrimitiveType> preferred_type);
// Checks a reduction computation: `inputs` accumulators and `inputs` values,
// all scalars, returning the accumulators (a tuple when inputs > 1).
absl::Status VerifyReducerShape(const ProgramShape& reducer,
                                absl::Span<const Shape* const> init_values,
                                absl::Span<const PrimitiveType> input_element_types,
                                int64_t inputs);

// Dot and linear algebra (shape_inference_dot.cc).
absl::StatusOr<Shape> InferDotShape(const Shape& lhs, const Shape& rhs,
                                    const DotDimensionNumbers& dnums,
                                    std::optional<PrimitiveType> preferred_type);
absl::StatusOr<Shape> InferRaggedDotShape(const Shape& lhs, const Shape& rhs,
                                          const Shape& group_sizes,
                                          const RaggedDotDimensionNumbers& dnums,
                                          std::optional<PrimitiveType> preferred_type);
absl::StatusOr<Shape> InferFftShape(const Shape& operand, FftType type,
                                    absl::Span<const int64_t> fft_length);
absl::StatusOr<Shape> InferTriangularSolveShape(const Shape& a, const Shape& b,
                                                const TriangularSolveOptions& options);
absl::StatusOr<Shape> InferCholeskyShape(const Shape& a);
absl::StatusOr<Shape> InferBatchNormTrainingShape(const Shape& operand, const Shape& scale,
                                                  const Shape& offset, int64_t feature_index);
absl::StatusOr<Shape> InferBatchNormInferenceShape(const Shape& operand, const Shape& scale,
                                                   const Shape& offset, const Shape& mean,
                                                   const Shape& variance, int64_t feature_index);
absl::StatusOr<Shape> InferBatchNormGradShape(const Shape& operand, const Shape& scale,
                                              const Shape& mean, const Shape& variance,
                                              const Shape& output_grad, int64_t feature_index);

// Gather and scatter (shape_inference_gather_scatter.cc).
absl::StatusOr<Shape> InferGatherShape(const Shape& operand, const Shape& start_indices,
                                       const GatherDimensionNumbers& dnums,
                                       absl::Span<const int64_t> slice_sizes);
// `operands` are the scatter operands: N inputs, the indices, N updates.
absl::StatusOr<Shape> InferScatterShape(absl::Span<const Shape* const> operands,
                                        const ScatterDimensionNumbers& dnums,
                                        const ProgramShape& update_computation);

// Control flow and calls (shape_inference_control_flow.cc).
absl::StatusOr<Shape> InferWhileShape(const ProgramShape& condition, const ProgramShape& body,
                                      const Shape& init);
absl::StatusOr<Shape> InferConditionalShape(const Shape& branch_index,
                                            absl::Span<const ProgramShape> branches,
                                            absl::Span<const Shape* const> branch_operands);
absl::StatusOr<Shape> InferCallShape(absl::Span<const Shape* const> arguments,
                                     const ProgramShape& callee);

// Collectives (shape_inference_collectives.cc).
absl::StatusOr<Shape> InferAllReduceShape(absl::Span<const Shape* const> operands);
absl::StatusOr<Shape> InferAllGatherShape(absl::Span<const Shape* const> operands,
                                          int64_t all_gather_dimension, int64_t shard_count);
absl::StatusOr<Shape> InferReduceScatterShape(absl::Span<const Shape* const> operands,
                                              int64_t scatter_dimension, int64_t shard_count);
absl::StatusOr<Shape> InferAllToAllShape(const Shape& operand, int64_t split_dimension,
                                         int64_t concat_dimension, int64_t split_count);
absl::StatusOr<Shape> InferAllToAllTupleShape(absl::Span<const Shape* const> operands);

}  // namespace tessera

#endif  // TESSERA_HLO_ANALYSIS_SHAPE_INFERENCE_H_
