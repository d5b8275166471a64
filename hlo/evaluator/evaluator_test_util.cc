#include "hlo/evaluator/evaluator_test_util.h"

#include <cmath>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "hlo/evaluator/hlo_evaluator.h"
#include "hlo/ir/status_macros.h"
#include "hlo/parser/hlo_parser.h"

namespace tessera {
namespace evaluator_test {

absl::StatusOr<Literal> ParseAndEvaluate(absl::string_view hlo_text,
                                         absl::Span<const Literal> args) {
  TS_ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, ParseHloModule(hlo_text));
  return EvaluateModule(*module, args);
}

namespace {

// A shape as HLO text writes it: with the layouts of arrays, except that a
// scalar's empty layout is left out (XLA prints `f32[]`, not `f32[]{}`).
std::string ParameterShapeText(const Shape& shape) {
  if (shape.IsTuple()) {
    std::string out = "(";
    for (int64_t i = 0; i < shape.tuple_size(); ++i) {
      absl::StrAppend(&out, i > 0 ? ", " : "", ParameterShapeText(shape.tuple_shapes(i)));
    }
    return absl::StrCat(out, ")");
  }
  return shape.ToString(/*print_layout=*/shape.IsArray() && shape.rank() > 0);
}

}  // namespace

absl::StatusOr<Literal> EvaluateRoot(absl::string_view root, std::vector<Literal> args,
                                     absl::string_view computations) {
  std::string text = absl::StrCat("HloModule test\n\n", computations, "\n\nENTRY main {\n");
  for (size_t i = 0; i < args.size(); ++i) {
    absl::StrAppend(&text, "  p", i, " = ", ParameterShapeText(args[i].shape()), " parameter(",
                    i, ")\n");
  }
  absl::StrAppend(&text, "  ROOT r = ", root, "\n}\n");
  absl::StatusOr<Literal> result = ParseAndEvaluate(text, args);
  if (!result.ok()) {
    return absl::Status(result.status().code(),
                        absl::StrCat(result.status().message(), "\nin module:\n", text));
  }
  return result;
}

Literal L(absl::string_view shape_text, absl::string_view value) {
  absl::StatusOr<Shape> shape = ParseShape(shape_text);
  if (!shape.ok()) {
    ADD_FAILURE() << "bad shape '" << shape_text << "': " << shape.status();
    return Literal();
  }
  absl::StatusOr<Literal> literal = ParseLiteral(value, *shape);
  if (!literal.ok()) {
    ADD_FAILURE() << "bad literal '" << value << "' of " << shape_text << ": "
                  << literal.status();
    return Literal();
  }
  return *std::move(literal);
}

namespace {

// Bit equality of two array elements, except that any NaN equals any NaN.
bool ElementsIdentical(const Literal& a, const Literal& b, int64_t i) {
  const PrimitiveType type = a.shape().element_type();
  if (IsFloatingPointType(type) && std::isnan(a.GetAsDouble(i)) && std::isnan(b.GetAsDouble(i))) {
    return true;
  }
  if (IsComplexType(type)) {
    const complex128 x = a.GetAsComplex(i), y = b.GetAsComplex(i);
    auto same = [](double p, double q) {
      return (std::isnan(p) && std::isnan(q)) ||
             (p == q && std::signbit(p) == std::signbit(q));
    };
    return same(x.real(), y.real()) && same(x.imag(), y.imag());
  }
  const int64_t width = ByteWidth(type);
  return std::memcmp(static_cast<const char*>(a.untyped_data()) + i * width,
                     static_cast<const char*>(b.untyped_data()) + i * width, width) == 0;
}

bool Identical(const Literal& a, const Literal& b) {
  if (!ShapesCompatible(a.shape(), b.shape())) return false;
  if (a.shape().IsTuple()) {
    for (int64_t i = 0; i < a.tuple_size(); ++i) {
      if (!Identical(a.tuple_element(i), b.tuple_element(i))) return false;
    }
    return true;
  }
  if (!a.shape().IsArray()) return true;
  for (int64_t i = 0; i < a.element_count(); ++i) {
    if (!ElementsIdentical(a, b, i)) return false;
  }
  return true;
}

}  // namespace

::testing::AssertionResult LiteralsEqual(const Literal& expected, const Literal& actual) {
  if (Identical(expected, actual)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "expected " << expected.ToString() << "\n     got "
                                       << actual.ToString();
}

namespace {

bool Near(double expected, double actual, double rel_tol, double abs_tol) {
  if (std::isnan(expected)) return std::isnan(actual);
  if (std::isinf(expected)) return expected == actual;
  return std::fabs(expected - actual) <= abs_tol + rel_tol * std::fabs(expected);
}

::testing::AssertionResult NearImpl(const Literal& expected, const Literal& actual,
                                    double rel_tol, double abs_tol, const std::string& where) {
  if (!ShapesCompatible(expected.shape(), actual.shape())) {
    return ::testing::AssertionFailure() << where << "shape " << actual.shape().ToString()
                                         << ", expected " << expected.shape().ToString();
  }
  if (expected.shape().IsTuple()) {
    for (int64_t i = 0; i < expected.tuple_size(); ++i) {
      ::testing::AssertionResult r =
          NearImpl(expected.tuple_element(i), actual.tuple_element(i), rel_tol, abs_tol,
                   absl::StrCat(where, "element {", i, "}: "));
      if (!r) return r;
    }
    return ::testing::AssertionSuccess();
  }
  if (!expected.shape().IsArray()) return ::testing::AssertionSuccess();
  const PrimitiveType type = expected.shape().element_type();
  for (int64_t i = 0; i < expected.element_count(); ++i) {
    bool ok;
    if (IsComplexType(type)) {
      const complex128 e = expected.GetAsComplex(i), a = actual.GetAsComplex(i);
      ok = Near(e.real(), a.real(), rel_tol, abs_tol) && Near(e.imag(), a.imag(), rel_tol, abs_tol);
    } else if (IsFloatingPointType(type)) {
      ok = Near(expected.GetAsDouble(i), actual.GetAsDouble(i), rel_tol, abs_tol);
    } else {
      ok = expected.GetAsInt64(i) == actual.GetAsInt64(i) ||
           (type == U64 && expected.GetAsDouble(i) == actual.GetAsDouble(i));
    }
    if (!ok) {
      return ::testing::AssertionFailure()
             << where << "element " << i << " differs\nexpected " << expected.ToString()
             << "\n     got " << actual.ToString();
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace

::testing::AssertionResult LiteralsNear(const Literal& expected, const Literal& actual,
                                        double rel_tol, double abs_tol) {
  return NearImpl(expected, actual, rel_tol, abs_tol, "");
}

::testing::AssertionResult EvaluatesTo(const absl::StatusOr<Literal>& result,
                                       const Literal& expected) {
  if (!result.ok()) return ::testing::AssertionFailure() << result.status();
  return LiteralsEqual(expected, *result);
}

::testing::AssertionResult EvaluatesNear(const absl::StatusOr<Literal>& result,
                                         const Literal& expected, double rel_tol,
                                         double abs_tol) {
  if (!result.ok()) return ::testing::AssertionFailure() << result.status();
  return LiteralsNear(expected, *result, rel_tol, abs_tol);
}

}  // namespace evaluator_test
}  // namespace tessera
