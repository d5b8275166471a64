// Shared internals of the reference evaluator: the runner that evaluates a
// computation (reused for reducers, comparators and loop bodies), the entry
// point of each op family, and small helpers for element types, results and
// errors.  Only hlo/evaluator includes this header.
//
// Every family function has the same signature: the instruction and its
// evaluated operands in, the instruction's value out.  Messages of errors
// they return do not name the instruction; the runner prefixes "%name: ".
#ifndef TESSERA_HLO_EVALUATOR_EVALUATOR_INTERNAL_H_
#define TESSERA_HLO_EVALUATOR_EVALUATOR_INTERNAL_H_

#include <complex>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "hlo/ir/hlo_computation.h"
#include "hlo/ir/hlo_instruction.h"
#include "hlo/ir/literal.h"
#include "hlo/ir/status_macros.h"

namespace tessera {

struct LinalgOp;

namespace evaluator_internal {

using Operands = absl::Span<const Literal* const>;

// Evaluates one computation, as many times as asked (a reducer runs once
// per element).  The post order is computed once; values live in a vector
// indexed by position, parameters point at the caller's literals.
class ComputationRunner {
 public:
  explicit ComputationRunner(const HloComputation& computation);

  // The root's value for `args` (one literal per parameter, shapes checked).
  absl::StatusOr<Literal> Run(Operands args);

  const HloComputation& computation() const { return computation_; }

 private:
  absl::StatusOr<Literal> RunBody(Operands args);

