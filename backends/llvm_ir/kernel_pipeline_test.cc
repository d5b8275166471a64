// The kernel pipeline: it parses, it gives the shapes our kernels rely on
// (a reduction's lanes in vector registers, a loop-invariant branch split
// into two vector loops), and its code computes what LLVM's O3 pipeline's
// code computes.
#include "backends/llvm_ir/kernel_pipeline.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "backends/llvm_ir/llvm_jit.h"
#include "gtest/gtest.h"

namespace tessera {
namespace llvm_ir {
namespace {

// A row sum in the shape of the reduce emitter's: 64 lanes in a stack
// array, a lane loop inside a loop over blocks of 64 columns.
constexpr char kRowSum[] = R"(
define void @row_sum(ptr noalias %out, ptr noalias %in, i64 %rows) {
entry:
  %lanes = alloca [64 x float], align 4
  %any = icmp sgt i64 %rows, 0
  br i1 %any, label %row, label %exit
row:
  %r = phi i64 [ 0, %entry ], [ %r.next, %row.end ]
  store <64 x float> zeroinitializer, ptr %lanes, align 4
  br label %block
block:
  %b = phi i64 [ 0, %row ], [ %b.next, %block.end ]
  br label %lane
lane:
  %l = phi i64 [ 0, %block ], [ %l.next, %lane ]
  %b64 = mul nuw nsw i64 %b, 64
  %col = add nuw nsw i64 %b64, %l
  %r1024 = mul nuw nsw i64 %r, 1024
  %index = add nuw nsw i64 %r1024, %col
  %src = getelementptr inbounds float, ptr %in, i64 %index
  %x = load float, ptr %src, align 4
  %slot = getelementptr inbounds [64 x float], ptr %lanes, i64 0, i64 %l
  %acc = load float, ptr %slot, align 4
  %sum = fadd float %acc, %x
  store float %sum, ptr %slot, align 4
  %l.next = add nuw nsw i64 %l, 1
  %lane.more = icmp ult i64 %l.next, 64
  br i1 %lane.more, label %lane, label %block.end
block.end:
  %b.next = add nuw nsw i64 %b, 1
  %block.more = icmp ult i64 %b.next, 16
  br i1 %block.more, label %block, label %row.end
row.end:
  %all = load <64 x float>, ptr %lanes, align 4
  %total = call reassoc float @llvm.vector.reduce.fadd.v64f32(float -0.0, <64 x float> %all)
  %dst = getelementptr inbounds float, ptr %out, i64 %r
  store float %total, ptr %dst, align 4
  %r.next = add nuw nsw i64 %r, 1
  %row.more = icmp slt i64 %r.next, %rows
  br i1 %row.more, label %row, label %exit
exit:
  ret void
}
declare float @llvm.vector.reduce.fadd.v64f32(float, <64 x float>)
)";

// Rows of a 1000x1024 input padded by 2 zero rows above and below: the
// emitter's select on a condition that holds for a whole row.
constexpr char kPadRows[] = R"(
define void @pad_rows(ptr noalias %out, ptr noalias %in, i64 %rows) {
entry:
  %any = icmp sgt i64 %rows, 0
  br i1 %any, label %row, label %exit
row:
  %r = phi i64 [ 0, %entry ], [ %r.next, %row.end ]
  %shifted = add i64 %r, -2
  %inside = icmp ult i64 %shifted, 1000
  %clamped = call i64 @llvm.umin.i64(i64 %shifted, i64 999)
  %base = mul nuw nsw i64 %clamped, 1024
  %out.base = mul nuw nsw i64 %r, 1024
  br label %col
col:
  %c = phi i64 [ 0, %row ], [ %c.next, %col ]
  %index = add nuw nsw i64 %base, %c
  %src = getelementptr inbounds float, ptr %in, i64 %index
  %x = load float, ptr %src, align 4
  %v = select i1 %inside, float %x, float 0.0
  %o = add nuw nsw i64 %out.base, %c
  %dst = getelementptr inbounds float, ptr %out, i64 %o
  store float %v, ptr %dst, align 4
  %c.next = add nuw nsw i64 %c, 1
  %col.more = icmp ult i64 %c.next, 1024
  br i1 %col.more, label %col, label %row.end
row.end:
  %r.next = add nuw nsw i64 %r, 1
  %row.more = icmp slt i64 %r.next, %rows
  br i1 %row.more, label %row, label %exit
exit:
  ret void
}
declare i64 @llvm.umin.i64(i64, i64)
)";

// Compiles `ir` with the kernel pipeline (or LLVM's), keeping its
// optimized IR.
std::unique_ptr<LlvmJit> Compile(const char* ir, bool kernel_pipeline) {
  JitOptions options;
  options.kernel_pipeline = kernel_pipeline;
  auto jit = LlvmJit::Create(options);
  EXPECT_TRUE(jit.ok()) << jit.status();
  if (!jit.ok()) return nullptr;
  (*jit)->set_keep_optimized_ir(true);
  absl::Status added = (*jit)->AddIrText(ir);
  EXPECT_TRUE(added.ok()) << added;
  return std::move(*jit);
}

int CountLinesStartingWith(const std::string& text, absl::string_view prefix) {
  int count = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (absl::StartsWith(line, prefix)) ++count;
  }
  return count;
}

