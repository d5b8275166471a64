// Literal: construction, element access, conversion, equality and the HLO
// text form of a value.  Conversions follow XLA's `convert` op; every
// narrowing to f16/bf16 is rounded once, correctly (through a round-to-odd
// float), so f64 and 64-bit integer sources never double-round.  Printing
// follows XLA's one-line constant form so the HLO printer can reuse it and
// the parser reads back exactly the same bits.
#include "hlo/ir/literal.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <type_traits>

#include "absl/base/internal/raw_logging.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace tessera {
namespace {

template <typename T>
constexpr bool kIsComplex = std::is_same_v<T, complex64> || std::is_same_v<T, complex128>;
template <typename T>
constexpr bool kIsSmallFloat =
    std::is_same_v<T, half> || std::is_same_v<T, bfloat16> || kIsFloat8<T>;

// `x` as a float rounded to odd: truncated toward zero, with the lowest
// mantissa bit set when that lost anything.  Rounding this float to
// nearest-even into a type with at least two fewer significand bits (f16,
// bf16) gives the correctly rounded value of `x` itself.
float RoundToOddFloat(float x) { return x; }

float RoundToOddFloat(double x) {
  float f = static_cast<float>(x);
  if (std::isnan(x) || static_cast<double>(f) == x) return f;
  if (std::fabs(static_cast<double>(f)) > std::fabs(x)) f = std::nextafter(f, 0.0f);
  return std::bit_cast<float>(std::bit_cast<uint32_t>(f) | 1u);
}

template <typename Int>
float RoundToOddFloat(Int x) {
  static_assert(std::is_integral_v<Int>);
  const bool negative = x < 0;
  const uint64_t magnitude =
      negative ? uint64_t{0} - static_cast<uint64_t>(x) : static_cast<uint64_t>(x);
  const int width = std::bit_width(magnitude);
  float result;
  if (width <= 24) {
    result = static_cast<float>(magnitude);
  } else {
    const int shift = width - 24;
    uint64_t kept = magnitude >> shift;
    if ((magnitude & ((uint64_t{1} << shift) - 1)) != 0) kept |= 1;
    result = std::ldexp(static_cast<float>(kept), shift);
  }
  return negative ? -result : result;
}

// One element converted as XLA's `convert` does: float->int truncates and
// saturates (NaN -> 0), int->int wraps, anything->pred is `!= 0`,
// complex->real keeps the real part, real->complex has imaginary part 0.
template <typename Dst, typename Src>
Dst ConvertElement(Src src) {
  if constexpr (std::is_same_v<Dst, Src>) {
    return src;
  } else if constexpr (kIsComplex<Src>) {
    if constexpr (kIsComplex<Dst>) {
      using Part = typename Dst::value_type;
      return Dst(static_cast<Part>(src.real()), static_cast<Part>(src.imag()));
    } else if constexpr (std::is_same_v<Dst, bool>) {
      return src.real() != 0 || src.imag() != 0;
    } else {
      return ConvertElement<Dst>(src.real());
    }
  } else if constexpr (kIsComplex<Dst>) {
    using Part = typename Dst::value_type;
    return Dst(ConvertElement<Part>(src), Part(0));
  } else if constexpr (std::is_same_v<Src, bool>) {
    return ConvertElement<Dst>(static_cast<uint8_t>(src ? 1 : 0));
  } else if constexpr (kIsSmallFloat<Src>) {
    return ConvertElement<Dst>(static_cast<float>(src));  // exact
  } else if constexpr (std::is_same_v<Dst, bool>) {
    return src != Src(0);
  } else if constexpr (kIsSmallFloat<Dst>) {
    return Dst::FromBits(Dst::FromFloat(RoundToOddFloat(src)));
  } else if constexpr (std::is_floating_point_v<Src> && std::is_integral_v<Dst>) {
    if (std::isnan(src)) return Dst{0};
    if (src >= static_cast<Src>(std::numeric_limits<Dst>::max())) {
      return std::numeric_limits<Dst>::max();
    }
    if (src <= static_cast<Src>(std::numeric_limits<Dst>::lowest())) {
      return std::numeric_limits<Dst>::lowest();
    }
    return static_cast<Dst>(src);
  } else {
    return static_cast<Dst>(src);  // int->int wraps; int->float, float->float round
  }
}

// Converts every element of `in` (of type `from`) into `out` (of type `to`).
void ConvertElements(PrimitiveType from, const void* in, PrimitiveType to, void* out,
                     int64_t count) {
  DispatchElementType(from, [&]<typename Src>() {
    if constexpr (!std::is_void_v<Src>) {
      DispatchElementType(to, [&]<typename Dst>() {
        if constexpr (!std::is_void_v<Dst>) {
          const Src* src = static_cast<const Src*>(in);
          Dst* dst = static_cast<Dst*>(out);
          for (int64_t i = 0; i < count; ++i) dst[i] = ConvertElement<Dst>(src[i]);
        }
      });
    }
  });
}

// ---------------------------------------------------------------------------
// Printing.

// XLA's NaN spelling: "nan" or "-nan", then "(0x<mantissa>)" unless the
// mantissa is exactly the quiet bit (the default NaN).
std::string NanToString(bool negative, uint64_t mantissa, int mantissa_bits) {
  std::string out = negative ? "-nan" : "nan";
  if (mantissa != (uint64_t{1} << (mantissa_bits - 1))) {
    absl::StrAppendFormat(&out, "(0x%x)", mantissa);
  }
  return out;
}

template <typename T>
std::string ShortestToChars(T value) {
  char buffer[64];
  const std::to_chars_result result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, result.ptr);
}

