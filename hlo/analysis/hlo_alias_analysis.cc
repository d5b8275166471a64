#include "hlo/analysis/hlo_alias_analysis.h"

#include <algorithm>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tessera {
namespace {

int64_t Find(std::vector<int64_t>& parent, int64_t x) {
  while (parent[x] != x) {
    parent[x] = parent[parent[x]];
    x = parent[x];
  }
  return x;
}

}  // namespace

int64_t HloBuffer::ByteSize() const {
  int64_t size = 0;
  for (const HloValue* value : values_) size = std::max(size, value->shape().ByteSize());
  return size;
}

std::string HloBuffer::ToString() const {
  std::vector<std::string> names;
  for (const HloValue* value : values_) names.push_back(value->ToShortString());
  return absl::StrCat("b", id_, " {", absl::StrJoin(names, ", "), "}");
}

HloAliasAnalysis::HloAliasAnalysis(const HloDataflowAnalysis& dataflow) : dataflow_(dataflow) {
  const int64_t n = dataflow.values().size();
  std::vector<int64_t> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  for (const auto& value : dataflow.values()) {
    for (const HloValue* input : value->phi_inputs()) {
      const int64_t a = Find(parent, value->id()), b = Find(parent, input->id());
      if (a != b) parent[std::max(a, b)] = std::min(a, b);
    }
  }
  buffer_of_value_.assign(n, -1);
  std::vector<int64_t> buffer_of_root(n, -1);
  for (int64_t id = 0; id < n; ++id) {
    const int64_t root = Find(parent, id);
    if (buffer_of_root[root] < 0) {
      buffer_of_root[root] = buffers_.size();
      buffers_.emplace_back();
      buffers_.back().id_ = buffer_of_root[root];
    }
    buffer_of_value_[id] = buffer_of_root[root];
    buffers_[buffer_of_root[root]].values_.push_back(&dataflow.value(id));
  }
}

const HloBuffer* HloAliasAnalysis::GetBufferAt(const HloInstruction* instruction,
                                               const ShapeIndex& index) const {
  const HloValue* value = dataflow_.GetValueAt(instruction, index);
  return value == nullptr ? nullptr : &GetBufferContainingValue(*value);
}

std::string HloAliasAnalysis::ToString() const {
  std::string out;
  for (const HloBuffer& buffer : buffers_) absl::StrAppend(&out, buffer.ToString(), "\n");
  return out;
}

}  // namespace tessera
