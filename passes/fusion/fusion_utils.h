// Building blocks shared by the fusion passes: how an op behaves under
// fusion (its class in the literature's terms), what a fusion "is" (its hero,
// its size, its iteration space), and one primitive that turns any convex set
// of instructions into a fusion instruction.
//
// FuseInstructions is the only place that edits the graph.  Every fusion the
// passes make goes through it:
//
//   producer into consumer        {producer, consumer}
//   producer duplicated           {producer, consumer}, duplicate = {producer}
//   producer as an extra output   {producer, consumer} where the producer has
//                                 users outside: it becomes a tuple element
//   siblings / horizontal         {a, b, ...}: every member is an output
//
// Members that are fusions are inlined (their fused computations disappear);
// a tuple-shaped (multi-output) fusion member brings its get-tuple-element
// users along.  Members with users outside the set, or the computation's
// root, become outputs: one output gives a fusion of that shape, several a
// fusion with a tuple root read through get-tuple-elements, which take the
// names of the values they replace.  Fused computations are named
// "fused_computation[.N]", their parameters "param_0", "param_1", ... and
// cloned instructions keep their names (names are unique per computation,
// as the IR requires; the module's name table is not probed per name).
#ifndef TESSERA_PASSES_FUSION_FUSION_UTILS_H_
#define TESSERA_PASSES_FUSION_FUSION_UTILS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "hlo/ir/hlo_computation.h"
#include "hlo/ir/hlo_instruction.h"
#include "hlo/ir/hlo_module.h"

namespace tessera {

// How an op behaves under fusion (TVM's and XLA's categories).
enum class FusionOpClass : uint8_t {
  kElementwise,        // out[i] = f(in[i], ...): fuses anywhere
  kInjective,          // data movement, each output element reads one input element
                       // (broadcast, reshape, transpose, slice, concatenate, pad,
                       // dynamic-slice, reverse, copy, bitcast, gather)
  kReduction,          // reduce, reduce-window: the hero of a kInput fusion
  kComplexOutFusable,  // dot, convolution: the hero of a kOutput fusion (epilogue only)
  kLeaf,               // constant, iota: no operands, fused by duplication
  kOpaque,             // parameters, control flow, calls, custom-calls, sort,
                       // scatter, rng, collectives, tuple plumbing, in-place
                       // updates, and anything with a side effect: never fused
};

absl::string_view FusionOpClassName(FusionOpClass op_class);  // "elementwise", ...

// The class of one (non-fusion) instruction; a fusion instruction is kOpaque
// here (callers look inside with the helpers below).
FusionOpClass ClassifyForFusion(const HloInstruction& instruction);

// Expensive per element or in total, so never computed twice: transcendentals,
// divide, remainder, power, and the heroes (reduce, reduce-window, dot,
// convolution).  For a fusion: whether any fused instruction is.
bool IsExpensive(const HloInstruction& instruction);

// The instructions that decide a fusion's kind and iteration space: reduce
// (kInput), dot and convolution (kOutput).  For a plain instruction, itself
// when it is one; for a fusion, those inside.
std::vector<const HloInstruction*> FindHeroes(const HloInstruction& instruction);

// kOutput if the fused computation holds a dot or convolution, kInput if it
// holds a reduce, else kLoop.
FusionKind InferFusionKind(const HloComputation& fused_computation);

// Instructions a fusion node would contribute to a kernel's work: those of
// the fused computation, or the instruction itself, less the ones that
// emit no work per element (parameters, constants, broadcasts of a scalar
// or constant, bitcasts, tuples and their elements).  JAX expands erf,
// erfc, lgamma and the like into long polynomials with a constant and a
// broadcast per coefficient; counting those halved what one kernel could
// hold and left 16 MB broadcasts of scalars materialized.
int64_t FusedInstructionCount(const HloInstruction& instruction);

// Dimensions with the size-1 ones dropped: two shapes are in the same
// iteration space when these are equal (f32[8,1] and f32[8]).
std::vector<int64_t> NonDegenerateDimensions(const Shape& shape);
bool SameIterationSpace(const Shape& a, const Shape& b);
// The space a node iterates over: the input of its reduce hero, else its
// (first) output.
std::vector<int64_t> IterationSpace(const HloInstruction& instruction);

// A reshape or bitcast that only adds or removes size-1 dimensions.
bool IsDegenerateReshape(const HloInstruction& instruction);

// Bytes a kernel reading `instruction`'s value would touch if the value
// were computed inside it: a broadcast costs its operand, a scalar constant
// or iota nothing.
int64_t EffectiveReadBytes(const HloInstruction& instruction);

// The computations fusion works on: the entry and, transitively, the bodies,
// conditions, branches and callees of while, conditional and call.  Reducers,
// comparators, scatter combiners and fused computations are left alone.
std::vector<HloComputation*> FusionTargetComputations(const HloModule& module);

// Kernel launches a backend would make for a computation: every instruction
// but parameters, constants, tuples, get-tuple-elements, bitcasts and control
// flow (whose bodies count separately).  Summed over the target computations
// for a module.
int64_t CountKernels(const HloComputation& computation);
int64_t CountKernels(const HloModule& module);

// XLA's fusion instruction names: "add_fusion", "reduce_fusion" after the
// fused root's opcode, "fusion" for a tuple root.
std::string FusionInstructionBaseName(const HloComputation& fused_computation);

// Which instructions can reach which, within one computation (operands and
// control edges).  Built in O(n^2/64); not updated by edits: rebuild it.
class ReachabilityMap {
 public:
  explicit ReachabilityMap(const HloComputation& computation);
  // A path from `from` to `to` (true when equal).  False for instructions
  // the map has not seen.
  bool IsReachable(const HloInstruction* from, const HloInstruction* to) const;
  bool IsConnected(const HloInstruction* a, const HloInstruction* b) const {
    return IsReachable(a, b) || IsReachable(b, a);
  }
  bool Contains(const HloInstruction* instruction) const {
    return index_.contains(instruction);
  }

