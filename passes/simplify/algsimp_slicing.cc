// AlgebraicSimplifier rules for slicing and padding: slice (full, of a
// slice, of a concatenate, of a pad, of a broadcast), pad, concatenate,
// dynamic-slice and dynamic-update-slice.  All are exact: the rewritten
// graph reads the same elements of the same arrays.
#include <algorithm>
#include <limits>
#include <vector>

#include "hlo/ir/status_macros.h"
#include "passes/simplify/algsimp_internal.h"

namespace tessera {
namespace algsimp {
namespace {

using Result = absl::StatusOr<bool>;

// The first and last operand positions slice dimension `d` of `h` reads
// (the result has at least one element along `d`).
int64_t FirstRead(const HloInstruction* h, int64_t d) { return h->slice_dimensions()[d].start; }
int64_t LastRead(const HloInstruction* h, int64_t d) {
  const SliceDimension& s = h->slice_dimensions()[d];
  return s.start + (h->shape().dimensions(d) - 1) * s.stride;
}

// slice(x) covering all of x -> x.
Result FullSlice(HloInstruction* h, Rewriter& rw) {
  const Shape& operand = h->operand(0)->shape();
  for (int64_t d = 0; d < operand.rank(); ++d) {
    const SliceDimension& s = h->slice_dimensions()[d];
    if (s.start != 0 || s.stride != 1 || s.limit != operand.dimensions(d)) return false;
  }
  return rw.Replace(h, h->operand(0));
}

// slice(slice(x, s1), s2) -> slice(x, s): start s1 + s2 * t1, stride t1 * t2.
Result SliceOfSlice(HloInstruction* h, Rewriter& rw) {
  HloInstruction* inner = h->operand(0);
  if (inner->opcode() != HloOpcode::kSlice) return false;
  std::vector<SliceDimension> slice;
  for (int64_t d = 0; d < h->shape().rank(); ++d) {
    const SliceDimension& a = inner->slice_dimensions()[d];
    const SliceDimension& b = h->slice_dimensions()[d];
    SliceDimension s;
    s.start = a.start + b.start * a.stride;
    s.stride = a.stride * b.stride;
    s.limit = s.start + (h->shape().dimensions(d) - 1) * s.stride + 1;
    slice.push_back(s);
  }
  return rw.ReplaceWithNew(h, HloInstruction::CreateSlice(h->shape(), inner->operand(0), slice));
}

// slice(concatenate(a, b, ...)) -> slice(b) when every position read along
// the concatenated dimension lies in one operand.
Result SliceOfConcatenate(HloInstruction* h, Rewriter& rw) {
  HloInstruction* concat = h->operand(0);
  if (concat->opcode() != HloOpcode::kConcatenate) return false;
  const int64_t d = concat->dimensions(0);
  const int64_t first = FirstRead(h, d), last = LastRead(h, d);
  int64_t offset = 0;
  for (HloInstruction* operand : concat->operands()) {
    const int64_t size = operand->shape().dimensions(d);
    if (first >= offset && last < offset + size) {
      std::vector<SliceDimension> slice = h->slice_dimensions();
      slice[d].start = first - offset;
      slice[d].limit = last - offset + 1;
      return rw.ReplaceWithNew(h, HloInstruction::CreateSlice(h->shape(), operand, slice));
    }
    offset += size;
  }
  return false;
}

// slice(pad(x, v)) -> broadcast(v) when, along some dimension, every
// position read lies in the edge padding; -> slice(x) when there is no
// interior padding and every position read lies inside x.
Result SliceOfPad(HloInstruction* h, Rewriter& rw) {
  HloInstruction* pad = h->operand(0);
  if (pad->opcode() != HloOpcode::kPad) return false;
  HloInstruction* x = pad->operand(0);
  const PaddingConfig& config = pad->padding_config();
  bool inside = true;
  std::vector<SliceDimension> slice = h->slice_dimensions();
  for (int64_t d = 0; d < h->shape().rank(); ++d) {
    const PaddingDimension& p = config.dimensions[d];
    const int64_t size = x->shape().dimensions(d);
    const int64_t first = FirstRead(h, d), last = LastRead(h, d);
    const int64_t x_first = p.edge_padding_low;
    const int64_t x_last = p.edge_padding_low + (size - 1) * (p.interior_padding + 1);
    if (size == 0 || last < x_first || first > x_last) {
      return rw.ReplaceWithNew(
          h, HloInstruction::CreateBroadcast(h->shape(), pad->operand(1), {}));
    }
    if (p.interior_padding != 0 || first < x_first || last > x_last) inside = false;
    slice[d].start = first - p.edge_padding_low;
    slice[d].limit = last - p.edge_padding_low + 1;
  }
  if (!inside) return false;
  return rw.ReplaceWithNew(h, HloInstruction::CreateSlice(h->shape(), x, slice));
}

// slice(broadcast(x)) -> broadcast(slice(x)): the slice moves to the
// dimensions x has (and disappears when it covers them).
Result SliceOfBroadcast(HloInstruction* h, Rewriter& rw) {
  HloInstruction* broadcast = h->operand(0);
  if (broadcast->opcode() != HloOpcode::kBroadcast) return false;
  HloInstruction* x = broadcast->operand(0);
  std::vector<SliceDimension> slice;
  std::vector<int64_t> sizes;
  bool full = true;
  for (int64_t j = 0; j < x->shape().rank(); ++j) {
    const int64_t d = broadcast->dimensions(j);
    const SliceDimension& s = h->slice_dimensions()[d];
    slice.push_back(s);
    sizes.push_back(h->shape().dimensions(d));
    full &= s.start == 0 && s.stride == 1 && s.limit == x->shape().dimensions(j);
  }
  HloInstruction* source = x;
  if (!full) {
    source = rw.Add(
        HloInstruction::CreateSlice(IntermediateShape(ElementType(x), sizes, h->shape()), x,
                                    slice),
        h);
  }
  return rw.ReplaceWithNew(
      h, HloInstruction::CreateBroadcast(h->shape(), source, broadcast->dimensions()));
}

// pad(x, v) with no padding at all -> x.
Result NoopPad(HloInstruction* h, Rewriter& rw) {
  for (const PaddingDimension& p : h->padding_config().dimensions) {
    if (p.edge_padding_low != 0 || p.edge_padding_high != 0 || p.interior_padding != 0) {
      return false;
    }
  }
  return rw.Replace(h, h->operand(0));
}

// pad(x, v) of a zero-element x -> broadcast(v): only padding is left.
Result PadOfEmpty(HloInstruction* h, Rewriter& rw) {
  if (h->operand(0)->shape().ElementCount() != 0) return false;
  return rw.ReplaceWithNew(h, HloInstruction::CreateBroadcast(h->shape(), h->operand(1), {}));
}

std::unique_ptr<HloInstruction> Concatenate(const Shape& shape,
                                            absl::Span<HloInstruction* const> operands,
                                            int64_t dimension) {
  auto concat = HloInstruction::Create(HloOpcode::kConcatenate, shape, operands);
  concat->mutable_attrs().dimensions = {dimension};
  return concat;
}

// concatenate(x) -> x.
Result SingleOperandConcatenate(HloInstruction* h, Rewriter& rw) {
  if (h->operand_count() != 1) return false;
  return rw.Replace(h, h->operand(0));
}

// concatenate(..., <zero-element array>, ...) drops the empty operands.
Result ConcatenateDropEmpty(HloInstruction* h, Rewriter& rw) {
  std::vector<HloInstruction*> kept;
  for (HloInstruction* operand : h->operands()) {
    if (operand->shape().ElementCount() != 0) kept.push_back(operand);
  }
  if (kept.empty() || kept.size() == h->operands().size()) return false;
  if (kept.size() == 1 && kept[0]->shape() == h->shape()) return rw.Replace(h, kept[0]);
  return rw.ReplaceWithNew(h, Concatenate(h->shape(), kept, h->dimensions(0)));
}

// True when `b` continues `a`: both unit-stride slices of the same array
// along `d`, `b` starting where `a` ends, equal in every other dimension.
bool Adjacent(const HloInstruction* a, const HloInstruction* b, int64_t d) {
  if (a->opcode() != HloOpcode::kSlice || b->opcode() != HloOpcode::kSlice ||
      a->operand(0) != b->operand(0)) {
    return false;
  }
  for (int64_t i = 0; i < a->shape().rank(); ++i) {
    const SliceDimension& s = a->slice_dimensions()[i];
    const SliceDimension& t = b->slice_dimensions()[i];
    if (i == d) {
      if (s.stride != 1 || t.stride != 1 || s.limit != t.start) return false;
    } else if (s != t) {
      return false;
    }
  }
  return true;
}

// concatenate(slice(x, [a, b)), slice(x, [b, c))) -> slice(x, [a, c)),
// for every run of adjacent slices.
Result ConcatenateAdjacentSlices(HloInstruction* h, Rewriter& rw) {
  const int64_t d = h->dimensions(0);
  const int64_t n = h->operand_count();
  std::vector<std::pair<int64_t, int64_t>> runs;  // [begin, end) operand ranges
  bool merged = false;
  for (int64_t i = 0; i < n;) {
    int64_t j = i + 1;
    while (j < n && Adjacent(h->operand(j - 1), h->operand(j), d)) ++j;
    merged |= j - i > 1;
    runs.push_back({i, j});
    i = j;
  }
  if (!merged) return false;
  auto merged_slice = [&](int64_t begin, int64_t end, const Shape& shape) {
    std::vector<SliceDimension> slice = h->operand(begin)->slice_dimensions();
    slice[d].limit = h->operand(end - 1)->slice_dimensions()[d].limit;
    return HloInstruction::CreateSlice(shape, h->operand(begin)->operand(0), slice);
  };
  if (runs.size() == 1) return rw.ReplaceWithNew(h, merged_slice(0, n, h->shape()));
  std::vector<HloInstruction*> operands;
  for (const auto& [begin, end] : runs) {
    if (end - begin == 1) {
      operands.push_back(h->operand(begin));
      continue;
    }
    std::vector<int64_t> sizes = h->operand(begin)->shape().dimensions();
    sizes[d] = 0;
    for (int64_t k = begin; k < end; ++k) sizes[d] += h->operand(k)->shape().dimensions(d);
    operands.push_back(
        rw.Add(merged_slice(begin, end, IntermediateShape(ElementType(h), sizes, h->shape())), h));
  }
  return rw.ReplaceWithNew(h, Concatenate(h->shape(), operands, d));
}

// The value of element `i` of an index literal as the evaluator reads it:
// u64 values above the int64 range saturate.
int64_t IndexValue(const Literal& literal, int64_t i) {
  if (literal.shape().element_type() == U64) {
    const uint64_t value = literal.data<uint64_t>()[i];
    return value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
               ? std::numeric_limits<int64_t>::max()
               : static_cast<int64_t>(value);
  }
  return literal.GetAsInt64(i);
}

// The start indices of a dynamic-slice when they are all constants (one
// scalar per dimension, or one vector in old HLO), clamped as XLA does so
// that a window of `window` fits in `operand`.
std::optional<std::vector<int64_t>> ConstantStarts(const HloInstruction* h,
                                                   absl::Span<const int64_t> operand,
                                                   absl::Span<const int64_t> window) {
  const int64_t rank = static_cast<int64_t>(operand.size());
  std::vector<int64_t> starts;
  const int64_t indices = h->operand_count() - 1;
  if (indices == 1 && rank != 1 && h->operand(1)->shape().rank() == 1) {
    const HloInstruction* vector = h->operand(1);
    if (vector->opcode() != HloOpcode::kConstant || vector->shape().dimensions(0) != rank) {
      return std::nullopt;
    }
    for (int64_t d = 0; d < rank; ++d) starts.push_back(IndexValue(vector->literal(), d));
  } else {
    if (indices != rank) return std::nullopt;
    for (int64_t d = 0; d < rank; ++d) {
      const HloInstruction* index = h->operand(1 + d);
      if (index->opcode() != HloOpcode::kConstant || index->shape().rank() != 0 ||
          !IsInt(ElementType(index))) {
        return std::nullopt;
      }
      starts.push_back(IndexValue(index->literal(), 0));
    }
  }
  for (int64_t d = 0; d < rank; ++d) {
    if (window[d] > operand[d]) return std::nullopt;
    starts[d] = std::clamp<int64_t>(starts[d], 0, operand[d] - window[d]);
  }
  return starts;
}

// dynamic-slice(x, ...) as large as x -> x: every start clamps to 0.
Result FullDynamicSlice(HloInstruction* h, Rewriter& rw) {
  HloInstruction* x = h->operand(0);
  if (x->shape().dimensions() != h->shape().dimensions()) return false;
  return rw.Replace(h, x);
}

// dynamic-slice(x, constants) -> slice(x) at the clamped starts.
Result ConstantDynamicSlice(HloInstruction* h, Rewriter& rw) {
  HloInstruction* x = h->operand(0);
  std::optional<std::vector<int64_t>> starts =
      ConstantStarts(h, x->shape().dimensions(), h->shape().dimensions());
  if (!starts.has_value()) return false;
  std::vector<SliceDimension> slice;
  for (int64_t d = 0; d < h->shape().rank(); ++d) {
    slice.push_back({(*starts)[d], (*starts)[d] + h->shape().dimensions(d), 1});
  }
  return rw.ReplaceWithNew(h, HloInstruction::CreateSlice(h->shape(), x, slice));
}

// dynamic-update-slice(x, update, ...) with an update as large as x ->
// update: every start clamps to 0, so all of x is overwritten.
Result FullDynamicUpdateSlice(HloInstruction* h, Rewriter& rw) {
  HloInstruction* update = h->operand(1);
  if (update->shape().dimensions() != h->shape().dimensions()) return false;
  return rw.Replace(h, update);
}

constexpr Rule kRules[] = {
    {HloOpcode::kSlice, "full-slice", FullSlice},
    {HloOpcode::kSlice, "slice-of-slice", SliceOfSlice},
    {HloOpcode::kSlice, "slice-of-concatenate", SliceOfConcatenate},
    {HloOpcode::kSlice, "slice-of-pad", SliceOfPad},
    {HloOpcode::kSlice, "slice-of-broadcast", SliceOfBroadcast},
    {HloOpcode::kPad, "noop-pad", NoopPad},
    {HloOpcode::kPad, "pad-of-empty", PadOfEmpty},
    {HloOpcode::kConcatenate, "single-operand-concatenate", SingleOperandConcatenate},
    {HloOpcode::kConcatenate, "concatenate-drop-empty", ConcatenateDropEmpty},
    {HloOpcode::kConcatenate, "concatenate-adjacent-slices", ConcatenateAdjacentSlices},
    {HloOpcode::kDynamicSlice, "full-dynamic-slice", FullDynamicSlice},
    {HloOpcode::kDynamicSlice, "constant-dynamic-slice", ConstantDynamicSlice},
    {HloOpcode::kDynamicUpdateSlice, "full-dynamic-update-slice", FullDynamicUpdateSlice},
};

}  // namespace

absl::Span<const Rule> SlicingRules() { return kRules; }

}  // namespace algsimp
}  // namespace tessera
