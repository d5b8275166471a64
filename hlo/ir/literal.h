// Literal: an owning host-side value of any Shape.  Arrays keep their
// elements densely in row-major (major-to-minor) order whatever the shape's
// layout says: the layout is carried as metadata for the device, so two
// literals with equal dimensions and values compare equal.  Tuples own their
// element literals.
#ifndef TESSERA_HLO_IR_LITERAL_H_
#define TESSERA_HLO_IR_LITERAL_H_

#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "hlo/ir/float16.h"
#include "hlo/ir/float8.h"
#include "hlo/ir/shape.h"

namespace tessera {

using complex64 = std::complex<float>;
using complex128 = std::complex<double>;

// The C++ type of one element of a PrimitiveType, and back.
template <PrimitiveType T> struct NativeTypeOf;
template <> struct NativeTypeOf<PRED> { using type = bool; };
template <> struct NativeTypeOf<S8> { using type = int8_t; };
template <> struct NativeTypeOf<S16> { using type = int16_t; };
template <> struct NativeTypeOf<S32> { using type = int32_t; };
template <> struct NativeTypeOf<S64> { using type = int64_t; };
template <> struct NativeTypeOf<U8> { using type = uint8_t; };
template <> struct NativeTypeOf<U16> { using type = uint16_t; };
template <> struct NativeTypeOf<U32> { using type = uint32_t; };
template <> struct NativeTypeOf<U64> { using type = uint64_t; };
template <> struct NativeTypeOf<F16> { using type = half; };
template <> struct NativeTypeOf<BF16> { using type = bfloat16; };
template <> struct NativeTypeOf<F8E5M2> { using type = float8_e5m2; };
template <> struct NativeTypeOf<F8E4M3> { using type = float8_e4m3; };
template <> struct NativeTypeOf<F8E3M4> { using type = float8_e3m4; };
template <> struct NativeTypeOf<F8E4M3FN> { using type = float8_e4m3fn; };
template <> struct NativeTypeOf<F8E4M3FNUZ> { using type = float8_e4m3fnuz; };
template <> struct NativeTypeOf<F8E5M2FNUZ> { using type = float8_e5m2fnuz; };
template <> struct NativeTypeOf<F8E4M3B11FNUZ> { using type = float8_e4m3b11fnuz; };
template <> struct NativeTypeOf<F32> { using type = float; };
template <> struct NativeTypeOf<F64> { using type = double; };
template <> struct NativeTypeOf<C64> { using type = complex64; };
template <> struct NativeTypeOf<C128> { using type = complex128; };

template <typename T> constexpr PrimitiveType PrimitiveTypeOf();
template <> constexpr PrimitiveType PrimitiveTypeOf<bool>() { return PRED; }
template <> constexpr PrimitiveType PrimitiveTypeOf<int8_t>() { return S8; }
template <> constexpr PrimitiveType PrimitiveTypeOf<int16_t>() { return S16; }
template <> constexpr PrimitiveType PrimitiveTypeOf<int32_t>() { return S32; }
template <> constexpr PrimitiveType PrimitiveTypeOf<int64_t>() { return S64; }
template <> constexpr PrimitiveType PrimitiveTypeOf<uint8_t>() { return U8; }
template <> constexpr PrimitiveType PrimitiveTypeOf<uint16_t>() { return U16; }
template <> constexpr PrimitiveType PrimitiveTypeOf<uint32_t>() { return U32; }
template <> constexpr PrimitiveType PrimitiveTypeOf<uint64_t>() { return U64; }
template <> constexpr PrimitiveType PrimitiveTypeOf<half>() { return F16; }
template <> constexpr PrimitiveType PrimitiveTypeOf<bfloat16>() { return BF16; }
template <> constexpr PrimitiveType PrimitiveTypeOf<float8_e5m2>() { return F8E5M2; }
template <> constexpr PrimitiveType PrimitiveTypeOf<float8_e4m3>() { return F8E4M3; }
template <> constexpr PrimitiveType PrimitiveTypeOf<float8_e3m4>() { return F8E3M4; }
template <> constexpr PrimitiveType PrimitiveTypeOf<float8_e4m3fn>() { return F8E4M3FN; }
template <> constexpr PrimitiveType PrimitiveTypeOf<float8_e4m3fnuz>() { return F8E4M3FNUZ; }
template <> constexpr PrimitiveType PrimitiveTypeOf<float8_e5m2fnuz>() { return F8E5M2FNUZ; }
template <> constexpr PrimitiveType PrimitiveTypeOf<float8_e4m3b11fnuz>() { return F8E4M3B11FNUZ; }
template <> constexpr PrimitiveType PrimitiveTypeOf<float>() { return F32; }
template <> constexpr PrimitiveType PrimitiveTypeOf<double>() { return F64; }
template <> constexpr PrimitiveType PrimitiveTypeOf<complex64>() { return C64; }
template <> constexpr PrimitiveType PrimitiveTypeOf<complex128>() { return C128; }

// Calls fn.template operator()<NativeType>() for an array element type;
// returns fn's result.  The one place that switches over element types.
template <typename Fn>
decltype(auto) DispatchElementType(PrimitiveType type, Fn&& fn) {
  switch (type) {
    case PRED: return fn.template operator()<bool>();
    case S8: return fn.template operator()<int8_t>();
    case S16: return fn.template operator()<int16_t>();
    case S32: return fn.template operator()<int32_t>();
    case S64: return fn.template operator()<int64_t>();
    case U8: return fn.template operator()<uint8_t>();
    case U16: return fn.template operator()<uint16_t>();
    case U32: return fn.template operator()<uint32_t>();
    case U64: return fn.template operator()<uint64_t>();
    case F16: return fn.template operator()<half>();
    case BF16: return fn.template operator()<bfloat16>();
    case F8E5M2: return fn.template operator()<float8_e5m2>();
    case F8E4M3: return fn.template operator()<float8_e4m3>();
    case F8E3M4: return fn.template operator()<float8_e3m4>();
    case F8E4M3FN: return fn.template operator()<float8_e4m3fn>();
    case F8E4M3FNUZ: return fn.template operator()<float8_e4m3fnuz>();
    case F8E5M2FNUZ: return fn.template operator()<float8_e5m2fnuz>();
    case F8E4M3B11FNUZ: return fn.template operator()<float8_e4m3b11fnuz>();
    case F32: return fn.template operator()<float>();
    case F64: return fn.template operator()<double>();
    case C64: return fn.template operator()<complex64>();
    case C128: return fn.template operator()<complex128>();
    default: return fn.template operator()<void>();
  }
}

class Literal {
 public:
  // An empty tuple `()`.
  Literal();
  // Zero-filled value of `shape` (tuples: zero-filled elements; tokens: no data).
  // Array leaves without a layout get the descending (row-major) one.  The
  // shape must be able to hold data (see CreateFromShape); checked.
  explicit Literal(const Shape& shape);
  // Like Literal(shape), but an error instead of a crash for a shape that
  // cannot hold data: a negative or unbounded (`?`) dimension, or a byte size
  // that overflows int64.
  static absl::StatusOr<Literal> CreateFromShape(const Shape& shape);

