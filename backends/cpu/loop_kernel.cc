// Partitioned elementwise kernels; see loop_kernel.h.
#include "backends/cpu/loop_kernel.h"
#include "backends/cpu/loop_kernel_internal.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "backends/llvm_ir/elemental_ir_emitter.h"
#include "backends/llvm_ir/llvm_jit_internal.h"
#include "backends/llvm_ir/kernel_support.h"
#include "backends/llvm_ir/loop_emitter.h"
#include "backends/llvm_ir/polynomial_math.h"
#include "hlo/ir/status_macros.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"

namespace tessera {
namespace cpu {

struct LoopKernelCompiler::Pending {
  llvm_ir::ModuleWithContext module;
  std::string name;
  std::shared_ptr<void*> function;  // the function's address, after Finalize
};

namespace {

using llvm_ir::IrArray;
using llvm_ir::IrIndex;

using llvm_ir::CheckKernelArrayShape;
using llvm_ir::EmitConstantArray;
using llvm_ir::ToStringRef;



// Every transitive user of `hlo` inside its computation reads each element
// of its operand at most once (elementwise ops, and reshapes, transposes,
// slices and reverses, which move or drop elements): a generator for `hlo`
// is called at most once per element of the kernel's result (a reduce read
// through a broadcast would be recomputed per element of the broadcast).
bool ReadOncePerElement(const HloInstruction* hlo) {
  std::vector<const HloInstruction*> stack = {hlo};
  while (!stack.empty()) {
    const HloInstruction* h = stack.back();
    stack.pop_back();
    for (const HloInstruction* user : h->users()) {
      switch (user->opcode()) {
        case HloOpcode::kReshape:
        case HloOpcode::kBitcast:
        case HloOpcode::kTranspose:
        case HloOpcode::kCopy:
        case HloOpcode::kSlice:
        case HloOpcode::kReverse:
          break;
        default:
          if (!user->IsElementwise()) return false;
      }
      stack.push_back(user);
    }
  }
  return true;
}

// The identity of a reducer that is one associative, commutative binary op
// of its two parameters (add, multiply, maximum, minimum, and, or, xor) on
// F32, F64, integers or PRED: the value lanes of a vectorized reduction
// start from.  Null when the reducer is anything else.
llvm::Constant* ReducerIdentity(const HloComputation& reducer, PrimitiveType type,
                                llvm::Type* value_type) {
  const HloInstruction* root = reducer.root_instruction();
  if (root->operand_count() != 2 || root->operand(0)->opcode() != HloOpcode::kParameter ||
      root->operand(1)->opcode() != HloOpcode::kParameter ||
      root->operand(0) == root->operand(1)) {
    return nullptr;
  }
  const bool is_float = type == F32 || type == F64;
  const bool is_int = IsIntegralType(type) || type == PRED;
  if (!is_float && !is_int) return nullptr;
  const unsigned bits = is_int ? value_type->getIntegerBitWidth() : 0;
  auto integer = [&](const llvm::APInt& value) { return llvm::ConstantInt::get(value_type, value); };
  switch (root->opcode()) {
    case HloOpcode::kAdd:
      // -0 + x is x for every x, including -0 (+0 + -0 is +0).
      return is_float ? llvm::ConstantFP::get(value_type, -0.0) : integer(llvm::APInt(bits, 0));
    case HloOpcode::kMultiply:
      return is_float ? llvm::ConstantFP::get(value_type, 1.0) : integer(llvm::APInt(bits, 1));
    case HloOpcode::kMaximum:
      if (is_float) return llvm::ConstantFP::getInfinity(value_type, /*Negative=*/true);
      return integer(IsSignedIntegralType(type) ? llvm::APInt::getSignedMinValue(bits)
                                                : llvm::APInt::getMinValue(bits));
    case HloOpcode::kMinimum:
      if (is_float) return llvm::ConstantFP::getInfinity(value_type, /*Negative=*/false);
      return integer(IsSignedIntegralType(type) ? llvm::APInt::getSignedMaxValue(bits)
                                                : llvm::APInt::getMaxValue(bits));
    case HloOpcode::kAnd:
      return is_int ? integer(llvm::APInt::getAllOnes(bits)) : nullptr;
    case HloOpcode::kOr:
    case HloOpcode::kXor:
      return is_int ? integer(llvm::APInt(bits, 0)) : nullptr;
    default:
      return nullptr;
  }
}

}  // namespace

absl::StatusOr<std::vector<llvm::Value*>> EmitScalarComputation(
    const HloComputation& computation, const std::vector<llvm::Value*>& parameters,
    llvm_ir::ElementalIrEmitter* emitter, llvm::IRBuilder<>* b) {
  llvm::Module* module = b->GetInsertBlock()->getModule();
  const IrIndex scalar_index(b->getInt64Ty());
  const HloInstruction* root = computation.root_instruction();
  llvm_ir::GeneratorMap scalar;
  for (const HloInstruction* h : computation.MakeInstructionPostOrder()) {
    if (h == root && h->opcode() == HloOpcode::kTuple) break;
    if (h->opcode() == HloOpcode::kParameter) {
      const int64_t number = h->parameter_number();
      if (number < 0 || number >= static_cast<int64_t>(parameters.size())) {
        return absl::InvalidArgumentError(
            absl::StrCat(computation.name(), ": parameter ", number, " out of range"));
      }
      llvm::Value* value = parameters[number];
      scalar[h] = [value](const IrIndex&) -> absl::StatusOr<llvm::Value*> { return value; };
    } else if (h->opcode() == HloOpcode::kConstant) {
      IrArray array = EmitConstantArray(*h, module);
      scalar[h] = [array, b](const IrIndex& i) { return array.EmitRead(i, b); };
    } else {
      TS_ASSIGN_OR_RETURN(scalar[h], emitter->MakeElementGenerator(h, scalar));
    }
  }
  std::vector<llvm::Value*> results;
  if (root->opcode() == HloOpcode::kTuple) {
    for (const HloInstruction* operand : root->operands()) {
      TS_ASSIGN_OR_RETURN(llvm::Value * value, scalar.at(operand)(scalar_index));
      results.push_back(value);
    }
  } else {
    TS_ASSIGN_OR_RETURN(llvm::Value * value, scalar.at(root)(scalar_index));
    results.push_back(value);
  }
  return results;
}

absl::StatusOr<llvm::Value*> EmitReducer(const HloComputation& reducer, llvm::Value* accumulator,
                                         llvm::Value* x, llvm_ir::ElementalIrEmitter* emitter,
                                         llvm::IRBuilder<>* b) {
  TS_ASSIGN_OR_RETURN(std::vector<llvm::Value*> results,
                      EmitScalarComputation(reducer, {accumulator, x}, emitter, b));
  return results[0];
}

std::unique_ptr<llvm_ir::ElementalIrEmitter> MakeEmitter(bool polynomial_math,
                                                         llvm::Module* module,
                                                         llvm::IRBuilder<>* b) {
  if (polynomial_math) return std::make_unique<llvm_ir::PolynomialMathEmitter>(module, b);
  return std::make_unique<llvm_ir::ElementalIrEmitter>(module, b);
}

void LoopKernelCompiler::AddPending(llvm_ir::ModuleWithContext&& module, std::string name,
                                    LoopKernel* kernel) {
  AddPending(std::move(module), std::move(name), kernel->function_);
  kernel->jit_ = jit_;
}

void LoopKernelCompiler::AddPending(llvm_ir::ModuleWithContext&& module, std::string name,
                                    std::shared_ptr<void*> address) {
  auto pending = std::make_shared<Pending>();
  pending->module = std::move(module);
  pending->name = std::move(name);
  pending->function = std::move(address);
  pending_.push_back(std::move(pending));
}

namespace {

// The number of lanes a vectorized reduction of `type` folds into: 128
// bytes of accumulators (two AVX-512 registers, or four AVX2 ones), so the
// vectorized lane loop has independent adds to overlap.
int64_t ReductionLanes(PrimitiveType type) {
  return std::max<int64_t>(8, 128 / std::max(1, ByteWidth(type)));
}

// OK when `hlo` (a reduce or reduce-window) has a two-parameter reducer of
// scalar elementwise ops on its result's element type.
absl::Status CheckScalarReducer(const HloInstruction& hlo) {
  const HloComputation* reducer = hlo.to_apply();
  if (reducer == nullptr || reducer->num_parameters() != 2) {
    return absl::UnimplementedError(absl::StrCat("%", hlo.name(), ": an unusual reducer"));
  }
  const PrimitiveType type = hlo.shape().element_type();
  for (const HloInstruction* h : reducer->MakeInstructionPostOrder()) {
    if (!h->shape().IsArray() || h->shape().rank() != 0 || h->shape().element_type() != type) {
      return absl::UnimplementedError(
          absl::StrCat("%", hlo.name(), ": the reducer is not scalar ", PrimitiveTypeName(type)));
    }
    if (h->opcode() != HloOpcode::kParameter && h->opcode() != HloOpcode::kConstant &&
        !h->IsElementwise()) {
      return absl::UnimplementedError(
          absl::StrCat("%", hlo.name(), ": the reducer is not elementwise"));
    }
  }
  return absl::OkStatus();
}

// Called with each element a reduce folds in, and its index in the
// reduce's operand (row kernels keep it, to read it again in a later pass).
using ElementSink = std::function<absl::Status(const IrIndex& index, llvm::Value* value)>;

// A generator for a one-operand `reduce` whose reducer is a scalar
// elementwise computation.  Per result element, from the init value:
// - serial: the operand's elements in row-major order of the reduced
//   dimensions, accumulator first (the evaluator's order, bit for bit);
// - vectorized, where the reducer has an identity (ReducerIdentity), the
//   innermost reduced dimension (the reduced one minor-most in the
//   operand's layout) spans at least ReductionLanes() elements, and either
//   the op is exact in any order (integers, max/min) or `reorder_floats`:
//   lane j folds the elements whose position along that dimension is j
//   modulo the lane count (the other reduced dimensions in row-major order
//   around it), lanes start from the identity and are combined pairwise
//   (lane j with lane j + half, halving), and the init value folds in last.
//   A float sum's error bound is then about (n/lanes + log2 lanes) ulps
//   instead of n; the lane loop is what LLVM's loop vectorizer turns into
//   vector code.
absl::StatusOr<llvm_ir::ElementGenerator> MakeReduceGenerator(
    const HloInstruction* reduce, const llvm_ir::GeneratorMap& generators,
    llvm_ir::ElementalIrEmitter* emitter, llvm::IRBuilder<>* b, bool reorder_floats,
    bool computed_once_per_row, ElementSink sink = nullptr) {
  if (reduce->operand_count() != 2 || !reduce->shape().IsArray()) {
    return absl::UnimplementedError(
        absl::StrCat("%", reduce->name(), ": only one-operand reduces run in kernels"));
  }
  TS_RETURN_IF_ERROR(CheckScalarReducer(*reduce));
  const HloComputation* reducer = reduce->to_apply();
  const PrimitiveType type = reduce->shape().element_type();
  if (!computed_once_per_row && !ReadOncePerElement(reduce)) {
    return absl::UnimplementedError(
        absl::StrCat("%", reduce->name(), ": its result is read other than elementwise"));
  }
  const HloInstruction* input = reduce->operand(0);
  const HloInstruction* init = reduce->operand(1);
  const int64_t rank = input->shape().rank();
  std::vector<bool> reduced(rank, false);
  for (int64_t d : reduce->dimensions()) {
    if (d < 0 || d >= rank) return absl::InvalidArgumentError("bad reduce dimensions");
    reduced[d] = true;
  }
  const Shape input_shape = input->shape();
  // The innermost reduced dimension, and whether the lanes apply.
  int64_t inner = -1;
  for (int64_t d : llvm_ir::MinorToMajor(input_shape)) {
    if (reduced[d]) {
      inner = d;
      break;
    }
  }
  TS_ASSIGN_OR_RETURN(llvm::Type * value_type, llvm_ir::IrValueType(type, b->getContext()));
  llvm::Constant* identity = ReducerIdentity(*reducer, type, value_type);
  const HloOpcode op = reducer->root_instruction()->opcode();
  const bool exact_in_any_order =
      type != F32 && type != F64 ? true : op == HloOpcode::kMaximum || op == HloOpcode::kMinimum;
  const int64_t lanes = ReductionLanes(type);
  const bool vectorized = identity != nullptr && inner >= 0 &&
                          input_shape.dimensions(inner) >= lanes &&
                          (exact_in_any_order || reorder_floats);

  llvm_ir::ElementGenerator input_generator = generators.at(input);
  llvm_ir::ElementGenerator init_generator = generators.at(init);
  return llvm_ir::ElementGenerator(
      [=](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
        llvm::Type* index_type = index.index_type();
        auto constant = [&](int64_t v) { return llvm::ConstantInt::get(index_type, v); };
        TS_ASSIGN_OR_RETURN(llvm::Value * init_value, init_generator(IrIndex(index_type)));
        // Accumulators live in stack slots of the function's entry block
        // (promoted to registers by mem2reg/SROA).
        llvm::Function* function = b->GetInsertBlock()->getParent();
        llvm::IRBuilder<> entry_builder(&function->getEntryBlock(),
                                        function->getEntryBlock().begin());
        std::vector<llvm::Value*> multi_index(rank, nullptr);
        int64_t kept = 0;
        for (int64_t d = 0; d < rank; ++d) {
          if (!reduced[d]) multi_index[d] = index[kept++];
        }
        // Loops over the reduced dimensions (but `skip`) in row-major order.
        auto open_loops = [&](int64_t skip) {
          std::vector<llvm_ir::ForLoop> loops;
          for (int64_t d = 0; d < rank; ++d) {
            if (!reduced[d] || d == skip) continue;
            loops.push_back(llvm_ir::ForLoop::Emit(absl::StrCat(reduce->name(), ".r", d),
                                                   constant(0),
                                                   constant(input_shape.dimensions(d)), b));
            multi_index[d] = loops.back().induction_variable();
          }
          return loops;
        };
        if (!vectorized) {
          llvm::AllocaInst* slot =
              entry_builder.CreateAlloca(value_type, nullptr, "accumulator");
          b->CreateStore(init_value, slot);
          std::vector<llvm_ir::ForLoop> loops = open_loops(-1);
          const IrIndex input_index(multi_index, input_shape, index_type);
          TS_ASSIGN_OR_RETURN(llvm::Value * x, input_generator(input_index));
          if (sink) TS_RETURN_IF_ERROR(sink(input_index, x));
          llvm::Value* accumulator = b->CreateLoad(value_type, slot);
          TS_ASSIGN_OR_RETURN(llvm::Value * next,
                              EmitReducer(*reducer, accumulator, x, emitter, b));
          b->CreateStore(next, slot);
          for (auto it = loops.rbegin(); it != loops.rend(); ++it) it->Finish(b);
          return static_cast<llvm::Value*>(b->CreateLoad(value_type, slot));
        }

        llvm::ArrayType* lanes_type = llvm::ArrayType::get(value_type, lanes);
        llvm::AllocaInst* lane_slots = entry_builder.CreateAlloca(lanes_type, nullptr, "lanes");
        auto lane = [&](llvm::Value* j) {
          return b->CreateInBoundsGEP(lanes_type, lane_slots, {constant(0), j});
        };
        {
          llvm_ir::ForLoop fill =
              llvm_ir::ForLoop::Emit(absl::StrCat(reduce->name(), ".fill"), constant(0),
                                     constant(lanes), b);
          b->CreateStore(identity, lane(fill.induction_variable()));
          fill.Finish(b);
        }
        // Folds the element at position `position` of the inner dimension
        // into lane `j`.
        auto fold = [&](llvm::Value* position, llvm::Value* j) -> absl::Status {
          multi_index[inner] = position;
          const IrIndex input_index(multi_index, input_shape, index_type);
          TS_ASSIGN_OR_RETURN(llvm::Value * x, input_generator(input_index));
          if (sink) TS_RETURN_IF_ERROR(sink(input_index, x));
          llvm::Value* slot = lane(j);
          llvm::Value* accumulator = b->CreateLoad(value_type, slot);
          TS_ASSIGN_OR_RETURN(llvm::Value * next,
                              EmitReducer(*reducer, accumulator, x, emitter, b));
          b->CreateStore(next, slot);
          return absl::OkStatus();
        };
        const int64_t extent = input_shape.dimensions(inner);
        const int64_t full = extent / lanes * lanes;
        std::vector<llvm_ir::ForLoop> loops = open_loops(inner);
        {
          llvm_ir::ForLoop blocks = llvm_ir::ForLoop::Emit(
              absl::StrCat(reduce->name(), ".block"), constant(0), constant(full / lanes), b);
          llvm::Value* base = b->CreateMul(blocks.induction_variable(), constant(lanes), "",
                                           /*HasNUW=*/true, /*HasNSW=*/true);
          llvm_ir::ForLoop in_block = llvm_ir::ForLoop::Emit(
              absl::StrCat(reduce->name(), ".lane"), constant(0), constant(lanes), b);
          llvm::Value* j = in_block.induction_variable();
          TS_RETURN_IF_ERROR(fold(b->CreateAdd(base, j, "", /*HasNUW=*/true, /*HasNSW=*/true), j));
          in_block.Finish(b);
          blocks.Finish(b);
        }
        if (full < extent) {
          llvm_ir::ForLoop tail = llvm_ir::ForLoop::Emit(absl::StrCat(reduce->name(), ".tail"),
                                                         constant(0), constant(extent - full), b);
          llvm::Value* j = tail.induction_variable();
          TS_RETURN_IF_ERROR(
              fold(b->CreateAdd(constant(full), j, "", /*HasNUW=*/true, /*HasNSW=*/true), j));
          tail.Finish(b);
        }
        for (auto it = loops.rbegin(); it != loops.rend(); ++it) it->Finish(b);
        // Pairwise combination: lane j absorbs lane j + half.
        for (int64_t half = lanes / 2; half >= 1; half /= 2) {
          for (int64_t j = 0; j < half; ++j) {
            llvm::Value* low = lane(constant(j));
            llvm::Value* high = lane(constant(j + half));
            TS_ASSIGN_OR_RETURN(
                llvm::Value * next,
                EmitReducer(*reducer, b->CreateLoad(value_type, low),
                            b->CreateLoad(value_type, high), emitter, b));
            b->CreateStore(next, low);
          }
        }
        return EmitReducer(*reducer, init_value, b->CreateLoad(value_type, lane(constant(0))),
                           emitter, b);
      });
}

// A generator for a one-input `reduce-window` with a scalar elementwise
// reducer: per result element, from the init value, the window's elements
// in row-major window order, accumulator first, padding and base-dilation
// holes skipped -- the evaluator's order, bit for bit.  Each window
// element is read at a clamped position and kept or dropped by a select,
// so the loop body has no branches.
absl::StatusOr<llvm_ir::ElementGenerator> MakeReduceWindowGenerator(
    const HloInstruction* hlo, const llvm_ir::GeneratorMap& generators,
    llvm_ir::ElementalIrEmitter* emitter, llvm::IRBuilder<>* b) {
  if (hlo->operand_count() != 2 || !hlo->shape().IsArray() ||
      !hlo->operand(0)->shape().IsArray() || !hlo->attrs().window.has_value()) {
    return absl::UnimplementedError(
        absl::StrCat("%", hlo->name(), ": only one-input reduce-windows run in kernels"));
  }
  TS_RETURN_IF_ERROR(CheckScalarReducer(*hlo));
  if (!ReadOncePerElement(hlo)) {
    return absl::UnimplementedError(
        absl::StrCat("%", hlo->name(), ": its result is read other than elementwise"));
  }
  const Shape input_shape = hlo->operand(0)->shape();
  const std::vector<WindowDimension> window = hlo->window().dimensions;
  const int64_t rank = input_shape.rank();
  if (static_cast<int64_t>(window.size()) != rank || hlo->shape().rank() != rank) {
    return absl::InvalidArgumentError(absl::StrCat("%", hlo->name(), ": a window per dimension"));
  }
  for (const WindowDimension& w : window) {
    if (w.size < 0 || w.stride < 1 || w.window_dilation < 1 || w.base_dilation < 1) {
      return absl::InvalidArgumentError(absl::StrCat("%", hlo->name(), ": a bad window"));
    }
  }
  const HloComputation* reducer = hlo->to_apply();
  TS_ASSIGN_OR_RETURN(llvm::Type * value_type,
                      llvm_ir::IrValueType(hlo->shape().element_type(), b->getContext()));
  llvm_ir::ElementGenerator input_generator = generators.at(hlo->operand(0));
  llvm_ir::ElementGenerator init_generator = generators.at(hlo->operand(1));
  const std::string name = hlo->name();
  return llvm_ir::ElementGenerator([=](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
    llvm::Type* index_type = index.index_type();
    auto constant = [&](int64_t v) { return llvm::ConstantInt::get(index_type, v); };
    TS_ASSIGN_OR_RETURN(llvm::Value * init_value, init_generator(IrIndex(index_type)));
    llvm::Function* function = b->GetInsertBlock()->getParent();
    llvm::IRBuilder<> entry_builder(&function->getEntryBlock(), function->getEntryBlock().begin());
    llvm::AllocaInst* slot = entry_builder.CreateAlloca(value_type, nullptr, "window_accumulator");
    b->CreateStore(init_value, slot);
    for (int64_t d = 0; d < rank; ++d) {
      if (input_shape.dimensions(d) == 0 || window[d].size == 0) {
        return static_cast<llvm::Value*>(b->CreateLoad(value_type, slot));
      }
    }
    std::vector<llvm_ir::ForLoop> loops;
    std::vector<llvm::Value*> source(rank);
    llvm::Value* valid = b->getTrue();
    for (int64_t d = 0; d < rank; ++d) {
      const WindowDimension& w = window[d];
      loops.push_back(llvm_ir::ForLoop::Emit(absl::StrCat(name, ".w", d), constant(0),
                                             constant(w.size), b));
      llvm::Value* k = loops.back().induction_variable();
      llvm::Value* position =
          b->CreateAdd(b->CreateSub(b->CreateMul(index[d], constant(w.stride)),
                                    constant(w.padding_low)),
                       b->CreateMul(k, constant(w.window_dilation)));
      if (w.base_dilation > 1) {
        valid = b->CreateAnd(valid, b->CreateICmpEQ(b->CreateSRem(position,
                                                                  constant(w.base_dilation)),
                                                    constant(0)));
        position = b->CreateSDiv(position, constant(w.base_dilation));
      }
      const int64_t extent = input_shape.dimensions(d);
      valid = b->CreateAnd(valid, b->CreateICmpSGE(position, constant(0)));
      valid = b->CreateAnd(valid, b->CreateICmpSLT(position, constant(extent)));
      llvm::Value* clamped =
          b->CreateSelect(b->CreateICmpSLT(position, constant(0)), constant(0), position);
      source[d] = b->CreateSelect(b->CreateICmpSGT(clamped, constant(extent - 1)),
                                  constant(extent - 1), clamped);
    }
    TS_ASSIGN_OR_RETURN(llvm::Value * x,
                        input_generator(IrIndex(source, input_shape, index_type)));
    llvm::Value* accumulator = b->CreateLoad(value_type, slot);
    TS_ASSIGN_OR_RETURN(llvm::Value * next, EmitReducer(*reducer, accumulator, x, emitter, b));
    b->CreateStore(b->CreateSelect(valid, next, accumulator), slot);
    for (auto it = loops.rbegin(); it != loops.rend(); ++it) it->Finish(b);
    return static_cast<llvm::Value*>(b->CreateLoad(value_type, slot));
  });
}

// A row kernel: reduces whose results are read through broadcasts (a
// softmax's max and sum, a layer norm's mean and variance, fused with what
// uses them) are computed once per row -- per index of the root's `rows`
// leading dimensions -- before the loops over the rest of the row, which
// then read them as values.  The row stays in cache between its passes, so
// the kernel reads its input from memory once.
struct RowPlan {
  int64_t rows = 0;  // leading dimensions of the root that index a row
  std::vector<const HloInstruction*> reduces;  // post order
  // Operands of those reduces with other users in the row (a softmax's
  // exp): kept in a per-row scratch while the reduce folds them, read from
  // there afterwards instead of being computed again.
  std::vector<const HloInstruction*> kept;
  int64_t row_elements = 0;  // of the root's trailing (non-row) dimensions
};

// Which dimension of each instruction carries each row dimension of the
// root (-1: none), propagated from the root to operands.  Nullopt unless
// `computation` is a row kernel: some reduce is read other than
// elementwise; every reduce has as many dimensions as the root has row
// dimensions and they carry the rows in order (so whoever reads it reads
// the current row's value), or does not depend on the row and is read
// once per element; row dimensions pass only through elementwise ops,
// broadcasts and reduces; and the rows are the root's major-most
// dimensions in its layout.
std::optional<RowPlan> PlanRowKernel(const HloComputation& computation, const Shape& root_shape) {
  const std::vector<HloInstruction*> order = computation.MakeInstructionPostOrder();
  int64_t rows = -1;
  bool needed = false;
  for (const HloInstruction* h : order) {
    if (h->opcode() != HloOpcode::kReduce || !h->shape().IsArray()) continue;
    if (ReadOncePerElement(h)) continue;
    needed = true;
    if (rows >= 0 && rows != h->shape().rank()) return std::nullopt;
    rows = h->shape().rank();
  }
  if (!needed || rows <= 0 || root_shape.rank() < rows) return std::nullopt;
  const std::vector<int64_t> minor_to_major = llvm_ir::MinorToMajor(root_shape);
  for (int64_t i = 0; i < rows; ++i) {
    if (minor_to_major[root_shape.rank() - 1 - i] != i) return std::nullopt;
  }
  using Mapping = std::vector<int64_t>;
  const Mapping none(rows, -1);
  absl::flat_hash_map<const HloInstruction*, Mapping> mapping;
  Mapping identity(rows);
  for (int64_t i = 0; i < rows; ++i) identity[i] = i;
  mapping[computation.root_instruction()] = identity;
  auto assign = [&](const HloInstruction* operand, const Mapping& m) {
    auto [it, inserted] = mapping.try_emplace(operand, m);
    return inserted || it->second == m;
  };
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const HloInstruction* h = *it;
    auto found = mapping.find(h);
    if (found == mapping.end()) return std::nullopt;  // unused: not expected in a fusion
    const Mapping m = found->second;
    if (h->opcode() == HloOpcode::kParameter || h->opcode() == HloOpcode::kConstant) continue;
    if (h->opcode() == HloOpcode::kBroadcast) {
      Mapping operand_m(rows, -1);
      const std::vector<int64_t>& dims = h->dimensions();
      for (int64_t i = 0; i < rows; ++i) {
        for (size_t j = 0; m[i] >= 0 && j < dims.size(); ++j) {
          if (dims[j] == m[i]) operand_m[i] = static_cast<int64_t>(j);
        }
      }
      if (!assign(h->operand(0), operand_m)) return std::nullopt;
    } else if (h->opcode() == HloOpcode::kReduce) {
      if (h->operand_count() != 2) return std::nullopt;
      std::vector<int64_t> kept;
      const std::vector<int64_t>& reduced = h->dimensions();
      for (int64_t d = 0; d < h->operand(0)->shape().rank(); ++d) {
        if (std::find(reduced.begin(), reduced.end(), d) == reduced.end()) kept.push_back(d);
      }
      Mapping operand_m(rows, -1);
      for (int64_t i = 0; i < rows; ++i) {
        if (m[i] >= 0) operand_m[i] = kept[m[i]];
      }
      if (!assign(h->operand(0), operand_m) || !assign(h->operand(1), none)) return std::nullopt;
    } else if (h->IsElementwise()) {
      for (const HloInstruction* operand : h->operands()) {
        // Operands have the op's dimensions, or are scalars (clamp's bounds).
        const bool same = operand->shape().dimensions() == h->shape().dimensions();
        if (!same && operand->shape().rank() != 0) return std::nullopt;
        if (!assign(operand, same ? m : none)) return std::nullopt;
      }
    } else {
      if (m != none) return std::nullopt;
      for (const HloInstruction* operand : h->operands()) {
        if (!assign(operand, none)) return std::nullopt;
      }
    }
  }
  RowPlan plan;
  plan.rows = rows;
  plan.row_elements = 1;
  for (int64_t d = rows; d < root_shape.rank(); ++d) plan.row_elements *= root_shape.dimensions(d);
  for (const HloInstruction* h : order) {
    if (h->opcode() != HloOpcode::kReduce) continue;
    const Mapping& m = mapping.at(h);
    if (m == identity && h->shape().rank() == rows) {
      plan.reduces.push_back(h);
      const HloInstruction* input = h->operand(0);
      const bool in_row = input->shape().dimensions() == root_shape.dimensions() &&
                          mapping.at(input) == identity && root_shape.rank() > rows;
      if (in_row && input->user_count() > 1 && input->opcode() != HloOpcode::kParameter &&
          input->opcode() != HloOpcode::kConstant &&
          std::find(plan.kept.begin(), plan.kept.end(), input) == plan.kept.end()) {
        plan.kept.push_back(input);
      }
    } else if (m != none || !ReadOncePerElement(h)) {
      return std::nullopt;
    }
  }
  // A row too long for a stack scratch keeps nothing (it is recomputed).
  if (plan.row_elements * 8 > (int64_t{256} << 10)) plan.kept.clear();
  return plan;
}

// A column kernel: one reduce that keeps its operand's minor-most
// dimension (a bias gradient: [batch, features] -> [features]), with an
// elementwise epilogue in its result's space.  Per tile of kColumnTile
// consecutive results along that dimension, the kernel folds the reduced
// dimensions (row-major, outermost loops) into a tile of accumulators,
// whose inner loop runs along the contiguous dimension and vectorizes, then
// applies the epilogue to the tile.  Each result still folds its elements
// from the init value in the evaluator's order: bit for bit.
constexpr int64_t kColumnTile = 64;

struct ColumnPlan {
  const HloInstruction* reduce = nullptr;
  int64_t input_minor = 0;   // the operand's minor-most dimension (kept)
  int64_t result_minor = 0;  // its position in the reduce's (and root's) result
};

std::optional<ColumnPlan> PlanColumnKernel(const HloComputation& computation,
                                           const Shape& root_shape) {
  const HloInstruction* reduce = nullptr;
  for (const HloInstruction* h : computation.instructions()) {
    if (h->opcode() != HloOpcode::kReduce) continue;
    if (reduce != nullptr) return std::nullopt;
    reduce = h;
  }
  if (reduce == nullptr || reduce->operand_count() != 2 || !reduce->shape().IsArray() ||
      reduce->shape().rank() == 0 ||
      reduce->shape().dimensions() != root_shape.dimensions()) {
    return std::nullopt;
  }
  // Only elementwise ops between the reduce and the root: one index space.
  std::vector<const HloInstruction*> stack = {reduce};
  while (!stack.empty()) {
    const HloInstruction* h = stack.back();
    stack.pop_back();
    for (const HloInstruction* user : h->users()) {
      if (!user->IsElementwise() || user->shape().dimensions() != root_shape.dimensions()) {
        return std::nullopt;
      }
      stack.push_back(user);
    }
  }
  const Shape& input = reduce->operand(0)->shape();
  const int64_t input_minor = llvm_ir::MinorToMajor(input)[0];
  const std::vector<int64_t>& reduced = reduce->dimensions();
  if (std::find(reduced.begin(), reduced.end(), input_minor) != reduced.end()) {
    return std::nullopt;
  }
  ColumnPlan plan;
  plan.reduce = reduce;
  plan.input_minor = input_minor;
  for (int64_t d = 0; d < input_minor; ++d) {
    if (std::find(reduced.begin(), reduced.end(), d) == reduced.end()) ++plan.result_minor;
  }
  if (llvm_ir::MinorToMajor(root_shape)[0] != plan.result_minor) return std::nullopt;
  return plan;
}

// The loops of a column kernel over the result's minor dimension, from
// `start` to `stop`, inside the loops over its other dimensions (whose
// indices are in `multi_index`, their part of the linear position in
// `linear`): per tile, init, fold (reduced dimensions outermost, row-major;
// the tile's elements innermost), then the epilogue and the stores.
absl::Status EmitColumnTiles(const ColumnPlan& plan, llvm::Value* start, llvm::Value* stop,
                             std::vector<llvm::Value*> multi_index, llvm::Value* linear,
                             int64_t minor_stride, const Shape& shape,
                             llvm::AllocaInst* accumulators,
                             const std::shared_ptr<llvm::Value*>& tile_start,
                             const llvm_ir::ElementGenerator& input,
                             const llvm_ir::ElementGenerator& init,
                             const llvm_ir::ElementGenerator& root, const IrArray& result,
                             llvm_ir::ElementalIrEmitter* emitter, llvm::IRBuilder<>* b) {
  llvm::Type* i64 = b->getInt64Ty();
  auto constant = [&](int64_t v) -> llvm::Value* { return llvm::ConstantInt::get(i64, v); };
  const HloInstruction* reduce = plan.reduce;
  const Shape input_shape = reduce->operand(0)->shape();
  llvm::Type* type = accumulators->getAllocatedType();
  auto slot = [&](llvm::Value* j) { return b->CreateInBoundsGEP(type, accumulators, {j}); };
  llvm::Value* count = b->CreateSub(stop, start);
  llvm::Value* tiles = b->CreateUDiv(b->CreateAdd(count, constant(kColumnTile - 1)),
                                     constant(kColumnTile));
  llvm_ir::ForLoop tile = llvm_ir::ForLoop::Emit("tile", constant(0), tiles, b);
  llvm::Value* first = b->CreateAdd(start, b->CreateMul(tile.induction_variable(),
                                                        constant(kColumnTile)));
  llvm::Value* left = b->CreateSub(stop, first);
  llvm::Value* width = b->CreateSelect(b->CreateICmpULT(left, constant(kColumnTile)), left,
                                       constant(kColumnTile));
  *tile_start = first;
  TS_ASSIGN_OR_RETURN(llvm::Value * init_value, init(IrIndex(i64)));
  {
    llvm_ir::ForLoop fill = llvm_ir::ForLoop::Emit("fill", constant(0), width, b);
    b->CreateStore(init_value, slot(fill.induction_variable()));
    fill.Finish(b);
  }
  // The operand's index: kept dimensions from the result's, reduced ones
  // from their loops, the minor one from the tile.
  const int64_t rank = input_shape.rank();
  std::vector<bool> reduced(rank, false);
  for (int64_t d : reduce->dimensions()) reduced[d] = true;
  std::vector<llvm::Value*> input_index(rank, nullptr);
  int64_t kept = 0;
  for (int64_t d = 0; d < rank; ++d) {
    if (!reduced[d]) input_index[d] = multi_index[kept++];
  }
  std::vector<llvm_ir::ForLoop> reduce_loops;
  for (int64_t d = 0; d < rank; ++d) {
    if (!reduced[d]) continue;
    reduce_loops.push_back(llvm_ir::ForLoop::Emit(absl::StrCat("column.r", d), constant(0),
                                                  constant(input_shape.dimensions(d)), b));
    input_index[d] = reduce_loops.back().induction_variable();
  }
  {
    llvm_ir::ForLoop lane = llvm_ir::ForLoop::Emit("lane", constant(0), width, b);
    llvm::Value* j = lane.induction_variable();
    input_index[plan.input_minor] = b->CreateAdd(first, j);
    TS_ASSIGN_OR_RETURN(llvm::Value * x, input(IrIndex(input_index, input_shape, i64)));
    llvm::Value* accumulator = b->CreateLoad(type, slot(j));
    TS_ASSIGN_OR_RETURN(llvm::Value * next,
                        EmitReducer(*reduce->to_apply(), accumulator, x, emitter, b));
    b->CreateStore(next, slot(j));
    lane.Finish(b);
  }
  for (auto it = reduce_loops.rbegin(); it != reduce_loops.rend(); ++it) it->Finish(b);
  {
    llvm_ir::ForLoop lane = llvm_ir::ForLoop::Emit("store", constant(0), width, b);
    llvm::Value* position = b->CreateAdd(first, lane.induction_variable());
    multi_index[plan.result_minor] = position;
    llvm::Value* at = b->CreateAdd(linear, b->CreateMul(position, constant(minor_stride)));
    const IrIndex index(multi_index, shape, i64, at);
    TS_ASSIGN_OR_RETURN(llvm::Value * value, root(index));
    TS_RETURN_IF_ERROR(result.EmitWrite(index, value, b));
    lane.Finish(b);
  }
  tile.Finish(b);
  *tile_start = nullptr;
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<LoopKernelCompiler>> LoopKernelCompiler::Create(
    const llvm_ir::JitOptions& options) {
  TS_ASSIGN_OR_RETURN(std::unique_ptr<llvm_ir::LlvmJit> jit, llvm_ir::LlvmJit::Create(options));
  return std::unique_ptr<LoopKernelCompiler>(
      new LoopKernelCompiler(std::shared_ptr<llvm_ir::LlvmJit>(std::move(jit))));
}

absl::StatusOr<std::unique_ptr<LoopKernel>> LoopKernelCompiler::Compile(
    const HloComputation& computation, const LoopKernelOptions& options) {
  const HloInstruction* root = computation.root_instruction();
  if (root == nullptr) return absl::InvalidArgumentError("computation has no root");
  for (const HloInstruction* hlo : computation.MakeInstructionPostOrder()) {
    TS_RETURN_IF_ERROR(CheckKernelArrayShape(*hlo));
  }
  const std::string name = absl::StrCat("loop_kernel_", next_kernel_++);
  const int64_t buffer_count = computation.num_parameters() + 1;

  llvm_ir::ModuleWithContext module = llvm_ir::CreateModule(*jit_, name);
  llvm::LLVMContext& context = *module.context;
  llvm::IRBuilder<> b(context);
  llvm::Type* pointer = llvm::PointerType::get(context, 0);
  llvm::Type* i64 = b.getInt64Ty();

  // The body: (ptr p0, ..., ptr pn, i64 begin, i64 end), inlined into the
  // entry so that its noalias arguments become alias scopes.
  std::vector<llvm::Type*> body_arguments(buffer_count, pointer);
  body_arguments.push_back(i64);
  body_arguments.push_back(i64);
  llvm::Function* body = llvm::Function::Create(
      llvm::FunctionType::get(b.getVoidTy(), body_arguments, /*isVarArg=*/false),
      llvm::GlobalValue::InternalLinkage, ToStringRef(absl::StrCat(name, ".body")), module.module.get());
  body->setDoesNotThrow();
  body->addFnAttr(llvm::Attribute::AlwaysInline);
  bool any_same_as_result = false;
  for (int64_t i = 0; i + 1 < buffer_count; ++i) {
    if (i < static_cast<int64_t>(options.same_as_result.size()) && options.same_as_result[i]) {
      any_same_as_result = true;
    }
  }
  for (int64_t i = 0; i < buffer_count; ++i) {
    const bool same = i < static_cast<int64_t>(options.same_as_result.size()) &&
                      options.same_as_result[i];
    // One pointer passed twice must be noalias in neither place.
    if (same || (i == buffer_count - 1 && any_same_as_result)) continue;
    if (i < static_cast<int64_t>(options.noalias.size()) && options.noalias[i]) {
      body->addParamAttr(i, llvm::Attribute::NoAlias);
    }
  }
  llvm::Value* begin = body->getArg(buffer_count);
  llvm::Value* end = body->getArg(buffer_count + 1);
  b.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", body));

  std::unique_ptr<llvm_ir::ElementalIrEmitter> emitter =
      MakeEmitter(options.polynomial_math, module.module.get(), &b);
  Shape shape = root->shape();
  if (!shape.has_layout()) shape.set_layout(Layout::Descending(shape.rank()));
  const std::optional<RowPlan> row_plan = PlanRowKernel(computation, shape);
  const std::optional<ColumnPlan> column_plan =
      row_plan.has_value() ? std::nullopt : PlanColumnKernel(computation, shape);
  // Column kernels: the tile's accumulators, and where the current tile
  // starts along the result's minor dimension (set while emitting).
  llvm::AllocaInst* column_accumulators = nullptr;
  auto column_tile_start = std::make_shared<llvm::Value*>(nullptr);
  llvm_ir::ElementGenerator column_input, column_init;
  // Row kernels: each row's reduce values, once emitted at the row level.
  absl::flat_hash_map<const HloInstruction*, std::shared_ptr<llvm::Value*>> row_values;
  absl::flat_hash_map<const HloInstruction*, llvm_ir::ElementGenerator> row_reducers;
  if (row_plan.has_value()) {
    for (const HloInstruction* reduce : row_plan->reduces) {
      row_values[reduce] = std::make_shared<llvm::Value*>(nullptr);
    }
  }
  // Row kernels' kept values: a scratch row each, and whether a reduce
  // already fills it (the first in post order does).
  struct KeptRow {
    llvm::AllocaInst* scratch = nullptr;
    std::shared_ptr<bool> has_sink = std::make_shared<bool>(false);
  };
  absl::flat_hash_map<const HloInstruction*, KeptRow> kept_rows;
  absl::flat_hash_map<const HloInstruction*, std::shared_ptr<bool>> kept_ready;
  // The position of an index's trailing (non-row) dimensions in a row.
  auto row_offset = [&](const IrIndex& index) -> llvm::Value* {
    llvm::Value* offset = llvm::ConstantInt::get(i64, 0);
    for (int64_t d = row_plan->rows; d < shape.rank(); ++d) {
      offset = b.CreateAdd(b.CreateMul(offset, llvm::ConstantInt::get(i64, shape.dimensions(d)),
                                       "", /*HasNUW=*/true, /*HasNSW=*/true),
                           index[d], "", /*HasNUW=*/true, /*HasNSW=*/true);
    }
    return offset;
  };
  llvm_ir::GeneratorMap generators;
  for (const HloInstruction* hlo : computation.MakeInstructionPostOrder()) {
    switch (hlo->opcode()) {
      case HloOpcode::kParameter: {
        IrArray array(body->getArg(hlo->parameter_number()), hlo->shape());
        generators[hlo] = [array, &b](const IrIndex& index) { return array.EmitRead(index, &b); };
        break;
      }
      case HloOpcode::kConstant: {
        IrArray array = EmitConstantArray(*hlo, module.module.get());
        generators[hlo] = [array, &b](const IrIndex& index) { return array.EmitRead(index, &b); };
        break;
      }
      case HloOpcode::kReduce: {
        if (column_plan.has_value() && column_plan->reduce == hlo) {
          TS_RETURN_IF_ERROR(CheckScalarReducer(*hlo));
          TS_ASSIGN_OR_RETURN(llvm::Type * type,
                              llvm_ir::IrValueType(hlo->shape().element_type(), context));
          llvm::IRBuilder<> entry_builder(&body->getEntryBlock(), body->getEntryBlock().begin());
          column_accumulators = entry_builder.CreateAlloca(
              type, llvm::ConstantInt::get(i64, kColumnTile), "column_accumulators");
          column_input = generators.at(hlo->operand(0));
          column_init = generators.at(hlo->operand(1));
          llvm::AllocaInst* accumulators = column_accumulators;
          std::shared_ptr<llvm::Value*> tile_start = column_tile_start;
          const int64_t minor = column_plan->result_minor;
          generators[hlo] = [accumulators, tile_start, type, minor,
                             &b](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
            if (*tile_start == nullptr) return absl::InternalError("a column read outside a tile");
            llvm::Value* j = b.CreateSub(index[minor], *tile_start);
            return static_cast<llvm::Value*>(
                b.CreateLoad(type, b.CreateInBoundsGEP(type, accumulators, {j})));
          };
          break;
        }
        auto row_value = row_values.find(hlo);
        const bool per_row = row_value != row_values.end();
        ElementSink sink = nullptr;
        if (per_row) {
          auto kept = kept_rows.find(hlo->operand(0));
          if (kept != kept_rows.end() && !*kept->second.has_sink) {
            llvm::AllocaInst* scratch = kept->second.scratch;
            std::shared_ptr<bool> has_sink = kept->second.has_sink;
            sink = [scratch, &b, &row_offset](const IrIndex& index,
                                               llvm::Value* x) -> absl::Status {
              b.CreateStore(x, b.CreateInBoundsGEP(x->getType(), scratch, {row_offset(index)}));
              return absl::OkStatus();
            };
            *has_sink = true;
          }
        }
        TS_ASSIGN_OR_RETURN(llvm_ir::ElementGenerator reducer,
                            MakeReduceGenerator(hlo, generators, emitter.get(), &b,
                                                options.reorder_float_reductions, per_row,
                                                std::move(sink)));
        if (!per_row) {
          generators[hlo] = std::move(reducer);
          break;
        }
        row_reducers[hlo] = std::move(reducer);
        std::shared_ptr<llvm::Value*> slot = row_value->second;
        const std::string name = hlo->name();
        generators[hlo] = [slot, name](const IrIndex&) -> absl::StatusOr<llvm::Value*> {
          if (*slot == nullptr) {
            return absl::InternalError(absl::StrCat("%", name, " read before its row value"));
          }
          return *slot;
        };
        break;
      }
      case HloOpcode::kReduceWindow: {
        TS_ASSIGN_OR_RETURN(generators[hlo],
                            MakeReduceWindowGenerator(hlo, generators, emitter.get(), &b));
        break;
      }
      default: {
        TS_ASSIGN_OR_RETURN(generators[hlo], emitter->MakeElementGenerator(hlo, generators));
        break;
      }
    }
    if (row_plan.has_value() &&
        std::find(row_plan->kept.begin(), row_plan->kept.end(), hlo) != row_plan->kept.end()) {
      // Computed while its reduce folds it; read back from the row after.
      TS_ASSIGN_OR_RETURN(llvm::Type * type,
                          llvm_ir::IrValueType(hlo->shape().element_type(), context));
      llvm::IRBuilder<> entry_builder(&body->getEntryBlock(), body->getEntryBlock().begin());
      KeptRow kept;
      kept.scratch = entry_builder.CreateAlloca(
          type, llvm::ConstantInt::get(i64, row_plan->row_elements),
          ToStringRef(absl::StrCat(hlo->name(), ".row")));
      kept.scratch->setAlignment(llvm::Align(64));
      llvm_ir::ElementGenerator computed = generators.at(hlo);
      llvm::AllocaInst* scratch = kept.scratch;
      std::shared_ptr<bool> ready = std::make_shared<bool>(false);
      kept_ready[hlo] = ready;
      generators[hlo] = [computed, scratch, type, ready, &b,
                         &row_offset](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
        if (!*ready) return computed(index);
        return static_cast<llvm::Value*>(
            b.CreateLoad(type, b.CreateInBoundsGEP(type, scratch, {row_offset(index)})));
      };
      kept_rows[hlo] = std::move(kept);
    }
  }
  IrArray result(body->getArg(buffer_count - 1), shape);
  const llvm_ir::ElementGenerator& generator = generators.at(root);
  auto kernel = std::unique_ptr<LoopKernel>(new LoopKernel());
  if (shape.rank() == 0) {
    kernel->work_size_ = 1;
    IrIndex index({}, shape, i64, llvm::ConstantInt::get(i64, 0));
    TS_ASSIGN_OR_RETURN(llvm::Value * value, generator(index));
    TS_RETURN_IF_ERROR(result.EmitWrite(index, value, &b));
  } else {
    TS_ASSIGN_OR_RETURN(std::vector<int64_t> strides, llvm_ir::LayoutStrides(shape));
    const std::vector<int64_t> minor_to_major = llvm_ir::MinorToMajor(shape);
    const int64_t rank = shape.rank();
    kernel->work_size_ = shape.dimensions(minor_to_major[rank - 1]);
    std::vector<llvm::Value*> multi_index(rank, nullptr);
    std::vector<llvm_ir::ForLoop> loops;
    llvm::Value* linear = llvm::ConstantInt::get(i64, 0);
    bool stored = false;
    for (int64_t k = rank - 1; k >= 0; --k) {
      const int64_t dimension = minor_to_major[k];
      llvm::Value* start = k == rank - 1 ? begin : llvm::ConstantInt::get(i64, 0);
      llvm::Value* stop =
          k == rank - 1 ? end : llvm::ConstantInt::get(i64, shape.dimensions(dimension));
      if (column_plan.has_value() && k == 0) {
        TS_RETURN_IF_ERROR(EmitColumnTiles(*column_plan, start, stop, multi_index, linear,
                                           strides[dimension], shape, column_accumulators,
                                           column_tile_start, column_input, column_init,
                                           generator, result, emitter.get(), &b));
        stored = true;
        break;
      }
      loops.push_back(llvm_ir::ForLoop::Emit(absl::StrCat("d", dimension), start, stop, &b));
      llvm::Value* iv = loops.back().induction_variable();
      multi_index[dimension] = iv;
      if (row_plan.has_value() && static_cast<int64_t>(loops.size()) == row_plan->rows) {
        // The row's reduce values, in post order (a later one may read an
        // earlier one), before the loops over the rest of the row.
        const std::vector<llvm::Value*> row_index(multi_index.begin(),
                                                  multi_index.begin() + row_plan->rows);
        for (const HloInstruction* reduce : row_plan->reduces) {
          TS_ASSIGN_OR_RETURN(llvm::Value * value,
                              row_reducers.at(reduce)(IrIndex(row_index, reduce->shape(), i64)));
          *row_values.at(reduce) = value;
          // What this reduce folded is in its scratch row from here on.
          auto ready = kept_ready.find(reduce->operand(0));
          if (ready != kept_ready.end()) *ready->second = true;
        }
      }
      linear = b.CreateAdd(linear, b.CreateMul(iv, llvm::ConstantInt::get(i64, strides[dimension]),
                                               "", /*HasNUW=*/true, /*HasNSW=*/true),
                           "linear", /*HasNUW=*/true, /*HasNSW=*/true);
    }
    if (!stored) {
      IrIndex index(multi_index, shape, i64, linear);
      TS_ASSIGN_OR_RETURN(llvm::Value * value, generator(index));
      TS_RETURN_IF_ERROR(result.EmitWrite(index, value, &b));
    }
    for (auto it = loops.rbegin(); it != loops.rend(); ++it) it->Finish(&b);
  }
  b.CreateRetVoid();

  // The entry: void name(ptr buffers, i64 begin, i64 end).
  llvm::Function* entry = llvm::Function::Create(
      llvm::FunctionType::get(b.getVoidTy(), {pointer, i64, i64}, /*isVarArg=*/false),
      llvm::GlobalValue::ExternalLinkage, ToStringRef(name), module.module.get());
  entry->setDoesNotThrow();
  b.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", entry));
  std::vector<llvm::Value*> call_arguments;
  for (int64_t i = 0; i < buffer_count; ++i) {
    llvm::Value* slot = b.CreateConstInBoundsGEP1_64(pointer, entry->getArg(0), i);
    call_arguments.push_back(b.CreateLoad(pointer, slot, ToStringRef(absl::StrCat("buffer", i))));
  }
  for (int64_t i = 0; i + 1 < buffer_count; ++i) {
    if (i < static_cast<int64_t>(options.same_as_result.size()) && options.same_as_result[i]) {
      call_arguments[i] = call_arguments[buffer_count - 1];
    }
  }
  call_arguments.push_back(entry->getArg(1));
  call_arguments.push_back(entry->getArg(2));
  b.CreateCall(body, call_arguments);
  b.CreateRetVoid();

  AddPending(std::move(module), name, kernel.get());
  return kernel;
}

absl::Status LoopKernelCompiler::Finalize() {
  std::vector<std::shared_ptr<Pending>> pending = std::move(pending_);
  pending_.clear();
  std::vector<llvm_ir::ModuleWithContext> modules;
  for (const std::shared_ptr<Pending>& p : pending) modules.push_back(std::move(p->module));
  TS_RETURN_IF_ERROR(llvm_ir::AddModules(*jit_, std::move(modules)));
  for (const std::shared_ptr<Pending>& p : pending) {
    TS_ASSIGN_OR_RETURN(*p->function, jit_->Lookup(p->name));
  }
  return absl::OkStatus();
}

}  // namespace cpu
}  // namespace tessera
