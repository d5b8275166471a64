// TupleSimplifier: removes tuples that are built only to be taken apart.
//
//   get-tuple-element(tuple(a, b, c), index=1)          -> b
//   tuple(gte(t, 0), gte(t, 1), ..., gte(t, n-1))       -> t   (t has n elements)
#ifndef TESSERA_PASSES_SIMPLIFY_TUPLE_SIMPLIFIER_H_
#define TESSERA_PASSES_SIMPLIFY_TUPLE_SIMPLIFIER_H_

#include "passes/hlo_pass.h"

namespace tessera {

class TupleSimplifier : public HloPass {
 public:
  absl::string_view name() const override { return "tuple-simplifier"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace tessera

#endif  // TESSERA_PASSES_SIMPLIFY_TUPLE_SIMPLIFIER_H_
