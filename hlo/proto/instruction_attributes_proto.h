// The attribute fields of xla::HloInstructionProto <-> the IR's
// HloAttributes, which mirrors them field by field.  Graph fields (id,
// operand ids, called computations, control predecessors), the name, the
// opcode and the shape are the import/export drivers' business.
//
// Defaults: where the IR's default differs from proto3's zero value
// (feature_group_count and batch_group_count are 1, a custom call's API
// version is API_VERSION_ORIGINAL), a zero in the proto means the IR
// default, and export writes the value only when it is not the default,
// except where XLA always writes it (a fusion's kind, a compare's direction,
// a custom call's API version, a convolution's group counts).
#ifndef TESSERA_HLO_PROTO_INSTRUCTION_ATTRIBUTES_PROTO_H_
#define TESSERA_HLO_PROTO_INSTRUCTION_ATTRIBUTES_PROTO_H_

#include "absl/status/status.h"
#include "hlo/ir/hlo_instruction.h"
#include "hlo/proto/hlo.pb.h"

namespace tessera {

// Reads every attribute `proto` carries into `attributes`.  `shape` is the
// instruction's (already validated) shape, which a constant's literal must
// match.  Errors name the field and what is wrong with it; callers prefix
// the instruction.
absl::Status InstructionAttributesFromProto(const xla::HloInstructionProto& proto,
                                            HloOpcode opcode, const Shape& shape,
                                            HloAttributes* attributes);

// Writes `attributes` into `proto`.  Fails only for a literal that cannot be
// serialized (a layout that is not a permutation).
absl::Status InstructionAttributesToProto(HloOpcode opcode, const HloAttributes& attributes,
                                          xla::HloInstructionProto* proto);

}  // namespace tessera

#endif  // TESSERA_HLO_PROTO_INSTRUCTION_ATTRIBUTES_PROTO_H_
