// XlaBuilder: builds HLO computations in C++, in the style of XLA's
// client builder (xla/hlo/builder/xla_builder.h): free functions over an
// opaque XlaOp handle, shapes inferred as each op is added.
//
//   XlaBuilder b("axpy");
//   XlaOp a = Parameter(&b, 0, Shape::MakeArray(F32, {}), "a");
//   XlaOp x = Parameter(&b, 1, Shape::MakeArray(F32, {1024}), "x");
//   XlaOp y = Parameter(&b, 2, Shape::MakeArray(F32, {1024}), "y");
//   Add(Mul(a, x), y);                       // the last op is the root
//   absl::StatusOr<XlaComputation> axpy = b.Build();
//
// Errors do not interrupt building: the first one is kept, later ops on
// the failed builder are no-ops, and Build() returns it.  Every error names
// the op that failed and why ("Add (add.3): operand shapes f32[2] and f32[3]
// are incompatible"), and `XlaBuilder::GetShape` reports it at once.
//
// Binary elementwise ops broadcast like XLA's: a scalar against any shape,
// or a lower-rank operand along `broadcast_dimensions` of the higher-rank
// one; the builder inserts the broadcast.
//
// Reducers, comparators and loop bodies are XlaComputations built by sub
// builders (CreateSubBuilder); using one copies it (with what it calls)
// into the computation under construction.  Build() produces an HloModule
// whose entry is the built computation, and from it an HloModuleProto that
// XLA loads.
#ifndef TESSERA_CLIENT_XLA_BUILDER_H_
#define TESSERA_CLIENT_XLA_BUILDER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "hlo/ir/hlo_attributes.h"
#include "hlo/ir/hlo_computation.h"
#include "hlo/ir/hlo_instruction.h"
#include "hlo/ir/hlo_module.h"
#include "hlo/ir/literal.h"
#include "hlo/ir/shape.h"
#include "hlo/proto/hlo.pb.h"

namespace tessera {

class XlaBuilder;

// A value under construction: an index into its builder.  Copyable and
// cheap; an XlaOp from a failed call is invalid (valid() false) and makes
// every op it is passed to fail too.
class XlaOp {
 public:
  XlaOp() = default;
  bool valid() const { return builder_ != nullptr && handle_ >= 0; }
  XlaBuilder* builder() const { return builder_; }
  int64_t handle() const { return handle_; }

 private:
  friend class XlaBuilder;
  XlaOp(int64_t handle, XlaBuilder* builder) : handle_(handle), builder_(builder) {}

  int64_t handle_ = -1;
  XlaBuilder* builder_ = nullptr;
};

// A built computation and every computation it calls, as a module whose
// entry it is.  Immutable and cheap to copy (the module is shared).
class XlaComputation {
 public:
  XlaComputation() = default;
  explicit XlaComputation(std::shared_ptr<const HloModule> module) : module_(std::move(module)) {}

  bool valid() const { return module_ != nullptr; }
  const std::string& name() const;
  const HloModule& module() const { return *module_; }
  std::shared_ptr<const HloModule> shared_module() const { return module_; }
  // Parameters (with names) and result.
  ProgramShape GetProgramShape() const;
  // A module of one's own (a deep copy), for passes and backends.
  std::unique_ptr<HloModule> CloneModule() const;
  // The module as XLA's HloModuleProto.
  absl::StatusOr<xla::HloModuleProto> proto() const;

 private:
  std::shared_ptr<const HloModule> module_;
};

class XlaBuilder {
 public:
  explicit XlaBuilder(std::string name);
  ~XlaBuilder();
  XlaBuilder(const XlaBuilder&) = delete;
  XlaBuilder& operator=(const XlaBuilder&) = delete;

  const std::string& name() const { return name_; }

  // A builder for a computation to pass to an op of this one (a reducer, a
  // comparator, a loop body); its name is made from this builder's.
  std::unique_ptr<XlaBuilder> CreateSubBuilder(absl::string_view name);

  // Builds the computation whose root is the last op added, or `root`.
  // The first error of any op, or a verifier error, fails it.  The builder
  // may not be used afterwards.
  absl::StatusOr<XlaComputation> Build();
  absl::StatusOr<XlaComputation> Build(XlaOp root);

  // The first error so far (OK if none).
  absl::Status first_error() const { return first_error_; }
  // The shape of `op`, or why there is none.
  absl::StatusOr<Shape> GetShape(XlaOp op) const;

  // --- for the op functions (xla_builder_ops.cc); not for clients ---

