// StreamingStoresPass on hand-written IR: which stores become non-temporal,
// and the fence that ends a function that has any.
#include "backends/llvm_ir/streaming_stores.h"

#include <memory>
#include <string>

#include "gtest/gtest.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/SourceMgr.h"

namespace tessera {
namespace llvm_ir {
namespace {

constexpr char kIr[] = R"(
target triple = "x86_64-unknown-linux-gnu"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"

define void @kernel(ptr %out, <16 x float> %v, <8 x float> %w, float %s, <64 x float> %x) #0 {
  %scratch = alloca <16 x float>, align 64
  store <16 x float> %v, ptr %out, align 64
  %unaligned = getelementptr inbounds float, ptr %out, i64 1
  store <16 x float> %v, ptr %unaligned, align 4
  %half = getelementptr inbounds float, ptr %out, i64 8
  store <8 x float> %w, ptr %half, align 32
  store float %s, ptr %out, align 64
  store <16 x float> %v, ptr %scratch, align 64
  store volatile <16 x float> %v, ptr %out, align 64
  store <64 x float> %x, ptr %out, align 64
  store <64 x float> %x, ptr %half, align 32
  ret void
}

define void @unmarked(ptr %out, <16 x float> %v) {
  store <16 x float> %v, ptr %out, align 64
  ret void
}

attributes #0 = { "tessera-streaming-stores" }
)";

std::unique_ptr<llvm::Module> ParseAndRun(llvm::LLVMContext& context, const char* ir) {
  llvm::SMDiagnostic error;
  std::unique_ptr<llvm::Module> module = llvm::parseAssemblyString(ir, error, context);
  if (module == nullptr) return nullptr;
  llvm::PassBuilder builder;
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager cgscc;
  llvm::ModuleAnalysisManager modules;
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(cgscc);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, cgscc, modules);
  llvm::ModulePassManager passes;
  passes.addPass(llvm::createModuleToFunctionPassAdaptor(StreamingStoresPass()));
  passes.run(*module, modules);
  return module;
}

// Whether each store of `function`, in order, is non-temporal; and the
// number of sfence calls.
std::string Marks(const llvm::Function& function, int* fences) {
  std::string marks;
  *fences = 0;
  for (const llvm::BasicBlock& block : function) {
    for (const llvm::Instruction& instruction : block) {
      if (llvm::isa<llvm::StoreInst>(instruction)) {
        marks += instruction.getMetadata(llvm::LLVMContext::MD_nontemporal) ? 'N' : '.';
      }
      if (const auto* call = llvm::dyn_cast<llvm::CallInst>(&instruction)) {
        if (call->getCalledFunction() != nullptr &&
            call->getCalledFunction()->getName() == "llvm.x86.sse.sfence") {
          ++*fences;
        }
      }
    }
  }
  return marks;
}

TEST(StreamingStoresTest, MarksAlignedVectorStoresOfMarkedFunctions) {
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module = ParseAndRun(context, kIr);
  ASSERT_NE(module, nullptr);
  int fences = 0;
  // Aligned 64-byte and 32-byte vector stores only: not the unaligned one,
  // the scalar, the stack slot or the volatile store; a 256-byte vector
  // (4 registers) 64-byte aligned, not 32-byte aligned.
  EXPECT_EQ(Marks(*module->getFunction("kernel"), &fences), "N.N...N.");
  EXPECT_EQ(fences, 1);
  EXPECT_EQ(Marks(*module->getFunction("unmarked"), &fences), ".");
  EXPECT_EQ(fences, 0);
}

TEST(StreamingStoresTest, LeavesOtherTargetsAlone) {
  std::string ir = kIr;
  ir.replace(ir.find("x86_64-unknown-linux-gnu"), 24, "aarch64-unknown-linux-gnu");
  ir.replace(ir.find("target datalayout"),
             ir.find('\n', ir.find("target datalayout")) - ir.find("target datalayout"), "");
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module = ParseAndRun(context, ir.c_str());
  ASSERT_NE(module, nullptr);
  int fences = 0;
  EXPECT_EQ(Marks(*module->getFunction("kernel"), &fences), "........");
  EXPECT_EQ(fences, 0);
}

}  // namespace
}  // namespace llvm_ir
}  // namespace tessera
