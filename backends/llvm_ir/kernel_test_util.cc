#include "backends/llvm_ir/kernel_test_util.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "hlo/evaluator/hlo_evaluator.h"
#include "hlo/parser/hlo_parser.h"

namespace tessera {
namespace llvm_ir {
namespace test {

namespace {

// Values every float type is tested at (rounded to the type).
const std::vector<double>& FloatEdgeDoubles() {
  static const auto* values = new std::vector<double>{
      0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 3.0, 0.1, -0.1, 0.7, 20.0, -20.0,
      100.0, -100.0, 127.5, -128.5, 255.5, 32767.5, -32768.5, 65504.0, 65519.0, 65520.0,
      2147483520.0, 2147483648.0, -2147483648.0, -2147483904.0, 3e9, -3e9, 4294967296.0,
      9.2233720368547758e18, -9.2233720368547758e18, 1.8446744073709552e19, 1e20, -1e30, 1e38,
      3.4028234663852886e38, 3.5e38, -3.5e38, 1e300, -1e308,
      std::numeric_limits<double>::max(), 1e-5, 1e-8, 6e-8, 1e-39, 1e-40, -1e-40, 1.4e-45,
      1e-300, 1e-310, -1e-310, std::numeric_limits<double>::denorm_min(),
      std::numeric_limits<float>::min(), std::numeric_limits<float>::denorm_min(),
      std::numeric_limits<double>::min(), 3.141592653589793, 88.7, 89.5, 710.0, -745.5,
      1.0 + std::ldexp(1.0, -24), 1.0 + std::ldexp(1.0, -30), 1.0 + std::ldexp(1.0, -9) + std::ldexp(1.0, -40),
      -(1.0 + std::ldexp(1.0, -12) + std::ldexp(1.0, -50)),
      std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
      std::numeric_limits<double>::quiet_NaN(), -std::numeric_limits<double>::quiet_NaN()};
  return *values;
}

template <typename T>
std::vector<T> IntegerEdges() {
  using L = std::numeric_limits<T>;
  const int64_t width = 8 * sizeof(T);
  std::vector<int64_t> small = {0, 1, -1, 2, -2, 3, 7, 8, -8, 10, -10, width - 1, width,
                                width + 1, 2 * width, -width, 0x55, 0x7f, 0x80};
  std::vector<T> values;
  for (int64_t v : small) values.push_back(static_cast<T>(v));
  for (T v : {L::min(), L::max(), static_cast<T>(L::min() + 1), static_cast<T>(L::max() - 1),
              static_cast<T>(L::max() / 2), static_cast<T>(L::max() / 2 + 1),
              static_cast<T>(~T{0} / 3)}) {
    values.push_back(v);
  }
  return values;
}

template <typename T>
Literal FromVector(const std::vector<T>& values) {
  return Literal::CreateR1<T>(absl::Span<const T>(values.data(), values.size()));
}

// Extra bit patterns of the float types: signaling and payload NaNs,
// denormal edges, the largest finite values.
std::vector<uint64_t> FloatEdgeBits(PrimitiveType type) {
  switch (type) {
    case F16: return {0x0001, 0x8001, 0x03ff, 0x0400, 0x7bff, 0xfbff, 0x7e00, 0xfe00, 0x7e55,
                      0x3bff, 0x3c01, 0x5bff};
    case BF16: return {0x0001, 0x8001, 0x007f, 0x0080, 0x7f7f, 0xff7f, 0x7fc0, 0xffc0, 0x7fd5,
                       0x3f7f, 0x3f81, 0x4f00};
    case F32: return {0x00000001, 0x807fffff, 0x00800000, 0x7f7fffff, 0x7fc00000, 0xffc00000,
                      0x7fc12345, 0x7f800001, 0x3f800001, 0x477ff000, 0x477fefff, 0x33800000,
                      0x4effffff, 0x5effffff, 0x4f000000, 0xcf000000};
    case F64: return {0x0000000000000001ull, 0x800fffffffffffffull, 0x7fefffffffffffffull,
                      0x7ff8000000000000ull, 0xfff8000000000000ull, 0x7ff8000000012345ull,
                      0x7ff0000000000001ull, 0x3ff0000000000001ull, 0x3ff0000010000000ull,
                      0x3ff0000008000000ull, 0x47efffffe0000000ull, 0x36a0000000000000ull};
    default: return {};
  }
}

Literal FloatEdges(PrimitiveType type) {
  const std::vector<double>& doubles = FloatEdgeDoubles();
  const std::vector<uint64_t> bits = FloatEdgeBits(type);
  Literal out(Shape::MakeArrayWithDescendingLayout(type, {static_cast<int64_t>(
                                                             doubles.size() + bits.size())}));
  for (size_t i = 0; i < doubles.size(); ++i) out.SetFromDouble(i, doubles[i]);
  auto* data = static_cast<uint8_t*>(out.untyped_data());
  const int bytes = ByteWidth(type);
  for (size_t i = 0; i < bits.size(); ++i) {
    std::memcpy(data + (doubles.size() + i) * bytes, &bits[i], bytes);  // little-endian
  }
  return out;
}

// Every encoding of an F8* type.
Literal AllFloat8Encodings(PrimitiveType type) {
  Literal out(Shape::MakeArrayWithDescendingLayout(type, {256}));
  auto* data = static_cast<uint8_t*>(out.untyped_data());
  for (int b = 0; b < 256; ++b) data[b] = static_cast<uint8_t>(b);
  return out;
}

Literal ComplexEdges(PrimitiveType type) {
  const std::vector<double> parts = {0.0, -0.0, 1.0, -1.0, 0.5, 2.5, -1e30, 1e-40,
                                     std::numeric_limits<double>::infinity(),
                                     -std::numeric_limits<double>::infinity(),
                                     std::numeric_limits<double>::quiet_NaN()};
  const int64_t n = parts.size();
  Literal out(Shape::MakeArrayWithDescendingLayout(type, {n * n}));
  for (int64_t i = 0; i < n * n; ++i) {
    out.SetFromComplex(i, complex128(parts[i / n], parts[i % n]));
  }
  return out;
}

}  // namespace

Literal EdgeValues(PrimitiveType type) {
  switch (type) {
    case PRED: return Literal::CreateR1<bool>({false, true});
    case S8: return FromVector(IntegerEdges<int8_t>());
    case S16: return FromVector(IntegerEdges<int16_t>());
    case S32: return FromVector(IntegerEdges<int32_t>());
    case S64: return FromVector(IntegerEdges<int64_t>());
    case U8: return FromVector(IntegerEdges<uint8_t>());
    case U16: return FromVector(IntegerEdges<uint16_t>());
    case U32: return FromVector(IntegerEdges<uint32_t>());
    case U64: return FromVector(IntegerEdges<uint64_t>());
    case F16:
    case BF16:
    case F32:
    case F64: return FloatEdges(type);
    case C64:
    case C128: return ComplexEdges(type);
    default:
      return IsFloat8Type(type) ? AllFloat8Encodings(type) : Literal();
  }
}

Literal RandomValues(PrimitiveType type, int64_t count, uint64_t seed) {
  std::mt19937_64 rng(seed * 0x9e3779b97f4a7c15ull + type);
  Literal out(Shape::MakeArrayWithDescendingLayout(type, {count}));
  auto* data = static_cast<uint8_t*>(out.untyped_data());
  const int bytes = ByteWidth(type);
  std::uniform_real_distribution<double> small(-10.0, 10.0);
  for (int64_t i = 0; i < count; ++i) {
    if (type == PRED) {
      data[i] = rng() & 1;
    } else if (i % 2 == 0) {
      // Random bits (both halves of a complex number).
      for (int b = 0; b < bytes; b += 8) {
        const uint64_t bits = rng();
        std::memcpy(data + i * bytes + b, &bits, std::min(8, bytes - b));
      }
    } else if (IsComplexType(type)) {
      out.SetFromComplex(i, complex128(small(rng), small(rng)));
    } else if (IsFloatingPointType(type)) {
      out.SetFromDouble(i, small(rng));
    } else {
      out.SetFromInt64(i, static_cast<int64_t>(rng() % 21) - 10);
    }
  }
  return out;
}

Literal Concat(absl::Span<const Literal> parts) {
  int64_t count = 0;
  for (const Literal& part : parts) count += part.element_count();
  const PrimitiveType type = parts[0].shape().element_type();
  Literal out(Shape::MakeArrayWithDescendingLayout(type, {count}));
  auto* data = static_cast<uint8_t*>(out.untyped_data());
  for (const Literal& part : parts) {
    std::memcpy(data, part.untyped_data(), part.size_bytes());
    data += part.size_bytes();
  }
  return out;
}

Literal UnaryInputs(PrimitiveType type, int64_t random_count, uint64_t seed) {
  std::vector<Literal> parts;
  parts.push_back(EdgeValues(type));
  parts.push_back(RandomValues(type, random_count, seed));
  return Concat(parts);
}

std::pair<Literal, Literal> BinaryInputs(PrimitiveType type, int64_t random_count,
                                         uint64_t seed) {
  const Literal edges = EdgeValues(type);
  const int64_t n = edges.element_count();
  const int bytes = ByteWidth(type);
  Literal lhs(Shape::MakeArrayWithDescendingLayout(type, {n * n}));
  Literal rhs(Shape::MakeArrayWithDescendingLayout(type, {n * n}));
  const auto* e = static_cast<const uint8_t*>(edges.untyped_data());
  for (int64_t i = 0; i < n * n; ++i) {
    std::memcpy(static_cast<uint8_t*>(lhs.untyped_data()) + i * bytes, e + (i / n) * bytes, bytes);
    std::memcpy(static_cast<uint8_t*>(rhs.untyped_data()) + i * bytes, e + (i % n) * bytes, bytes);
  }
  std::vector<Literal> left, right;
  left.push_back(std::move(lhs));
  left.push_back(RandomValues(type, random_count, seed));
  right.push_back(std::move(rhs));
  right.push_back(RandomValues(type, random_count, seed + 1));
  return {Concat(left), Concat(right)};
}

ElementwiseKernelCompiler& SharedCompiler() {
  static ElementwiseKernelCompiler* compiler = [] {
    absl::StatusOr<std::unique_ptr<ElementwiseKernelCompiler>> created =
        ElementwiseKernelCompiler::Create();
    if (!created.ok()) {
      ADD_FAILURE() << created.status();
      std::abort();
    }
    return created->release();
  }();
  return *compiler;
}

namespace {

std::string ElementBits(const Literal& literal, int64_t i) {
  const int bytes = ByteWidth(literal.shape().element_type());
  const auto* data = static_cast<const uint8_t*>(literal.untyped_data()) + i * bytes;
  std::string hex = "0x";
  for (int b = bytes - 1; b >= 0; --b) absl::StrAppendFormat(&hex, "%02x", data[b]);
  return hex;
}

std::string ElementText(const Literal& literal, int64_t i) {
  const PrimitiveType type = literal.shape().element_type();
  std::string text = ElementBits(literal, i);
  if (IsComplexType(type)) {
    const complex128 z = literal.GetAsComplex(i);
    absl::StrAppendFormat(&text, " (%.17g, %.17g)", z.real(), z.imag());
  } else if (IsFloatingPointType(type)) {
    absl::StrAppendFormat(&text, " (%.17g)", literal.GetAsDouble(i));
  } else if (type != PRED) {
    absl::StrAppend(&text, " (", literal.GetAsInt64(i), ")");
  }
  return text;
}

// A signed integer that orders the floats of `bits` (of `width` bits)
// totally, so that neighbours differ by 1.
int64_t OrderedFloat(uint64_t bits, int width) {
  const uint64_t sign = uint64_t{1} << (width - 1);
  const int64_t magnitude = static_cast<int64_t>(bits & (sign - 1));
  return (bits & sign) ? -magnitude : magnitude;
}

bool IsNanBits(uint64_t bits, PrimitiveType type) {
  switch (type) {
    case F16: return (bits & 0x7fff) > 0x7c00;
    case BF16: return (bits & 0x7fff) > 0x7f80;
    case F32: return (bits & 0x7fffffff) > 0x7f800000;
    case F64: return (bits & 0x7fffffffffffffffull) > 0x7ff0000000000000ull;
    default:
      break;
  }
  if (std::optional<FloatFormat> format = FloatFormatOf(type); format && IsFloat8Type(type)) {
    switch (format->specials) {
      case FloatFormat::Specials::kFiniteUnsignedZero:
        return bits == 0x80;
      case FloatFormat::Specials::kFiniteNan:
        return (bits & 0x7f) == 0x7f;
      case FloatFormat::Specials::kIeee:
        return (bits & 0x7f) > (((1u << format->exponent_bits) - 1) << format->mantissa_bits);
    }
  }
  return false;
}

// Whether two floats of `type` (given as bits) match under `tolerance`.
bool FloatsMatch(uint64_t expected, uint64_t actual, PrimitiveType type,
                 const Tolerance& tolerance) {
  if (expected == actual) return true;
  const bool expected_nan = IsNanBits(expected, type);
  const bool actual_nan = IsNanBits(actual, type);
  if (expected_nan || actual_nan) return expected_nan && actual_nan && tolerance.nan_payload_free;
  const int width = BitWidth(type);
  const int64_t distance = OrderedFloat(expected, width) - OrderedFloat(actual, width);
  return (distance < 0 ? -distance : distance) <= tolerance.max_ulps;
}

uint64_t LoadBits(const uint8_t* data, int bytes) {
  uint64_t bits = 0;
  std::memcpy(&bits, data, bytes);
  return bits;
}

}  // namespace

::testing::AssertionResult ResultsMatch(const Literal& expected, const Literal& actual,
                                        absl::Span<const Literal> inputs,
                                        const Tolerance& tolerance) {
  if (!ShapesCompatible(expected.shape(), actual.shape())) {
    return ::testing::AssertionFailure() << "shape " << actual.shape().ToString()
                                         << ", expected " << expected.shape().ToString();
  }
  const PrimitiveType type = expected.shape().element_type();
  const bool is_complex = IsComplexType(type);
  const PrimitiveType part = is_complex ? ComplexComponentType(type) : type;
  const int part_bytes = ByteWidth(part);
  const int parts = is_complex ? 2 : 1;
  const auto* e = static_cast<const uint8_t*>(expected.untyped_data());
  const auto* a = static_cast<const uint8_t*>(actual.untyped_data());
  int64_t mismatches = 0;
  std::string report;
  for (int64_t i = 0; i < expected.element_count(); ++i) {
    bool match = true;
    for (int p = 0; p < parts; ++p) {
      const int64_t offset = (i * parts + p) * part_bytes;
      const uint64_t eb = LoadBits(e + offset, part_bytes);
      const uint64_t ab = LoadBits(a + offset, part_bytes);
      match &= IsFloatingPointType(part) ? FloatsMatch(eb, ab, part, tolerance) : eb == ab;
    }
    if (match) continue;
    if (++mismatches <= 8) {
      absl::StrAppend(&report, "\n  [", i, "] expected ", ElementText(expected, i), " got ",
                      ElementText(actual, i), " for inputs");
      for (const Literal& input : inputs) {
        const int64_t j = input.shape().rank() == 0 ? 0 : i;
        absl::StrAppend(&report, " ", ElementText(input, j));
      }
    }
  }
  if (mismatches == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << mismatches << " of " << expected.element_count()
                                       << " elements differ (" << PrimitiveTypeName(type)
                                       << "):" << report;
}

std::string ModuleWithRoot(absl::string_view root, absl::Span<const Literal> args) {
  std::string text = "HloModule m\n\nENTRY e {\n";
  for (size_t i = 0; i < args.size(); ++i) {
    const Shape& shape = args[i].shape();
    absl::StrAppend(&text, "  p", i, " = ", shape.ToString(/*print_layout=*/shape.rank() > 0),
                    " parameter(", i, ")\n");
  }
  absl::StrAppend(&text, "  ROOT r = ", root, "\n}\n");
  return text;
}

::testing::AssertionResult MatchesEvaluator(absl::string_view module_text,
                                            absl::Span<const Literal> args,
                                            const Tolerance& tolerance) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(module_text);
  if (!module.ok()) {
    return ::testing::AssertionFailure() << module.status() << "\n" << module_text;
  }
  const HloComputation& entry = *(*module)->entry_computation();
  absl::StatusOr<Literal> expected = EvaluateModule(**module, args);
  absl::StatusOr<std::unique_ptr<ElementwiseKernel>> kernel = SharedCompiler().Compile(entry);
  if (!expected.ok()) {
    if (kernel.ok()) {
      return ::testing::AssertionFailure()
             << "the evaluator rejects the module (" << expected.status()
             << ") but it compiled:\n" << module_text;
    }
    // Recorded in the XML report (--gtest_output=xml): the op/type pairs
    // that neither side supports.
    ::testing::Test::RecordProperty("both_reject", std::string(kernel.status().message()));
    return ::testing::AssertionSuccess() << "both reject: " << kernel.status();
  }
  if (!kernel.ok()) {
    return ::testing::AssertionFailure() << "compile failed: " << kernel.status() << "\n"
                                         << module_text;
  }
  absl::StatusOr<Literal> actual = (*kernel)->Run(args);
  if (!actual.ok()) return ::testing::AssertionFailure() << actual.status();
  ::testing::AssertionResult match = ResultsMatch(*expected, *actual, args, tolerance);
  if (!match) match << "\n" << module_text;
  return match;
}

}  // namespace test
}  // namespace llvm_ir
}  // namespace tessera
