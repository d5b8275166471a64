// Data movement: iota, broadcast, reshape, transpose, slice, dynamic-slice,
// dynamic-update-slice, concatenate, pad, reverse, copy, bitcast and the
// dimension-size ops.  All work on raw element bytes, so one code path
// serves every element type.  Literals are row-major whatever their layout;
// only bitcast looks at layouts (it reinterprets the physical buffer).
#include <algorithm>
#include <cstring>

#include "hlo/evaluator/evaluator_internal.h"
#include "hlo/evaluator/index_iteration.h"
#include "hlo/ir/hlo_opcode.h"

namespace tessera {
namespace evaluator_internal {
namespace {

absl::Status ExpectSameElementType(const HloInstruction& hlo, const Literal& operand) {
  if (operand.shape().element_type() != hlo.shape().element_type()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "operand element type ", PrimitiveTypeName(operand.shape().element_type()),
        " differs from the result's ", PrimitiveTypeName(hlo.shape().element_type())));
  }
  return absl::OkStatus();
}

// Common checks of a one-operand data-movement op.
absl::Status CheckUnaryMove(const HloInstruction& hlo, Operands operands, int64_t count = 1) {
  TS_RETURN_IF_ERROR(ExpectOperandCount(hlo, operands, count));
  TS_RETURN_IF_ERROR(ExpectArrayShape(hlo));
  TS_RETURN_IF_ERROR(ExpectArray(*operands[0], "the operand"));
  return ExpectSameElementType(hlo, *operands[0]);
}

absl::Status ExpectDimensionCount(const HloInstruction& hlo, size_t n) {
  if (hlo.dimensions().size() != n) {
    return absl::InvalidArgumentError(absl::StrCat(HloOpcodeString(hlo.opcode()), " needs ", n,
                                                   " dimension(s), has ",
                                                   hlo.dimensions().size()));
  }
  return absl::OkStatus();
}

absl::StatusOr<Literal> Iota(const HloInstruction& hlo, Operands operands) {
  TS_RETURN_IF_ERROR(ExpectOperandCount(hlo, operands, 0));
  TS_RETURN_IF_ERROR(ExpectArrayShape(hlo));
  TS_RETURN_IF_ERROR(ExpectDimensionCount(hlo, 1));
  const int64_t dim = hlo.dimensions(0);
  if (dim < 0 || dim >= hlo.shape().rank()) {
    return InvalidArgument(absl::StrCat("iota dimension ", dim, " is out of range"));
  }
  TS_ASSIGN_OR_RETURN(Literal out, MakeLiteral(hlo.shape()));
  int64_t linear = 0;
  ForEachIndex(hlo.shape().dimensions(), [&](absl::Span<const int64_t> index) {
    out.SetFromInt64(linear++, index[dim]);
  }).IgnoreError();
  return out;
}

absl::StatusOr<Literal> Broadcast(const HloInstruction& hlo, Operands operands) {
  TS_RETURN_IF_ERROR(CheckUnaryMove(hlo, operands));
  const Literal& in = *operands[0];
  const std::vector<int64_t>& dims = hlo.dimensions();
  if (static_cast<int64_t>(dims.size()) != in.shape().rank()) {
    return InvalidArgument("broadcast needs one dimension per operand dimension");
  }
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0 || dims[i] >= hlo.shape().rank() ||
        hlo.shape().dimensions(dims[i]) != in.shape().dimensions(i)) {
      return InvalidArgument(absl::StrCat("operand dimension ", i, " cannot broadcast to ",
                                          "result dimension ", dims[i]));
    }
  }
  TS_ASSIGN_OR_RETURN(Literal out, MakeLiteral(hlo.shape()));
  const std::vector<int64_t> in_strides = RowMajorStrides(in.shape().dimensions());
  int64_t linear = 0;
  ForEachIndex(hlo.shape().dimensions(), [&](absl::Span<const int64_t> index) {
    int64_t from = 0;
    for (size_t i = 0; i < dims.size(); ++i) from += index[dims[i]] * in_strides[i];
    CopyElement(in, from, &out, linear++);
  }).IgnoreError();
  return out;
}

absl::StatusOr<Literal> Reshape(const HloInstruction& hlo, Operands operands) {
  TS_RETURN_IF_ERROR(CheckUnaryMove(hlo, operands));
  const Literal& in = *operands[0];
  TS_ASSIGN_OR_RETURN(Literal out, MakeLiteral(hlo.shape()));
  if (out.element_count() != in.element_count()) {
    return InvalidArgument(absl::StrCat("cannot reshape ", ShapeString(in), " to ",
                                        hlo.shape().ToString()));
  }
  std::memcpy(out.untyped_data(), in.untyped_data(), out.size_bytes());
  return out;
}