template <typename T>
std::string NativeFloatToString(T value) {
  using Bits = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  constexpr int kMantissaBits = std::numeric_limits<T>::digits - 1;
  if (std::isnan(value)) {
    const Bits bits = std::bit_cast<Bits>(value);
    return NanToString(std::signbit(value), bits & ((Bits{1} << kMantissaBits) - 1), kMantissaBits);
  }
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  return ShortestToChars(value);
}

// The shortest decimal that reads back (as a double, rounded once to T) to
// the same 8- or 16-bit float.  For each precision the two decimals of that many
// digits around the value are the only candidates; the nearer one that
// round-trips wins.  The result is printed as its double's shortest form,
// which has exactly those digits.
template <typename T>
std::string SmallFloatToString(T value) {
  const auto bits = value.bits;
  const double x = static_cast<float>(value);
  if constexpr (kIsFloat8<T>) {
    // XLA prints a float8 NaN as plain nan (its payload is not a float's).
    if (std::isnan(x)) return std::signbit(x) ? "-nan" : "nan";
    if (std::isinf(x)) return x < 0 ? "-inf" : "inf";
  } else {
    constexpr int kMantissaBits = std::is_same_v<T, half> ? 10 : 7;
    constexpr int kExponentBits = 15 - kMantissaBits;
    const bool negative = (bits & 0x8000) != 0;
    const uint32_t exponent = (bits >> kMantissaBits) & ((1u << kExponentBits) - 1);
    const uint32_t mantissa = bits & ((1u << kMantissaBits) - 1);
    if (exponent == (1u << kExponentBits) - 1) {
      if (mantissa == 0) return negative ? "-inf" : "inf";
      return NanToString(negative, mantissa, kMantissaBits);
    }
  }
  const bool negative = std::signbit(x);
  if (x == 0) return negative ? "-0" : "0";
  for (int digits = 1; digits <= 17; ++digits) {
    char buffer[64];
    const std::to_chars_result result = std::to_chars(buffer, buffer + sizeof(buffer), std::fabs(x),
                                                      std::chars_format::scientific, digits - 1);
    const std::string_view text(buffer, result.ptr - buffer);
    const size_t e = text.find('e');
    std::string significand;
    for (char c : text.substr(0, e)) {
      if (c != '.') significand.push_back(c);
    }
    const int64_t nearest = std::strtoll(significand.c_str(), nullptr, 10);
    const int64_t exponent10 =
        std::strtoll(std::string(text.substr(e + 1)).c_str(), nullptr, 10) - (digits - 1);
    bool found = false;
    double best = 0;
    for (int64_t candidate : {nearest, nearest - 1, nearest + 1}) {
      if (candidate <= 0) continue;
      const std::string decimal = absl::StrCat(negative ? "-" : "", candidate, "e", exponent10);
      const double parsed = std::strtod(decimal.c_str(), nullptr);
      if (ConvertElement<T>(parsed).bits != bits) continue;
      if (!found || std::fabs(parsed - x) < std::fabs(best - x)) best = parsed;
      found = true;
    }
    if (found) return ShortestToChars(best);
  }
  return ShortestToChars(x);  // unreachable: 17 digits always round-trip
}

// One element as text.  PRED prints as 1/0 inside arrays (XLA's dense form)
// and true/false as a scalar.
std::string ElementToString(const Literal& literal, int64_t linear, bool in_array) {
  return DispatchElementType(literal.shape().element_type(), [&]<typename T>() -> std::string {
    if constexpr (std::is_void_v<T>) {
      return "";
    } else {
      const T value = literal.data<T>()[linear];
      if constexpr (std::is_same_v<T, bool>) {
        if (in_array) return value ? "1" : "0";
        return value ? "true" : "false";
      } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
        return absl::StrCat(static_cast<int64_t>(value));
      } else if constexpr (std::is_integral_v<T>) {
        return absl::StrCat(static_cast<uint64_t>(value));
      } else if constexpr (kIsSmallFloat<T>) {
        return SmallFloatToString(value);
      } else if constexpr (kIsComplex<T>) {
        return absl::StrCat("(", NativeFloatToString(value.real()), ", ",
                            NativeFloatToString(value.imag()), ")");
      } else {
        return NativeFloatToString(value);
      }
    }
  });
}

