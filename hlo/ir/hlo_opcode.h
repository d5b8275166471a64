// HloOpcode: XLA's complete opcode list, with the per-opcode facts every
// layer needs kept in one table (name, arity, category, flags) instead of
// switches copied across the code base.
#ifndef TESSERA_HLO_IR_HLO_OPCODE_H_
#define TESSERA_HLO_IR_HLO_OPCODE_H_

#include <cstdint>
#include <optional>
#include "absl/strings/string_view.h"

#include "absl/status/statusor.h"

namespace tessera {

// The category an op falls in for fusion, as the fusion literature names
// them (TVM/XLA): how its output elements depend on its input elements.
enum class OpCategory : uint8_t {
  kElementwise,  // out[i] = f(in0[i], in1[i], ...)
  kInjective,    // each output element reads one computed input element (data movement)
  kReduction,    // output elements combine many input elements
  kComplex,      // dot, convolution, fft ...: fusable only as an epilogue's producer
  kOpaque,       // control flow, calls, side effects, collectives: never fused
  kLeaf,         // parameter, constant, iota and friends: no operands to fuse
};

// Flags of the opcode table.
enum OpFlag : uint32_t {
  kNoFlags = 0,
  kCommutative = 1 << 0,     // binary and operand order does not matter
  kSideEffecting = 1 << 1,   // must not be removed, duplicated or reordered freely
  kTranscendental = 1 << 2,  // expensive per element (exp, log, tanh, ...)
  kCollective = 1 << 3,      // cross-replica or cross-partition communication
  kAsync = 1 << 4,           // a *-start / *-done / async-* half of an async pair
};

// V(enumerator, text name, arity (-1: variadic), category, flags)
#define TESSERA_HLO_OPCODE_LIST(V)                                                      \
  V(kAbs, "abs", 1, kElementwise, kNoFlags)                                             \
  V(kAcos, "acos", 1, kElementwise, kTranscendental)                                    \
  V(kAcosh, "acosh", 1, kElementwise, kTranscendental)                                  \
  V(kAdd, "add", 2, kElementwise, kCommutative)                                         \
  V(kAddDependency, "add-dependency", 2, kOpaque, kNoFlags)                             \
  V(kAfterAll, "after-all", -1, kOpaque, kNoFlags)                                      \
  V(kAllGather, "all-gather", -1, kOpaque, kCollective)                                 \
  V(kAllGatherDone, "all-gather-done", 1, kOpaque, kCollective | kAsync)                \
  V(kAllGatherStart, "all-gather-start", -1, kOpaque, kCollective | kAsync)             \
  V(kAllReduce, "all-reduce", -1, kOpaque, kCollective)                                 \
  V(kAllReduceDone, "all-reduce-done", 1, kOpaque, kCollective | kAsync)                \
  V(kAllReduceStart, "all-reduce-start", -1, kOpaque, kCollective | kAsync)             \
  V(kAllToAll, "all-to-all", -1, kOpaque, kCollective)                                  \
  V(kAnd, "and", 2, kElementwise, kCommutative)                                         \
  V(kAsin, "asin", 1, kElementwise, kTranscendental)                                    \
  V(kAsinh, "asinh", 1, kElementwise, kTranscendental)                                  \
  V(kAsyncDone, "async-done", 1, kOpaque, kAsync)                                       \
  V(kAsyncStart, "async-start", -1, kOpaque, kAsync)                                    \
  V(kAsyncUpdate, "async-update", -1, kOpaque, kAsync)                                  \
  V(kAtan, "atan", 1, kElementwise, kTranscendental)                                    \
  V(kAtan2, "atan2", 2, kElementwise, kTranscendental)                                  \
  V(kAtanh, "atanh", 1, kElementwise, kTranscendental)                                  \
  V(kBatchNormGrad, "batch-norm-grad", 5, kOpaque, kNoFlags)                            \
  V(kBatchNormInference, "batch-norm-inference", 5, kOpaque, kNoFlags)                  \
  V(kBatchNormTraining, "batch-norm-training", 3, kOpaque, kNoFlags)                    \
  V(kBitcast, "bitcast", 1, kInjective, kNoFlags)                                       \
  V(kBitcastConvert, "bitcast-convert", 1, kElementwise, kNoFlags)                      \
  V(kBroadcast, "broadcast", 1, kInjective, kNoFlags)                                   \
  V(kCall, "call", -1, kOpaque, kNoFlags)                                               \
  V(kCbrt, "cbrt", 1, kElementwise, kTranscendental)                                    \
  V(kCeil, "ceil", 1, kElementwise, kNoFlags)                                           \
  V(kCholesky, "cholesky", 1, kComplex, kNoFlags)                                       \
  V(kClamp, "clamp", 3, kElementwise, kNoFlags)                                         \
  V(kClz, "count-leading-zeros", 1, kElementwise, kNoFlags)                             \
  V(kCollectiveBroadcast, "collective-broadcast", -1, kOpaque, kCollective)             \
  V(kCollectivePermute, "collective-permute", -1, kOpaque, kCollective)                 \
  V(kCollectivePermuteDone, "collective-permute-done", 1, kOpaque, kCollective | kAsync) \
  V(kCollectivePermuteStart, "collective-permute-start", -1, kOpaque,                   \
    kCollective | kAsync)                                                               \
  V(kCollectiveReduce, "collective-reduce", -1, kOpaque, kCollective)                   \
  V(kCompare, "compare", 2, kElementwise, kNoFlags)                                     \
  V(kComplex, "complex", 2, kElementwise, kNoFlags)                                     \
  V(kConcatenate, "concatenate", -1, kInjective, kNoFlags)                              \
  V(kConditional, "conditional", -1, kOpaque, kNoFlags)                                 \
  V(kConstant, "constant", 0, kLeaf, kNoFlags)                                          \
  V(kConvert, "convert", 1, kElementwise, kNoFlags)                                     \
  V(kConvolution, "convolution", -1, kComplex, kNoFlags)                                \
  V(kCopy, "copy", 1, kInjective, kNoFlags)                                             \
  V(kCopyDone, "copy-done", 1, kOpaque, kAsync)                                         \
  V(kCopyStart, "copy-start", 1, kOpaque, kAsync)                                       \
  V(kCos, "cosine", 1, kElementwise, kTranscendental)                                   \
  V(kCosh, "cosh", 1, kElementwise, kTranscendental)                                    \
  V(kCustomCall, "custom-call", -1, kOpaque, kNoFlags)                                  \
  V(kDivide, "divide", 2, kElementwise, kNoFlags)                                       \
  V(kDomain, "domain", 1, kOpaque, kNoFlags)                                            \
  V(kDot, "dot", 2, kComplex, kNoFlags)                                                 \
  V(kDynamicReshape, "dynamic-reshape", -1, kOpaque, kNoFlags)                          \
  V(kDynamicSlice, "dynamic-slice", -1, kInjective, kNoFlags)                           \
  V(kDynamicUpdateSlice, "dynamic-update-slice", -1, kInjective, kNoFlags)              \
  V(kErf, "erf", 1, kElementwise, kTranscendental)                                      \
  V(kExp, "exponential", 1, kElementwise, kTranscendental)                              \
  V(kExpm1, "exponential-minus-one", 1, kElementwise, kTranscendental)                  \
  V(kFft, "fft", 1, kComplex, kNoFlags)                                                 \
  V(kFloor, "floor", 1, kElementwise, kNoFlags)                                         \
  V(kFusion, "fusion", -1, kOpaque, kNoFlags)                                           \
  V(kGather, "gather", 2, kInjective, kNoFlags)                                         \
  V(kGetDimensionSize, "get-dimension-size", 1, kOpaque, kNoFlags)                      \
  V(kGetTupleElement, "get-tuple-element", 1, kOpaque, kNoFlags)                        \
  V(kImag, "imag", 1, kElementwise, kNoFlags)                                           \
  V(kInfeed, "infeed", 1, kOpaque, kSideEffecting)                                      \
  V(kIota, "iota", 0, kLeaf, kNoFlags)                                                  \
  V(kIsFinite, "is-finite", 1, kElementwise, kNoFlags)                                  \
  V(kLog, "log", 1, kElementwise, kTranscendental)                                      \
  V(kLog1p, "log-plus-one", 1, kElementwise, kTranscendental)                           \
  V(kLogistic, "logistic", 1, kElementwise, kTranscendental)                            \
  V(kMap, "map", -1, kElementwise, kNoFlags)                                            \
  V(kMaximum, "maximum", 2, kElementwise, kCommutative)                                 \
  V(kMinimum, "minimum", 2, kElementwise, kCommutative)                                 \
  V(kMulhi, "mulhi", 2, kElementwise, kCommutative)                                     \
  V(kMultiply, "multiply", 2, kElementwise, kCommutative)                               \
  V(kNegate, "negate", 1, kElementwise, kNoFlags)                                       \
  V(kNot, "not", 1, kElementwise, kNoFlags)                                             \
  V(kOptimizationBarrier, "opt-barrier", 1, kOpaque, kNoFlags)                          \
  V(kOr, "or", 2, kElementwise, kCommutative)                                           \
  V(kOutfeed, "outfeed", 2, kOpaque, kSideEffecting)                                    \
  V(kPad, "pad", 2, kInjective, kNoFlags)                                               \
  V(kParameter, "parameter", 0, kLeaf, kNoFlags)                                        \
  V(kPartitionId, "partition-id", 0, kLeaf, kNoFlags)                                   \
  V(kPopulationCount, "popcnt", 1, kElementwise, kNoFlags)                              \
  V(kPower, "power", 2, kElementwise, kTranscendental)                                  \
  V(kRaggedAllToAll, "ragged-all-to-all", 6, kOpaque, kCollective)                      \
  V(kRaggedDot, "ragged-dot", 3, kComplex, kNoFlags)                                    \
  V(kReal, "real", 1, kElementwise, kNoFlags)                                           \
  V(kRecv, "recv", 1, kOpaque, kSideEffecting)                                          \
  V(kRecvDone, "recv-done", 1, kOpaque, kSideEffecting)                                 \
  V(kReduce, "reduce", -1, kReduction, kNoFlags)                                        \
  V(kReducePrecision, "reduce-precision", 1, kElementwise, kNoFlags)                    \
  V(kReduceScatter, "reduce-scatter", -1, kOpaque, kCollective)                         \
  V(kReduceWindow, "reduce-window", -1, kReduction, kNoFlags)                           \
  V(kRemainder, "remainder", 2, kElementwise, kNoFlags)                                 \
  V(kReplicaId, "replica-id", 0, kLeaf, kNoFlags)                                       \
  V(kReshape, "reshape", 1, kInjective, kNoFlags)                                       \
  V(kReverse, "reverse", 1, kInjective, kNoFlags)                                       \
  V(kRng, "rng", -1, kOpaque, kSideEffecting)                                           \
  V(kRngBitGenerator, "rng-bit-generator", 1, kOpaque, kNoFlags)                        \
  V(kRngGetAndUpdateState, "rng-get-and-update-state", 0, kOpaque, kSideEffecting)      \
  V(kRoundNearestAfz, "round-nearest-afz", 1, kElementwise, kNoFlags)                   \
  V(kRoundNearestEven, "round-nearest-even", 1, kElementwise, kNoFlags)                 \
  V(kRsqrt, "rsqrt", 1, kElementwise, kTranscendental)                                  \
  V(kScaledDot, "scaled-dot", 4, kComplex, kNoFlags)                                    \
  V(kScan, "scan", -1, kOpaque, kNoFlags)                                               \
  V(kScatter, "scatter", -1, kOpaque, kNoFlags)                                         \
  V(kSelect, "select", 3, kElementwise, kNoFlags)                                       \
  V(kSelectAndScatter, "select-and-scatter", 3, kOpaque, kNoFlags)                      \
  V(kSend, "send", 2, kOpaque, kSideEffecting)                                          \
  V(kSendDone, "send-done", 1, kOpaque, kSideEffecting)                                 \
  V(kSetDimensionSize, "set-dimension-size", 2, kOpaque, kNoFlags)                      \
  V(kShiftLeft, "shift-left", 2, kElementwise, kNoFlags)                                \
  V(kShiftRightArithmetic, "shift-right-arithmetic", 2, kElementwise, kNoFlags)         \
  V(kShiftRightLogical, "shift-right-logical", 2, kElementwise, kNoFlags)               \
  V(kShuffle, "shuffle", 1, kOpaque, kNoFlags)                                          \
  V(kSign, "sign", 1, kElementwise, kNoFlags)                                           \
  V(kSin, "sine", 1, kElementwise, kTranscendental)                                     \
  V(kSinh, "sinh", 1, kElementwise, kTranscendental)                                    \
  V(kSlice, "slice", 1, kInjective, kNoFlags)                                           \
  V(kSort, "sort", -1, kOpaque, kNoFlags)                                               \
  V(kSqrt, "sqrt", 1, kElementwise, kTranscendental)                                    \
  V(kStochasticConvert, "stochastic-convert", 2, kElementwise, kNoFlags)                \
  V(kSubtract, "subtract", 2, kElementwise, kNoFlags)                                   \
  V(kTan, "tan", 1, kElementwise, kTranscendental)                                      \
  V(kTanh, "tanh", 1, kElementwise, kTranscendental)                                    \
  V(kTopK, "topk", 1, kOpaque, kNoFlags)                                                \
  V(kTranspose, "transpose", 1, kInjective, kNoFlags)                                   \
  V(kTriangularSolve, "triangular-solve", 2, kComplex, kNoFlags)                        \
  V(kTuple, "tuple", -1, kOpaque, kNoFlags)                                             \
  V(kWhile, "while", 1, kOpaque, kNoFlags)                                              \
  V(kXor, "xor", 2, kElementwise, kCommutative)

enum class HloOpcode : uint8_t {
#define TESSERA_DECLARE_OPCODE(enum_name, ...) enum_name,
  TESSERA_HLO_OPCODE_LIST(TESSERA_DECLARE_OPCODE)
#undef TESSERA_DECLARE_OPCODE
};

inline constexpr int kHloOpcodeCount = 0
#define TESSERA_COUNT_OPCODE(...) +1
    TESSERA_HLO_OPCODE_LIST(TESSERA_COUNT_OPCODE)
#undef TESSERA_COUNT_OPCODE
    ;

// "add", "exponential", "get-tuple-element": the name in HLO text and protos.
absl::string_view HloOpcodeString(HloOpcode opcode);
absl::StatusOr<HloOpcode> StringToHloOpcode(absl::string_view name);

// The fixed operand count, or nullopt for variadic opcodes.
std::optional<int> HloOpcodeArity(HloOpcode opcode);
OpCategory HloOpcodeCategory(HloOpcode opcode);
bool HloOpcodeHasFlag(HloOpcode opcode, OpFlag flag);

inline bool HloOpcodeIsElementwise(HloOpcode op) {
  return HloOpcodeCategory(op) == OpCategory::kElementwise;
}
inline bool HloOpcodeIsCommutative(HloOpcode op) { return HloOpcodeHasFlag(op, kCommutative); }
inline bool HloOpcodeIsCollective(HloOpcode op) { return HloOpcodeHasFlag(op, kCollective); }

}  // namespace tessera

#endif  // TESSERA_HLO_IR_HLO_OPCODE_H_