  // What an op function hands the builder: the instruction to add, built
  // over its operands.  `shape` is the declared shape for ops whose result
  // the operands do not decide (reshape, broadcast, convert, iota,
  // parameter, constant); otherwise left empty and inferred.
  struct OpRequest {
    HloOpcode opcode = HloOpcode::kAdd;
    std::optional<Shape> shape;
    std::vector<XlaOp> operands;
    std::vector<const XlaComputation*> computations;
    std::function<void(HloAttributes&)> set_attributes;
    // The instruction's name (made unique); empty: from the opcode.
    std::string name;
  };
  // Adds the op, infers and checks its shape, and returns it; on failure
  // records the error (naming `what`, the client function) and returns an
  // invalid op.
  XlaOp AddOp(absl::string_view what, OpRequest request);
  // Records `status` (prefixed with `what`) as the first error unless one
  // is already there; returns an invalid op.
  XlaOp ReportError(absl::string_view what, absl::Status status);
  // The instruction behind `op` (null if invalid or foreign).
  const HloInstruction* instruction(XlaOp op) const;

 private:
  absl::StatusOr<HloComputation*> Embed(const XlaComputation& computation);

  std::string name_;
  absl::Status first_error_;
  bool built_ = false;
  std::unique_ptr<HloComputation> computation_;
  std::vector<HloInstruction*> handles_;  // by XlaOp handle
  // Computations copied in from XlaComputations, callees first, and the
  // copy of each embedded XlaComputation's entry by its module.
  std::vector<std::unique_ptr<HloComputation>> embedded_;
  absl::flat_hash_map<const HloModule*, HloComputation*> embedded_entries_;
  // The embedded modules, kept alive so that no other module can take the
  // address a key above names.
  std::vector<std::shared_ptr<const HloModule>> embedded_sources_;
  absl::flat_hash_map<std::string, int64_t> name_counts_;
  int64_t sub_builders_ = 0;
};

// --- Leaves ---
XlaOp Parameter(XlaBuilder* builder, int64_t number, const Shape& shape, absl::string_view name);
XlaOp ConstantLiteral(XlaBuilder* builder, const Literal& literal);
template <typename T>
XlaOp ConstantR0(XlaBuilder* builder, T value) {
  return ConstantLiteral(builder, Literal::CreateR0<T>(value));
}
template <typename T>
XlaOp ConstantR1(XlaBuilder* builder, absl::Span<const T> values) {
  return ConstantLiteral(builder, Literal::CreateR1<T>(values));
}
template <typename T>
XlaOp ConstantR1(XlaBuilder* builder, std::initializer_list<T> values) {
  return ConstantLiteral(builder, Literal::CreateR1<T>(values));
}
// Rows of equal length.
template <typename T>
XlaOp ConstantR2(XlaBuilder* builder, std::initializer_list<std::initializer_list<T>> rows) {
  std::vector<T> values;
  const int64_t columns = rows.size() == 0 ? 0 : static_cast<int64_t>(rows.begin()->size());
  for (const auto& row : rows) {
    if (static_cast<int64_t>(row.size()) != columns) {
      return builder->ReportError("ConstantR2", absl::InvalidArgumentError("rows differ in length"));
    }
    values.insert(values.end(), row.begin(), row.end());
  }
  return ConstantLiteral(builder, Literal::CreateFromVector<T>(
                                      {static_cast<int64_t>(rows.size()), columns}, values));
}
// A scalar of `type` with `value` converted to it.
XlaOp ConstantScalar(XlaBuilder* builder, PrimitiveType type, double value);
XlaOp Zero(XlaBuilder* builder, PrimitiveType type);
XlaOp One(XlaBuilder* builder, PrimitiveType type);
XlaOp Iota(XlaBuilder* builder, const Shape& shape, int64_t iota_dimension);
XlaOp Iota(XlaBuilder* builder, PrimitiveType type, int64_t size);

// --- Elementwise ---
XlaOp Abs(XlaOp x);
XlaOp Neg(XlaOp x);
XlaOp Exp(XlaOp x);
XlaOp Expm1(XlaOp x);
XlaOp Log(XlaOp x);
XlaOp Log1p(XlaOp x);
XlaOp Logistic(XlaOp x);
XlaOp Sign(XlaOp x);
XlaOp Sqrt(XlaOp x);
XlaOp Rsqrt(XlaOp x);
XlaOp Cbrt(XlaOp x);
XlaOp Tanh(XlaOp x);
XlaOp Tan(XlaOp x);
XlaOp Sin(XlaOp x);
XlaOp Cos(XlaOp x);
XlaOp Atan(XlaOp x);
XlaOp Erf(XlaOp x);
XlaOp Floor(XlaOp x);
XlaOp Ceil(XlaOp x);
XlaOp Round(XlaOp x);  // half away from zero
XlaOp RoundNearestEven(XlaOp x);
XlaOp Not(XlaOp x);
XlaOp IsFinite(XlaOp x);
XlaOp Clz(XlaOp x);
XlaOp PopulationCount(XlaOp x);
XlaOp Real(XlaOp x);
XlaOp Imag(XlaOp x);
XlaOp Square(XlaOp x);
XlaOp Reciprocal(XlaOp x);

XlaOp Add(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Sub(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Mul(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Div(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Rem(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Max(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Min(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Pow(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Atan2(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Complex(XlaOp real, XlaOp imag, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp And(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Or(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Xor(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp ShiftLeft(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp ShiftRightArithmetic(XlaOp lhs, XlaOp rhs,
                           absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp ShiftRightLogical(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});

XlaOp Compare(XlaOp lhs, XlaOp rhs, ComparisonDirection direction,
              absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Compare(XlaOp lhs, XlaOp rhs, ComparisonDirection direction, ComparisonType type,
              absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Eq(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Ne(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Lt(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Le(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Gt(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});
XlaOp Ge(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> broadcast_dimensions = {});

// `pred` may be a scalar (broadcast to the operands' shape).
XlaOp Select(XlaOp pred, XlaOp on_true, XlaOp on_false);
// `min` and `max` may be scalars.
XlaOp Clamp(XlaOp min, XlaOp operand, XlaOp max);
XlaOp ConvertElementType(XlaOp operand, PrimitiveType new_type);
XlaOp BitcastConvertType(XlaOp operand, PrimitiveType new_type);
// Applies `computation` (scalar parameters) elementwise over `operands`.
XlaOp Map(XlaBuilder* builder, absl::Span<const XlaOp> operands,
          const XlaComputation& computation, absl::Span<const int64_t> dimensions);

// --- Shapes ---
// New major dimensions `sizes` in front of the operand's.
XlaOp Broadcast(XlaOp operand, absl::Span<const int64_t> sizes);
// Operand dimension i becomes result dimension broadcast_dimensions[i].
XlaOp BroadcastInDim(XlaOp operand, absl::Span<const int64_t> out_dimensions,
                     absl::Span<const int64_t> broadcast_dimensions);
XlaOp Reshape(XlaOp operand, absl::Span<const int64_t> new_sizes);
XlaOp Transpose(XlaOp operand, absl::Span<const int64_t> permutation);
XlaOp Rev(XlaOp operand, absl::Span<const int64_t> dimensions);
XlaOp Slice(XlaOp operand, absl::Span<const int64_t> start_indices,
            absl::Span<const int64_t> limit_indices, absl::Span<const int64_t> strides);
XlaOp SliceInDim(XlaOp operand, int64_t start_index, int64_t limit_index, int64_t stride,
                 int64_t dimension);
XlaOp DynamicSlice(XlaOp operand, absl::Span<const XlaOp> start_indices,
                   absl::Span<const int64_t> slice_sizes);
XlaOp DynamicUpdateSlice(XlaOp operand, XlaOp update, absl::Span<const XlaOp> start_indices);
XlaOp ConcatInDim(XlaBuilder* builder, absl::Span<const XlaOp> operands, int64_t dimension);
XlaOp Pad(XlaOp operand, XlaOp padding_value, const PaddingConfig& padding_config);
// Edge padding of one dimension.
XlaOp PadInDim(XlaOp operand, XlaOp padding_value, int64_t dimension, int64_t low, int64_t high);

// --- Linear algebra ---
// Vector·vector, matrix·vector, matrix·matrix.
XlaOp Dot(XlaOp lhs, XlaOp rhs, std::optional<PrimitiveType> preferred_type = std::nullopt);
XlaOp DotGeneral(XlaOp lhs, XlaOp rhs, const DotDimensionNumbers& dimension_numbers,
                 std::optional<PrimitiveType> preferred_type = std::nullopt);
// NHWC-free default: input [batch, feature, spatial...], kernel [out, in,
// spatial...], output [batch, feature, spatial...] (XLA's Conv).
enum class Padding { kSame, kValid };
XlaOp Conv(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> window_strides, Padding padding,
           int64_t feature_group_count = 1);
XlaOp ConvGeneralDilated(XlaOp lhs, XlaOp rhs, absl::Span<const int64_t> window_strides,
                         absl::Span<const std::pair<int64_t, int64_t>> padding,
                         absl::Span<const int64_t> lhs_dilation,
                         absl::Span<const int64_t> rhs_dilation,
                         const ConvolutionDimensionNumbers& dimension_numbers,
                         int64_t feature_group_count = 1, int64_t batch_group_count = 1,
                         std::optional<PrimitiveType> preferred_type = std::nullopt);
// The dimension numbers of Conv for `spatial` spatial dimensions.
ConvolutionDimensionNumbers CreateDefaultConvDimensionNumbers(int64_t spatial = 2);

// --- Reductions and windows ---
XlaOp Reduce(XlaOp operand, XlaOp init_value, const XlaComputation& computation,
             absl::Span<const int64_t> dimensions_to_reduce);
// Variadic: N operands, N init values, a reducer of 2N scalars returning N.
XlaOp Reduce(XlaBuilder* builder, absl::Span<const XlaOp> operands,
             absl::Span<const XlaOp> init_values, const XlaComputation& computation,
             absl::Span<const int64_t> dimensions_to_reduce);
XlaOp ReduceAll(XlaOp operand, XlaOp init_value, const XlaComputation& computation);
XlaOp ReduceWindow(XlaOp operand, XlaOp init_value, const XlaComputation& computation,
                   absl::Span<const int64_t> window_dimensions,
                   absl::Span<const int64_t> window_strides, Padding padding);
XlaOp ReduceWindowWithGeneralPadding(XlaOp operand, XlaOp init_value,
                                     const XlaComputation& computation,
                                     absl::Span<const int64_t> window_dimensions,
                                     absl::Span<const int64_t> window_strides,
                                     absl::Span<const int64_t> base_dilations,
                                     absl::Span<const int64_t> window_dilations,
                                     absl::Span<const std::pair<int64_t, int64_t>> padding);

// The gradient of a window reduction (max pooling's): for each window,
// `select` picks an element of `operand` and `scatter` adds the window's
// `source` value there, from `init_value`.
XlaOp SelectAndScatter(XlaOp operand, const XlaComputation& select,
                       absl::Span<const int64_t> window_dimensions,
                       absl::Span<const int64_t> window_strides, Padding padding, XlaOp source,
                       XlaOp init_value, const XlaComputation& scatter);
XlaOp SelectAndScatterWithGeneralPadding(XlaOp operand, const XlaComputation& select,
                                         absl::Span<const int64_t> window_dimensions,
                                         absl::Span<const int64_t> window_strides,
                                         absl::Span<const std::pair<int64_t, int64_t>> padding,
                                         XlaOp source, XlaOp init_value,
                                         const XlaComputation& scatter);

// --- Indexing ---
XlaOp Gather(XlaOp input, XlaOp start_indices, const GatherDimensionNumbers& dimension_numbers,
             absl::Span<const int64_t> slice_sizes, bool indices_are_sorted = false);
XlaOp Scatter(XlaOp input, XlaOp scatter_indices, XlaOp updates,
              const XlaComputation& update_computation,
              const ScatterDimensionNumbers& dimension_numbers, bool indices_are_sorted = false,
              bool unique_indices = false);
// Sorts `operands` (equal dimensions) along `dimension` by `comparator`
// (2N scalar parameters, returning pred).
XlaOp Sort(absl::Span<const XlaOp> operands, const XlaComputation& comparator,
           int64_t dimension = -1, bool is_stable = false);

// The k largest (or smallest) elements along the last dimension and their
// s32 indices: a (values, indices) tuple.
XlaOp TopK(XlaOp operand, int64_t k, bool largest = true);
// Rounds floats to a narrower exponent and mantissa, keeping the type.
XlaOp ReducePrecision(XlaOp operand, int exponent_bits, int mantissa_bits);
// Its operand, unchanged; no computation moves across it.
XlaOp OptimizationBarrier(XlaOp operand);

// --- Tuples and control flow ---
XlaOp Tuple(XlaBuilder* builder, absl::Span<const XlaOp> elements);
XlaOp GetTupleElement(XlaOp tuple, int64_t index);
XlaOp While(const XlaComputation& condition, const XlaComputation& body, XlaOp init);
// `branch_index` s32: branch i gets operand i; out of range runs the last.
XlaOp Conditional(XlaOp branch_index, absl::Span<const XlaComputation* const> branches,
                  absl::Span<const XlaOp> branch_operands);
// `predicate` pred: true runs `on_true` on `true_operand`.
XlaOp Conditional(XlaOp predicate, XlaOp true_operand, const XlaComputation& on_true,
                  XlaOp false_operand, const XlaComputation& on_false);
XlaOp Call(XlaBuilder* builder, const XlaComputation& computation,
           absl::Span<const XlaOp> operands);

// Scalar computations for reducers: (x, y) -> x op y of `type`.
XlaComputation CreateScalarAddComputation(PrimitiveType type, XlaBuilder* builder);
XlaComputation CreateScalarMaxComputation(PrimitiveType type, XlaBuilder* builder);
XlaComputation CreateScalarMinComputation(PrimitiveType type, XlaBuilder* builder);
XlaComputation CreateScalarMultiplyComputation(PrimitiveType type, XlaBuilder* builder);

}  // namespace tessera

#endif  // TESSERA_CLIENT_XLA_BUILDER_H_