// XLA's one-line array layout: rank 1 "{1, 2}"; in higher ranks the
// innermost braces are "{ 1, 2 }" ("{1}" and "{}" when they hold at most
// one element), outer braces are "{ ... }", and at rank > 3 each non-outer,
// non-innermost brace carries the index comment "/*i<dim>=<index>*/".
void AppendArray(const Literal& literal, int64_t dim, std::vector<int64_t>* index, int64_t* linear,
                 std::string* out) {
  const std::vector<int64_t>& dims = literal.shape().dimensions();
  const int64_t rank = static_cast<int64_t>(dims.size());
  if (dim == rank) {
    absl::StrAppend(out, ElementToString(literal, (*linear)++, rank > 0));
    return;
  }
  const int64_t size = dims[dim];
  const bool innermost = dim == rank - 1;
  if (rank == 1) {
    absl::StrAppend(out, "{");
  } else if (innermost) {
    absl::StrAppend(out, size <= 1 ? "{" : "{ ");
  } else if (rank > 3 && dim > 0) {
    absl::StrAppend(out, "{ /*i", dim - 1, "=", index->back(), "*/", size > 0 ? " " : "");
  } else {
    absl::StrAppend(out, "{ ");
  }
  for (int64_t i = 0; i < size; ++i) {
    index->push_back(i);
    AppendArray(literal, dim + 1, index, linear, out);
    index->pop_back();
    if (i + 1 < size) absl::StrAppend(out, ", ");
  }
  if (rank == 1) {
    absl::StrAppend(out, "}");
  } else if (innermost) {
    absl::StrAppend(out, size <= 1 ? "}" : " }");
  } else {
    absl::StrAppend(out, " }");
  }
}

void AppendValue(const Literal& literal, std::string* out) {
  if (literal.shape().IsTuple()) {
    absl::StrAppend(out, "( ");
    for (int64_t i = 0; i < literal.tuple_size(); ++i) {
      if (i > 0) absl::StrAppend(out, ", ");
      AppendValue(literal.tuple_element(i), out);
    }
    absl::StrAppend(out, " )");
  } else if (literal.shape().IsToken()) {
    absl::StrAppend(out, "token");
  } else if (literal.shape().IsArray()) {
    std::vector<int64_t> index;
    int64_t linear = 0;
    AppendArray(literal, 0, &index, &linear, out);
  } else {
    absl::StrAppend(out, "opaque");
  }
}

// Address of array element `linear`; checked against the element count.
const char* ElementAddress(const Literal& literal, int64_t linear) {
  ABSL_RAW_CHECK(literal.shape().IsArray() && linear >= 0 && linear < literal.element_count(),
                 "element access out of bounds or on a literal that is not an array");
  return static_cast<const char*>(literal.untyped_data()) +
         linear * ByteWidth(literal.shape().element_type());
}

// Why `shape` cannot hold data, or "" when it can.
std::string ShapeDataProblem(const Shape& shape) {
  if (shape.IsTuple()) {
    for (const Shape& element : shape.tuple_shapes()) {
      std::string problem = ShapeDataProblem(element);
      if (!problem.empty()) return problem;
    }
    return "";
  }
  if (!shape.IsArray()) {
    if (shape.IsToken() || shape.IsOpaque()) return "";
    return absl::StrCat("invalid element type ", static_cast<int>(shape.element_type()));
  }
  int64_t bytes = ByteWidth(shape.element_type());
  for (int64_t d : shape.dimensions()) {
    if (d == Shape::kUnboundedSize) return "an unbounded dimension has no data size";
    if (d < 0) return absl::StrCat("negative dimension ", d);
    if (d != 0 && bytes > std::numeric_limits<int64_t>::max() / d) {
      return "byte size overflows int64";
    }
    bytes *= d;
  }
  return "";
}

}  // namespace

Literal::Literal() : shape_(Shape::MakeTuple({})) {}

Literal::Literal(const Shape& shape) : shape_(shape) {
  const std::string problem = ShapeDataProblem(shape);
  ABSL_RAW_CHECK(problem.empty(), problem.c_str());
  shape_.SetDefaultLayoutRecursively();
  if (shape_.IsTuple()) {
    tuple_elements_.reserve(shape_.tuple_size());
    for (const Shape& element : shape_.tuple_shapes()) tuple_elements_.emplace_back(element);
  } else if (shape_.IsArray()) {
    bytes_.assign(static_cast<size_t>(shape_.ByteSize()), 0);
  }
}

