// The fusion cost model: every "fuse or not" of the fusion passes is a
// FusionDecision from here, with the reason in words, so that each decision
// can be explained (`tessera opt --explain_fusion`).
//
// Rules, in the order they are checked:
//   - Only fusible ops fuse: elementwise, injective (data movement), leaves
//     (scalar constants, iota), reductions and dot/convolution; opaque ops
//     (control flow, calls, custom-calls, sort, scatter, rng, collectives,
//     anything with a side effect or control dependencies) never do.
//   - One hero per vertical fusion: a reduce (kInput) or a dot/convolution
//     (kOutput).  A hero fuses into its consumer only as an epilogue: the
//     consumer uses the hero's result through elementwise ops (and size-1
//     reshapes) in the hero's own output space.  Nothing fuses into a
//     dot/convolution's operands.
//   - An expensive producer (transcendental, divide, power, a hero) is never
//     duplicated, nor fused where the consumer would read each of its
//     elements several times (a broadcast, a window, a dot).
//   - A producer with users other than the consumer is duplicated only when
//     cheap and small, when every user can absorb it (so it disappears), and
//     when the bytes saved stay positive:
//        saved = (users + 1) * |producer| - (users - 1) * |producer's inputs|
//   - Caps: instructions per fused computation and operands per fusion.
#ifndef TESSERA_PASSES_FUSION_FUSION_COST_MODEL_H_
#define TESSERA_PASSES_FUSION_FUSION_COST_MODEL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "hlo/analysis/side_effects.h"
#include "hlo/ir/hlo_instruction.h"

namespace tessera {

struct FusionCostParams {
  // Caps on one fusion.
  int64_t max_fused_instructions = 128;
  int64_t max_fusion_operands = 64;
  // Duplicating cheap producers into several consumers.
  bool allow_duplication = true;
  int64_t max_duplicated_instructions = 8;
  // Constants with at most this many elements fuse (by duplication); larger
  // ones keep their own (read-only) buffer.
  int64_t max_fused_constant_elements = 1;
  // Epilogues: elementwise consumers of a reduce (kInput) and of a
  // dot/convolution (kOutput).
  bool fuse_reduce_epilogue = true;
  bool fuse_dot_epilogue = true;
  // Row fusion: reductions over the trailing dimensions of rows of at most
  // `max_row_bytes` fuse into consumers that read them back over each row
  // through broadcasts (softmax, layer norm: one kernel, each row read from
  // memory once and kept in cache for its passes).  Only elementwise ops,
  // broadcasts and such reductions over one row space join; a backend runs
  // each row's reductions once, then the rest of the row.
  bool fuse_row_reductions = true;
  int64_t max_row_bytes = 64 * 1024;

  // Multi-output fusion: siblings must share an operand at least this large.
  int64_t min_shared_operand_bytes = 64;

  // Horizontal fusion: candidates with at most this many output elements,
  // at most this many per group and this many fused instructions per group.
  int64_t horizontal_max_output_elements = 1 << 16;
  int64_t horizontal_max_count = 32;
  int64_t horizontal_max_fused_instructions = 256;
};

struct FusionDecision {
  bool fuse = false;
  std::string reason;

  static FusionDecision Yes(std::string reason) { return {true, std::move(reason)}; }
  static FusionDecision No(std::string reason) { return {false, std::move(reason)}; }
  explicit operator bool() const { return fuse; }
};

// One candidate a pass considered.  For vertical and extra-output fusion
// `producer` went (or not) into `consumer`; for sibling and horizontal
// fusion `producer` is the candidate and `consumer` the node it joined (or
// would have); a decision about one instruction alone has consumer ==
// producer.
struct FusionExplanation {
  std::string pass;
  std::string consumer;
  std::string producer;
  bool fused = false;
  std::string reason;
};

// One line each, newline-terminated, for `tessera opt --explain_fusion`:
//   fusion: %exp -> %add: not fused (expensive exponential has 2 users: ...)
//   horizontal-fusion: %reduce_fusion: not fused (... not a loop)
std::string ExplainFusion(absl::Span<const FusionExplanation> explanations);
std::string ExplainFusion(const FusionExplanation& explanation);

// Collects a pass's explanations into a caller's list (or nowhere), once per
// distinct (consumer, producer, decision).
class FusionExplanationLog {
 public:
  FusionExplanationLog(std::vector<FusionExplanation>* out, absl::string_view pass)
      : out_(out), pass_(pass) {}
  void Record(const HloInstruction& consumer, const HloInstruction& producer,
              const FusionDecision& decision);
  bool enabled() const { return out_ != nullptr; }

