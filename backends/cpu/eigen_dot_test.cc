// RunDot and PlanDot against the reference evaluator: one-dot modules on
// seeded random inputs, with buffers laid out as the shapes' layouts say.
// Floats are compared within a tolerance for reordered sums, scaled by
// sum_p |lhs_ip| |rhs_pj| (the evaluator's result on |lhs|, |rhs|).
#include "backends/cpu/eigen_dot.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "hlo/evaluator/hlo_evaluator.h"
#include "hlo/ir/hlo_computation.h"
#include "hlo/ir/hlo_instruction.h"
#include "hlo/ir/hlo_module.h"
#include "hlo/ir/literal.h"
#include "hlo/ir/random_literal.h"
#include "hlo/parser/hlo_parser.h"
#include "runtime/thread_pool.h"

// libgomp's (linked with oneDNN): this thread's OpenMP team size.
extern "C" void omp_set_num_threads(int);
extern "C" int omp_get_max_threads();

namespace tessera {
namespace cpu {
namespace {

// Physical strides (elements) of `shape` per its layout (row-major without).
std::vector<int64_t> PhysicalStrides(const Shape& shape) {
  const int64_t rank = shape.rank();
  std::vector<int64_t> strides(rank, 1);
  if (!shape.has_layout()) return RowMajorStrides(shape.dimensions());
  int64_t stride = 1;
  for (int64_t d : shape.layout().minor_to_major) {
    strides[d] = stride;
    stride *= shape.dimensions(d);
  }
  return strides;
}

// Calls fn(row_major_linear, physical_linear) for every element of `shape`.
template <typename Fn>
void ForEachElement(const Shape& shape, Fn fn) {
  const std::vector<int64_t> phys = PhysicalStrides(shape);
  const int64_t rank = shape.rank();
  const int64_t count = shape.ElementCount();
  std::vector<int64_t> index(rank, 0);
  for (int64_t linear = 0; linear < count; ++linear) {
    int64_t offset = 0;
    for (int64_t d = 0; d < rank; ++d) offset += index[d] * phys[d];
    fn(linear, offset);
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < shape.dimensions(d)) break;
      index[d] = 0;
    }
  }
}

// The literal's (row-major) data laid out as `shape`'s layout says.
std::vector<char> ToPhysical(const Literal& literal, const Shape& shape) {
  const int width = ByteWidth(shape.element_type());
  std::vector<char> bytes(shape.ElementCount() * width + 1);
  const char* src = static_cast<const char*>(literal.untyped_data());
  ForEachElement(shape, [&](int64_t linear, int64_t offset) {
    std::memcpy(bytes.data() + offset * width, src + linear * width, width);
  });
  return bytes;
}

Literal FromPhysical(const std::vector<char>& bytes, const Shape& shape) {
  Shape row_major = shape;
  row_major.clear_layout();
  row_major.SetDefaultLayoutRecursively();
  Literal literal(row_major);
  const int width = ByteWidth(shape.element_type());
  char* dst = static_cast<char*>(literal.untyped_data());
  ForEachElement(shape, [&](int64_t linear, int64_t offset) {
    std::memcpy(dst + linear * width, bytes.data() + offset * width, width);
  });
  return literal;
}

Literal Abs(const Literal& literal) {
  Literal result = literal;
  for (int64_t i = 0; i < result.element_count(); ++i) {
    result.SetFromDouble(i, std::fabs(literal.GetAsDouble(i)));
  }
  return result;
}

std::string DotModule(absl::string_view lhs, absl::string_view rhs, absl::string_view out,
                      absl::string_view dnums) {
  return absl::StrCat("HloModule m\n\nENTRY e {\n  a = ", lhs, " parameter(0)\n  b = ", rhs,
                      " parameter(1)\n  ROOT d = ", out, " dot(a, b)",
                      dnums.empty() ? "" : ", ", dnums, "\n}\n");
}

// Relative tolerance (against sum |a||b|) of reordered sums, plus the
// rounding of a 16-bit result (against |result|).
struct Tolerance {
  double sum = 0;
  double result = 0;
};

Tolerance ToleranceFor(const DotShape& shape) {
  Tolerance tol;
  // Integer operands sum in their result's type (exactly into integers).
  const bool integral_operands = IsIntegralType(shape.type) || shape.type == PRED;
  const PrimitiveType sums = integral_operands ? shape.output_type : shape.type;
  if (sums == F64) {
    tol.sum = 1e-13;
  } else if (!IsIntegralType(sums) && sums != PRED) {
    tol.sum = 1e-5;
  }
  if (shape.output_type == F16) tol.result = std::ldexp(1.0, -10);
  if (shape.output_type == BF16) tol.result = std::ldexp(1.0, -7);
  if (std::optional<FloatFormat> format = FloatFormatOf(shape.output_type);
      format && IsFloat8Type(shape.output_type)) {
    tol.result = std::ldexp(1.0, -format->mantissa_bits);
  }
  return tol;
}

// Parses `text`, plans its root dot, runs it on random inputs on `pool`
// and checks the result against the evaluator.
// full_range: integer operands take every bit pattern (MakeRandomLiteral's
// are small, -8 to 8), so that sign extension, and sums past 2^32, count.
void CheckDot(const std::string& text, runtime::ThreadPool* pool, uint64_t seed = 1,
              bool full_range = false) {
  SCOPED_TRACE(text);
  auto module = ParseHloModule(text);
  ASSERT_TRUE(module.ok()) << module.status();
  const HloInstruction& dot = *(*module)->entry_computation()->root_instruction();
  absl::StatusOr<DotShape> plan = PlanDot(dot);
  ASSERT_TRUE(plan.ok()) << plan.status();
  SCOPED_TRACE(plan->ToString());

  std::mt19937_64 rng(seed);
  std::vector<Literal> args;
  for (int i = 0; i < 2; ++i) {
    Shape shape = dot.operand(i)->shape();
    shape.clear_layout();
    shape.SetDefaultLayoutRecursively();
    auto literal = MakeRandomLiteral(shape, rng);
    ASSERT_TRUE(literal.ok()) << literal.status();
    if (full_range && IsIntegralType(shape.element_type())) {
      auto* bytes = static_cast<uint8_t*>(literal->untyped_data());
      for (int64_t b = 0; b < literal->size_bytes(); ++b) bytes[b] = static_cast<uint8_t>(rng());
    }
    args.push_back(std::move(*literal));
  }
  auto expected = EvaluateModule(**module, args);
  ASSERT_TRUE(expected.ok()) << expected.status();
  std::vector<Literal> abs_args = {Abs(args[0]), Abs(args[1])};
  auto scale = EvaluateModule(**module, abs_args);
  ASSERT_TRUE(scale.ok()) << scale.status();

  std::vector<char> lhs = ToPhysical(args[0], dot.operand(0)->shape());
  std::vector<char> rhs = ToPhysical(args[1], dot.operand(1)->shape());
  std::vector<char> out(dot.shape().ElementCount() * ByteWidth(dot.shape().element_type()) + 1,
                        char{0x5a});
  ASSERT_TRUE(RunDot(*plan, lhs.data(), rhs.data(), out.data(), pool).ok());
  Literal got = FromPhysical(out, dot.shape());

  const Tolerance tol = ToleranceFor(*plan);
  int failures = 0;
  for (int64_t i = 0; i < got.element_count() && failures < 5; ++i) {
    if (IsIntegralType(plan->output_type) || plan->output_type == PRED) {
      if (got.GetAsInt64(i) != expected->GetAsInt64(i)) {
        ++failures;
        ADD_FAILURE() << "element " << i << ": got " << got.GetAsInt64(i) << ", evaluator "
                      << expected->GetAsInt64(i);
      }
      continue;
    }
    const double g = got.GetAsDouble(i), e = expected->GetAsDouble(i);
    const double bound = tol.sum * scale->GetAsDouble(i) + tol.result * std::fabs(e) + 1e-300;
    if (!(std::fabs(g - e) <= bound)) {
      ++failures;
      ADD_FAILURE() << "element " << i << ": got " << g << ", evaluator " << e << ", |diff| "
                    << std::fabs(g - e) << " > " << bound;
    }
  }
}

std::string MatMul(absl::string_view type, int64_t m, int64_t n, int64_t k) {
  return DotModule(absl::StrCat(type, "[", m, ",", k, "]{1,0}"),
                   absl::StrCat(type, "[", k, ",", n, "]{1,0}"),
                   absl::StrCat(type, "[", m, ",", n, "]{1,0}"),
                   "lhs_contracting_dims={1}, rhs_contracting_dims={0}");
}

TEST(EigenDotTest, GridF32) {
  runtime::ThreadPool pool(2);
  for (int64_t m : {1, 7, 257}) {
    for (int64_t n : {1, 7, 257}) {
      for (int64_t k : {1, 16, 257}) {
        CheckDot(MatMul("f32", m, n, k), &pool);
      }
    }
  }
}

TEST(EigenDotTest, LongContractionF32) {
  CheckDot(MatMul("f32", 33, 65, 1024), &runtime::ThreadPool::Default());
  CheckDot(MatMul("f32", 1, 1, 1024), nullptr);
}

TEST(EigenDotTest, ThreadCountsAgree) {
  // Odd sizes split into panels of 16 over 1, 2 and 3 threads.
  runtime::ThreadPool three(3);
  for (runtime::ThreadPool* pool : {static_cast<runtime::ThreadPool*>(nullptr),
                                    &runtime::ThreadPool::Default(), &three}) {
    CheckDot(MatMul("f32", 131, 45, 77), pool);
    CheckDot(MatMul("f32", 45, 131, 77), pool);
  }
}

TEST(EigenDotTest, TransposedOperands) {
  runtime::ThreadPool pool(2);
  for (int lc : {0, 1}) {
    for (int rc : {0, 1}) {
      const std::string lhs = lc == 1 ? "f32[69,91]{1,0}" : "f32[91,69]{1,0}";
      const std::string rhs = rc == 0 ? "f32[91,83]{1,0}" : "f32[83,91]{1,0}";
      CheckDot(DotModule(lhs, rhs, "f32[69,83]{1,0}",
                         absl::StrCat("lhs_contracting_dims={", lc, "}, rhs_contracting_dims={",
                                      rc, "}")),
               &pool);
    }
  }
}

TEST(EigenDotTest, ColumnMajorLayouts) {
  runtime::ThreadPool pool(2);
  for (const char* l : {"{1,0}", "{0,1}"}) {
    for (const char* r : {"{1,0}", "{0,1}"}) {
      for (const char* o : {"{1,0}", "{0,1}"}) {
        CheckDot(DotModule(absl::StrCat("f32[70,90]", l), absl::StrCat("f32[90,81]", r),
                           absl::StrCat("f32[70,81]", o),
                           "lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
                 &pool);
      }
    }
  }
}

TEST(EigenDotTest, BatchDimensions) {
  runtime::ThreadPool pool(2);
  // One batch dimension, batch 3 (not a multiple of the threads).
  CheckDot(DotModule("f32[3,19,31]{2,1,0}", "f32[3,31,23]{2,1,0}", "f32[3,19,23]{2,1,0}",
                     "lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, "
                     "rhs_contracting_dims={1}"),
           &pool);
  // Two batch dimensions, transposed rhs, batch 4.
  CheckDot(DotModule("f32[2,2,80,64]{3,2,1,0}", "f32[2,2,72,64]{3,2,1,0}",
                     "f32[2,2,80,72]{3,2,1,0}",
                     "lhs_batch_dims={0,1}, rhs_batch_dims={0,1}, lhs_contracting_dims={3}, "
                     "rhs_contracting_dims={3}"),
           &pool);
  // A batch dimension that is not first logically but is physically
  // outermost everywhere.
  CheckDot(DotModule("f32[19,4,31]{2,0,1}", "f32[31,4,23]{0,2,1}", "f32[4,19,23]{2,1,0}",
                     "lhs_batch_dims={1}, rhs_batch_dims={1}, lhs_contracting_dims={2}, "
                     "rhs_contracting_dims={0}"),
           &pool);
  // Batch with a column-major result (out_transposed).
  CheckDot(DotModule("f32[5,17,9]{2,1,0}", "f32[5,9,13]{2,1,0}", "f32[5,17,13]{1,2,0}",
                     "lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, "
                     "rhs_contracting_dims={1}"),
           &pool);
}

TEST(EigenDotTest, CollapsedDimensions) {
  runtime::ThreadPool pool(2);
  // Two free and two contracting dimensions per side collapse to one each.
  CheckDot(DotModule("f32[4,5,6,7]{3,2,1,0}", "f32[6,7,3,2]{3,2,1,0}", "f32[4,5,3,2]{3,2,1,0}",
                     "lhs_contracting_dims={2,3}, rhs_contracting_dims={0,1}"),
           &pool);
  // Contracting pairs listed in another order than they are stored, but in
  // the same order on both sides.
  CheckDot(DotModule("f32[6,7,5]{2,1,0}", "f32[6,7,3]{2,1,0}", "f32[5,3]{1,0}",
                     "lhs_contracting_dims={1,0}, rhs_contracting_dims={1,0}"),
           &pool);
  // Dimensions of size 1 anywhere are ignored.
  CheckDot(DotModule("f32[1,9,1,5]{0,3,2,1}", "f32[5,1,4]{2,1,0}", "f32[1,9,1,1,4]{4,3,2,1,0}",
                     "lhs_contracting_dims={3}, rhs_contracting_dims={0}"),
           &pool);
  // Matrix-vector and vector-vector.
  CheckDot(DotModule("f32[37,300]{1,0}", "f32[300]{0}", "f32[37]{0}",
                     "lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
           &pool);
  CheckDot(DotModule("f32[300]{0}", "f32[300]{0}", "f32[]",
                     "lhs_contracting_dims={0}, rhs_contracting_dims={0}"),
           &pool);
  // Outer product (no contracting dimension).
  CheckDot(DotModule("f32[13]{0}", "f32[11]{0}", "f32[13,11]{1,0}", ""), &pool);
}

TEST(EigenDotTest, ElementTypes) {
  runtime::ThreadPool pool(2);
  CheckDot(MatMul("f64", 67, 71, 129), &pool);
  CheckDot(MatMul("s32", 67, 71, 129), &pool);
  CheckDot(MatMul("f16", 67, 71, 129), &pool);
  CheckDot(MatMul("bf16", 67, 71, 129), &pool);
  CheckDot(DotModule("f16[67,129]{0,1}", "f16[129,71]{1,0}", "f32[67,71]{1,0}",
                     "lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
           &pool);
  CheckDot(DotModule("bf16[67,129]{1,0}", "bf16[129,71]{1,0}", "f32[67,71]{0,1}",
                     "lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
           &pool);
  // float8 (scaled fp8 matmuls): into f32, and rounded back into float8.
  CheckDot(DotModule("f8e4m3fn[67,129]{1,0}", "f8e4m3fn[129,71]{0,1}", "f32[67,71]{1,0}",
                     "lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
           &pool);
  CheckDot(MatMul("f8e5m2", 67, 71, 129), &pool);
  // s8 x s8 -> s32 (quantized matmuls), plain and batched with a transposed
  // operand and a column-major result.
  CheckDot(DotModule("s8[67,129]{1,0}", "s8[129,71]{1,0}", "s32[67,71]{1,0}",
                     "lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
           &pool);
  CheckDot(DotModule("s8[3,129,67]{2,1,0}", "s8[3,71,129]{2,1,0}", "s32[3,67,71]{1,2,0}",
                     "lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={1}, "
                     "rhs_contracting_dims={2}"),
           &pool);
  // Deeper than f32 holds exactly (s8 sums in f32 up to depth 1024).
  CheckDot(DotModule("s8[9,1100]{1,0}", "s8[1100,7]{1,0}", "s32[9,7]{1,0}",
                     "lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
           &pool);
}

// s8 products at the ends of the range, where 16-bit pair sums (oneDNN's
// int8 GEMM without VNNI) would saturate, and deep enough that the s32
// sum wraps, as the evaluator's does.  With the reference kernels too,
// which rule out VNNI: f32 sums up to depth 1024 (exactly 2^24 at the
// edge), f64 sums beyond.
TEST(EigenDotTest, S8ExtremesAndWrapping) {
  runtime::ThreadPool pool(2);
  struct Case {
    int64_t k;
    int8_t lhs, rhs;
  };
  for (const bool reference : {false, true}) {
    eigen_dot_internal::SetUseReferenceKernelsForTesting(reference);
    for (const Case& c : {Case{1000, 127, 127}, Case{1000, -128, 127}, Case{1024, -128, -128},
                          Case{1100, 127, 127},  // odd partial sums past 2^24
                          Case{140000, -128, -128}, Case{140000, 127, -128}}) {
      SCOPED_TRACE(
          absl::StrCat("k ", c.k, ", ", c.lhs, " x ", c.rhs, reference ? ", reference" : ""));
      auto module = ParseHloModule(
          DotModule(absl::StrCat("s8[5,", c.k, "]{1,0}"), absl::StrCat("s8[", c.k, ",33]{1,0}"),
                    "s32[5,33]{1,0}", "lhs_contracting_dims={1}, rhs_contracting_dims={0}"));
      ASSERT_TRUE(module.ok()) << module.status();
      auto plan = PlanDot(*(*module)->entry_computation()->root_instruction());
      ASSERT_TRUE(plan.ok()) << plan.status();
      const std::vector<int8_t> lhs(5 * c.k, c.lhs), rhs(c.k * 33, c.rhs);
      std::vector<int32_t> out(5 * 33, 0);
      std::vector<char> scratch(DotScratchBytes(*plan));
      ASSERT_TRUE(RunDot(*plan, lhs.data(), rhs.data(), out.data(), &pool, scratch.data()).ok());
      const int32_t expected =
          static_cast<int32_t>(static_cast<uint32_t>(int32_t{c.lhs} * c.rhs) * uint32_t(c.k));
      EXPECT_EQ(std::count(out.begin(), out.end(), expected), static_cast<int64_t>(out.size()))
          << "expected " << expected << ", got e.g. " << out[0];
    }
  }
  eigen_dot_internal::SetUseReferenceKernelsForTesting(false);
}

// Integer dots of every other width and signedness (IntegerDot): exact
// f64 sums of 8- and 16-bit products, wrapping u32 sums of 32-bit ones,
// results narrower than the operands (JAX's int8 @ int8 is int8), and
// float results of converted operands; compared exactly where integral.
TEST(EigenDotTest, IntegerDots) {
  runtime::ThreadPool pool(2);
  const std::string contracting = "lhs_contracting_dims={1}, rhs_contracting_dims={0}";
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"s8", "s8"},     {"u8", "u8"},    {"u8", "s32"},   {"u8", "u32"},  {"s16", "s16"},
      {"u16", "u32"},   {"s16", "s32"},  {"u32", "u32"},  {"s32", "s8"},  {"u32", "s16"},
      {"s8", "f32"},    {"u8", "f64"},   {"s32", "f32"},  {"s16", "f64"}, {"s8", "u16"},
      {"pred", "pred"}, {"pred", "s32"}, {"pred", "f32"}, {"s64", "s64"}, {"u64", "u64"}};
  for (const auto& [in, out] : pairs) {
    CheckDot(DotModule(absl::StrCat(in, "[37,300]{1,0}"), absl::StrCat(in, "[300,41]{1,0}"),
                       absl::StrCat(out, "[37,41]{1,0}"), contracting),
             &pool, /*seed=*/1, /*full_range=*/true);
  }
  // s8 without VNNI (the reference kernels rule it out): exact f32 sums up
  // to depth 1024, f64 sums past it, on full-range values.
  eigen_dot_internal::SetUseReferenceKernelsForTesting(true);
  for (int64_t k : {1024, 1100}) {
    CheckDot(DotModule(absl::StrCat("s8[9,", k, "]{1,0}"), absl::StrCat("s8[", k, ",7]{1,0}"),
                       "s32[9,7]{1,0}", contracting),
             &pool, /*seed=*/4, /*full_range=*/true);
  }
  eigen_dot_internal::SetUseReferenceKernelsForTesting(false);
  // Shallow enough for exact f32 sums of 8-bit products (k < 256).
  CheckDot(DotModule("u8[37,200]{1,0}", "u8[200,41]{1,0}", "u16[37,41]{1,0}", contracting), &pool,
           /*seed=*/2, /*full_range=*/true);
  // Batched, a transposed operand, a column-major result.
  CheckDot(DotModule("s8[3,129,67]{2,1,0}", "s8[3,71,129]{2,1,0}", "s8[3,67,71]{1,2,0}",
                     "lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={1}, "
                     "rhs_contracting_dims={2}"),
           &pool, /*seed=*/3, /*full_range=*/true);
  CheckDot(DotModule("u8[3,129,67]{2,1,0}", "u8[3,71,129]{2,1,0}", "s32[3,67,71]{1,2,0}",
                     "lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={1}, "
                     "rhs_contracting_dims={2}"),
           &pool);
  CheckDot(DotModule("s16[3,129,67]{2,1,0}", "s16[3,71,129]{2,1,0}", "s16[3,67,71]{1,2,0}",
                     "lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={1}, "
                     "rhs_contracting_dims={2}"),
           &pool);
}

TEST(EigenDotTest, S32Wraps) {
  auto module = ParseHloModule(MatMul("s32", 1, 1, 2));
  ASSERT_TRUE(module.ok());
  auto plan = PlanDot(*(*module)->entry_computation()->root_instruction());
  ASSERT_TRUE(plan.ok());
  const int32_t lhs[2] = {1 << 30, 1 << 30}, rhs[2] = {4, 3};
  int32_t out = 0;
  ASSERT_TRUE(RunDot(*plan, lhs, rhs, &out, nullptr).ok());
  EXPECT_EQ(out, static_cast<int32_t>(uint32_t{7} << 30));
}

TEST(EigenDotTest, EmptyAndZeroContraction) {
  runtime::ThreadPool pool(2);
  CheckDot(MatMul("f32", 5, 7, 0), &pool);  // zero fill
  CheckDot(MatMul("f32", 0, 7, 5), &pool);
  CheckDot(DotModule("f32[5,0]{0,1}", "f32[0,7]{0,1}", "f32[5,7]{0,1}",
                     "lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
           &pool);
}

TEST(EigenDotTest, ScratchBuffer) {
  DotShape shape;
  shape.m = 3;
  shape.n = 2;
  shape.k = 4;
  shape.type = BF16;
  shape.output_type = BF16;
  EXPECT_EQ(DotScratchBytes(shape), (16 + 16 + 16) * 4);
  std::vector<float> scratch(DotScratchBytes(shape) / 4);
  std::vector<bfloat16> lhs(12, bfloat16(1.0f)), rhs(8, bfloat16(0.5f)), out(6);
  ASSERT_TRUE(RunDot(shape, lhs.data(), rhs.data(), out.data(), nullptr, scratch.data()).ok());
  for (bfloat16 x : out) EXPECT_EQ(static_cast<float>(x), 2.0f);
  shape.type = F32;
  EXPECT_EQ(DotScratchBytes(shape), 0);
  // Complex: both operands' parts and four real products.
  shape.type = C64;
  shape.output_type = C64;
  EXPECT_EQ(DotScratchBytes(shape), (2 * 16 + 2 * 16 + 4 * 16) * 4);
  shape.type = S16;
  shape.output_type = S16;
  // Integer dots: both operands and the result, in f64 elements.
  EXPECT_EQ(DotScratchBytes(shape), (16 + 16 + 16) * 8);
  shape.type = S64;
  shape.output_type = S32;  // 64-bit operands only into their own type
  EXPECT_EQ(RunDot(shape, nullptr, nullptr, nullptr, nullptr).code(),
            absl::StatusCode::kUnimplemented);
}

// The plan of the root dot of `text` (which must plan).
DotShape PlanOf(const std::string& text) {
  auto module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return DotShape();
  auto plan = PlanDot(*(*module)->entry_computation()->root_instruction());
  EXPECT_TRUE(plan.ok()) << plan.status();
  return plan.ok() ? *plan : DotShape();
}

// Attention on [seq, heads, head_dim] arrays: scores[h, i, j] = sum_d
// q[i, h, d] k[j, h, d], and context[h, i, d] = sum_j p[h, i, j] v[j, h, d].
std::string AttentionScores(absl::string_view type, int64_t seq, int64_t heads, int64_t dim,
                            absl::string_view out_layout = "{2,1,0}") {
  const std::string qk = absl::StrCat(type, "[", seq, ",", heads, ",", dim, "]{2,1,0}");
  return DotModule(qk, qk, absl::StrCat(type, "[", heads, ",", seq, ",", seq, "]", out_layout),
                   "lhs_batch_dims={1}, rhs_batch_dims={1}, lhs_contracting_dims={2}, "
                   "rhs_contracting_dims={2}");
}
std::string AttentionContext(absl::string_view type, int64_t seq, int64_t heads, int64_t dim,
                             absl::string_view out_layout = "{2,1,0}") {
  return DotModule(absl::StrCat(type, "[", heads, ",", seq, ",", seq, "]{2,1,0}"),
                   absl::StrCat(type, "[", seq, ",", heads, ",", dim, "]{2,1,0}"),
                   absl::StrCat(type, "[", heads, ",", seq, ",", dim, "]", out_layout),
                   "lhs_batch_dims={0}, rhs_batch_dims={1}, lhs_contracting_dims={2}, "
                   "rhs_contracting_dims={0}");
}

TEST(EigenDotTest, DenseShapeDefaults) {
  DotShape shape;
  shape.batch = 2;
  shape.m = 3;
  shape.n = 4;
  shape.k = 5;
  EXPECT_TRUE(shape.IsDense());
  EXPECT_EQ(shape.effective_lda(), 5);
  EXPECT_EQ(shape.effective_ldb(), 4);
  EXPECT_EQ(shape.effective_ldc(), 4);
  EXPECT_EQ(shape.effective_lhs_batch_stride(), 15);
  EXPECT_EQ(shape.effective_rhs_batch_stride(), 20);
  EXPECT_EQ(shape.effective_out_batch_stride(), 12);
  EXPECT_EQ(shape.ToString(), "f32->f32 batch=2 m=3 n=4 k=5");
  shape.lhs_transposed = shape.rhs_transposed = shape.out_transposed = true;
  EXPECT_EQ(shape.effective_lda(), 3);
  EXPECT_EQ(shape.effective_ldb(), 5);
  EXPECT_EQ(shape.effective_ldc(), 3);
  shape.lda = 3;  // the dense value, spelled out
  EXPECT_TRUE(shape.IsDense());
  shape.ldb = 7;
  shape.out_batch_stride = 40;
  EXPECT_FALSE(shape.IsDense());
  EXPECT_EQ(shape.ToString(),
            "f32->f32 batch=2 m=3 n=4 k=5 lhs^T rhs^T out^T ldb=7 out_batch_stride=40");
  shape.ldc = -1;
  EXPECT_EQ(CheckDotShape(shape).code(), absl::StatusCode::kInvalidArgument);
  // Dense dots plan with dense strides.
  EXPECT_TRUE(PlanOf(MatMul("f32", 5, 6, 7)).IsDense());
  EXPECT_TRUE(PlanOf(DotModule("f32[3,19,31]{2,1,0}", "f32[3,23,31]{2,1,0}",
                               "f32[3,19,23]{1,2,0}",
                               "lhs_batch_dims={0}, rhs_batch_dims={0}, "
                               "lhs_contracting_dims={2}, rhs_contracting_dims={2}"))
                  .IsDense());
}

TEST(EigenDotTest, TransformerAttention) {
  runtime::ThreadPool pool(2);
  // scores = q k^T per head, q and k [seq=128, heads=8, head_dim=64].
  const std::string scores = AttentionScores("f32", 128, 8, 64);
  DotShape plan = PlanOf(scores);
  EXPECT_EQ(plan.ToString(),
            "f32->f32 batch=8 m=128 n=128 k=64 rhs^T lda=512 ldb=512 lhs_batch_stride=64 "
            "rhs_batch_stride=64");
  CheckDot(scores, &pool);
  // context = p v per head, p [8, 128, 128], v [128, 8, 64].
  const std::string context = AttentionContext("f32", 128, 8, 64);
  plan = PlanOf(context);
  EXPECT_EQ(plan.ToString(), "f32->f32 batch=8 m=128 n=64 k=128 ldb=512 rhs_batch_stride=64");
  CheckDot(context, &pool);
  // The context written back as [seq, heads, head_dim] (batch in the
  // middle of the result).
  const std::string context_shd = AttentionContext("f32", 128, 8, 64, "{2,0,1}");
  plan = PlanOf(context_shd);
  EXPECT_EQ(plan.ToString(),
            "f32->f32 batch=8 m=128 n=64 k=128 ldb=512 ldc=512 rhs_batch_stride=64 "
            "out_batch_stride=64");
  CheckDot(context_shd, &pool);
  // Scores written with the batch in the middle and transposed (m minor).
  const std::string scores_t = AttentionScores("f32", 128, 8, 64, "{1,0,2}");
  plan = PlanOf(scores_t);
  EXPECT_TRUE(plan.out_transposed) << plan.ToString();
  EXPECT_EQ(plan.ldc, 1024);
  EXPECT_EQ(plan.out_batch_stride, 128);
  CheckDot(scores_t, &pool);
  // On one thread and on three (batch 8 split into panels).
  runtime::ThreadPool three(3);
  CheckDot(scores, nullptr);
  CheckDot(context_shd, &three);
}

TEST(EigenDotTest, StridedBatchOddSizes) {
  runtime::ThreadPool pool(2);
  for (int64_t seq : {1, 7, 33}) {
    for (int64_t heads : {1, 3, 5}) {
      for (int64_t dim : {1, 7, 33}) {
        for (const char* layout : {"{2,1,0}", "{2,0,1}", "{1,0,2}"}) {
          CheckDot(AttentionScores("f32", seq, heads, dim, layout), &pool);
          CheckDot(AttentionContext("f32", seq, heads, dim, layout), &pool);
        }
      }
    }
  }
  // Batch 3 and 5 (not a multiple of the 2 threads), large enough to run
  // in parallel: panels of each batch element.
  for (int64_t heads : {3, 5}) {
    CheckDot(AttentionScores("f32", 65, heads, 64, "{2,0,1}"), &pool);
    CheckDot(AttentionContext("f32", 65, heads, 64, "{1,0,2}"), &pool);
  }
}

TEST(EigenDotTest, StridedMultipleBatchDimensions) {
  runtime::ThreadPool pool(2);
  // Heads split as [2, 3] in the middle of [seq, 2, 3, dim]: the two batch
  // dimensions collapse to one of stride dim.
  CheckDot(DotModule("f32[17,2,3,8]{3,2,1,0}", "f32[19,2,3,8]{3,2,1,0}",
                     "f32[2,3,17,19]{3,2,1,0}",
                     "lhs_batch_dims={1,2}, rhs_batch_dims={1,2}, lhs_contracting_dims={3}, "
                     "rhs_contracting_dims={3}"),
           &pool);
  // The batch pairs listed in the other order: they collapse in the order
  // of the strides (pair 1 outer), in the result too ({3,2,0,1}).
  CheckDot(DotModule("f32[17,2,3,8]{3,2,1,0}", "f32[19,2,3,8]{3,2,1,0}",
                     "f32[3,2,17,19]{3,2,0,1}",
                     "lhs_batch_dims={2,1}, rhs_batch_dims={2,1}, lhs_contracting_dims={3}, "
                     "rhs_contracting_dims={3}"),
           &pool);
  // Batch dimensions on both sides of a free dimension in the result
  // would not collapse, but a size-1 dimension between them is ignored.
  CheckDot(DotModule("f32[2,1,3,9,8]{4,3,2,1,0}", "f32[2,3,8,5]{3,2,1,0}",
                     "f32[2,3,1,9,5]{4,3,1,2,0}",
                     "lhs_batch_dims={0,2}, rhs_batch_dims={0,1}, lhs_contracting_dims={4}, "
                     "rhs_contracting_dims={2}"),
           &pool);
  // The rhs batch between k and n, the result batch between m and n.
  CheckDot(DotModule("f32[4,11,13]{2,1,0}", "f32[13,4,15]{2,1,0}", "f32[4,11,15]{2,0,1}",
                     "lhs_batch_dims={0}, rhs_batch_dims={1}, lhs_contracting_dims={2}, "
                     "rhs_contracting_dims={0}"),
           &pool);
}

TEST(EigenDotTest, StridedElementTypes) {
  runtime::ThreadPool pool(2);
  for (const char* type : {"f64", "s32", "f16", "bf16"}) {
    CheckDot(AttentionScores(type, 33, 3, 16, "{2,0,1}"), &pool);
    CheckDot(AttentionContext(type, 33, 3, 16, "{1,0,2}"), &pool);
  }
  // 16-bit operands into an f32 result with strides.
  CheckDot(DotModule("bf16[33,3,16]{2,1,0}", "bf16[33,3,16]{2,1,0}", "f32[3,33,33]{1,0,2}",
                     "lhs_batch_dims={1}, rhs_batch_dims={1}, lhs_contracting_dims={2}, "
                     "rhs_contracting_dims={2}"),
           &pool);
  CheckDot(DotModule("f16[3,33,33]{2,1,0}", "f16[33,3,16]{2,1,0}", "f32[3,33,16]{2,0,1}",
                     "lhs_batch_dims={0}, rhs_batch_dims={1}, lhs_contracting_dims={2}, "
                     "rhs_contracting_dims={0}"),
           &pool);
}

// oneDNN's calls run on the calling thread alone, and leave that thread's
// own OpenMP team size as they found it (the caller's thread may be the
// user's).
TEST(EigenDotTest, OneDnnLeavesTheCallersOpenMpSettingAlone) {
  omp_set_num_threads(3);
  CheckDot(MatMul("f32", 67, 71, 129), nullptr);
  EXPECT_EQ(omp_get_max_threads(), 3);
  omp_set_num_threads(1);
  CheckDot(MatMul("f32", 67, 71, 129), nullptr);
  EXPECT_EQ(omp_get_max_threads(), 1);
}

// The f32 products again on Eigen's kernels (oneDNN's run by default).
TEST(EigenDotTest, EigenF32Kernels) {
  eigen_dot_internal::SetUseEigenF32KernelsForTesting(true);
  runtime::ThreadPool pool(2);
  for (int64_t size : {1, 7, 257}) CheckDot(MatMul("f32", size, 257 - size + 1, size + 15), &pool);
  CheckDot(AttentionScores("f32", 33, 3, 16, "{1,0,2}"), &pool);
  CheckDot(DotModule("f32[91,69]{0,1}", "f32[83,91]{1,0}", "f32[69,83]{0,1}",
                     "lhs_contracting_dims={0}, rhs_contracting_dims={1}"),
           &pool);
  eigen_dot_internal::SetUseEigenF32KernelsForTesting(false);
}

// The plain-loop product (for CPUs without AVX-512) honours the strides.
TEST(EigenDotTest, ReferenceKernelsStrided) {
  eigen_dot_internal::SetUseReferenceKernelsForTesting(true);
  runtime::ThreadPool pool(2);
  for (const char* layout : {"{2,1,0}", "{2,0,1}", "{1,0,2}"}) {
    CheckDot(AttentionScores("f32", 33, 3, 16, layout), &pool);
    CheckDot(AttentionContext("f32", 33, 3, 16, layout), &pool);
    CheckDot(AttentionScores("s32", 7, 3, 5, layout), &pool);
    CheckDot(AttentionContext("f64", 7, 3, 5, layout), nullptr);
  }
  CheckDot(AttentionScores("bf16", 33, 3, 16, "{1,0,2}"), &pool);
  CheckDot(MatMul("f32", 67, 71, 129), &pool);
  eigen_dot_internal::SetUseReferenceKernelsForTesting(false);
}

// JAX multi-head attention on [batch, seq, heads, head_dim] arrays: batch
// dimensions {batch, heads} with seq between them (two strided batch
// dimensions).  scores[b, h, i, j] = sum_d q[b, i, h, d] k[b, j, h, d].
std::string JaxScores(absl::string_view type, int64_t batch, int64_t seq, int64_t heads,
                      int64_t dim, absl::string_view out_layout = "{3,2,1,0}") {
  const std::string qk =
      absl::StrCat(type, "[", batch, ",", seq, ",", heads, ",", dim, "]{3,2,1,0}");
  return DotModule(
      qk, qk, absl::StrCat(type, "[", batch, ",", heads, ",", seq, ",", seq, "]", out_layout),
      "lhs_batch_dims={0,2}, rhs_batch_dims={0,2}, lhs_contracting_dims={3}, "
      "rhs_contracting_dims={3}");
}
// context[b, h, i, d] = sum_j p[b, h, i, j] v[b, j, h, d]; out_layout
// "{3,1,2,0}" writes it back as [batch, seq, heads, head_dim].
std::string JaxContext(absl::string_view type, int64_t batch, int64_t seq, int64_t heads,
                       int64_t dim, absl::string_view out_layout = "{3,2,1,0}",
                       absl::string_view out_type = "") {
  return DotModule(
      absl::StrCat(type, "[", batch, ",", heads, ",", seq, ",", seq, "]{3,2,1,0}"),
      absl::StrCat(type, "[", batch, ",", seq, ",", heads, ",", dim, "]{3,2,1,0}"),
      absl::StrCat(out_type.empty() ? type : out_type, "[", batch, ",", heads, ",", seq, ",",
                   dim, "]", out_layout),
      "lhs_batch_dims={0,1}, rhs_batch_dims={0,2}, lhs_contracting_dims={3}, "
      "rhs_contracting_dims={1}");
}

TEST(EigenDotTest, JaxAttentionBatchDimensions) {
  runtime::ThreadPool pool(2);
  // The module that fell back to the evaluator: batch 2, seq 16, 4 heads
  // of 8.
  const std::string scores = JaxScores("f32", 2, 16, 4, 8);
  DotShape plan = PlanOf(scores);
  EXPECT_EQ(plan.ToString(),
            "f32->f32 batch=8 m=16 n=16 k=8 rhs^T lda=32 ldb=32 batch_dims=2,4 "
            "lhs_batch_strides=512,8 rhs_batch_strides=512,8 out_batch_strides=1024,256");
  EXPECT_FALSE(plan.IsDense());
  CheckDot(scores, &pool);
  const std::string context = JaxContext("f32", 2, 16, 4, 8);
  plan = PlanOf(context);
  EXPECT_EQ(plan.ToString(),
            "f32->f32 batch=8 m=16 n=8 k=16 ldb=32 batch_dims=2,4 lhs_batch_strides=1024,256 "
            "rhs_batch_strides=512,8 out_batch_strides=512,128");
  CheckDot(context, &pool);
  // The context written as [batch, seq, heads, head_dim]: the result's
  // batch dimensions do not collapse either.
  const std::string context_bshd = JaxContext("f32", 2, 16, 4, 8, "{3,1,2,0}");
  plan = PlanOf(context_bshd);
  EXPECT_EQ(plan.ToString(),
            "f32->f32 batch=8 m=16 n=8 k=16 ldb=32 ldc=32 batch_dims=2,4 "
            "lhs_batch_strides=1024,256 rhs_batch_strides=512,8 out_batch_strides=512,8");
  CheckDot(context_bshd, &pool);
  // Scores with a batch dimension in the middle of the result and m minor
  // (out_transposed): [b, h, i, j] stored as (h, j, b, i).
  CheckDot(JaxScores("f32", 2, 16, 4, 8, "{2,0,3,1}"), &pool);
  CheckDot(JaxScores("f32", 2, 16, 4, 8, "{3,2,0,1}"), &pool);
}

TEST(EigenDotTest, JaxAttentionOddSizesAndThreads) {
  runtime::ThreadPool pool(2), three(3);
  for (int64_t batch : {1, 3}) {
    for (int64_t seq : {1, 7}) {
      for (int64_t heads : {1, 5}) {
        for (const char* layout : {"{3,2,1,0}", "{3,1,2,0}", "{2,3,1,0}", "{3,2,0,1}"}) {
          CheckDot(JaxScores("f32", batch, seq, heads, 9, layout), &pool);
          CheckDot(JaxContext("f32", batch, seq, heads, 9, layout), &pool);
        }
      }
    }
  }
  // Large enough to run in parallel: batch 15 (panels on 2 and 3 threads)
  // and batch 8 (whole batch elements on 2 threads), on 1, 2 and 3 threads.
  for (runtime::ThreadPool* p : {static_cast<runtime::ThreadPool*>(nullptr), &pool, &three}) {
    CheckDot(JaxScores("f32", 3, 65, 5, 64, "{3,1,2,0}"), p);
    CheckDot(JaxContext("f32", 3, 65, 5, 64, "{3,1,2,0}"), p);
    CheckDot(JaxScores("f32", 2, 128, 4, 32), p);
    CheckDot(JaxContext("f32", 2, 128, 4, 32, "{2,3,1,0}"), p);
  }
}

TEST(EigenDotTest, ThreeAndUnitBatchDimensions) {
  runtime::ThreadPool pool(2), three(3);
  // Three batch dimensions stored in opposite orders in lhs and rhs:
  // nothing collapses.
  const std::string reversed = DotModule(
      "f32[2,3,5,7,9]{4,3,2,1,0}", "f32[2,3,5,9,11]{4,3,0,1,2}", "f32[2,3,5,7,11]{4,3,2,1,0}",
      "lhs_batch_dims={0,1,2}, rhs_batch_dims={0,1,2}, lhs_contracting_dims={4}, "
      "rhs_contracting_dims={3}");
  DotShape plan = PlanOf(reversed);
  EXPECT_EQ(plan.batch_dim_count, 3) << plan.ToString();
  for (runtime::ThreadPool* p : {static_cast<runtime::ThreadPool*>(nullptr), &pool, &three}) {
    CheckDot(reversed, p);
  }
  // Three batch dimensions, each split from the next by a free or
  // contracting dimension somewhere, with extents 1 mixed in (ignored).
  const std::string split = DotModule(
      "f32[2,7,1,3,5,9]{5,4,3,2,1,0}", "f32[2,1,3,9,5,4]{5,4,3,2,1,0}",
      "f32[2,1,3,5,7,4]{5,4,3,2,1,0}",
      "lhs_batch_dims={0,2,3,4}, rhs_batch_dims={0,1,2,4}, lhs_contracting_dims={5}, "
      "rhs_contracting_dims={3}");
  plan = PlanOf(split);
  EXPECT_EQ(plan.ToString(),
            "f32->f32 batch=30 m=7 n=4 k=9 lda=135 ldb=20 batch_dims=2,3,5 "
            "lhs_batch_strides=945,45,9 rhs_batch_strides=540,180,4 "
            "out_batch_strides=420,140,28");
  for (runtime::ThreadPool* p : {static_cast<runtime::ThreadPool*>(nullptr), &pool, &three}) {
    CheckDot(split, p);
  }
  // Two pairs that collapse ({0,1} and {3,4} in lhs) leave two dimensions.
  const std::string pairs = DotModule(
      "f32[2,3,6,4,5,7]{5,4,3,2,1,0}", "f32[2,3,4,5,7,8]{5,4,3,2,1,0}",
      "f32[2,3,4,5,6,8]{5,4,3,2,1,0}",
      "lhs_batch_dims={0,1,3,4}, rhs_batch_dims={0,1,2,3}, lhs_contracting_dims={5}, "
      "rhs_contracting_dims={4}");
  plan = PlanOf(pairs);
  EXPECT_EQ(plan.batch_dim_count, 2) << plan.ToString();
  EXPECT_EQ(plan.batch_dims[0].size, 6);
  EXPECT_EQ(plan.batch_dims[1].size, 20);
  CheckDot(pairs, &pool);
  // Batch extents 1 only, or one batch dimension of size > 1: the plain
  // batch stride.
  plan = PlanOf(JaxScores("f32", 1, 16, 1, 8));
  EXPECT_EQ(plan.batch_dim_count, 0);
  EXPECT_EQ(plan.batch, 1);
  plan = PlanOf(JaxScores("f32", 1, 16, 4, 8));
  EXPECT_EQ(plan.ToString(),
            "f32->f32 batch=4 m=16 n=16 k=8 rhs^T lda=32 ldb=32 lhs_batch_stride=8 "
            "rhs_batch_stride=8");
  CheckDot(JaxScores("f32", 1, 16, 4, 8), &pool);
  CheckDot(JaxScores("f32", 3, 16, 1, 8), &pool);
  // What used to be rejected: batch dimensions stored in different orders,
  // and split by a free dimension.
  CheckDot(DotModule("f32[2,3,4,5]{3,2,1,0}", "f32[2,3,5,6]{3,2,0,1}", "f32[2,3,4,6]{3,2,1,0}",
                     "lhs_batch_dims={0,1}, rhs_batch_dims={0,1}, "
                     "lhs_contracting_dims={3}, rhs_contracting_dims={2}"),
           &pool);
  CheckDot(DotModule("f32[2,4,3,5]{3,2,1,0}", "f32[2,3,5,6]{3,2,1,0}", "f32[2,3,4,6]{3,2,1,0}",
                     "lhs_batch_dims={0,2}, rhs_batch_dims={0,1}, "
                     "lhs_contracting_dims={3}, rhs_contracting_dims={2}"),
           &pool);
}

TEST(EigenDotTest, BatchDimensionsElementTypes) {
  runtime::ThreadPool pool(2);
  for (const char* type : {"f64", "s32", "f16", "bf16"}) {
    CheckDot(JaxScores(type, 2, 17, 3, 8, "{3,1,2,0}"), &pool);
    CheckDot(JaxContext(type, 2, 17, 3, 8, "{3,1,2,0}"), &pool);
    CheckDot(JaxScores(type, 2, 17, 3, 8, "{2,3,0,1}"), &pool);
  }
  // 16-bit operands into an f32 result written in place with batch
  // dimensions (and transposed).
  CheckDot(JaxContext("bf16", 2, 17, 3, 8, "{3,1,2,0}", "f32"), &pool);
  CheckDot(JaxContext("f16", 2, 17, 3, 8, "{2,3,1,0}", "f32"), &pool);
  CheckDot(JaxScores("f16", 3, 33, 5, 16, "{3,1,2,0}"), &pool);
}

TEST(EigenDotTest, ReferenceKernelsBatchDimensions) {
  eigen_dot_internal::SetUseReferenceKernelsForTesting(true);
  runtime::ThreadPool pool(2);
  for (const char* layout : {"{3,2,1,0}", "{3,1,2,0}", "{2,3,0,1}"}) {
    CheckDot(JaxScores("f32", 2, 16, 4, 8, layout), &pool);
    CheckDot(JaxContext("f32", 2, 16, 4, 8, layout), &pool);
    CheckDot(JaxContext("s32", 3, 7, 5, 3, layout), nullptr);
  }
  CheckDot(JaxContext("bf16", 2, 16, 4, 8, "{3,1,2,0}"), &pool);
  eigen_dot_internal::SetUseReferenceKernelsForTesting(false);
}

TEST(EigenDotTest, BatchDimensionsByHand) {
  // Two batch dimensions laid out densely: the same as batch 6.
  DotShape shape;
  shape.batch = 6;
  shape.m = 2;
  shape.n = 3;
  shape.k = 4;
  shape.batch_dim_count = 2;
  shape.batch_dims[0] = {2, 3 * 8, 3 * 12, 3 * 6};
  shape.batch_dims[1] = {3, 8, 12, 6};
  EXPECT_TRUE(shape.IsDense()) << shape.ToString();
  EXPECT_TRUE(CheckDotShape(shape).ok());
  std::vector<float> lhs(6 * 8), rhs(6 * 12), out(6 * 6), expected(6 * 6);
  for (size_t i = 0; i < lhs.size(); ++i) lhs[i] = static_cast<float>(i % 7) - 3;
  for (size_t i = 0; i < rhs.size(); ++i) rhs[i] = static_cast<float>(i % 5) - 2;
  for (int b = 0; b < 6; ++b) {
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 3; ++j) {
        float acc = 0;
        for (int p = 0; p < 4; ++p) acc += lhs[b * 8 + i * 4 + p] * rhs[b * 12 + p * 3 + j];
        expected[b * 6 + i * 3 + j] = acc;
      }
    }
  }
  ASSERT_TRUE(RunDot(shape, lhs.data(), rhs.data(), out.data(), nullptr).ok());
  EXPECT_EQ(out, expected);
  // The batch dimensions swapped in the result only: out[b1, b0].
  shape.batch_dims[0].out_stride = 6;
  shape.batch_dims[1].out_stride = 2 * 6;
  EXPECT_FALSE(shape.IsDense());
  EXPECT_EQ(shape.ToString(),
            "f32->f32 batch=6 m=2 n=3 k=4 batch_dims=2,3 lhs_batch_strides=24,8 "
            "rhs_batch_strides=36,12 out_batch_strides=6,12");
  ASSERT_TRUE(RunDot(shape, lhs.data(), rhs.data(), out.data(), nullptr).ok());
  for (int b0 = 0; b0 < 2; ++b0) {
    for (int b1 = 0; b1 < 3; ++b1) {
      for (int e = 0; e < 6; ++e) {
        EXPECT_EQ(out[(b1 * 2 + b0) * 6 + e], expected[(b0 * 3 + b1) * 6 + e]);
      }
    }
  }
  // Malformed batch dimensions.
  shape.batch = 5;
  EXPECT_EQ(CheckDotShape(shape).code(), absl::StatusCode::kInvalidArgument);
  shape.batch = 6;
  shape.batch_dims[1].rhs_stride = -1;
  EXPECT_EQ(CheckDotShape(shape).code(), absl::StatusCode::kInvalidArgument);
  shape.batch_dims[1].rhs_stride = 12;
  shape.batch_dim_count = 5;
  EXPECT_EQ(CheckDotShape(shape).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(RunDot(shape, lhs.data(), rhs.data(), out.data(), nullptr).code(),
            absl::StatusCode::kInvalidArgument);
}

// PlanDot's answer for the root of `text`.
absl::Status PlanStatus(const std::string& text) {
  auto module = ParseHloModule(text);
  if (!module.ok()) return module.status();
  return PlanDot(*(*module)->entry_computation()->root_instruction()).status();
}

void ExpectRejected(const std::string& text, absl::string_view reason) {
  SCOPED_TRACE(text);
  absl::Status status = PlanStatus(text);
  EXPECT_EQ(status.code(), absl::StatusCode::kUnimplemented) << status;
  EXPECT_NE(status.message().find(reason), absl::string_view::npos) << status;
}

TEST(EigenDotTest, PlanDotRejections) {
  // lhs free, contracting, free: no single GEMM operand.
  ExpectRejected(DotModule("f32[4,5,6]{2,1,0}", "f32[5,3]{1,0}", "f32[4,6,3]{2,1,0}",
                           "lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
                 "lhs lhs-free dimensions do not collapse to one stride: dimensions 0,2 "
                 "(sizes 4,6) have strides 30,1");
  ExpectRejected(DotModule("f32[3,5]{1,0}", "f32[4,5,6]{2,1,0}", "f32[3,4,6]{2,1,0}",
                           "lhs_contracting_dims={1}, rhs_contracting_dims={1}"),
                 "rhs rhs-free dimensions do not collapse");
  // Batch dimension physically innermost: neither m nor k has stride 1.
  ExpectRejected(DotModule("f32[3,4,5]{0,2,1}", "f32[3,5,6]{2,1,0}", "f32[3,4,6]{2,1,0}",
                           "lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, "
                           "rhs_contracting_dims={1}"),
                 "lhs has no unit-stride dimension (m: 4 elements 15 apart; k: 5 elements 3 "
                 "apart)");
  ExpectRejected(DotModule("f32[3,4,5]{2,1,0}", "f32[3,5,6]{2,1,0}", "f32[3,4,6]{0,2,1}",
                           "lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, "
                           "rhs_contracting_dims={1}"),
                 "result has no unit-stride dimension");
  // Five batch dimensions that collapse nowhere (stored in opposite
  // orders in lhs and rhs).
  ExpectRejected(DotModule("f32[2,2,2,2,2,3,4]{6,5,4,3,2,1,0}",
                           "f32[2,2,2,2,2,4,5]{6,5,0,1,2,3,4}",
                           "f32[2,2,2,2,2,3,5]{6,5,4,3,2,1,0}",
                           "lhs_batch_dims={0,1,2,3,4}, rhs_batch_dims={0,1,2,3,4}, "
                           "lhs_contracting_dims={6}, rhs_contracting_dims={5}"),
                 "batch dimensions do not collapse to 4 or fewer strided dimensions (5)");
  // Free dimensions split by a batch dimension still do not collapse.
  ExpectRejected(DotModule("f32[5,2,3,8]{3,2,1,0}", "f32[2,8,4]{2,1,0}",
                           "f32[2,5,3,4]{3,2,1,0}",
                           "lhs_batch_dims={1}, rhs_batch_dims={0}, "
                           "lhs_contracting_dims={3}, rhs_contracting_dims={1}"),
                 "lhs lhs-free dimensions do not collapse to one stride: dimensions 0,2 "
                 "(sizes 5,3) have strides 48,8");
  // Contracting pairs stored in different orders on the two sides.
  ExpectRejected(DotModule("f32[5,6,7]{2,1,0}", "f32[7,6,3]{2,1,0}", "f32[5,3]{1,0}",
                           "lhs_contracting_dims={1,2}, rhs_contracting_dims={1,0}"),
                 "rhs contracting dimensions do not collapse");
  // The result interleaves the lhs free dimensions with the rhs ones, or
  // stores them in another order.
  ExpectRejected(DotModule("f32[4,5,6]{2,1,0}", "f32[6,3]{1,0}", "f32[4,5,3]{1,2,0}",
                           "lhs_contracting_dims={2}, rhs_contracting_dims={0}"),
                 "result lhs-free dimensions do not collapse");
  ExpectRejected(DotModule("f32[4,5,6]{2,1,0}", "f32[6,3]{1,0}", "f32[4,5,3]{2,0,1}",
                           "lhs_contracting_dims={2}, rhs_contracting_dims={0}"),
                 "result lhs-free dimensions do not collapse");
  // Tiled layouts, mixed and unsupported types.
  ExpectRejected(DotModule("f32[8,128]{1,0:T(8,128)}", "f32[128,8]{1,0}", "f32[8,8]{1,0}",
                           "lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
                 "tiled layout");
  ExpectRejected(DotModule("f32[4,5]{1,0}", "f16[5,3]{1,0}", "f32[4,3]{1,0}",
                           "lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
                 "mixed operand types");
  ExpectRejected(DotModule("s8[4,5]{1,0}", "s8[5,3]{1,0}", "s64[4,3]{1,0}",
                           "lhs_contracting_dims={1}, rhs_contracting_dims={0}"),
                 "s8 operands into s64");
  // Not a dot.
  EXPECT_EQ(PlanStatus("HloModule m\n\nENTRY e {\n  a = f32[2] parameter(0)\n  ROOT b = "
                       "f32[2] add(a, a)\n}\n")
                .code(),
            absl::StatusCode::kInvalidArgument);
}

// RunDot's RowEpilogue: disjoint row ranges covering [0, m) once, each
// called when its rows are final (they equal the product computed without
// an epilogue), on 1, 2 and 3 threads; once with [0, m) for a transposed
// result.
TEST(EigenDotTest, RowEpilogueSeesEachFinishedRowOnce) {
  for (int threads : {1, 2, 3}) {
    runtime::ThreadPool pool(threads);
    for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{300, 200, 150},
                           {40, 500, 100}, {7, 5, 3}, {129, 129, 129}}) {
      SCOPED_TRACE(absl::StrCat(threads, " threads, ", m, "x", n, "x", k));
      DotShape shape;
      shape.m = m;
      shape.n = n;
      shape.k = k;
      std::vector<float> a(m * k), b(k * n), expected(m * n), out(m * n, -1.0f);
      for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>((i * 7) % 13) - 6.0f;
      for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>((i * 5) % 11) - 5.0f;
      ASSERT_TRUE(RunDot(shape, a.data(), b.data(), expected.data(), &pool).ok());
      std::vector<std::atomic<int>> seen(m);
      std::atomic<int> wrong{0};
      const RowEpilogue epilogue = [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          seen[r].fetch_add(1);
          for (int64_t c = 0; c < n; ++c) {
            if (out[r * n + c] != expected[r * n + c]) wrong.fetch_add(1);
          }
        }
      };
      ASSERT_TRUE(RunDot(shape, a.data(), b.data(), out.data(), &pool, nullptr, &epilogue).ok());
      EXPECT_EQ(wrong.load(), 0);
      for (int64_t r = 0; r < m; ++r) ASSERT_EQ(seen[r].load(), 1) << "row " << r;
    }
  }
  DotShape transposed;
  transposed.m = 64;
  transposed.n = 48;
  transposed.k = 32;
  transposed.out_transposed = true;
  std::vector<float> a(64 * 32, 1.0f), b(32 * 48, 1.0f), out(64 * 48);
  std::vector<std::pair<int64_t, int64_t>> calls;
  const RowEpilogue record = [&](int64_t begin, int64_t end) { calls.push_back({begin, end}); };
  runtime::ThreadPool pool(2);
  ASSERT_TRUE(RunDot(transposed, a.data(), b.data(), out.data(), &pool, nullptr, &record).ok());
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0], std::make_pair(int64_t{0}, int64_t{64}));
  EXPECT_EQ(out[5], 32.0f);
}

}  // namespace
}  // namespace cpu
}  // namespace tessera
