// HloAliasAnalysis: the values that must share one piece of storage.
//
// A buffer (alias set) is a set of HLO values that semantics force into the
// same storage: a while's loop state (its phi value, the init values that
// flow in and the body root values that update it) and a conditional's
// result (its phi value and each branch's root value).  Every other value is
// a buffer of its own.  Buffer assignment may still place several buffers
// in one slice (in-place reuse, donation) when their lifetimes allow; this
// analysis only says what must share.
#ifndef TESSERA_HLO_ANALYSIS_HLO_ALIAS_ANALYSIS_H_
#define TESSERA_HLO_ANALYSIS_HLO_ALIAS_ANALYSIS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "hlo/analysis/hlo_dataflow_analysis.h"

namespace tessera {

class HloBuffer {
 public:
  int64_t id() const { return id_; }
  // In id order.
  const std::vector<const HloValue*>& values() const { return values_; }
  // The largest value's byte size.
  int64_t ByteSize() const;
  std::string ToString() const;  // "b3 {%w{1}, %init, %next}"

 private:
  friend class HloAliasAnalysis;
  int64_t id_ = 0;
  std::vector<const HloValue*> values_;
};

class HloAliasAnalysis {
 public:
  // `dataflow` must outlive the analysis.
  explicit HloAliasAnalysis(const HloDataflowAnalysis& dataflow);

  const HloDataflowAnalysis& dataflow() const { return dataflow_; }
  // Buffers in the order of their smallest value id.
  const std::vector<HloBuffer>& buffers() const { return buffers_; }
  const HloBuffer& GetBufferContainingValue(const HloValue& value) const {
    return buffers_[buffer_of_value_[value.id()]];
  }
  // The buffer at a position, or null where there is no value.
  const HloBuffer* GetBufferAt(const HloInstruction* instruction,
                               const ShapeIndex& index = {}) const;

  std::string ToString() const;

 private:
  const HloDataflowAnalysis& dataflow_;
  std::vector<HloBuffer> buffers_;
  std::vector<int64_t> buffer_of_value_;
};

}  // namespace tessera

#endif  // TESSERA_HLO_ANALYSIS_HLO_ALIAS_ANALYSIS_H_
