// Every elementwise and shape op the CPU backend compiles into kernels, on
// every element type the evaluator supports, at sizes 0, 1, 7, 1023 and
// 1025 and in a 2-D column-major layout, against the evaluator: bit for
// bit (NaNs equal NaNs) with the C library's transcendentals and the
// evaluator's reduction order.  One module per (type, shape): all ops of
// the type side by side (fusion makes kernels of several of them), on
// seeded random inputs with NaN, infinities and signed zeros planted.
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/common/hlo_executable.h"
#include "backends/cpu/cpu_compiler.h"
#include "backends/cpu/cpu_executable.h"
#include "gtest/gtest.h"
#include "hlo/evaluator/hlo_evaluator.h"
#include "hlo/ir/literal.h"
#include "hlo/ir/random_literal.h"
#include "hlo/parser/hlo_parser.h"

namespace tessera {
namespace cpu {
namespace {

enum class Kind { kFloat, kSigned, kUnsigned, kPred, kComplex };

Kind KindOf(PrimitiveType type) {
  if (type == PRED) return Kind::kPred;
  if (IsComplexType(type)) return Kind::kComplex;
  if (IsFloatingPointType(type)) return Kind::kFloat;
  return IsSignedIntegralType(type) ? Kind::kSigned : Kind::kUnsigned;
}

// The ops of one element type over parameters a and b of shape S (and a
// pred p): "name = S op(...)" lines without the shape, "%S" stands for it.
std::vector<std::string> OpsFor(PrimitiveType type) {
  const Kind kind = KindOf(type);
  std::vector<std::string> ops;
  auto binary = [&](const char* op) { ops.push_back(absl::StrCat("$T ", op, "(a, b)")); };
  auto unary = [&](const char* op) { ops.push_back(absl::StrCat("$T ", op, "(a)")); };
  if (kind != Kind::kPred) {
    for (const char* op : {"add", "subtract", "multiply"}) binary(op);
    unary("negate");
  }
  if (kind == Kind::kFloat || kind == Kind::kSigned || kind == Kind::kUnsigned) {
    for (const char* op : {"divide", "remainder", "maximum", "minimum"}) binary(op);
    if (kind != Kind::kUnsigned) {
      unary("abs");
      unary("sign");
    }
    ops.push_back("$T clamp(b, a, b)");
  }
  if (kind == Kind::kFloat) {
    for (const char* op : {"power", "atan2"}) binary(op);
    for (const char* op : {"exponential", "exponential-minus-one", "log", "log-plus-one", "sqrt",
                           "rsqrt", "cbrt", "tanh", "logistic", "sine", "cosine", "tan", "floor",
                           "ceil", "round-nearest-afz", "round-nearest-even", "erf"}) {
      unary(op);
    }
    ops.push_back("$P is-finite(a)");
    ops.push_back("s32[$D] convert(a)");
    ops.push_back("f64[$D] convert(a)");
  }
  if (kind == Kind::kSigned || kind == Kind::kUnsigned || kind == Kind::kPred) {
    for (const char* op : {"and", "or", "xor"}) binary(op);
    unary("not");
  }
  if (kind == Kind::kSigned || kind == Kind::kUnsigned) {
    for (const char* op : {"shift-left", "shift-right-logical", "shift-right-arithmetic"}) {
      binary(op);
    }
    unary("popcnt");
    unary("count-leading-zeros");
    ops.push_back("f32[$D] convert(a)");
    ops.push_back("u8[$D] convert(a)");
  }
  if (kind == Kind::kComplex) {
    binary("divide");
    for (const char* op : {"exponential", "log", "sqrt", "tanh"}) unary(op);
    ops.push_back("$R abs(a)");
    ops.push_back("$R real(a)");
    ops.push_back("$R imag(a)");
  }
  if (kind != Kind::kComplex) {
    for (const char* direction : {"EQ", "NE", "LT", "LE", "GT", "GE"}) {
      ops.push_back(absl::StrCat("$P compare(a, b), direction=", direction));
    }
  }
  ops.push_back("$T select(p, a, b)");
  // Shape ops.
  ops.push_back("$T copy(a)");
  ops.push_back("$T reverse(a), dimensions={0}");
  return ops;
}

std::string SweepModule(PrimitiveType type, const std::vector<int64_t>& dims,
                        const std::string& layout) {
  const std::string d = absl::StrJoin(dims, ",");
  const std::string t = absl::StrCat(PrimitiveTypeName(type), "[", d, "]", layout);
  const std::string p = absl::StrCat("pred[", d, "]", layout);
  const std::string r =
      absl::StrCat(type == C64 ? "f32" : "f64", "[", d, "]", layout);  // complex parts
  std::string body;
  std::vector<std::string> names, shapes;
  int i = 0;
  for (std::string op : OpsFor(type)) {
    std::string shape = op.substr(0, op.find(' '));
    std::string rest = op.substr(op.find(' '));
    if (shape == "$T") shape = t;
    else if (shape == "$P") shape = p;
    else if (shape == "$R") shape = r;
    else shape = absl::StrCat(shape.substr(0, shape.find('[')), "[", d, "]", layout);
    const std::string name = absl::StrCat("r", i++);
    absl::StrAppend(&body, "  ", name, " = ", shape, rest, "\n");
    names.push_back(name);
    shapes.push_back(shape);
  }
  return absl::StrCat("HloModule sweep\nENTRY main {\n  a = ", t, " parameter(0)\n  b = ", t,
                      " parameter(1)\n  p = ", p, " parameter(2)\n", body, "  ROOT t = (",
                      absl::StrJoin(shapes, ", "), ") tuple(", absl::StrJoin(names, ", "),
                      ")\n}\n");
}

// Plants NaN, infinities and signed zeros into float inputs.
void PlantSpecials(Literal* literal, std::mt19937_64& rng) {
  const PrimitiveType type = literal->shape().element_type();
  if (!IsFloatingPointType(type) || literal->element_count() == 0) return;
  const double specials[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0, 1e30, -1e-30};
  std::uniform_int_distribution<int64_t> where(0, literal->element_count() - 1);
  for (double value : specials) literal->SetFromDouble(where(rng), value);
}

// Bitwise equality of every leaf, except that NaNs equal NaNs.
bool SameLeaves(const Literal& a, const Literal& b, std::string* why) {
  std::vector<const Literal*> x = a.Leaves(), y = b.Leaves();
  if (x.size() != y.size()) return false;
  for (size_t leaf = 0; leaf < x.size(); ++leaf) {
    const Literal& u = *x[leaf];
    const Literal& v = *y[leaf];
    if (u.shape().element_type() != v.shape().element_type() ||
        u.shape().dimensions() != v.shape().dimensions() || u.size_bytes() != v.size_bytes()) {
      *why = absl::StrCat("leaf ", leaf, ": shapes differ");
      return false;
    }
    const PrimitiveType type = u.shape().element_type();
    const int64_t width = type == PRED ? 1 : ByteWidth(type);
    const bool real_float = IsFloatingPointType(type);
    for (int64_t i = 0; i < u.element_count(); ++i) {
      const char* pu = static_cast<const char*>(u.untyped_data()) + i * width;
      const char* pv = static_cast<const char*>(v.untyped_data()) + i * width;
      if (std::memcmp(pu, pv, width) == 0) continue;
      if (real_float && std::isnan(u.GetAsDouble(i)) && std::isnan(v.GetAsDouble(i))) continue;
      if (IsComplexType(type)) {
        // Each part compared alone, NaN parts equal.
        const int half = width / 2;
        bool same = true;
        for (int part = 0; part < 2 && same; ++part) {
          double pa, pb;
          if (half == 4) {
            float fa, fb;
            std::memcpy(&fa, pu + part * half, 4);
            std::memcpy(&fb, pv + part * half, 4);
            pa = fa;
            pb = fb;
          } else {
            std::memcpy(&pa, pu + part * half, 8);
            std::memcpy(&pb, pv + part * half, 8);
          }
          same = (std::isnan(pa) && std::isnan(pb)) ||
                 std::memcmp(pu + part * half, pv + part * half, half) == 0;
        }
        if (same) continue;
      }
      *why = absl::StrCat("leaf ", leaf, " element ", i, ": cpu ", u.ToString().substr(0, 200),
                          " vs evaluator ", v.ToString().substr(0, 200));
      return false;
    }
  }
  return true;
}

TEST(OpSweepTest, EveryOpEveryTypeMatchesTheEvaluator) {
  CpuCompileOptions exact;
  exact.polynomial_math = false;
  exact.reorder_float_reductions = false;
  exact.parallel_min_elements = 256;  // the larger shapes split over threads
  std::mt19937_64 rng(2024);
  const std::vector<std::pair<std::vector<int64_t>, std::string>> shapes = {
      {{0}, ""}, {{1}, ""}, {{7}, ""}, {{1023}, ""}, {{1025}, ""}, {{7, 33}, "{0,1}"}};
  int modules = 0;
  for (PrimitiveType type : {PRED, S8, S16, S32, S64, U8, U16, U32, U64, F16, BF16, F32, F64,
                             C64, C128}) {
    for (const auto& [dims, layout] : shapes) {
      const std::string text = SweepModule(type, dims, layout);
      SCOPED_TRACE(absl::StrCat(PrimitiveTypeName(type), "[", absl::StrJoin(dims, ","), "]",
                                layout));
      absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
      ASSERT_TRUE(module.ok()) << module.status() << "\n" << text;
      std::vector<Literal> arguments;
      for (const HloInstruction* p : (*module)->entry_computation()->parameter_instructions()) {
        absl::StatusOr<Literal> argument = MakeRandomLiteral(p->shape(), rng);
        ASSERT_TRUE(argument.ok()) << argument.status();
        PlantSpecials(&*argument, rng);
        arguments.push_back(*std::move(argument));
      }
      absl::StatusOr<Literal> expected = EvaluateModule(**module, arguments);
      ASSERT_TRUE(expected.ok()) << expected.status();
      absl::StatusOr<std::unique_ptr<HloModule>> compiled_module = ParseHloModule(text);
      ASSERT_TRUE(compiled_module.ok());
      absl::StatusOr<std::unique_ptr<CpuExecutable>> executable =
          CompileForCpu(*std::move(compiled_module), exact);
      ASSERT_TRUE(executable.ok()) << executable.status();
      EXPECT_EQ((*executable)->fallback_instruction_count(), 0)
          << absl::StrJoin((*executable)->stats().fallbacks, "\n");
      absl::StatusOr<Literal> actual = (*executable)->Run(arguments);
      ASSERT_TRUE(actual.ok()) << actual.status();
      std::string why;
      EXPECT_TRUE(SameLeaves(*actual, *expected, &why)) << why;
      ++modules;
    }
  }
  EXPECT_EQ(modules, 15 * 6);
}

}  // namespace
}  // namespace cpu
}  // namespace tessera
