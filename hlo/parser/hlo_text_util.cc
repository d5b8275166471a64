#include "hlo/parser/hlo_text_util.h"

#include <charconv>
#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/ir/primitive_type.h"

namespace tessera {
namespace {

constexpr EnumSpelling kPrecision[] = {
    {0, "default"}, {1, "high"}, {2, "highest"}, {3, "packed_nibble"}};

constexpr EnumSpelling kAlgorithm[] = {
    {0, "unset"},
    {1, "dot_any_f8_any_f8_f32"},
    {2, "dot_any_f8_any_f8_f32_fast_accum"},
    {3, "dot_f16_f16_f16"},
    {4, "dot_f16_f16_f32"},
    {5, "dot_bf16_bf16_bf16"},
    {6, "dot_bf16_bf16_f32"},
    {7, "dot_bf16_bf16_f32_x3"},
    {8, "dot_bf16_bf16_f32_x6"},
    {9, "dot_tf32_tf32_f32"},
    {10, "dot_tf32_tf32_f32_x3"},
    {11, "dot_f32_f32_f32"},
    {12, "dot_f64_f64_f64"},
    {13, "dot_bf16_bf16_f32_x9"},
};

constexpr EnumSpelling kRandomDistribution[] = {
    {0, "rng_invalid"}, {1, "rng_uniform"}, {2, "rng_normal"}};

constexpr EnumSpelling kRandomAlgorithm[] = {
    {0, "rng_default"}, {1, "rng_three_fry"}, {2, "rng_philox"}};

constexpr EnumSpelling kFftType[] = {{0, "FFT"}, {1, "IFFT"}, {2, "RFFT"}, {3, "IRFFT"}};

constexpr EnumSpelling kPaddingType[] = {
    {0, "PADDING_INVALID"}, {1, "PADDING_VALID"}, {2, "PADDING_SAME"}};

constexpr EnumSpelling kSchedule[] = {
    {0, "SCHEDULE_NONE"}, {1, "SCHEDULE_LATEST"}, {2, "SCHEDULE_EARLIEST"}};

constexpr EnumSpelling kApiVersion[] = {
    {0, "API_VERSION_UNSPECIFIED"},
    {1, "API_VERSION_ORIGINAL"},
    {2, "API_VERSION_STATUS_RETURNING"},
    {3, "API_VERSION_STATUS_RETURNING_UNIFIED"},
    {4, "API_VERSION_TYPED_FFI"},
};

constexpr EnumSpelling kTranspose[] = {
    {0, "TRANSPOSE_INVALID"}, {1, "NO_TRANSPOSE"}, {2, "TRANSPOSE"}, {3, "ADJOINT"}};

constexpr EnumSpelling kDirection[] = {
    {static_cast<int32_t>(ComparisonDirection::kEq), "EQ"},
    {static_cast<int32_t>(ComparisonDirection::kNe), "NE"},
    {static_cast<int32_t>(ComparisonDirection::kGe), "GE"},
    {static_cast<int32_t>(ComparisonDirection::kGt), "GT"},
    {static_cast<int32_t>(ComparisonDirection::kLe), "LE"},
    {static_cast<int32_t>(ComparisonDirection::kLt), "LT"},
};

constexpr EnumSpelling kComparisonType[] = {
    {static_cast<int32_t>(ComparisonType::kFloat), "FLOAT"},
    {static_cast<int32_t>(ComparisonType::kFloatTotalOrder), "TOTALORDER"},
    {static_cast<int32_t>(ComparisonType::kSigned), "SIGNED"},
    {static_cast<int32_t>(ComparisonType::kUnsigned), "UNSIGNED"},
};

constexpr EnumSpelling kFusionKind[] = {
    {static_cast<int32_t>(FusionKind::kLoop), "kLoop"},
    {static_cast<int32_t>(FusionKind::kInput), "kInput"},
    {static_cast<int32_t>(FusionKind::kOutput), "kOutput"},
    {static_cast<int32_t>(FusionKind::kCustom), "kCustom"},
};

constexpr EnumSpelling kShardingType[] = {
    {static_cast<int32_t>(HloSharding::Type::kReplicated), "replicated"},
    {static_cast<int32_t>(HloSharding::Type::kMaximal), "maximal"},
    {static_cast<int32_t>(HloSharding::Type::kManual), "manual"},
    {static_cast<int32_t>(HloSharding::Type::kUnknown), "unknown"},
    {static_cast<int32_t>(HloSharding::Type::kUnreduced), "unreduced"},
};

// XLA element types outside Tessera's PrimitiveType.
constexpr absl::string_view kUnsupportedTypes[] = {
    "s1", "s2", "s4", "u1", "u2", "u4", "f4e2m1fn", "f6e2m3fn", "f6e3m2fn", "f8e8m0fnu", "buffer",
};

bool SameName(absl::string_view a, absl::string_view b, bool ignore_case) {
  return ignore_case ? absl::EqualsIgnoreCase(a, b) : a == b;
}

}  // namespace

absl::Span<const EnumSpelling> PrecisionSpellings() { return kPrecision; }
absl::Span<const EnumSpelling> AlgorithmSpellings() { return kAlgorithm; }
absl::Span<const EnumSpelling> RandomDistributionSpellings() { return kRandomDistribution; }
absl::Span<const EnumSpelling> RandomAlgorithmSpellings() { return kRandomAlgorithm; }
absl::Span<const EnumSpelling> FftTypeSpellings() { return kFftType; }
absl::Span<const EnumSpelling> PaddingTypeSpellings() { return kPaddingType; }
absl::Span<const EnumSpelling> CustomCallScheduleSpellings() { return kSchedule; }
absl::Span<const EnumSpelling> ApiVersionSpellings() { return kApiVersion; }
absl::Span<const EnumSpelling> TransposeSpellings() { return kTranspose; }
absl::Span<const EnumSpelling> ComparisonDirectionSpellings() { return kDirection; }
absl::Span<const EnumSpelling> ComparisonTypeSpellings() { return kComparisonType; }
absl::Span<const EnumSpelling> FusionKindSpellings() { return kFusionKind; }
absl::Span<const EnumSpelling> ShardingTypeSpellings() { return kShardingType; }

absl::string_view SpellingOf(absl::Span<const EnumSpelling> table, int32_t value) {
  for (const EnumSpelling& entry : table) {
    if (entry.value == value) return entry.name;
  }
  return "";
}

std::optional<int32_t> ValueOf(absl::Span<const EnumSpelling> table, absl::string_view name,
                               bool ignore_case) {
  for (const EnumSpelling& entry : table) {
    if (SameName(entry.name, name, ignore_case)) return entry.value;
  }
  // The dot algorithms print without their proto prefix "ALG_".
  if (table.data() == kAlgorithm && absl::StartsWithIgnoreCase(name, "alg_")) {
    return ValueOf(table, name.substr(4), /*ignore_case=*/true);
  }
  return std::nullopt;
}

std::string JoinSpellings(absl::Span<const EnumSpelling> table) {
  return absl::StrJoin(table, ", ", [](std::string* out, const EnumSpelling& entry) {
    absl::StrAppend(out, entry.name);
  });
}

bool IsUnsupportedXlaTypeName(absl::string_view name) {
  for (absl::string_view candidate : kUnsupportedTypes) {
    if (candidate == name) return true;
  }
  return false;
}

std::string LayoutToText(const Layout& layout) {
  std::string out = absl::StrCat("{", absl::StrJoin(layout.minor_to_major, ","));
  if (!layout.tiles.empty() || layout.element_size_in_bits != 0 || layout.memory_space != 0) {
    out += ":";
    if (!layout.tiles.empty()) {
      out += "T";
      for (const Tile& tile : layout.tiles) {
        out += "(";
        for (size_t i = 0; i < tile.dimensions.size(); ++i) {
          if (i > 0) out += ",";
          if (tile.dimensions[i] == Tile::kCombineDimension) {
            out += "*";
          } else {
            absl::StrAppend(&out, tile.dimensions[i]);
          }
        }
        out += ")";
      }
    }
    if (layout.element_size_in_bits != 0) absl::StrAppend(&out, "E(", layout.element_size_in_bits, ")");
    if (layout.memory_space != 0) absl::StrAppend(&out, "S(", layout.memory_space, ")");
  }
  out += "}";
  return out;
}

void AppendShapeText(const Shape& shape, bool print_layout, std::string* out) {
  if (shape.IsTuple()) {
    out->push_back('(');
    for (int64_t i = 0; i < shape.tuple_size(); ++i) {
      if (i > 0) out->append(i % 5 == 0 ? absl::StrCat(", /*index=", i, "*/") : ", ");
      AppendShapeText(shape.tuple_shapes(i), print_layout, out);
    }
    out->push_back(')');
    return;
  }
  absl::StrAppend(out, PrimitiveTypeName(shape.element_type()), "[");
  for (int64_t i = 0; i < shape.rank(); ++i) {
    if (i > 0) out->push_back(',');
    const int64_t size = shape.dimensions(i);
    if (size == Shape::kUnboundedSize) {
      out->push_back('?');
    } else {
      if (shape.is_dynamic_dimension(i)) out->append("<=");
      absl::StrAppend(out, size);
    }
  }
  out->push_back(']');
  if (!print_layout || !shape.IsArray() || !shape.has_layout()) return;
  std::string layout = LayoutToText(shape.layout());
  // XLA never prints the empty layout "{}" of a scalar.
  if (shape.IsScalar() && layout == "{}") return;
  out->append(layout);
}

std::string ShapeToText(const Shape& shape, bool print_layout) {
  std::string out;
  AppendShapeText(shape, print_layout, &out);
  return out;
}

std::string DoubleToText(double value) {
  std::string six = absl::StrCat(value);
  if (std::strtod(six.c_str(), nullptr) == value) return six;
  char buffer[64];
  const std::to_chars_result result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, result.ptr);
}

std::string FloatToText(float value) {
  std::string six = absl::StrCat(value);
  if (static_cast<float>(std::strtod(six.c_str(), nullptr)) == value) return six;
  char buffer[64];
  const std::to_chars_result result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, result.ptr);
}

std::string ShapeIndexToText(absl::Span<const int64_t> index) {
  return absl::StrCat("{", absl::StrJoin(index, ","), "}");
}

std::string EscapeString(absl::string_view text) { return absl::CEscape(text); }

}  // namespace tessera
