// AlgebraicSimplifier rules for reduce and dot.
//
// The evaluator (the semantics every rule must keep) folds a reduction as
// reducer(...reducer(reducer(init, e0), e1)..., en) in row-major order of
// the reduced dimensions, and a dot as 0 + a0*b0 + a1*b1 + ... in the
// result's compute type, walking contracting dimensions in their listed
// order.  The rules below keep those exact sequences of operations.
#include <algorithm>
#include <vector>

#include "hlo/ir/status_macros.h"
#include "passes/simplify/algsimp_internal.h"

namespace tessera {
namespace algsimp {
namespace {

using Result = absl::StatusOr<bool>;

bool Contains(absl::Span<const int64_t> values, int64_t value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

// The dimensions of `shape` not in `removed`, in order.
std::vector<int64_t> KeptDimensions(const Shape& shape, absl::Span<const int64_t> removed) {
  std::vector<int64_t> kept;
  for (int64_t d = 0; d < shape.rank(); ++d) {
    if (!Contains(removed, d)) kept.push_back(d);
  }
  return kept;
}

bool IsSingleReduce(const HloInstruction* h) { return h->operand_count() == 2; }

// reduce over a zero-element operand -> broadcast(init): nothing is folded
// in, for any reducer.
Result ReduceOfEmpty(HloInstruction* h, Rewriter& rw) {
  if (!IsSingleReduce(h) || h->operand(0)->shape().ElementCount() != 0) return false;
  return rw.ReplaceWithNew(h, HloInstruction::CreateBroadcast(h->shape(), h->operand(1), {}));
}

// reduce(x, init) over no dimensions, or only over dimensions of size 1,
// with a reducer that is one binary op f -> f(broadcast(init), x) (x
// reshaped to the result): each result element folds exactly one element.
Result ReduceOfOneElement(HloInstruction* h, Rewriter& rw) {
  if (!IsSingleReduce(h)) return false;
  HloInstruction* x = h->operand(0);
  for (int64_t d : h->dimensions()) {
    if (x->shape().dimensions(d) != 1) return false;
  }
  std::optional<BinaryReducer> reducer = AsBinaryReducer(h->to_apply());
  if (!reducer.has_value()) return false;
  const Shape shape = IntermediateShape(ElementType(h), h->shape().dimensions(), h->shape());
  HloInstruction* values = x;
  if (x->shape().rank() != h->shape().rank()) {
    values = rw.Add(HloInstruction::CreateReshape(shape, x), h);
  }
  HloInstruction* init = rw.Add(HloInstruction::CreateBroadcast(shape, h->operand(1), {}), h);
  return rw.ReplaceWithNew(h, ApplyReducer(*reducer, h->shape(), init, values));
}

// reduce(broadcast(x), init) over dimensions the broadcast added, folding
// n > 0 copies of each value v:
//   maximum, minimum, and, or (idempotent: f(f(i, v), v) = f(i, v))
//     -> f(broadcast(init), broadcast(x)), for every type;
//   integer add -> init + n * v (wrapping arithmetic is exact in any order).
// Not float add or multiply: the sum of n equal values rounds differently
// from n * v.
Result ReduceOfBroadcast(HloInstruction* h, Rewriter& rw) {
  if (!IsSingleReduce(h)) return false;
  HloInstruction* broadcast = h->operand(0);
  if (broadcast->opcode() != HloOpcode::kBroadcast) return false;
  std::optional<BinaryReducer> reducer = AsBinaryReducer(h->to_apply());
  if (!reducer.has_value()) return false;
  const PrimitiveType type = ElementType(h);
  const HloOpcode op = reducer->opcode;
  const bool idempotent = op == HloOpcode::kMaximum || op == HloOpcode::kMinimum ||
                          ((op == HloOpcode::kAnd || op == HloOpcode::kOr) && IsIntOrPred(type));
  const bool integer_sum = op == HloOpcode::kAdd && IsInt(type);
  if (!idempotent && !integer_sum) return false;
  int64_t copies = 1;
  for (int64_t d : h->dimensions()) {
    if (Contains(broadcast->dimensions(), d)) return false;
    copies *= broadcast->shape().dimensions(d);
  }
  if (copies == 0) return false;  // ReduceOfEmpty
  // Where x's dimensions land among the result's.
  const std::vector<int64_t> kept = KeptDimensions(broadcast->shape(), h->dimensions());
  std::vector<int64_t> dimensions;
  for (int64_t d : broadcast->dimensions()) {
    dimensions.push_back(std::find(kept.begin(), kept.end(), d) - kept.begin());
  }
  const Shape shape = IntermediateShape(type, h->shape().dimensions(), h->shape());
  HloInstruction* values =
      BroadcastTo(rw, broadcast->operand(0), shape, std::move(dimensions), h);
  if (integer_sum) {
    Literal n(Shape::MakeArrayWithDescendingLayout(type, {}));
    n.SetFromInt64(0, copies);  // wraps like the sum
    values = rw.Add(HloInstruction::CreateBinary(shape, HloOpcode::kMultiply, values,
                                                 MakeUniform(rw, n, shape, h)),
                    h);
  }
  HloInstruction* init = rw.Add(HloInstruction::CreateBroadcast(shape, h->operand(1), {}), h);
  return rw.ReplaceWithNew(h, ApplyReducer(*reducer, h->shape(), init, values));
}

// For a reshape that only inserts dimensions of size 1: the operand
// dimension each result dimension comes from, -1 for inserted ones.
std::optional<std::vector<int64_t>> InsertedUnitDimensions(const HloInstruction* reshape) {
  const Shape& in = reshape->operand(0)->shape();
  const Shape& out = reshape->shape();
  std::vector<int64_t> source;
  int64_t j = 0;
  for (int64_t i = 0; i < out.rank(); ++i) {
    if (j < in.rank() && out.dimensions(i) == in.dimensions(j)) {
      source.push_back(j++);
    } else if (out.dimensions(i) == 1) {
      source.push_back(-1);
    } else {
      return std::nullopt;
    }
  }
  if (j != in.rank()) return std::nullopt;
  return source;
}

// reduce(reshape(x)) where the reshape only inserts unit dimensions ->
// reshape(reduce(x)) over the corresponding dimensions of x: the same
// elements are folded in the same order.
Result ReduceOfUnitReshape(HloInstruction* h, Rewriter& rw) {
  if (!IsSingleReduce(h)) return false;
  HloInstruction* reshape = h->operand(0);
  if (reshape->opcode() != HloOpcode::kReshape) return false;
  std::optional<std::vector<int64_t>> source = InsertedUnitDimensions(reshape);
  if (!source.has_value()) return false;
  HloInstruction* x = reshape->operand(0);
  std::vector<int64_t> dimensions;
  for (int64_t d : h->dimensions()) {
    if ((*source)[d] >= 0) dimensions.push_back((*source)[d]);
  }
  std::sort(dimensions.begin(), dimensions.end());
  std::vector<int64_t> sizes;
  for (int64_t d : KeptDimensions(x->shape(), dimensions)) sizes.push_back(x->shape().dimensions(d));
  if (sizes == h->shape().dimensions()) {
    return rw.ReplaceWithNew(h, HloInstruction::CreateReduce(h->shape(), {x, h->operand(1)},
                                                             dimensions, h->to_apply()));
  }
  HloInstruction* reduce = rw.Add(
      HloInstruction::CreateReduce(IntermediateShape(ElementType(h), sizes, h->shape()),
                                   {x, h->operand(1)}, dimensions, h->to_apply()),
      h);
  return rw.ReplaceWithNew(h, HloInstruction::CreateReshape(h->shape(), reduce));
}

// The free (neither batch nor contracting) dimensions of a dot operand.
std::vector<int64_t> FreeDimensions(int64_t rank, absl::Span<const int64_t> batch,
                                    absl::Span<const int64_t> contracting) {
  std::vector<int64_t> free;
  for (int64_t d = 0; d < rank; ++d) {
    if (!Contains(batch, d) && !Contains(contracting, d)) free.push_back(d);
  }
  return free;
}

int64_t ContractedElements(const HloInstruction* h) {
  int64_t n = 1;
  for (int64_t d : h->dot_dimension_numbers().lhs_contracting_dimensions) {
    n *= h->operand(0)->shape().dimensions(d);
  }
  return n;
}

// dot contracting zero elements -> zeros: the accumulator is never added to.
Result DotOfEmpty(HloInstruction* h, Rewriter& rw) {
  if (ContractedElements(h) != 0) return false;
  std::optional<Literal> zero = ScalarOf(ElementType(h), 0);
  if (!zero.has_value()) return false;
  return rw.Replace(h, MakeUniform(rw, *zero, h->shape(), h));
}

// An operand `transpose(A)` of a dot can be replaced by A with its
// dimension numbers mapped through the permutation when the free
// dimensions keep their relative order (the result lists them in order).
bool FoldTranspose(const HloInstruction* operand, std::vector<int64_t>* batch,
                   std::vector<int64_t>* contracting) {
  if (operand->opcode() != HloOpcode::kTranspose) return false;
  const std::vector<int64_t>& permutation = operand->dimensions();
  int64_t previous = -1;
  for (int64_t d : FreeDimensions(operand->shape().rank(), *batch, *contracting)) {
    if (permutation[d] < previous) return false;
    previous = permutation[d];
  }
  for (int64_t& d : *batch) d = permutation[d];
  for (int64_t& d : *contracting) d = permutation[d];
  return true;
}

// dot(transpose(A), B) -> dot(A, B) with the transpose folded into the
// dimension numbers (and likewise for the rhs).  The products and their
// order are unchanged.
Result DotTransposeFolding(HloInstruction* h, Rewriter& rw) {
  if (!rw.options().enable_dot_transpose_folding) return false;
  DotDimensionNumbers dnums = h->dot_dimension_numbers();
  const bool lhs = FoldTranspose(h->operand(0), &dnums.lhs_batch_dimensions,
                                 &dnums.lhs_contracting_dimensions);
  const bool rhs = FoldTranspose(h->operand(1), &dnums.rhs_batch_dimensions,
                                 &dnums.rhs_contracting_dimensions);
  if (!lhs && !rhs) return false;
  HloInstruction* a = lhs ? h->operand(0)->operand(0) : h->operand(0);
  HloInstruction* b = rhs ? h->operand(1)->operand(0) : h->operand(1);
  auto dot = HloInstruction::CreateDot(h->shape(), a, b, dnums);
  dot->mutable_attrs().precision_config = h->attrs().precision_config;
  return rw.ReplaceWithNew(h, std::move(dot));
}

bool IsMatrixTranspose(const HloInstruction* h) {
  return h->opcode() == HloOpcode::kTranspose && h->shape().rank() == 2 &&
         h->dimensions() == std::vector<int64_t>{1, 0};
}

// dot(transpose(A), transpose(B)) -> transpose(dot(B, A)) for matrices
// (A^T B^T = (B A)^T; each product is commuted, the sums keep their
// order).  Used when transpose folding is off.
Result DotOfTransposes(HloInstruction* h, Rewriter& rw) {
  const DotDimensionNumbers& dnums = h->dot_dimension_numbers();
  if (!IsMatrixTranspose(h->operand(0)) || !IsMatrixTranspose(h->operand(1)) ||
      !dnums.lhs_batch_dimensions.empty() ||
      dnums.lhs_contracting_dimensions != std::vector<int64_t>{1} ||
      dnums.rhs_contracting_dimensions != std::vector<int64_t>{0}) {
    return false;
  }
  HloInstruction* a = h->operand(0)->operand(0);
  HloInstruction* b = h->operand(1)->operand(0);
  const Shape shape = IntermediateShape(
      ElementType(h), {h->shape().dimensions(1), h->shape().dimensions(0)}, h->shape());
  auto dot = HloInstruction::CreateDot(shape, b, a, dnums);
  PrecisionConfig precision = h->attrs().precision_config;
  if (precision.operand_precision.size() == 2) {
    std::swap(precision.operand_precision[0], precision.operand_precision[1]);
  }
  dot->mutable_attrs().precision_config = precision;
  HloInstruction* swapped = rw.Add(std::move(dot), h);
  return rw.ReplaceWithNew(h, HloInstruction::CreateTranspose(h->shape(), swapped, {1, 0}));
}

// transpose(dot(A, B)) -> dot(B, A) for a matrix product whose only user
// is the transpose: (A B)^T = B^T A^T, each product commuted, each sum in
// the same order (exact), and the transposed read (a strided pass over
// the product) is gone.  Training steps make these (the weight gradient
// x^T g, applied to a weight stored the other way round).
Result TransposeOfDot(HloInstruction* h, Rewriter& rw) {
  if (!rw.options().enable_dot_transpose_folding || !IsMatrixTranspose(h)) return false;
  HloInstruction* dot = h->operand(0);
  if (dot->opcode() != HloOpcode::kDot || dot->user_count() != 1 || dot->IsRoot() ||
      dot->operand_count() != 2) {
    return false;
  }
  const DotDimensionNumbers& dnums = dot->dot_dimension_numbers();
  if (!dnums.lhs_batch_dimensions.empty() || dnums.lhs_contracting_dimensions.size() != 1 ||
      dnums.rhs_contracting_dimensions.size() != 1 || dot->shape().rank() != 2 ||
      dot->operand(0)->shape().rank() != 2 || dot->operand(1)->shape().rank() != 2) {
    return false;
  }
  DotDimensionNumbers swapped;
  swapped.lhs_contracting_dimensions = dnums.rhs_contracting_dimensions;
  swapped.rhs_contracting_dimensions = dnums.lhs_contracting_dimensions;
  // The transpose's shape, layout included (a backend fusing the dot with
  // its consumers may store it as they need).
  auto commuted =
      HloInstruction::CreateDot(h->shape(), dot->operand(1), dot->operand(0), swapped);
  PrecisionConfig precision = dot->attrs().precision_config;
  if (precision.operand_precision.size() == 2) {
    std::swap(precision.operand_precision[0], precision.operand_precision[1]);
  }
  commuted->mutable_attrs().precision_config = precision;
  return rw.ReplaceWithNew(h, std::move(commuted));
}

// One dot operand as an array laid out like the result: converted to
// `type`, its contracting unit dimensions dropped, its batch then
// free dimensions put in result order, broadcast into the result shape.
HloInstruction* DotOperandAsResult(Rewriter& rw, HloInstruction* h, HloInstruction* operand,
                                   absl::Span<const int64_t> batch,
                                   absl::Span<const int64_t> contracting,
                                   absl::Span<const int64_t> result_dimensions,
                                   PrimitiveType type) {
  const Shape& like = h->shape();
  const std::vector<int64_t> dimensions = operand->shape().dimensions();
  if (ElementType(operand) != type) {
    operand = rw.Add(
        HloInstruction::CreateConvert(IntermediateShape(type, dimensions, like), operand), h);
  }
  // The dimensions left once the contracting ones (all of size 1) go.
  const std::vector<int64_t> kept = KeptDimensions(operand->shape(), contracting);
  if (!contracting.empty()) {
    std::vector<int64_t> sizes;
    for (int64_t d : kept) sizes.push_back(dimensions[d]);
    operand =
        rw.Add(HloInstruction::CreateReshape(IntermediateShape(type, sizes, like), operand), h);
  }
  // Batch dimensions in their listed order, then free ones, as positions
  // among `kept`.
  std::vector<int64_t> order;
  auto position = [&](int64_t d) { return std::find(kept.begin(), kept.end(), d) - kept.begin(); };
  for (int64_t d : batch) order.push_back(position(d));
  for (int64_t d : FreeDimensions(dimensions.size(), batch, contracting)) {
    order.push_back(position(d));
  }
  if (!IsIdentityPermutation(order)) {
    std::vector<int64_t> sizes;
    for (int64_t i : order) sizes.push_back(dimensions[kept[i]]);
    operand = rw.Add(HloInstruction::CreateTranspose(IntermediateShape(type, sizes, like),
                                                     operand, order),
                     h);
  }
  const Shape result = IntermediateShape(type, like.dimensions(), like);
  return BroadcastTo(rw, operand, result,
                     std::vector<int64_t>(result_dimensions.begin(), result_dimensions.end()),
                     h);
}

// dot whose contracting dimensions all have size 1 (or that has none) ->
// multiply of the operands broadcast to the result: each result element is
// 0 + a*b in the dot's compute type.  Integers: a*b (wrapping).  Floats and
// complex keep the + 0, which turns a -0 product into +0 as the dot's
// accumulator does; F16 and BF16 accumulate in F32, so the multiply and add
// run in F32 and the sum is converted once (a product that underflows to
// -0 in F16 is not zero in F32: the dot gives -0 there, and so does this).
// Under fast math: a plain multiply in the result type.
Result DotToMultiply(HloInstruction* h, Rewriter& rw) {
  if (!rw.options().enable_dot_to_multiply || ContractedElements(h) != 1) return false;
  const PrimitiveType type = ElementType(h);
  if (type == PRED || !ScalarOf(type, 0).has_value()) return false;
  const bool exact_sum = !IsInt(type) && !rw.fast_math();
  const PrimitiveType compute = exact_sum && (type == F16 || type == BF16) ? F32 : type;
  const DotDimensionNumbers& dnums = h->dot_dimension_numbers();
  const int64_t batch = dnums.lhs_batch_dimensions.size();
  const int64_t lhs_free = h->operand(0)->shape().rank() - batch -
                           dnums.lhs_contracting_dimensions.size();
  std::vector<int64_t> lhs_dims, rhs_dims;
  for (int64_t d = 0; d < h->shape().rank(); ++d) {
    if (d < batch + lhs_free) lhs_dims.push_back(d);
    if (d < batch || d >= batch + lhs_free) rhs_dims.push_back(d);
  }
  HloInstruction* a = DotOperandAsResult(rw, h, h->operand(0), dnums.lhs_batch_dimensions,
                                         dnums.lhs_contracting_dimensions, lhs_dims, compute);
  HloInstruction* b = DotOperandAsResult(rw, h, h->operand(1), dnums.rhs_batch_dimensions,
                                         dnums.rhs_contracting_dimensions, rhs_dims, compute);
  if (!exact_sum) {
    return rw.ReplaceWithNew(
        h, HloInstruction::CreateBinary(h->shape(), HloOpcode::kMultiply, a, b));
  }
  const Shape shape = IntermediateShape(compute, h->shape().dimensions(), h->shape());
  HloInstruction* product =
      rw.Add(HloInstruction::CreateBinary(shape, HloOpcode::kMultiply, a, b), h);
  HloInstruction* zero = MakeUniform(rw, *ScalarOf(compute, 0), shape, h);
  if (compute == type) {
    return rw.ReplaceWithNew(
        h, HloInstruction::CreateBinary(h->shape(), HloOpcode::kAdd, product, zero));
  }
  HloInstruction* sum =
      rw.Add(HloInstruction::CreateBinary(shape, HloOpcode::kAdd, product, zero), h);
  return rw.ReplaceWithNew(h, HloInstruction::CreateConvert(h->shape(), sum));
}

constexpr Rule kRules[] = {
    {HloOpcode::kReduce, "reduce-of-empty", ReduceOfEmpty},
    {HloOpcode::kReduce, "reduce-of-one-element", ReduceOfOneElement},
    {HloOpcode::kReduce, "reduce-of-broadcast", ReduceOfBroadcast},
    {HloOpcode::kReduce, "reduce-of-unit-reshape", ReduceOfUnitReshape},
    {HloOpcode::kDot, "dot-of-empty", DotOfEmpty},
    {HloOpcode::kDot, "dot-transpose-folding", DotTransposeFolding},
    {HloOpcode::kDot, "dot-of-transposes", DotOfTransposes},
    {HloOpcode::kDot, "dot-to-multiply", DotToMultiply},
    {HloOpcode::kTranspose, "transpose-of-dot", TransposeOfDot},
};

}  // namespace

absl::Span<const Rule> DotReduceRules() { return kRules; }

}  // namespace algsimp
}  // namespace tessera
