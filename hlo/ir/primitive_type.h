// Element types of HLO arrays, numbered exactly as XLA's xla_data.proto so
// that a serialized PrimitiveType means the same thing in both.
#ifndef TESSERA_HLO_IR_PRIMITIVE_TYPE_H_
#define TESSERA_HLO_IR_PRIMITIVE_TYPE_H_

#include <cstdint>
#include "absl/strings/string_view.h"

#include "absl/status/statusor.h"

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
};

// The lower-case name used in HLO text: "f32", "pred", "token", "opaque".
absl::string_view PrimitiveTypeName(PrimitiveType type);

// Inverse of PrimitiveTypeName; an error for anything else.
absl::StatusOr<PrimitiveType> ParsePrimitiveType(absl::string_view name);

// True for the numbers this build knows (the enumerators above).
bool IsKnownPrimitiveType(int32_t value);

// Array element types: everything but TUPLE, OPAQUE_TYPE, TOKEN and INVALID.
bool IsArrayType(PrimitiveType type);
bool IsFloatingPointType(PrimitiveType type);  // F16, BF16, F32, F64
bool IsComplexType(PrimitiveType type);        // C64, C128
bool IsIntegralType(PrimitiveType type);       // S* and U*
bool IsSignedIntegralType(PrimitiveType type);
bool IsUnsignedIntegralType(PrimitiveType type);

// Size of one element in bits / bytes; 0 for non-array types.
int BitWidth(PrimitiveType type);
int ByteWidth(PrimitiveType type);

// The component type of a complex type (C64 -> F32, C128 -> F64).
PrimitiveType ComplexComponentType(PrimitiveType type);

}  // namespace tessera

#endif  // TESSERA_HLO_IR_PRIMITIVE_TYPE_H_
