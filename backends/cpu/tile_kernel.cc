// TileKernel: a fusion as a program of tile operations; see tile_kernel.h.
#include "backends/cpu/tile_kernel.h"

#include <immintrin.h>

#include <algorithm>
#include <new>
#include <string>
#include <utility>

#include "absl/base/casts.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "backends/cpu/loop_kernel.h"
#include "backends/llvm_ir/elemental_ir_emitter.h"
#include "backends/llvm_ir/math_library.h"
#include "backends/llvm_ir/streaming_stores.h"
#include "hlo/ir/hlo_instruction.h"
#include "hlo/ir/status_macros.h"

namespace tessera {
namespace cpu {
namespace {

// The tile loops for this host: AVX-512 (F, BW, DQ, VL) where it has it.
bool HostHasAvx512() {
  static const bool supported = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
  }();
  return supported;
}

void Binary(tile_ops::BinaryOp op, const float* a, float a_scalar, const float* b, float b_scalar,
            float* out, int64_t n) {
  if (HostHasAvx512()) return tile_ops::avx512::Binary(op, a, a_scalar, b, b_scalar, out, n);
  tile_ops::baseline::Binary(op, a, a_scalar, b, b_scalar, out, n);
}

void Unary(tile_ops::UnaryOp op, const float* a, float* out, int64_t n) {
  if (HostHasAvx512()) return tile_ops::avx512::Unary(op, a, out, n);
  tile_ops::baseline::Unary(op, a, out, n);
}

void Compare(tile_ops::CompareOp op, const float* a, float a_scalar, const float* b, float b_scalar,
             float* out, int64_t n) {
  if (HostHasAvx512()) return tile_ops::avx512::Compare(op, a, a_scalar, b, b_scalar, out, n);
  tile_ops::baseline::Compare(op, a, a_scalar, b, b_scalar, out, n);
}

void Select(const float* p, float p_scalar, const float* a, float a_scalar, const float* b,
            float b_scalar, float* out, int64_t n) {
  if (HostHasAvx512()) {
    return tile_ops::avx512::Select(p, p_scalar, a, a_scalar, b, b_scalar, out, n);
  }
  tile_ops::baseline::Select(p, p_scalar, a, a_scalar, b, b_scalar, out, n);
}

std::optional<tile_ops::CompareOp> CompareOpOf(ComparisonDirection direction) {
  switch (direction) {
    case ComparisonDirection::kEq: return tile_ops::CompareOp::kEq;
    case ComparisonDirection::kNe: return tile_ops::CompareOp::kNe;
    case ComparisonDirection::kGe: return tile_ops::CompareOp::kGe;
    case ComparisonDirection::kGt: return tile_ops::CompareOp::kGt;
    case ComparisonDirection::kLe: return tile_ops::CompareOp::kLe;
    case ComparisonDirection::kLt: return tile_ops::CompareOp::kLt;
  }
  return std::nullopt;
}

// Ops whose PRED values the tier holds as floats 1 and 0.
bool PredicateOp(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kCompare:
    case HloOpcode::kConvert:
    case HloOpcode::kAnd:
    case HloOpcode::kOr:
    case HloOpcode::kNot:
    case HloOpcode::kBroadcast:
    case HloOpcode::kConstant: return true;
    default:
      return false;
  }
}

void StoreStreaming(const float* tile, float* out, int64_t n) {
  if (HostHasAvx512()) return tile_ops::avx512::StoreStreaming(tile, out, n);
  tile_ops::baseline::StoreStreaming(tile, out, n);
}

float Reduce(const tile_ops::Reduction& reduction, const float* x, int64_t n, float init) {
  if (HostHasAvx512()) return tile_ops::avx512::Reduce(reduction, x, n, init);
  return tile_ops::baseline::Reduce(reduction, x, n, init);
}

absl::Status Unsupported(const HloInstruction& h, absl::string_view why) {
  return absl::UnimplementedError(absl::StrCat("tile kernel: %", h.name(), ": ", why));
}

bool RowMajor(const Shape& shape) { return !shape.has_layout() || shape.layout().IsDescending(); }

// The dimensions without those of size 1: row-major shapes alike in these
// hold their elements in the same order (a bitcast or reshape between them
// moves nothing).
std::vector<int64_t> Squeezed(absl::Span<const int64_t> dims) {
  std::vector<int64_t> squeezed;
  for (int64_t d : dims) {
    if (d != 1) squeezed.push_back(d);
  }
  return squeezed;
}

bool SameElementOrder(const Shape& a, const Shape& b) {
  return RowMajor(a) && RowMajor(b) && Squeezed(a.dimensions()) == Squeezed(b.dimensions());
}

// A bitcast or reshape that only adds or drops dimensions of size 1.
bool DegenerateReshape(const HloInstruction& h) {
  return (h.opcode() == HloOpcode::kBitcast || h.opcode() == HloOpcode::kReshape) &&
         h.shape().IsArray() && SameElementOrder(h.shape(), h.operand(0)->shape());
}

// Whether `reduce` folds all but the last dimension of its row-major
// operand (a column reduction: [R, E] -> [E]).
bool ReducesColumns(const HloInstruction& reduce) {
  const Shape& input = reduce.operand(0)->shape();
  if (reduce.operand_count() != 2 || input.rank() < 2 || !RowMajor(input)) return false;
  std::vector<int64_t> leading(input.rank() - 1);
  for (int64_t d = 0; d + 1 < input.rank(); ++d) leading[d] = d;
  return reduce.dimensions() == leading;
}

// The shape the tier cuts into rows, and whether the kernel reduces its
// columns: the root's shape; a reduce root's operand's; and where the root
// holds one value per row of some reduce's operand (an epilogue on its
// rows' reductions, or a scalar from a rank-1 reduction), or one per
// column of a column reduction (a bias gradient, and its update), that
// operand's.
struct FullShape {
  const Shape* shape;
  bool column_reduction = false;
};

FullShape FullShapeOf(const HloComputation& computation) {
  const HloInstruction* root = computation.root_instruction();
  if (root->opcode() == HloOpcode::kReduce) {
    return {&root->operand(0)->shape(), ReducesColumns(*root)};
  }
  if (!root->shape().IsArray()) return {&root->shape()};
  const std::vector<int64_t> root_dims = Squeezed(root->shape().dimensions());
  for (const HloInstruction* h : computation.instructions()) {
    if (h->opcode() != HloOpcode::kReduce || h->operand_count() != 2) continue;
    const std::vector<int64_t>& input = h->operand(0)->shape().dimensions();
    if (input.empty()) continue;
    if (ReducesColumns(*h)) {
      if (root->shape().dimensions() == std::vector<int64_t>{input.back()}) {
        return {&h->operand(0)->shape(), true};
      }
      continue;
    }
    const std::vector<int64_t> leading(input.begin(), input.end() - 1);
    if (Squeezed(leading) == root_dims) return {&h->operand(0)->shape()};
  }
  return {&root->shape()};
}

std::optional<tile_ops::BinaryOp> BinaryOpOf(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kAdd: return tile_ops::BinaryOp::kAdd;
    case HloOpcode::kSubtract: return tile_ops::BinaryOp::kSubtract;
    case HloOpcode::kMultiply: return tile_ops::BinaryOp::kMultiply;
    case HloOpcode::kDivide: return tile_ops::BinaryOp::kDivide;
    case HloOpcode::kMaximum: return tile_ops::BinaryOp::kMaximum;
    case HloOpcode::kMinimum: return tile_ops::BinaryOp::kMinimum;
    default:
      return std::nullopt;
  }
}

