// Export: tessera::HloModule -> xla::HloModuleProto, written the way XLA's
// own serializer writes it, so that XLA (and JAX) can load the result:
// instruction and computation ids are the IR's unique ids, references are by
// id, computations come callees first with the entry last, instructions come
// operands first, every array shape carries a layout (the row-major one where
// the IR has none), and the module carries entry_computation_name/id and the
// host_program_shape.
#ifndef TESSERA_HLO_PROTO_HLO_PROTO_EXPORT_H_
#define TESSERA_HLO_PROTO_HLO_PROTO_EXPORT_H_

#include <string>

#include "absl/status/statusor.h"
#include "hlo/ir/hlo_module.h"
#include "hlo/proto/hlo.pb.h"

namespace tessera {

// Errors for a module that cannot be written as a valid proto: no entry, a
// computation without a root, an operand from another computation, a called
// computation outside the module, repeated ids.
absl::StatusOr<xla::HloModuleProto> ExportHloModuleProto(const HloModule& module);

// ExportHloModuleProto, serialized to wire bytes.
absl::StatusOr<std::string> SerializeHloModule(const HloModule& module);

}  // namespace tessera

#endif  // TESSERA_HLO_PROTO_HLO_PROTO_EXPORT_H_
