// Physical layouts for the values a module computes; see layout_assignment.h.
#include "passes/layout/layout_assignment.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "hlo/ir/hlo_computation.h"
#include "hlo/ir/hlo_module.h"
#include "hlo/ir/hlo_opcode.h"
#include "hlo/ir/status_macros.h"

namespace tessera {
namespace {

// minor_to_major listing `minor` first, then `spatial` from the last to
// the first, then `major`: the layout whose physical order is major,
// spatial..., minor (NHWC for a batch major and features minor).
Layout SpatialInBetween(int64_t major, const std::vector<int64_t>& spatial,
                        std::vector<int64_t> minor) {
  Layout layout;
  layout.minor_to_major = std::move(minor);
  for (auto it = spatial.rbegin(); it != spatial.rend(); ++it) {
    layout.minor_to_major.push_back(*it);
  }
  if (major >= 0) layout.minor_to_major.push_back(major);
  return layout;
}

// A user that reads its operand by logical index wherever it lies.
bool ReadsAnyLayout(const HloInstruction& user, const HloInstruction& operand) {
  switch (user.opcode()) {
    case HloOpcode::kConvolution:
    case HloOpcode::kReduce:
    case HloOpcode::kReduceWindow:
    case HloOpcode::kBroadcast:
    case HloOpcode::kDot:
    case HloOpcode::kTranspose:
    case HloOpcode::kSlice:
    case HloOpcode::kPad:
    case HloOpcode::kConcatenate:
    case HloOpcode::kCopy:
    case HloOpcode::kDynamicSlice:
    case HloOpcode::kSelectAndScatter:
      return true;
    case HloOpcode::kDynamicUpdateSlice:
    case HloOpcode::kScatter:
      return user.operand(0) != &operand;  // not the buffer updated in place
    default:
      return HloOpcodeIsElementwise(user.opcode());
  }
}

class Assigner {
 public:
  // Whether `hlo`'s layout is this pass's to choose.
  bool Free(const HloInstruction& hlo) const {
    if (!hlo.shape().IsArray() || hlo.IsRoot() || hlo.shape().rank() < 2) return false;
    if (!hlo.shape().has_layout() || !hlo.shape().layout().tiles.empty()) return false;
    const HloOpcode op = hlo.opcode();
    if (op != HloOpcode::kConvolution && op != HloOpcode::kBroadcast &&
        !HloOpcodeIsElementwise(op)) {
      return false;
    }
    for (const HloInstruction* user : hlo.users()) {
      if (!ReadsAnyLayout(*user, hlo)) return false;
    }
    return true;
  }

  // Asks for `layout` on `hlo` and on everything it reaches through
  // elementwise operands and users of the same dimensions; all or nothing:
  // when any of them has a fixed layout (or another request's), none
  // changes, since the kernel between them would then read or write
  // across layouts (a transposing pass) instead of the convolution.
  void Want(HloInstruction* hlo, const Layout& layout) {
    std::vector<HloInstruction*> group;
    absl::flat_hash_set<const HloInstruction*> seen = {hlo};
    std::vector<HloInstruction*> work = {hlo};
    while (!work.empty()) {
      HloInstruction* next = work.back();
      work.pop_back();
      // A broadcast reached from the group is computed inside each user's
      // kernel from its operand's index: it follows when it may and binds
      // nothing (a broadcast zero shared with other groups).
      const bool follower = next != hlo && next->opcode() == HloOpcode::kBroadcast;
      if (decided_.contains(next) || !Free(*next)) {
        if (follower) continue;
        return;
      }
      group.push_back(next);
      if (follower) continue;
      auto visit = [&](HloInstruction* other) {
        if (other->shape().IsArray() && other->shape().dimensions() == next->shape().dimensions() &&
            seen.insert(other).second) {
          work.push_back(other);
        }
      };
      if (HloOpcodeIsElementwise(next->opcode())) {
        for (HloInstruction* operand : next->operands()) visit(operand);
      }
      for (HloInstruction* user : next->users()) {
        if (HloOpcodeIsElementwise(user->opcode())) visit(user);
      }
    }
    for (HloInstruction* member : group) {
      decided_.insert(member);
      if (member->shape().layout() != layout) {
        member->mutable_shape()->set_layout(layout);
        ++changed_;
      }
    }
  }

