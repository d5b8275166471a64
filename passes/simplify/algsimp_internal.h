// Internals of the AlgebraicSimplifier shared by its rule families: the
// rule table entry, the Rewriter through which rules change the graph, and
// helpers for constants and shapes.  Not a public API.
#ifndef TESSERA_PASSES_SIMPLIFY_ALGSIMP_INTERNAL_H_
#define TESSERA_PASSES_SIMPLIFY_ALGSIMP_INTERNAL_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "hlo/analysis/side_effects.h"
#include "hlo/ir/hlo_computation.h"
#include "hlo/ir/hlo_instruction.h"
#include "hlo/ir/literal.h"
#include "passes/simplify/algebraic_simplifier.h"

namespace tessera {
namespace algsimp {

// Changes the graph on behalf of a rule.  Replacements keep the graph
// consistent and remove what became dead (never side-effecting
// instructions, parameters or instructions with control edges).
class Rewriter {
 public:
  Rewriter(HloComputation* computation, const AlgebraicSimplifierOptions& options,
           SideEffectAnalysis* effects)
      : computation_(computation), options_(options), effects_(effects) {}

  const AlgebraicSimplifierOptions& options() const { return options_; }
  bool fast_math() const { return options_.enable_fast_math; }

  // Adds a new instruction that stands for (part of) `origin`, taking its
  // metadata.
  HloInstruction* Add(std::unique_ptr<HloInstruction> instruction, const HloInstruction* origin);

  // Replaces `old` by the existing `replacement` when their shapes are
  // equal, layout included; returns false (and changes nothing) otherwise.
  absl::StatusOr<bool> Replace(HloInstruction* old, HloInstruction* replacement);
  // Adds `replacement` (built with old's shape) in place of `old`.
  absl::StatusOr<bool> ReplaceWithNew(HloInstruction* old,
                                      std::unique_ptr<HloInstruction> replacement);

 private:
  absl::Status RemoveDead(HloInstruction* instruction);

  HloComputation* computation_;
  const AlgebraicSimplifierOptions& options_;
  SideEffectAnalysis* effects_;
};

// A rule rewrites an instruction of one opcode.  It returns true when it
// changed the graph; the instruction may then be gone.
using RuleFn = absl::StatusOr<bool> (*)(HloInstruction* instruction, Rewriter& rewriter);
struct Rule {
  HloOpcode opcode;
  absl::string_view name;
  RuleFn fn;
};

absl::Span<const Rule> ArithmeticRules();
absl::Span<const Rule> ShapeOpRules();
absl::Span<const Rule> SlicingRules();
absl::Span<const Rule> DotReduceRules();
absl::Span<const Rule> FftRules();

// ---------------------------------------------------------------------------
// Types.

inline bool IsInt(PrimitiveType type) { return IsIntegralType(type); }
inline bool IsFloat(PrimitiveType type) { return IsFloatingPointType(type); }
inline bool IsIntOrPred(PrimitiveType type) { return type == PRED || IsIntegralType(type); }
inline PrimitiveType ElementType(const HloInstruction* h) { return h->shape().element_type(); }

// ---------------------------------------------------------------------------
// Constants.

// The value of a constant whose elements are all bitwise equal (or of a
// broadcast of one), as a scalar literal; nullopt for anything else.
std::optional<Literal> UniformValue(const HloInstruction* instruction);
// A scalar of `type` holding `value` (complex: value + 0i); nullopt when the
// type cannot hold it exactly (e.g. -1 for unsigned types).
std::optional<Literal> ScalarOf(PrimitiveType type, double value);
// All-ones bits: -1 for integers, true for PRED.
Literal AllOnesOf(PrimitiveType type);
// The identity of maximum / minimum: -inf / +inf for floats, the lowest /
// highest value for integers.
Literal LowestOf(PrimitiveType type);
Literal HighestOf(PrimitiveType type);
// True when `instruction` is a uniform constant bitwise equal to `value`.
bool IsUniform(const HloInstruction* instruction, const Literal& value);
bool IsUniform(const HloInstruction* instruction, double value);
// A constant, or a broadcast of a constant.
bool IsConstantLike(const HloInstruction* instruction);

// A constant `scalar` of shape `like` (a scalar constant broadcast when
// `like` has dimensions), with `like`'s layout, standing for `origin`.
HloInstruction* MakeUniform(Rewriter& rewriter, const Literal& scalar, const Shape& like,
                            const HloInstruction* origin);

// `op(lhs, rhs)` (or the comparison `direction`) evaluated on constants.
absl::StatusOr<Literal> FoldBinary(HloOpcode opcode, const Literal& lhs, const Literal& rhs);

// ---------------------------------------------------------------------------
// Shapes.

// An array shape for an intermediate instruction: row-major layout when
// `like` has a layout, none otherwise.
Shape IntermediateShape(PrimitiveType type, std::vector<int64_t> dimensions, const Shape& like);
// `operand` broadcast to `shape` (dimensions of `operand` mapped to
// `dimensions`); `operand` itself when nothing would change.
HloInstruction* BroadcastTo(Rewriter& rewriter, HloInstruction* operand, const Shape& shape,
                            std::vector<int64_t> dimensions, const HloInstruction* origin);
bool IsIdentityPermutation(absl::Span<const int64_t> permutation);

// The opcode of a reducer computation whose root is one binary elementwise
// op of its two parameters; `accumulator_first` says whether the
// accumulator (parameter 0) is the op's lhs.
struct BinaryReducer {
  HloOpcode opcode;
  bool accumulator_first;
};
std::optional<BinaryReducer> AsBinaryReducer(const HloComputation* reducer);
// `reducer(accumulator, value)` as one elementwise op with `shape`.
std::unique_ptr<HloInstruction> ApplyReducer(const BinaryReducer& reducer, const Shape& shape,
                                             HloInstruction* accumulator, HloInstruction* value);

}  // namespace algsimp
}  // namespace tessera

#endif  // TESSERA_PASSES_SIMPLIFY_ALGSIMP_INTERNAL_H_
