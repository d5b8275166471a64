// The HLO text printer: writes Tessera's IR as XLA's canonical HLO text,
// the text XLA's HloModule::ToString() writes with HloPrintOptions::Default()
// (and that hlo_parser reads back):
//
//   HloModule m, entry_computation_layout={(f32[2]{0})->f32[2]{0}}
//
//   %add (x: f32[], y: f32[]) -> f32[] {
//     %x = f32[] parameter(0)
//     %y = f32[] parameter(1)
//     ROOT %sum = f32[] add(f32[] %x, f32[] %y)
//   }
//
//   ENTRY %main (p: f32[2]) -> f32[] {
//     ...
//   }
//
// Computations come in XLA's post order (callees before callers), each
// computation's instructions in XLA's post order (or the schedule's order in
// a scheduled module), attributes in XLA's order and spelling.  Two
// deliberate differences from HloPrintOptions::Default(): constants of any
// size are printed in full (XLA abbreviates large ones to `{...}`, which no
// parser can read back), and the module header keeps
// spmd_output_sharding/spmd_parameters_shardings when set, so that printing
// loses nothing the parser reads.
#ifndef TESSERA_HLO_PARSER_HLO_PRINTER_H_
#define TESSERA_HLO_PARSER_HLO_PRINTER_H_

#include <string>

#include "hlo/ir/hlo_attributes.h"
#include "hlo/ir/hlo_computation.h"
#include "hlo/ir/hlo_instruction.h"
#include "hlo/ir/hlo_module.h"

namespace tessera {

// What to print; the defaults give the canonical text.
struct HloPrintOptions {
  // "%name" instead of "name" for instructions and computations.
  bool print_percent = true;
  // "add(f32[2]{0} %a, ...)" instead of "add(%a, ...)".
  bool print_operand_shapes = true;
  // Layouts on array shapes ("f32[2,3]{1,0}"); never on scalars.
  bool print_layouts = true;
  // "%c (p: f32[2]) -> f32[2] {" instead of "%c {".
  bool print_program_shape = true;
  bool print_metadata = true;
  bool print_backend_config = true;
  bool print_control_dependencies = true;
  // Constants with more than ten elements in full (XLA's default prints
  // them as "{...}", which does not parse).
  bool print_large_constants = true;
  // `custom-call-start(...)` instead of `async-start(...), calls=%body` when
  // the async computation holds just parameters and one op.
  bool syntax_sugar_async_ops = true;
  // "/*index=5*/" before every fifth operand; 0 turns it off.
  int operand_index_annotation_interval = 5;

  // The canonical text.
  static HloPrintOptions Default() { return HloPrintOptions(); }
  // XLA's ShortParsable: no operand shapes, no metadata, no backend configs.
  static HloPrintOptions ShortParsable();
};

// The whole module, header first, ending with a blank line.
std::string PrintHloModule(const HloModule& module);
std::string PrintHloModule(const HloModule& module, const HloPrintOptions& options);

// One computation, "%name (params) -> result {\n  ...\n}" (no "ENTRY", no
// trailing newline), its instructions in post order.
std::string PrintHloComputation(const HloComputation& computation);
std::string PrintHloComputation(const HloComputation& computation, const HloPrintOptions& options);

// One instruction, "%name = shape opcode(operands), attributes" (no "ROOT").
std::string PrintHloInstruction(const HloInstruction& instruction);
std::string PrintHloInstruction(const HloInstruction& instruction, const HloPrintOptions& options);

// Attribute values as the text writes them (the part after "name=").
std::string PrintSharding(const HloSharding& sharding, bool include_metadata = true);
std::string PrintOpMetadata(const OpMetadata& metadata);  // op_name="a" ...
std::string PrintWindow(const Window& window);            // size=3x3 stride=2x2 ...
std::string PrintConvolutionDimensionNumbers(const ConvolutionDimensionNumbers& dnums);
std::string PrintPaddingConfig(const PaddingConfig& padding);               // 0_0x1_1_0
std::string PrintFrontendAttributes(const FrontendAttributes& attributes);  // {a="b",c="d"}
// "(f32[2]{0}, s32[])->f32[2]{0}", with "/*index=5*/" every fifth parameter.
std::string PrintComputationLayout(const ProgramShape& layout);

}  // namespace tessera

#endif  // TESSERA_HLO_PARSER_HLO_PRINTER_H_