absl::StatusOr<Literal> Transpose(const HloInstruction& hlo, Operands operands) {
  TS_RETURN_IF_ERROR(CheckUnaryMove(hlo, operands));
  const Literal& in = *operands[0];
  const std::vector<int64_t>& perm = hlo.dimensions();
  const int64_t rank = in.shape().rank();
  std::vector<bool> seen(rank, false);
  bool ok = static_cast<int64_t>(perm.size()) == rank && hlo.shape().rank() == rank;
  for (size_t i = 0; ok && i < perm.size(); ++i) {
    ok = perm[i] >= 0 && perm[i] < rank && !seen[perm[i]] &&
         hlo.shape().dimensions(i) == in.shape().dimensions(perm[i]);
    if (ok) seen[perm[i]] = true;
  }
  if (!ok) return InvalidArgument("transpose needs a permutation matching the shapes");
  TS_ASSIGN_OR_RETURN(Literal out, MakeLiteral(hlo.shape()));
  const std::vector<int64_t> in_strides = RowMajorStrides(in.shape().dimensions());
  int64_t linear = 0;
  ForEachIndex(hlo.shape().dimensions(), [&](absl::Span<const int64_t> index) {
    int64_t from = 0;
    for (int64_t i = 0; i < rank; ++i) from += index[i] * in_strides[perm[i]];
    CopyElement(in, from, &out, linear++);
  }).IgnoreError();
  return out;
}

absl::StatusOr<Literal> Slice(const HloInstruction& hlo, Operands operands) {
  TS_RETURN_IF_ERROR(CheckUnaryMove(hlo, operands));
  const Literal& in = *operands[0];
  const std::vector<SliceDimension>& slice = hlo.slice_dimensions();
  const int64_t rank = in.shape().rank();
  if (static_cast<int64_t>(slice.size()) != rank || hlo.shape().rank() != rank) {
    return InvalidArgument("slice needs one start/limit/stride per dimension");
  }
  for (int64_t d = 0; d < rank; ++d) {
    const SliceDimension& s = slice[d];
    const int64_t size = hlo.shape().dimensions(d);
    if (s.stride < 1 || s.start < 0 || s.limit > in.shape().dimensions(d) ||
        size != std::max<int64_t>(0, (s.limit - s.start + s.stride - 1) / s.stride)) {
      return InvalidArgument(absl::StrCat("slice of dimension ", d, " does not fit ",
                                          ShapeString(in)));
    }
  }
  TS_ASSIGN_OR_RETURN(Literal out, MakeLiteral(hlo.shape()));
  const std::vector<int64_t> in_strides = RowMajorStrides(in.shape().dimensions());
  int64_t linear = 0;
  ForEachIndex(hlo.shape().dimensions(), [&](absl::Span<const int64_t> index) {
    int64_t from = 0;
    for (int64_t d = 0; d < rank; ++d) {
      from += (slice[d].start + index[d] * slice[d].stride) * in_strides[d];
    }
    CopyElement(in, from, &out, linear++);
  }).IgnoreError();
  return out;
}

// The start indices of dynamic-slice / dynamic-update-slice: one scalar
// operand per dimension (or, in old HLO, one rank-1 operand), each clamped
// so that a window of `window` fits in `dims`.
absl::StatusOr<std::vector<int64_t>> ClampedStarts(Operands index_operands,
                                                   absl::Span<const int64_t> dims,
                                                   absl::Span<const int64_t> window) {
  const size_t rank = dims.size();
  std::vector<int64_t> starts;
  if (index_operands.size() == 1 && index_operands[0]->shape().IsArray() &&
      index_operands[0]->shape().rank() == 1 && rank != 1) {
    const Literal& vector = *index_operands[0];
    if (static_cast<size_t>(vector.element_count()) != rank) {
      return InvalidArgument("the start index vector needs one entry per dimension");
    }
    for (size_t d = 0; d < rank; ++d) starts.push_back(ScalarIndexValue(ScalarOf(vector, d)));
  } else {
    if (index_operands.size() != rank) {
      return InvalidArgument(absl::StrCat("needs ", rank, " start indices, has ",
                                          index_operands.size()));
    }
    for (const Literal* index : index_operands) {
      if (!index->shape().IsArray() || index->shape().rank() != 0 ||
          !IsIntegralType(index->shape().element_type())) {
        return InvalidArgument("start indices must be integer scalars");
      }
      starts.push_back(ScalarIndexValue(*index));
    }
  }
  for (size_t d = 0; d < rank; ++d) {
    if (window[d] > dims[d] || window[d] < 0) {
      return InvalidArgument(absl::StrCat("a window of ", window[d], " does not fit dimension ",
                                          d, " of size ", dims[d]));
    }
    starts[d] = std::clamp<int64_t>(starts[d], 0, dims[d] - window[d]);
  }
  return starts;
}

