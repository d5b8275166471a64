// The AlgebraicSimplifier's rules for fft.
#include <vector>

#include "hlo/ir/status_macros.h"
#include "passes/simplify/algsimp_internal.h"

namespace tessera {
namespace algsimp {
namespace {

using Result = absl::StatusOr<bool>;

// `shape` with its last dimension `size` (layout kept).
Shape WithLastDimension(Shape shape, int64_t size) {
  shape.set_dimensions(shape.rank() - 1, size);
  return shape;
}

// fft(convert(x)) of real x along one axis -> rfft(x), then the rest of the
// spectrum by its Hermitian symmetry (X[n - k] = conj(X[k])): the
// conjugates of frequencies m down to 1 (m = n - n/2 - 1) after rfft's
// n/2 + 1.  Half the transform, and no complex copy of x: JAX's
// jnp.fft.fft of a real array, which a magnitude (abs) then reads.
Result FftOfReal(HloInstruction* h, Rewriter& rw) {
  if (h->attrs().fft_type != FftType::kFft || h->attrs().fft_length.size() != 1) return false;
  HloInstruction* convert = h->operand(0);
  if (convert->opcode() != HloOpcode::kConvert) return false;
  HloInstruction* x = convert->operand(0);
  const PrimitiveType complex = ElementType(h);
  const PrimitiveType real = complex == C64 ? F32 : complex == C128 ? F64 : PRIMITIVE_TYPE_INVALID;
  if (real == PRIMITIVE_TYPE_INVALID || ElementType(x) != real) return false;
  const Shape& shape = h->shape();
  const int64_t n = h->attrs().fft_length[0];
  if (shape.rank() < 1 || shape.dimensions(shape.rank() - 1) != n || n < 2) return false;
  const int64_t last = shape.rank() - 1;

  const Shape half_shape = WithLastDimension(shape, n / 2 + 1);
  auto rfft = HloInstruction::Create(HloOpcode::kFft, half_shape, {x});
  rfft->mutable_attrs().fft_type = FftType::kRfft;
  rfft->mutable_attrs().fft_length = {n};
  HloInstruction* half = rw.Add(std::move(rfft), h);
  const int64_t m = n - n / 2 - 1;
  if (m == 0) return rw.Replace(h, half);  // n = 2: rfft is the whole spectrum

  std::vector<SliceDimension> slice(shape.rank());
  for (int64_t d = 0; d < shape.rank(); ++d) slice[d] = {0, shape.dimensions(d), 1};
  slice[last] = {1, 1 + m, 1};
  const Shape mirrored_shape = WithLastDimension(shape, m);
  HloInstruction* sliced = rw.Add(HloInstruction::CreateSlice(mirrored_shape, half, slice), h);
  auto reverse = HloInstruction::Create(HloOpcode::kReverse, mirrored_shape, {sliced});
  reverse->mutable_attrs().dimensions = {last};
  HloInstruction* reversed = rw.Add(std::move(reverse), h);
  Shape part_shape = mirrored_shape;
  part_shape.set_element_type(real);
  HloInstruction* re =
      rw.Add(HloInstruction::CreateUnary(part_shape, HloOpcode::kReal, reversed), h);
  HloInstruction* im =
      rw.Add(HloInstruction::CreateUnary(part_shape, HloOpcode::kImag, reversed), h);
  HloInstruction* minus_im =
      rw.Add(HloInstruction::CreateUnary(part_shape, HloOpcode::kNegate, im), h);
  HloInstruction* conjugate =
      rw.Add(HloInstruction::CreateBinary(mirrored_shape, HloOpcode::kComplex, re, minus_im), h);
  auto concatenate = HloInstruction::Create(HloOpcode::kConcatenate, shape, {half, conjugate});
  concatenate->mutable_attrs().dimensions = {last};
  return rw.ReplaceWithNew(h, std::move(concatenate));
}

constexpr Rule kRules[] = {
    {HloOpcode::kFft, "fft-of-real", FftOfReal},
};

}  // namespace

absl::Span<const Rule> FftRules() { return kRules; }

}  // namespace algsimp
}  // namespace tessera
