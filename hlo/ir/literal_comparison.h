// Comparing literals the way differential tests need: bit for bit, except
// that any NaN equals any NaN (the payload and sign of a NaN made by
// arithmetic are the host's, not the program's), so -0.0 still differs
// from +0.0.
#ifndef TESSERA_HLO_IR_LITERAL_COMPARISON_H_
#define TESSERA_HLO_IR_LITERAL_COMPARISON_H_

#include <string>

#include "hlo/ir/literal.h"

namespace tessera {

// Same leaves (dimensions and element types; layouts are metadata) with
// equal elements.  On a difference, and when `why` is set, says where:
// "leaf L element I: 1.5 vs 2".
bool LiteralsEqualNanAware(const Literal& expected, const Literal& actual,
                           std::string* why = nullptr);

}  // namespace tessera

#endif  // TESSERA_HLO_IR_LITERAL_COMPARISON_H_
