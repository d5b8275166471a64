// Element generators for the ops that pick each result element from one of
// several places: pad, concatenate, dynamic-slice, dynamic-update-slice
// and gather.
// They never branch: every candidate is read at an index clamped into its
// array (so no read leaves it) and a select keeps the right one, which the
// loop vectorizer turns into masked vector code.
#include <algorithm>
#include <limits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/llvm_ir/elemental_ir_emitter.h"
#include "hlo/ir/status_macros.h"

namespace tessera {
namespace llvm_ir {
namespace {

absl::Status Bad(const HloInstruction& hlo, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat("%", hlo.name(), " (",
                                                 HloOpcodeString(hlo.opcode()), "): ", why));
}

// min(max(value, low), high) on signed i64 values.
llvm::Value* Clamp(llvm::Value* value, int64_t low, int64_t high, const IrIndex& index,
                   llvm::IRBuilder<>* b) {
  llvm::Value* low_value = index.Constant(low);
  llvm::Value* high_value = index.Constant(high);
  value = b->CreateSelect(b->CreateICmpSLT(value, low_value), low_value, value);
  return b->CreateSelect(b->CreateICmpSGT(value, high_value), high_value, value);
}

// A scalar start index as i64 (sign- or zero-extended per its type).
absl::StatusOr<llvm::Value*> StartIndex(const ElementGenerator& generator, PrimitiveType type,
                                        const IrIndex& index, llvm::IRBuilder<>* b) {
  TS_ASSIGN_OR_RETURN(llvm::Value * value, generator(IrIndex(index.index_type())));
  return IsUnsignedIntegralType(type) ? b->CreateZExtOrTrunc(value, index.index_type())
                                      : b->CreateSExtOrTrunc(value, index.index_type());
}

// Start indices of a dynamic (update-)slice, clamped as XLA does so that
// the slice of `sizes` lies inside `dims`.
absl::StatusOr<std::vector<llvm::Value*>> ClampedStarts(
    const HloInstruction& hlo, const std::vector<ElementGenerator>& operands, int64_t first,
    const std::vector<int64_t>& dims, const std::vector<int64_t>& sizes, const IrIndex& index,
    llvm::IRBuilder<>* b) {
  std::vector<llvm::Value*> starts;
  for (size_t d = 0; d < dims.size(); ++d) {
    const int64_t k = first + static_cast<int64_t>(d);
    TS_ASSIGN_OR_RETURN(
        llvm::Value * start,
        StartIndex(operands[k], hlo.operand(k)->shape().element_type(), index, b));
    starts.push_back(Clamp(start, 0, dims[d] - sizes[d], index, b));
  }
  return starts;
}

absl::Status CheckStartOperands(const HloInstruction& hlo, int64_t first, int64_t rank) {
  if (hlo.operand_count() != first + rank) {
    return Bad(hlo, absl::StrCat("needs ", rank, " scalar start indices"));
  }
  for (int64_t k = first; k < first + rank; ++k) {
    const Shape& start = hlo.operand(k)->shape();
    if (start.rank() != 0 || !IsIntegralType(start.element_type())) {
      return Bad(hlo, absl::StrCat("start index ", k - first, " is not an integer scalar"));
    }
  }
  return absl::OkStatus();
}

bool Contains(const std::vector<int64_t>& list, int64_t value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

// gather, as XLA defines it (batching dimensions included): an output
// index splits into batch dimensions (not in offset_dims), which pick an
// index vector out of start_indices, and offset dimensions, positions in
// the slice.  The slice's start comes from the index vector through
// start_index_map (and from the batch position for operand_batching_dims)
// and is clamped so that the slice fits in the operand.
absl::StatusOr<ElementGenerator> MakeGatherGenerator(const HloInstruction& hlo,
                                                     std::vector<ElementGenerator> operands,
                                                     llvm::IRBuilder<>* b) {
  if (hlo.operand_count() != 2 || !hlo.attrs().gather_dimension_numbers.has_value()) {
    return Bad(hlo, "needs an operand, start indices and dimension numbers");
  }
  const GatherDimensionNumbers dn = hlo.gather_dimension_numbers();
  const Shape operand_shape = hlo.operand(0)->shape();
  const Shape indices_shape = hlo.operand(1)->shape();
  const std::vector<int64_t> slice_sizes = hlo.attrs().gather_slice_sizes;
  const int64_t rank = operand_shape.rank();
  const int64_t out_rank = hlo.shape().rank();
  const int64_t indices_rank = indices_shape.rank();
  if (!IsIntegralType(indices_shape.element_type()) || dn.index_vector_dim < 0 ||
      dn.index_vector_dim > indices_rank || static_cast<int64_t>(slice_sizes.size()) != rank) {
    return Bad(hlo, "bad start indices or slice sizes");
  }
  const bool implicit = dn.index_vector_dim == indices_rank;
  const int64_t vector_size = implicit ? 1 : indices_shape.dimensions(dn.index_vector_dim);
  std::vector<int64_t> window_operand_dims;
  for (int64_t d = 0; d < rank; ++d) {
    if (!Contains(dn.collapsed_slice_dims, d) && !Contains(dn.operand_batching_dims, d)) {
      window_operand_dims.push_back(d);
    }
  }
  std::vector<int64_t> batch_out_dims;
  for (int64_t d = 0; d < out_rank; ++d) {
    if (!Contains(dn.offset_dims, d)) batch_out_dims.push_back(d);
  }
  bool ok = window_operand_dims.size() == dn.offset_dims.size() &&
            static_cast<int64_t>(dn.start_index_map.size()) == vector_size &&
            static_cast<int64_t>(batch_out_dims.size()) == indices_rank - (implicit ? 0 : 1) &&
            dn.operand_batching_dims.size() == dn.start_indices_batching_dims.size();
  for (int64_t d : dn.start_index_map) ok = ok && d >= 0 && d < rank;
  for (int64_t d : dn.operand_batching_dims) ok = ok && d >= 0 && d < rank;
  for (int64_t d : dn.start_indices_batching_dims) {
    ok = ok && d >= 0 && d < indices_rank && d != dn.index_vector_dim;
  }
  for (int64_t d = 0; ok && d < rank; ++d) {
    ok = slice_sizes[d] >= 0 && slice_sizes[d] <= operand_shape.dimensions(d);
  }
  if (!ok) return Bad(hlo, "dimension numbers do not fit the shapes");
  const PrimitiveType index_type = indices_shape.element_type();
  return ElementGenerator([=](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
    // The indices' multi-index for component k of the index vector.
    auto indices_index = [&](int64_t k) {
      std::vector<llvm::Value*> multi(indices_rank);
      size_t next = 0;
      for (int64_t d = 0; d < indices_rank; ++d) {
        multi[d] = d == dn.index_vector_dim ? index.Constant(k) : index[batch_out_dims[next++]];
      }
      return IrIndex(multi, indices_shape, index.index_type());
    };
    std::vector<llvm::Value*> start(rank, index.Constant(0));
    for (int64_t k = 0; k < vector_size; ++k) {
      TS_ASSIGN_OR_RETURN(llvm::Value * component, operands[1](indices_index(k)));
      llvm::Value* wide = IsUnsignedIntegralType(index_type)
                              ? b->CreateZExtOrTrunc(component, index.index_type())
                              : b->CreateSExtOrTrunc(component, index.index_type());
      if (index_type == U64) {
        // Beyond INT64_MAX: as far as it goes (the clamp below).
        wide = b->CreateSelect(b->CreateICmpSLT(wide, index.Constant(0)),
                               index.Constant(std::numeric_limits<int64_t>::max()), wide);
      }
      start[dn.start_index_map[k]] = wide;
    }
    for (size_t i = 0; i < dn.operand_batching_dims.size(); ++i) {
      // The batch coordinate of indices dimension start_indices_batching_dims[i].
      const int64_t dim = dn.start_indices_batching_dims[i];
      const int64_t position = implicit || dim < dn.index_vector_dim ? dim : dim - 1;
      start[dn.operand_batching_dims[i]] = index[batch_out_dims[position]];
    }
    std::vector<llvm::Value*> source(rank);
    size_t w = 0;
    for (int64_t d = 0; d < rank; ++d) {
      llvm::Value* position =
          Clamp(start[d], 0, operand_shape.dimensions(d) - slice_sizes[d], index, b);
      if (w < window_operand_dims.size() && window_operand_dims[w] == d) {
        position = b->CreateAdd(position, index[dn.offset_dims[w++]]);
      }
      source[d] = position;
    }
    return operands[0](IrIndex(source, operand_shape, index.index_type()));
  });
}

}  // namespace

PadSource PadSourceIndex(const HloInstruction& pad, const IrIndex& index, int64_t known_inside,
                         llvm::IRBuilder<>* b) {
  const std::vector<PaddingDimension>& padding = pad.padding_config().dimensions;
  const std::vector<int64_t>& dims = pad.operand(0)->shape().dimensions();
  PadSource source{std::vector<llvm::Value*>(dims.size()), b->getTrue()};
  for (int64_t d = 0; d < static_cast<int64_t>(dims.size()); ++d) {
    if (dims[d] == 0) {
      source.inside = b->getFalse();
      source.operand_index[d] = index.Constant(0);
      continue;
    }
    llvm::Value* t = b->CreateSub(index[d], index.Constant(padding[d].edge_padding_low));
    if (d == known_inside) {
      source.operand_index[d] = t;
      continue;
    }
    const int64_t step = padding[d].interior_padding + 1;
    llvm::Value* position = t;
    llvm::Value* ok = b->CreateICmpSGE(t, index.Constant(0));
    if (step > 1) {
      position = b->CreateSDiv(t, index.Constant(step));
      ok = b->CreateAnd(
          ok, b->CreateICmpEQ(b->CreateSRem(t, index.Constant(step)), index.Constant(0)));
    }
    ok = b->CreateAnd(ok, b->CreateICmpSLT(position, index.Constant(dims[d])));
    source.inside = b->CreateAnd(source.inside, ok);
    source.operand_index[d] = Clamp(position, 0, dims[d] - 1, index, b);
  }
  return source;
}

absl::StatusOr<ElementGenerator> MakeIndexingGenerator(const HloInstruction& hlo,
                                                       std::vector<ElementGenerator> operands,
                                                       llvm::IRBuilder<>* b) {
  const Shape& shape = hlo.shape();
  const int64_t rank = shape.rank();
  for (const HloInstruction* operand : hlo.operands()) {
    if (!operand->shape().IsArray()) return Bad(hlo, "an operand is not an array");
  }
  switch (hlo.opcode()) {
    case HloOpcode::kPad: {
      if (hlo.operand_count() != 2 || hlo.operand(1)->shape().rank() != 0 ||
          !hlo.attrs().padding_config.has_value() ||
          static_cast<int64_t>(hlo.padding_config().dimensions.size()) != rank ||
          hlo.operand(0)->shape().rank() != rank) {
        return Bad(hlo, "needs an operand, a scalar padding value and one padding per dimension");
      }
      for (const PaddingDimension& padding : hlo.padding_config().dimensions) {
        if (padding.interior_padding < 0) return Bad(hlo, "negative interior padding");
      }
      const Shape operand_shape = hlo.operand(0)->shape();
      const HloInstruction* pad = &hlo;
      return ElementGenerator([operands, operand_shape, pad,
                               b](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
        TS_ASSIGN_OR_RETURN(llvm::Value * padding_value,
                            operands[1](IrIndex(index.index_type())));
        bool empty = false;
        for (int64_t d : operand_shape.dimensions()) empty |= d == 0;
        if (empty) return padding_value;
        const PadSource source = PadSourceIndex(*pad, index, /*known_inside=*/-1, b);
        TS_ASSIGN_OR_RETURN(llvm::Value * value, operands[0](IrIndex(
                                                     source.operand_index, operand_shape,
                                                     index.index_type())));
        return b->CreateSelect(source.inside, value, padding_value);
      });
    }
    case HloOpcode::kConcatenate: {
      if (hlo.dimensions().size() != 1 || hlo.dimensions(0) < 0 || hlo.dimensions(0) >= rank ||
          hlo.operand_count() < 1) {
        return Bad(hlo, "needs one concatenation dimension and operands");
      }
      const int64_t dimension = hlo.dimensions(0);
      std::vector<int64_t> offsets;
      std::vector<Shape> shapes;
      int64_t offset = 0;
      for (const HloInstruction* operand : hlo.operands()) {
        if (operand->shape().rank() != rank) return Bad(hlo, "operands of another rank");
        offsets.push_back(offset);
        shapes.push_back(operand->shape());
        offset += operand->shape().dimensions(dimension);
      }
      if (offset != shape.dimensions(dimension)) return Bad(hlo, "sizes do not add up");
      return ElementGenerator([operands, offsets, shapes, dimension,
                               b](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
        llvm::Value* result = nullptr;
        // From the last operand back: the first whose range holds the
        // index wins.
        for (int64_t k = static_cast<int64_t>(operands.size()) - 1; k >= 0; --k) {
          const int64_t size = shapes[k].dimensions(dimension);
          if (size == 0) continue;
          std::vector<llvm::Value*> source = index.multi_index();
          llvm::Value* local = b->CreateSub(index[dimension], index.Constant(offsets[k]));
          source[dimension] = Clamp(local, 0, size - 1, index, b);
          TS_ASSIGN_OR_RETURN(llvm::Value * value,
                              operands[k](IrIndex(source, shapes[k], index.index_type())));
          if (result == nullptr) {
            result = value;
          } else {
            llvm::Value* here = b->CreateICmpSLT(local, index.Constant(size));
            result = b->CreateSelect(here, value, result);
          }
        }
        if (result == nullptr) return absl::InternalError("concatenate of empty operands");
        return result;
      });
    }
    case HloOpcode::kDynamicSlice: {
      const Shape operand_shape = hlo.operand(0)->shape();
      if (operand_shape.rank() != rank) return Bad(hlo, "operand of another rank");
      TS_RETURN_IF_ERROR(CheckStartOperands(hlo, 1, rank));
      const std::vector<int64_t> dims = operand_shape.dimensions();
      const std::vector<int64_t> sizes = shape.dimensions();
      for (int64_t d = 0; d < rank; ++d) {
        if (sizes[d] > dims[d]) return Bad(hlo, "slice larger than the operand");
      }
      const HloInstruction* self = &hlo;
      return ElementGenerator([operands, operand_shape, dims, sizes, self, rank,
                               b](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
        TS_ASSIGN_OR_RETURN(std::vector<llvm::Value*> starts,
                            ClampedStarts(*self, operands, 1, dims, sizes, index, b));
        std::vector<llvm::Value*> source(rank);
        for (int64_t d = 0; d < rank; ++d) source[d] = b->CreateAdd(index[d], starts[d]);
        return operands[0](IrIndex(source, operand_shape, index.index_type()));
      });
    }
    case HloOpcode::kDynamicUpdateSlice: {
      const Shape update_shape = hlo.operand(1)->shape();
      if (hlo.operand(0)->shape().dimensions() != shape.dimensions() ||
          update_shape.rank() != rank) {
        return Bad(hlo, "operand or update of another shape");
      }
      TS_RETURN_IF_ERROR(CheckStartOperands(hlo, 2, rank));
      const std::vector<int64_t> dims = shape.dimensions();
      const std::vector<int64_t> sizes = update_shape.dimensions();
      for (int64_t d = 0; d < rank; ++d) {
        if (sizes[d] > dims[d]) return Bad(hlo, "update larger than the operand");
      }
      const HloInstruction* self = &hlo;
      return ElementGenerator([operands, update_shape, dims, sizes, self, rank,
                               b](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
        TS_ASSIGN_OR_RETURN(llvm::Value * base, operands[0](index));
        for (int64_t size : sizes) {
          if (size == 0) return base;
        }
        TS_ASSIGN_OR_RETURN(std::vector<llvm::Value*> starts,
                            ClampedStarts(*self, operands, 2, dims, sizes, index, b));
        llvm::Value* inside = b->getTrue();
        std::vector<llvm::Value*> source(rank);
        for (int64_t d = 0; d < rank; ++d) {
          llvm::Value* local = b->CreateSub(index[d], starts[d]);
          inside = b->CreateAnd(inside, b->CreateICmpSGE(local, index.Constant(0)));
          inside = b->CreateAnd(inside, b->CreateICmpSLT(local, index.Constant(sizes[d])));
          source[d] = Clamp(local, 0, sizes[d] - 1, index, b);
        }
        TS_ASSIGN_OR_RETURN(llvm::Value * update,
                            operands[1](IrIndex(source, update_shape, index.index_type())));
        return b->CreateSelect(inside, update, base);
      });
    }
    case HloOpcode::kGather:
      return MakeGatherGenerator(hlo, std::move(operands), b);
    default:
      return absl::InternalError(absl::StrCat("%", hlo.name(), " is no indexing op"));
  }
}

}  // namespace llvm_ir
}  // namespace tessera