std::optional<tile_ops::UnaryOp> UnaryOpOf(HloOpcode opcode) {
  switch (opcode) {
    case HloOpcode::kNegate: return tile_ops::UnaryOp::kNegate;
    case HloOpcode::kAbs: return tile_ops::UnaryOp::kAbs;
    case HloOpcode::kSqrt: return tile_ops::UnaryOp::kSqrt;
    case HloOpcode::kRsqrt: return tile_ops::UnaryOp::kRsqrt;
    case HloOpcode::kFloor: return tile_ops::UnaryOp::kFloor;
    case HloOpcode::kCeil: return tile_ops::UnaryOp::kCeil;
    case HloOpcode::kRoundNearestAfz: return tile_ops::UnaryOp::kRoundNearestAfz;
    case HloOpcode::kRoundNearestEven: return tile_ops::UnaryOp::kRoundNearestEven;
    case HloOpcode::kSign: return tile_ops::UnaryOp::kSign;
    default:
      return std::nullopt;
  }
}

}  // namespace

absl::StatusOr<TileKernel::Step> TileKernel::ReducerStep(const HloInstruction& reduce, StepOp op,
                                                         Kind kind) {
  const HloComputation* reducer = reduce.to_apply();
  const HloInstruction* root = reducer->root_instruction();
  std::optional<tile_ops::BinaryOp> binary = BinaryOpOf(root->opcode());
  if (reducer->instruction_count() != 3 || !binary.has_value() ||
      *binary == tile_ops::BinaryOp::kSubtract || *binary == tile_ops::BinaryOp::kDivide ||
      root->operand(0)->opcode() != HloOpcode::kParameter ||
      root->operand(1)->opcode() != HloOpcode::kParameter || root->operand(0) == root->operand(1) ||
      root->shape().element_type() != F32) {
    return Unsupported(reduce, "a reducer other than one add, multiply, maximum or minimum");
  }
  Step step{op, kind};
  step.reduction.op = *binary;
  step.reduction.accumulator_first = root->operand(0)->parameter_number() == 0;
  return step;
}

