// sort (one or more operands sorted together along one dimension by a
// comparator computation) and topk.  The evaluator always sorts stably
// (a valid result whether or not is_stable is set) with its own merge sort,
// which stays in bounds even when a comparator is not a strict weak order.
#include <algorithm>
#include <bit>
#include <limits>
#include <numeric>

#include "hlo/evaluator/evaluator_internal.h"
#include "hlo/evaluator/index_iteration.h"
#include "hlo/ir/hlo_opcode.h"

namespace tessera {
namespace evaluator_internal {
namespace {

// Stable merge sort of `order` by `less`, stopping at the first error.
template <typename Less>
absl::Status MergeSort(std::vector<int64_t>* order, Less&& less) {
  std::vector<int64_t> buffer(order->size());
  for (size_t width = 1; width < order->size(); width *= 2) {
    for (size_t lo = 0; lo < order->size(); lo += 2 * width) {
      const size_t mid = std::min(lo + width, order->size());
      const size_t hi = std::min(lo + 2 * width, order->size());
      size_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi) {
        // Take from the right only when it is strictly less: stable.
        TS_ASSIGN_OR_RETURN(bool right_first, less((*order)[j], (*order)[i]));
        buffer[k++] = right_first ? (*order)[j++] : (*order)[i++];
      }
      while (i < mid) buffer[k++] = (*order)[i++];
      while (j < hi) buffer[k++] = (*order)[j++];
    }
    order->swap(buffer);
  }
  return absl::OkStatus();
}

absl::StatusOr<Literal> Sort(const HloInstruction& hlo, Operands operands) {
  if (operands.empty()) return InvalidArgument("sort needs operands");
  TS_ASSIGN_OR_RETURN(const HloComputation* comparator, CalledComputation(hlo, 0));
  const size_t n = operands.size();
  std::vector<Shape> shapes;
  for (const Literal* operand : operands) {
    TS_RETURN_IF_ERROR(ExpectArray(*operand, "an operand"));
    if (operand->shape().dimensions() != operands[0]->shape().dimensions()) {
      return InvalidArgument("sort operands must have the same dimensions");
    }
    shapes.push_back(operand->shape());
  }
  if (!ShapesCompatible(n == 1 ? shapes[0] : Shape::MakeTuple(shapes), hlo.shape())) {
    return InvalidArgument("sort's result must have the operands' shapes");
  }
  const std::vector<int64_t>& dims = operands[0]->shape().dimensions();
  if (hlo.dimensions().size() != 1 || hlo.dimensions(0) < 0 ||
      hlo.dimensions(0) >= static_cast<int64_t>(dims.size())) {
    return InvalidArgument("sort needs one dimension in range");
  }
  const int64_t sort_dim = hlo.dimensions(0);
  std::vector<Literal> results;
  for (const Literal* operand : operands) results.push_back(*operand);
  // Comparator arguments: lhs and rhs scalar of each operand, interleaved.
  std::vector<Literal> scalars;
  for (const Literal* operand : operands) {
    scalars.emplace_back(Shape(operand->shape().element_type(), {}));
    scalars.emplace_back(Shape(operand->shape().element_type(), {}));
  }
  std::vector<const Literal*> args;
  for (const Literal& s : scalars) args.push_back(&s);
  ComputationRunner runner(*comparator);
  const std::vector<int64_t> strides = RowMajorStrides(dims);
  const int64_t length = dims[sort_dim];
  std::vector<int64_t> outer = dims;
  outer[sort_dim] = 1;
  TS_RETURN_IF_ERROR(ForEachIndex(outer, [&](absl::Span<const int64_t> index) -> absl::Status {
    int64_t base = 0;
    for (size_t d = 0; d < dims.size(); ++d) base += index[d] * strides[d];
    auto position = [&](int64_t i) { return base + i * strides[sort_dim]; };
    std::vector<int64_t> order(length);
    std::iota(order.begin(), order.end(), 0);
    TS_RETURN_IF_ERROR(MergeSort(&order, [&](int64_t a, int64_t b) -> absl::StatusOr<bool> {
      for (size_t i = 0; i < n; ++i) {
        CopyElement(*operands[i], position(a), &scalars[2 * i], 0);
        CopyElement(*operands[i], position(b), &scalars[2 * i + 1], 0);
      }
      TS_ASSIGN_OR_RETURN(Literal less, runner.Run(args));
      if (!less.shape().IsArray() || less.shape().element_type() != PRED ||
          less.element_count() != 1) {
        return InvalidArgument("the comparator must return a pred scalar");
      }
      return less.data<bool>()[0];
    }));
    for (size_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < length; ++j) {
        CopyElement(*operands[i], position(order[j]), &results[i], position(j));
      }
    }
    return absl::OkStatus();
  }));
  if (n == 1) return std::move(results[0]);
  return Literal::MakeTuple(std::move(results));
}

// A key that orders floats totally (-NaN < -inf < ... < -0 < +0 < ... <
// NaN) and integers naturally.
template <typename T>
auto OrderKey(T value) {
  if constexpr (kIsSmallFloat<T>) {
    using Signed = std::make_signed_t<decltype(value.bits)>;
    const Signed bits = static_cast<Signed>(value.bits);
    constexpr Signed kMagnitude = std::numeric_limits<Signed>::max();
    return static_cast<int64_t>(bits < 0 ? static_cast<Signed>(bits ^ kMagnitude) : bits);
  } else if constexpr (std::is_same_v<T, float>) {
    const int32_t bits = std::bit_cast<int32_t>(value);
    return static_cast<int64_t>(bits < 0 ? (bits ^ 0x7fffffff) : bits);
  } else if constexpr (std::is_same_v<T, double>) {
    const int64_t bits = std::bit_cast<int64_t>(value);
    return bits < 0 ? (bits ^ 0x7fffffffffffffffLL) : bits;
  } else {
    return value;
  }
}

// topk: the k largest (or smallest) elements along the last dimension, in
// order, with their s32 indices; ties keep the lower index first.
absl::StatusOr<Literal> TopK(const HloInstruction& hlo, Operands operands) {
  TS_RETURN_IF_ERROR(ExpectOperandCount(hlo, operands, 1));
  const Literal& operand = *operands[0];
  TS_RETURN_IF_ERROR(ExpectArray(operand, "the operand"));
  const std::vector<int64_t>& dims = operand.shape().dimensions();
  const int64_t k = hlo.attrs().k;
  if (dims.empty() || k < 0 || k > dims.back()) {
    return InvalidArgument("topk needs a rank >= 1 operand and 0 <= k <= its last dimension");
  }
  std::vector<int64_t> out_dims = dims;
  out_dims.back() = k;
  const Shape values_shape(operand.shape().element_type(), out_dims);
  const Shape indices_shape(S32, out_dims);
  if (!ShapesCompatible(Shape::MakeTuple({values_shape, indices_shape}), hlo.shape())) {
    return InvalidArgument("topk's result must be (values, s32 indices) of the top k");
  }
  TS_ASSIGN_OR_RETURN(Literal values, MakeLiteral(values_shape));
  TS_ASSIGN_OR_RETURN(Literal indices, MakeLiteral(indices_shape));
  const int64_t length = dims.back();
  const int64_t rows = length == 0 ? 0 : operand.element_count() / length;
  const bool largest = hlo.attrs().largest;
  absl::Status status = DispatchElementType(operand.shape().element_type(),
                                            [&]<typename T>() -> absl::Status {
    if constexpr (std::is_void_v<T> || kIsComplex<T>) {
      return InvalidArgument("topk needs a real element type");
    } else {
      auto src = operand.data<T>();
      for (int64_t r = 0; r < rows; ++r) {
        std::vector<int64_t> order(length);
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
          const auto ka = OrderKey(src[r * length + a]);
          const auto kb = OrderKey(src[r * length + b]);
          return largest ? ka > kb : ka < kb;
        });
        for (int64_t j = 0; j < k; ++j) {
          CopyElement(operand, r * length + order[j], &values, r * k + j);
          indices.data<int32_t>()[r * k + j] = static_cast<int32_t>(order[j]);
        }
      }
      return absl::OkStatus();
    }
  });
  TS_RETURN_IF_ERROR(status);
  std::vector<Literal> parts;
  parts.push_back(std::move(values));
  parts.push_back(std::move(indices));
  return Literal::MakeTuple(std::move(parts));
}

}  // namespace

absl::StatusOr<Literal> EvaluateSortOp(const HloInstruction& hlo, Operands operands) {
  if (hlo.opcode() == HloOpcode::kSort) return Sort(hlo, operands);
  return TopK(hlo, operands);
}

}  // namespace evaluator_internal
}  // namespace tessera
