// Collectives on a single participant: the evaluator runs one replica of
// one partition, so every replica group holds just that device.  all-reduce,
// all-gather, reduce-scatter, all-to-all and collective-broadcast return
// their operands; collective-permute copies its operand when (0,0) is one
// of its source-target pairs and gives zeros otherwise; replica-id and
// partition-id are 0.  A collective whose groups (or the module's replica
// and partition counts) need more participants is an UnimplementedError.
#include <algorithm>

#include "hlo/evaluator/evaluator_internal.h"
#include "hlo/ir/hlo_module.h"
#include "hlo/ir/hlo_opcode.h"

namespace tessera {
namespace evaluator_internal {
namespace {

absl::Status ExpectOneParticipant(const HloInstruction& hlo) {
  const int64_t size = CollectiveGroupSize(hlo);
  if (size > 1) {
    return absl::UnimplementedError(absl::StrCat(
        HloOpcodeString(hlo.opcode()), " over ", size,
        " participants is not supported by the evaluator, which runs one"));
  }
  return absl::OkStatus();
}

// The operands themselves: one array, or a tuple of them.
absl::StatusOr<Literal> Identity(Operands operands) {
  if (operands.empty()) return InvalidArgument("needs at least one operand");
  if (operands.size() == 1) return *operands[0];
  std::vector<Literal> elements;
  for (const Literal* operand : operands) elements.push_back(*operand);
  return Literal::MakeTuple(std::move(elements));
}

absl::StatusOr<Literal> CollectivePermute(const HloInstruction& hlo, Operands operands) {
  if (operands.empty()) return InvalidArgument("collective-permute needs an operand");
  const auto& pairs = hlo.attrs().source_target_pairs;
  const bool to_self = std::any_of(pairs.begin(), pairs.end(), [](const auto& pair) {
    return pair.first == 0 && pair.second == 0;
  });
  if (to_self) return *operands[0];
  return MakeLiteral(operands[0]->shape());
}

// A *-start whose shape is (operand, result, ...): both hold the value.
absl::StatusOr<Literal> StartTuple(const HloInstruction& hlo, Literal value) {
  if (!hlo.shape().IsTuple()) return value;
  TS_ASSIGN_OR_RETURN(Literal out, MakeLiteral(hlo.shape()));
  if (out.tuple_size() < 2) return InvalidArgument("bad start shape");
  out.mutable_tuple_element(0) = value;
  out.mutable_tuple_element(1) = std::move(value);
  return out;
}

// A *-done: element 1 of a start tuple, or the value itself.
absl::StatusOr<Literal> DoneValue(const HloInstruction& hlo, Operands operands) {
  TS_RETURN_IF_ERROR(ExpectOperandCount(hlo, operands, 1));
  const Literal& start = *operands[0];
  if (start.shape().IsTuple() && !hlo.shape().IsTuple() && start.tuple_size() >= 2) {
    return start.tuple_element(1);
  }
  return start;
}

}  // namespace

absl::StatusOr<Literal> EvaluateCollective(const HloInstruction& hlo, Operands operands) {
  switch (hlo.opcode()) {
    case HloOpcode::kReplicaId:
    case HloOpcode::kPartitionId:
      return MakeLiteral(hlo.shape());  // 0
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kAllGather:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kAllToAll:
    case HloOpcode::kCollectiveBroadcast:
      TS_RETURN_IF_ERROR(ExpectOneParticipant(hlo));
      return Identity(operands);
    case HloOpcode::kAllGatherStart: {
      TS_RETURN_IF_ERROR(ExpectOneParticipant(hlo));
      TS_ASSIGN_OR_RETURN(Literal value, Identity(operands));
      return StartTuple(hlo, std::move(value));
    }
    case HloOpcode::kCollectivePermute:
      return CollectivePermute(hlo, operands);
    case HloOpcode::kCollectivePermuteStart: {
      TS_ASSIGN_OR_RETURN(Literal value, CollectivePermute(hlo, operands));
      if (!hlo.shape().IsTuple()) return value;
      TS_ASSIGN_OR_RETURN(Literal out, MakeLiteral(hlo.shape()));
      if (out.tuple_size() < 2 || operands.empty()) return InvalidArgument("bad start shape");
      out.mutable_tuple_element(0) = *operands[0];
      out.mutable_tuple_element(1) = std::move(value);
      return out;
    }
    case HloOpcode::kAllReduceDone:
    case HloOpcode::kAllGatherDone:
    case HloOpcode::kCollectivePermuteDone:
      return DoneValue(hlo, operands);
    default:
      return absl::UnimplementedError(
          absl::StrCat(HloOpcodeString(hlo.opcode()), " is not supported by the evaluator"));
  }
}

}  // namespace evaluator_internal
}  // namespace tessera