absl::StatusOr<Literal> DynamicSlice(const HloInstruction& hlo, Operands operands) {
  if (operands.empty()) return InvalidArgument("dynamic-slice needs operands");
  TS_RETURN_IF_ERROR(CheckUnaryMove(hlo, operands, operands.size()));
  const Literal& in = *operands[0];
  if (hlo.shape().rank() != in.shape().rank()) {
    return InvalidArgument("dynamic-slice keeps the operand's rank");
  }
  TS_ASSIGN_OR_RETURN(std::vector<int64_t> starts,
                      ClampedStarts(operands.subspan(1), in.shape().dimensions(),
                                    hlo.shape().dimensions()));
  TS_ASSIGN_OR_RETURN(Literal out, MakeLiteral(hlo.shape()));
  const std::vector<int64_t> in_strides = RowMajorStrides(in.shape().dimensions());
  int64_t linear = 0;
  ForEachIndex(hlo.shape().dimensions(), [&](absl::Span<const int64_t> index) {
    int64_t from = 0;
    for (size_t d = 0; d < index.size(); ++d) from += (starts[d] + index[d]) * in_strides[d];
    CopyElement(in, from, &out, linear++);
  }).IgnoreError();
  return out;
}

absl::StatusOr<Literal> DynamicUpdateSlice(const HloInstruction& hlo, Operands operands) {
  if (operands.size() < 2) return InvalidArgument("dynamic-update-slice needs operands");
  TS_RETURN_IF_ERROR(CheckUnaryMove(hlo, operands, operands.size()));
  const Literal& in = *operands[0];
  const Literal& update = *operands[1];
  TS_RETURN_IF_ERROR(ExpectArray(update, "the update"));
  TS_RETURN_IF_ERROR(ExpectSameElementType(hlo, update));
  if (in.shape().dimensions() != hlo.shape().dimensions() ||
      update.shape().rank() != in.shape().rank()) {
    return InvalidArgument("dynamic-update-slice keeps the operand's shape and rank");
  }
  TS_ASSIGN_OR_RETURN(std::vector<int64_t> starts,
                      ClampedStarts(operands.subspan(2), in.shape().dimensions(),
                                    update.shape().dimensions()));
  Literal out = in;
  const std::vector<int64_t> out_strides = RowMajorStrides(in.shape().dimensions());
  int64_t linear = 0;
  ForEachIndex(update.shape().dimensions(), [&](absl::Span<const int64_t> index) {
    int64_t to = 0;
    for (size_t d = 0; d < index.size(); ++d) to += (starts[d] + index[d]) * out_strides[d];
    CopyElement(update, linear++, &out, to);
  }).IgnoreError();
  return out;
}

absl::StatusOr<Literal> Concatenate(const HloInstruction& hlo, Operands operands) {
  if (operands.empty()) return InvalidArgument("concatenate needs operands");
  TS_RETURN_IF_ERROR(CheckUnaryMove(hlo, operands, operands.size()));
  TS_RETURN_IF_ERROR(ExpectDimensionCount(hlo, 1));
  const int64_t dim = hlo.dimensions(0);
  const int64_t rank = hlo.shape().rank();
  if (dim < 0 || dim >= rank) return InvalidArgument("concatenate dimension is out of range");
  int64_t total = 0;
  for (const Literal* operand : operands) {
    TS_RETURN_IF_ERROR(ExpectArray(*operand, "an operand"));
    TS_RETURN_IF_ERROR(ExpectSameElementType(hlo, *operand));
    bool ok = operand->shape().rank() == rank;
    for (int64_t d = 0; ok && d < rank; ++d) {
      ok = d == dim || operand->shape().dimensions(d) == hlo.shape().dimensions(d);
    }
    if (!ok) return InvalidArgument(absl::StrCat("operand ", ShapeString(*operand),
                                                 " does not concatenate into ",
                                                 hlo.shape().ToString()));
    total += operand->shape().dimensions(dim);
  }
  if (total != hlo.shape().dimensions(dim)) {
    return InvalidArgument("the operands' sizes do not add up to the result's");
  }
  TS_ASSIGN_OR_RETURN(Literal out, MakeLiteral(hlo.shape()));
  const std::vector<int64_t> out_strides = RowMajorStrides(hlo.shape().dimensions());
  int64_t offset = 0;
  for (const Literal* operand : operands) {
    int64_t linear = 0;
    ForEachIndex(operand->shape().dimensions(), [&](absl::Span<const int64_t> index) {
      int64_t to = offset * out_strides[dim];
      for (int64_t d = 0; d < rank; ++d) to += index[d] * out_strides[d];
      CopyElement(*operand, linear++, &out, to);
    }).IgnoreError();
    offset += operand->shape().dimensions(dim);
  }
  return out;
}

