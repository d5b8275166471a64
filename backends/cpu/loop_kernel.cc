// Partitioned elementwise kernels; see loop_kernel.h.
#include "backends/cpu/loop_kernel.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/cpu/loop_kernel_internal.h"
#include "backends/cpu/transpose_tile.h"
#include "backends/llvm_ir/elemental_ir_emitter.h"
#include "backends/llvm_ir/kernel_support.h"
#include "backends/llvm_ir/llvm_jit_internal.h"
#include "backends/llvm_ir/loop_emitter.h"
#include "backends/llvm_ir/math_library.h"
#include "backends/llvm_ir/polynomial_math.h"
#include "backends/llvm_ir/streaming_stores.h"
#include "hlo/ir/status_macros.h"
#include "hlo/parser/hlo_structural_text.h"
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

using llvm_ir::IrArray;
using llvm_ir::IrIndex;

using llvm_ir::CheckKernelArrayShape;
using llvm_ir::EmitConstantArray;
using llvm_ir::ToStringRef;

std::unique_ptr<llvm_ir::ElementalIrEmitter> MakeEmitter(KernelMath math, llvm::Module* module,
                                                         llvm::IRBuilder<>* b) {
  switch (math) {
    case KernelMath::kRoutines:
      return std::make_unique<llvm_ir::MathRoutineEmitter>(module, b);
    case KernelMath::kInline:
      return std::make_unique<llvm_ir::PolynomialMathEmitter>(module, b);
    case KernelMath::kLibrary:
      break;
  }
  return std::make_unique<llvm_ir::ElementalIrEmitter>(module, b);
}

llvm::Function* CreateKernelEntry(llvm::Module* module, absl::string_view name) {
  llvm::LLVMContext& context = module->getContext();
  llvm::Type* pointer = llvm::PointerType::get(context, 0);
  llvm::Type* i64 = llvm::Type::getInt64Ty(context);
  llvm::Function* entry = llvm::Function::Create(
      llvm::FunctionType::get(llvm::Type::getVoidTy(context), {pointer, i64, i64},
                              /*isVarArg=*/false),
      llvm::GlobalValue::ExternalLinkage, ToStringRef(name), module);
  entry->setDoesNotThrow();
  llvm::BasicBlock::Create(context, "entry", entry);
  return entry;
}