int CountOccurrences(const std::string& text, const std::string& needle) {
  int count = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    ++count;
  }
  return count;
}

TEST(KernelPipelineTest, Parses) {
  llvm::PassBuilder builder;
  llvm::ModulePassManager passes;
  EXPECT_TRUE(AddKernelPipeline(builder, /*unroll_loops=*/false, passes).ok());
  llvm::ModulePassManager unrolling;
  EXPECT_TRUE(AddKernelPipeline(builder, /*unroll_loops=*/true, unrolling).ok());
  EXPECT_FALSE(absl::StrContains(KernelPipelineText(false), "loop-unroll"));
  EXPECT_TRUE(absl::StrContains(KernelPipelineText(true), "loop-unroll"));
}

TEST(KernelPipelineTest, KeepsReductionLanesInVectorRegisters) {
  constexpr int64_t kRows = 5;
  std::vector<float> in(kRows * 1024);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i % 7);
  std::vector<float> expected(kRows, 0.0f);
  for (int64_t r = 0; r < kRows; ++r) {
    for (int64_t c = 0; c < 1024; ++c) expected[r] += in[r * 1024 + c];  // exact: small integers
  }
  for (bool kernel_pipeline : {true, false}) {
    SCOPED_TRACE(kernel_pipeline ? "kernel pipeline" : "LLVM's O3 pipeline");
    std::unique_ptr<LlvmJit> jit = Compile(kRowSum, kernel_pipeline);
    ASSERT_NE(jit, nullptr);
    if (kernel_pipeline) {
      // The block loop carries the 64 lanes as 4 AVX-512 registers, with no
      // trip through the stack array per block.
      EXPECT_EQ(CountOccurrences(jit->last_optimized_ir(), "= phi <16 x float>"), 4)
          << jit->last_optimized_ir();
    }
    auto row_sum = jit->LookupFunction<void(float*, const float*, int64_t)>("row_sum");
    ASSERT_TRUE(row_sum.ok()) << row_sum.status();
    std::vector<float> out(kRows, -1.0f);
    (*row_sum)(out.data(), in.data(), kRows);
    EXPECT_EQ(out, expected);
  }
}

TEST(KernelPipelineTest, SplitsALoopOnABranchThatHoldsForAWholeRow) {
  constexpr int64_t kRows = 1004;
  std::vector<float> in(1000 * 1024);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i % 1000) + 1.0f;
  for (bool kernel_pipeline : {true, false}) {
    SCOPED_TRACE(kernel_pipeline ? "kernel pipeline" : "LLVM's O3 pipeline");
    std::unique_ptr<LlvmJit> jit = Compile(kPadRows, kernel_pipeline);
    ASSERT_NE(jit, nullptr);
    if (kernel_pipeline) {
      // One vector loop copies a row, the other writes a row of zeros; no
      // select per element.
      EXPECT_EQ(CountLinesStartingWith(jit->last_optimized_ir(), "vector.body"), 2)
          << jit->last_optimized_ir();
      EXPECT_FALSE(absl::StrContains(jit->last_optimized_ir(), "select <"))
          << jit->last_optimized_ir();
    }
    auto pad_rows = jit->LookupFunction<void(float*, const float*, int64_t)>("pad_rows");
    ASSERT_TRUE(pad_rows.ok()) << pad_rows.status();
    std::vector<float> out(kRows * 1024, -1.0f);
    (*pad_rows)(out.data(), in.data(), kRows);
    for (int64_t r = 0; r < kRows; ++r) {
      const bool inside = r >= 2 && r < 1002;
      for (int64_t c = 0; c < 1024; ++c) {
        ASSERT_EQ(out[r * 1024 + c], inside ? in[(r - 2) * 1024 + c] : 0.0f)
            << "row " << r << " column " << c;
      }
    }
  }
}

}  // namespace
}  // namespace llvm_ir
}  // namespace tessera
