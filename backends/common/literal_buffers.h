// Literals as the runtime's raw buffers: a value of any shape is its array
// leaves (tuples flattened in order; tokens and empty tuples have none),
// each one dense buffer laid out as its shape's layout says (row-major when
// it has none).  Literals themselves are always row-major, so a leaf with
// another layout is transposed on the way in and out.
//
//   for (const Shape* leaf : ArrayLeafShapes(shape)) sizes.push_back(leaf->ByteSize());
//   CopyLiteralToBuffer(literal, layout_shape, buffer);
#ifndef TESSERA_BACKENDS_COMMON_LITERAL_BUFFERS_H_
#define TESSERA_BACKENDS_COMMON_LITERAL_BUFFERS_H_

#include <vector>

#include "absl/status/status.h"
#include "hlo/ir/literal.h"
#include "hlo/ir/shape.h"

namespace tessera {

// The array leaves of `shape` in order (pointers into `shape`).
std::vector<const Shape*> ArrayLeafShapes(const Shape& shape);
// The array leaves of `literal` in order, read-only and writable.
std::vector<const Literal*> ArrayLeaves(const Literal& literal);
std::vector<Literal*> MutableArrayLeaves(Literal* literal);

// OK when every array leaf of `shape` can be a dense buffer: no tiles, no
// element size other than the type's own, a layout (if any) that is a
// permutation of the dimensions, no dimension of unknown size.
// Unimplemented otherwise, naming the leaf.
absl::Status CheckDenseLayouts(const Shape& shape);

// Copies the array `literal` into `buffer` (layout_shape.ByteSize() bytes)
// in `layout_shape`'s layout.  The literal's element type and dimensions
// must be those of `layout_shape` and the layout dense (both checked by the
// callers: CHECK-failed here).
void CopyLiteralToBuffer(const Literal& literal, const Shape& layout_shape, void* buffer);
// The reverse: fills the array `literal` from `buffer` laid out as
// `layout_shape` says.
void CopyBufferToLiteral(const void* buffer, const Shape& layout_shape, Literal* literal);

}  // namespace tessera

#endif  // TESSERA_BACKENDS_COMMON_LITERAL_BUFFERS_H_