absl::StatusOr<std::unique_ptr<TileKernel>> TileKernel::Create(const HloComputation& computation,
                                                               const TileKernelOptions& options) {
  const HloInstruction* root = computation.root_instruction();
  if (!root->shape().IsArray()) return Unsupported(*root, "a tuple root");
  const FullShape full_shape = FullShapeOf(computation);
  const Shape& full = *full_shape.shape;
  const bool column_reduction = full_shape.column_reduction;
  const int64_t rank = full.rank();
  if (rank == 0) return Unsupported(*root, "a scalar result");
  // (A reduce of empty rows writes its init values: no tiles to run.)
  if (full.dimensions().back() == 0) return Unsupported(*root, "empty rows");
  const std::vector<int64_t>& dims = full.dimensions();
  const std::vector<int64_t> leading(dims.begin(), dims.end() - 1);
  std::unique_ptr<TileKernel> kernel(new TileKernel);
  kernel->row_length_ = dims.back();
  kernel->rows_ = 1;
  for (int64_t d : leading) kernel->rows_ *= d;
  kernel->parameter_count_ = static_cast<int>(computation.num_parameters());

  std::vector<int64_t> row_dims(rank - 1);
  for (int64_t d = 0; d + 1 < rank; ++d) row_dims[d] = d;
  bool reduces = false;
  const std::vector<HloInstruction*> post_order = computation.MakeInstructionPostOrder();
  // A column reduction's reduce and what is computed from its result: the
  // epilogue, once per column after the fold over the rows.  As the JIT's
  // column kernels take them (row_column_kernels.cc's PlanColumnKernel,
  // whose order of the sums this must be): one reduce, and only
  // elementwise ops of the result's shape after it.
  absl::flat_hash_set<const HloInstruction*> epilogue;
  if (column_reduction) {
    int reduce_count = 0;
    for (const HloInstruction* h : post_order) {
      if (h->opcode() == HloOpcode::kReduce) {
        ++reduce_count;
        epilogue.insert(h);
        continue;
      }
      for (const HloInstruction* operand : h->operands()) {
        if (!epilogue.contains(operand)) continue;
        if (!h->IsElementwise() || h->shape().dimensions() != root->shape().dimensions()) {
          return Unsupported(*h, "a column reduction's result read other than elementwise");
        }
        epilogue.insert(h);
        break;
      }
    }
    if (reduce_count != 1) return Unsupported(*root, "a column reduction with other reduces");
  }
  // Rank-1 values of E elements read only through broadcasts along the
  // last dimension, directly or through other such values (a bias, and
  // what operator sinking moved in front of its broadcast): computed per
  // tile from the columns of their parameters.
  absl::flat_hash_set<const HloInstruction*> columns;
  for (auto it = post_order.rbegin(); it != post_order.rend(); ++it) {
    const HloInstruction* h = *it;
    if (h == root || epilogue.contains(h) || rank < 2 || !h->shape().IsArray() ||
        Squeezed(h->shape().dimensions()) != Squeezed({dims.back()}) || dims.back() == 1 ||
        h->users().empty()) {
      continue;
    }
    // (A column reduction's epilogue reads columns as they are.)
    bool only_columns = true;
    for (const HloInstruction* user : h->users()) {
      only_columns &= columns.contains(user) || epilogue.contains(user) ||
                      (user->opcode() == HloOpcode::kBroadcast && h->shape().rank() == 1 &&
                       user->dimensions() == std::vector<int64_t>{rank - 1} &&
                       user->shape().dimensions() == dims);
    }
    if (only_columns) columns.insert(h);
  }
  absl::flat_hash_map<const HloInstruction*, int> step_of;
  // Steps by what they compute (fusion can leave two copies of a producer
  // in one computation: layer norm's mean is subtracted twice).
  absl::flat_hash_map<std::string, int> step_by_key;
  auto add = [&](Step step) {
    std::string key = absl::StrCat(
        static_cast<int>(step.op), ",", static_cast<int>(step.kind), ",", step.parameter, ",",
        step.operands[0], ",", step.operands[1], ",", absl::bit_cast<uint32_t>(step.constant), ",",
        static_cast<int>(step.binary), ",", static_cast<int>(step.unary), ",",
        static_cast<int>(step.compare), ",", step.operands[2], ",",
        static_cast<int>(step.reduction.op), ",", step.reduction.accumulator_first, ",",
        step.reduction.lanes, ",", step.math_function);
    auto [it, inserted] = step_by_key.try_emplace(std::move(key), 0);
    if (!inserted) return it->second;
    kernel->steps_.push_back(step);
    it->second = static_cast<int>(kernel->steps_.size()) - 1;
    return it->second;
  };
  auto kind_of = [&](const HloInstruction* h) { return kernel->steps_[step_of.at(h)].kind; };
  for (const HloInstruction* h : post_order) {
    // A parameter nothing reads (a multi-output fusion's output computed
    // alone keeps all the fusion's operands) is never loaded.
    if (h->opcode() == HloOpcode::kParameter && h->users().empty() && h != root) continue;
    if (!h->shape().IsArray() ||
        (h->shape().element_type() != F32 &&
         (h->shape().element_type() != PRED || !PredicateOp(h->opcode())))) {
      return Unsupported(*h, "not an f32 array (nor a predicate of a compare)");
    }
    const bool predicate = h->shape().element_type() == PRED;
    const Shape& shape = h->shape();
    if (columns.contains(h) && h->opcode() != HloOpcode::kParameter) {
      // A column is computed from columns and scalars only: a per-row value
      // of the same shape (rows as many as columns) varies along the other
      // dimension.
      for (const HloInstruction* operand : h->operands()) {
        if (!columns.contains(operand) && operand->shape().rank() != 0) {
          return Unsupported(*h, "a column computed from values that are not columns");
        }
      }
    }
    if (epilogue.contains(h) && h->opcode() != HloOpcode::kReduce) {
      // Once per column: from the fold, columns and scalars only (a
      // per-row value of as many elements varies along the rows).
      for (const HloInstruction* operand : h->operands()) {
        if (!epilogue.contains(operand) && !columns.contains(operand) &&
            operand->shape().rank() != 0) {
          return Unsupported(*h, "a column reduction's epilogue on values that are not columns");
        }
      }
    }
    switch (h->opcode()) {
      case HloOpcode::kParameter: {
        Step step{StepOp::kParameter, Kind::kScalar};
        step.parameter = static_cast<int>(h->parameter_number());
        if (!RowMajor(shape)) return Unsupported(*h, "not row-major");
        // Shapes as the tier's up to dimensions of size 1 (what bitcasts
        // add or drop) hold their elements as those do.
        const std::vector<int64_t> squeezed = Squeezed(shape.dimensions());
        if (shape.rank() == 0) {
          step.kind = Kind::kScalar;
        } else if (squeezed == Squeezed(dims)) {
          step.kind = Kind::kFull;
        } else if (columns.contains(h)) {
          step.op = StepOp::kColumn;
          step.kind = Kind::kFull;
        } else if (squeezed == Squeezed(leading)) {
          step.kind = Kind::kRow;
        } else {
          return Unsupported(*h, "a parameter of another shape than the rows'");
        }
        step_of[h] = add(step);
        break;
      }
      case HloOpcode::kConstant: {
        if (shape.rank() != 0) return Unsupported(*h, "a non-scalar constant");
        Step step{StepOp::kConstant, Kind::kScalar};
        step.constant =
            predicate ? (h->literal().Get<bool>({}) ? 1.0f : 0.0f) : h->literal().Get<float>({});
        step_of[h] = add(step);
        break;
      }
      case HloOpcode::kBitcast:
      case HloOpcode::kReshape: {
        // The same elements in the same order, as the value's kind says
        // (its users check shapes where the kind does not say enough).
        if (!DegenerateReshape(*h)) {
          return Unsupported(*h, "a bitcast or reshape that moves elements");
        }
        step_of[h] = step_of.at(h->operand(0));
        break;
      }
      case HloOpcode::kBroadcast: {
        const HloInstruction* operand = h->operand(0);
        if (columns.contains(operand) || operand->shape().rank() == 0 ||
            (shape.dimensions() == dims && h->dimensions() == row_dims &&
             operand->shape().dimensions() == leading)) {
          step_of[h] = step_of.at(operand);  // the same value, seen at more positions
        } else {
          return Unsupported(*h, "a broadcast other than of a scalar, a row value or a column");
        }
        break;
      }
      case HloOpcode::kReduce: {
        const HloInstruction* input = h->operand(0);
        if (column_reduction) {
          if (input->shape().dimensions() != dims || kind_of(input) != Kind::kFull ||
              kind_of(h->operand(1)) != Kind::kScalar) {
            return Unsupported(*h, "a column reduction of other values than the rows'");
          }
          TS_ASSIGN_OR_RETURN(Step step, ReducerStep(*h, StepOp::kFold, Kind::kFull));
          step.operands[0] = step_of.at(input);
          step.operands[1] = step_of.at(h->operand(1));
          kernel->fold_ = add(step);
          step_of[h] = kernel->fold_;
          break;
        }
        if (h->operand_count() != 2 || input->shape().dimensions() != dims ||
            h->dimensions() != std::vector<int64_t>{rank - 1} || kind_of(input) != Kind::kFull ||
            kind_of(h->operand(1)) == Kind::kFull) {
          return Unsupported(*h, "a reduce other than of a row");
        }
        if (kernel->row_length_ > kMaxReducedRow) return Unsupported(*h, "rows too long");
        TS_ASSIGN_OR_RETURN(Step step, ReducerStep(*h, StepOp::kReduce, Kind::kRow));
        step.operands[0] = step_of.at(input);
        step.operands[1] = step_of.at(h->operand(1));
        const tile_ops::BinaryOp binary = step.reduction.op;
        const bool exact_in_any_order =
            binary == tile_ops::BinaryOp::kMaximum || binary == tile_ops::BinaryOp::kMinimum;
        step.reduction.lanes = exact_in_any_order || options.reorder_float_reductions
                                   ? ReductionLanes(F32, kernel->row_length_)
                                   : 0;
        reduces = true;
        step_of[h] = add(step);
        break;
      }
      case HloOpcode::kCompare: {
        std::optional<tile_ops::CompareOp> compare = CompareOpOf(h->comparison_direction());
        if (h->operand(0)->shape().element_type() != F32 || !compare.has_value() ||
            h->EffectiveComparisonType() != ComparisonType::kFloat) {
          return Unsupported(*h, "a compare other than of floats in IEEE order");
        }
        Step step{StepOp::kCompare, std::max(kind_of(h->operand(0)), kind_of(h->operand(1)))};
        step.compare = *compare;
        step.operands[0] = step_of.at(h->operand(0));
        step.operands[1] = step_of.at(h->operand(1));
        step_of[h] = add(step);
        break;
      }
      case HloOpcode::kSelect: {
        Step step{StepOp::kSelect, std::max({kind_of(h->operand(0)), kind_of(h->operand(1)),
                                             kind_of(h->operand(2))})};
        for (int k = 0; k < 3; ++k) step.operands[k] = step_of.at(h->operand(k));
        step_of[h] = add(step);
        break;
      }
      case HloOpcode::kNot: {
        // not p = (p == 0), on predicates 1 and 0.
        Step zero{StepOp::kConstant, Kind::kScalar};
        Step step{StepOp::kCompare, kind_of(h->operand(0))};
        step.compare = tile_ops::CompareOp::kEq;
        step.operands[0] = step_of.at(h->operand(0));
        step.operands[1] = add(zero);
        step_of[h] = add(step);
        break;
      }
      case HloOpcode::kClamp: {
        // clamp(low, x, high) = min(max(x, low), high), the elemental
        // emitter's maximum and minimum.
        Step above{StepOp::kBinary, std::max(kind_of(h->operand(1)), kind_of(h->operand(0)))};
        above.binary = tile_ops::BinaryOp::kMaximum;
        above.operands[0] = step_of.at(h->operand(1));
        above.operands[1] = step_of.at(h->operand(0));
        const int at_least_low = add(above);
        Step below{StepOp::kBinary, std::max(above.kind, kind_of(h->operand(2)))};
        below.binary = tile_ops::BinaryOp::kMinimum;
        below.operands[0] = at_least_low;
        below.operands[1] = step_of.at(h->operand(2));
        step_of[h] = add(below);
        break;
      }
      case HloOpcode::kConvert: {
        // Between f32 and predicates (1 and 0 in tiles): a mask as a float
        // is the mask; a float as a predicate is x != 0 (true for NaN).
        const PrimitiveType from = h->operand(0)->shape().element_type();
        const PrimitiveType to = shape.element_type();
        if ((from == PRED || from == F32) && to == F32) {
          step_of[h] = step_of.at(h->operand(0));
        } else if (from == F32 && to == PRED) {
          Step zero{StepOp::kConstant, Kind::kScalar};
          Step step{StepOp::kCompare, kind_of(h->operand(0))};
          step.compare = tile_ops::CompareOp::kNe;
          step.operands[0] = step_of.at(h->operand(0));
          step.operands[1] = add(zero);
          step_of[h] = add(step);
        } else {
          return Unsupported(*h, "a convert other than between f32 and pred");
        }
        break;
      }
      default: {
        if (predicate && h->opcode() != HloOpcode::kAnd && h->opcode() != HloOpcode::kOr) {
          return Unsupported(*h, "no tile operation");
        }
        // and/or of predicates 1 and 0: their minimum/maximum.
        std::optional<tile_ops::BinaryOp> binary =
            h->opcode() == HloOpcode::kAnd  ? std::optional(tile_ops::BinaryOp::kMinimum)
            : h->opcode() == HloOpcode::kOr ? std::optional(tile_ops::BinaryOp::kMaximum)
                                            : BinaryOpOf(h->opcode());
        if (binary.has_value()) {
          Step step{StepOp::kBinary, std::max(kind_of(h->operand(0)), kind_of(h->operand(1)))};
          step.binary = *binary;
          step.operands[0] = step_of.at(h->operand(0));
          step.operands[1] = step_of.at(h->operand(1));
          step_of[h] = add(step);
          break;
        }
        if (h->operand_count() != 1) return Unsupported(*h, "no tile operation");
        Step step{StepOp::kUnary, kind_of(h->operand(0))};
        step.operands[0] = step_of.at(h->operand(0));
        if (std::optional<tile_ops::UnaryOp> unary = UnaryOpOf(h->opcode())) {
          step.unary = *unary;
        } else if (std::optional<llvm_ir::MathFunction> function =
                       llvm_ir::MathFunctionOf(h->opcode());
                   function.has_value() && llvm_ir::HasMathRoutine(*function, false) &&
                   *function != llvm_ir::MathFunction::kPow) {
          // The routines kernels call: the same polynomial, element for element.
          // (Resolved once the whole computation is taken: the first
          // request of a routine in a process compiles it.)
          step.op = StepOp::kMath;
          step.math_function = static_cast<int>(*function);
        } else {
          return Unsupported(*h, "no tile operation");
        }
        step_of[h] = add(step);
        break;
      }
    }
  }
  const int root_step = step_of.at(root);
  if (root_step < 0) return Unsupported(*root, "a root that only broadcasts");
  const Step& last = kernel->steps_[root_step];
  const bool full_root = last.kind == Kind::kFull && root->shape().dimensions() == dims;
  // One value per row, from the rows' reductions (the reduce itself, or an
  // epilogue on its results).
  const bool row_root = last.kind == Kind::kRow && reduces && RowMajor(root->shape()) &&
                        Squeezed(root->shape().dimensions()) == Squeezed(leading);
  // One value per column, from the fold.
  const bool column_root = column_reduction && last.kind == Kind::kFull &&
                           epilogue.contains(root) &&
                           root->shape().dimensions() == std::vector<int64_t>{dims.back()};
  if (column_reduction && (kernel->fold_ < 0 || kernel->rows_ == 0)) {
    return Unsupported(*root, "a column reduction without rows to fold");
  }
  if (!RowMajor(root->shape()) || !(full_root || row_root || column_root) ||
      root->shape().element_type() != F32) {
    return Unsupported(*root, "a root that is not computed per row");
  }
  if (last.op == StepOp::kParameter || last.op == StepOp::kColumn) {
    return Unsupported(*root, "a root that copies a parameter");
  }
  kernel->root_ = root_step;
  const bool compile_loops = options.compile_loops && TileCode::Supported();
  for (Step& step : kernel->steps_) {
    if (step.op != StepOp::kMath) continue;
    const auto function = static_cast<llvm_ir::MathFunction>(step.math_function);
    // Only the form the step runs: the first request of a routine in a
    // process compiles it.  (Generated code runs every full step; the array
    // routines, where there is none, are resolved below.)
    if (step.kind == Kind::kFull && compile_loops) {
      TS_ASSIGN_OR_RETURN(uint64_t vector,
                          llvm_ir::MathRoutineAddress(llvm_ir::MathRoutineName(function, false, 64),
                                                      options.math_target));
      step.vector_routine = reinterpret_cast<void*>(vector);
    } else if (step.kind == Kind::kFull) {
      TS_ASSIGN_OR_RETURN(step.array_routine,
                          llvm_ir::MathArrayRoutine(function, false, options.math_target));
    } else {
      TS_ASSIGN_OR_RETURN(uint64_t scalar,
                          llvm_ir::MathRoutineAddress(llvm_ir::MathRoutineName(function, false, 1),
                                                      options.math_target));
      step.scalar_routine = reinterpret_cast<float (*)(float)>(scalar);
    }
  }
  kernel->major_size_ = root->shape().rank() == 0 ? 1 : root->shape().dimensions()[0];
  kernel->dimensions_ = root->shape().dimensions();
  kernel->major_is_row_ = rank == 1 && !reduces;
  for (const Step& step : kernel->steps_) {
    if (step.op == StepOp::kParameter && step.kind == Kind::kFull) {
      kernel->full_parameters_.push_back(step.parameter);
    }
  }
  // As the JIT kernels: a result of whole rows (after their reductions)
  // at least the threshold's size.
  kernel->streaming_ =
      full_root && root->shape().ElementCount() * 4 >= options.streaming_store_bytes.value_or(
                                                           llvm_ir::StreamingStoreThresholdBytes());
  kernel->tile_length_ =
      reduces ? kernel->row_length_ : std::min(kernel->row_length_, kTileElements);
  kernel->tiles_per_row_ =
      kernel->tile_length_ == 0
          ? 0
          : (kernel->row_length_ + kernel->tile_length_ - 1) / kernel->tile_length_;

  // Scratch tiles for the full values computed along the way (the root
  // writes the result), each freed after its last reader.
  std::vector<int> last_use(kernel->steps_.size(), -1);
  for (int i = 0; i < static_cast<int>(kernel->steps_.size()); ++i) {
    for (int operand : kernel->steps_[i].operands) {
      if (operand >= 0) last_use[operand] = i;
    }
  }
  std::vector<int> free_slots;
  std::vector<std::vector<int>> released(kernel->steps_.size());
  for (int i = 0; i < static_cast<int>(kernel->steps_.size()); ++i) {
    Step& step = kernel->steps_[i];
    const bool computed = step.op == StepOp::kBinary || step.op == StepOp::kUnary ||
                          step.op == StepOp::kMath || step.op == StepOp::kCompare ||
                          step.op == StepOp::kSelect || step.op == StepOp::kFold;
    if (computed && step.kind == Kind::kFull && (i != kernel->root_ || kernel->streaming_)) {
      if (free_slots.empty() || step.op == StepOp::kFold) {
        // (The accumulators live across the rows' steps: a tile of their own.)
        step.slot = kernel->slots_++;
      } else {
        step.slot = free_slots.back();
        free_slots.pop_back();
      }
      if (last_use[i] >= 0) released[last_use[i]].push_back(step.slot);
    }
    // A step's own operands' tiles are free once it has run (it may write
    // over them: every tile operation reads each element before writing it).
    for (int slot : released[i]) free_slots.push_back(slot);
  }
  if (kernel->streaming_) kernel->root_slot_ = kernel->steps_[kernel->root_].slot;
  if (compile_loops) {
    // (A step without code, or a loop too large for the registers, leaves
    // every step to the tile operations.)
    if (absl::Status compiled = kernel->CompileCode(); !compiled.ok()) {
      if (!absl::IsResourceExhausted(compiled) && !absl::IsUnimplemented(compiled)) {
        return compiled;
      }
      kernel->code_.reset();
      kernel->streaming_code_.reset();
      kernel->first_row_code_.reset();
      kernel->epilogue_code_.reset();
      kernel->interleaved_code_.reset();
      kernel->interleaved_streaming_code_.reset();
      kernel->stored_.clear();
      kernel->compiled_loops_ = 0;
    }
    // Without code every step is a tile operation, math steps too.
    for (Step& step : kernel->steps_) {
      if (kernel->code_ != nullptr) break;
      if (step.op != StepOp::kMath || step.kind != Kind::kFull) continue;
      TS_ASSIGN_OR_RETURN(
          step.array_routine,
          llvm_ir::MathArrayRoutine(static_cast<llvm_ir::MathFunction>(step.math_function), false,
                                    options.math_target));
    }
  }
  return kernel;
}