 private:
  std::vector<FusionExplanation>* out_;
  std::string pass_;
  absl::flat_hash_set<std::string> seen_;
};

class FusionCostModel {
 public:
  explicit FusionCostModel(FusionCostParams params = {}) : params_(params) {}
  const FusionCostParams& params() const { return params_; }

  // Whether `instruction` may be placed in a fusion at all (an instruction
  // of a fusible class, or a kLoop/kInput/kOutput fusion), and why not.
  FusionDecision IsFusible(const HloInstruction& instruction);
  // Whether `instruction` may take producers (a fusible op with operands,
  // not a bitcast), and why not.
  FusionDecision IsConsumer(const HloInstruction& instruction);
  bool CanBeConsumer(const HloInstruction& instruction);

  // Producer into consumer, ignoring the producer's other users: op classes,
  // heroes and epilogues, re-reads of expensive values, caps.
  FusionDecision CanFuseIntoConsumer(const HloInstruction& producer,
                                     const HloInstruction& consumer);
  // The vertical decision: CanFuseIntoConsumer plus the duplication rules
  // when the producer has other users.
  FusionDecision ShouldFuse(const HloInstruction& producer, const HloInstruction& consumer);

  // Multi-output: `producer` (with users outside `consumer`) into `consumer`
  // as an extra output.  Cycles are the caller's to check.
  FusionDecision ShouldFuseAsExtraOutput(const HloInstruction& producer,
                                         const HloInstruction& consumer);
  // Multi-output: two users of `shared` into one fusion.  Cycles are the
  // caller's to check.
  FusionDecision ShouldFuseSiblings(const HloInstruction& a, const HloInstruction& b,
                                    const HloInstruction& shared);

  // Horizontal: whether `instruction` is a small independent kernel that may
  // join a horizontal group.
  FusionDecision IsHorizontalCandidate(const HloInstruction& instruction);

  // How many times the consumer reads each element of the producer's value
  // (1 for elementwise use; the fan-out of a broadcast; a window's size).
  static int64_t ReuseFactor(const HloInstruction& producer, const HloInstruction& consumer);
  // Operands the fusion of producer into consumer would have.
  static int64_t FusedOperandCount(const HloInstruction& producer,
                                   const HloInstruction& consumer, bool duplicate);

 private:
  // Extra output where both hold reductions: the same reduction shape, the
  // producer's result read only by the consumer's epilogue.
  FusionDecision ReductionIntoReductionEpilogue(const HloInstruction& producer,
                                                const HloInstruction& consumer);
  FusionDecision CheckEpilogue(const HloInstruction& producer, const HloInstruction& hero,
                               const HloInstruction& consumer);
  // The caps on one fusion's instructions and operands.
  FusionDecision CheckCaps(const HloInstruction& producer, const HloInstruction& consumer);
  // Row fusion (FusionCostParams::fuse_row_reductions): the producer holds
  // row reductions whose results the consumer reads back over each row
  // through broadcasts.  Nullopt when the pair is not of that form (the
  // other rules decide); else the decision.
  std::optional<FusionDecision> CheckRowFusion(const HloInstruction& producer,
                                               const HloInstruction& consumer);

  FusionCostParams params_;
  SideEffectAnalysis effects_;
};

}  // namespace tessera

#endif  // TESSERA_PASSES_FUSION_FUSION_COST_MODEL_H_
