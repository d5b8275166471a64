// The loop emitter and index helpers on their own: loops visit every index
// once, in the layout's physical order (minor-most innermost); linear <->
// multi-index conversions agree with the layout's strides; empty shapes run
// no iterations.  Functions are built with IRBuilder and run in the JIT.
#include "backends/llvm_ir/loop_emitter.h"

#include <numeric>
#include <string>
#include <vector>

#include "backends/llvm_ir/llvm_jit.h"
#include "backends/llvm_ir/llvm_jit_internal.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"

namespace tessera {
namespace llvm_ir {
namespace {

Shape MakeShape(std::vector<int64_t> dims, std::vector<int64_t> minor_to_major) {
  Shape shape = Shape::MakeArray(S64, std::move(dims));
  Layout layout;
  layout.minor_to_major = std::move(minor_to_major);
  shape.set_layout(layout);
  return shape;
}

// Compiles `void f(int64_t* out)` whose body `emit` builds, and runs it.
template <typename Emit>
void RunFunction(Emit emit, int64_t* out) {
  absl::StatusOr<std::unique_ptr<LlvmJit>> jit = LlvmJit::Create(JitOptions{.opt_level = 1});
  ASSERT_TRUE(jit.ok()) << jit.status();
  ModuleWithContext module = CreateModule(**jit, "test");
  llvm::IRBuilder<> b(*module.context);
  llvm::Function* function = llvm::Function::Create(
      llvm::FunctionType::get(b.getVoidTy(), {b.getPtrTy()}, false),
      llvm::GlobalValue::ExternalLinkage, "f", module.module.get());
  b.SetInsertPoint(llvm::BasicBlock::Create(*module.context, "entry", function));
  emit(b, function->getArg(0));
  b.CreateRetVoid();
  ASSERT_TRUE(AddModule(**jit, std::move(module)).ok());
  auto f = (*jit)->LookupFunction<void(int64_t*)>("f");
  ASSERT_TRUE(f.ok()) << f.status();
  (*f)(out);
}

// Each element of the array (in physical order) receives the number of
// loop iterations run before it: physical order means out[i] == i.
TEST(LoopEmitterTest, VisitsEveryIndexOnceInPhysicalOrder) {
  for (const std::vector<int64_t>& minor_to_major :
       std::vector<std::vector<int64_t>>{{2, 1, 0}, {0, 1, 2}, {1, 2, 0}, {0, 2, 1}}) {
    const Shape shape = MakeShape({3, 4, 5}, minor_to_major);
    std::vector<int64_t> out(60, -1);
    RunFunction(
        [&](llvm::IRBuilder<>& b, llvm::Value* base) {
          llvm::Value* counter = b.CreateAlloca(b.getInt64Ty());
          b.CreateStore(b.getInt64(0), counter);
          IrArray array(base, shape);
          LoopEmitter loop(
              [&](const IrIndex& index) -> absl::Status {
                llvm::Value* count = b.CreateLoad(b.getInt64Ty(), counter);
                b.CreateStore(b.CreateAdd(count, b.getInt64(1)), counter);
                return array.EmitWrite(index, count, &b);
              },
              shape, &b);
          ASSERT_TRUE(loop.EmitLoop().ok());
        },
        out.data());
    std::vector<int64_t> expected(60);
    std::iota(expected.begin(), expected.end(), 0);
    EXPECT_EQ(out, expected) << shape.ToString(true);
  }
}

// FromLinear then Linearize (through a remapped index, so the known linear
// position is not reused) is the identity, and the multi-index matches the
// layout's strides.
TEST(LoopEmitterTest, LinearAndMultiIndexAgreeWithTheLayout) {
  const Shape shape = MakeShape({3, 4, 5}, {1, 2, 0});
  absl::StatusOr<std::vector<int64_t>> strides = LayoutStrides(shape);
  ASSERT_TRUE(strides.ok());
  EXPECT_EQ(*strides, (std::vector<int64_t>{20, 1, 4}));
  std::vector<int64_t> out(60 * 4, -1);
  RunFunction(
      [&](llvm::IRBuilder<>& b, llvm::Value* base) {
        const Shape flat = MakeShape({60, 4}, {1, 0});
        IrArray array(base, flat);
        ForLoop loop = ForLoop::Emit("linear", b.getInt64(0), b.getInt64(60), &b);
        llvm::Value* linear = loop.induction_variable();
        IrIndex index = IrIndex::FromLinear(linear, shape, &b);
        IrIndex fresh(index.multi_index(), shape, b.getInt64Ty());  // no known linear
        absl::StatusOr<llvm::Value*> relinear = fresh.Linearize(shape, &b);
        ASSERT_TRUE(relinear.ok());
        std::vector<llvm::Value*> values = {index[0], index[1], index[2], *relinear};
        for (int64_t k = 0; k < 4; ++k) {
          IrIndex slot({linear, b.getInt64(k)}, flat, b.getInt64Ty());
          ASSERT_TRUE(array.EmitWrite(slot, values[k], &b).ok());
        }
        loop.Finish(&b);
      },
      out.data());
  for (int64_t linear = 0; linear < 60; ++linear) {
    const int64_t* row = &out[linear * 4];
    EXPECT_EQ(row[0] * 20 + row[1] * 1 + row[2] * 4, linear);
    EXPECT_LT(row[0], 3);
    EXPECT_LT(row[1], 4);
    EXPECT_LT(row[2], 5);
    EXPECT_EQ(row[3], linear);
  }
}

TEST(LoopEmitterTest, EmptyShapesRunNoIterations) {
  const Shape shape = MakeShape({4, 0, 3}, {2, 1, 0});
  int64_t out[1] = {42};
  RunFunction(
      [&](llvm::IRBuilder<>& b, llvm::Value* base) {
        IrArray array(base, Shape::MakeArrayWithDescendingLayout(S64, {}));
        LoopEmitter loop(
            [&](const IrIndex&) -> absl::Status {
              return array.EmitWrite(IrIndex(b.getInt64Ty()), b.getInt64(7), &b);
            },
            shape, &b);
        ASSERT_TRUE(loop.EmitLoop().ok());
      },
      out);
  EXPECT_EQ(out[0], 42);
}

// Loop hints land in one self-referential loop ID on the back edge, each
// hint once, in the order given.
TEST(LoopEmitterTest, LoopHintsFormOneLoopId) {
  llvm::LLVMContext context;
  llvm::Module module("hints", context);
  llvm::IRBuilder<> b(context);
  llvm::Function* function =
      llvm::Function::Create(llvm::FunctionType::get(b.getVoidTy(), {b.getInt64Ty()}, false),
                             llvm::GlobalValue::ExternalLinkage, "f", &module);
  b.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", function));
  ForLoop loop = ForLoop::Emit("i", b.getInt64(0), function->getArg(0), &b);
  loop.SetVectorWidth(16);
  loop.SetInterleaveCount(4);
  loop.DisableVectorization();
  loop.Finish(&b);
  b.CreateRetVoid();
  llvm::MDNode* id = nullptr;
  for (llvm::BasicBlock& block : *function) {
    if (llvm::MDNode* node = block.getTerminator()->getMetadata(llvm::LLVMContext::MD_loop)) {
      EXPECT_EQ(id, nullptr) << "more than one loop ID";
      id = node;
    }
  }
  ASSERT_NE(id, nullptr);
  EXPECT_EQ(id->getOperand(0).get(), id);
  std::vector<std::string> names;
  for (unsigned i = 1; i < id->getNumOperands(); ++i) {
    const auto* hint = llvm::cast<llvm::MDNode>(id->getOperand(i).get());
    names.push_back(llvm::cast<llvm::MDString>(hint->getOperand(0).get())->getString().str());
  }
  EXPECT_EQ(names,
            (std::vector<std::string>{"llvm.loop.vectorize.width", "llvm.loop.interleave.count",
                                      "llvm.loop.vectorize.enable", "llvm.loop.unroll.disable"}));
}

// A loop whose tail is folded by masking becomes one masked vector loop at
// O3 (no vector epilogue, no scalar remainder) and still writes exactly
// its n elements, for trip counts around the vector width.
TEST(LoopEmitterTest, FoldedTailRunsUnderAMask) {
  absl::StatusOr<std::unique_ptr<LlvmJit>> jit = LlvmJit::Create(JitOptions{.opt_level = 3});
  ASSERT_TRUE(jit.ok()) << jit.status();
  (*jit)->set_keep_optimized_ir(true);
  ModuleWithContext module = CreateModule(**jit, "masked");
  llvm::IRBuilder<> b(*module.context);
  llvm::Function* function = llvm::Function::Create(
      llvm::FunctionType::get(b.getVoidTy(), {b.getPtrTy(), b.getInt64Ty()}, false),
      llvm::GlobalValue::ExternalLinkage, "f", module.module.get());
  function->addParamAttr(0, llvm::Attribute::NoAlias);
  b.SetInsertPoint(llvm::BasicBlock::Create(*module.context, "entry", function));
  ForLoop loop = ForLoop::Emit("i", b.getInt64(0), function->getArg(1), &b);
  llvm::Value* i = loop.induction_variable();
  b.CreateStore(b.CreateAdd(b.CreateMul(i, b.getInt64(3)), b.getInt64(1)),
                b.CreateInBoundsGEP(b.getInt64Ty(), function->getArg(0), {i}));
  loop.FoldTailByMasking();
  loop.Finish(&b);
  b.CreateRetVoid();
  ASSERT_TRUE(AddModule(**jit, std::move(module)).ok());
  const std::string& ir = (*jit)->last_optimized_ir();
  EXPECT_THAT(ir, testing::HasSubstr("llvm.masked.store"));
  EXPECT_THAT(ir, testing::Not(testing::HasSubstr("vec.epilog")));
  auto f = (*jit)->LookupFunction<void(int64_t*, int64_t)>("f");
  ASSERT_TRUE(f.ok()) << f.status();
  for (int64_t n : {0, 1, 7, 8, 9, 31, 32, 33, 63, 64, 65}) {
    std::vector<int64_t> out(n + 1, -5);
    (*f)(out.data(), n);
    for (int64_t k = 0; k < n; ++k) ASSERT_EQ(out[k], 3 * k + 1) << "n=" << n << " k=" << k;
    EXPECT_EQ(out[n], -5) << "n=" << n << ": written past the end";
  }
}

TEST(LoopEmitterTest, TiledLayoutsAreUnimplemented) {
  Shape shape = MakeShape({8, 128}, {1, 0});
  shape.mutable_layout()->tiles.push_back(Tile{{8, 128}});
  EXPECT_EQ(LayoutStrides(shape).status().code(), absl::StatusCode::kUnimplemented);
}

}  // namespace
}  // namespace llvm_ir
}  // namespace tessera