  const HloComputation& computation_;
  std::vector<const HloInstruction*> post_order_;
  // Operand positions (in post_order_) of each instruction.
  std::vector<std::vector<int64_t>> operand_positions_;
  std::vector<Literal> values_;
  std::vector<const Literal*> value_ptrs_;
};

// Checks `args` against the parameters of `computation`: count, element
// types and dimensions.  Errors name the parameter.
absl::Status CheckArguments(const HloComputation& computation, Operands args);

// The value of `hlo` given its evaluated operands.
absl::StatusOr<Literal> EvaluateInstruction(const HloInstruction& hlo, Operands operands);

// Op families, one file each.
// evaluator_elementwise.cc: unary and binary arithmetic, logic, shifts,
// compare, select, clamp, and the remaining elementwise ops below.
absl::StatusOr<Literal> EvaluateElementwise(const HloInstruction& hlo, Operands operands);
// evaluator_convert.cc: convert, bitcast-convert, reduce-precision,
// stochastic-convert, complex, real, imag, is-finite.
absl::StatusOr<Literal> EvaluateConvertOp(const HloInstruction& hlo, Operands operands);
// evaluator_shape_ops.cc: iota, broadcast, reshape, transpose, slice,
// dynamic-slice, dynamic-update-slice, concatenate, pad, reverse, copy,
// bitcast, get-dimension-size, set-dimension-size.
absl::StatusOr<Literal> EvaluateShapeOp(const HloInstruction& hlo, Operands operands);
// evaluator_reduce.cc: reduce, reduce-window, select-and-scatter.
absl::StatusOr<Literal> EvaluateReduceOp(const HloInstruction& hlo, Operands operands);
// evaluator_dot_conv.cc: dot, convolution.
absl::StatusOr<Literal> EvaluateDotOrConvolution(const HloInstruction& hlo, Operands operands);
// evaluator_fft.cc: fft.
absl::StatusOr<Literal> EvaluateFft(const HloInstruction& hlo, Operands operands);
// evaluator_linalg.cc: cholesky, triangular-solve, and JAX's LAPACK custom
// calls (hlo/analysis/linalg_op.h).
absl::StatusOr<Literal> EvaluateLinalg(const HloInstruction& hlo, Operands operands);
// evaluator_spectral.cc: the Hermitian eigendecomposition and the SVD of
// EvaluateLinalg (LinalgKind kHermitianEigen, kSvd), by Jacobi rotations.
absl::StatusOr<Literal> EvaluateSpectral(const HloInstruction& hlo, const LinalgOp& op,
                                         const Literal& a);
// evaluator_gather_scatter.cc: gather, scatter.
absl::StatusOr<Literal> EvaluateGatherOrScatter(const HloInstruction& hlo, Operands operands);
// evaluator_sort.cc: sort, topk.
absl::StatusOr<Literal> EvaluateSortOp(const HloInstruction& hlo, Operands operands);
// evaluator_control_flow.cc: while, conditional, call, fusion, map, tuple,
// get-tuple-element, opt-barrier, after-all, add-dependency, domain, async
// and copy start/done pairs.
absl::StatusOr<Literal> EvaluateControlFlow(const HloInstruction& hlo, Operands operands);
// evaluator_rng.cc: rng-bit-generator (XLA's threefry and philox).
absl::StatusOr<Literal> EvaluateRngBitGenerator(const HloInstruction& hlo, Operands operands);
// evaluator_collectives.cc: collectives on one replica, replica-id,
// partition-id.
absl::StatusOr<Literal> EvaluateCollective(const HloInstruction& hlo, Operands operands);

// ---------------------------------------------------------------------------
// Element types.

template <typename T>
constexpr bool kIsComplex = std::is_same_v<T, complex64> || std::is_same_v<T, complex128>;
// Complex conjugate, real and imaginary parts, the identities (and 0) on
// real types.
template <typename T>
T Conj(T x) {
  if constexpr (kIsComplex<T>) {
    return std::conj(x);
  } else {
    return x;
  }
}
template <typename T>
auto RealPart(T x) {
  if constexpr (kIsComplex<T>) {
    return x.real();
  } else {
    return x;
  }
}
template <typename T>
auto ImagPart(T x) {
  if constexpr (kIsComplex<T>) {
    return x.imag();
  } else {
    return decltype(x)(0);
  }
}

template <typename T>
constexpr bool kIsSmallFloat =
    std::is_same_v<T, half> || std::is_same_v<T, bfloat16> || kIsFloat8<T>;
template <typename T>
constexpr bool kIsFloat = kIsSmallFloat<T> || std::is_floating_point_v<T>;
template <typename T>
constexpr bool kIsInteger = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// The type arithmetic on T is done in: float for F8*/F16/BF16 (rounded back
// once per op, as XLA does), T itself otherwise.
template <typename T>
using ComputeType = std::conditional_t<kIsSmallFloat<T>, float, T>;

template <typename T>
ComputeType<T> ToCompute(T value) {
  if constexpr (kIsSmallFloat<T>) {
    return static_cast<float>(value);
  } else {
    return value;
  }
}

template <typename T>
T FromCompute(ComputeType<T> value) {
  if constexpr (kIsSmallFloat<T>) {
    return T(value);
  } else {
    return value;
  }
}

// ---------------------------------------------------------------------------
// Results and element access.

// A zero-filled literal of `shape`; an error for shapes that cannot hold
// data (negative or unbounded dimensions).
absl::StatusOr<Literal> MakeLiteral(const Shape& shape);

// Byte width of one element of an array literal.
inline int64_t ElementBytes(const Literal& literal) {
  return ByteWidth(literal.shape().element_type());
}

// Copies element `from` of `src` to element `to` of `dst` (same element
// type, row-major positions).
inline void CopyElement(const Literal& src, int64_t from, Literal* dst, int64_t to) {
  const int64_t w = ElementBytes(src);
  std::memcpy(static_cast<char*>(dst->untyped_data()) + to * w,
              static_cast<const char*>(src.untyped_data()) + from * w, w);
}

// A rank-0 literal holding element `linear` of `array`.
Literal ScalarOf(const Literal& array, int64_t linear);

// The value of an integer (or PRED) scalar as int64; unsigned values above
// INT64_MAX saturate, so they still clamp to the top of any range.
int64_t ScalarIndexValue(const Literal& scalar);

// ---------------------------------------------------------------------------
// Checks and errors.

inline absl::Status InvalidArgument(absl::string_view message) {
  return absl::InvalidArgumentError(message);
}

// Checks the operand count of `hlo` (operands.size() == n).
absl::Status ExpectOperandCount(const HloInstruction& hlo, Operands operands, int64_t n);
// Checks that `literal` is an array (not a tuple or token).
absl::Status ExpectArray(const Literal& literal, absl::string_view what);
// Checks that the instruction's shape is an array shape.
absl::Status ExpectArrayShape(const HloInstruction& hlo);
// The called computation `i` of `hlo`, or an error when missing.
absl::StatusOr<const HloComputation*> CalledComputation(const HloInstruction& hlo, int64_t i);

// "f32[2,3]" of a literal, for messages.
inline std::string ShapeString(const Literal& literal) { return literal.shape().ToString(); }

}  // namespace evaluator_internal
}  // namespace tessera

#endif  // TESSERA_HLO_EVALUATOR_EVALUATOR_INTERNAL_H_