 private:
  absl::flat_hash_map<const HloInstruction*, int64_t> index_;
  int64_t words_ = 0;
  std::vector<uint64_t> ancestors_;  // row i: bit j set when j reaches i
};

struct FuseOptions {
  // Members computed inside the fusion but kept outside too for their other
  // users (a cheap producer duplicated into one consumer); they never become
  // outputs and are removed when left without users.  Their operands must
  // not be other members.
  absl::flat_hash_set<HloInstruction*> duplicate;
  // The fusion's kind; inferred from the fused computation when absent.
  std::optional<FusionKind> kind;
  // Base names; the module makes them unique.  Empty: "fused_computation"
  // and FusionInstructionBaseName.
  std::string computation_name;
  std::string instruction_name;
  // A fusion member whose names (instruction and fused computation) the new
  // fusion takes over, as when a consumer fusion grows by one producer.
  HloInstruction* inherit_names = nullptr;
  // Refuse sets that are not convex (a path leaves the set and comes back,
  // so the fusion would depend on itself).  Producer-into-consumer fusion
  // cannot make such a path and may skip the walk.
  bool check_cycles = true;
};

// Replaces `members` (instructions of `computation`) by one fusion
// instruction and returns it.  Errors, leaving the module unchanged, when a
// member is not fusible here (parameter, control dependencies, a tuple-shaped
// non-fusion, a tuple fusion used other than by get-tuple-element or as the
// root), when the set is not convex, or when nothing would be an output.
// A module with a schedule loses it (fusion comes before scheduling).
absl::StatusOr<HloInstruction*> FuseInstructions(HloComputation* computation,
                                                 absl::Span<HloInstruction* const> members,
                                                 const FuseOptions& options = {});

// Whether fusing `members` (with `duplicate` among them) would make the
// computation cyclic: some path leaves the set and re-enters it.
bool FusionWouldCreateCycle(const absl::flat_hash_set<HloInstruction*>& members,
                            const absl::flat_hash_set<HloInstruction*>& duplicate = {});

// The common shapes of FuseInstructions.
// `producer` into `consumer` (a fusion or a plain instruction); with
// `duplicate`, the producer stays for its other users.  Without it, the
// producer's other users (if any) read it as an extra output.  A consumer
// fusion that stays single-output keeps its names.
absl::StatusOr<HloInstruction*> FuseProducerIntoConsumer(HloInstruction* producer,
                                                         HloInstruction* consumer,
                                                         bool duplicate);
// A single instruction wrapped in a fusion of its own.
absl::StatusOr<HloInstruction*> WrapInFusion(HloInstruction* instruction);
// Two nodes (fusions or plain) with no path between them: one multi-output
// fusion.
absl::StatusOr<HloInstruction*> MergeSiblings(HloInstruction* a, HloInstruction* b);

}  // namespace tessera

#endif  // TESSERA_PASSES_FUSION_FUSION_UTILS_H_
