// Tests of the IR's mutation API: operands and users stay consistent,
// names and ids are unique, post-orders respect operands and control edges.
#include <memory>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/ir/hlo_computation.h"
#include "hlo/ir/hlo_instruction.h"
#include "hlo/ir/hlo_module.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

const Shape kF32x4 = Shape::MakeArrayWithDescendingLayout(F32, {4});

// p0, p1 -> add -> negate (root), built in a module.
struct SmallModule {
  std::unique_ptr<HloModule> module = std::make_unique<HloModule>("m");
  HloComputation* entry = nullptr;
  HloInstruction* p0 = nullptr;
  HloInstruction* p1 = nullptr;
  HloInstruction* add = nullptr;
  HloInstruction* neg = nullptr;

  SmallModule() {
    entry = module->AddEntryComputation(std::make_unique<HloComputation>("main"));
    p0 = entry->AddInstruction(HloInstruction::CreateParameter(0, kF32x4, "p0"));
    p1 = entry->AddInstruction(HloInstruction::CreateParameter(1, kF32x4, "p1"));
    add = entry->AddInstruction(HloInstruction::CreateBinary(kF32x4, HloOpcode::kAdd, p0, p1));
    neg = entry->AddInstruction(HloInstruction::CreateUnary(kF32x4, HloOpcode::kNegate, add));
    entry->set_root_instruction(neg);
  }
};

TEST(HloOpcodeTest, TableRoundTripsEveryName) {
  for (int i = 0; i < kHloOpcodeCount; ++i) {
    const HloOpcode opcode = static_cast<HloOpcode>(i);
    absl::StatusOr<HloOpcode> back = StringToHloOpcode(HloOpcodeString(opcode));
    ASSERT_TRUE(back.ok()) << HloOpcodeString(opcode);
    EXPECT_EQ(*back, opcode);
  }
  EXPECT_EQ(HloOpcodeString(HloOpcode::kExp), "exponential");
  EXPECT_EQ(HloOpcodeArity(HloOpcode::kSelect), 3);
  EXPECT_EQ(HloOpcodeArity(HloOpcode::kTuple), std::nullopt);
  EXPECT_TRUE(HloOpcodeIsCommutative(HloOpcode::kMultiply));
  EXPECT_FALSE(HloOpcodeIsCommutative(HloOpcode::kSubtract));
  EXPECT_EQ(HloOpcodeCategory(HloOpcode::kReduce), OpCategory::kReduction);
  EXPECT_THAT(StringToHloOpcode("frobnicate").status().message(),
              HasSubstr("unknown opcode 'frobnicate'"));
}

TEST(HloInstructionTest, UsersFollowOperands) {
  SmallModule m;
  EXPECT_THAT(m.p0->users(), ElementsAre(m.add));
  EXPECT_THAT(m.add->users(), ElementsAre(m.neg));
  EXPECT_TRUE(m.neg->IsRoot());
  // An instruction using the same operand twice is one user.
  HloInstruction* square = m.entry->AddInstruction(
      HloInstruction::CreateBinary(kF32x4, HloOpcode::kMultiply, m.p0, m.p0));
  EXPECT_THAT(m.p0->users(), ElementsAre(m.add, square));
  EXPECT_THAT(square->OperandIndices(m.p0), ElementsAre(0, 1));
  ASSERT_TRUE(square->ReplaceOperandWith(0, m.p1).ok());
  EXPECT_THAT(m.p0->users(), ElementsAre(m.add, square));  // still operand 1
  ASSERT_TRUE(square->ReplaceOperandWith(1, m.p1).ok());
  EXPECT_THAT(m.p0->users(), ElementsAre(m.add));
  EXPECT_THAT(m.p1->users(), UnorderedElementsAre(m.add, square));
}