absl::StatusOr<Literal> Literal::CreateFromShape(const Shape& shape) {
  const std::string problem = ShapeDataProblem(shape);
  if (!problem.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot make a literal of shape ", shape.ToString(), ": ", problem));
  }
  return Literal(shape);
}

Literal Literal::MakeTuple(std::vector<Literal> elements) {
  std::vector<Shape> shapes;
  shapes.reserve(elements.size());
  for (const Literal& element : elements) shapes.push_back(element.shape());
  Literal tuple;
  tuple.shape_ = Shape::MakeTuple(std::move(shapes));
  tuple.tuple_elements_ = std::move(elements);
  return tuple;
}

Literal Literal::CreateToken() { return Literal(Shape::MakeToken()); }

void Literal::set_layout(const Layout& layout) {
  ABSL_RAW_CHECK(shape_.IsArray(), "set_layout on a literal that is not an array");
  shape_.set_layout(layout);
}

int64_t Literal::element_count() const { return shape_.IsArray() ? shape_.ElementCount() : 0; }

int64_t Literal::LinearIndex(absl::Span<const int64_t> index) const {
  ABSL_RAW_CHECK(shape_.IsArray() && static_cast<int64_t>(index.size()) == shape_.rank(),
                 "index rank does not match the literal's rank");
  int64_t linear = 0;
  for (int64_t i = 0; i < shape_.rank(); ++i) {
    ABSL_RAW_CHECK(index[i] >= 0 && index[i] < shape_.dimensions(i), "index out of bounds");
    linear = linear * shape_.dimensions(i) + index[i];
  }
  return linear;
}

void Literal::CheckType(PrimitiveType type) const {
  ABSL_RAW_CHECK(shape_.IsArray() && shape_.element_type() == type,
                 "typed access with a type other than the literal's element type");
}

double Literal::GetAsDouble(int64_t linear) const {
  double result = 0;
  ConvertElements(shape_.element_type(), ElementAddress(*this, linear), F64, &result, 1);
  return result;
}

int64_t Literal::GetAsInt64(int64_t linear) const {
  int64_t result = 0;
  ConvertElements(shape_.element_type(), ElementAddress(*this, linear), S64, &result, 1);
  return result;
}

complex128 Literal::GetAsComplex(int64_t linear) const {
  complex128 result;
  ConvertElements(shape_.element_type(), ElementAddress(*this, linear), C128, &result, 1);
  return result;
}

void Literal::SetFromDouble(int64_t linear, double value) {
  ConvertElements(F64, &value, shape_.element_type(),
                  const_cast<char*>(ElementAddress(*this, linear)), 1);
}

void Literal::SetFromInt64(int64_t linear, int64_t value) {
  ConvertElements(S64, &value, shape_.element_type(),
                  const_cast<char*>(ElementAddress(*this, linear)), 1);
}

void Literal::SetFromComplex(int64_t linear, complex128 value) {
  ConvertElements(C128, &value, shape_.element_type(),
                  const_cast<char*>(ElementAddress(*this, linear)), 1);
}

std::vector<Literal> Literal::DecomposeTuple() {
  std::vector<Literal> elements = std::move(tuple_elements_);
  tuple_elements_.clear();
  shape_ = Shape::MakeTuple({});
  bytes_.clear();
  return elements;
}

std::vector<const Literal*> Literal::Leaves() const {
  if (!shape_.IsTuple()) return {this};
  std::vector<const Literal*> leaves;
  for (const Literal& element : tuple_elements_) {
    std::vector<const Literal*> inner = element.Leaves();
    leaves.insert(leaves.end(), inner.begin(), inner.end());
  }
  return leaves;
}

absl::StatusOr<Literal> Literal::Convert(PrimitiveType type) const {
  if (!shape_.IsArray()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot convert a literal of shape ", shape_.ToString(), " to ",
                     PrimitiveTypeName(type), ": only arrays convert"));
  }
  if (!IsArrayType(type)) {
    return absl::InvalidArgumentError(absl::StrCat("cannot convert ", shape_.ToString(), " to ",
                                                   PrimitiveTypeName(type),
                                                   ": not an array element type"));
  }
  Shape shape = shape_;
  shape.set_element_type(type);
  Literal result(shape);
  ConvertElements(shape_.element_type(), untyped_data(), type, result.untyped_data(),
                  element_count());
  return result;
}

bool Literal::operator==(const Literal& other) const {
  if (!ShapesCompatible(shape_, other.shape_)) return false;
  if (shape_.IsTuple()) return tuple_elements_ == other.tuple_elements_;
  return bytes_ == other.bytes_;
}

std::string Literal::ToStringWithoutShape() const {
  std::string out;
  AppendValue(*this, &out);
  return out;
}

std::string Literal::ToString() const {
  return absl::StrCat(shape_.ToString(/*print_layout=*/true), " ", ToStringWithoutShape());
}

}  // namespace tessera
