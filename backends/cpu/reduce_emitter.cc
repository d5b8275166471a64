// Reduction emitters shared by the CPU kernels (loop_kernel_internal.h):
// the reducer as scalar IR, and generators for reduce (serial or in vector
// lanes) and reduce-window.
#include <algorithm>
#include <functional>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/loop_kernel_internal.h"
#include "backends/llvm_ir/kernel_support.h"
#include "backends/llvm_ir/loop_emitter.h"
#include "hlo/ir/status_macros.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"

namespace tessera {
namespace cpu {

using llvm_ir::EmitConstantArray;
using llvm_ir::IrArray;
using llvm_ir::IrIndex;

// Every transitive user of `hlo` inside its computation reads each element
// of its operand at most once (elementwise ops, and reshapes, transposes,
// slices and reverses, which move or drop elements; and a gather of
// one-element slices, which reads one index vector per result element): a
// generator for `hlo` is called at most once per element of the kernel's
// result (a reduce read through a broadcast would be recomputed per element
// of the broadcast).
bool ReadOncePerElement(const HloInstruction* hlo) {
  std::vector<const HloInstruction*> stack = {hlo};
  while (!stack.empty()) {
    const HloInstruction* h = stack.back();
    stack.pop_back();
    for (const HloInstruction* user : h->users()) {
      if (user->opcode() == HloOpcode::kGather) {
        // As the indices (jnp.unique's positions computed by a cumulative
        // sum): each result element reads its own index vector.  As the
        // gathered operand, an element may be read for many results.
        const std::vector<int64_t>& sizes = user->attrs().gather_slice_sizes;
        const bool one_element_slices =
            std::all_of(sizes.begin(), sizes.end(), [](int64_t size) { return size == 1; });
        if (user->operand(0) == h || !one_element_slices) return false;
        stack.push_back(user);
        continue;
      }
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

namespace {

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

// `op` (the reducer's root, a binary op of its two parameters) applied
// lane by lane to the vectors `a` (its first parameter's lanes) and `b`,
// with the elemental emitter's results for scalars (float maximum and
// minimum: up to which NaN of two); null for a type this does not cover
// (the caller then combines lanes one by one).
llvm::Value* CombineLaneVectors(HloOpcode op, PrimitiveType type, llvm::Value* a, llvm::Value* b,
                                llvm::IRBuilder<>* builder) {
  const bool is_float = type == F32 || type == F64;
  if (!is_float && !IsIntegralType(type)) return nullptr;
  const bool is_signed = IsSignedIntegralType(type);
  switch (op) {
    case HloOpcode::kAdd:
      return is_float ? builder->CreateFAdd(a, b) : builder->CreateAdd(a, b);
    case HloOpcode::kMultiply:
      return is_float ? builder->CreateFMul(a, b) : builder->CreateMul(a, b);
    case HloOpcode::kMaximum:
    case HloOpcode::kMinimum: {
      const bool max = op == HloOpcode::kMaximum;
      if (!is_float) {
        return builder->CreateBinaryIntrinsic(
            max ? (is_signed ? llvm::Intrinsic::smax : llvm::Intrinsic::umax)
                : (is_signed ? llvm::Intrinsic::smin : llvm::Intrinsic::umin),
            a, b);
      }
      // The evaluator's result (NaN if either is NaN, and -0 < +0) as
      // LLVM's maximum/minimum, which leaves open which NaN of two: the
      // lanes' NaNs meet in another order than the evaluator's anyway.
      // The 9-instruction select chain the scalar reducer uses cost the
      // halving tree 1.5 ms of compile (a 4096x1024 row max: 7.0 -> 5.5
      // ms warm; softmax 12.4 -> 11.2 ms), for no run time: the tree runs
      // once per row.  (In the loop body it would cost run time: softmax
      // 0.489 -> 0.523 ms.)
      return builder->CreateBinaryIntrinsic(
          max ? llvm::Intrinsic::maximum : llvm::Intrinsic::minimum, a, b);
    }
    case HloOpcode::kAnd:
      return is_float ? nullptr : builder->CreateAnd(a, b);
    case HloOpcode::kOr:
      return is_float ? nullptr : builder->CreateOr(a, b);
    case HloOpcode::kXor:
      return is_float ? nullptr : builder->CreateXor(a, b);
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

// 128 bytes of accumulators (two AVX-512 registers, or four AVX2 ones),
// so that the vector code has independent chains to overlap; 256 bytes
// where the extent is at least 4 times that many elements (a softmax row:
// its exp is one long dependency chain, and 4 exps side by side instead of
// 2 made softmax 4096x1024 0.83 -> 0.66 ms); 64 bytes (one AVX-512
// register) where it is only that long: a serial fold of 16 to 31 floats
// kept a 65536x16 softmax 12x slower than XLA's.
int64_t ReductionLanes(PrimitiveType type, int64_t extent) {
  const int64_t lanes = std::max<int64_t>(8, 128 / std::max(1, ByteWidth(type)));
  if (extent >= 8 * lanes) return 2 * lanes;
  if (extent >= lanes) return lanes;
  return extent >= lanes / 2 ? lanes / 2 : 0;
}

namespace {

// Elements of one vector register's worth (64 bytes, AVX-512's width).
int64_t VectorElements(PrimitiveType type) {
  return std::max<int64_t>(1, 64 / std::max(1, ByteWidth(type)));
}

}  // namespace

// OK when `hlo` (a reduce or reduce-window) has a two-parameter reducer of
// scalar elementwise ops, its parameters and result of the result's element
// type (ops between may have others: JAX's logaddexp, for
// lax.cumlogsumexp, selects on a compare).
absl::Status CheckScalarReducer(const HloInstruction& hlo) {
  const HloComputation* reducer = hlo.to_apply();
  if (reducer == nullptr || reducer->num_parameters() != 2) {
    return absl::UnimplementedError(absl::StrCat("%", hlo.name(), ": an unusual reducer"));
  }
  const PrimitiveType type = hlo.shape().element_type();
  for (const HloInstruction* h : reducer->MakeInstructionPostOrder()) {
    const bool typed = h->opcode() == HloOpcode::kParameter || h == reducer->root_instruction();
    if (!h->shape().IsArray() || h->shape().rank() != 0 ||
        (typed && h->shape().element_type() != type)) {
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

// A generator for a one-operand `reduce` whose reducer is a scalar
// elementwise computation.  Per result element, from the init value:
// - serial: the operand's elements in row-major order of the reduced
//   dimensions, accumulator first (the evaluator's order, bit for bit);
// - vectorized, where the reducer has an identity (ReducerIdentity), the
//   innermost reduced dimension (the reduced one minor-most in the
//   operand's layout) spans at least ReductionLanes()'s minimum, and either
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
    bool computed_once_per_row, ElementSink sink) {
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
  const int64_t lanes = inner >= 0 ? ReductionLanes(type, input_shape.dimensions(inner)) : 0;
  const bool vectorized =
      identity != nullptr && lanes > 0 && (exact_in_any_order || reorder_floats);

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
        // The lanes start as one vector store of the identity (a loop of
        // scalar stores was 0.4 ms more of each reduction's compile: the
        // optimizer had to vectorize and fold it first).
        b->CreateAlignedStore(
            llvm::ConstantVector::getSplat(llvm::ElementCount::getFixed(lanes), identity),
            lane_slots, llvm::Align(std::max(1, ByteWidth(type))));
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
          // All the lanes in one vector iteration: registers side by side
          // (with the vectorizer's own choice the lane loop ran 2
          // iterations, each one register, its accumulators in memory).
          const int64_t width = std::min(lanes, VectorElements(type));
          in_block.SetVectorWidth(width);
          in_block.SetInterleaveCount(lanes / width);
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
        // Pairwise combination: lane j absorbs lane j + half.  On the lanes
        // as one vector, halving (a few shuffles and vector ops, which keeps
        // the kernel's IR small), unless the reducer's type needs scalars.
        const HloInstruction* root = reducer->root_instruction();
        const bool accumulator_first = root->operand(0)->parameter_number() == 0;
        llvm::Type* vector_type = llvm::FixedVectorType::get(value_type, lanes);
        llvm::Value* lanes_vector = b->CreateAlignedLoad(
            vector_type, lane_slots, llvm::Align(std::max(1, ByteWidth(type))));
        for (int64_t half = lanes / 2; half >= 1 && lanes_vector != nullptr; half /= 2) {
          std::vector<int> low_mask(half), high_mask(half);
          for (int64_t j = 0; j < half; ++j) {
            low_mask[j] = static_cast<int>(j);
            high_mask[j] = static_cast<int>(j + half);
          }
          llvm::Value* low = b->CreateShuffleVector(lanes_vector, low_mask);
          llvm::Value* high = b->CreateShuffleVector(lanes_vector, high_mask);
          lanes_vector = accumulator_first ? CombineLaneVectors(op, type, low, high, b)
                                           : CombineLaneVectors(op, type, high, low, b);
        }
        if (lanes_vector != nullptr) {
          return EmitReducer(*reducer, init_value, b->CreateExtractElement(lanes_vector, uint64_t{0}),
                             emitter, b);
        }
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

// Windows of up to this many elements are unrolled (a 3x3 pooling's 9): the
// loop over the result's minor dimension around them then vectorizes (an
// 8x112x112x64 NHWC 3x3/2 max pooling: 8.3 -> 0.62 ms, XLA 3.1; its warm
// compile 4.9 -> 8.2 ms).
constexpr int64_t kUnrolledWindowElements = 16;

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
  int64_t window_elements = 1;
  for (const WindowDimension& w : window) window_elements *= w.size;
  const bool unrolled = window_elements <= kUnrolledWindowElements;
  return llvm_ir::ElementGenerator([=](const IrIndex& index) -> absl::StatusOr<llvm::Value*> {
    llvm::Type* index_type = index.index_type();
    auto constant = [&](int64_t v) { return llvm::ConstantInt::get(index_type, v); };
    TS_ASSIGN_OR_RETURN(llvm::Value * init_value, init_generator(IrIndex(index_type)));
    for (int64_t d = 0; d < rank; ++d) {
      if (input_shape.dimensions(d) == 0 || window[d].size == 0) return init_value;
    }
    // The input position of window element `k` (per dimension) of this
    // result element, clamped into the input, and whether it is in the
    // input (not padding, not a base-dilation hole).
    auto window_element = [&](const std::vector<llvm::Value*>& k,
                              std::vector<llvm::Value*>* source) -> llvm::Value* {
      llvm::Value* valid = b->getTrue();
      for (int64_t d = 0; d < rank; ++d) {
        const WindowDimension& w = window[d];
        llvm::Value* position = b->CreateAdd(
            b->CreateSub(b->CreateMul(index[d], constant(w.stride)), constant(w.padding_low)),
            b->CreateMul(k[d], constant(w.window_dilation)));
        if (w.base_dilation > 1) {
          valid = b->CreateAnd(
              valid,
              b->CreateICmpEQ(b->CreateSRem(position, constant(w.base_dilation)), constant(0)));
          position = b->CreateSDiv(position, constant(w.base_dilation));
        }
        const int64_t extent = input_shape.dimensions(d);
        valid = b->CreateAnd(valid, b->CreateICmpSGE(position, constant(0)));
        valid = b->CreateAnd(valid, b->CreateICmpSLT(position, constant(extent)));
        llvm::Value* clamped =
            b->CreateSelect(b->CreateICmpSLT(position, constant(0)), constant(0), position);
        (*source)[d] = b->CreateSelect(b->CreateICmpSGT(clamped, constant(extent - 1)),
                                       constant(extent - 1), clamped);
      }
      return valid;
    };
    std::vector<llvm::Value*> source(rank);
    if (unrolled) {
      // Straight-line code per window element, so that the loop around the
      // generator (over channels, in a pooling) is the innermost one and
      // vectorizes.
      llvm::Value* accumulator = init_value;
      std::vector<int64_t> k(rank, 0);
      for (int64_t element = 0; element < window_elements; ++element) {
        std::vector<llvm::Value*> k_values(rank);
        for (int64_t d = 0; d < rank; ++d) k_values[d] = constant(k[d]);
        llvm::Value* valid = window_element(k_values, &source);
        TS_ASSIGN_OR_RETURN(llvm::Value * x,
                            input_generator(IrIndex(source, input_shape, index_type)));
        TS_ASSIGN_OR_RETURN(llvm::Value * next, EmitReducer(*reducer, accumulator, x, emitter, b));
        accumulator = b->CreateSelect(valid, next, accumulator);
        // The next window element in row-major order.
        for (int64_t d = rank - 1; d >= 0; --d) {
          if (++k[d] < window[d].size) break;
          k[d] = 0;
        }
      }
      return accumulator;
    }
    llvm::Function* function = b->GetInsertBlock()->getParent();
    llvm::IRBuilder<> entry_builder(&function->getEntryBlock(), function->getEntryBlock().begin());
    llvm::AllocaInst* slot = entry_builder.CreateAlloca(value_type, nullptr, "window_accumulator");
    b->CreateStore(init_value, slot);
    std::vector<llvm_ir::ForLoop> loops;
    std::vector<llvm::Value*> k_values(rank);
    for (int64_t d = 0; d < rank; ++d) {
      loops.push_back(llvm_ir::ForLoop::Emit(absl::StrCat(name, ".w", d), constant(0),
                                             constant(window[d].size), b));
      k_values[d] = loops.back().induction_variable();
    }
    llvm::Value* valid = window_element(k_values, &source);
    TS_ASSIGN_OR_RETURN(llvm::Value * x,
                        input_generator(IrIndex(source, input_shape, index_type)));
    llvm::Value* accumulator = b->CreateLoad(value_type, slot);
    TS_ASSIGN_OR_RETURN(llvm::Value * next, EmitReducer(*reducer, accumulator, x, emitter, b));
    b->CreateStore(b->CreateSelect(valid, next, accumulator), slot);
    for (auto it = loops.rbegin(); it != loops.rend(); ++it) it->Finish(b);
    return static_cast<llvm::Value*>(b->CreateLoad(value_type, slot));
  });
}

}  // namespace cpu
}  // namespace tessera