absl::StatusOr<Literal> Pad(const HloInstruction& hlo, Operands operands) {
  TS_RETURN_IF_ERROR(CheckUnaryMove(hlo, operands, 2));
  const Literal& in = *operands[0];
  const Literal& value = *operands[1];
  TS_RETURN_IF_ERROR(ExpectSameElementType(hlo, value));
  if (!value.shape().IsArray() || value.shape().rank() != 0) {
    return InvalidArgument("the padding value must be a scalar");
  }
  if (!hlo.attrs().padding_config.has_value()) return InvalidArgument("pad has no padding");
  const std::vector<PaddingDimension>& config = hlo.padding_config().dimensions;
  const int64_t rank = in.shape().rank();
  if (static_cast<int64_t>(config.size()) != rank || hlo.shape().rank() != rank) {
    return InvalidArgument("pad needs one padding per dimension");
  }
  for (int64_t d = 0; d < rank; ++d) {
    const PaddingDimension& p = config[d];
    const int64_t n = in.shape().dimensions(d);
    const int64_t size = p.edge_padding_low + p.edge_padding_high + n +
                         std::max<int64_t>(n - 1, 0) * p.interior_padding;
    if (p.interior_padding < 0 || size != hlo.shape().dimensions(d)) {
      return InvalidArgument(absl::StrCat("padding of dimension ", d, " does not give ",
                                          hlo.shape().ToString()));
    }
  }
  TS_ASSIGN_OR_RETURN(Literal out, MakeLiteral(hlo.shape()));
  for (int64_t i = 0; i < out.element_count(); ++i) CopyElement(value, 0, &out, i);
  const std::vector<int64_t> out_strides = RowMajorStrides(hlo.shape().dimensions());
  int64_t linear = 0;
  ForEachIndex(in.shape().dimensions(), [&](absl::Span<const int64_t> index) {
    int64_t to = 0;
    bool inside = true;
    for (int64_t d = 0; d < rank && inside; ++d) {
      const int64_t position =
          config[d].edge_padding_low + index[d] * (config[d].interior_padding + 1);
      inside = position >= 0 && position < hlo.shape().dimensions(d);
      to += position * out_strides[d];
    }
    if (inside) CopyElement(in, linear, &out, to);
    ++linear;
  }).IgnoreError();
  return out;
}

absl::StatusOr<Literal> Reverse(const HloInstruction& hlo, Operands operands) {
  TS_RETURN_IF_ERROR(CheckUnaryMove(hlo, operands));
  const Literal& in = *operands[0];
  if (in.shape().dimensions() != hlo.shape().dimensions()) {
    return InvalidArgument("reverse keeps the operand's shape");
  }
  const int64_t rank = in.shape().rank();
  std::vector<bool> reversed(rank, false);
  for (int64_t d : hlo.dimensions()) {
    if (d < 0 || d >= rank) return InvalidArgument("reverse dimension out of range");
    reversed[d] = true;
  }
  TS_ASSIGN_OR_RETURN(Literal out, MakeLiteral(hlo.shape()));
  const std::vector<int64_t> strides = RowMajorStrides(in.shape().dimensions());
  int64_t linear = 0;
  ForEachIndex(in.shape().dimensions(), [&](absl::Span<const int64_t> index) {
    int64_t from = 0;
    for (int64_t d = 0; d < rank; ++d) {
      from += (reversed[d] ? in.shape().dimensions(d) - 1 - index[d] : index[d]) * strides[d];
    }
    CopyElement(in, from, &out, linear++);
  }).IgnoreError();
  return out;
}

// The minor-to-major order of a shape: its layout, or row-major.
std::vector<int64_t> MinorToMajor(const Shape& shape) {
  if (shape.has_layout() &&
      static_cast<int64_t>(shape.layout().minor_to_major.size()) == shape.rank()) {
    return shape.layout().minor_to_major;
  }
  return Layout::Descending(shape.rank()).minor_to_major;
}