absl::StatusOr<std::vector<TileCodeItem>> TileKernel::ProgramItems(int first, int last,
                                                                   bool first_row) {
  const int count = static_cast<int>(steps_.size());
  auto loopable = [&](const Step& step) {
    switch (step.op) {
      case StepOp::kBinary:
      case StepOp::kUnary:
      case StepOp::kMath:
      case StepOp::kCompare:
      case StepOp::kSelect:
      case StepOp::kFold:
        return step.kind == Kind::kFull;
      case StepOp::kReduce:
        return step.reduction.lanes == 16 || step.reduction.lanes == 32 ||
               step.reduction.lanes == 64;
      default:
        return false;
    }
  };
  // Loop steps join the open loop, which a step reading one of its
  // reduces closes (the reduce's value exists once the loop has run).
  // The other steps (parameters, scalars, per-row values) run before the
  // open loop, unless they read it: then it closes and they run after.
  std::vector<int> loop_of(count, -1);
  std::vector<std::vector<int>> groups;
  // The program: steps done once (>= 0) and loops (-1 - the group).
  std::vector<int> order;
  std::vector<int> pending;
  std::vector<int> open;
  int64_t open_lanes = 0;  // the open loop's reduces' (at most TileCode::kMaxLanes)
  auto close = [&] {
    order.insert(order.end(), pending.begin(), pending.end());
    pending.clear();
    if (open.empty()) return;
    order.push_back(-1 - static_cast<int>(groups.size()));
    groups.push_back(std::move(open));
    open.clear();
    open_lanes = 0;
  };
  for (int i = first; i < last; ++i) {
    const Step& step = steps_[i];
    const int open_loop = static_cast<int>(groups.size());
    bool reads_open = false;
    bool reads_open_reduce = false;
    for (int operand : step.operands) {
      if (operand < 0 || loop_of[operand] != open_loop) continue;
      reads_open = true;
      reads_open_reduce |= steps_[operand].op == StepOp::kReduce;
    }
    if (loopable(step)) {
      const int64_t lanes = step.op == StepOp::kReduce ? step.reduction.lanes : 0;
      if (reads_open_reduce || open_lanes + lanes > TileCode::kMaxLanes) close();
      open_lanes += lanes;
      loop_of[i] = static_cast<int>(groups.size());
      open.push_back(i);
    } else {
      if (reads_open) close();
      pending.push_back(i);
    }
  }
  close();

  // A full value read outside its loop (or the result, or the column
  // fold's accumulators) is written to its tile.
  std::vector<bool> stored(count, false);
  for (int i = first; i < last; ++i) {
    for (int operand : steps_[i].operands) {
      if (operand >= 0 && loop_of[operand] >= 0 && loop_of[operand] != loop_of[i]) {
        stored[operand] = true;
      }
    }
  }
  stored[root_] = true;
  if (fold_ >= 0) stored[fold_] = true;
  std::vector<TileCodeItem> items;
  for (int entry : order) {
    if (entry >= 0) {
      TS_ASSIGN_OR_RETURN(TileScalarStep step, ScalarStepOf(entry));
      items.push_back({{}, std::move(step)});
      continue;
    }
    const int g = -1 - entry;
    TileCodeItem& item = items.emplace_back();
    for (int i : groups[g]) {
      TS_ASSIGN_OR_RETURN(TileLoopStep loop_step, LoopStepOf(i, g, loop_of, first_row));
      loop_step.store = stored[i] && steps_[i].op != StepOp::kReduce;
      if (loop_step.store && i != root_ && i != fold_) stored_.push_back(i);
      item.loop.push_back(std::move(loop_step));
    }
  }
  compiled_loops_ += static_cast<int>(groups.size());
  return items;
}

