// The HLO text parser: reads XLA's HLO text syntax (what XLA's
// HloModule::ToString prints and its own parser accepts for one module)
// into Tessera's IR.
//
// The parser checks syntax, not semantics: it resolves names, checks that
// every attribute is known for its opcode and well formed, and that operand
// counts match fixed-arity opcodes, but shape rules are the verifier's job
// (hlo/analysis).  Errors are InvalidArgument with a message of the form
// "line L, column C: expected X, got Y".  No input makes it crash.
//
// Canonicalizations follow XLA's own parser, so that printing a parsed
// module gives XLA's canonical text: missing array layouts become the
// default (row-major) layout, a module without `entry_computation_layout`
// gets the entry computation's, a module without header is named
// "module_<entry name>", a computation without ROOT takes its last
// instruction as root, a module without ENTRY its last computation as entry.
// Stack frames (`FileNames ... StackFrames` after the header) are inlined
// into each instruction's metadata (source_file/source_line/source_column),
// as XLA's print_inline_stack_frames does, since the IR keeps no frame
// table.
#ifndef TESSERA_HLO_PARSER_HLO_PARSER_H_
#define TESSERA_HLO_PARSER_HLO_PARSER_H_

#include <memory>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hlo/ir/hlo_attributes.h"
#include "hlo/ir/hlo_module.h"
#include "hlo/ir/literal.h"
#include "hlo/ir/shape.h"

namespace tessera {

// Parses a whole module: `HloModule name, attrs...` followed by
// computations, or computations alone.
absl::StatusOr<std::unique_ptr<HloModule>> ParseHloModule(absl::string_view text);

// Parses a shape such as "f32[2,3]{0,1}" or "(s32[], token[])".  Array
// shapes without a layout get the default one, as inside a module.
absl::StatusOr<Shape> ParseShape(absl::string_view text);

// Parses a constant's payload ("{1, 2}", "(1, {2, 3})", "nan") as a value of
// `shape`.
absl::StatusOr<Literal> ParseLiteral(absl::string_view text, const Shape& shape);

// Parses a sharding attribute value such as "{devices=[2,1]0,1}".
absl::StatusOr<HloSharding> ParseSharding(absl::string_view text);

}  // namespace tessera

#endif  // TESSERA_HLO_PARSER_HLO_PARSER_H_