// bitcast reinterprets the operand's physical buffer (its bytes in its
// layout's order) as the result's physical buffer.
absl::StatusOr<Literal> Bitcast(const HloInstruction& hlo, Operands operands,
                                const Shape& operand_shape) {
  TS_RETURN_IF_ERROR(ExpectOperandCount(hlo, operands, 1));
  TS_RETURN_IF_ERROR(ExpectArrayShape(hlo));
  const Literal& in = *operands[0];
  TS_RETURN_IF_ERROR(ExpectArray(in, "the operand"));
  TS_ASSIGN_OR_RETURN(Literal out, MakeLiteral(hlo.shape()));
  if (out.size_bytes() > in.size_bytes()) {
    return InvalidArgument(absl::StrCat("cannot bitcast ", operand_shape.ToString(true), " to ",
                                        hlo.shape().ToString(true), ": the result is larger"));
  }
  const int64_t in_width = ElementBytes(in);
  const int64_t out_width = ElementBytes(out);
  const std::vector<int64_t> in_physical =
      PhysicalPositions(in.shape().dimensions(), MinorToMajor(operand_shape));
  std::vector<uint8_t> buffer(in.size_bytes());
  const auto* src = static_cast<const uint8_t*>(in.untyped_data());
  for (size_t i = 0; i < in_physical.size(); ++i) {
    std::memcpy(&buffer[in_physical[i] * in_width], src + i * in_width, in_width);
  }
  const std::vector<int64_t> out_physical =
      PhysicalPositions(hlo.shape().dimensions(), MinorToMajor(hlo.shape()));
  auto* dst = static_cast<uint8_t*>(out.untyped_data());
  for (size_t i = 0; i < out_physical.size(); ++i) {
    std::memcpy(dst + i * out_width, &buffer[out_physical[i] * out_width], out_width);
  }
  if (hlo.shape().element_type() == PRED) {
    for (int64_t i = 0; i < out.size_bytes(); ++i) dst[i] = dst[i] != 0;
  }
  return out;
}

absl::StatusOr<Literal> GetDimensionSize(const HloInstruction& hlo, Operands operands) {
  TS_RETURN_IF_ERROR(ExpectOperandCount(hlo, operands, 1));
  TS_RETURN_IF_ERROR(ExpectArray(*operands[0], "the operand"));
  TS_RETURN_IF_ERROR(ExpectDimensionCount(hlo, 1));
  const int64_t dim = hlo.dimensions(0);
  if (dim < 0 || dim >= operands[0]->shape().rank()) {
    return InvalidArgument("get-dimension-size dimension is out of range");
  }
  if (!hlo.shape().IsArray() || hlo.shape().rank() != 0) {
    return InvalidArgument("get-dimension-size gives a scalar");
  }
  TS_ASSIGN_OR_RETURN(Literal out, MakeLiteral(hlo.shape()));
  out.SetFromInt64(0, operands[0]->shape().dimensions(dim));
  return out;
}

}  // namespace

absl::StatusOr<Literal> EvaluateShapeOp(const HloInstruction& hlo, Operands operands) {
  switch (hlo.opcode()) {
    case HloOpcode::kIota: return Iota(hlo, operands);
    case HloOpcode::kBroadcast: return Broadcast(hlo, operands);
    case HloOpcode::kReshape: return Reshape(hlo, operands);
    case HloOpcode::kTranspose: return Transpose(hlo, operands);
    case HloOpcode::kSlice: return Slice(hlo, operands);
    case HloOpcode::kDynamicSlice: return DynamicSlice(hlo, operands);
    case HloOpcode::kDynamicUpdateSlice: return DynamicUpdateSlice(hlo, operands);
    case HloOpcode::kConcatenate: return Concatenate(hlo, operands);
    case HloOpcode::kPad: return Pad(hlo, operands);
    case HloOpcode::kReverse: return Reverse(hlo, operands);
    case HloOpcode::kCopy:
      TS_RETURN_IF_ERROR(ExpectOperandCount(hlo, operands, 1));
      return *operands[0];
    case HloOpcode::kBitcast:
      TS_RETURN_IF_ERROR(ExpectOperandCount(hlo, operands, 1));
      return Bitcast(hlo, operands, hlo.operand(0)->shape());
    case HloOpcode::kGetDimensionSize: return GetDimensionSize(hlo, operands);
    case HloOpcode::kSetDimensionSize:
      // Dimensions are static here: the value passes through.
      TS_RETURN_IF_ERROR(ExpectOperandCount(hlo, operands, 2));
      return *operands[0];
    default:
      return absl::InternalError(
          absl::StrCat("not a shape op: ", HloOpcodeString(hlo.opcode())));
  }
}

}  // namespace evaluator_internal
}  // namespace tessera