  Literal(const Literal&) = default;
  Literal& operator=(const Literal&) = default;
  Literal(Literal&&) noexcept = default;
  Literal& operator=(Literal&&) noexcept = default;

  template <typename T>
  static Literal CreateR0(T value) {
    Literal lit(Shape::MakeArrayWithDescendingLayout(PrimitiveTypeOf<T>(), {}));
    lit.data<T>()[0] = value;
    return lit;
  }
  template <typename T>
  static Literal CreateR1(absl::Span<const T> values) {
    Literal lit(Shape::MakeArrayWithDescendingLayout(PrimitiveTypeOf<T>(),
                                                     {static_cast<int64_t>(values.size())}));
    std::copy(values.begin(), values.end(), lit.data<T>().begin());
    return lit;
  }
  template <typename T>
  static Literal CreateR1(std::initializer_list<T> values) {
    return CreateR1<T>(absl::Span<const T>(values.begin(), values.size()));
  }
  // Values in row-major order; `values.size()` must equal the element count.
  template <typename T>
  static Literal CreateFromVector(std::vector<int64_t> dimensions, absl::Span<const T> values) {
    Literal lit(Shape::MakeArrayWithDescendingLayout(PrimitiveTypeOf<T>(), std::move(dimensions)));
    std::copy(values.begin(), values.end(), lit.data<T>().begin());
    return lit;
  }
  static Literal MakeTuple(std::vector<Literal> elements);
  static Literal CreateToken();

