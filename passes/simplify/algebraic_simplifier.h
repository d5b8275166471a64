// AlgebraicSimplifier ("algsimp"): local rewrites that make a computation
// smaller or cheaper without changing what it computes.
//
// The rules are a table (one entry per rule, keyed by the opcode of the
// instruction they rewrite) split by family:
//   algsimp_arithmetic.cc  identities and annihilators, negation, logic,
//                          canonical operand order, integer reassociation,
//                          compare, select, power and division strength
//                          reduction, exact unary folds;
//   algsimp_shape_ops.cc   convert, copy, bitcast, reshape, transpose,
//                          broadcast;
//   algsimp_slicing.cc     slice, pad, concatenate, dynamic-slice,
//                          dynamic-update-slice;
//   algsimp_dot_reduce.cc  reduce and dot.
// Operations producing zero-element arrays become empty constants.
//
// Every rule keeps the results bit-for-bit on the reference evaluator
// (integers wrap, floats follow IEEE 754 including signed zeros) unless
// `enable_fast_math` allows a relaxation, which the rule's comment names.
// As in IEEE 754, the payload and sign of a NaN made by arithmetic are not
// kept: a NaN stays a NaN (x * -1 -> -x may flip a NaN's sign bit).  A rule replaces an instruction by an existing one
// only when their shapes are equal including the layout; new instructions
// take the replaced instruction's shape (so its layout) and metadata, and
// intermediate ones the row-major layout.  Instructions with side effects or
// control edges are left alone, and so are fusion computations.
#ifndef TESSERA_PASSES_SIMPLIFY_ALGEBRAIC_SIMPLIFIER_H_
#define TESSERA_PASSES_SIMPLIFY_ALGEBRAIC_SIMPLIFIER_H_

#include <cstdint>
#include <map>
#include <string>

#include "passes/hlo_pass.h"

namespace tessera {

struct AlgebraicSimplifierOptions {
  // Relaxations of IEEE semantics: x + (+0) -> x, x - (-0) -> x (no signed
  // zeros), power(x, 0.5) -> sqrt(x) (differs at -0 and -inf),
  // exp(log(x)) -> x and log(exp(x)) -> x (not exact: rounding, overflow,
  // negative inputs), and dot -> multiply without the +0 that turns a -0
  // product into +0 as the dot's accumulator does.
  bool enable_fast_math = false;
  // dot whose contracting dimensions all have size 1 (or that has none)
  // becomes a multiply of broadcasts.
  bool enable_dot_to_multiply = true;
  // Operand transposes of a dot are folded into its dimension numbers.
  // When off, dot(transpose(A), transpose(B)) of matrices becomes
  // transpose(dot(B, A)) instead.
  bool enable_dot_transpose_folding = true;
  // Sweeps over one computation until nothing changes, at most this many.
  int64_t max_iterations = 16;
};

class AlgebraicSimplifier : public HloPass {
 public:
  explicit AlgebraicSimplifier(AlgebraicSimplifierOptions options = {}) : options_(options) {}
  absl::string_view name() const override { return "algsimp"; }
  absl::StatusOr<bool> Run(HloModule* module) override;

  const AlgebraicSimplifierOptions& options() const { return options_; }
  // How often each rule fired, by rule name, over every Run so far.
  const std::map<std::string, int64_t>& rule_counts() const { return rule_counts_; }

 private:
  AlgebraicSimplifierOptions options_;
  std::map<std::string, int64_t> rule_counts_;
};

}  // namespace tessera

#endif  // TESSERA_PASSES_SIMPLIFY_ALGEBRAIC_SIMPLIFIER_H_
