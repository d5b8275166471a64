// The elemental IR emitter against the reference evaluator: every
// elementwise opcode on every element type, as a one-op module compiled to
// a kernel and run on edge values (every pair of them for binary ops) and
// random values.  Where the evaluator rejects an op/type pair the compiler
// must reject it too; otherwise the results must be identical bit for bit
// (the transcendental functions call the same C library as the evaluator,
// so they are exact too).
#include <algorithm>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "backends/llvm_ir/kernel_test_util.h"
#include "gtest/gtest.h"

namespace tessera {
namespace llvm_ir {
namespace {

using test::BinaryInputs;
using test::MatchesEvaluator;
using test::ModuleWithRoot;
using test::UnaryInputs;

constexpr int64_t kRandomCount = 512;

// Two of the float8 formats (one with infinities, one finite); the others
// are converted to and from the wider types in Float8ConvertTest.
const std::vector<PrimitiveType> kAllTypes = {PRED, S8,   S16, S32, S64, U8,   U16,    U32,     U64,
                                              F16,  BF16, F32, F64, C64, C128, F8E5M2, F8E4M3FN};
const std::vector<PrimitiveType> kFloat8Types = {F8E5M2,     F8E4M3,     F8E3M4,       F8E4M3FN,
                                                 F8E4M3FNUZ, F8E5M2FNUZ, F8E4M3B11FNUZ};

std::string TypeName(PrimitiveType type) { return std::string(PrimitiveTypeName(type)); }

// A gtest-friendly name: letters, digits and underscores.
std::string TestName(absl::string_view text) {
  return absl::StrReplaceAll(text, {{"-", "_"}, {" ", "_"}, {"=", "_"}, {",", "_"}});
}

// The result element type XLA gives `op` on `type` (the operand type when
// the op does not apply to it: then both sides must reject the module).
PrimitiveType UnaryResultType(absl::string_view op, PrimitiveType type) {
  if (op == "is-finite") return PRED;
  if (IsComplexType(type) && (op == "abs" || op == "real" || op == "imag")) {
    return ComplexComponentType(type);
  }
  return type;
}

std::string ArrayShape(PrimitiveType type, int64_t n) {
  return absl::StrCat(PrimitiveTypeName(type), "[", n, "]");
}

// Complex formulas combine two NaNs in one multiply or add (e.g. expm1 of
// (NaN, inf): expm1(NaN) * cos(inf)), and x86 returns the first operand's
// NaN: which one that is depends on the order LLVM gives commutative
// operands, so complex results compare NaN payloads loosely.
test::Tolerance ComplexTolerance(PrimitiveType type) {
  test::Tolerance tolerance;
  tolerance.nan_payload_free = IsComplexType(type);
  return tolerance;
}

// The same for real arithmetic where HLO leaves the NaN open: an add or
// multiply of two NaNs may return either (x86 gives the first operand's,
// and compilers commute), and floor/ceil may return the input or the
// default NaN.  A NaN must still come out where the evaluator's does.
// Ops whose NaN is defined (negate and abs flip or clear the sign, select
// and max/min pick one, converts) stay bit-exact.
test::Tolerance ArithmeticTolerance(absl::string_view op, PrimitiveType type) {
  test::Tolerance tolerance = ComplexTolerance(type);
  if (op == "add" || op == "subtract" || op == "multiply" || op == "divide" ||
      op == "ceil" || op == "floor") {
    tolerance.nan_payload_free = true;
  }
  return tolerance;
}

// ---------------------------------------------------------------------------
// Unary ops.

const std::vector<std::string> kUnaryOps = {
    "abs", "negate", "sign", "not", "popcnt", "count-leading-zeros", "ceil", "floor",
    "round-nearest-afz", "round-nearest-even", "cosine", "sine", "tan", "tanh",
    "exponential", "exponential-minus-one", "log", "log-plus-one", "logistic", "sqrt", "rsqrt",
    "cbrt", "erf", "acos", "asin", "atan", "acosh", "asinh", "atanh", "cosh", "sinh",
    "is-finite", "real", "imag"};

class UnaryOpTest : public ::testing::TestWithParam<std::tuple<std::string, PrimitiveType>> {};

TEST_P(UnaryOpTest, MatchesEvaluator) {
  const auto& [op, type] = GetParam();
  std::vector<Literal> args;
  args.push_back(UnaryInputs(type, kRandomCount, /*seed=*/1));
  const int64_t n = args[0].element_count();
  const std::string root =
      absl::StrCat(ArrayShape(UnaryResultType(op, type), n), " ", op, "(p0)");
  EXPECT_TRUE(MatchesEvaluator(ModuleWithRoot(root, args), args, ArithmeticTolerance(op, type)));
}

INSTANTIATE_TEST_SUITE_P(
    AllTypes, UnaryOpTest, ::testing::Combine(::testing::ValuesIn(kUnaryOps), ::testing::ValuesIn(kAllTypes)),
    [](const auto& info) {
      return TestName(absl::StrCat(std::get<0>(info.param), "_", TypeName(std::get<1>(info.param))));
    });

// ---------------------------------------------------------------------------
// Binary ops.

const std::vector<std::string> kBinaryOps = {
    "add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum", "power",
    "and", "or", "xor", "shift-left", "shift-right-arithmetic", "shift-right-logical",
    "mulhi", "atan2", "complex"};

class BinaryOpTest : public ::testing::TestWithParam<std::tuple<std::string, PrimitiveType>> {};

TEST_P(BinaryOpTest, MatchesEvaluator) {
  const auto& [op, type] = GetParam();
  auto [lhs, rhs] = BinaryInputs(type, kRandomCount, /*seed=*/2);
  std::vector<Literal> args;
  args.push_back(std::move(lhs));
  args.push_back(std::move(rhs));
  const int64_t n = args[0].element_count();
  PrimitiveType result = type;
  if (op == "complex") result = type == F32 ? C64 : type == F64 ? C128 : type;
  const std::string root = absl::StrCat(ArrayShape(result, n), " ", op, "(p0, p1)");
  EXPECT_TRUE(MatchesEvaluator(ModuleWithRoot(root, args), args, ArithmeticTolerance(op, type)));
}

INSTANTIATE_TEST_SUITE_P(
    AllTypes, BinaryOpTest, ::testing::Combine(::testing::ValuesIn(kBinaryOps), ::testing::ValuesIn(kAllTypes)),
    [](const auto& info) {
      return TestName(absl::StrCat(std::get<0>(info.param), "_", TypeName(std::get<1>(info.param))));
    });

// ---------------------------------------------------------------------------
// Compare: every direction, with the default comparison type and the ones
// that apply to the element type (TOTALORDER for floats, SIGNED/UNSIGNED
// reinterpretations for integers).

class CompareTest : public ::testing::TestWithParam<PrimitiveType> {};

TEST_P(CompareTest, MatchesEvaluator) {
  const PrimitiveType type = GetParam();
  auto [lhs, rhs] = BinaryInputs(type, kRandomCount, /*seed=*/3);
  std::vector<Literal> args;
  args.push_back(std::move(lhs));
  args.push_back(std::move(rhs));
  const int64_t n = args[0].element_count();
  std::vector<std::string> comparison_types = {""};
  if (IsFloatingPointType(type)) comparison_types.push_back(", type=TOTALORDER");
  if (IsIntegralType(type)) {
    comparison_types.push_back(", type=SIGNED");
    comparison_types.push_back(", type=UNSIGNED");
  }
  for (const char* direction : {"EQ", "NE", "GE", "GT", "LE", "LT"}) {
    for (const std::string& comparison : comparison_types) {
      const std::string root = absl::StrCat(ArrayShape(PRED, n), " compare(p0, p1), direction=",
                                            direction, comparison);
      EXPECT_TRUE(MatchesEvaluator(ModuleWithRoot(root, args), args)) << root;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllTypes, CompareTest, ::testing::ValuesIn(kAllTypes),
                         [](const auto& info) { return TypeName(info.param); });

// ---------------------------------------------------------------------------
// Select and clamp, with array and scalar predicates and bounds.

class SelectClampTest : public ::testing::TestWithParam<PrimitiveType> {};

TEST_P(SelectClampTest, Select) {
  const PrimitiveType type = GetParam();
  auto [on_true, on_false] = BinaryInputs(type, kRandomCount, /*seed=*/4);
  const int64_t n = on_true.element_count();
  Literal predicate = test::RandomValues(PRED, n, /*seed=*/5);
  std::vector<Literal> args;
  args.push_back(std::move(predicate));
  args.push_back(std::move(on_true));
  args.push_back(std::move(on_false));
  const std::string root = absl::StrCat(ArrayShape(type, n), " select(p0, p1, p2)");
  EXPECT_TRUE(MatchesEvaluator(ModuleWithRoot(root, args), args));
  for (bool value : {false, true}) {
    args[0] = Literal::CreateR0<bool>(value);
    EXPECT_TRUE(MatchesEvaluator(ModuleWithRoot(root, args), args)) << "scalar " << value;
  }
}

TEST_P(SelectClampTest, Clamp) {
  const PrimitiveType type = GetParam();
  auto [low, x] = BinaryInputs(type, kRandomCount, /*seed=*/6);
  const int64_t n = x.element_count();
  Literal high = test::RandomValues(type, n, /*seed=*/7);
  // Every pair of edge values as (low, x), then as (x, high).
  std::vector<Literal> args;
  args.push_back(low);
  args.push_back(x);
  args.push_back(std::move(high));
  const std::string root = absl::StrCat(ArrayShape(type, n), " clamp(p0, p1, p2)");
  EXPECT_TRUE(MatchesEvaluator(ModuleWithRoot(root, args), args));
  std::swap(args[0], args[2]);
  args[1] = low;
  args[2] = std::move(x);
  EXPECT_TRUE(MatchesEvaluator(ModuleWithRoot(root, args), args));
  // Scalar bounds.
  const Literal edges = test::EdgeValues(type);
  for (int64_t i = 0; i + 1 < edges.element_count(); i += 3) {
    Literal lo(Shape::MakeArrayWithDescendingLayout(type, {}));
    Literal hi(Shape::MakeArrayWithDescendingLayout(type, {}));
    const int bytes = ByteWidth(type);
    std::memcpy(lo.untyped_data(), static_cast<const uint8_t*>(edges.untyped_data()) + i * bytes, bytes);
    std::memcpy(hi.untyped_data(),
                static_cast<const uint8_t*>(edges.untyped_data()) + (i + 1) * bytes, bytes);
    std::vector<Literal> scalar_args;
    scalar_args.push_back(std::move(lo));
    scalar_args.push_back(args[1]);
    scalar_args.push_back(std::move(hi));
    EXPECT_TRUE(MatchesEvaluator(ModuleWithRoot(root, scalar_args), scalar_args)) << i;
  }
}

INSTANTIATE_TEST_SUITE_P(AllTypes, SelectClampTest, ::testing::ValuesIn(kAllTypes),
                         [](const auto& info) { return TypeName(info.param); });

// ---------------------------------------------------------------------------
// Convert between every pair of element types; bitcast-convert between
// every pair of equal width.

class ConvertTest
    : public ::testing::TestWithParam<std::tuple<PrimitiveType, PrimitiveType>> {};

TEST_P(ConvertTest, MatchesEvaluator) {
  const auto& [from, to] = GetParam();
  std::vector<Literal> args;
  args.push_back(UnaryInputs(from, kRandomCount, /*seed=*/8));
  const int64_t n = args[0].element_count();
  const std::string root = absl::StrCat(ArrayShape(to, n), " convert(p0)");
  EXPECT_TRUE(MatchesEvaluator(ModuleWithRoot(root, args), args));
}

INSTANTIATE_TEST_SUITE_P(
    AllPairs, ConvertTest, ::testing::Combine(::testing::ValuesIn(kAllTypes), ::testing::ValuesIn(kAllTypes)),
    [](const auto& info) {
      return absl::StrCat(TypeName(std::get<0>(info.param)), "_to_", TypeName(std::get<1>(info.param)));
    });

// Each float8 format to and from the wider floats, an integer and pred,
// and to each other (through f32, exactly once rounded), on every encoding
// and on random values of the wider types.
std::vector<std::tuple<PrimitiveType, PrimitiveType>> Float8Pairs() {
  std::vector<std::tuple<PrimitiveType, PrimitiveType>> pairs;
  for (PrimitiveType f8 : kFloat8Types) {
    for (PrimitiveType other : {PRED, S32, U8, F16, BF16, F32, F64, F8E4M3FNUZ, F8E3M4}) {
      for (auto pair : {std::make_tuple(f8, other), std::make_tuple(other, f8)}) {
        if (other != f8 && std::find(pairs.begin(), pairs.end(), pair) == pairs.end()) {
          pairs.push_back(pair);
        }
      }
    }
  }
  return pairs;
}

INSTANTIATE_TEST_SUITE_P(Float8, ConvertTest, ::testing::ValuesIn(Float8Pairs()),
                         [](const auto& info) {
                           return absl::StrCat(TypeName(std::get<0>(info.param)), "_to_",
                                               TypeName(std::get<1>(info.param)));
                         });

class BitcastConvertTest
    : public ::testing::TestWithParam<std::tuple<PrimitiveType, PrimitiveType>> {};

// The pairs of element types of equal width (a different width changes the
// shape, which these one-op modules do not exercise).
std::vector<std::tuple<PrimitiveType, PrimitiveType>> EqualWidthPairs() {
  std::vector<std::tuple<PrimitiveType, PrimitiveType>> pairs;
  for (PrimitiveType from : kAllTypes) {
    for (PrimitiveType to : kAllTypes) {
      if (BitWidth(from) == BitWidth(to)) pairs.emplace_back(from, to);
    }
  }
  return pairs;
}

TEST_P(BitcastConvertTest, MatchesEvaluator) {
  const auto& [from, to] = GetParam();
  std::vector<Literal> args;
  args.push_back(UnaryInputs(from, kRandomCount, /*seed=*/9));
  const int64_t n = args[0].element_count();
  const std::string root = absl::StrCat(ArrayShape(to, n), " bitcast-convert(p0)");
  EXPECT_TRUE(MatchesEvaluator(ModuleWithRoot(root, args), args));
}

INSTANTIATE_TEST_SUITE_P(
    EqualWidths, BitcastConvertTest, ::testing::ValuesIn(EqualWidthPairs()),
    [](const auto& info) {
      return absl::StrCat(TypeName(std::get<0>(info.param)), "_to_", TypeName(std::get<1>(info.param)));
    });

// Bitcast-converts between widths (up to 64 bits): a wide element split
// into a new minor dimension of narrow ones, and such a dimension joined
// back, byte for byte as the evaluator's copy (little-endian).
class WidthChangingBitcastConvertTest
    : public ::testing::TestWithParam<std::tuple<PrimitiveType, PrimitiveType>> {};

std::vector<std::tuple<PrimitiveType, PrimitiveType>> WidthChangingPairs() {
  std::vector<std::tuple<PrimitiveType, PrimitiveType>> pairs;
  for (PrimitiveType from : kAllTypes) {
    for (PrimitiveType to : kAllTypes) {
      if (BitWidth(from) != BitWidth(to) && BitWidth(from) <= 64 && BitWidth(to) <= 64) {
        pairs.emplace_back(from, to);
      }
    }
  }
  return pairs;
}

TEST_P(WidthChangingBitcastConvertTest, MatchesEvaluator) {
  const auto& [from, to] = GetParam();
  const Literal values = UnaryInputs(from, kRandomCount, /*seed=*/11);
  const int from_bits = BitWidth(from), to_bits = BitWidth(to);
  const int64_t parts = from_bits > to_bits ? from_bits / to_bits : to_bits / from_bits;
  const int64_t n = values.element_count() / parts;
  // Narrowing: [n * parts] wide elements into [n * parts, parts]; widening:
  // [n, parts] narrow elements into [n].
  const std::vector<int64_t> in_dims =
      from_bits > to_bits ? std::vector<int64_t>{n * parts} : std::vector<int64_t>{n, parts};
  Literal input(Shape::MakeArrayWithDescendingLayout(from, in_dims));
  std::memcpy(input.untyped_data(), values.untyped_data(), input.size_bytes());
  const std::string result_shape =
      from_bits > to_bits ? absl::StrCat(PrimitiveTypeName(to), "[", n * parts, ",", parts, "]")
                          : absl::StrCat(PrimitiveTypeName(to), "[", n, "]");
  std::vector<Literal> args;
  args.push_back(std::move(input));
  const std::string root = absl::StrCat(result_shape, " bitcast-convert(p0)");
  EXPECT_TRUE(MatchesEvaluator(ModuleWithRoot(root, args), args, ComplexTolerance(to)));
}

INSTANTIATE_TEST_SUITE_P(ChangingWidths, WidthChangingBitcastConvertTest,
                         ::testing::ValuesIn(WidthChangingPairs()), [](const auto& info) {
                           return absl::StrCat(TypeName(std::get<0>(info.param)), "_to_",
                                               TypeName(std::get<1>(info.param)));
                         });

// ---------------------------------------------------------------------------
// Reduce-precision to several (exponent, mantissa) formats, including the
// type's own and wider ones (no-ops) and zero mantissa bits (NaN -> inf).

class ReducePrecisionTest : public ::testing::TestWithParam<PrimitiveType> {};

TEST_P(ReducePrecisionTest, MatchesEvaluator) {
  const PrimitiveType type = GetParam();
  std::vector<Literal> args;
  args.push_back(UnaryInputs(type, kRandomCount, /*seed=*/10));
  const int64_t n = args[0].element_count();
  for (auto [exponent, mantissa] : std::vector<std::pair<int, int>>{
           {1, 0}, {2, 1}, {4, 3}, {5, 2}, {5, 10}, {8, 7}, {8, 23}, {11, 52}, {6, 0}, {3, 30}}) {
    const std::string root =
        absl::StrCat(ArrayShape(type, n), " reduce-precision(p0), exponent_bits=", exponent,
                     ", mantissa_bits=", mantissa);
    EXPECT_TRUE(MatchesEvaluator(ModuleWithRoot(root, args), args)) << root;
  }
}

INSTANTIATE_TEST_SUITE_P(FloatTypes, ReducePrecisionTest,
                         ::testing::Values(F16, BF16, F32, F64, F8E4M3FNUZ, F8E5M2),
                         [](const auto& info) { return TypeName(info.param); });

}  // namespace
}  // namespace llvm_ir
}  // namespace tessera
