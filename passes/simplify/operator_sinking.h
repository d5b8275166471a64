// OperatorSinking: moves transposes, reshapes and broadcasts past
// elementwise ops, toward their consumers, where that lets them cancel or
// merge.
//
//   e(transpose(a), transpose(b))      -> transpose(e(a, b))    same permutation
//   e(reshape(a), reshape(b))          -> reshape(e(a, b))      same input shape
//   e(broadcast(a), broadcast(b))      -> broadcast(e(a, b))    same dims and input shape
//
// A broadcast of a scalar among the operands is rebuilt in the new shape, so
// `relu(transpose(x)) = maximum(transpose(x), broadcast(0))` sinks as well,
// and `transpose -> relu -> transpose` then collapses (the algebraic
// simplifier composes the two transposes).  A transpose or reshape sinks
// only when the elementwise op is its sole user, so the number of data
// movements never grows; a broadcast sinks whenever it can, since the
// elementwise op then runs on fewer elements.
//
// Values are unchanged: elementwise ops commute with any permutation or
// replication of their elements.
#ifndef TESSERA_PASSES_SIMPLIFY_OPERATOR_SINKING_H_
#define TESSERA_PASSES_SIMPLIFY_OPERATOR_SINKING_H_

#include "passes/hlo_pass.h"

namespace tessera {

class OperatorSinking : public HloPass {
 public:
  absl::string_view name() const override { return "operator-sinking"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace tessera

#endif  // TESSERA_PASSES_SIMPLIFY_OPERATOR_SINKING_H_
