#include "backends/common/literal_buffers.h"

#include <cstdint>
#include <cstring>

#include "absl/base/internal/raw_logging.h"
#include "absl/strings/str_cat.h"

namespace tessera {
namespace {

void CollectLeaves(const Literal& literal, std::vector<const Literal*>* leaves) {
  if (literal.shape().IsTuple()) {
    for (int64_t i = 0; i < literal.tuple_size(); ++i) {
      CollectLeaves(literal.tuple_element(i), leaves);
    }
  } else if (literal.shape().IsArray()) {
    leaves->push_back(&literal);
  }
}

void CollectMutableLeaves(Literal* literal, std::vector<Literal*>* leaves) {
  if (literal->shape().IsTuple()) {
    for (int64_t i = 0; i < literal->tuple_size(); ++i) {
      CollectMutableLeaves(&literal->mutable_tuple_element(i), leaves);
    }
  } else if (literal->shape().IsArray()) {
    leaves->push_back(literal);
  }
}

// Element strides of each dimension in `shape`'s layout (descending when it
// has none).
std::vector<int64_t> LayoutStrides(const Shape& shape) {
  const int64_t rank = shape.rank();
  std::vector<int64_t> strides(rank, 1);
  if (!shape.has_layout()) return RowMajorStrides(shape.dimensions());
  int64_t stride = 1;
  for (int64_t dimension : shape.layout().minor_to_major) {
    strides[dimension] = stride;
    stride *= shape.dimensions(dimension);
  }
  return strides;
}

bool IsRowMajor(const Shape& shape) {
  if (!shape.has_layout()) return true;
  const std::vector<int64_t>& minor_to_major = shape.layout().minor_to_major;
  for (int64_t i = 0; i < static_cast<int64_t>(minor_to_major.size()); ++i) {
    // Dimensions of size 1 may sit anywhere without moving a byte, but keep
    // the rule simple: exactly descending.
    if (minor_to_major[i] != shape.rank() - 1 - i) return false;
  }
  return true;
}

// Copies between row-major `literal_bytes` and `buffer_bytes` laid out as
// `shape` says; `to_buffer` gives the direction.
void Relayout(const Shape& shape, const char* from, char* to, bool to_buffer) {
  const int64_t width = ByteWidth(shape.element_type());
  const int64_t count = shape.ElementCount();
  if (count == 0) return;
  if (IsRowMajor(shape)) {
    std::memcpy(to, from, count * width);
    return;
  }
  const std::vector<int64_t> strides = LayoutStrides(shape);
  const int64_t rank = shape.rank();
  std::vector<int64_t> index(rank, 0);
  int64_t offset = 0;  // of `index` in the buffer, in elements
  for (int64_t linear = 0; linear < count; ++linear) {
    if (to_buffer) {
      std::memcpy(to + offset * width, from + linear * width, width);
    } else {
      std::memcpy(to + linear * width, from + offset * width, width);
    }
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < shape.dimensions(d)) {
        offset += strides[d];
        break;
      }
      offset -= (index[d] - 1) * strides[d];
      index[d] = 0;
    }
  }
}

void CheckSameArray(const Literal& literal, const Shape& layout_shape) {
  ABSL_RAW_CHECK(literal.shape().IsArray() && layout_shape.IsArray() &&
                     literal.shape().element_type() == layout_shape.element_type() &&
                     literal.shape().dimensions() == layout_shape.dimensions(),
                 "literal and buffer shapes differ");
}

}  // namespace

std::vector<const Shape*> ArrayLeafShapes(const Shape& shape) {
  std::vector<const Shape*> leaves;
  ForEachSubshape(shape, [&](const Shape& subshape, const ShapeIndex&) {
    if (subshape.IsArray()) leaves.push_back(&subshape);
  });
  return leaves;
}

std::vector<const Literal*> ArrayLeaves(const Literal& literal) {
  std::vector<const Literal*> leaves;
  CollectLeaves(literal, &leaves);
  return leaves;
}

std::vector<Literal*> MutableArrayLeaves(Literal* literal) {
  std::vector<Literal*> leaves;
  CollectMutableLeaves(literal, &leaves);
  return leaves;
}

absl::Status CheckDenseLayouts(const Shape& shape) {
  absl::Status status = absl::OkStatus();
  ForEachSubshape(shape, [&](const Shape& leaf, const ShapeIndex& index) {
    if (!status.ok() || !leaf.IsArray()) return;
    auto problem = [&](absl::string_view what) {
      status = absl::UnimplementedError(absl::StrCat("array ", ShapeIndexToString(index), " ",
                                                     leaf.ToString(true), ": ", what));
    };
    for (int64_t d = 0; d < leaf.rank(); ++d) {
      if (leaf.dimensions(d) < 0) return problem("a dimension of unknown size");
    }
    if (!leaf.has_layout()) return;
    const Layout& layout = leaf.layout();
    if (!layout.tiles.empty()) return problem("tiled layouts are not supported");
    if (layout.element_size_in_bits != 0 &&
        layout.element_size_in_bits != BitWidth(leaf.element_type())) {
      return problem("packed element sizes are not supported");
    }
    std::vector<bool> seen(leaf.rank(), false);
    bool permutation = static_cast<int64_t>(layout.minor_to_major.size()) == leaf.rank();
    for (int64_t dimension : layout.minor_to_major) {
      if (!permutation) break;
      if (dimension < 0 || dimension >= leaf.rank() || seen[dimension]) {
        permutation = false;
      } else {
        seen[dimension] = true;
      }
    }
    if (!permutation) problem("the layout is not a permutation of the dimensions");
  });
  return status;
}

void CopyLiteralToBuffer(const Literal& literal, const Shape& layout_shape, void* buffer) {
  CheckSameArray(literal, layout_shape);
  Relayout(layout_shape, static_cast<const char*>(literal.untyped_data()),
           static_cast<char*>(buffer), /*to_buffer=*/true);
}

void CopyBufferToLiteral(const void* buffer, const Shape& layout_shape, Literal* literal) {
  CheckSameArray(*literal, layout_shape);
  Relayout(layout_shape, static_cast<const char*>(buffer),
           static_cast<char*>(literal->untyped_data()), /*to_buffer=*/false);
}

}  // namespace tessera