TEST(HloInstructionTest, ReplaceAllUsesWithMovesUsersAndRoot) {
  SmallModule m;
  HloInstruction* sub = m.entry->AddInstruction(
      HloInstruction::CreateBinary(kF32x4, HloOpcode::kSubtract, m.p0, m.p1));
  ASSERT_TRUE(m.add->ReplaceAllUsesWith(sub).ok());
  EXPECT_EQ(m.neg->operand(0), sub);
  EXPECT_TRUE(m.add->users().empty());
  EXPECT_THAT(sub->users(), ElementsAre(m.neg));
  ASSERT_TRUE(m.neg->ReplaceAllUsesWith(sub).ok());
  EXPECT_EQ(m.entry->root_instruction(), sub);
}

TEST(HloInstructionTest, ReplaceAllUsesWithRejectsIncompatibleShape) {
  SmallModule m;
  HloInstruction* scalar = m.entry->AddInstruction(
      HloInstruction::CreateConstant(Literal::CreateR0<float>(1.0f)));
  absl::Status status = m.add->ReplaceAllUsesWith(scalar);
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("cannot replace %add"));
}

TEST(HloComputationTest, RemoveInstructionChecksUsersAndRoot) {
  SmallModule m;
  EXPECT_THAT(m.entry->RemoveInstruction(m.add).message(), HasSubstr("still has 1 user"));
  EXPECT_THAT(m.entry->RemoveInstruction(m.neg).message(), HasSubstr("is the root"));
  HloInstruction* dead = m.entry->AddInstruction(
      HloInstruction::CreateUnary(kF32x4, HloOpcode::kExp, m.p0));
  EXPECT_EQ(m.entry->instruction_count(), 5);
  ASSERT_TRUE(m.entry->RemoveInstruction(dead).ok());
  EXPECT_EQ(m.entry->instruction_count(), 4);
  EXPECT_THAT(m.p0->users(), ElementsAre(m.add));
}

TEST(HloComputationTest, ReplaceInstructionRemovesDeadOperands) {
  SmallModule m;
  HloInstruction* exp = m.entry->AddInstruction(
      HloInstruction::CreateUnary(kF32x4, HloOpcode::kExp, m.p0));
  ASSERT_TRUE(m.entry->ReplaceInstruction(m.neg, exp).ok());
  EXPECT_EQ(m.entry->root_instruction(), exp);
  // neg and add are gone; parameters stay even when unused.
  EXPECT_EQ(m.entry->instruction_count(), 3);
  EXPECT_TRUE(m.entry->Contains(m.p1));
  EXPECT_TRUE(m.p1->users().empty());
}

TEST(HloComputationTest, PostOrderPutsOperandsAndControlPredecessorsFirst) {
  SmallModule m;
  HloInstruction* exp = m.entry->AddInstruction(
      HloInstruction::CreateUnary(kF32x4, HloOpcode::kExp, m.p1));
  // exp must run after neg although no data flows between them.
  ASSERT_TRUE(m.neg->AddControlDependencyTo(exp).ok());
  std::vector<HloInstruction*> order = m.entry->MakeInstructionPostOrder();
  auto pos = [&](HloInstruction* h) {
    return std::find(order.begin(), order.end(), h) - order.begin();
  };
  ASSERT_EQ(order.size(), 5u);
  EXPECT_LT(pos(m.p0), pos(m.add));
  EXPECT_LT(pos(m.p1), pos(m.add));
  EXPECT_LT(pos(m.add), pos(m.neg));
  EXPECT_LT(pos(m.neg), pos(exp));
}

TEST(HloModuleTest, NamesAndIdsAreUnique) {
  SmallModule m;
  EXPECT_EQ(m.add->name(), "add");
  HloInstruction* add2 = m.entry->AddInstruction(
      HloInstruction::CreateBinary(kF32x4, HloOpcode::kAdd, m.p0, m.p0));
  EXPECT_EQ(add2->name(), "add.1");
  EXPECT_NE(add2->unique_id(), m.add->unique_id());
  EXPECT_EQ(m.module->UniqueInstructionName("add"), "add.2");
  // A name written in another computation may repeat (XLA text does this).
  HloComputation* other = m.module->AddEmbeddedComputation(std::make_unique<HloComputation>("f"));
  HloInstruction* p = other->AddInstruction(HloInstruction::CreateParameter(0, kF32x4, "p0"));
  EXPECT_EQ(p->name(), "p0");
}

