// Compile-time costs of the ORC JIT, to see what a kernel's compilation
// spends where: creating a JIT, and adding + looking up (optimizing and
// generating code for) a small vectorizable loop, at O3 and O1.
//
//   bazel run -c opt //backends/llvm_ir:llvm_jit_benchmark
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "backends/llvm_ir/llvm_jit.h"
#include "benchmark/benchmark.h"

namespace tessera {
namespace llvm_ir {
namespace {

std::string SaxpyIr(int index) {
  return absl::StrCat(R"(
define void @saxpy)", index, R"((ptr noalias %x, ptr noalias %y, float %a, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %px = getelementptr inbounds float, ptr %x, i64 %i
  %py = getelementptr inbounds float, ptr %y, i64 %i
  %vx = load float, ptr %px
  %vy = load float, ptr %py
  %ax = fmul float %a, %vx
  %s = fadd float %ax, %vy
  store float %s, ptr %py
  %next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret void
}
)");
}

void BM_CreateJit(benchmark::State& state) {
  for (auto _ : state) {
    auto jit = LlvmJit::Create();
    benchmark::DoNotOptimize(jit);
  }
}
BENCHMARK(BM_CreateJit)->Unit(benchmark::kMillisecond);

// One module added and its function looked up (optimization at AddIrText,
// code generation at the lookup), in a JIT created outside the timing.
void BM_AddAndLookup(benchmark::State& state) {
  JitOptions options;
  options.opt_level = static_cast<int>(state.range(0));
  auto jit = LlvmJit::Create(options);
  int index = 0;
  for (auto _ : state) {
    ++index;
    auto status = (*jit)->AddIrText(SaxpyIr(index));
    auto function = (*jit)->Lookup(absl::StrCat("saxpy", index));
    benchmark::DoNotOptimize(function);
    if (!status.ok() || !function.ok()) state.SkipWithError("compile failed");
  }
}
BENCHMARK(BM_AddAndLookup)->Arg(3)->Arg(1)->Unit(benchmark::kMillisecond);

// Ten such functions in one module: what a per-module fixed cost is worth.
void BM_TenFunctionsInOneModule(benchmark::State& state) {
  auto jit = LlvmJit::Create();
  int index = 0;
  for (auto _ : state) {
    std::string ir;
    const int first = index + 1;
    for (int k = 0; k < 10; ++k) absl::StrAppend(&ir, SaxpyIr(++index));
    auto status = (*jit)->AddIrText(ir);
    for (int k = first; k <= index; ++k) {
      auto function = (*jit)->Lookup(absl::StrCat("saxpy", k));
      benchmark::DoNotOptimize(function);
      if (!function.ok()) state.SkipWithError("compile failed");
    }
    if (!status.ok()) state.SkipWithError("compile failed");
  }
}
BENCHMARK(BM_TenFunctionsInOneModule)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace llvm_ir
}  // namespace tessera

BENCHMARK_MAIN();
