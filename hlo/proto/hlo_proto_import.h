// Import: a serialized or parsed xla::HloModuleProto -> tessera::HloModule.
//
// Protos come from untrusted clients (JAX, XLA dumps, the gRPC service), so
// nothing in them is trusted: every id is resolved through a table (ids are
// arbitrary int64s, as JAX writes them), computations may be listed in any
// order relative to their callers and instructions in any order relative to
// their operands, and anything malformed is an InvalidArgument error whose
// message names the computation and instruction.  What import checks is
// what it needs to build a sound graph: opcodes, shapes, literals, enum
// values, ids, operands, called computations, roots, parameter numbers,
// tuple indices, cycles.  The semantics of each op (operand shapes,
// attribute consistency) are the verifier's job (hlo/analysis).
//
// Names, instruction order and layouts are kept as given.  Instructions and
// computations get fresh unique ids in the module; the proto's ids are only
// used to resolve references.
#ifndef TESSERA_HLO_PROTO_HLO_PROTO_IMPORT_H_
#define TESSERA_HLO_PROTO_HLO_PROTO_IMPORT_H_

#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "hlo/ir/hlo_module.h"
#include "hlo/proto/hlo.pb.h"

namespace tessera {

absl::StatusOr<std::unique_ptr<HloModule>> ImportHloModuleProto(const xla::HloModuleProto& proto);

// Parses the wire bytes of an HloModuleProto (e.g. JAX's `module.pb`), then
// imports it.  Bytes that do not parse are an InvalidArgument error.
absl::StatusOr<std::unique_ptr<HloModule>> ParseHloModuleProtoBytes(std::string_view bytes);

}  // namespace tessera

#endif  // TESSERA_HLO_PROTO_HLO_PROTO_IMPORT_H_
