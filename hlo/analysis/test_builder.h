// A small helper for tests that build HLO through the IR API: a computation
// builder that names instructions and keeps the last one as root, plus the
// scalar reducers and comparators most ops need.  Test-only.
#ifndef TESSERA_HLO_ANALYSIS_TEST_BUILDER_H_
#define TESSERA_HLO_ANALYSIS_TEST_BUILDER_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "hlo/ir/hlo_computation.h"
#include "hlo/ir/hlo_instruction.h"
#include "hlo/ir/hlo_module.h"

namespace tessera {
namespace test_util {

// Adds instructions to a computation that already belongs to `module`
// (entry or embedded); each added instruction becomes the root until
// another is added or SetRoot is called.
class TestBuilder {
 public:
  TestBuilder(HloModule* module, std::string name, bool entry = false) {
    auto computation = std::make_unique<HloComputation>(std::move(name));
    computation_ = entry ? module->AddEntryComputation(std::move(computation))
                         : module->AddEmbeddedComputation(std::move(computation));
  }

  HloInstruction* Param(int64_t number, const Shape& shape, std::string name = "") {
    if (name.empty()) name = "p" + std::to_string(number);
    return Add(HloInstruction::CreateParameter(number, shape, name), name);
  }

  HloInstruction* Add(std::unique_ptr<HloInstruction> instruction, std::string name = "") {
    if (!name.empty()) instruction->SetName(std::move(name));
    HloInstruction* raw = computation_->AddInstruction(std::move(instruction));
    computation_->set_root_instruction(raw);
    return raw;
  }

  // A generic instruction; attributes can be set through the returned
  // pointer's mutable_attrs().
  HloInstruction* Op(HloOpcode opcode, const Shape& shape, std::vector<HloInstruction*> operands,
                     std::string name = "") {
    return Add(HloInstruction::Create(opcode, shape, operands), std::move(name));
  }

  void SetRoot(HloInstruction* root) { computation_->set_root_instruction(root); }
  HloComputation* computation() const { return computation_; }

 private:
  HloComputation* computation_;
};

// (T, T) -> T applying `opcode`, e.g. the add of a sum.
inline HloComputation* AddBinaryComputation(HloModule* module, PrimitiveType type,
                                            HloOpcode opcode = HloOpcode::kAdd,
                                            std::string name = "") {
  if (name.empty())
    name = std::string(HloOpcodeString(opcode)) + "_" + std::string(PrimitiveTypeName(type));
  TestBuilder b(module, name);
  const Shape scalar(type, {});
  HloInstruction* x = b.Param(0, scalar, "x");
  HloInstruction* y = b.Param(1, scalar, "y");
  b.Add(HloInstruction::CreateBinary(scalar, opcode, x, y), "r");
  return b.computation();
}

// A comparator over one scalar pair per entry of `types` (the operands of a
// sort), comparing the first pair with `direction`.
inline HloComputation* AddCompareComputation(
    HloModule* module, std::vector<PrimitiveType> types,
    ComparisonDirection direction = ComparisonDirection::kLt, std::string name = "") {
  if (name.empty()) name = "compare_" + std::string(PrimitiveTypeName(types[0]));
  TestBuilder b(module, name);
  std::vector<HloInstruction*> params;
  for (size_t i = 0; i < 2 * types.size(); ++i) {
    params.push_back(b.Param(static_cast<int64_t>(i), Shape(types[i / 2], {})));
  }
  b.Add(HloInstruction::CreateCompare(Shape(PRED, {}), params[0], params[1], direction), "c");
  return b.computation();
}

}  // namespace test_util
}  // namespace tessera

#endif  // TESSERA_HLO_ANALYSIS_TEST_BUILDER_H_
