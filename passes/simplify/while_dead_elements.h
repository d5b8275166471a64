// Removes dead elements of a while loop's tuple state: an element that no
// user of the loop reads, that the condition does not read, and that in the
// body feeds nothing but its own next value (a counter nobody looks at, a
// value carried along unused) is dropped from the state, the init, the body
// and the condition.  Part of HloDce.
//
// Only loops whose body and condition are called by this loop alone, whose
// users all take elements out with get-tuple-element, and whose state is
// read only through get-tuple-element, are rewritten; anything with side
// effects or control edges inside stays as it is.
#ifndef TESSERA_PASSES_SIMPLIFY_WHILE_DEAD_ELEMENTS_H_
#define TESSERA_PASSES_SIMPLIFY_WHILE_DEAD_ELEMENTS_H_

#include "absl/status/statusor.h"
#include "hlo/ir/hlo_module.h"

namespace tessera {

// Rewrites every while loop of `module` that has dead state elements.
absl::StatusOr<bool> RemoveDeadWhileElements(HloModule* module);

}  // namespace tessera

#endif  // TESSERA_PASSES_SIMPLIFY_WHILE_DEAD_ELEMENTS_H_