TEST(HloModuleTest, ComputationPostOrderPutsCalleesFirst) {
  auto module = std::make_unique<HloModule>("m");
  const Shape scalar = Shape::MakeArrayWithDescendingLayout(F32, {});
  auto reducer = std::make_unique<HloComputation>("sum");
  HloInstruction* a = reducer->AddInstruction(HloInstruction::CreateParameter(0, scalar, "a"));
  HloInstruction* b = reducer->AddInstruction(HloInstruction::CreateParameter(1, scalar, "b"));
  reducer->set_root_instruction(
      reducer->AddInstruction(HloInstruction::CreateBinary(scalar, HloOpcode::kAdd, a, b)));
  auto entry = std::make_unique<HloComputation>("main");
  HloInstruction* x = entry->AddInstruction(HloInstruction::CreateParameter(0, kF32x4, "x"));
  HloInstruction* init =
      entry->AddInstruction(HloInstruction::CreateConstant(Literal::CreateR0<float>(0)));
  HloComputation* entry_ptr = module->AddEntryComputation(std::move(entry));
  HloComputation* sum = module->AddEmbeddedComputation(std::move(reducer));
  entry_ptr->set_root_instruction(entry_ptr->AddInstruction(
      HloInstruction::CreateReduce(scalar, {x, init}, {0}, sum)));
  EXPECT_THAT(module->MakeComputationPostOrder(), ElementsAre(sum, entry_ptr));
  EXPECT_THAT(module->RemoveComputation(sum).message(), HasSubstr("is called by %reduce"));
  EXPECT_EQ(module->GetComputationWithName("sum"), sum);
}

// A computation of one negate, to be called.
std::unique_ptr<HloComputation> NegateComputation(const std::string& name) {
  auto computation = std::make_unique<HloComputation>(name);
  HloInstruction* x = computation->AddInstruction(HloInstruction::CreateParameter(0, kF32x4, "x"));
  computation->set_root_instruction(
      computation->AddInstruction(HloInstruction::CreateUnary(kF32x4, HloOpcode::kNegate, x)));
  return computation;
}

// caller_count follows every way a call comes and goes: instructions added
// and removed, calls appended, replaced and cleared, computations joining
// the module with their calls and leaving it; calls made outside a module
// do not count.  Removal trusts it: a computation called only from others
// removed with it goes, one called from outside the set does not.
TEST(HloModuleTest, ComputationsCountTheirCallers) {
  SmallModule m;
  HloComputation* f = m.module->AddEmbeddedComputation(NegateComputation("f"));
  HloComputation* g = m.module->AddEmbeddedComputation(NegateComputation("g"));
  EXPECT_EQ(f->caller_count(), 0);
  HloInstruction* call = m.entry->AddInstruction(HloInstruction::CreateCall(kF32x4, {m.p0}, f));
  EXPECT_EQ(f->caller_count(), 1);
  call->AppendCalledComputation(f);  // twice: counts twice
  EXPECT_EQ(f->caller_count(), 2);
  call->ReplaceCalledComputation(1, g);
  EXPECT_EQ(f->caller_count(), 1);
  EXPECT_EQ(g->caller_count(), 1);
  call->ClearCalledComputations();
  EXPECT_EQ(f->caller_count(), 0);
  EXPECT_EQ(g->caller_count(), 0);
  call->AppendCalledComputation(g);
  EXPECT_EQ(g->caller_count(), 1);
  EXPECT_THAT(m.module->RemoveComputation(g).message(), HasSubstr("is called by %call"));
  ASSERT_TRUE(m.entry->RemoveInstruction(call).ok());
  EXPECT_EQ(g->caller_count(), 0);

  // Built outside the module, a caller counts once its computation joins.
  auto outer = std::make_unique<HloComputation>("outer");
  HloInstruction* x = outer->AddInstruction(HloInstruction::CreateParameter(0, kF32x4, "x"));
  outer->set_root_instruction(outer->AddInstruction(HloInstruction::CreateCall(kF32x4, {x}, g)));
  EXPECT_EQ(g->caller_count(), 0);
  HloComputation* outer_ptr = m.module->AddEmbeddedComputation(std::move(outer));
  EXPECT_EQ(g->caller_count(), 1);
  // g is called from outer: it cannot go alone, but both can.
  EXPECT_THAT(m.module->RemoveComputation(g).message(), HasSubstr("is called by %call"));
  EXPECT_TRUE(m.module->RemoveComputations({g, outer_ptr}).ok());
  EXPECT_EQ(m.module->GetComputationWithName("g"), nullptr);
  EXPECT_TRUE(m.module->RemoveComputation(f).ok());
}

