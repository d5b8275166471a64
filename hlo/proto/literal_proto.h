// Conversions between Literal and xla::LiteralProto.
//
// A LiteralProto keeps an array's values in the one field that matches its
// element type (preds, s8s/u8s bytes, s16s/u16s/f16s/bf16s little-endian
// bytes, s32s, s64s, u32s, u64s, f32s, f64s, c64s/c128s as interleaved
// real/imag pairs), ordered as the shape's layout says: physical order,
// minor-to-major.  The IR's Literal keeps values row-major whatever its
// layout, so both directions permute when the layout is not descending.
// Export always writes a layout (XLA requires one on literal shapes).
#ifndef TESSERA_HLO_PROTO_LITERAL_PROTO_H_
#define TESSERA_HLO_PROTO_LITERAL_PROTO_H_

#include "absl/status/statusor.h"
#include "hlo/ir/literal.h"
#include "hlo/proto/hlo.pb.h"

namespace tessera {

// Errors for a missing or invalid shape, a value count that does not match
// the shape, a tuple whose elements do not match its shape, and element
// types a literal cannot hold.
absl::StatusOr<Literal> LiteralFromProto(const xla::LiteralProto& proto);

// Errors only for a literal whose layout is not a permutation of its rank.
absl::StatusOr<xla::LiteralProto> LiteralToProto(const Literal& literal);

}  // namespace tessera

#endif  // TESSERA_HLO_PROTO_LITERAL_PROTO_H_