absl::Status TileKernel::CompileCode() {
  const int count = static_cast<int>(steps_.size());
  if (fold_ >= 0) {
    // A column reduction: the steps up to the fold per row (the first row
    // folds into the init value, the others into the accumulators' tile),
    // then the rest once per tile of columns, the result at its columns.
    TS_ASSIGN_OR_RETURN(std::vector<TileCodeItem> first_row, ProgramItems(0, fold_ + 1, true));
    TS_ASSIGN_OR_RETURN(std::vector<TileCodeItem> rows, ProgramItems(0, fold_ + 1, false));
    TS_ASSIGN_OR_RETURN(std::vector<TileCodeItem> epilogue, ProgramItems(fold_ + 1, count, false));
    TS_ASSIGN_OR_RETURN(first_row_code_, TileCode::Compile(std::move(first_row), row_length_));
    TS_ASSIGN_OR_RETURN(code_, TileCode::Compile(std::move(rows), row_length_));
    if (!epilogue.empty()) {
      TileScalarStep result_tile;
      result_tile.op = TileScalarStep::Op::kColumnTile;
      result_tile.value = root_;
      result_tile.parameter = parameter_count_;
      epilogue.insert(epilogue.begin(), TileCodeItem{{}, result_tile});
      TS_ASSIGN_OR_RETURN(epilogue_code_, TileCode::Compile(std::move(epilogue), row_length_));
    }
    return absl::OkStatus();
  }
  TS_ASSIGN_OR_RETURN(std::vector<TileCodeItem> items, ProgramItems(0, count, false));
  // A full result's tile is the result's own (unless it streams: then its
  // scratch tile, which the caller sets).
  TileScalarStep result_tile;
  result_tile.op = TileScalarStep::Op::kRowTile;
  result_tile.value = root_;
  result_tile.parameter = parameter_count_;
  const bool full_root = steps_[root_].kind == Kind::kFull;
  // Whole short rows that reduce (a chain of dependent steps per row):
  // several at a time.  (Rows without reductions have no such chain.)
  const bool reduces = std::any_of(steps_.begin(), steps_.end(),
                                   [](const Step& step) { return step.op == StepOp::kReduce; });
  const bool interleave = reduces && tile_length_ == row_length_ &&
                          row_length_ <= kInterleavedRowLength && rows_ >= kInterleavedRows;
  const bool root_in_loop = std::any_of(items.begin(), items.end(), [&](const TileCodeItem& item) {
    return std::any_of(item.loop.begin(), item.loop.end(),
                       [&](const TileLoopStep& step) { return step.value == root_; });
  });
  if (streaming_ && root_in_loop) {
    std::vector<TileCodeItem> streaming_items = items;
    for (TileCodeItem& item : streaming_items) {
      for (TileLoopStep& step : item.loop) step.streaming = step.value == root_;
    }
    streaming_items.insert(streaming_items.begin(), TileCodeItem{{}, result_tile});
    if (interleave) {
      TS_ASSIGN_OR_RETURN(
          interleaved_streaming_code_,
          TileCode::Compile(InterleaveRows(streaming_items, count, kInterleavedRows), row_length_,
                            kInterleavedRows));
    }
    TS_ASSIGN_OR_RETURN(streaming_code_,
                        TileCode::Compile(std::move(streaming_items), row_length_));
  }
  if (full_root && !streaming_) items.insert(items.begin(), TileCodeItem{{}, result_tile});
  if (steps_[root_].kind == Kind::kRow) {
    // A per-row result: the code writes its element.
    TileScalarStep store;
    store.op = TileScalarStep::Op::kStoreRowElement;
    store.parameter = parameter_count_;
    store.operands = {root_};
    items.push_back({{}, store});
  }
  if (interleave) {
    TS_ASSIGN_OR_RETURN(interleaved_code_,
                        TileCode::Compile(InterleaveRows(items, count, kInterleavedRows),
                                          row_length_, kInterleavedRows));
  }
  TS_ASSIGN_OR_RETURN(code_, TileCode::Compile(std::move(items), row_length_));
  return absl::OkStatus();
}