  const Shape& shape() const { return shape_; }
  // Changes the recorded layout only (data stays row-major).
  void set_layout(const Layout& layout);

  // Typed view of an array's elements in row-major order.  T must be the
  // native type of the element type (checked).
  template <typename T>
  absl::Span<T> data() {
    CheckType(PrimitiveTypeOf<T>());
    return absl::Span<T>(reinterpret_cast<T*>(bytes_.data()), element_count());
  }
  template <typename T>
  absl::Span<const T> data() const {
    CheckType(PrimitiveTypeOf<T>());
    return absl::Span<const T>(reinterpret_cast<const T*>(bytes_.data()), element_count());
  }
  template <typename T>
  T Get(absl::Span<const int64_t> index) const {
    return data<T>()[LinearIndex(index)];
  }
  template <typename T>
  void Set(absl::Span<const int64_t> index, T value) {
    data<T>()[LinearIndex(index)] = value;
  }

  void* untyped_data() { return bytes_.data(); }
  const void* untyped_data() const { return bytes_.data(); }
  int64_t size_bytes() const { return static_cast<int64_t>(bytes_.size()); }
  int64_t element_count() const;

  // Row-major linear position of a multi-dimensional index.
  int64_t LinearIndex(absl::Span<const int64_t> index) const;

  // Element `linear` converted as Convert does: to double, int64 (floats
  // truncate and saturate) or complex128; a complex element gives its real
  // part as double/int64.  Used by generic code (printing, tests).
  double GetAsDouble(int64_t linear) const;
  int64_t GetAsInt64(int64_t linear) const;
  complex128 GetAsComplex(int64_t linear) const;
  // Stores `value` converted to the element type as Convert does (so a float
  // stored into an integer saturates instead of being undefined).
  void SetFromDouble(int64_t linear, double value);
  void SetFromInt64(int64_t linear, int64_t value);
  void SetFromComplex(int64_t linear, complex128 value);

  // Tuples.
  int64_t tuple_size() const { return static_cast<int64_t>(tuple_elements_.size()); }
  const Literal& tuple_element(int64_t i) const { return tuple_elements_[i]; }
  Literal& mutable_tuple_element(int64_t i) { return tuple_elements_[i]; }
  // Moves the elements out; this becomes an empty tuple.
  std::vector<Literal> DecomposeTuple();
  // Leaves of a (nested) tuple, in order; a non-tuple is its own only leaf.
  std::vector<const Literal*> Leaves() const;

  // The same values as another element type, converted elementwise as XLA's
  // `convert` does (float->int saturates, NaN->0; int->int wraps).
  absl::StatusOr<Literal> Convert(PrimitiveType type) const;

  // Equal shapes ignoring layout, and bitwise-equal elements (so NaNs with
  // equal bits are equal and -0.0 != +0.0).
  bool operator==(const Literal& other) const;
  bool operator!=(const Literal& other) const { return !(*this == other); }

  // The value as HLO text writes a constant's payload (XLA's one-line form),
  // without the shape: "1.5", "{1, 2, 3}", "{ { 1, 2 }, { 3, 4 } }",
  // "( 1, {2, 3} )" for tuples, "true"/"false" for a PRED scalar but "{1, 0}"
  // in arrays, "(1, 2)" for complex, "{}" for f32[0], "{ {}, {} }" for
  // f32[2,0], "token".  Arrays of rank > 3 carry XLA's index comments
  // ("{ /*i0=0*/ { ...").  Floats print the shortest text that reads back to
  // the same value of their type; "inf", "-inf", "nan", "-nan", "-0", and
  // "nan(0x...)" (mantissa bits in hex) for a NaN other than the default
  // quiet one.
  std::string ToStringWithoutShape() const;
  // "<shape with layout> <payload>", e.g. "f32[2]{0} {1, 2}", for
  // diagnostics and `tessera run --print`.
  std::string ToString() const;

 private:
  void CheckType(PrimitiveType type) const;

  Shape shape_;
  std::vector<uint8_t> bytes_;  // array data, row-major
  std::vector<Literal> tuple_elements_;
};

}  // namespace tessera

#endif  // TESSERA_HLO_IR_LITERAL_H_