// Name clashes within a computation are found from its count of names,
// which follows renames and removals.
TEST(HloComputationTest, NamesAreCountedThroughRenamesAndRemovals) {
  SmallModule m;
  EXPECT_TRUE(m.entry->HasOtherInstructionNamed("add", nullptr));
  EXPECT_FALSE(m.entry->HasOtherInstructionNamed("add", m.add));
  m.add->SetName("sum");
  EXPECT_FALSE(m.entry->HasOtherInstructionNamed("add", nullptr));
  EXPECT_TRUE(m.entry->HasOtherInstructionNamed("sum", nullptr));
  // A new "sum" is renamed by the module, since the name is taken here.
  HloInstruction* again =
      m.entry->AddInstruction(HloInstruction::CreateBinary(kF32x4, HloOpcode::kAdd, m.p0, m.p0));
  again->SetName("sum");
  EXPECT_TRUE(m.entry->HasOtherInstructionNamed("sum", m.add));
  ASSERT_TRUE(m.entry->RemoveInstruction(again).ok());
  EXPECT_FALSE(m.entry->HasOtherInstructionNamed("sum", m.add));
  // Renamed after joining to a name another instruction has: a clash.
  HloInstruction* twin =
      m.entry->AddInstruction(HloInstruction::CreateUnary(kF32x4, HloOpcode::kNegate, m.p0));
  twin->SetName(m.neg->name());
  EXPECT_TRUE(m.entry->HasOtherInstructionNamed(m.neg->name(), twin));
  EXPECT_TRUE(m.entry->HasOtherInstructionNamed(m.neg->name(), m.neg));
}

TEST(HloComputationTest, ReorderInstructionsTakesAPermutationOnly) {
  SmallModule m;
  ASSERT_TRUE(m.entry->ReorderInstructions({m.neg, m.p1, m.add, m.p0}).ok());
  EXPECT_THAT(m.entry->instructions(), ElementsAre(m.neg, m.p1, m.add, m.p0));
  EXPECT_TRUE(m.entry->Contains(m.add));
  EXPECT_THAT(m.entry->ReorderInstructions({m.neg, m.p1, m.add}).message(),
              HasSubstr("3 instructions for 4"));
  EXPECT_THAT(m.entry->ReorderInstructions({m.neg, m.p1, m.add, m.add}).message(),
              HasSubstr("not a permutation"));
  EXPECT_THAT(m.entry->instructions(), ElementsAre(m.neg, m.p1, m.add, m.p0));
}

TEST(HloComputationTest, ProgramShapeListsParametersInOrder) {
  SmallModule m;
  ProgramShape shape = m.entry->ComputeProgramShape();
  EXPECT_EQ(shape.ToString(), "(f32[4]{0}, f32[4]{0})->f32[4]{0}");
  EXPECT_THAT(shape.parameter_names, ElementsAre("p0", "p1"));
}

TEST(HloInstructionTest, IdenticalIgnoresMetadataButNotAttributes) {
  SmallModule m;
  auto t1 = HloInstruction::CreateTranspose(kF32x4, m.p0, {0});
  auto t2 = HloInstruction::CreateTranspose(kF32x4, m.p0, {0});
  t2->mutable_attrs().metadata.op_name = "jit(f)/transpose";
  auto same = [](const HloInstruction* a, const HloInstruction* b) { return a == b; };
  EXPECT_TRUE(t1->Identical(*t2, same));
  t2->mutable_attrs().dimensions = {1};
  EXPECT_FALSE(t1->Identical(*t2, same));
}

}  // namespace
}  // namespace tessera
