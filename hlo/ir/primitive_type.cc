#include "hlo/ir/primitive_type.h"

#include <array>

#include "absl/strings/str_cat.h"

namespace tessera {
namespace {

struct TypeInfo {
  PrimitiveType type;
  absl::string_view name;
  int bits;
};

constexpr std::array<TypeInfo, 19> kTypes = {{
    {PRIMITIVE_TYPE_INVALID, "invalid", 0},
    {PRED, "pred", 8},
    {S8, "s8", 8},
    {S16, "s16", 16},
    {S32, "s32", 32},
    {S64, "s64", 64},
    {U8, "u8", 8},
    {U16, "u16", 16},
    {U32, "u32", 32},
    {U64, "u64", 64},
    {F16, "f16", 16},
    {F32, "f32", 32},
    {F64, "f64", 64},
    {TUPLE, "tuple", 0},
    {OPAQUE_TYPE, "opaque", 0},
    {C64, "c64", 64},
    {BF16, "bf16", 16},
    {TOKEN, "token", 0},
    {C128, "c128", 128},
}};

}  // namespace

bool IsKnownPrimitiveType(int32_t value) {
  return value >= 0 && value < static_cast<int32_t>(kTypes.size());
}

absl::string_view PrimitiveTypeName(PrimitiveType type) {
  if (!IsKnownPrimitiveType(type)) return "invalid";
  return kTypes[type].name;
}

absl::StatusOr<PrimitiveType> ParsePrimitiveType(absl::string_view name) {
  for (const TypeInfo& info : kTypes) {
    if (info.type != PRIMITIVE_TYPE_INVALID && info.name == name) return info.type;
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown element type '", name, "'"));
}

bool IsArrayType(PrimitiveType type) {
  return IsKnownPrimitiveType(type) && type != PRIMITIVE_TYPE_INVALID && type != TUPLE &&
         type != OPAQUE_TYPE && type != TOKEN;
}

bool IsFloatingPointType(PrimitiveType type) {
  return type == F16 || type == BF16 || type == F32 || type == F64;
}

bool IsComplexType(PrimitiveType type) { return type == C64 || type == C128; }

bool IsSignedIntegralType(PrimitiveType type) {
  return type == S8 || type == S16 || type == S32 || type == S64;
}

bool IsUnsignedIntegralType(PrimitiveType type) {
  return type == U8 || type == U16 || type == U32 || type == U64;
}

bool IsIntegralType(PrimitiveType type) {
  return IsSignedIntegralType(type) || IsUnsignedIntegralType(type);
}

int BitWidth(PrimitiveType type) {
  if (!IsKnownPrimitiveType(type)) return 0;
  return kTypes[type].bits;
}

int ByteWidth(PrimitiveType type) { return BitWidth(type) / 8; }

PrimitiveType ComplexComponentType(PrimitiveType type) {
  return type == C128 ? F64 : type == C64 ? F32 : PRIMITIVE_TYPE_INVALID;
}

}  // namespace tessera
