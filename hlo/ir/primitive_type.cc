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

constexpr std::array<TypeInfo, 30> kTypes = {{
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
    {F8E5M2, "f8e5m2", 8},
    {F8E4M3FN, "f8e4m3fn", 8},
    {PRIMITIVE_TYPE_INVALID, "", 0},  // 21: S4, not supported
    {PRIMITIVE_TYPE_INVALID, "", 0},  // 22: U4, not supported
    {F8E4M3B11FNUZ, "f8e4m3b11fnuz", 8},
    {F8E5M2FNUZ, "f8e5m2fnuz", 8},
    {F8E4M3FNUZ, "f8e4m3fnuz", 8},
    {PRIMITIVE_TYPE_INVALID, "", 0},  // 26: S2, not supported
    {PRIMITIVE_TYPE_INVALID, "", 0},  // 27: U2, not supported
    {F8E4M3, "f8e4m3", 8},
    {F8E3M4, "f8e3m4", 8},
}};

}  // namespace

bool IsKnownPrimitiveType(int32_t value) {
  return value == 0 ||
         (value > 0 && value < static_cast<int32_t>(kTypes.size()) &&
          kTypes[value].type != PRIMITIVE_TYPE_INVALID);
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

bool IsFloat8Type(PrimitiveType type) {
  switch (type) {
    case F8E5M2: case F8E4M3FN: case F8E4M3B11FNUZ: case F8E5M2FNUZ: case F8E4M3FNUZ:
    case F8E4M3: case F8E3M4:
      return true;
    default:
      return false;
  }
}

bool IsFloatingPointType(PrimitiveType type) {
  return type == F16 || type == BF16 || type == F32 || type == F64 || IsFloat8Type(type);
}

std::optional<FloatFormat> FloatFormatOf(PrimitiveType type) {
  using S = FloatFormat::Specials;
  switch (type) {
    case F8E5M2: return FloatFormat{5, 2, 15, S::kIeee};
    case F8E4M3: return FloatFormat{4, 3, 7, S::kIeee};
    case F8E3M4: return FloatFormat{3, 4, 3, S::kIeee};
    case F8E4M3FN: return FloatFormat{4, 3, 7, S::kFiniteNan};
    case F8E4M3FNUZ: return FloatFormat{4, 3, 8, S::kFiniteUnsignedZero};
    case F8E5M2FNUZ: return FloatFormat{5, 2, 16, S::kFiniteUnsignedZero};
    case F8E4M3B11FNUZ: return FloatFormat{4, 3, 11, S::kFiniteUnsignedZero};
    case F16: return FloatFormat{5, 10, 15, S::kIeee};
    case BF16: return FloatFormat{8, 7, 127, S::kIeee};
    case F32: return FloatFormat{8, 23, 127, S::kIeee};
    case F64: return FloatFormat{11, 52, 1023, S::kIeee};
    default: return std::nullopt;
  }
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
