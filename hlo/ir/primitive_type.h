// Element types of HLO arrays, numbered exactly as XLA's xla_data.proto so
// that a serialized PrimitiveType means the same thing in both.
#ifndef TESSERA_HLO_IR_PRIMITIVE_TYPE_H_
#define TESSERA_HLO_IR_PRIMITIVE_TYPE_H_

#include <cstdint>
#include <optional>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tessera {

// The enumerator names are XLA's (they are the words of HLO text, upper-cased).
// Numbers not listed (19..31: the F8/F4/S4/U4/S2/U2 family) are left free as
// XLA numbers them, so those types can be added without renumbering.
enum PrimitiveType : int32_t {
  PRIMITIVE_TYPE_INVALID = 0,
  PRED = 1,
  S8 = 2,
  S16 = 3,
  S32 = 4,
  S64 = 5,
  U8 = 6,
  U16 = 7,
  U32 = 8,
  U64 = 9,
  F16 = 10,
  F32 = 11,
  F64 = 12,
  TUPLE = 13,
  OPAQUE_TYPE = 14,
  C64 = 15,
  BF16 = 16,
  TOKEN = 17,
  C128 = 18,
  // The 8-bit floats (XLA's numbering): E<exponent bits>M<mantissa bits>;
  // FN: finite (no infinities, NaN is S.1111.111); FNUZ: finite with an
  // unsigned zero (NaN is 0x80); B11: exponent bias 11.
  F8E5M2 = 19,
  F8E4M3FN = 20,
  F8E4M3B11FNUZ = 23,
  F8E5M2FNUZ = 24,
  F8E4M3FNUZ = 25,
  F8E4M3 = 28,
  F8E3M4 = 29,
};

// The lower-case name used in HLO text: "f32", "pred", "token", "opaque".
absl::string_view PrimitiveTypeName(PrimitiveType type);

// Inverse of PrimitiveTypeName; an error for anything else.
absl::StatusOr<PrimitiveType> ParsePrimitiveType(absl::string_view name);

// True for the numbers this build knows (the enumerators above).
bool IsKnownPrimitiveType(int32_t value);

// Array element types: everything but TUPLE, OPAQUE_TYPE, TOKEN and INVALID.
bool IsArrayType(PrimitiveType type);
bool IsFloatingPointType(PrimitiveType type);  // F8*, F16, BF16, F32, F64
bool IsFloat8Type(PrimitiveType type);         // the F8* types
bool IsComplexType(PrimitiveType type);        // C64, C128
bool IsIntegralType(PrimitiveType type);       // S* and U*
bool IsSignedIntegralType(PrimitiveType type);
bool IsUnsignedIntegralType(PrimitiveType type);

// Size of one element in bits / bytes; 0 for non-array types.
int BitWidth(PrimitiveType type);
int ByteWidth(PrimitiveType type);

// The component type of a complex type (C64 -> F32, C128 -> F64).
PrimitiveType ComplexComponentType(PrimitiveType type);

// How a real floating-point type encodes its values: sign, exponent and
// mantissa bits (value (1 + m / 2^mantissa_bits) * 2^(e - bias), e = 0
// subnormal), and what the all-ones exponent means.
struct FloatFormat {
  enum class Specials {
    kIeee,                // the all-ones exponent: infinities and NaNs
    kFiniteNan,           // FN: no infinities; only S.1...1 (all ones) is NaN
    kFiniteUnsignedZero,  // FNUZ: no infinities, no -0; 0x80... is the NaN
  };
  int exponent_bits = 0;
  int mantissa_bits = 0;
  int bias = 0;
  Specials specials = Specials::kIeee;
};
// The format of F8*, F16, BF16, F32 or F64; nullopt for other types.
std::optional<FloatFormat> FloatFormatOf(PrimitiveType type);

}  // namespace tessera

#endif  // TESSERA_HLO_IR_PRIMITIVE_TYPE_H_