llvm::Value* LoadKernelBuffer(llvm::Function* entry, int64_t i, llvm::IRBuilder<>* b,
                              absl::string_view name) {
  llvm::Type* pointer = llvm::PointerType::get(entry->getContext(), 0);
  return b->CreateLoad(pointer, b->CreateConstInBoundsGEP1_64(pointer, entry->getArg(0), i),
                       ToStringRef(name));
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

bool EveryUserUpTo(const HloInstruction* hlo, const HloInstruction* root,
                   absl::FunctionRef<bool(const HloInstruction*)> allowed) {
  std::vector<const HloInstruction*> stack = {hlo};
  absl::flat_hash_set<const HloInstruction*> seen;
  while (!stack.empty()) {
    const HloInstruction* h = stack.back();
    stack.pop_back();
    if (!seen.insert(h).second || h == root) continue;
    for (const HloInstruction* user : h->users()) {
      if (!allowed(user)) return false;
      stack.push_back(user);
    }
  }
  return true;
}

absl::flat_hash_set<const HloInstruction*> InstructionsAtRootIndex(const HloInstruction& root) {
  if (!root.shape().IsArray()) return {};
  const int64_t rank = root.shape().rank();
  absl::flat_hash_set<const HloInstruction*> at_root_index = {&root};
  std::vector<const HloInstruction*> stack = {&root};
  while (!stack.empty()) {
    const HloInstruction* h = stack.back();
    stack.pop_back();
    if (!h->IsElementwise()) continue;
    for (const HloInstruction* operand : h->operands()) {
      if (operand->shape().IsArray() && operand->shape().rank() == rank &&
          at_root_index.insert(operand).second) {
        stack.push_back(operand);
      }
    }
  }
  return at_root_index;
}

namespace {

// The shape a root reshape or bitcast's operand is computed in so that its
// elements land where the root's do, or nullopt: a reshape to a row-major
// result keeps the row-major order of the operand's dimensions (whatever
// the operand's own layout); a bitcast keeps the operand's layout.
std::optional<Shape> RootView(const HloInstruction& root, const Shape& root_shape) {
  if (root.opcode() != HloOpcode::kReshape && root.opcode() != HloOpcode::kBitcast) {
    return std::nullopt;
  }
  const HloInstruction* operand = root.operand(0);
  Shape view = operand->shape();
  if (!view.IsArray() || view.rank() < 1 || view.element_type() != root_shape.element_type() ||
      view.ElementCount() != root_shape.ElementCount() ||
      operand->opcode() == HloOpcode::kDynamicUpdateSlice) {
    return std::nullopt;
  }
  if (root.opcode() == HloOpcode::kReshape) {
    if (!root_shape.layout().IsDescending()) return std::nullopt;
    view.set_layout(Layout::Descending(view.rank()));
  } else if (!view.has_layout()) {
    view.set_layout(Layout::Descending(view.rank()));
  }
  return view;
}

// The loops of an in-place dynamic-update-slice (see Compile): over the
// update's elements, its major-most dimension (in layout order) from
// `begin` to `end`, each written at the clamped start plus its index.
// Returns the work size (that dimension's extent).
absl::StatusOr<int64_t> EmitUpdateInPlace(const HloInstruction& update_slice,
                                          const llvm_ir::GeneratorMap& generators,
                                          llvm::Value* begin, llvm::Value* end,
                                          const IrArray& result, llvm::IRBuilder<>* b) {
  llvm::Type* i64 = b->getInt64Ty();
  auto constant = [&](int64_t v) -> llvm::Value* { return llvm::ConstantInt::get(i64, v); };
  const Shape& shape = result.shape();
  Shape update_shape = update_slice.operand(1)->shape();
  if (!update_shape.has_layout()) update_shape.set_layout(Layout::Descending(update_shape.rank()));
  const int64_t rank = shape.rank();
  if (update_shape.rank() != rank || update_slice.operand_count() != 2 + rank) {
    return absl::InvalidArgumentError(
        absl::StrCat("%", update_slice.name(), ": a malformed dynamic-update-slice"));
  }
  // Starts clamped so that the update lies inside the buffer (XLA's rule).
  std::vector<llvm::Value*> starts;
  for (int64_t d = 0; d < rank; ++d) {
    const HloInstruction* index = update_slice.operand(2 + d);
    TS_ASSIGN_OR_RETURN(llvm::Value * value, generators.at(index)(IrIndex(i64)));
    value = IsUnsignedIntegralType(index->shape().element_type()) ? b->CreateZExtOrTrunc(value, i64)
                                                                  : b->CreateSExtOrTrunc(value, i64);
    const int64_t high = shape.dimensions(d) - update_shape.dimensions(d);
    value = b->CreateSelect(b->CreateICmpSLT(value, constant(0)), constant(0), value);
    starts.push_back(
        b->CreateSelect(b->CreateICmpSGT(value, constant(high)), constant(high), value));
  }
  const std::vector<int64_t> minor_to_major = llvm_ir::MinorToMajor(update_shape);
  std::vector<llvm::Value*> update_index(rank, nullptr);
  std::vector<llvm_ir::ForLoop> loops;
  for (int64_t k = rank - 1; k >= 0; --k) {
    const int64_t dimension = minor_to_major[k];
    loops.push_back(llvm_ir::ForLoop::Emit(
        absl::StrCat("u", dimension), k == rank - 1 ? begin : constant(0),
        k == rank - 1 ? end : constant(update_shape.dimensions(dimension)), b));
    update_index[dimension] = loops.back().induction_variable();
  }
  std::vector<llvm::Value*> target(rank);
  for (int64_t d = 0; d < rank; ++d) target[d] = b->CreateAdd(starts[d], update_index[d]);
  TS_ASSIGN_OR_RETURN(llvm::Value * value, generators.at(update_slice.operand(1))(
                                               IrIndex(update_index, update_shape, i64)));
  TS_RETURN_IF_ERROR(result.EmitWrite(IrIndex(target, shape, i64), value, b));
  for (auto it = loops.rbegin(); it != loops.rend(); ++it) it->Finish(b);
  return update_shape.dimensions(minor_to_major[rank - 1]);
}

// Vector iterations interleaved in the innermost loop of a kernel with
// polynomial math.  Its body is one long dependency chain (a Horner
// polynomial, a division, ...), which the vectorizer's cost model would
// not interleave; side by side, 4 independent chains keep the FMA units
// busy (elementwise chain's tanh, computed in cache: 0.154 -> 0.115 ms per
// million elements on this 2-core Zen 5).
constexpr int kLongChainInterleave = 4;
// (Also where the kernel streams its result, larger than the caches: the
// 16M-element tanh chain ran 1.89 ms at 4 and 2.22 ms at 2, alternating
// runs in a quiet minute; it is compute bound as much as memory bound.)

// Whether `computation` computes, in its own float type, a function whose
// polynomial (polynomial_math.h) is a long chain: not sqrt or rsqrt, one
// instruction and a division.
bool HasPolynomialMathOp(const HloComputation& computation) {
  for (const HloInstruction* hlo : computation.instructions()) {
    const std::optional<llvm_ir::MathFunction> function = llvm_ir::MathFunctionOf(hlo->opcode());
    const PrimitiveType type = hlo->shape().element_type();
    if (function.has_value() && *function != llvm_ir::MathFunction::kSqrt &&
        *function != llvm_ir::MathFunction::kRsqrt && IsFloatingPointType(type) &&
        llvm_ir::HasPolynomialMath(*function, /*is_f64=*/type == F64)) {
      return true;
    }
  }
  return false;
}

// Whether `computation` has a reduction: then it inlines its polynomials
// rather than calling the routines (KernelMath).
bool HasReduction(const HloComputation& computation) {
  for (const HloInstruction* hlo : computation.instructions()) {
    if (hlo->opcode() == HloOpcode::kReduce || hlo->opcode() == HloOpcode::kReduceWindow) {
      return true;
    }
  }
  return false;
}

// The vector width (elements per vector iteration) of a long-chain loop
// that calls math routines: 256 bytes of the widest type the routines
// compute in (4 AVX-512 registers, as kLongChainInterleave gives inlined
// polynomials): 64 elements, or 32 where a routine works in f64 (an f32
// erf too, whose routine would otherwise be twice the code to compile).
int64_t RoutineLoopWidth(const HloComputation& computation) {
  for (const HloInstruction* hlo : computation.instructions()) {
    const std::optional<llvm_ir::MathFunction> function = llvm_ir::MathFunctionOf(hlo->opcode());
    if (function.has_value() &&
        llvm_ir::PolynomialComputesInF64(*function, hlo->shape().element_type() == F64)) {
      return 32;
    }
  }
  return 64;  // f32 (and F16/BF16, computed in f32)
}

// Sets the vectorizer's hints on the innermost loop of a kernel with long
// chains (HasPolynomialMathOp).  Inlined polynomials: 4 vector iterations
// interleaved.  Routines: one vector iteration of `width` elements, so
// that each call computes 4 registers' worth (a `<64 x float>` routine,
// which the code generator splits into 4 interleaved chains): as 4 calls
// of one register each, the chains could not overlap, and the registers
// live across each call were spilled around it (the 16M-element tanh
// chain ran 2.6 ms that way; as one call, as fast as inlined: 2.20-2.40
// against 2.34-2.43 ms median in alternating runs of a loaded hour).  A
// loop of fewer iterations than `width` (`trip_count`, when known) gets
// the vectorizer's own width.
void MarkLongChainLoop(llvm_ir::ForLoop& loop, KernelMath math, int64_t width,
                       std::optional<int64_t> trip_count) {
  if (math == KernelMath::kRoutines && (!trip_count.has_value() || *trip_count >= width)) {
    loop.SetVectorWidth(static_cast<int>(width));
    loop.SetInterleaveCount(1);
    return;
  }
  loop.SetInterleaveCount(kLongChainInterleave);
}

// Whether an elementwise kernel writing `shape` should stream its stores:
// a result at least the threshold's size, of an element type whose values
// are stored as they are (not PRED's bytes) and whose size divides 64.
bool StreamsResult(const Shape& shape, const LoopKernelOptions& options) {
  const int64_t threshold =
      options.streaming_store_bytes.value_or(llvm_ir::StreamingStoreThresholdBytes());
  const PrimitiveType type = shape.element_type();
  if (shape.rank() == 0 || type == PRED || IsComplexType(type)) return false;
  const int64_t element_bytes = ByteWidth(type);
  if (element_bytes <= 0 || 64 % element_bytes != 0) return false;
  return shape.ByteSize() >= threshold;
}

// Elements per block of a blocked innermost loop (EmitBlockedInnermostLoops):
// 256 bytes, four 512-bit vectors, so that the vectorizer's widest vector
// times its interleave count divides it.
int64_t BlockElements(int64_t element_bytes) {
  return element_bytes > 0 ? std::max<int64_t>(1, 256 / element_bytes) : 1;
}

// The innermost loop of an elementwise kernel over [start, stop) of the
// minor-most `dimension` (row offset `outer_linear`) whose trip count the
// optimizer cannot know, as
//  - a loop over whole blocks of BlockElements, each an inner loop of that
//    constant trip count, which the vectorizer covers exactly: no vector
//    epilogue and no scalar remainder after it;
//  - one scalar loop over the elements left on either side.
// The vectorizer would emit all of these per loop (a polynomial kernel's
// math seven times over: a scalar head, four interleaved vector copies, a
// vector epilogue, a scalar remainder); here the math appears in the
// vector body and once in the scalar loop (the 16M-element elementwise
// chain's warm compile: 11.3 -> 9.5 ms).
// With `streaming`, the blocks start at the first 64-byte boundary of the
// result, which an llvm.assume tells the optimizer per block, so that its
// vector stores carry that alignment and StreamingStoresPass can make them
// non-temporal; the elements before it are in the scalar loop.  A result
// whose address is not a multiple of its element size is written by the
// scalar loop alone.
absl::Status EmitBlockedInnermostLoops(int64_t dimension, llvm::Value* start, llvm::Value* stop,
                                       llvm::Value* outer_linear,
                                       std::vector<llvm::Value*> multi_index,
                                       const llvm_ir::ElementGenerator& generator,
                                       const IrArray& result, bool long_chains, KernelMath math,
                                       int64_t routine_width, bool streaming,
                                       llvm::IRBuilder<>* b) {
  llvm::LLVMContext& context = b->getContext();
  llvm::Type* i64 = b->getInt64Ty();
  auto constant = [&](int64_t v) -> llvm::Value* { return llvm::ConstantInt::get(i64, v); };
  const Shape& shape = result.shape();
  const int64_t element_bytes = ByteWidth(shape.element_type());
  const int64_t block = BlockElements(element_bytes);
  TS_ASSIGN_OR_RETURN(llvm::Type * element, llvm_ir::IrMemoryType(shape.element_type(), context));
  auto element_pointer = [&](llvm::Value* i) {
    return b->CreateInBoundsGEP(element, result.base(), {b->CreateAdd(outer_linear, i)});
  };
  // Element `i`: its value from the generator, stored at `pointer` when
  // streaming (whose results store values as they are), else as the result
  // array stores it (PRED as a byte).
  auto emit_element = [&](llvm::Value* i, llvm::Value* pointer) -> absl::Status {
    multi_index[dimension] = i;
    llvm::Value* linear = b->CreateAdd(outer_linear, i, "linear", /*HasNUW=*/true,
                                       /*HasNSW=*/true);
    const IrIndex index(multi_index, shape, i64, linear);
    TS_ASSIGN_OR_RETURN(llvm::Value * value, generator(index));
    if (!streaming) return result.EmitWrite(index, value, b);
    if (value->getType() != element) {
      return absl::InternalError(
          absl::StrCat("storing a value of the wrong IR type into ", shape.ToString(true)));
    }
    b->CreateStore(value, pointer);
    return absl::OkStatus();
  };
  // Where the blocks start: `start`, or with `streaming` the first 64-byte
  // boundary (`stop` when the result is not element-aligned).
  llvm::Value* blocks_start = start;
  if (streaming) {
    llvm::Value* address = b->CreatePtrToInt(element_pointer(start), i64);
    llvm::Value* to_boundary = b->CreateAnd(b->CreateSub(constant(0), address), constant(63));
    llvm::Value* element_aligned =
        b->CreateICmpEQ(b->CreateAnd(address, constant(element_bytes - 1)), constant(0));
    llvm::Value* boundary =
        b->CreateAdd(start, b->CreateUDiv(to_boundary, constant(element_bytes)));
    boundary = b->CreateSelect(element_aligned, boundary, stop);
    blocks_start =
        b->CreateSelect(b->CreateICmpSLT(boundary, stop), boundary, stop, "blocks_start");
  }
  llvm::Value* blocks = b->CreateUDiv(b->CreateSub(stop, blocks_start), constant(block), "blocks");
  llvm::Value* blocks_end = b->CreateAdd(blocks_start, b->CreateMul(blocks, constant(block)));
  // The scalar loop: [start, blocks_start) then [blocks_end, stop).
  llvm::Value* before = b->CreateSub(blocks_start, start, "before");
  llvm::Value* leftovers = b->CreateAdd(before, b->CreateSub(stop, blocks_end), "leftovers");
  {
    llvm_ir::ForLoop loop = llvm_ir::ForLoop::Emit(absl::StrCat("d", dimension, ".leftover"),
                                                   constant(0), leftovers, b);
    loop.DisableVectorization();
    llvm::Value* k = loop.induction_variable();
    llvm::Value* i = b->CreateSelect(b->CreateICmpSLT(k, before), b->CreateAdd(start, k),
                                     b->CreateAdd(blocks_end, b->CreateSub(k, before)));
    TS_RETURN_IF_ERROR(emit_element(i, streaming ? element_pointer(i) : nullptr));
    loop.Finish(b);
  }
  // The blocks.  Each block's first element has the blocks' alignment; the
  // inner loop's stores address from it alone, so that the alignment
  // carries to them through known bits.
  llvm_ir::ForLoop outer =
      llvm_ir::ForLoop::Emit(absl::StrCat("d", dimension, ".block"), constant(0), blocks, b);
  outer.DisableVectorization();
  llvm::Value* first = b->CreateAdd(
      blocks_start, b->CreateMul(outer.induction_variable(), constant(block), "", /*HasNUW=*/true,
                                 /*HasNSW=*/true));
  llvm::Value* base = streaming ? element_pointer(first) : nullptr;
  if (streaming) {
    b->CreateAlignmentAssumption(b->GetInsertBlock()->getModule()->getDataLayout(), base, 64);
  }
  llvm_ir::ForLoop inner =
      llvm_ir::ForLoop::Emit(absl::StrCat("d", dimension), constant(0), constant(block), b);
  if (long_chains) MarkLongChainLoop(inner, math, std::min(routine_width, block), block);
  llvm::Value* j = inner.induction_variable();
  TS_RETURN_IF_ERROR(emit_element(b->CreateAdd(first, j, "", /*HasNUW=*/true, /*HasNSW=*/true),
                                  streaming ? b->CreateInBoundsGEP(element, base, {j}) : nullptr));
  inner.Finish(b);
  outer.Finish(b);
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<LoopKernelCompiler>> LoopKernelCompiler::Create(
    const llvm_ir::JitOptions& options) {
  RegisterTransposeTileRoutine();
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
  // The same computation with the same options: the same code.
  std::string key = StructuralText(computation);
  absl::StrAppend(&key, "polynomial_math=", options.polynomial_math,
                  " reorder_float_reductions=", options.reorder_float_reductions,
                  " noalias=", absl::StrJoin(options.noalias, ","),
                  " same_as_result=", absl::StrJoin(options.same_as_result, ","),
                  " streaming_store_bytes=", options.streaming_store_bytes.value_or(-1),
                  " whole_range=", options.whole_range);
  if (auto it = compiled_.find(key); it != compiled_.end()) {
    ++reused_kernels_;
    return std::unique_ptr<LoopKernel>(new LoopKernel(*it->second));
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

  // Routines, unless the kernel reduces: a reduction's accumulators are
  // live across each call and, all vector registers being caller-saved,
  // spilled and reloaded around it (softmax 4096x1024: 0.517 -> 0.545 ms).
  const KernelMath math = !options.polynomial_math    ? KernelMath::kLibrary
                          : HasReduction(computation) ? KernelMath::kInline
                                                      : KernelMath::kRoutines;
  std::unique_ptr<llvm_ir::ElementalIrEmitter> emitter = MakeEmitter(math, module.module.get(), &b);
  Shape shape = root->shape();
  if (!shape.has_layout()) shape.set_layout(Layout::Descending(shape.rank()));
  const std::optional<RowPlan> row_plan = PlanRowKernel(computation, shape);
  const std::optional<ColumnPlan> column_plan =
      row_plan.has_value() ? std::nullopt : PlanColumnKernel(computation, shape);
  // A root reshape to a row-major result, or a root bitcast, is a view of
  // its operand: the loops run over the operand's dimensions, in the
  // result's element order, and the plans below see the operand (JAX's
  // ravel of a 2048x2048 transpose, a layout-changing bitcast under a
  // reshape, is then tiled: 11.4 -> 0.75 ms, XLA 1.40).
  const HloInstruction* loop_root = root;
  if (!row_plan.has_value() && !column_plan.has_value()) {
    if (std::optional<Shape> view = RootView(*root, shape); view.has_value()) {
      loop_root = root->operand(0);
      shape = *view;
    }
  }
  // A scan must run along its dimension in order: no tiles, no split loops.
  const std::optional<ScanPlan> scan_plan =
      row_plan.has_value() || column_plan.has_value()
          ? std::nullopt
          : PlanScanKernel(*loop_root, shape, options.reorder_float_reductions);
  const std::optional<TransposePlan> transpose_plan =
      row_plan.has_value() || column_plan.has_value() || scan_plan.has_value()
          ? std::nullopt
          : PlanTransposeKernel(computation, *loop_root, shape);
  const std::optional<ConcatenatePlan> concatenate_plan =
      row_plan.has_value() || column_plan.has_value() || scan_plan.has_value() ||
              transpose_plan.has_value()
          ? std::nullopt
          : PlanConcatenateKernel(*loop_root, shape);
  // Concatenating kernels: the operand whose loop is being emitted (-1:
  // none).
  auto concatenate_segment = std::make_shared<int64_t>(-1);
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
  // Transposing kernels: the tile of the operand transposed in registers.
  std::shared_ptr<TransposedTile> transposed_tile;
  std::optional<IrArray> transposed_operand;
  llvm_ir::GeneratorMap generators;
  for (const HloInstruction* hlo : computation.MakeInstructionPostOrder()) {
    switch (hlo->opcode()) {
      case HloOpcode::kParameter: {
        IrArray array(body->getArg(hlo->parameter_number()), hlo->shape());
        if (transpose_plan.has_value() && transpose_plan->parameter == hlo &&
            TransposesInRegisters(*transpose_plan)) {
          transposed_tile = std::make_shared<TransposedTile>();
          transposed_operand.emplace(array);
          generators[hlo] =
              MakeTransposedTileGenerator(*transpose_plan, array, transposed_tile, &b);
          break;
        }
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
        if (scan_plan.has_value() && scan_plan->reduce_window == hlo) {
          TS_ASSIGN_OR_RETURN(
              generators[hlo],
              MakeScanGenerator(*scan_plan, generators,
                                IrArray(body->getArg(buffer_count - 1), shape), emitter.get(), &b));
          break;
        }
        TS_ASSIGN_OR_RETURN(generators[hlo],
                            MakeReduceWindowGenerator(hlo, generators, emitter.get(), &b));
        break;
      }
      default: {
        TS_ASSIGN_OR_RETURN(generators[hlo], emitter->MakeElementGenerator(hlo, generators));
        if (concatenate_plan.has_value() && concatenate_plan->concatenate == hlo) {
          std::vector<llvm_ir::ElementGenerator> operands;
          for (const HloInstruction* operand : hlo->operands()) {
            operands.push_back(generators.at(operand));
          }
          generators[hlo] = MakeConcatenateSegmentGenerator(
              *concatenate_plan, generators[hlo], std::move(operands), concatenate_segment, &b);
        }
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
  const llvm_ir::ElementGenerator& generator = generators.at(loop_root);
  auto kernel = std::unique_ptr<LoopKernel>(new LoopKernel());
  // A dynamic-update-slice over its base in place (a scan writing one row
  // per step): only the update's elements are written, so a step costs
  // the update's size, not the buffer's.
  const HloInstruction* base =
      loop_root->opcode() == HloOpcode::kDynamicUpdateSlice ? loop_root->operand(0) : nullptr;
  const bool update_in_place =
      base != nullptr && base->opcode() == HloOpcode::kParameter &&
      base->parameter_number() < static_cast<int64_t>(options.same_as_result.size()) &&
      options.same_as_result[base->parameter_number()] && shape.rank() > 0 &&
      base->user_count() == 1;
  if (update_in_place) {
    TS_ASSIGN_OR_RETURN(kernel->work_size_,
                        EmitUpdateInPlace(*loop_root, generators, begin, end, result, &b));
  } else if (shape.rank() == 0) {
    kernel->work_size_ = 1;
    IrIndex index({}, shape, i64, llvm::ConstantInt::get(i64, 0));
    TS_ASSIGN_OR_RETURN(llvm::Value * value, generator(index));
    TS_RETURN_IF_ERROR(result.EmitWrite(index, value, &b));
  } else if (transpose_plan.has_value()) {
    kernel->work_size_ = shape.dimensions(llvm_ir::MinorToMajor(shape).back());
    if (options.whole_range) {
      begin = llvm::ConstantInt::get(i64, 0);
      end = llvm::ConstantInt::get(i64, kernel->work_size_);
    }
    TS_RETURN_IF_ERROR(
        EmitTransposeTiles(*transpose_plan, shape, begin, end, generator, result, transposed_tile,
                           transposed_operand.has_value() ? &*transposed_operand : nullptr, &b));
  } else {
    TS_ASSIGN_OR_RETURN(std::vector<int64_t> strides, llvm_ir::LayoutStrides(shape));
    const std::vector<int64_t> minor_to_major = llvm_ir::MinorToMajor(shape);
    const int64_t rank = shape.rank();
    kernel->work_size_ = shape.dimensions(minor_to_major[rank - 1]);
    // A scan of the major-most dimension cannot be split: one call does it
    // all.
    const bool whole_range = options.whole_range || (scan_plan.has_value() &&
                                                     scan_plan->dimension == minor_to_major.back());
    if (whole_range) {
      begin = llvm::ConstantInt::get(i64, 0);
      end = llvm::ConstantInt::get(i64, kernel->work_size_);
      if (!options.whole_range) kernel->work_size_ = 1;
    }
    std::vector<llvm::Value*> multi_index(rank, nullptr);
    std::vector<llvm_ir::ForLoop> loops;
    llvm::Value* linear = llvm::ConstantInt::get(i64, 0);
    bool stored = false;
    // Row kernels too, when their rows' values come before the innermost
    // loop (a row of more than one dimension's worth of elements).
    const bool streaming =
        !column_plan.has_value() && !concatenate_plan.has_value() && !scan_plan.has_value() &&
        (!row_plan.has_value() || row_plan->rows < rank) && StreamsResult(shape, options);
    const bool long_chains =
        options.polynomial_math && !options.epilogue && HasPolynomialMathOp(computation);
    if (streaming) {
      llvm_ir::RequestStreamingStores(body);
      kernel->streaming_stores_ = true;
    }
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
      // Streaming, or polynomial math over a range the optimizer cannot
      // know (rank 1, split across threads): blocks and leftovers.  (For
      // cheap bodies the vectorizer's own remainder loops compile faster:
      // a 1M-element add, 3.9 against 4.4 ms.)
      if (k == 0 && concatenate_plan.has_value()) {
        // One loop per operand, over its part of [start, stop).
        for (size_t segment = 0; segment < concatenate_plan->offsets.size(); ++segment) {
          if (concatenate_plan->sizes[segment] == 0) continue;
          llvm::Value* low = llvm::ConstantInt::get(i64, concatenate_plan->offsets[segment]);
          llvm::Value* high = llvm::ConstantInt::get(
              i64, concatenate_plan->offsets[segment] + concatenate_plan->sizes[segment]);
          llvm::Value* from = b.CreateSelect(b.CreateICmpSGT(start, low), start, low);
          llvm::Value* to = b.CreateSelect(b.CreateICmpSLT(stop, high), stop, high);
          llvm_ir::ForLoop part =
              llvm_ir::ForLoop::Emit(absl::StrCat("d", dimension, ".part", segment), from, to, &b);
          multi_index[dimension] = part.induction_variable();
          llvm::Value* element_linear =
              b.CreateAdd(linear,
                          b.CreateMul(part.induction_variable(),
                                      llvm::ConstantInt::get(i64, strides[dimension]), "",
                                      /*HasNUW=*/true, /*HasNSW=*/true),
                          "linear", /*HasNUW=*/true, /*HasNSW=*/true);
          *concatenate_segment = static_cast<int64_t>(segment);
          IrIndex index(multi_index, shape, i64, element_linear);
          absl::StatusOr<llvm::Value*> value = generator(index);
          *concatenate_segment = -1;
          if (!value.ok()) return value.status();
          TS_RETURN_IF_ERROR(result.EmitWrite(index, *value, &b));
          part.Finish(&b);
        }
        stored = true;
        break;
      }
      const bool unknown_range = rank == 1 && !whole_range && !row_plan.has_value();
      if (k == 0 && (streaming || (long_chains && unknown_range))) {
        TS_RETURN_IF_ERROR(EmitBlockedInnermostLoops(dimension, start, stop, linear, multi_index,
                                                     generator, result, long_chains, math,
                                                     RoutineLoopWidth(computation), streaming, &b));
        stored = true;
        break;
      }
      loops.push_back(llvm_ir::ForLoop::Emit(absl::StrCat("d", dimension), start, stop, &b));
      if (k == 0 && long_chains) {
        MarkLongChainLoop(loops.back(), math, RoutineLoopWidth(computation),
                          row_plan.has_value() || rank > 1 || whole_range
                              ? std::optional<int64_t>(shape.dimensions(dimension))
                              : std::nullopt);
      }
      llvm::Value* iv = loops.back().induction_variable();
      if (scan_plan.has_value() && scan_plan->reverse && dimension == scan_plan->dimension) {
        // A suffix scan runs from the end (its whole range: an inner loop,
        // or the major-most one unsplit).
        iv = b.CreateSub(llvm::ConstantInt::get(i64, shape.dimensions(dimension) - 1), iv,
                         "reversed", /*HasNUW=*/true, /*HasNSW=*/true);
      }
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
  llvm::Function* entry = CreateKernelEntry(module.module.get(), name);
  // The body is inlined into the entry, which is what the pass sees.
  if (llvm_ir::StreamingStoresRequested(*body)) llvm_ir::RequestStreamingStores(entry);
  b.SetInsertPoint(&entry->getEntryBlock());
  std::vector<llvm::Value*> call_arguments;
  for (int64_t i = 0; i < buffer_count; ++i) {
    call_arguments.push_back(LoadKernelBuffer(entry, i, &b, absl::StrCat("buffer", i)));
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
  compiled_.emplace(std::move(key), std::shared_ptr<const LoopKernel>(new LoopKernel(*kernel)));
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
