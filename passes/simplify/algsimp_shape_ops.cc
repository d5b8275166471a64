// AlgebraicSimplifier rules for ops that change types, layouts or the
// arrangement of elements: convert, copy, bitcast, reshape, transpose and
// broadcast.  All are exact: they only drop ops that do nothing or merge
// two ops into one that moves the same elements.
#include <vector>

#include "hlo/ir/status_macros.h"
#include "passes/simplify/algsimp_internal.h"

namespace tessera {
namespace algsimp {
namespace {

using Result = absl::StatusOr<bool>;

// Significand digits (with the implicit bit) of a float type, or of a
// complex type's components.
int SignificandDigits(PrimitiveType type) {
  switch (type) {
    case F16: return 11;
    case BF16: return 8;
    case F32: case C64: return 24;
    case F64: case C128: return 53;
    default: return 0;
  }
}

// True when every value of `from` converts to `to` exactly and converts
// back unchanged (signed zeros, infinities and NaN included).
bool IsLosslessConversion(PrimitiveType from, PrimitiveType to) {
  if (from == to) return true;
  const bool to_number = IsInt(to) || IsFloat(to) || IsComplexType(to);
  if (from == PRED) return to_number;
  if (to == PRED || !to_number) return false;
  if (IsInt(from)) {
    const bool from_signed = IsSignedIntegralType(from);
    if (IsInt(to)) {
      if (from_signed) return IsSignedIntegralType(to) && BitWidth(to) >= BitWidth(from);
      return IsSignedIntegralType(to) ? BitWidth(to) > BitWidth(from)
                                      : BitWidth(to) >= BitWidth(from);
    }
    // Floats and complex: every integer of the type needs a significand
    // that wide (the exponent range of every float type is enough).
    return SignificandDigits(to) >= BitWidth(from) - (from_signed ? 1 : 0);
  }
  if (IsFloat(from)) {
    const PrimitiveType target = IsComplexType(to) ? ComplexComponentType(to) : to;
    if (target == from) return true;
    switch (from) {
      case F16: case BF16: return target == F32 || target == F64;
      case F32: return target == F64;
      default: return false;
    }
  }
  return from == C64 && to == C128;
}

// convert(x) to x's own element type -> x.
Result ConvertToSameType(HloInstruction* h, Rewriter& rw) {
  HloInstruction* x = h->operand(0);
  if (ElementType(x) != ElementType(h)) return false;
  return rw.Replace(h, x);
}

// convert(convert(x, T1), T2) -> convert(x, T2) when x's type T0 converts
// to T1 without loss: the second convert then sees x's exact value (e.g.
// s8->s32->s64 is s8->s64, and f32->f64->f32 is x itself).  One exception:
// to an integer T2, integers wrap but floats saturate, so an integer x that
// went through a float T1 must fit T2 (u8->f16->s8 saturates 200 to 127,
// u8->s8 wraps it to -56).
Result LosslessConvertChain(HloInstruction* h, Rewriter& rw) {
  HloInstruction* inner = h->operand(0);
  if (inner->opcode() != HloOpcode::kConvert) return false;
  HloInstruction* x = inner->operand(0);
  const PrimitiveType from = ElementType(x), via = ElementType(inner), to = ElementType(h);
  if (!IsLosslessConversion(from, via)) return false;
  if (IsInt(to) && IsInt(from) && !IsInt(via) && !IsLosslessConversion(from, to)) return false;
  if (from == to) return rw.Replace(h, x);
  return rw.ReplaceWithNew(h, HloInstruction::CreateConvert(h->shape(), x));
}

// copy(x) -> x when the copy keeps x's layout (a copy that changes the
// layout stays: it moves data).
Result CopyToSameLayout(HloInstruction* h, Rewriter& rw) { return rw.Replace(h, h->operand(0)); }

// copy(copy(x)) -> copy(x) (or x when the layouts agree).
Result CopyOfCopy(HloInstruction* h, Rewriter& rw) {
  HloInstruction* inner = h->operand(0);
  if (inner->opcode() != HloOpcode::kCopy) return false;
  HloInstruction* x = inner->operand(0);
  if (x->shape() == h->shape()) return rw.Replace(h, x);
  return rw.ReplaceWithNew(h, HloInstruction::CreateUnary(h->shape(), HloOpcode::kCopy, x));
}

// bitcast(x) -> x when the shape (layout included) is x's own.
Result BitcastToSameShape(HloInstruction* h, Rewriter& rw) {
  return rw.Replace(h, h->operand(0));
}

// bitcast(bitcast(x)) -> bitcast(x): both reinterpret the same bytes.  Not
// through PRED from another type: a PRED bitcast normalizes bytes to 0/1.
Result BitcastOfBitcast(HloInstruction* h, Rewriter& rw) {
  HloInstruction* inner = h->operand(0);
  if (inner->opcode() != HloOpcode::kBitcast) return false;
  HloInstruction* x = inner->operand(0);
  if (ElementType(inner) == PRED && ElementType(x) != PRED) return false;
  if (x->shape() == h->shape()) return rw.Replace(h, x);
  return rw.ReplaceWithNew(h, HloInstruction::CreateUnary(h->shape(), HloOpcode::kBitcast, x));
}

// reshape(x) -> x when the shape (layout included) is x's own.
Result ReshapeNoop(HloInstruction* h, Rewriter& rw) { return rw.Replace(h, h->operand(0)); }

// reshape(reshape(x)) -> reshape(x): both are row-major relabelings.
Result ReshapeOfReshape(HloInstruction* h, Rewriter& rw) {
  HloInstruction* inner = h->operand(0);
  if (inner->opcode() != HloOpcode::kReshape) return false;
  HloInstruction* x = inner->operand(0);
  if (x->shape() == h->shape()) return rw.Replace(h, x);
  return rw.ReplaceWithNew(h, HloInstruction::CreateReshape(h->shape(), x));
}

// reshape(broadcast(scalar)) -> broadcast(scalar).
Result ReshapeOfScalarBroadcast(HloInstruction* h, Rewriter& rw) {
  HloInstruction* inner = h->operand(0);
  if (inner->opcode() != HloOpcode::kBroadcast || inner->operand(0)->shape().rank() != 0) {
    return false;
  }
  return rw.ReplaceWithNew(h, HloInstruction::CreateBroadcast(h->shape(), inner->operand(0), {}));
}

// transpose(x) with the identity permutation -> x (same layout only).
Result IdentityTranspose(HloInstruction* h, Rewriter& rw) {
  if (!IsIdentityPermutation(h->dimensions())) return false;
  return rw.Replace(h, h->operand(0));
}

// transpose(transpose(x, p1), p2) -> transpose(x, p) with p[i] = p1[p2[i]],
// or x when p is the identity and the layouts agree.
Result TransposeOfTranspose(HloInstruction* h, Rewriter& rw) {
  HloInstruction* inner = h->operand(0);
  if (inner->opcode() != HloOpcode::kTranspose) return false;
  HloInstruction* x = inner->operand(0);
  std::vector<int64_t> permutation;
  for (int64_t d : h->dimensions()) permutation.push_back(inner->dimensions(d));
  if (IsIdentityPermutation(permutation) && x->shape() == h->shape()) return rw.Replace(h, x);
  return rw.ReplaceWithNew(h, HloInstruction::CreateTranspose(h->shape(), x, permutation));
}

// broadcast(x) that adds no dimension and keeps their order -> x.
Result NoopBroadcast(HloInstruction* h, Rewriter& rw) {
  HloInstruction* x = h->operand(0);
  if (x->shape().rank() != h->shape().rank() || !IsIdentityPermutation(h->dimensions())) {
    return false;
  }
  return rw.Replace(h, x);
}

// broadcast(broadcast(x, d1), d2) -> broadcast(x, d) with d[j] = d2[d1[j]].
Result BroadcastOfBroadcast(HloInstruction* h, Rewriter& rw) {
  HloInstruction* inner = h->operand(0);
  if (inner->opcode() != HloOpcode::kBroadcast) return false;
  std::vector<int64_t> dimensions;
  for (int64_t d : inner->dimensions()) dimensions.push_back(h->dimensions(d));
  return rw.ReplaceWithNew(
      h, HloInstruction::CreateBroadcast(h->shape(), inner->operand(0), dimensions));
}

// An annotation custom call (a sharding, on one device) -> its operand, or
// a copy into its layout.
Result AnnotationCustomCall(HloInstruction* h, Rewriter& rw) {
  if (!IsAnnotationCustomCall(*h)) return false;
  HloInstruction* x = h->operands()[0];
  if (ShapesCompatible(x->shape(), h->shape()) &&
      (!h->shape().has_layout() || !x->shape().has_layout() ||
       h->shape().layout() == x->shape().layout())) {
    return rw.Replace(h, x);
  }
  return rw.ReplaceWithNew(h, HloInstruction::CreateUnary(h->shape(), HloOpcode::kCopy, x));
}

// A collective over one participant (pmap or shard_map on one device:
// psum, all_gather, ...) with one operand of the result's shape -> the
// operand, as the evaluator computes it.
Result OneParticipantCollective(HloInstruction* h, Rewriter& rw) {
  if (h->operand_count() != 1 || CollectiveGroupSize(*h) != 1) return false;
  HloInstruction* x = h->operands()[0];
  if (!h->shape().IsArray() || !ShapesCompatible(x->shape(), h->shape()) ||
      (h->shape().has_layout() && x->shape().has_layout() &&
       h->shape().layout() != x->shape().layout())) {
    return false;
  }
  return rw.Replace(h, x);
}

constexpr Rule kRules[] = {
    {HloOpcode::kAllReduce, "one-participant-all-reduce", OneParticipantCollective},
    {HloOpcode::kAllGather, "one-participant-all-gather", OneParticipantCollective},
    {HloOpcode::kReduceScatter, "one-participant-reduce-scatter", OneParticipantCollective},
    {HloOpcode::kAllToAll, "one-participant-all-to-all", OneParticipantCollective},
    {HloOpcode::kCollectiveBroadcast, "one-participant-collective-broadcast",
     OneParticipantCollective},
    {HloOpcode::kCustomCall, "annotation-custom-call", AnnotationCustomCall},
    {HloOpcode::kConvert, "convert-same-type", ConvertToSameType},
    {HloOpcode::kConvert, "lossless-convert-chain", LosslessConvertChain},
    {HloOpcode::kCopy, "copy-same-layout", CopyToSameLayout},
    {HloOpcode::kCopy, "copy-of-copy", CopyOfCopy},
    {HloOpcode::kBitcast, "bitcast-same-shape", BitcastToSameShape},
    {HloOpcode::kBitcast, "bitcast-of-bitcast", BitcastOfBitcast},
    {HloOpcode::kReshape, "reshape-noop", ReshapeNoop},
    {HloOpcode::kReshape, "reshape-of-reshape", ReshapeOfReshape},
    {HloOpcode::kReshape, "reshape-of-scalar-broadcast", ReshapeOfScalarBroadcast},
    {HloOpcode::kTranspose, "identity-transpose", IdentityTranspose},
    {HloOpcode::kTranspose, "transpose-of-transpose", TransposeOfTranspose},
    {HloOpcode::kBroadcast, "noop-broadcast", NoopBroadcast},
    {HloOpcode::kBroadcast, "broadcast-of-broadcast", BroadcastOfBroadcast},
};

}  // namespace

absl::Span<const Rule> ShapeOpRules() { return kRules; }

}  // namespace algsimp
}  // namespace tessera