  int64_t changed() const { return changed_; }

 private:
  absl::flat_hash_set<const HloInstruction*> decided_;
  int64_t changed_ = 0;
};

}  // namespace

ConvolutionLayouts PreferredConvolutionLayouts(const HloInstruction& convolution) {
  const ConvolutionDimensionNumbers& d = convolution.convolution_dimension_numbers();
  ConvolutionLayouts layouts;
  layouts.input = SpatialInBetween(d.input_batch_dimension, d.input_spatial_dimensions,
                                   {d.input_feature_dimension});
  layouts.kernel =
      SpatialInBetween(-1, d.kernel_spatial_dimensions,
                       {d.kernel_output_feature_dimension, d.kernel_input_feature_dimension});
  layouts.output = SpatialInBetween(d.output_batch_dimension, d.output_spatial_dimensions,
                                    {d.output_feature_dimension});
  return layouts;
}

// Input features from which a convolution's input whose layout is fixed
// with the features not minor-most is converted to NHWC first: the gather
// then copies runs of features instead of single elements at a stride,
// which for a 4x64x56x56 NCHW input took longer than the conversion
// (3.9 -> 3.1 + 0.3 ms).  Few features (an RGB image) gather fine as they
// are.
constexpr int64_t kConvertInputMinFeatures = 16;

// The same for a convolution's result that reaches the computation's root
// (itself, or through single-user elementwise ops, as a ReLU): it is
// computed in NHWC and converted once at the end, since the convolution
// kernels write NHWC directly (oneDNN's direct convolution takes only
// that) and the conversion is one streaming pass.
constexpr int64_t kConvertOutputMinFeatures = 16;

// The value that carries `convolution`'s result to the root: the
// convolution or the last of a chain of elementwise single users of its
// dimensions, where that value is the root or the root tuple's element;
// null otherwise.
HloInstruction* ValueReachingRoot(HloInstruction* convolution) {
  HloInstruction* value = convolution;
  const HloComputation* computation = convolution->parent();
  while (true) {
    if (value->IsRoot()) return value;
    if (value->user_count() != 1) return nullptr;
    HloInstruction* user = value->users()[0];
    if (user == computation->root_instruction() && user->opcode() == HloOpcode::kTuple) {
      return value;
    }
    if (!HloOpcodeIsElementwise(user->opcode()) ||
        user->shape().dimensions() != value->shape().dimensions()) {
      return nullptr;
    }
    value = user;
  }
}

namespace {

// Where `convolution`'s result reaches the root (ValueReachingRoot), puts a
// copy in the root's layout in front of the root and asks again for
// `layout` on the convolution and its chain; undone when the chain still
// cannot move (a member with another fixed layout).
absl::Status ConvertAtTheRoot(HloComputation* computation, HloInstruction* convolution,
                              const Layout& layout, Assigner& assigner, int64_t* changed) {
  HloInstruction* value = ValueReachingRoot(convolution);
  if (value == nullptr || value->shape().rank() < 2) return absl::OkStatus();
  HloInstruction* copy = computation->AddInstruction(
      HloInstruction::CreateUnary(value->shape(), HloOpcode::kCopy, value));
  // The root (or its tuple element) is now the copy.
  TS_RETURN_IF_ERROR(value->ReplaceAllUsesWith(copy));
  assigner.Want(convolution, layout);
  if (convolution->shape().layout() == layout) {
    ++*changed;
    return absl::OkStatus();
  }
  TS_RETURN_IF_ERROR(copy->ReplaceAllUsesWith(value));
  return computation->RemoveInstruction(copy);
}

// Whether `hlo` is a reshape between row-major layouts (tiles, packed
// elements and dynamic sizes aside): it moves no element, so it is the
// same bytes read as another shape.
bool IsRowMajorReshape(const HloInstruction& hlo) {
  if (hlo.opcode() != HloOpcode::kReshape) return false;
  for (const Shape* shape : {&hlo.shape(), &hlo.operand(0)->shape()}) {
    if (!shape->IsArray() || !shape->has_layout() || !shape->layout().IsDescending() ||
        !shape->layout().tiles.empty() ||
        std::find(shape->dynamic_dimensions().begin(), shape->dynamic_dimensions().end(), true) !=
            shape->dynamic_dimensions().end()) {
      return false;
    }
  }
  return hlo.shape().element_type() == hlo.operand(0)->shape().element_type();
}

// The operand layout under which `transpose` moves no element: operand
// dimension dims[r] takes the place of result dimension r in the order.
Layout TransposeSourceLayout(const HloInstruction& transpose) {
  Layout layout;
  for (int64_t r : transpose.shape().layout().minor_to_major) {
    layout.minor_to_major.push_back(transpose.dimensions()[r]);
  }
  return layout;
}

bool IsPlainArray(const Shape& shape) {
  return shape.IsArray() && shape.has_layout() && shape.layout().tiles.empty() &&
         static_cast<int64_t>(shape.layout().minor_to_major.size()) == shape.rank();
}

// A transpose whose operand's physical order is its own: the same bytes.
bool IsBitcastTranspose(const HloInstruction& hlo) {
  if (hlo.opcode() != HloOpcode::kTranspose || !IsPlainArray(hlo.shape()) ||
      !IsPlainArray(hlo.operand(0)->shape())) {
    return false;
  }
  return hlo.operand(0)->shape().layout().minor_to_major ==
         TransposeSourceLayout(hlo).minor_to_major;
}

// A dot whose only user is a transpose, itself read only by one reshape
// (the transformer block's attention output: [heads, seq, dim] transposed
// to [seq, heads, dim] and reshaped to [seq, width]): the transpose is
// made row-major and the dot writes its result in the layout that makes
// the transpose move nothing, when that keeps the dot's last (column)
// dimension minor-most and the dot has at most one batch dimension (a
// strided batch, which the CPU backend's GEMM writes in any order with
// its rows).  The GEMM then writes the transposed array through its
// strides, and the transpose and the reshape are bitcasts.
int64_t DotsIntoTransposes(HloComputation* computation) {
  int64_t changed = 0;
  for (HloInstruction* hlo : computation->MakeInstructionPostOrder()) {
    if (hlo->opcode() != HloOpcode::kTranspose || hlo->IsRoot() || !IsPlainArray(hlo->shape()) ||
        hlo->user_count() != 1 || hlo->users()[0]->opcode() != HloOpcode::kReshape) {
      continue;
    }
    HloInstruction* dot = hlo->operands()[0];
    if (dot->opcode() != HloOpcode::kDot || dot->user_count() != 1 || dot->IsRoot() ||
        !IsPlainArray(dot->shape()) ||
        dot->dot_dimension_numbers().lhs_batch_dimensions.size() > 1) {
      continue;
    }
    Shape row_major = hlo->shape();
    row_major.set_layout(Layout::Descending(row_major.rank()));
    Layout layout;
    for (int64_t r : row_major.layout().minor_to_major) {
      layout.minor_to_major.push_back(hlo->dimensions()[r]);
    }
    if (layout.minor_to_major.empty() || layout.minor_to_major[0] != dot->shape().rank() - 1) {
      continue;
    }
    if (hlo->shape().layout() != row_major.layout()) {
      hlo->mutable_shape()->set_layout(row_major.layout());
      ++changed;
    }
    if (dot->shape().layout() != layout) {
      dot->mutable_shape()->set_layout(layout);
      ++changed;
    }
  }
  return changed;
}

// Row-major reshapes and transposes that move no element inside the
// computation (not its root) become bitcasts, which alias their operand's
// buffer: no kernel and no copy (the transformer block's per-head views of
// its Q, K and V projections were three copy kernels).
absl::StatusOr<int64_t> ReshapesToBitcasts(HloComputation* computation) {
  int64_t changed = DotsIntoTransposes(computation);
  for (HloInstruction* hlo : computation->MakeInstructionPostOrder()) {
    if (hlo->IsRoot() || !(IsRowMajorReshape(*hlo) || IsBitcastTranspose(*hlo))) continue;
    HloInstruction* bitcast = computation->AddInstruction(
        HloInstruction::CreateUnary(hlo->shape(), HloOpcode::kBitcast, hlo->operands()[0]));
    TS_RETURN_IF_ERROR(hlo->ReplaceAllUsesWith(bitcast));
    TS_RETURN_IF_ERROR(computation->RemoveInstruction(hlo));
    ++changed;
  }
  return changed;
}

}  // namespace

absl::StatusOr<bool> LayoutAssignment::Run(HloModule* module) {
  layouts_changed_ = 0;
  Assigner assigner;
  for (HloComputation* computation : module->computations()) {
    if (computation->IsFusionComputation()) continue;
    for (HloInstruction* hlo : computation->MakeInstructionPostOrder()) {
      Shape* shape = hlo->mutable_shape();
      if (shape->IsArray() && !shape->has_layout()) {
        shape->set_layout(Layout::Descending(shape->rank()));
        ++layouts_changed_;
      }
    }
    // One conversion per value and layout, shared by its convolutions.
    absl::flat_hash_map<std::pair<const HloInstruction*, std::string>, HloInstruction*> copies;
    for (HloInstruction* hlo : computation->MakeInstructionPostOrder()) {
      if (hlo->opcode() != HloOpcode::kConvolution || hlo->operand_count() != 2) continue;
      const ConvolutionLayouts layouts = PreferredConvolutionLayouts(*hlo);
      assigner.Want(hlo, layouts.output);
      if (hlo->shape().layout() != layouts.output &&
          hlo->shape().dimensions(hlo->convolution_dimension_numbers().output_feature_dimension) >=
              kConvertOutputMinFeatures) {
        TS_RETURN_IF_ERROR(
            ConvertAtTheRoot(computation, hlo, layouts.output, assigner, &layouts_changed_));
      }
      HloInstruction* input = hlo->operands()[0];
      assigner.Want(input, layouts.input);
      assigner.Want(hlo->operands()[1], layouts.kernel);
      const ConvolutionDimensionNumbers& d = hlo->convolution_dimension_numbers();
      const Shape& shape = input->shape();
      if (shape.IsArray() && shape.has_layout() && shape.layout().tiles.empty() &&
          !shape.layout().minor_to_major.empty() &&
          shape.layout().minor_to_major[0] != d.input_feature_dimension &&
          shape.dimensions(d.input_feature_dimension) >= kConvertInputMinFeatures) {
        HloInstruction*& copy = copies[{input, layouts.input.ToString()}];
        if (copy == nullptr) {
          Shape converted = shape;
          converted.set_layout(layouts.input);
          copy = computation->AddInstruction(
              HloInstruction::CreateUnary(converted, HloOpcode::kCopy, input));
          ++layouts_changed_;
        }
        TS_RETURN_IF_ERROR(hlo->ReplaceOperandWith(0, copy));
      }
    }
  }
  layouts_changed_ += assigner.changed();
  for (HloComputation* computation : module->computations()) {
    if (computation->IsFusionComputation()) continue;
    TS_ASSIGN_OR_RETURN(int64_t bitcasts, ReshapesToBitcasts(computation));
    layouts_changed_ += bitcasts;
  }
  return layouts_changed_ > 0;
}

}  // namespace tessera
