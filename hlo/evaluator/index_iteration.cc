#include "hlo/evaluator/index_iteration.h"

namespace tessera {
namespace evaluator_internal {

std::vector<int64_t> PhysicalPositions(absl::Span<const int64_t> dims,
                                       absl::Span<const int64_t> minor_to_major) {
  // Stride of each dimension in the physical (layout-ordered) buffer.
  std::vector<int64_t> stride(dims.size(), 0);
  int64_t s = 1;
  for (int64_t d : minor_to_major) {
    stride[d] = s;
    s *= dims[d];
  }
  std::vector<int64_t> physical;
  physical.reserve(IndexCount(dims));
  ForEachIndex(dims, [&](absl::Span<const int64_t> index) {
    int64_t p = 0;
    for (size_t d = 0; d < dims.size(); ++d) p += index[d] * stride[d];
    physical.push_back(p);
  }).IgnoreError();
  return physical;
}

}  // namespace evaluator_internal
}  // namespace tessera
