// ElementalIrEmitter's math hook: a subclass replaces one function (here
// exp by a constant) and every op built on it follows (logistic), while
// the others keep calling the C library.  Also the generators driven
// directly, without the kernel compiler.
#include <cmath>

#include "backends/llvm_ir/elemental_ir_emitter.h"
#include "backends/llvm_ir/llvm_jit.h"
#include "backends/llvm_ir/llvm_jit_internal.h"
#include "backends/llvm_ir/loop_emitter.h"
#include "gtest/gtest.h"
#include "hlo/parser/hlo_parser.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"

namespace tessera {
namespace llvm_ir {
namespace {

class ConstantExpEmitter : public ElementalIrEmitter {
 public:
  using ElementalIrEmitter::ElementalIrEmitter;

 protected:
  absl::StatusOr<llvm::Value*> EmitMathFunction(MathFunction function,
                                                absl::Span<llvm::Value* const> args) override {
    if (function == MathFunction::kExp) return llvm::ConstantFP::get(args[0]->getType(), 3.0);
    return ElementalIrEmitter::EmitMathFunction(function, args);
  }
};

TEST(ElementalIrEmitterHookTest, OneMathFunctionIsReplaced) {
  auto module = ParseHloModule(R"(
    HloModule m
    ENTRY e {
      x = f32[5] parameter(0)
      e = f32[5] exponential(x)
      l = f32[5] logistic(x)
      t = f32[5] tanh(x)
      el = f32[5] add(e, l)
      ROOT r = f32[5] add(el, t)
    })");
  ASSERT_TRUE(module.ok()) << module.status();
  const HloComputation& entry = *(*module)->entry_computation();

  auto jit = LlvmJit::Create();
  ASSERT_TRUE(jit.ok()) << jit.status();
  ModuleWithContext ir = CreateModule(**jit, "hook");
  llvm::IRBuilder<> b(*ir.context);
  llvm::Function* function = llvm::Function::Create(
      llvm::FunctionType::get(b.getVoidTy(), {b.getPtrTy(), b.getPtrTy()}, false),
      llvm::GlobalValue::ExternalLinkage, "f", ir.module.get());
  b.SetInsertPoint(llvm::BasicBlock::Create(*ir.context, "entry", function));
  ConstantExpEmitter emitter(ir.module.get(), &b);
  GeneratorMap generators;
  for (const HloInstruction* hlo : entry.MakeInstructionPostOrder()) {
    if (hlo->opcode() == HloOpcode::kParameter) {
      IrArray input(function->getArg(0), hlo->shape());
      generators[hlo] = [input, &b](const IrIndex& index) { return input.EmitRead(index, &b); };
      continue;
    }
    auto generator = emitter.MakeElementGenerator(hlo, generators);
    ASSERT_TRUE(generator.ok()) << generator.status();
    generators[hlo] = *generator;
  }
  IrArray output(function->getArg(1), entry.root_instruction()->shape());
  ASSERT_TRUE(LoopEmitter(generators.at(entry.root_instruction()), output, &b).EmitLoop().ok());
  b.CreateRetVoid();
  ASSERT_TRUE(AddModule(**jit, std::move(ir)).ok());
  auto f = (*jit)->LookupFunction<void(const float*, float*)>("f");
  ASSERT_TRUE(f.ok()) << f.status();

  const float x[5] = {-2.0f, -0.5f, 0.0f, 0.25f, 3.0f};
  float out[5];
  (*f)(x, out);
  for (int i = 0; i < 5; ++i) {
    // exp(x) = 3 everywhere, so logistic(x) = 1 / (1 + 3); tanh is libm's.
    EXPECT_EQ(out[i], (3.0f + 1.0f / (1.0f + 3.0f)) + std::tanh(x[i])) << x[i];
  }
}

}  // namespace
}  // namespace llvm_ir
}  // namespace tessera
