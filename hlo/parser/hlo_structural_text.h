// The structural text of a computation: its HLO text, and that of every
// computation it calls, with names replaced by their order of first
// appearance and without metadata.  Two computations have the same
// structural text exactly when they differ only in naming, so whatever was
// compiled for one serves the other (the CPU backend compiles identical
// fused kernels once).
#ifndef TESSERA_HLO_PARSER_HLO_STRUCTURAL_TEXT_H_
#define TESSERA_HLO_PARSER_HLO_STRUCTURAL_TEXT_H_

#include <string>

#include "hlo/ir/hlo_computation.h"

namespace tessera {

// `computation`, then the computations it calls (depth first, each once, in
// the order first called), printed without program shapes or metadata,
// each instruction and computation name ("%add.3") replaced by "%N", N its
// order of first appearance.  Text inside quoted strings is kept as is.
std::string StructuralText(const HloComputation& computation);

}  // namespace tessera

#endif  // TESSERA_HLO_PARSER_HLO_STRUCTURAL_TEXT_H_
