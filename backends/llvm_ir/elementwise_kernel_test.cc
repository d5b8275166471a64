// Elementwise kernels end to end against the evaluator: non-default layouts
// of parameters and results, broadcast and the other index-remapping ops,
// constants, fused multi-op computations, odd and zero sizes, scalars; the
// errors; and that the loops vectorize.
#include "backends/llvm_ir/elementwise_kernel.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/llvm_ir/kernel_test_util.h"
#include "gtest/gtest.h"
#include "hlo/ir/random_literal.h"
#include "hlo/parser/hlo_parser.h"

namespace tessera {
namespace llvm_ir {
namespace {

using test::MatchesEvaluator;

// Random arguments for the parameters of `module_text`'s entry.
std::vector<Literal> RandomArguments(absl::string_view module_text, uint64_t seed = 1) {
  std::vector<Literal> args;
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(module_text);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return args;
  std::mt19937_64 rng(seed);
  for (const HloInstruction* parameter :
       (*module)->entry_computation()->parameter_instructions()) {
    absl::StatusOr<Literal> value = MakeRandomLiteral(parameter->shape(), rng);
    EXPECT_TRUE(value.ok()) << value.status();
    args.push_back(value.ok() ? *std::move(value) : Literal());
  }
  return args;
}

::testing::AssertionResult RunsLikeEvaluator(absl::string_view module_text, uint64_t seed = 1) {
  std::vector<Literal> args = RandomArguments(module_text, seed);
  return MatchesEvaluator(module_text, args);
}

TEST(ElementwiseKernelTest, AddsWithEveryLayoutPair) {
  const std::vector<std::string> layouts = {"{0,1,2}", "{0,2,1}", "{1,0,2}",
                                            "{1,2,0}", "{2,0,1}", "{2,1,0}"};
  for (const std::string& a : layouts) {
    for (const std::string& result : layouts) {
      const std::string text = absl::StrCat(R"(
        HloModule m
        ENTRY e {
          p0 = f32[3,5,7])", a, R"( parameter(0)
          p1 = f32[3,5,7]{2,1,0} parameter(1)
          ROOT r = f32[3,5,7])", result, R"( add(p0, p1)
        })");
      EXPECT_TRUE(RunsLikeEvaluator(text)) << a << " " << result;
    }
  }
}

TEST(ElementwiseKernelTest, CopyChangesTheLayout) {
  EXPECT_TRUE(RunsLikeEvaluator(R"(
    HloModule m
    ENTRY e {
      p0 = s32[17,33]{1,0} parameter(0)
      ROOT r = s32[17,33]{0,1} copy(p0)
    })"));
}

TEST(ElementwiseKernelTest, Broadcasts) {
  EXPECT_TRUE(RunsLikeEvaluator(R"(
    HloModule m
    ENTRY e {
      row = f32[7] parameter(0)
      column = f32[5]{0} parameter(1)
      scalar = f32[] parameter(2)
      rows = f32[5,7]{0,1} broadcast(row), dimensions={1}
      columns = f32[5,7]{0,1} broadcast(column), dimensions={0}
      all = f32[5,7]{0,1} broadcast(scalar), dimensions={}
      sum = f32[5,7]{0,1} add(rows, columns)
      ROOT r = f32[5,7]{0,1} multiply(sum, all)
    })"));
  EXPECT_TRUE(RunsLikeEvaluator(R"(
    HloModule m
    ENTRY e {
      p0 = f16[3,4]{0,1} parameter(0)
      b = f16[2,3,5,4]{1,3,0,2} broadcast(p0), dimensions={1,3}
      ROOT r = f16[2,3,5,4]{3,2,1,0} negate(b)
    })"));
}

TEST(ElementwiseKernelTest, IndexRemappingOps) {
  EXPECT_TRUE(RunsLikeEvaluator(R"(
    HloModule m
    ENTRY e {
      p0 = f32[4,6]{0,1} parameter(0)
      t = f32[6,4] transpose(p0), dimensions={1,0}
      rev = f32[6,4] reverse(t), dimensions={0,1}
      i = s32[6,4] iota(), iota_dimension=0
      f = f32[6,4] convert(i)
      ROOT r = f32[6,4]{0,1} add(rev, f)
    })"));
  EXPECT_TRUE(RunsLikeEvaluator(R"(
    HloModule m
    ENTRY e {
      p0 = s32[10,12]{0,1} parameter(0)
      s = s32[4,5] slice(p0), slice={[1:9:2], [0:11:2]}
      r2 = s32[2,10] reshape(s)
      ROOT r = s32[5,2,2]{0,2,1} reshape(r2)
    })"));
  EXPECT_TRUE(RunsLikeEvaluator(R"(
    HloModule m
    ENTRY e {
      i = f32[3,1025]{0,1} iota(), iota_dimension=1
      ROOT r = bf16[3,1025] convert(i)
    })"));
}

TEST(ElementwiseKernelTest, Constants) {
  EXPECT_TRUE(RunsLikeEvaluator(R"(
    HloModule m
    ENTRY e {
      p0 = f32[2,3]{0,1} parameter(0)
      c = f32[2,3]{0,1} constant({ {1, -2, 3.5}, {-0, inf, nan} })
      two = f32[] constant(2)
      b = f32[2,3] broadcast(two), dimensions={}
      m = f32[2,3] multiply(p0, c)
      ROOT r = f32[2,3] add(m, b)
    })"));
  EXPECT_TRUE(RunsLikeEvaluator(R"(
    HloModule m
    ENTRY e {
      ROOT c = s8[4] constant({1, -128, 127, 0})
    })"));
}

// A loop fusion as the fusion pass would make it: tanh(a*x+b)*c, a
// softplus, a select on a compare, a conversion round trip.
TEST(ElementwiseKernelTest, FusedComputations) {
  EXPECT_TRUE(RunsLikeEvaluator(R"(
    HloModule m
    ENTRY e {
      x = f32[1023] parameter(0)
      a = f32[] constant(1.5)
      b = f32[] constant(-0.25)
      c = f32[] parameter(1)
      ab = f32[1023] broadcast(a), dimensions={}
      bb = f32[1023] broadcast(b), dimensions={}
      cb = f32[1023] broadcast(c), dimensions={}
      ax = f32[1023] multiply(ab, x)
      axb = f32[1023] add(ax, bb)
      t = f32[1023] tanh(axb)
      ROOT r = f32[1023] multiply(t, cb)
    })"));
  EXPECT_TRUE(RunsLikeEvaluator(R"(
    HloModule m
    ENTRY e {
      x = f32[64,33]{0,1} parameter(0)
      zero = f32[] constant(0)
      zeros = f32[64,33] broadcast(zero), dimensions={}
      positive = pred[64,33] compare(x, zeros), direction=GT
      e = f32[64,33] exponential(x)
      l = f32[64,33] log-plus-one(e)
      softplus = f32[64,33] select(positive, l, zeros)
      h = bf16[64,33] convert(softplus)
      back = f32[64,33] convert(h)
      ROOT r = f32[64,33]{1,0} maximum(back, x)
    })"));
  EXPECT_TRUE(RunsLikeEvaluator(R"(
    HloModule m
    ENTRY e {
      x = s32[7,7] parameter(0)
      y = s32[7,7] parameter(1)
      q = s32[7,7] divide(x, y)
      s = s32[7,7] shift-left(q, y)
      u = u32[7,7] convert(s)
      p = u32[7,7] popcnt(u)
      ROOT r = s64[7,7]{0,1} convert(p)
    })"));
}

TEST(ElementwiseKernelTest, OddZeroAndScalarSizes) {
  for (const char* dims : {"[1]", "[7]", "[1023]", "[1025]", "[0]", "[3,0]", "[0,5]", "[]",
                           "[1,1,1]", "[2,1,3]"}) {
    const std::string text = absl::StrCat(R"(
      HloModule m
      ENTRY e {
        p0 = f64)", dims, R"( parameter(0)
        p1 = f64)", dims, R"( parameter(1)
        ROOT r = f64)", dims, R"( atan2(p0, p1)
      })");
    EXPECT_TRUE(RunsLikeEvaluator(text)) << dims;
  }
}

TEST(ElementwiseKernelTest, ElementwiseOfScalarSelectAndClampOperands) {
  EXPECT_TRUE(RunsLikeEvaluator(R"(
    HloModule m
    ENTRY e {
      p = pred[] parameter(0)
      lo = s16[] parameter(1)
      x = s16[9,2]{0,1} parameter(2)
      hi = s16[] constant(3)
      c = s16[9,2] clamp(lo, x, hi)
      n = s16[9,2] negate(x)
      ROOT r = s16[9,2]{0,1} select(p, c, n)
    })"));
}

TEST(ElementwiseKernelTest, LoopsVectorizeForTheHostCpu) {
  absl::StatusOr<std::unique_ptr<ElementwiseKernelCompiler>> compiler =
      ElementwiseKernelCompiler::Create();
  ASSERT_TRUE(compiler.ok()) << compiler.status();
  (*compiler)->set_keep_optimized_ir(true);
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(R"(
    HloModule m
    ENTRY e {
      p0 = f32[64,1000] parameter(0)
      p1 = f32[64,1000] parameter(1)
      ROOT r = f32[64,1000] add(p0, p1)
    })");
  ASSERT_TRUE(module.ok());
  absl::StatusOr<std::unique_ptr<ElementwiseKernel>> kernel =
      (*compiler)->Compile(*(*module)->entry_computation());
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  const std::string& cpu_features = (*compiler)->jit().cpu_features();
  const bool avx512 = cpu_features.find("+avx512f") != std::string::npos;
  const bool avx = cpu_features.find("+avx,") != std::string::npos ||
                   cpu_features.find("+avx2") != std::string::npos;
  const std::string vector = avx512 ? "<16 x float>" : avx ? "<8 x float>" : "<4 x float>";
  EXPECT_NE((*kernel)->optimized_ir().find("fadd <"), std::string::npos)
      << (*kernel)->optimized_ir();
  EXPECT_NE((*kernel)->optimized_ir().find(vector), std::string::npos)
      << vector << " for " << (*compiler)->jit().cpu_name() << "\n"
      << (*kernel)->optimized_ir();
}

TEST(ElementwiseKernelTest, ManyKernelsShareOneJit) {
  absl::StatusOr<std::unique_ptr<ElementwiseKernelCompiler>> compiler =
      ElementwiseKernelCompiler::Create();
  ASSERT_TRUE(compiler.ok());
  std::vector<std::unique_ptr<ElementwiseKernel>> kernels;
  std::vector<std::unique_ptr<HloModule>> modules;
  for (int i = 0; i < 3; ++i) {
    auto module = ParseHloModule(absl::StrCat(R"(
      HloModule m
      ENTRY e {
        p0 = s32[4] parameter(0)
        c = s32[] constant()", i, R"()
        b = s32[4] broadcast(c), dimensions={}
        ROOT r = s32[4] add(p0, b)
      })"));
    ASSERT_TRUE(module.ok());
    auto kernel = (*compiler)->Compile(*(*module)->entry_computation());
    ASSERT_TRUE(kernel.ok()) << kernel.status();
    kernels.push_back(*std::move(kernel));
    modules.push_back(*std::move(module));
  }
  compiler->reset();  // kernels keep the JIT alive
  const Literal input = Literal::CreateR1<int32_t>({10, 20, 30, 40});
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<Literal> result = kernels[i]->Run({input});
    ASSERT_TRUE(result.ok());
    EXPECT_EQ(*result, Literal::CreateR1<int32_t>({10 + i, 20 + i, 30 + i, 40 + i}));
  }
}

TEST(ElementwiseKernelTest, RunsOnRawBuffers) {
  auto module = ParseHloModule(R"(
    HloModule m
    ENTRY e {
      p0 = u8[2,3]{0,1} parameter(0)
      ROOT r = pred[2,3]{1,0} compare(p0, p0), direction=EQ
    })");
  ASSERT_TRUE(module.ok());
  auto kernel = CompileElementwiseComputation(*(*module)->entry_computation());
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  uint8_t in[6] = {1, 2, 3, 4, 5, 6};
  uint8_t out[6] = {7, 7, 7, 7, 7, 7};
  void* buffers[] = {in, out};
  (*kernel)->Run(buffers);
  for (uint8_t v : out) EXPECT_EQ(v, 1);
}

TEST(ElementwiseKernelTest, UnsupportedOpsAreErrorsNamingTheInstruction) {
  auto module = ParseHloModule(R"(
    HloModule m
    ENTRY e {
      p0 = f32[2,2] parameter(0)
      ROOT the_dot = f32[2,2] dot(p0, p0), lhs_contracting_dims={1}, rhs_contracting_dims={0}
    })");
  ASSERT_TRUE(module.ok());
  auto kernel = test::SharedCompiler().Compile(*(*module)->entry_computation());
  ASSERT_FALSE(kernel.ok());
  EXPECT_EQ(kernel.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(kernel.status().message().find("%the_dot"), absl::string_view::npos)
      << kernel.status();

  auto bad_slice = ParseHloModule(R"(
    HloModule m
    ENTRY e {
      p0 = f32[4] parameter(0)
      ROOT s = f32[3] slice(p0), slice={[2:5]}
    })");
  ASSERT_TRUE(bad_slice.ok());
  EXPECT_FALSE(test::SharedCompiler().Compile(*(*bad_slice)->entry_computation()).ok());

  auto tuple = ParseHloModule(R"(
    HloModule m
    ENTRY e {
      p0 = f32[2] parameter(0)
      ROOT t = (f32[2], f32[2]) tuple(p0, p0)
    })");
  ASSERT_TRUE(tuple.ok());
  EXPECT_EQ(test::SharedCompiler().Compile(*(*tuple)->entry_computation()).status().code(),
            absl::StatusCode::kUnimplemented);
}

TEST(ElementwiseKernelTest, WrongArgumentsAreErrors) {
  auto module = ParseHloModule(R"(
    HloModule m
    ENTRY e {
      p0 = f32[2] parameter(0)
      ROOT r = f32[2] negate(p0)
    })");
  ASSERT_TRUE(module.ok());
  auto kernel = test::SharedCompiler().Compile(*(*module)->entry_computation());
  ASSERT_TRUE(kernel.ok());
  EXPECT_FALSE((*kernel)->Run(absl::Span<const Literal>()).ok());
  EXPECT_FALSE((*kernel)->Run({Literal::CreateR1<float>({1, 2, 3})}).ok());
  EXPECT_FALSE((*kernel)->Run({Literal::CreateR1<double>({1, 2})}).ok());
  absl::StatusOr<Literal> ok = (*kernel)->Run({Literal::CreateR1<float>({1, -2})});
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok, Literal::CreateR1<float>({-1, 2}));
}

}  // namespace
}  // namespace llvm_ir
}  // namespace tessera