absl::StatusOr<TileScalarStep> TileKernel::ScalarStepOf(int i) const {
  const Step& step = steps_[i];
  TileScalarStep scalar;
  scalar.value = i;
  scalar.parameter = step.parameter;
  scalar.constant = step.constant;
  scalar.binary = step.binary;
  scalar.unary = step.unary;
  scalar.compare = step.compare;
  scalar.routine = step.scalar_routine;
  switch (step.op) {
    case StepOp::kParameter:
      scalar.op = step.kind == Kind::kFull  ? TileScalarStep::Op::kRowTile
                  : step.kind == Kind::kRow ? TileScalarStep::Op::kRowElement
                                            : TileScalarStep::Op::kFirstElement;
      return scalar;
    case StepOp::kColumn:
      scalar.op = TileScalarStep::Op::kColumnTile;
      return scalar;
    case StepOp::kConstant:
      scalar.op = TileScalarStep::Op::kConstant;
      return scalar;
    case StepOp::kBinary:
      scalar.op = TileScalarStep::Op::kBinary;
      break;
    case StepOp::kCompare:
      scalar.op = TileScalarStep::Op::kCompare;
      break;
    case StepOp::kUnary:
      scalar.op = TileScalarStep::Op::kUnary;
      break;
    case StepOp::kSelect:
      scalar.op = TileScalarStep::Op::kSelect;
      break;
    case StepOp::kMath:
      scalar.op = TileScalarStep::Op::kMath;
      break;
    default:
      return absl::UnimplementedError("tile kernel: a step without generated code");
  }
  if (step.kind == Kind::kFull) {
    return absl::UnimplementedError("tile kernel: a step without generated code");
  }
  for (int operand : step.operands) {
    if (operand >= 0) scalar.operands.push_back(operand);
  }
  return scalar;
}

absl::StatusOr<TileLoopStep> TileKernel::LoopStepOf(int i, int loop,
                                                    const std::vector<int>& loop_of,
                                                    bool first_row) const {
  const Step& step = steps_[i];
  TileLoopStep loop_step;
  loop_step.value = i;
  auto source = [&](int operand) {
    return loop_of[operand] == loop              ? TileLoopStep::Source::kLoop
           : steps_[operand].kind == Kind::kFull ? TileLoopStep::Source::kTile
                                                 : TileLoopStep::Source::kScalar;
  };
  switch (step.op) {
    case StepOp::kFold: {
      // The reducer of the accumulators (their tile, the step's own, or at
      // the first row the init value) and the row's value, in its order.
      loop_step.op = TileLoopStep::Op::kBinary;
      loop_step.binary = step.reduction.op;
      const TileLoopStep::Operand accumulator =
          first_row ? TileLoopStep::Operand{TileLoopStep::Source::kScalar, step.operands[1]}
                    : TileLoopStep::Operand{TileLoopStep::Source::kTile, i};
      const TileLoopStep::Operand x{source(step.operands[0]), step.operands[0]};
      loop_step.operands = step.reduction.accumulator_first
                               ? std::vector<TileLoopStep::Operand>{accumulator, x}
                               : std::vector<TileLoopStep::Operand>{x, accumulator};
      return loop_step;
    }
    case StepOp::kBinary:
      loop_step.op = TileLoopStep::Op::kBinary;
      break;
    case StepOp::kCompare:
      loop_step.op = TileLoopStep::Op::kCompare;
      break;
    case StepOp::kUnary:
      loop_step.op = TileLoopStep::Op::kUnary;
      break;
    case StepOp::kMath:
      loop_step.op = TileLoopStep::Op::kMath;
      break;
    case StepOp::kSelect:
      loop_step.op = TileLoopStep::Op::kSelect;
      break;
    case StepOp::kReduce:
      loop_step.op = TileLoopStep::Op::kReduce;
      loop_step.init_value = step.operands[1];
      break;
    default:
      return absl::InternalError("tile kernel: a step no loop runs in a loop");
  }
  // (A reduce's second operand, its init value, is read once the loop is
  // done; unused operands are -1.)
  for (int o = 0; o < (step.op == StepOp::kReduce ? 1 : 3) && step.operands[o] >= 0; ++o) {
    const int operand = step.operands[o];
    loop_step.operands.push_back({source(operand), operand});
  }
  loop_step.binary = step.binary;
  loop_step.unary = step.unary;
  loop_step.compare = step.compare;
  loop_step.reduction = step.reduction;
  loop_step.vector_routine = step.vector_routine;
  return loop_step;
}

