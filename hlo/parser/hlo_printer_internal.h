// Pieces shared by hlo_printer.cc (modules, computations, instructions),
// hlo_instruction_attribute_printer.cc (each opcode's attributes) and
// hlo_attribute_printer.cc (attribute values).
// Not part of the public API.
#ifndef TESSERA_HLO_PARSER_HLO_PRINTER_INTERNAL_H_
#define TESSERA_HLO_PARSER_HLO_PRINTER_INTERNAL_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "hlo/ir/hlo_instruction.h"
#include "hlo/ir/literal.h"
#include "hlo/parser/hlo_printer.h"

namespace tessera {
namespace printer_internal {

// "%name" or "name".
std::string NameText(absl::string_view name, const HloPrintOptions& options);

// A string attribute value: raw when it is one brace-balanced `{...}` (the
// JSON-dict form XLA's lexer reads back raw), else quoted and C-escaped.
std::string StringOrJsonDict(absl::string_view value);

// "{1,2,3}".
std::string BracedList(const std::vector<int64_t>& values);

// "\"text\"", C-escaped.
std::string QuotedString(absl::string_view text);

// "{{0,1},{2,3}}" or the iota form "[2,2]<=[4]".
std::string ReplicaGroupsText(const HloAttributes& attributes);

// "{{0}: (1, {}), {1}: (0, {})}".
std::string OutputOperandAliasingText(const std::vector<OutputOperandAliasing>& aliasing);

// XLA's Literal::PrintWithLayoutOneline: "s32[2]{0} {1, 2}".
std::string LiteralWithLayoutText(const Literal& literal);

// "lhs_batch_dims={0}, lhs_contracting_dims={2}, ...".
std::string DotDimensionNumbersText(const DotDimensionNumbers& dnums);

// The attributes that belong to the opcode itself (XLA's
// PrintExtraAttributesImpl), in XLA's order, each as "name=value".
void AppendOpcodeAttributes(const HloInstruction& instruction, const HloPrintOptions& options,
                            std::vector<std::string>* attributes);

// The called-computation attributes (to_apply=, condition=/body=, calls=,
// branch_computations=, ...) of a non-async instruction.
void AppendCalledComputationAttributes(const HloInstruction& instruction,
                                       const HloPrintOptions& options,
                                       std::vector<std::string>* attributes);

}  // namespace printer_internal
}  // namespace tessera

#endif  // TESSERA_HLO_PARSER_HLO_PRINTER_INTERNAL_H_
