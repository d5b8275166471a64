// DotCanonicalization: the CPU pipeline's rewrite of dots that the GEMM
// cannot read in place.  RunDot (eigen_dot.h) takes each operand as one
// strided matrix per batch entry; a dot whose batch, free or contracting
// dimensions do not collapse to one stride each in the operands' layouts
// (contracting dimensions before batch ones, say, or free dimensions that
// a contracting one splits) fell back to the evaluator.  This pass, after
// layout assignment, transposes such a dot's operands into row-major
// [batch..., free..., contracting...] (lhs) and [batch..., contracting...,
// free...] (rhs), as XLA's DotDecomposer does, so the GEMM reads them as
// plain matrices; a result whose layout does not collapse either is
// computed row-major and copied into its layout.  A dot RunDot takes as it
// is (whatever its strides), or would refuse even so (its element types),
// is left alone.
#ifndef TESSERA_BACKENDS_CPU_DOT_CANONICALIZATION_H_
#define TESSERA_BACKENDS_CPU_DOT_CANONICALIZATION_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hlo/ir/hlo_module.h"
#include "passes/hlo_pass.h"

namespace tessera {
namespace cpu {

class DotCanonicalization : public HloPass {
 public:
  absl::string_view name() const override { return "dot-canonicalization"; }
  absl::StatusOr<bool> Run(HloModule* module) override;
};

}  // namespace cpu
}  // namespace tessera

#endif  // TESSERA_BACKENDS_CPU_DOT_CANONICALIZATION_H_
