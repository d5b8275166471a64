// Pieces of XLA's HLO text syntax that both the parser and the printer need:
// the spelling of every enum the text names (with the value each maps to),
// shapes and layouts in XLA's human-readable form, and number formatting
// that XLA's printer uses and the parser reads back exactly.
#ifndef TESSERA_HLO_PARSER_HLO_TEXT_UTIL_H_
#define TESSERA_HLO_PARSER_HLO_TEXT_UTIL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "hlo/ir/hlo_attributes.h"
#include "hlo/ir/shape.h"

namespace tessera {

// One spelling of an enum value in HLO text.
struct EnumSpelling {
  int32_t value;
  absl::string_view name;
};

// The tables, in the order XLA's protos number them.  Names are as XLA
// prints them; lookups by name ignore case where XLA's parser does.
absl::Span<const EnumSpelling> PrecisionSpellings();          // "default", "high", ...
absl::Span<const EnumSpelling> AlgorithmSpellings();          // "dot_tf32_tf32_f32", ...
absl::Span<const EnumSpelling> RandomDistributionSpellings();  // "rng_uniform", ...
absl::Span<const EnumSpelling> RandomAlgorithmSpellings();     // "rng_three_fry", ...
absl::Span<const EnumSpelling> FftTypeSpellings();             // "FFT", "IFFT", ...
absl::Span<const EnumSpelling> PaddingTypeSpellings();         // "PADDING_VALID", ...
absl::Span<const EnumSpelling> CustomCallScheduleSpellings();  // "SCHEDULE_LATEST", ...
absl::Span<const EnumSpelling> ApiVersionSpellings();          // "API_VERSION_ORIGINAL", ...
absl::Span<const EnumSpelling> TransposeSpellings();           // "NO_TRANSPOSE", ...
absl::Span<const EnumSpelling> ComparisonDirectionSpellings(); // "EQ", ...
absl::Span<const EnumSpelling> ComparisonTypeSpellings();      // "FLOAT", "TOTALORDER", ...
absl::Span<const EnumSpelling> FusionKindSpellings();          // "kLoop", ...
absl::Span<const EnumSpelling> ShardingTypeSpellings();        // "replicated", "manual", ...

// The name of `value` in `table`, or "" when the value has none.
absl::string_view SpellingOf(absl::Span<const EnumSpelling> table, int32_t value);
// The value spelled `name`; `ignore_case` compares ASCII case-insensitively.
// The dot algorithms also accept their proto name ("ALG_DOT_F32_F32_F32").
std::optional<int32_t> ValueOf(absl::Span<const EnumSpelling> table, absl::string_view name,
                               bool ignore_case);
// "a, b, c": the names of a table, for "expected one of" messages.
std::string JoinSpellings(absl::Span<const EnumSpelling> table);

// XLA's element type names that Tessera's PrimitiveType does not model
// ("s4", "f8e4m3fn", ...): recognised so errors can name them.
bool IsUnsupportedXlaTypeName(absl::string_view name);

// "{1,0}" or "{1,0:T(8,128)(2,1)E(16)S(1)}".
std::string LayoutToText(const Layout& layout);
// XLA's ShapeUtil::HumanString (print_layout=false) and
// HumanStringWithLayout (true): "f32[2,<=3,?]{2,1,0}", tuples
// "(f32[], s32[2]{0})" with "/*index=5*/" before every fifth element, and no
// "{}" layout on scalars.
std::string ShapeToText(const Shape& shape, bool print_layout);
void AppendShapeText(const Shape& shape, bool print_layout, std::string* out);

// The way XLA prints a double or float attribute: six significant digits
// ("0.001", "1e-05") when that reads back to the same value, otherwise the
// shortest text that does.
std::string DoubleToText(double value);
std::string FloatToText(float value);

// "{0,1}" as XLA's ShapeIndex::ToString writes it.
std::string ShapeIndexToText(absl::Span<const int64_t> index);

// C-style escaping of the contents of a quoted string (absl::CEscape).
std::string EscapeString(absl::string_view text);

}  // namespace tessera

#endif  // TESSERA_HLO_PARSER_HLO_TEXT_UTIL_H_
