// Seeded random literals for `tessera run --random_inputs` and for
// differential tests: the same seed and shape always give the same values.
#ifndef TESSERA_HLO_IR_RANDOM_LITERAL_H_
#define TESSERA_HLO_IR_RANDOM_LITERAL_H_

#include <cstdint>
#include <random>

#include "absl/status/statusor.h"
#include "hlo/ir/literal.h"

namespace tessera {

// Values are drawn so that typical programs stay finite: floats uniform in
// [-1, 1) (complex: both parts), signed integers in [-8, 8], unsigned in
// [0, 8], PRED a fair coin.  Tuples are filled leaf by leaf; tokens are
// tokens.  Errors for OPAQUE and invalid element types.
absl::StatusOr<Literal> MakeRandomLiteral(const Shape& shape, std::mt19937_64& rng);

}  // namespace tessera

#endif  // TESSERA_HLO_IR_RANDOM_LITERAL_H_
