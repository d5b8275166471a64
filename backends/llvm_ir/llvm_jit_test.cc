// LlvmJit: host detection, adding textual IR, lookups, calls into libm, and
// errors for bad IR and unknown symbols.
#include "backends/llvm_ir/llvm_jit.h"

#include <cmath>

#include "gtest/gtest.h"

namespace tessera {
namespace llvm_ir {
namespace {

TEST(LlvmJitTest, DetectsTheHost) {
  absl::StatusOr<std::unique_ptr<LlvmJit>> jit = LlvmJit::Create();
  ASSERT_TRUE(jit.ok()) << jit.status();
  EXPECT_FALSE((*jit)->cpu_name().empty());
  EXPECT_NE((*jit)->cpu_features().find("+sse2"), std::string::npos) << (*jit)->cpu_features();
  EXPECT_NE((*jit)->target_triple().find("x86_64"), std::string::npos);
}

TEST(LlvmJitTest, RunsAFunction) {
  auto jit = LlvmJit::Create();
  ASSERT_TRUE(jit.ok()) << jit.status();
  ASSERT_TRUE((*jit)->AddIrText(R"(
    define i32 @add(i32 %a, i32 %b) {
      %sum = add i32 %a, %b
      ret i32 %sum
    }
  )").ok());
  auto add = (*jit)->LookupFunction<int(int, int)>("add");
  ASSERT_TRUE(add.ok()) << add.status();
  EXPECT_EQ((*add)(40, 2), 42);
}

TEST(LlvmJitTest, ResolvesLibmFromTheProcess) {
  auto jit = LlvmJit::Create();
  ASSERT_TRUE(jit.ok()) << jit.status();
  ASSERT_TRUE((*jit)->AddIrText(R"(
    declare float @erff(float)
    define float @f(float %x) {
      %y = call float @erff(float %x)
      ret float %y
    }
  )").ok());
  auto f = (*jit)->LookupFunction<float(float)>("f");
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ((*f)(0.5f), std::erf(0.5f));
}

TEST(LlvmJitTest, VectorizesALoopAtO3) {
  auto jit = LlvmJit::Create();
  ASSERT_TRUE(jit.ok()) << jit.status();
  (*jit)->set_keep_optimized_ir(true);
  ASSERT_TRUE((*jit)->AddIrText(R"(
    define void @scale(ptr noalias %out, ptr noalias %in, i64 %n) {
    entry:
      %empty = icmp eq i64 %n, 0
      br i1 %empty, label %done, label %loop
    loop:
      %i = phi i64 [ 0, %entry ], [ %next, %loop ]
      %src = getelementptr float, ptr %in, i64 %i
      %x = load float, ptr %src
      %y = fmul float %x, 2.0
      %dst = getelementptr float, ptr %out, i64 %i
      store float %y, ptr %dst
      %next = add i64 %i, 1
      %more = icmp ult i64 %next, %n
      br i1 %more, label %loop, label %done
    done:
      ret void
    }
  )").ok());
  EXPECT_NE((*jit)->last_optimized_ir().find("<16 x float>"), std::string::npos)
      << "expected AVX-512 vectors for " << (*jit)->cpu_name() << ":\n"
      << (*jit)->last_optimized_ir();
  auto scale = (*jit)->LookupFunction<void(float*, const float*, int64_t)>("scale");
  ASSERT_TRUE(scale.ok());
  float in[37], out[37];
  for (int i = 0; i < 37; ++i) in[i] = i;
  (*scale)(out, in, 37);
  for (int i = 0; i < 37; ++i) EXPECT_EQ(out[i], 2.0f * i);
}

TEST(LlvmJitTest, BadIrIsAnError) {
  auto jit = LlvmJit::Create();
  ASSERT_TRUE(jit.ok());
  absl::Status status = (*jit)->AddIrText("define i32 @f() {\n  ret i64 0\n}\n");
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("line 2"), absl::string_view::npos) << status;
}

TEST(LlvmJitTest, UnknownSymbolIsNotFound) {
  auto jit = LlvmJit::Create();
  ASSERT_TRUE(jit.ok());
  EXPECT_EQ((*jit)->Lookup("no_such_function").status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace llvm_ir
}  // namespace tessera