bool TileKernel::calls_math_routines() const {
  return std::any_of(steps_.begin(), steps_.end(), [](const Step& step) {
    return step.op == StepOp::kMath && step.kind == Kind::kFull;
  });
}

void TileKernel::Run(void** buffers, int64_t begin, int64_t end) const {
  if (fold_ >= 0) return RunColumns(buffers, begin, end);
  // Whole rows: the code's own row loop.
  if (code_ != nullptr && tiles_per_row_ == 1) return RunCodeRows(buffers, begin, end);
  std::vector<TileRange> tiles;
  tiles.reserve(std::max<int64_t>(0, end - begin));
  for (int64_t unit = begin; unit < end; ++unit) {
    const int64_t start = unit % tiles_per_row_ * tile_length_;
    tiles.push_back({unit / tiles_per_row_, start, std::min(tile_length_, row_length_ - start)});
  }
  RunTiles(buffers, tiles);
}

bool TileKernel::SplitAs(int64_t work_size) {
  if (major_size_ == work_size) return true;
  if (fold_ >= 0 || major_is_row_) return false;
  const int64_t rank = static_cast<int64_t>(dimensions_.size());
  for (int64_t d = 0; d + 1 < rank; ++d) {
    if (dimensions_[d] == 1) continue;
    if (dimensions_[d] != work_size || rows_ % work_size != 0) return false;
    major_size_ = work_size;
    return true;
  }
  return false;
}

void TileKernel::RunMajor(void** buffers, int64_t begin, int64_t end) const {
  if (fold_ >= 0) return RunColumns(buffers, begin, end);
  if (major_is_row_) {
    std::vector<TileRange> tiles;
    for (int64_t start = begin; start < end; start += tile_length_) {
      tiles.push_back({0, start, std::min(tile_length_, end - start)});
    }
    return RunTiles(buffers, tiles);
  }
  // Whole rows: each position of dimension 0 holds rows_ / major_size_.
  const int64_t units = rows_ / std::max<int64_t>(1, major_size_) * tiles_per_row_;
  Run(buffers, begin * units, end * units);
}

void TileKernel::AlignedDelete::operator()(float* p) const {
  ::operator delete[](p, std::align_val_t(64));
}

// Each slot a whole number of cache lines from a cache line's start: the
// generated loops' 64-byte vectors never straddle two lines.
std::unique_ptr<float[], TileKernel::AlignedDelete> TileKernel::NewScratch(int copies) const {
  const int64_t floats = std::max<int64_t>(1, copies * slots_ * SlotStride());
  return std::unique_ptr<float[], AlignedDelete>(
      static_cast<float*>(::operator new[](floats * sizeof(float), std::align_val_t(64))));
}

void TileKernel::RunTiles(void** buffers, const std::vector<TileRange>& tiles) const {
  std::vector<Value> values(steps_.size());
  const std::unique_ptr<float[], AlignedDelete> scratch = NewScratch();
  if (code_ != nullptr) return RunCode(buffers, tiles, values.data(), scratch.get());
  float* out = static_cast<float*>(buffers[parameter_count_]);
  const int step_count = static_cast<int>(steps_.size());
  for (size_t t = 0; t < tiles.size(); ++t) {
    const int64_t row = tiles[t].row;
    const int64_t start = tiles[t].start;
    const int64_t n = tiles[t].n;
    if (t + 1 < tiles.size()) {
      // The next tile's rows of the full parameters, on their way into the
      // cache while this tile computes: the steps run one after another,
      // so without this the first ones wait for memory and the later ones
      // leave it idle.  (Generated code streams through memory as a JIT
      // kernel does, and the hardware's prefetchers serve it better:
      // elementwise chain 16M, 1 thread: 6.2 ms with this, 4.9 without.)
      const TileRange& next = tiles[t + 1];
      for (int parameter : full_parameters_) {
        const char* p = reinterpret_cast<const char*>(
            static_cast<const float*>(buffers[parameter]) + next.row * row_length_ + next.start);
        for (int64_t offset = 0; offset < next.n * 4; offset += 64) {
          __builtin_prefetch(p + offset, 0, 2);
        }
      }
    }
    RunSteps(0, step_count, buffers, tiles[t], values.data(), scratch.get());
    if (steps_[root_].kind == Kind::kRow) out[row] = values[root_].scalar;
    if (streaming_) {
      StoreStreaming(scratch.get() + root_slot_ * SlotStride(), out + row * row_length_ + start, n);
    }
  }
  // Non-temporal stores are weakly ordered: drain them before the caller
  // says the result is there.
  if (streaming_) _mm_sfence();
}

void TileKernel::RunCode(void** buffers, const std::vector<TileRange>& tiles, Value* values,
                         float* scratch) const {
  float* out = static_cast<float*>(buffers[parameter_count_]);
  // The scratch tiles the loops write (the same for every tile).
  for (int step : stored_) values[step].tile = scratch + steps_[step].slot * SlotStride();
  for (const TileRange& tile : tiles) {
    float* result = out + tile.row * row_length_ + tile.start;
    if (streaming_code_ != nullptr && reinterpret_cast<uintptr_t>(result) % 64 == 0) {
      streaming_code_->Run(values, tile.n, buffers, tile.row, tile.start);
    } else {
      if (streaming_) values[root_].tile = scratch + root_slot_ * SlotStride();
      code_->Run(values, tile.n, buffers, tile.row, tile.start);
      if (streaming_) StoreStreaming(scratch + root_slot_ * SlotStride(), result, tile.n);
    }
  }
  if (streaming_) _mm_sfence();
}

