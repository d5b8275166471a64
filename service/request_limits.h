// What one request may cost the server, checked before anything is
// allocated: the bytes of every value a module would make or a literal
// would hold, with overflow-safe arithmetic, so that a shape such as
// f32[1000000000000] is refused (RESOURCE_EXHAUSTED) rather than tried.
#ifndef TESSERA_SERVICE_REQUEST_LIMITS_H_
#define TESSERA_SERVICE_REQUEST_LIMITS_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hlo/ir/hlo_module.h"
#include "hlo/ir/literal.h"
#include "hlo/ir/shape.h"
#include "hlo/proto/hlo.pb.h"

namespace tessera {
namespace service {

// The bytes a value of `shape` takes, or RESOURCE_EXHAUSTED past `limit`
// (overflow included); INVALID_ARGUMENT for a negative dimension.  `what`
// names the value in the message.
absl::StatusOr<int64_t> CheckedBytes(const Shape& shape, int64_t limit, absl::string_view what);

// Every value the module's instructions would make is within `limit`.
absl::Status CheckModuleValueSizes(const HloModule& module, int64_t limit);

// A literal from the wire, its size checked before anything is allocated;
// INVALID_ARGUMENT (naming `what`) for a malformed one.
absl::StatusOr<Literal> LiteralFromWire(const xla::LiteralProto& proto, int64_t limit,
                                        absl::string_view what);

}  // namespace service
}  // namespace tessera

#endif  // TESSERA_SERVICE_REQUEST_LIMITS_H_