void TileKernel::RunCodeRows(void** buffers, int64_t begin, int64_t end) const {
  // Values and scratch tiles for each row of interleaved code (row j's
  // values from j * steps_.size()); code_ uses the first row's.
  const int copies = interleaved_code_ != nullptr ? kInterleavedRows : 1;
  const int64_t step_count = static_cast<int64_t>(steps_.size());
  std::vector<Value> values(copies * step_count);
  const std::unique_ptr<float[], AlignedDelete> scratch = NewScratch(copies);
  for (int copy = 0; copy < copies; ++copy) {
    for (int step : stored_) {
      values[copy * step_count + step].tile =
          scratch.get() + (copy * slots_ + steps_[step].slot) * SlotStride();
    }
  }
  const float* out = static_cast<const float*>(buffers[parameter_count_]);
  // Streaming stores straight from the code where every row's result is
  // 64-byte aligned; else each row through the scratch (RunCode).
  if (!streaming_ || (streaming_code_ != nullptr && row_length_ % 16 == 0 &&
                      reinterpret_cast<uintptr_t>(out) % 64 == 0)) {
    int64_t row = begin;
    const TileCode* interleaved =
        (streaming_ ? interleaved_streaming_code_ : interleaved_code_).get();
    if (interleaved != nullptr) {
      const int64_t whole = (end - begin) / kInterleavedRows * kInterleavedRows;
      interleaved->RunRows(values.data(), row_length_, buffers, row, row + whole, /*start=*/0);
      row += whole;
    }
    (streaming_ ? streaming_code_ : code_)
        ->RunRows(values.data(), row_length_, buffers, row, end, /*start=*/0);
    if (streaming_) _mm_sfence();
    return;
  }
  std::vector<TileRange> tiles;
  for (int64_t row = begin; row < end; ++row) tiles.push_back({row, 0, row_length_});
  RunCode(buffers, tiles, values.data(), scratch.get());
}

void TileKernel::RunColumns(void** buffers, int64_t begin, int64_t end) const {
  std::vector<Value> values(steps_.size());
  const std::unique_ptr<float[], AlignedDelete> scratch = NewScratch();
  const int step_count = static_cast<int>(steps_.size());
  if (code_ != nullptr) {
    for (int step : stored_) values[step].tile = scratch.get() + steps_[step].slot * SlotStride();
    float* out = static_cast<float*>(buffers[parameter_count_]);
    for (int64_t start = begin; start < end; start += tile_length_) {
      const int64_t n = std::min(tile_length_, end - start);
      // The accumulators: the result's columns where the fold is the
      // result, else their scratch tile.
      values[fold_].tile =
          root_ == fold_ ? out + start : scratch.get() + steps_[fold_].slot * SlotStride();
      first_row_code_->Run(values.data(), n, buffers, 0, start);
      code_->RunRows(values.data(), n, buffers, 1, rows_, start);
      if (epilogue_code_ != nullptr) epilogue_code_->Run(values.data(), n, buffers, 0, start);
    }
    return;
  }
  for (int64_t start = begin; start < end; start += tile_length_) {
    const int64_t n = std::min(tile_length_, end - start);
    // Row by row, as the JIT's column kernels fold them (their sums' order).
    for (int64_t row = 0; row < rows_; ++row) {
      RunSteps(0, fold_ + 1, buffers, {row, start, n}, values.data(), scratch.get());
    }
    RunSteps(fold_ + 1, step_count, buffers, {0, start, n}, values.data(), scratch.get());
  }
}

float* TileKernel::TileOf(int step, void** buffers, const TileRange& tile, float* scratch) const {
  // (A column reduction's result is one row of columns.)
  return step == root_ && !streaming_ ? static_cast<float*>(buffers[parameter_count_]) +
                                            (fold_ >= 0 ? 0 : tile.row * row_length_) + tile.start
                                      : scratch + steps_[step].slot * SlotStride();
}

void TileKernel::RunSteps(int first, int last, void** buffers, const TileRange& range,
                          Value* values, float* scratch) const {
  const int64_t row = range.row;
  const int64_t start = range.start;
  const int64_t n = range.n;
  auto is_full = [&](int operand) { return steps_[operand].kind == Kind::kFull; };
  for (int i = first; i < last; ++i) {
    const Step& step = steps_[i];
    Value& value = values[i];
    const bool full = step.kind == Kind::kFull;
    float* tile = full ? TileOf(i, buffers, range, scratch) : nullptr;
    const Value* a = step.operands[0] >= 0 ? &values[step.operands[0]] : nullptr;
    const Value* b = step.operands[1] >= 0 ? &values[step.operands[1]] : nullptr;
    const Value* c = step.operands[2] >= 0 ? &values[step.operands[2]] : nullptr;
    switch (step.op) {
      case StepOp::kParameter: {
        const float* p = static_cast<const float*>(buffers[step.parameter]);
        if (full) {
          value.tile = p + row * row_length_ + start;
        } else {
          value.scalar = p[step.kind == Kind::kRow ? row : 0];
        }
        break;
      }
      case StepOp::kColumn:
        value.tile = static_cast<const float*>(buffers[step.parameter]) + start;
        break;
      case StepOp::kConstant:
        value.scalar = step.constant;
        break;
      case StepOp::kBinary:
        if (full) {
          Binary(step.binary, is_full(step.operands[0]) ? a->tile : nullptr, a->scalar,
                 is_full(step.operands[1]) ? b->tile : nullptr, b->scalar, tile, n);
          value.tile = tile;
        } else {
          Binary(step.binary, nullptr, a->scalar, nullptr, b->scalar, &value.scalar, 1);
        }
        break;
      case StepOp::kUnary:
        if (full) {
          Unary(step.unary, a->tile, tile, n);
          value.tile = tile;
        } else {
          Unary(step.unary, &a->scalar, &value.scalar, 1);
        }
        break;
      case StepOp::kMath:
        if (full) {
          reinterpret_cast<llvm_ir::UnaryArrayRoutine*>(step.array_routine)(a->tile, tile, n);
          value.tile = tile;
        } else {
          value.scalar = step.scalar_routine(a->scalar);
        }
        break;
      case StepOp::kReduce:
        value.scalar = Reduce(step.reduction, a->tile, n, b->scalar);
        break;
      case StepOp::kFold: {
        // accumulator = reducer(accumulator, x), from the init value at the
        // first row.
        const float* accumulator = row == 0 ? nullptr : tile;
        if (step.reduction.accumulator_first) {
          Binary(step.reduction.op, accumulator, b->scalar, a->tile, 0, tile, n);
        } else {
          Binary(step.reduction.op, a->tile, 0, accumulator, b->scalar, tile, n);
        }
        value.tile = tile;
        break;
      }
      case StepOp::kCompare:
        if (full) {
          Compare(step.compare, is_full(step.operands[0]) ? a->tile : nullptr, a->scalar,
                  is_full(step.operands[1]) ? b->tile : nullptr, b->scalar, tile, n);
          value.tile = tile;
        } else {
          Compare(step.compare, nullptr, a->scalar, nullptr, b->scalar, &value.scalar, 1);
        }
        break;
      case StepOp::kSelect:
        if (full) {
          Select(is_full(step.operands[0]) ? a->tile : nullptr, a->scalar,
                 is_full(step.operands[1]) ? b->tile : nullptr, b->scalar,
                 is_full(step.operands[2]) ? c->tile : nullptr, c->scalar, tile, n);
          value.tile = tile;
        } else {
          Select(nullptr, a->scalar, nullptr, b->scalar, nullptr, c->scalar, &value.scalar, 1);
        }
        break;
    }
  }
}

}  // namespace cpu
}  // namespace tessera
