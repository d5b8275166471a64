// Positive tests of the HLO text parser: hand-written modules whose parsed
// IR is inspected directly (opcodes, shapes, operands, every attribute,
// literal values, the module header and XLA's stack-frame sections).  The
// opcode-by-opcode table is in hlo_parser_opcode_test.cc, malformed input
// in hlo_parser_error_test.cc.
#include "hlo/parser/hlo_parser.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/ir/hlo_attributes.h"
#include "hlo/ir/hlo_computation.h"
#include "hlo/ir/hlo_instruction.h"
#include "hlo/ir/hlo_module.h"
#include "hlo/ir/literal.h"
#include "hlo/parser/hlo_parser_test_util.h"
#include "hlo/parser/hlo_text_util.h"

namespace tessera {
namespace {

using parser_test::FindInstruction;
using parser_test::Message;
using parser_test::ParseOk;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::string ShapeText(const Shape& shape) { return ShapeToText(shape, /*print_layout=*/true); }

// Parses `text` and returns the instruction named `name` (the module is
// kept alive in `holder`).
HloInstruction* ParseAndFind(absl::string_view text, absl::string_view name,
                             std::unique_ptr<HloModule>* holder) {
  *holder = ParseOk(text);
  if (*holder == nullptr) return nullptr;
  HloInstruction* instruction = FindInstruction(**holder, name);
  if (instruction == nullptr) ADD_FAILURE() << "no instruction named " << name;
  return instruction;
}

// ---------------------------------------------------------------------------
// Module structure.

TEST(ParseModuleTest, BasicModuleStructure) {
  auto module = ParseOk(R"(HloModule basic

%add (x: f32[], y: f32[]) -> f32[] {
  %x = f32[] parameter(0)
  %y = f32[] parameter(1)
  ROOT %sum = f32[] add(f32[] %x, f32[] %y)
}

ENTRY %main (p0: f32[4], p1: f32[]) -> f32[] {
  %p0 = f32[4]{0} parameter(0)
  %p1 = f32[] parameter(1)
  ROOT %r = f32[] reduce(f32[4]{0} %p0, f32[] %p1), dimensions={0}, to_apply=%add
}
)");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(module->name(), "basic");
  ASSERT_EQ(module->computation_count(), 2);
  HloComputation* entry = module->entry_computation();
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->name(), "main");
  EXPECT_EQ(entry->num_parameters(), 2);
  EXPECT_EQ(entry->parameter_instruction(0)->name(), "p0");
  EXPECT_EQ(entry->parameter_instruction(1)->name(), "p1");
  HloInstruction* root = entry->root_instruction();
  EXPECT_EQ(root->name(), "r");
  EXPECT_EQ(root->opcode(), HloOpcode::kReduce);
  EXPECT_EQ(ShapeText(root->shape()), "f32[]");
  ASSERT_EQ(root->operand_count(), 2);
  EXPECT_EQ(root->operand(0)->name(), "p0");
  EXPECT_EQ(root->operand(1)->name(), "p1");
  EXPECT_THAT(root->dimensions(), ElementsAre(0));
  ASSERT_EQ(root->called_computations().size(), 1u);
  EXPECT_EQ(root->to_apply()->name(), "add");
  EXPECT_EQ(root->to_apply(), module->GetComputationWithName("add"));
  // Users are kept in sync with operands.
  EXPECT_THAT(entry->parameter_instruction(0)->users(), ElementsAre(root));
  // Without entry_computation_layout the header gets the entry's signature.
  ASSERT_TRUE(module->config().entry_computation_layout.has_value());
  const ProgramShape& layout = *module->config().entry_computation_layout;
  ASSERT_EQ(layout.parameters.size(), 2u);
  EXPECT_EQ(ShapeText(layout.parameters[0]), "f32[4]{0}");
  EXPECT_EQ(ShapeText(layout.parameters[1]), "f32[]");
  EXPECT_EQ(ShapeText(layout.result), "f32[]");
  EXPECT_FALSE(module->has_schedule());
}

TEST(ParseModuleTest, PercentSignsAreOptional) {
  auto module = ParseOk(R"(HloModule no_percent
add {
  x = f32[] parameter(0)
  y = f32[] parameter(1)
  ROOT sum = f32[] add(x, y)
}
ENTRY main {
  p = f32[4] parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[] reduce(p, z), dimensions={0}, to_apply=add
}
)");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(module->entry_computation()->name(), "main");
  EXPECT_EQ(module->entry_computation()->root_instruction()->to_apply()->name(), "add");
  EXPECT_EQ(module->entry_computation()->root_instruction()->operand(1)->name(), "z");
}

TEST(ParseModuleTest, MissingLayoutsGetRowMajorDefault) {
  std::unique_ptr<HloModule> module;
  HloInstruction* p = ParseAndFind(R"(
ENTRY %main {
  %p = (f32[2,3,4], s32[5], pred[], (u8[2,2])) parameter(0)
  ROOT %q = f32[2,3,4]{0,1,2} get-tuple-element(%p), index=0
})",
                                   "p", &module);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(ShapeText(p->shape()), "(f32[2,3,4]{2,1,0}, s32[5]{0}, pred[], (u8[2,2]{1,0}))");
  EXPECT_THAT(p->shape().tuple_shapes(0).layout().minor_to_major, ElementsAre(2, 1, 0));
  ASSERT_TRUE(p->shape().tuple_shapes(2).has_layout());
  EXPECT_THAT(p->shape().tuple_shapes(2).layout().minor_to_major, IsEmpty());
  // An explicit layout is kept as written.
  EXPECT_THAT(FindInstruction(*module, "q")->shape().layout().minor_to_major, ElementsAre(0, 1, 2));
}

TEST(ParseModuleTest, NoEntryMakesTheLastComputationTheEntry) {
  auto module = ParseOk(R"(
%first {
  ROOT %c = f32[] constant(1)
}
%second {
  ROOT %c = f32[] constant(2)
}
)");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(module->entry_computation()->name(), "second");
  // Without a header the module is named after its entry.
  EXPECT_EQ(module->name(), "module_second");
}

TEST(ParseModuleTest, EntryNeedNotBeLast) {
  auto module = ParseOk(R"(
ENTRY %main {
  ROOT %c = f32[] constant(1)
}
%other {
  ROOT %c = f32[] constant(2)
}
)");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(module->entry_computation()->name(), "main");
  EXPECT_EQ(module->computation_count(), 2);
}

TEST(ParseModuleTest, NoRootMakesTheLastInstructionTheRoot) {
  auto module = ParseOk(R"(
ENTRY %main {
  %a = f32[] constant(1)
  %b = f32[] constant(2)
  %c = f32[] add(%a, %b)
  %d = f32[] negate(%a)
}
)");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(module->entry_computation()->root_instruction()->name(), "d");
}

TEST(ParseModuleTest, RootNeedNotBeLast) {
  auto module = ParseOk(R"(
ENTRY %main {
  %a = f32[] constant(1)
  ROOT %b = f32[] negate(%a)
  %c = f32[] add(%a, %a)
}
)");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(module->entry_computation()->root_instruction()->name(), "b");
  EXPECT_EQ(module->entry_computation()->instruction_count(), 3);
}

TEST(ParseModuleTest, CommentsAreSkipped) {
  auto module = ParseOk(R"(// a line comment
HloModule m /* a block
comment */, replica_count=2
ENTRY %main {  // trailing
  %a = f32[2] /*inline*/ constant({1, /*between*/ 2})
  ROOT %b = f32[2] negate(%a)  // done
}
)");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(module->config().replica_count, 2);
  EXPECT_THAT(FindInstruction(*module, "a")->literal().data<float>(), ElementsAre(1.0f, 2.0f));
}

TEST(ParseModuleTest, NameWithEqualsSignAndNoSpace) {
  auto module = ParseOk("ENTRY %main {\n  a=f32[] constant(1)\n  ROOT b=f32[] negate(a)\n}\n");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(module->entry_computation()->root_instruction()->operand(0)->name(), "a");
}

TEST(ParseModuleTest, ComputationSignatureAndExecutionThread) {
  auto module = ParseOk(R"(HloModule m
%callee (x: (f32[2], s32[])) -> f32[2] {
  %x = (f32[2], s32[]) parameter(0)
  ROOT %g = f32[2] get-tuple-element(%x), index=0
}, execution_thread="host"
ENTRY %main (p: (f32[2], s32[])) -> f32[2] {
  %p = (f32[2], s32[]) parameter(0)
  ROOT %c = f32[2] call(%p), to_apply=%callee
}, execution_thread="main"
)");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(module->GetComputationWithName("callee")->execution_thread(), "host");
  // XLA's "main" thread is the default, kept as "".
  EXPECT_EQ(module->entry_computation()->execution_thread(), "");
}

TEST(ParseModuleTest, NestedInstructionsWithoutAttributes) {
  auto module = ParseOk(R"(
ENTRY %main {
  %p = f32[2] parameter(0)
  ROOT %r = f32[2] add(f32[2] negate(f32[2] %p), f32[2] broadcast(f32[] constant(3)))
}
)");
  ASSERT_NE(module, nullptr);
  HloComputation* entry = module->entry_computation();
  EXPECT_EQ(entry->instruction_count(), 5);
  HloInstruction* root = entry->root_instruction();
  EXPECT_EQ(root->operand(0)->opcode(), HloOpcode::kNegate);
  EXPECT_EQ(root->operand(0)->operand(0)->name(), "p");
  EXPECT_EQ(root->operand(1)->opcode(), HloOpcode::kBroadcast);
  EXPECT_EQ(root->operand(1)->operand(0)->opcode(), HloOpcode::kConstant);
  EXPECT_EQ(root->operand(1)->operand(0)->literal().data<float>()[0], 3.0f);
  // Anonymous instructions get distinct names.
  EXPECT_NE(root->operand(0)->name(), root->operand(1)->name());
}

TEST(ParseModuleTest, InlineComputationBodies) {
  auto module = ParseOk(R"(
ENTRY %main {
  %p = f32[4] parameter(0)
  %z = f32[] constant(0)
  ROOT %r = f32[] reduce(%p, %z), dimensions={0}, to_apply={
    %a = f32[] parameter(0)
    %b = f32[] parameter(1)
    ROOT %m = f32[] maximum(%a, %b)
  }
}
)");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(module->computation_count(), 2);
  HloComputation* reducer = module->entry_computation()->root_instruction()->to_apply();
  ASSERT_NE(reducer, nullptr);
  EXPECT_EQ(reducer->root_instruction()->opcode(), HloOpcode::kMaximum);
  EXPECT_EQ(reducer->num_parameters(), 2);
  EXPECT_NE(reducer, module->entry_computation());
}

TEST(ParseModuleTest, ComputationNamesMaySharedInstructionNames) {
  auto module = ParseOk(R"(
%f {
  %x = f32[] parameter(0)
  ROOT %y = f32[] negate(%x)
}
ENTRY %main {
  %x = f32[] parameter(0)
  ROOT %y = f32[] call(%x), to_apply=%f
}
)");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(module->entry_computation()->root_instruction()->name(), "y");
  EXPECT_EQ(module->GetComputationWithName("f")->root_instruction()->name(), "y");
}

// A big computation parses in linear time (building it used to scan the
// computation once per instruction) and keeps every name as written.
TEST(ParseModuleTest, LargeModule) {
  constexpr int kCount = 20000;
  std::string text =
      "HloModule big\n%f {\n  %a1 = f32[8] parameter(0)\n  ROOT %a2 = f32[8] "
      "negate(%a1)\n}\nENTRY %main {\n  %a0 = f32[8] parameter(0)\n";
  for (int i = 1; i < kCount; ++i) {
    absl::StrAppend(&text, "  %a", i, " = f32[8] add(%a", i - 1, ", %a", i - 1, ")\n");
  }
  absl::StrAppend(&text, "  ROOT %r = f32[8] call(%a", kCount - 1, "), to_apply=%f\n}\n");
  auto module = ParseOk(text);
  ASSERT_NE(module, nullptr);
  HloComputation* entry = module->entry_computation();
  EXPECT_EQ(entry->instruction_count(), kCount + 1);
  EXPECT_EQ(entry->root_instruction()->operand(0)->name(), absl::StrCat("a", kCount - 1));
  // %a1 and %a2 are also names in %f: names are per computation.
  HloComputation* f = module->GetComputationWithName("f");
  EXPECT_EQ(f->root_instruction()->name(), "a2");
  EXPECT_EQ(entry->root_instruction()->operand(0)->operand(0)->operand(0)->name(),
            absl::StrCat("a", kCount - 3));
  int named_a1 = 0;
  for (HloInstruction* instruction : entry->instructions()) named_a1 += instruction->name() == "a1";
  EXPECT_EQ(named_a1, 1);
}

// ---------------------------------------------------------------------------
// The module header.

TEST(ParseHeaderTest, AllHeaderAttributes) {
  auto module = ParseOk(
      R"(HloModule header, is_scheduled=true, entry_computation_layout={(f32[2,3]{0,1}, (s32[], f32[2]{0}))->(f32[2,3]{1,0}, s32[])}, input_output_alias={ {0}: (0, {}, may-alias), {1}: (1, {0}, must-alias) }, buffer_donor={ (1, {1}), (0, {}) }, replica_count=4, num_partitions=2, frontend_attributes={attr_b="2", attr_a="1"}, allow_spmd_sharding_propagation_to_parameters={true,false}, allow_spmd_sharding_propagation_to_output={true}

ENTRY %main (p0: f32[2,3], p1: (s32[], f32[2])) -> (f32[2,3], s32[]) {
  %p0 = f32[2,3]{0,1} parameter(0)
  %p1 = (s32[], f32[2]{0}) parameter(1)
  %c = f32[2,3]{1,0} copy(%p0)
  %i = s32[] get-tuple-element(%p1), index=0
  ROOT %t = (f32[2,3]{1,0}, s32[]) tuple(%c, %i)
}
)");
  ASSERT_NE(module, nullptr);
  const HloModuleConfig& config = module->config();
  EXPECT_EQ(module->name(), "header");
  ASSERT_TRUE(config.entry_computation_layout.has_value());
  const ProgramShape& layout = *config.entry_computation_layout;
  ASSERT_EQ(layout.parameters.size(), 2u);
  EXPECT_EQ(ShapeText(layout.parameters[0]), "f32[2,3]{0,1}");
  EXPECT_EQ(ShapeText(layout.parameters[1]), "(s32[], f32[2]{0})");
  EXPECT_EQ(ShapeText(layout.result), "(f32[2,3]{1,0}, s32[])");

  ASSERT_EQ(config.input_output_alias.size(), 2u);
  EXPECT_THAT(config.input_output_alias[0].output_index, ElementsAre(0));
  EXPECT_EQ(config.input_output_alias[0].parameter_number, 0);
  EXPECT_THAT(config.input_output_alias[0].parameter_index, IsEmpty());
  EXPECT_EQ(config.input_output_alias[0].kind, InputOutputAlias::Kind::kMayAlias);
  EXPECT_THAT(config.input_output_alias[1].output_index, ElementsAre(1));
  EXPECT_EQ(config.input_output_alias[1].parameter_number, 1);
  EXPECT_THAT(config.input_output_alias[1].parameter_index, ElementsAre(0));
  EXPECT_EQ(config.input_output_alias[1].kind, InputOutputAlias::Kind::kMustAlias);

  // Buffer donors are kept sorted.
  ASSERT_EQ(config.buffer_donors.size(), 2u);
  EXPECT_EQ(config.buffer_donors[0].parameter_number, 0);
  EXPECT_THAT(config.buffer_donors[0].parameter_index, IsEmpty());
  EXPECT_EQ(config.buffer_donors[1].parameter_number, 1);
  EXPECT_THAT(config.buffer_donors[1].parameter_index, ElementsAre(1));

  EXPECT_EQ(config.replica_count, 4);
  EXPECT_EQ(config.num_partitions, 2);
  EXPECT_EQ(config.frontend_attributes.size(), 2u);
  EXPECT_EQ(config.frontend_attributes.at("attr_a"), "1");
  EXPECT_EQ(config.frontend_attributes.at("attr_b"), "2");
  EXPECT_THAT(config.allow_spmd_sharding_propagation_to_parameters, ElementsAre(true, false));
  EXPECT_THAT(config.allow_spmd_sharding_propagation_to_output, ElementsAre(true));

  // is_scheduled: every non-fusion computation's sequence is its text order.
  ASSERT_TRUE(module->has_schedule());
  HloComputation* entry = module->entry_computation();
  ASSERT_TRUE(module->schedule().HasSequence(entry));
  const std::vector<HloInstruction*>& sequence = module->schedule().sequence(entry);
  ASSERT_EQ(sequence.size(), 5u);
  EXPECT_EQ(sequence[0]->name(), "p0");
  EXPECT_EQ(sequence[4]->name(), "t");
}

TEST(ParseHeaderTest, DefaultsWithoutAttributes) {
  auto module = ParseOk("HloModule plain\nENTRY %e {\n  ROOT %c = s32[] constant(7)\n}\n");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(module->name(), "plain");
  EXPECT_EQ(module->config().replica_count, 1);
  EXPECT_EQ(module->config().num_partitions, 1);
  EXPECT_TRUE(module->config().input_output_alias.empty());
  EXPECT_TRUE(module->config().buffer_donors.empty());
  EXPECT_TRUE(module->config().frontend_attributes.empty());
  EXPECT_FALSE(module->has_schedule());
  EXPECT_TRUE(module->config().entry_computation_layout->parameters.empty());
  EXPECT_EQ(ShapeText(module->config().entry_computation_layout->result), "s32[]");
}

TEST(ParseHeaderTest, SpmdShardings) {
  auto module = ParseOk(
      "HloModule m, spmd_output_sharding={replicated}, "
      "spmd_parameters_shardings={{maximal device=0},{replicated}}, "
      "allow_spmd_sharding_propagation_to_output=false\n"
      "ENTRY %e {\n  %a = f32[] parameter(0)\n  %b = f32[] parameter(1)\n"
      "  ROOT %c = f32[] add(%a, %b)\n}\n");
  ASSERT_NE(module, nullptr);
  const HloModuleConfig& config = module->config();
  ASSERT_TRUE(config.spmd_output_sharding.has_value());
  EXPECT_EQ(config.spmd_output_sharding->type, HloSharding::Type::kReplicated);
  ASSERT_EQ(config.spmd_parameters_shardings.size(), 2u);
  EXPECT_EQ(config.spmd_parameters_shardings[0].type, HloSharding::Type::kMaximal);
  EXPECT_THAT(config.spmd_parameters_shardings[0].tile_assignment_devices, ElementsAre(0));
  EXPECT_EQ(config.spmd_parameters_shardings[1].type, HloSharding::Type::kReplicated);
  // {false} is XLA's default and is kept as empty.
  EXPECT_TRUE(config.allow_spmd_sharding_propagation_to_output.empty());
}

TEST(ParseHeaderTest, ScheduledModuleSkipsFusionComputations) {
  auto module = ParseOk(R"(HloModule s, is_scheduled=true
%fused (p: f32[2]) -> f32[2] {
  %p = f32[2] parameter(0)
  ROOT %n = f32[2] negate(%p)
}
ENTRY %main (x: f32[2]) -> f32[2] {
  %x = f32[2] parameter(0)
  ROOT %f = f32[2] fusion(%x), kind=kLoop, calls=%fused
}
)");
  ASSERT_NE(module, nullptr);
  HloComputation* fused = module->GetComputationWithName("fused");
  ASSERT_NE(fused, nullptr);
  EXPECT_TRUE(fused->IsFusionComputation());
  EXPECT_FALSE(module->entry_computation()->IsFusionComputation());
  EXPECT_FALSE(module->schedule().HasSequence(fused));
  EXPECT_TRUE(module->schedule().HasSequence(module->entry_computation()));
}

// ---------------------------------------------------------------------------
// Stack frames (as XLA dumps them, e.g. JAX's optimized HLO).

TEST(ParseStackFramesTest, FramesAreInlinedIntoMetadata) {
  auto module = ParseOk(
      R"(HloModule jit_cond, is_scheduled=true, entry_computation_layout={(f32[16]{0})->f32[16]{0}}

FileNames
1 "/work/corpus/make_jax_corpus.py"
2 "other.py"

FunctionNames
1 "<module>"
2 "main"

FileLocations
1 {file_name_id=1 function_name_id=1 line=265 end_line=265 column=4 end_column=10}
2 {file_name_id=2 function_name_id=2 line=101 end_line=102 column=37 end_column=47}

StackFrames
1 {file_location_id=1 parent_frame_id=1}
2 {file_location_id=2 parent_frame_id=1}


ENTRY %main.3 (x.5: f32[16]) -> f32[16] {
  %x.5 = f32[16]{0} parameter(0), metadata={op_name="x"}
  %sin.0 = f32[16]{0} sine(%x.5), metadata={op_name="jit(cond)/sin" stack_frame_id=2}
  ROOT %cos.0 = f32[16]{0} cosine(%sin.0), metadata={op_name="jit(cond)/cos" stack_frame_id=1}
}
)");
  ASSERT_NE(module, nullptr);
  const OpMetadata& sin = FindInstruction(*module, "sin.0")->metadata();
  EXPECT_EQ(sin.op_name, "jit(cond)/sin");
  EXPECT_EQ(sin.source_file, "other.py");
  EXPECT_EQ(sin.source_line, 101);
  EXPECT_EQ(sin.source_column, 37);
  EXPECT_EQ(sin.stack_frame_id, 0);
  const OpMetadata& cos = FindInstruction(*module, "cos.0")->metadata();
  EXPECT_EQ(cos.source_file, "/work/corpus/make_jax_corpus.py");
  EXPECT_EQ(cos.source_line, 265);
  EXPECT_EQ(cos.source_column, 4);
  const OpMetadata& x = FindInstruction(*module, "x.5")->metadata();
  EXPECT_EQ(x.op_name, "x");
  EXPECT_EQ(x.source_file, "");
}

TEST(ParseStackFramesTest, EmptySections) {
  auto module = ParseOk(
      "HloModule m\nFileNames\nFunctionNames\nFileLocations\nStackFrames\n"
      "ENTRY %e {\n  ROOT %c = f32[] constant(1), metadata={stack_frame_id=3}\n}\n");
  ASSERT_NE(module, nullptr);
  // A frame id without a frame is left as it is.
  EXPECT_EQ(FindInstruction(*module, "c")->metadata().stack_frame_id, 3);
}

// ---------------------------------------------------------------------------
// Attributes.

TEST(ParseAttributeTest, Dimensions) {
  std::unique_ptr<HloModule> module;
  ASSERT_NE(ParseAndFind(R"(
ENTRY %main {
  %x = f32[2,3] parameter(0)
  %b = f32[4,2,3] broadcast(%x), dimensions={1,2}
  %t = f32[3,2] transpose(%x), dimensions={1,0}
  %r = f32[2,3] reverse(%x), dimensions={0,1}
  %c = f32[4,3] concatenate(%x, %x), dimensions={0}
  %s = f32[] constant(7)
  %bs = f32[5] broadcast(%s), dimensions={}
  %bs2 = f32[5] broadcast(%s)
  ROOT %g = s32[] get-dimension-size(%x), dimensions={1}
})",
                         "g", &module),
            nullptr);
  EXPECT_THAT(FindInstruction(*module, "b")->dimensions(), ElementsAre(1, 2));
  EXPECT_THAT(FindInstruction(*module, "t")->dimensions(), ElementsAre(1, 0));
  EXPECT_THAT(FindInstruction(*module, "r")->dimensions(), ElementsAre(0, 1));
  EXPECT_THAT(FindInstruction(*module, "c")->dimensions(), ElementsAre(0));
  EXPECT_THAT(FindInstruction(*module, "bs")->dimensions(), IsEmpty());
  EXPECT_THAT(FindInstruction(*module, "bs2")->dimensions(), IsEmpty());
  EXPECT_THAT(FindInstruction(*module, "g")->dimensions(), ElementsAre(1));
}

TEST(ParseAttributeTest, MapDimensionsDefaultToAll) {
  std::unique_ptr<HloModule> module;
  HloInstruction* map = ParseAndFind(R"(
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
ENTRY %main {
  %x = f32[2,3] parameter(0)
  ROOT %m = f32[2,3] map(%x, %x), to_apply=%add
})",
                                     "m", &module);
  ASSERT_NE(map, nullptr);
  EXPECT_THAT(map->dimensions(), ElementsAre(0, 1));
  EXPECT_EQ(map->to_apply()->name(), "add");
}

TEST(ParseAttributeTest, SliceWithAndWithoutStride) {
  std::unique_ptr<HloModule> module;
  HloInstruction* s = ParseAndFind(R"(
ENTRY %main {
  %x = f32[8,9] parameter(0)
  ROOT %s = f32[3,4] slice(%x), slice={[1:7:2], [0:8]}
})",
                                   "s", &module);
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(s->slice_dimensions().size(), 2u);
  EXPECT_EQ(s->slice_dimensions()[0], (SliceDimension{1, 7, 2}));
  EXPECT_EQ(s->slice_dimensions()[1], (SliceDimension{0, 8, 1}));
}

TEST(ParseAttributeTest, PaddingWithNegativeAndInteriorPadding) {
  std::unique_ptr<HloModule> module;
  HloInstruction* pad = ParseAndFind(R"(
ENTRY %main {
  %x = f32[4,5,6] parameter(0)
  %z = f32[] constant(0)
  ROOT %p = f32[9,2,10] pad(%x, %z), padding=1_1_1x-1_-2x2_2
})",
                                     "p", &module);
  ASSERT_NE(pad, nullptr);
  const PaddingConfig& config = pad->padding_config();
  ASSERT_EQ(config.dimensions.size(), 3u);
  EXPECT_EQ(config.dimensions[0], (PaddingDimension{1, 1, 1}));
  EXPECT_EQ(config.dimensions[1], (PaddingDimension{-1, -2, 0}));
  EXPECT_EQ(config.dimensions[2], (PaddingDimension{2, 2, 0}));
}

TEST(ParseAttributeTest, ScalarPadding) {
  std::unique_ptr<HloModule> module;
  HloInstruction* pad = ParseAndFind(R"(
ENTRY %main {
  %x = f32[4] parameter(0)
  %z = f32[] constant(0)
  ROOT %p = f32[4] pad(%x, %z), padding=0_0
})",
                                     "p", &module);
  ASSERT_NE(pad, nullptr);
  ASSERT_EQ(pad->padding_config().dimensions.size(), 1u);
  EXPECT_EQ(pad->padding_config().dimensions[0], (PaddingDimension{0, 0, 0}));
}

TEST(ParseAttributeTest, WindowWithEveryField) {
  std::unique_ptr<HloModule> module;
  HloInstruction* conv = ParseAndFind(R"(
ENTRY %main {
  %x = f32[1,10,10,3] parameter(0)
  %k = f32[3,3,3,8] parameter(1)
  ROOT %c = f32[1,5,5,8] convolution(%x, %k), window={size=3x3 stride=2x1 pad=1_2x-1_0 lhs_dilate=1x2 rhs_dilate=2x3 rhs_reversal=1x0}, dim_labels=b01f_01io->b01f, feature_group_count=1, batch_group_count=1
})",
                                      "c", &module);
  ASSERT_NE(conv, nullptr);
  const Window& window = conv->window();
  ASSERT_EQ(window.dimensions.size(), 2u);
  const WindowDimension& d0 = window.dimensions[0];
  EXPECT_EQ(d0.size, 3);
  EXPECT_EQ(d0.stride, 2);
  EXPECT_EQ(d0.padding_low, 1);
  EXPECT_EQ(d0.padding_high, 2);
  EXPECT_EQ(d0.base_dilation, 1);
  EXPECT_EQ(d0.window_dilation, 2);
  EXPECT_TRUE(d0.window_reversal);
  const WindowDimension& d1 = window.dimensions[1];
  EXPECT_EQ(d1.size, 3);
  EXPECT_EQ(d1.stride, 1);
  EXPECT_EQ(d1.padding_low, -1);
  EXPECT_EQ(d1.padding_high, 0);
  EXPECT_EQ(d1.base_dilation, 2);
  EXPECT_EQ(d1.window_dilation, 3);
  EXPECT_FALSE(d1.window_reversal);
  // Operand precisions default to one DEFAULT per operand.
  EXPECT_THAT(conv->attrs().precision_config.operand_precision,
              ElementsAre(Precision::kDefault, Precision::kDefault));
}

TEST(ParseAttributeTest, WindowDefaultsAndOneDimension) {
  std::unique_ptr<HloModule> module;
  HloInstruction* rw = ParseAndFind(R"(
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
ENTRY %main {
  %x = f32[8] parameter(0)
  %z = f32[] constant(0)
  ROOT %rw = f32[4] reduce-window(%x, %z), window={size=2 stride=2}, to_apply=%add
})",
                                    "rw", &module);
  ASSERT_NE(rw, nullptr);
  ASSERT_EQ(rw->window().dimensions.size(), 1u);
  EXPECT_EQ(rw->window().dimensions[0], (WindowDimension{2, 2, 0, 0, 1, 1, false}));
}

TEST(ParseAttributeTest, ReduceWindowWithoutWindowIsScalar) {
  std::unique_ptr<HloModule> module;
  HloInstruction* rw = ParseAndFind(R"(
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
ENTRY %main {
  %x = f32[] parameter(0)
  %z = f32[] constant(0)
  ROOT %rw = f32[] reduce-window(%x, %z), to_apply=%add
})",
                                    "rw", &module);
  ASSERT_NE(rw, nullptr);
  ASSERT_TRUE(rw->attrs().window.has_value());
  EXPECT_TRUE(rw->window().dimensions.empty());
}

TEST(ParseAttributeTest, ConvolutionDimLabels) {
  std::unique_ptr<HloModule> module;
  ASSERT_NE(ParseAndFind(R"(
ENTRY %main {
  %x = f32[1,3,10,10] parameter(0)
  %k = f32[8,3,3,3] parameter(1)
  %a = f32[1,8,8,8] convolution(%x, %k), window={size=3x3}, dim_labels=bf01_oi01->bf01
  %y = f32[1,4,4,4,2] parameter(2)
  %k3 = f32[2,2,2,2,6] parameter(3)
  %b = f32[1,3,3,3,6] convolution(%y, %k3), window={size=2x2x2}, dim_labels=b012f_012io->b012f
  %z = f32[10,2,1] parameter(4)
  %k1 = f32[3,2,4] parameter(5)
  ROOT %c = f32[8,4,1] convolution(%z, %k1), window={size=3}, dim_labels=0fb_0io->0fb, feature_group_count=2, batch_group_count=1, operand_precision={high,highest}
})",
                         "c", &module),
            nullptr);
  const ConvolutionDimensionNumbers& a =
      FindInstruction(*module, "a")->convolution_dimension_numbers();
  EXPECT_EQ(a.input_batch_dimension, 0);
  EXPECT_EQ(a.input_feature_dimension, 1);
  EXPECT_THAT(a.input_spatial_dimensions, ElementsAre(2, 3));
  EXPECT_EQ(a.kernel_output_feature_dimension, 0);
  EXPECT_EQ(a.kernel_input_feature_dimension, 1);
  EXPECT_THAT(a.kernel_spatial_dimensions, ElementsAre(2, 3));
  EXPECT_EQ(a.output_batch_dimension, 0);
  EXPECT_EQ(a.output_feature_dimension, 1);
  EXPECT_THAT(a.output_spatial_dimensions, ElementsAre(2, 3));

  const ConvolutionDimensionNumbers& b =
      FindInstruction(*module, "b")->convolution_dimension_numbers();
  EXPECT_EQ(b.input_batch_dimension, 0);
  EXPECT_EQ(b.input_feature_dimension, 4);
  EXPECT_THAT(b.input_spatial_dimensions, ElementsAre(1, 2, 3));
  EXPECT_EQ(b.kernel_input_feature_dimension, 3);
  EXPECT_EQ(b.kernel_output_feature_dimension, 4);
  EXPECT_THAT(b.kernel_spatial_dimensions, ElementsAre(0, 1, 2));

  HloInstruction* c = FindInstruction(*module, "c");
  const ConvolutionDimensionNumbers& cd = c->convolution_dimension_numbers();
  EXPECT_EQ(cd.input_batch_dimension, 2);
  EXPECT_EQ(cd.input_feature_dimension, 1);
  EXPECT_THAT(cd.input_spatial_dimensions, ElementsAre(0));
  EXPECT_EQ(cd.kernel_input_feature_dimension, 1);
  EXPECT_EQ(cd.kernel_output_feature_dimension, 2);
  EXPECT_EQ(cd.output_batch_dimension, 2);
  EXPECT_EQ(c->attrs().feature_group_count, 2);
  EXPECT_EQ(c->attrs().batch_group_count, 1);
  EXPECT_THAT(c->attrs().precision_config.operand_precision,
              ElementsAre(Precision::kHigh, Precision::kHighest));
}

TEST(ParseAttributeTest, SpatialLabelsOutOfTextOrder) {
  std::unique_ptr<HloModule> module;
  HloInstruction* conv = ParseAndFind(R"(
ENTRY %main {
  %x = f32[1,10,10,3] parameter(0)
  %k = f32[3,3,3,8] parameter(1)
  ROOT %c = f32[1,8,8,8] convolution(%x, %k), window={size=3x3}, dim_labels=b10f_10io->b10f
})",
                                      "c", &module);
  ASSERT_NE(conv, nullptr);
  const ConvolutionDimensionNumbers& d = conv->convolution_dimension_numbers();
  // Label '0' is at position 2 and label '1' at position 1.
  EXPECT_THAT(d.input_spatial_dimensions, ElementsAre(2, 1));
  EXPECT_THAT(d.kernel_spatial_dimensions, ElementsAre(1, 0));
  EXPECT_THAT(d.output_spatial_dimensions, ElementsAre(2, 1));
}

TEST(ParseAttributeTest, DotDimensionsPrecisionAndAlgorithm) {
  std::unique_ptr<HloModule> module;
  ASSERT_NE(ParseAndFind(R"(
ENTRY %main {
  %x = f32[5,2,3] parameter(0)
  %y = f32[5,3,4] parameter(1)
  %d = f32[5,2,4] dot(%x, %y), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}, operand_precision={high,HIGHEST}, algorithm=dot_bf16_bf16_f32
  %e = f32[5,2,4] dot(%x, %y), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}, algorithm=ALG_DOT_F32_F32_F32
  %v = f32[3] parameter(2)
  ROOT %outer = f32[3,3] dot(%v, %v)
})",
                         "outer", &module),
            nullptr);
  HloInstruction* d = FindInstruction(*module, "d");
  const DotDimensionNumbers& dnums = d->dot_dimension_numbers();
  EXPECT_THAT(dnums.lhs_batch_dimensions, ElementsAre(0));
  EXPECT_THAT(dnums.rhs_batch_dimensions, ElementsAre(0));
  EXPECT_THAT(dnums.lhs_contracting_dimensions, ElementsAre(2));
  EXPECT_THAT(dnums.rhs_contracting_dimensions, ElementsAre(1));
  EXPECT_THAT(d->attrs().precision_config.operand_precision,
              ElementsAre(Precision::kHigh, Precision::kHighest));
  EXPECT_EQ(d->attrs().precision_config.algorithm, 6);
  EXPECT_EQ(FindInstruction(*module, "e")->attrs().precision_config.algorithm, 11);
  HloInstruction* outer = FindInstruction(*module, "outer");
  EXPECT_EQ(outer->dot_dimension_numbers(), DotDimensionNumbers());
  EXPECT_THAT(outer->attrs().precision_config.operand_precision,
              ElementsAre(Precision::kDefault, Precision::kDefault));
}

TEST(ParseAttributeTest, RaggedDotDimensions) {
  std::unique_ptr<HloModule> module;
  HloInstruction* rd = ParseAndFind(R"(
ENTRY %main {
  %x = f32[8,3] parameter(0)
  %y = f32[2,3,4] parameter(1)
  %g = s32[2] parameter(2)
  ROOT %rd = f32[8,4] ragged-dot(%x, %y, %g), lhs_contracting_dims={1}, rhs_contracting_dims={1}, lhs_ragged_dims={0}, rhs_group_dims={0}
})",
                                    "rd", &module);
  ASSERT_NE(rd, nullptr);
  const RaggedDotDimensionNumbers& r = *rd->attrs().ragged_dot_dimension_numbers;
  EXPECT_THAT(r.dot_dimension_numbers.lhs_contracting_dimensions, ElementsAre(1));
  EXPECT_THAT(r.dot_dimension_numbers.rhs_contracting_dimensions, ElementsAre(1));
  EXPECT_THAT(r.lhs_ragged_dimensions, ElementsAre(0));
  EXPECT_THAT(r.rhs_group_dimensions, ElementsAre(0));
}

TEST(ParseAttributeTest, GatherDimensionNumbers) {
  std::unique_ptr<HloModule> module;
  HloInstruction* g = ParseAndFind(R"(
ENTRY %main {
  %x = f32[4,3,5] parameter(0)
  %i = s32[4,2,2] parameter(1)
  ROOT %g = f32[4,2,3] gather(%x, %i), offset_dims={2}, collapsed_slice_dims={2}, start_index_map={1,2}, index_vector_dim=2, slice_sizes={1,3,1}, indices_are_sorted=true, operand_batching_dims={0}, start_indices_batching_dims={0}
})",
                                   "g", &module);
  ASSERT_NE(g, nullptr);
  const GatherDimensionNumbers& d = g->gather_dimension_numbers();
  EXPECT_THAT(d.offset_dims, ElementsAre(2));
  EXPECT_THAT(d.collapsed_slice_dims, ElementsAre(2));
  EXPECT_THAT(d.start_index_map, ElementsAre(1, 2));
  EXPECT_EQ(d.index_vector_dim, 2);
  EXPECT_THAT(d.operand_batching_dims, ElementsAre(0));
  EXPECT_THAT(d.start_indices_batching_dims, ElementsAre(0));
  EXPECT_THAT(g->attrs().gather_slice_sizes, ElementsAre(1, 3, 1));
  EXPECT_TRUE(g->attrs().indices_are_sorted);
}

TEST(ParseAttributeTest, ScatterDimensionNumbers) {
  std::unique_ptr<HloModule> module;
  HloInstruction* s = ParseAndFind(R"(
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
ENTRY %main {
  %x = f32[3,3] parameter(0)
  %y = f32[3,3] parameter(1)
  %i = s32[2] parameter(2)
  %u = f32[2,3] parameter(3)
  ROOT %scatter = (f32[3,3], f32[3,3]) scatter(%x, %y, %i, %u, %u), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=%add, indices_are_sorted=true, unique_indices=true, input_batching_dims={}, scatter_indices_batching_dims={}
})",
                                   "scatter", &module);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->operand_count(), 5);
  const ScatterDimensionNumbers& d = s->scatter_dimension_numbers();
  EXPECT_THAT(d.update_window_dims, ElementsAre(1));
  EXPECT_THAT(d.inserted_window_dims, ElementsAre(0));
  EXPECT_THAT(d.scatter_dims_to_operand_dims, ElementsAre(0));
  EXPECT_EQ(d.index_vector_dim, 1);
  EXPECT_THAT(d.input_batching_dims, IsEmpty());
  EXPECT_TRUE(s->attrs().indices_are_sorted);
  EXPECT_TRUE(s->attrs().unique_indices);
  EXPECT_EQ(s->to_apply()->name(), "add");
}

TEST(ParseAttributeTest, CompareDirectionAndType) {
  std::unique_ptr<HloModule> module;
  ASSERT_NE(ParseAndFind(R"(
ENTRY %main {
  %x = f32[4] parameter(0)
  %i = s32[4] parameter(1)
  %u = u32[4] parameter(2)
  %eq = pred[4] compare(%x, %x), direction=EQ
  %ne = pred[4] compare(%x, %x), direction=NE, type=TOTALORDER
  %ge = pred[4] compare(%x, %x), direction=GE, type=FLOAT
  %gt = pred[4] compare(%i, %i), direction=GT, type=UNSIGNED
  %le = pred[4] compare(%u, %u), direction=LE, type=SIGNED
  ROOT %lt = pred[4] compare(%i, %i), direction=LT, type=SIGNED
})",
                         "lt", &module),
            nullptr);
  auto check = [&](const char* name, ComparisonDirection direction, ComparisonType type,
                   ComparisonType effective) {
    HloInstruction* c = FindInstruction(*module, name);
    ASSERT_NE(c, nullptr) << name;
    EXPECT_EQ(c->comparison_direction(), direction) << name;
    EXPECT_EQ(c->attrs().comparison_type, type) << name;
    EXPECT_EQ(c->EffectiveComparisonType(), effective) << name;
  };
  check("eq", ComparisonDirection::kEq, ComparisonType::kDefault, ComparisonType::kFloat);
  check("ne", ComparisonDirection::kNe, ComparisonType::kFloatTotalOrder,
        ComparisonType::kFloatTotalOrder);
  // An explicit type equal to the element type's default is the default.
  check("ge", ComparisonDirection::kGe, ComparisonType::kDefault, ComparisonType::kFloat);
  check("gt", ComparisonDirection::kGt, ComparisonType::kUnsigned, ComparisonType::kUnsigned);
  check("le", ComparisonDirection::kLe, ComparisonType::kSigned, ComparisonType::kSigned);
  check("lt", ComparisonDirection::kLt, ComparisonType::kDefault, ComparisonType::kSigned);
}

TEST(ParseAttributeTest, IotaTupleIndexAndReshape) {
  std::unique_ptr<HloModule> module;
  ASSERT_NE(ParseAndFind(R"(
ENTRY %main {
  %iota = s32[2,3,4] iota(), iota_dimension=2
  %t = (s32[2,3,4], f32[]) parameter(0)
  %g0 = s32[2,3,4] get-tuple-element(%t), index=0
  %g1 = f32[] get-tuple-element(%t), index=1
  %r = s32[6,4] reshape(%g0), inferred_dimension=0
  ROOT %r2 = s32[24] reshape(%iota)
})",
                         "r2", &module),
            nullptr);
  EXPECT_THAT(FindInstruction(*module, "iota")->dimensions(), ElementsAre(2));
  EXPECT_EQ(FindInstruction(*module, "g0")->tuple_index(), 0);
  EXPECT_EQ(FindInstruction(*module, "g1")->tuple_index(), 1);
  EXPECT_THAT(FindInstruction(*module, "r")->dimensions(), ElementsAre(0));
  EXPECT_THAT(FindInstruction(*module, "r2")->dimensions(), IsEmpty());
}

TEST(ParseAttributeTest, WhileConditionalCallAndFusion) {
  auto module = ParseOk(R"(HloModule control
%cond (s: s32[]) -> pred[] {
  %s = s32[] parameter(0)
  %ten = s32[] constant(10)
  ROOT %lt = pred[] compare(%s, %ten), direction=LT
}
%body (s: s32[]) -> s32[] {
  %s = s32[] parameter(0)
  %one = s32[] constant(1)
  ROOT %next = s32[] add(%s, %one)
}
%neg (x: s32[]) -> s32[] {
  %x = s32[] parameter(0)
  ROOT %n = s32[] negate(%x)
}
%id (x: s32[]) -> s32[] {
  ROOT %x = s32[] parameter(0)
}
%fused (x: s32[]) -> s32[] {
  %x = s32[] parameter(0)
  ROOT %m = s32[] multiply(%x, %x)
}
ENTRY %main {
  %init = s32[] parameter(0)
  %p = pred[] parameter(1)
  %idx = s32[] parameter(2)
  %w = s32[] while(%init), condition=%cond, body=%body
  %c2 = s32[] conditional(%p, %w, %w), true_computation=%neg, false_computation=%id
  %c3 = s32[] conditional(%idx, %w, %w, %c2), branch_computations={%neg, %id, %neg}
  %call = s32[] call(%c3), to_apply=%neg, is_composite=true
  %f1 = s32[] fusion(%call), kind=kLoop, calls=%fused
  %f2 = s32[] fusion(%f1), kind=kInput, calls=%fused
  %f3 = s32[] fusion(%f2), kind=kOutput, calls=%fused
  ROOT %f4 = s32[] fusion(%f3), kind=kCustom, calls=%fused, output_to_operand_aliasing={{}: (0, {})}
}
)");
  ASSERT_NE(module, nullptr);
  HloComputation* cond = module->GetComputationWithName("cond");
  HloComputation* body = module->GetComputationWithName("body");
  HloComputation* neg = module->GetComputationWithName("neg");
  HloComputation* id = module->GetComputationWithName("id");
  HloComputation* fused = module->GetComputationWithName("fused");
  HloInstruction* w = FindInstruction(*module, "w");
  EXPECT_EQ(w->while_condition(), cond);
  EXPECT_EQ(w->while_body(), body);
  EXPECT_THAT(FindInstruction(*module, "c2")->called_computations(), ElementsAre(neg, id));
  EXPECT_THAT(FindInstruction(*module, "c3")->called_computations(), ElementsAre(neg, id, neg));
  HloInstruction* call = FindInstruction(*module, "call");
  EXPECT_EQ(call->to_apply(), neg);
  EXPECT_TRUE(call->attrs().is_composite);
  EXPECT_EQ(FindInstruction(*module, "f1")->fusion_kind(), FusionKind::kLoop);
  EXPECT_EQ(FindInstruction(*module, "f2")->fusion_kind(), FusionKind::kInput);
  EXPECT_EQ(FindInstruction(*module, "f3")->fusion_kind(), FusionKind::kOutput);
  HloInstruction* f4 = FindInstruction(*module, "f4");
  EXPECT_EQ(f4->fusion_kind(), FusionKind::kCustom);
  EXPECT_EQ(f4->fused_computation(), fused);
  EXPECT_TRUE(fused->IsFusionComputation());
  ASSERT_EQ(f4->attrs().output_operand_aliasing.size(), 1u);
  EXPECT_THAT(f4->attrs().output_operand_aliasing[0].output_shape_index, IsEmpty());
  EXPECT_EQ(f4->attrs().output_operand_aliasing[0].operand_index, 0);
  // The one-parameter computation `id` whose root is its parameter.
  EXPECT_EQ(id->root_instruction()->opcode(), HloOpcode::kParameter);
}

TEST(ParseAttributeTest, CustomCallAttributes) {
  auto module = ParseOk(R"(
%comp (x: f32[]) -> f32[] {
  ROOT %x = f32[] parameter(0)
}
ENTRY %main {
  %a = f32[4] parameter(0)
  %b = f32[2,2]{0,1} parameter(1)
  %cc = (f32[4], f32[2,2]) custom-call(%a, %b), custom_call_target="my_target", backend_config="raw \"config\"\n", api_version=API_VERSION_STATUS_RETURNING, schedule=SCHEDULE_LATEST, output_to_operand_aliasing={{0}: (0, {}), {1}: (1, {})}, custom_call_has_side_effect=true, operand_layout_constraints={f32[4]{0}, f32[2,2]{0,1}}, called_computations={%comp}, operand_precision={default,high}, padding_type=PADDING_SAME
  %json = f32[4] custom-call(%a), custom_call_target="json", backend_config={"key": {"nested": "}"}, "n": 1}, api_version=API_VERSION_TYPED_FFI, schedule=SCHEDULE_EARLIEST
  %lit = f32[4] custom-call(%a), custom_call_target="lit", literal=s32[2]{0} {1, 2}, to_apply=%comp
  ROOT %plain = f32[4] custom-call(%a), custom_call_target="plain", api_version=API_VERSION_ORIGINAL
}
)");
  ASSERT_NE(module, nullptr);
  HloInstruction* cc = FindInstruction(*module, "cc");
  const HloAttributes& a = cc->attrs();
  EXPECT_EQ(a.custom_call_target, "my_target");
  EXPECT_EQ(a.backend_config, "raw \"config\"\n");
  EXPECT_EQ(a.custom_call_api_version, CustomCallApiVersion::kStatusReturning);
  EXPECT_EQ(a.custom_call_schedule, CustomCallSchedule::kLatest);
  ASSERT_EQ(a.output_operand_aliasing.size(), 2u);
  EXPECT_THAT(a.output_operand_aliasing[0].output_shape_index, ElementsAre(0));
  EXPECT_EQ(a.output_operand_aliasing[0].operand_index, 0);
  EXPECT_THAT(a.output_operand_aliasing[1].output_shape_index, ElementsAre(1));
  EXPECT_EQ(a.output_operand_aliasing[1].operand_index, 1);
  EXPECT_THAT(a.output_operand_aliasing[1].operand_shape_index, IsEmpty());
  EXPECT_TRUE(a.custom_call_has_side_effect);
  EXPECT_TRUE(a.constrain_layout);
  ASSERT_EQ(a.operand_shapes_with_layout.size(), 2u);
  EXPECT_EQ(ShapeText(a.operand_shapes_with_layout[1]), "f32[2,2]{0,1}");
  EXPECT_THAT(cc->called_computations(), ElementsAre(module->GetComputationWithName("comp")));
  EXPECT_THAT(a.precision_config.operand_precision,
              ElementsAre(Precision::kDefault, Precision::kHigh));
  EXPECT_EQ(a.padding_type, PaddingType::kSame);

  HloInstruction* json = FindInstruction(*module, "json");
  EXPECT_EQ(json->attrs().backend_config, R"({"key": {"nested": "}"}, "n": 1})");
  EXPECT_EQ(json->attrs().custom_call_api_version, CustomCallApiVersion::kTypedFfi);
  EXPECT_EQ(json->attrs().custom_call_schedule, CustomCallSchedule::kEarliest);

  HloInstruction* lit = FindInstruction(*module, "lit");
  ASSERT_TRUE(lit->attrs().literal.has_value());
  EXPECT_THAT(lit->attrs().literal->data<int32_t>(), ElementsAre(1, 2));
  EXPECT_EQ(lit->to_apply(), module->GetComputationWithName("comp"));

  HloInstruction* plain = FindInstruction(*module, "plain");
  EXPECT_EQ(plain->attrs().custom_call_api_version, CustomCallApiVersion::kOriginal);
  EXPECT_EQ(plain->attrs().custom_call_schedule, CustomCallSchedule::kNone);
  EXPECT_FALSE(plain->attrs().custom_call_has_side_effect);
  EXPECT_TRUE(plain->attrs().backend_config.empty());
  EXPECT_THAT(plain->attrs().precision_config.operand_precision, ElementsAre(Precision::kDefault));
}

TEST(ParseAttributeTest, MetadataWithEveryField) {
  std::unique_ptr<HloModule> module;
  HloInstruction* c = ParseAndFind(R"(
ENTRY %main {
  ROOT %c = f32[] constant(1), metadata={op_type="Const" op_name="jit(f)/const" source_file="/tmp/a.py" source_line=12 source_end_line=13 source_column=4 source_end_column=20 profile_type={1,2} deduplicated_name="dedup" preserve_layout=true scheduling_name="sched" stack_frame_id=0}
})",
                                   "c", &module);
  ASSERT_NE(c, nullptr);
  const OpMetadata& m = c->metadata();
  EXPECT_EQ(m.op_type, "Const");
  EXPECT_EQ(m.op_name, "jit(f)/const");
  EXPECT_EQ(m.source_file, "/tmp/a.py");
  EXPECT_EQ(m.source_line, 12);
  EXPECT_EQ(m.source_end_line, 13);
  EXPECT_EQ(m.source_column, 4);
  EXPECT_EQ(m.source_end_column, 20);
  EXPECT_THAT(m.profile_type, ElementsAre(1, 2));
  EXPECT_EQ(m.deduplicated_name, "dedup");
  EXPECT_TRUE(m.preserve_layout);
  EXPECT_EQ(m.scheduling_name, "sched");
}

TEST(ParseAttributeTest, MetadataWithCommasAndEmpty) {
  std::unique_ptr<HloModule> module;
  ASSERT_NE(ParseAndFind(R"(
ENTRY %main {
  %a = f32[] constant(1), metadata={op_type="A", op_name="b"}
  ROOT %b = f32[] negate(%a), metadata={}
})",
                         "b", &module),
            nullptr);
  EXPECT_EQ(FindInstruction(*module, "a")->metadata().op_name, "b");
  EXPECT_TRUE(FindInstruction(*module, "b")->metadata().empty());
}

TEST(ParseAttributeTest, Shardings) {
  auto module = ParseOk(R"(
ENTRY %main {
  %rep = f32[4,4] parameter(0), sharding={replicated}
  %max = f32[4,4] copy(%rep), sharding={maximal device=3}
  %man = f32[4,4] copy(%rep), sharding={manual}
  %unk = f32[4,4] copy(%rep), sharding={unknown}
  %tiled = f32[4,4] copy(%rep), sharding={devices=[2,2]0,2,1,3}
  %iota = f32[4,4] copy(%rep), sharding={devices=[2,2]<=[4]}
  %iota_t = f32[4,4] copy(%rep), sharding={devices=[2,2]<=[2,2]T(1,0)}
  %partial = f32[4,4] copy(%rep), sharding={devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}
  %subgroup = f32[4,4] copy(%rep), sharding={devices=[2,1,2]<=[4] last_tile_dims={manual}}
  %meta = f32[4,4] copy(%rep), sharding={replicated metadata={op_name="a"}}
  %group = f32[4,4] copy(%rep), sharding={devices=[2,2]<=[4] shard_as 7}
  ROOT %tuple = (f32[4,4], f32[4,4]) tuple(%rep, %max), sharding={{replicated}, {maximal device=0}}
}
)");
  ASSERT_NE(module, nullptr);
  auto sharding = [&](const char* name) -> const HloSharding& {
    HloInstruction* instruction = FindInstruction(*module, name);
    EXPECT_TRUE(instruction->has_sharding()) << name;
    return *instruction->attrs().sharding;
  };
  EXPECT_EQ(sharding("rep").type, HloSharding::Type::kReplicated);
  const HloSharding& max = sharding("max");
  EXPECT_EQ(max.type, HloSharding::Type::kMaximal);
  EXPECT_THAT(max.tile_assignment_devices, ElementsAre(3));
  EXPECT_EQ(sharding("man").type, HloSharding::Type::kManual);
  EXPECT_EQ(sharding("unk").type, HloSharding::Type::kUnknown);
  const HloSharding& tiled = sharding("tiled");
  EXPECT_EQ(tiled.type, HloSharding::Type::kOther);
  EXPECT_THAT(tiled.tile_assignment_dimensions, ElementsAre(2, 2));
  EXPECT_THAT(tiled.tile_assignment_devices, ElementsAre(0, 2, 1, 3));
  const HloSharding& iota = sharding("iota");
  EXPECT_THAT(iota.tile_assignment_dimensions, ElementsAre(2, 2));
  EXPECT_THAT(iota.iota_reshape_dims, ElementsAre(4));
  EXPECT_THAT(iota.iota_transpose_perm, ElementsAre(0));
  const HloSharding& iota_t = sharding("iota_t");
  EXPECT_THAT(iota_t.iota_reshape_dims, ElementsAre(2, 2));
  EXPECT_THAT(iota_t.iota_transpose_perm, ElementsAre(1, 0));
  const HloSharding& partial = sharding("partial");
  EXPECT_TRUE(partial.replicate_on_last_tile_dim);
  EXPECT_THAT(partial.tile_assignment_dimensions, ElementsAre(2, 1, 2));
  const HloSharding& subgroup = sharding("subgroup");
  EXPECT_THAT(subgroup.last_tile_dims, ElementsAre(HloSharding::Type::kManual));
  const HloSharding& meta = sharding("meta");
  ASSERT_EQ(meta.metadata.size(), 1u);
  EXPECT_EQ(meta.metadata[0].op_name, "a");
  const HloSharding& group = sharding("group");
  EXPECT_TRUE(group.is_shard_group);
  EXPECT_EQ(group.shard_group_id, 7);
  EXPECT_EQ(group.shard_group_type, 0);
  const HloSharding& tuple = sharding("tuple");
  EXPECT_EQ(tuple.type, HloSharding::Type::kTuple);
  ASSERT_EQ(tuple.tuple_shardings.size(), 2u);
  EXPECT_EQ(tuple.tuple_shardings[0].type, HloSharding::Type::kReplicated);
  EXPECT_EQ(tuple.tuple_shardings[1].type, HloSharding::Type::kMaximal);
}

TEST(ParseAttributeTest, FrontendAttributesAndStatistics) {
  std::unique_ptr<HloModule> module;
  HloInstruction* c = ParseAndFind(R"(
ENTRY %main {
  ROOT %c = f32[] constant(1), frontend_attributes={_xla_compute_type="host", b="x\ty", json={"k": [1, 2]}}, statistics={visualizing_index=1,stat-1=33,stat-2=0.5}
})",
                                   "c", &module);
  ASSERT_NE(c, nullptr);
  const FrontendAttributes& f = c->attrs().frontend_attributes;
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f.at("_xla_compute_type"), "host");
  EXPECT_EQ(f.at("b"), "x\ty");
  EXPECT_EQ(f.at("json"), R"({"k": [1, 2]})");
  ASSERT_TRUE(c->attrs().statistics_viz.has_value());
  EXPECT_EQ(c->attrs().statistics_viz->stat_index_to_visualize, 1);
  ASSERT_EQ(c->attrs().statistics_viz->statistics.size(), 2u);
  EXPECT_EQ(c->attrs().statistics_viz->statistics[0].first, "stat-1");
  EXPECT_EQ(c->attrs().statistics_viz->statistics[0].second, 33);
  EXPECT_EQ(c->attrs().statistics_viz->statistics[1].second, 0.5);
}

TEST(ParseAttributeTest, ControlPredecessors) {
  std::unique_ptr<HloModule> module;
  HloInstruction* c = ParseAndFind(R"(
ENTRY %main {
  %a = f32[] constant(1)
  %b = f32[] constant(2)
  ROOT %c = f32[] add(%a, %a), control-predecessors={%a, %b}
})",
                                   "c", &module);
  ASSERT_NE(c, nullptr);
  HloInstruction* a = FindInstruction(*module, "a");
  HloInstruction* b = FindInstruction(*module, "b");
  EXPECT_THAT(c->control_predecessors(), ElementsAre(a, b));
  EXPECT_THAT(a->control_successors(), ElementsAre(c));
  EXPECT_THAT(b->control_successors(), ElementsAre(c));
}

TEST(ParseAttributeTest, SortTopKReducePrecisionAndRandom) {
  auto module = ParseOk(R"(
%lt (a: f32[], b: f32[], c: s32[], d: s32[]) -> pred[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  %c = s32[] parameter(2)
  %d = s32[] parameter(3)
  ROOT %lt = pred[] compare(%a, %b), direction=LT
}
ENTRY %main {
  %x = f32[2,8] parameter(0)
  %i = s32[2,8] parameter(1)
  %sort = (f32[2,8], s32[2,8]) sort(%x, %i), dimensions={1}, is_stable=true, to_apply=%lt
  %unstable = (f32[2,8], s32[2,8]) sort(%x, %i), dimensions={0}, to_apply=%lt
  %top = (f32[2,2], s32[2,2]) topk(%x), k=2
  %bottom = (f32[2,2], s32[2,2]) topk(%x), k=2, largest=false
  %rp = f32[2,8] reduce-precision(%x), exponent_bits=8, mantissa_bits=7
  %lo = f32[] constant(0)
  %hi = f32[] constant(1)
  %uniform = f32[3] rng(%lo, %hi), distribution=rng_uniform
  %normal = f32[3] rng(%lo, %hi), distribution=rng_normal
  %state = u64[2] parameter(2)
  %philox = (u64[2], u32[8]) rng-bit-generator(%state), algorithm=rng_philox
  %default = (u64[2], u32[8]) rng-bit-generator(%state), algorithm=rng_default
  ROOT %upd = u64[2] rng-get-and-update-state(), delta=16
}
)");
  ASSERT_NE(module, nullptr);
  HloInstruction* sort = FindInstruction(*module, "sort");
  EXPECT_TRUE(sort->attrs().is_stable);
  EXPECT_THAT(sort->dimensions(), ElementsAre(1));
  EXPECT_EQ(sort->to_apply()->name(), "lt");
  EXPECT_FALSE(FindInstruction(*module, "unstable")->attrs().is_stable);
  EXPECT_EQ(FindInstruction(*module, "top")->attrs().k, 2);
  EXPECT_TRUE(FindInstruction(*module, "top")->attrs().largest);
  EXPECT_FALSE(FindInstruction(*module, "bottom")->attrs().largest);
  EXPECT_EQ(FindInstruction(*module, "rp")->attrs().exponent_bits, 8);
  EXPECT_EQ(FindInstruction(*module, "rp")->attrs().mantissa_bits, 7);
  EXPECT_EQ(FindInstruction(*module, "uniform")->attrs().distribution,
            RandomDistribution::kUniform);
  EXPECT_EQ(FindInstruction(*module, "normal")->attrs().distribution, RandomDistribution::kNormal);
  EXPECT_EQ(FindInstruction(*module, "philox")->attrs().rng_algorithm, RandomAlgorithm::kPhilox);
  EXPECT_EQ(FindInstruction(*module, "default")->attrs().rng_algorithm, RandomAlgorithm::kDefault);
  EXPECT_EQ(FindInstruction(*module, "upd")->attrs().delta, 16);
}

TEST(ParseAttributeTest, Collectives) {
  auto module = ParseOk(R"(HloModule collectives, replica_count=4
%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
ENTRY %main {
  %x = f32[8] parameter(0)
  %ar = f32[8] all-reduce(%x), replica_groups={{0,1},{2,3}}, channel_id=5, use_global_device_ids=true, to_apply=%add
  %ar_iota = f32[8] all-reduce(%x), replica_groups=[2,2]<=[2,2]T(1,0), to_apply=%add, constrain_layout=true
  %ar_empty = f32[8] all-reduce(%x), replica_groups={}, to_apply=%add
  %ag = f32[16] all-gather(%x), replica_groups=[1,2]<=[2], dimensions={0}, channel_id=2
  %a2a = f32[8] all-to-all(%x), replica_groups={{0,1}}, dimensions={0}
  %a2a_tuple = (f32[8], f32[8]) all-to-all(%x, %x), replica_groups={{0,1}}
  %rs = f32[4] reduce-scatter(%x), replica_groups={{0,1}}, dimensions={0}, to_apply=%add
  %cp = f32[8] collective-permute(%x), channel_id=3, source_target_pairs={{0,1},{1,2},{2,3},{3,0}}
  ROOT %cb = f32[8] collective-broadcast(%cp), replica_groups={{0,1,2,3}}
}
)");
  ASSERT_NE(module, nullptr);
  HloInstruction* ar = FindInstruction(*module, "ar");
  ASSERT_EQ(ar->attrs().replica_groups.size(), 2u);
  EXPECT_THAT(ar->attrs().replica_groups[0].replica_ids, ElementsAre(0, 1));
  EXPECT_THAT(ar->attrs().replica_groups[1].replica_ids, ElementsAre(2, 3));
  EXPECT_EQ(ar->attrs().channel_id, 5);
  EXPECT_TRUE(ar->attrs().use_global_device_ids);
  EXPECT_EQ(ar->to_apply()->name(), "add");

  HloInstruction* ar_iota = FindInstruction(*module, "ar_iota");
  ASSERT_TRUE(ar_iota->attrs().iota_replica_groups.has_value());
  const IotaReplicaGroupList& iota = *ar_iota->attrs().iota_replica_groups;
  EXPECT_EQ(iota.num_replica_groups, 2);
  EXPECT_EQ(iota.num_devices_per_group, 2);
  EXPECT_THAT(iota.iota_reshape_dims, ElementsAre(2, 2));
  EXPECT_THAT(iota.iota_transpose_perm, ElementsAre(1, 0));
  EXPECT_TRUE(ar_iota->attrs().constrain_layout);
  EXPECT_FALSE(ar_iota->attrs().use_global_device_ids);
  EXPECT_EQ(ar_iota->attrs().channel_id, 0);

  EXPECT_TRUE(FindInstruction(*module, "ar_empty")->attrs().replica_groups.empty());
  HloInstruction* ag = FindInstruction(*module, "ag");
  EXPECT_THAT(ag->dimensions(), ElementsAre(0));
  EXPECT_EQ(ag->attrs().iota_replica_groups->num_replica_groups, 1);
  EXPECT_EQ(ag->attrs().channel_id, 2);
  EXPECT_THAT(FindInstruction(*module, "a2a")->dimensions(), ElementsAre(0));
  EXPECT_THAT(FindInstruction(*module, "a2a_tuple")->dimensions(), IsEmpty());
  EXPECT_THAT(FindInstruction(*module, "rs")->dimensions(), ElementsAre(0));
  HloInstruction* cp = FindInstruction(*module, "cp");
  EXPECT_EQ(cp->attrs().channel_id, 3);
  EXPECT_THAT(cp->attrs().source_target_pairs,
              ElementsAre(std::pair<int64_t, int64_t>{0, 1}, std::pair<int64_t, int64_t>{1, 2},
                          std::pair<int64_t, int64_t>{2, 3}, std::pair<int64_t, int64_t>{3, 0}));
  ASSERT_EQ(FindInstruction(*module, "cb")->attrs().replica_groups.size(), 1u);
}

TEST(ParseAttributeTest, FftTriangularSolveCholesky) {
  auto module = ParseOk(R"(
ENTRY %main {
  %c = c64[4,8] parameter(0)
  %fft = c64[4,8] fft(%c), fft_type=FFT, fft_length={8}
  %ifft = c64[4,8] fft(%c), fft_type=IFFT, fft_length={8}
  %f = f32[4,8] parameter(1)
  %rfft = c64[4,5] fft(%f), fft_type=RFFT, fft_length={4,8}
  %irfft = f32[4,8] fft(%rfft), fft_type=IRFFT, fft_length={4,8}
  %a = f32[3,3] parameter(2)
  %b = f32[3,2] parameter(3)
  %ts = f32[3,2] triangular-solve(%a, %b), left_side=true, lower=true, unit_diagonal=true, transpose_a=ADJOINT
  %ts_default = f32[3,2] triangular-solve(%a, %b)
  %chol = f32[3,3] cholesky(%a), lower=true
  %chol_default = f32[3,3] cholesky(%a)
  %scale = f32[8] parameter(4)
  %bn = (f32[4,8], f32[8], f32[8]) batch-norm-training(%f, %scale, %scale), epsilon=0.001, feature_index=1
  ROOT %done = f32[] constant(0)
})");
  ASSERT_NE(module, nullptr);
  HloInstruction* fft = FindInstruction(*module, "fft");
  EXPECT_EQ(fft->attrs().fft_type, FftType::kFft);
  EXPECT_THAT(fft->attrs().fft_length, ElementsAre(8));
  EXPECT_EQ(FindInstruction(*module, "ifft")->attrs().fft_type, FftType::kIfft);
  EXPECT_EQ(FindInstruction(*module, "rfft")->attrs().fft_type, FftType::kRfft);
  EXPECT_THAT(FindInstruction(*module, "rfft")->attrs().fft_length, ElementsAre(4, 8));
  EXPECT_EQ(FindInstruction(*module, "irfft")->attrs().fft_type, FftType::kIrfft);

  const TriangularSolveOptions& ts =
      *FindInstruction(*module, "ts")->attrs().triangular_solve_options;
  EXPECT_TRUE(ts.left_side);
  EXPECT_TRUE(ts.lower);
  EXPECT_TRUE(ts.unit_diagonal);
  EXPECT_EQ(ts.transpose_a, TriangularSolveOptions::Transpose::kAdjoint);
  const TriangularSolveOptions& td =
      *FindInstruction(*module, "ts_default")->attrs().triangular_solve_options;
  EXPECT_FALSE(td.left_side);
  EXPECT_FALSE(td.lower);
  EXPECT_FALSE(td.unit_diagonal);
  EXPECT_TRUE(FindInstruction(*module, "chol")->attrs().cholesky_options->lower);
  EXPECT_FALSE(FindInstruction(*module, "chol_default")->attrs().cholesky_options->lower);
  HloInstruction* bn = FindInstruction(*module, "bn");
  EXPECT_FLOAT_EQ(bn->attrs().epsilon, 0.001f);
  EXPECT_EQ(bn->attrs().feature_index, 1);
}

TEST(ParseAttributeTest, SendRecvInfeedOutfeedAndCopyStart) {
  auto module = ParseOk(R"(
ENTRY %main {
  %x = f32[4] parameter(0), parameter_replication={true}
  %t = token[] after-all()
  %send = (f32[4], u32[], token[]) send(%x, %t), channel_id=7, is_host_transfer=true
  %send_done = token[] send-done(%send), channel_id=7, is_host_transfer=true
  %recv = (f32[4], u32[], token[]) recv(%t), channel_id=8
  %recv_done = (f32[4], token[]) recv-done(%recv), channel_id=8
  %in = ((f32[4]), token[]) infeed(%t), infeed_config="in_cfg"
  %out = token[] outfeed(%x, %t), outfeed_config="out_cfg"
  %cs = (f32[4], f32[4], u32[]) copy-start(%x), cross_program_prefetch_index=1
  ROOT %cd = f32[4] copy-done(%cs)
})");
  ASSERT_NE(module, nullptr);
  EXPECT_THAT(FindInstruction(*module, "x")->attrs().parameter_replication, ElementsAre(true));
  HloInstruction* send = FindInstruction(*module, "send");
  EXPECT_EQ(send->attrs().channel_id, 7);
  EXPECT_TRUE(send->attrs().is_host_transfer);
  EXPECT_TRUE(FindInstruction(*module, "send_done")->attrs().is_host_transfer);
  EXPECT_EQ(FindInstruction(*module, "recv")->attrs().channel_id, 8);
  EXPECT_FALSE(FindInstruction(*module, "recv")->attrs().is_host_transfer);
  EXPECT_EQ(FindInstruction(*module, "in")->attrs().infeed_config, "in_cfg");
  HloInstruction* out = FindInstruction(*module, "out");
  EXPECT_EQ(out->attrs().outfeed_config, "out_cfg");
  // Without outfeed_shape, the operand's shape.
  ASSERT_TRUE(out->attrs().outfeed_shape.has_value());
  EXPECT_EQ(ShapeText(*out->attrs().outfeed_shape), "f32[4]{0}");
  EXPECT_EQ(FindInstruction(*module, "cs")->attrs().cross_program_prefetch_index, 1);
}

TEST(ParseAttributeTest, DomainShardings) {
  std::unique_ptr<HloModule> module;
  HloInstruction* d = ParseAndFind(R"(
ENTRY %main {
  %x = f32[4] parameter(0)
  ROOT %d = f32[4] domain(%x), domain={kind="sharding", entry={maximal device=1}, exit={replicated}}
})",
                                   "d", &module);
  ASSERT_NE(d, nullptr);
  // Text `exit=` is the operand side, which the proto calls the entry.
  ASSERT_TRUE(d->attrs().domain_entry_sharding.has_value());
  EXPECT_EQ(d->attrs().domain_entry_sharding->type, HloSharding::Type::kReplicated);
  ASSERT_TRUE(d->attrs().domain_exit_sharding.has_value());
  EXPECT_EQ(d->attrs().domain_exit_sharding->type, HloSharding::Type::kMaximal);
}

TEST(ParseAttributeTest, DynamicSliceSizesAndDimensionSizes) {
  std::unique_ptr<HloModule> module;
  ASSERT_NE(ParseAndFind(R"(
ENTRY %main {
  %x = f32[8,8] parameter(0)
  %i = s32[] parameter(1)
  %ds = f32[2,3] dynamic-slice(%x, %i, %i), dynamic_slice_sizes={2,3}
  %n = s32[] constant(4)
  %sds = f32[8,<=8] set-dimension-size(%x, %n), dimensions={1}
  ROOT %gds = s32[] get-dimension-size(%sds), dimensions={1}
})",
                         "gds", &module),
            nullptr);
  EXPECT_THAT(FindInstruction(*module, "ds")->attrs().dynamic_slice_sizes, ElementsAre(2, 3));
  HloInstruction* sds = FindInstruction(*module, "sds");
  EXPECT_THAT(sds->dimensions(), ElementsAre(1));
  EXPECT_TRUE(sds->shape().is_dynamic_dimension(1));
  EXPECT_FALSE(sds->shape().is_dynamic_dimension(0));
}

TEST(ParseAttributeTest, AsyncOpsAndSugar) {
  auto module = ParseOk(R"(HloModule async
%wrapped (x: f32[4]) -> f32[4] {
  %x = f32[4] parameter(0)
  ROOT %n = f32[4] negate(%x)
}, execution_thread="thread"
ENTRY %main {
  %p = f32[4] parameter(0)
  %start = ((f32[4]), f32[4], s32[]) async-start(%p), calls=%wrapped, async_execution_thread="thread"
  %done = f32[4] async-done(%start), async_execution_thread="thread"
  %cc_start = ((f32[4]), f32[4], u32[]) custom-call-start(%p), custom_call_target="foo", async_execution_thread="parallel"
  %cc_update = ((f32[4]), f32[4], u32[]) custom-call-update(%cc_start)
  ROOT %cc_done = f32[4] custom-call-done(%cc_update)
}
)");
  ASSERT_NE(module, nullptr);
  HloInstruction* start = FindInstruction(*module, "start");
  EXPECT_EQ(start->opcode(), HloOpcode::kAsyncStart);
  EXPECT_THAT(start->called_computations(), ElementsAre(module->GetComputationWithName("wrapped")));
  EXPECT_EQ(start->attrs().async_execution_thread, "thread");
  HloInstruction* cc_start = FindInstruction(*module, "cc_start");
  EXPECT_EQ(cc_start->opcode(), HloOpcode::kAsyncStart);
  ASSERT_EQ(cc_start->called_computations().size(), 1u);
  HloComputation* body = cc_start->called_computations()[0];
  EXPECT_EQ(body->execution_thread(), "parallel");
  HloInstruction* wrapped = body->root_instruction();
  EXPECT_EQ(wrapped->opcode(), HloOpcode::kCustomCall);
  EXPECT_EQ(wrapped->attrs().custom_call_target, "foo");
  EXPECT_EQ(ShapeText(wrapped->shape()), "f32[4]{0}");
  EXPECT_EQ(body->num_parameters(), 1);
  EXPECT_EQ(FindInstruction(*module, "cc_update")->opcode(), HloOpcode::kAsyncUpdate);
  EXPECT_EQ(FindInstruction(*module, "cc_done")->opcode(), HloOpcode::kAsyncDone);
  // Generated computation names do not clash with written ones.
  std::set<std::string> names;
  for (HloComputation* c : module->computations()) EXPECT_TRUE(names.insert(c->name()).second);
}

// ---------------------------------------------------------------------------
// Constants.

template <typename T>
std::vector<T> Values(const HloInstruction* instruction) {
  absl::Span<const T> data = instruction->literal().data<T>();
  return std::vector<T>(data.begin(), data.end());
}

TEST(ParseConstantTest, PredAndIntegers) {
  auto module = ParseOk(R"(
ENTRY %main {
  %t = pred[] constant(true)
  %f = pred[] constant(false)
  %pa = pred[4] constant({1, 0, true, false})
  %s8 = s8[2] constant({-128, 127})
  %s16 = s16[2] constant({-32768, 32767})
  %s32 = s32[3] constant({-2147483648, 2147483647, 0})
  %s64 = s64[2] constant({-9223372036854775808, 9223372036854775807})
  %u8 = u8[2] constant({0, 255})
  %u16 = u16[1] constant({65535})
  %u32 = u32[1] constant({4294967295})
  %u64 = u64[1] constant({18446744073709551615})
  ROOT %neg_zero = s32[] constant(-0)
})");
  ASSERT_NE(module, nullptr);
  EXPECT_THAT(Values<bool>(FindInstruction(*module, "t")), ElementsAre(true));
  EXPECT_THAT(Values<bool>(FindInstruction(*module, "f")), ElementsAre(false));
  EXPECT_THAT(Values<bool>(FindInstruction(*module, "pa")), ElementsAre(true, false, true, false));
  EXPECT_THAT(Values<int8_t>(FindInstruction(*module, "s8")), ElementsAre(-128, 127));
  EXPECT_THAT(Values<int16_t>(FindInstruction(*module, "s16")), ElementsAre(-32768, 32767));
  EXPECT_THAT(Values<int32_t>(FindInstruction(*module, "s32")),
              ElementsAre(std::numeric_limits<int32_t>::min(), 2147483647, 0));
  EXPECT_THAT(
      Values<int64_t>(FindInstruction(*module, "s64")),
      ElementsAre(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()));
  EXPECT_THAT(Values<uint8_t>(FindInstruction(*module, "u8")), ElementsAre(0, 255));
  EXPECT_THAT(Values<uint16_t>(FindInstruction(*module, "u16")), ElementsAre(65535));
  EXPECT_THAT(Values<uint32_t>(FindInstruction(*module, "u32")), ElementsAre(4294967295u));
  EXPECT_THAT(Values<uint64_t>(FindInstruction(*module, "u64")),
              ElementsAre(std::numeric_limits<uint64_t>::max()));
  EXPECT_THAT(Values<int32_t>(FindInstruction(*module, "neg_zero")), ElementsAre(0));
}

TEST(ParseConstantTest, FloatingPoint) {
  auto module = ParseOk(R"(
ENTRY %main {
  %f16 = f16[4] constant({1.5, -65504, 0.000061035, 2})
  %bf16 = bf16[3] constant({1.5, -3.38953139e+38, 0.0078125})
  %f32 = f32[5] constant({1, -2.5, 3.4028235e+38, 1e-45, 1.17549435E-38})
  %f64 = f64[3] constant({0.1, -1.7976931348623157e308, 4.9406564584124654e-324})
  %special = f32[5] constant({inf, -inf, nan, -nan, -0})
  %special64 = f64[3] constant({inf, -inf, nan})
  %int_text = f32[2] constant({3, -7})
  ROOT %exp = f64[2] constant({1e10, 2.5E-3})
})");
  ASSERT_NE(module, nullptr);
  std::vector<half> f16 = Values<half>(FindInstruction(*module, "f16"));
  EXPECT_EQ(static_cast<float>(f16[0]), 1.5f);
  EXPECT_EQ(static_cast<float>(f16[1]), -65504.0f);
  EXPECT_NEAR(static_cast<float>(f16[2]), 0.000061035f, 1e-8);
  EXPECT_EQ(static_cast<float>(f16[3]), 2.0f);
  std::vector<bfloat16> bf16 = Values<bfloat16>(FindInstruction(*module, "bf16"));
  EXPECT_EQ(static_cast<float>(bf16[0]), 1.5f);
  EXPECT_EQ(static_cast<float>(bf16[1]), std::bit_cast<float>(0xff7f0000u));  // bf16 lowest
  EXPECT_EQ(static_cast<float>(bf16[2]), 0.0078125f);
  EXPECT_THAT(
      Values<float>(FindInstruction(*module, "f32")),
      ElementsAre(1.0f, -2.5f, std::numeric_limits<float>::max(),
                  std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::min()));
  EXPECT_THAT(Values<double>(FindInstruction(*module, "f64")),
              ElementsAre(0.1, -std::numeric_limits<double>::max(),
                          std::numeric_limits<double>::denorm_min()));
  std::vector<float> special = Values<float>(FindInstruction(*module, "special"));
  EXPECT_EQ(special[0], std::numeric_limits<float>::infinity());
  EXPECT_EQ(special[1], -std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(special[2]));
  EXPECT_FALSE(std::signbit(special[2]));
  EXPECT_TRUE(std::isnan(special[3]));
  EXPECT_TRUE(std::signbit(special[3]));
  EXPECT_EQ(special[4], 0.0f);
  EXPECT_TRUE(std::signbit(special[4]));
  // The default NaN is the quiet NaN without payload.
  EXPECT_EQ(std::bit_cast<uint32_t>(special[2]), 0x7fc00000u);
  std::vector<double> special64 = Values<double>(FindInstruction(*module, "special64"));
  EXPECT_EQ(special64[0], std::numeric_limits<double>::infinity());
  EXPECT_EQ(special64[1], -std::numeric_limits<double>::infinity());
  EXPECT_EQ(std::bit_cast<uint64_t>(special64[2]), 0x7ff8000000000000u);
  EXPECT_THAT(Values<float>(FindInstruction(*module, "int_text")), ElementsAre(3.0f, -7.0f));
  EXPECT_THAT(Values<double>(FindInstruction(*module, "exp")), ElementsAre(1e10, 2.5e-3));
}

TEST(ParseConstantTest, NanPayloads) {
  auto module = ParseOk(R"(
ENTRY %main {
  %f32 = f32[2] constant({nan(0x1), -nan(0x400000)})
  %f16 = f16[1] constant({nan(0x3)})
  %bf16 = bf16[1] constant({-nan})
  ROOT %f64 = f64[1] constant({nan(0x8000000000001)})
})");
  ASSERT_NE(module, nullptr);
  std::vector<float> f32 = Values<float>(FindInstruction(*module, "f32"));
  EXPECT_EQ(std::bit_cast<uint32_t>(f32[0]), 0x7f800001u);
  EXPECT_EQ(std::bit_cast<uint32_t>(f32[1]), 0xffc00000u);
  std::vector<half> f16 = Values<half>(FindInstruction(*module, "f16"));
  uint16_t f16_bits;
  std::memcpy(&f16_bits, &f16[0], 2);
  EXPECT_EQ(f16_bits, 0x7c03);
  std::vector<bfloat16> bf16 = Values<bfloat16>(FindInstruction(*module, "bf16"));
  uint16_t bf16_bits;
  std::memcpy(&bf16_bits, &bf16[0], 2);
  EXPECT_EQ(bf16_bits, 0xffc0);
  EXPECT_EQ(std::bit_cast<uint64_t>(Values<double>(FindInstruction(*module, "f64"))[0]),
            0x7ff8000000000001u);
}

TEST(ParseConstantTest, Complex) {
  auto module = ParseOk(R"(
ENTRY %main {
  %c64 = c64[2] constant({(1, 2), (-3.5, inf)})
  %scalar = c64[] constant((0.5, -0.25))
  ROOT %c128 = c128[2] constant({(1e300, -1e-300), (nan, 0)})
})");
  ASSERT_NE(module, nullptr);
  EXPECT_THAT(
      Values<complex64>(FindInstruction(*module, "c64")),
      ElementsAre(complex64(1, 2), complex64(-3.5f, std::numeric_limits<float>::infinity())));
  EXPECT_THAT(Values<complex64>(FindInstruction(*module, "scalar")),
              ElementsAre(complex64(0.5f, -0.25f)));
  std::vector<complex128> c128 = Values<complex128>(FindInstruction(*module, "c128"));
  EXPECT_EQ(c128[0], complex128(1e300, -1e-300));
  EXPECT_TRUE(std::isnan(c128[1].real()));
  EXPECT_EQ(c128[1].imag(), 0);
}

TEST(ParseConstantTest, NestedAndEmptyArrays) {
  auto module = ParseOk(R"(
ENTRY %main {
  %m = s32[2,3] constant({ { 1, 2, 3 }, { 4, 5, 6 } })
  %cube = s32[2,2,2] constant({{{1,2},{3,4}},{{5,6},{7,8}}})
  %no_commas = s32[2,2] constant({{1 2} {3 4}})
  %e0 = f32[0] constant({})
  %e1 = f32[2,0] constant({ {}, {} })
  %e2 = f32[0,3] constant({})
  %one = f32[1,1] constant({{42}})
  ROOT %col = f32[3]{0} constant({1, 2, 3})
})");
  ASSERT_NE(module, nullptr);
  EXPECT_THAT(Values<int32_t>(FindInstruction(*module, "m")), ElementsAre(1, 2, 3, 4, 5, 6));
  EXPECT_THAT(Values<int32_t>(FindInstruction(*module, "cube")),
              ElementsAre(1, 2, 3, 4, 5, 6, 7, 8));
  EXPECT_EQ(FindInstruction(*module, "cube")->literal().Get<int32_t>({1, 0, 1}), 6);
  EXPECT_THAT(Values<int32_t>(FindInstruction(*module, "no_commas")), ElementsAre(1, 2, 3, 4));
  EXPECT_EQ(FindInstruction(*module, "e0")->literal().element_count(), 0);
  EXPECT_EQ(FindInstruction(*module, "e1")->literal().element_count(), 0);
  EXPECT_EQ(FindInstruction(*module, "e2")->literal().element_count(), 0);
  EXPECT_EQ(ShapeText(FindInstruction(*module, "e2")->literal().shape()), "f32[0,3]{1,0}");
  EXPECT_THAT(Values<float>(FindInstruction(*module, "one")), ElementsAre(42.0f));
}

TEST(ParseConstantTest, RankFourWithIndexComments) {
  std::unique_ptr<HloModule> module;
  HloInstruction* c = ParseAndFind(R"(
ENTRY %main {
  ROOT %c = s32[2,1,2,2]{3,2,1,0} constant({ /*i0=0*/ { /*i1=0*/ { {1, 2}, {3, 4} } }, /*i0=1*/ { /*i1=0*/ { {5, 6}, {7, 8} } } })
})",
                                   "c", &module);
  ASSERT_NE(c, nullptr);
  EXPECT_THAT(Values<int32_t>(c), ElementsAre(1, 2, 3, 4, 5, 6, 7, 8));
  EXPECT_EQ(c->literal().Get<int32_t>({1, 0, 1, 0}), 7);
}

TEST(ParseConstantTest, NonDefaultLayoutKeepsRowMajorData) {
  std::unique_ptr<HloModule> module;
  HloInstruction* c = ParseAndFind(R"(
ENTRY %main {
  ROOT %c = f32[2,2]{0,1} constant({{1, 2}, {3, 4}})
})",
                                   "c", &module);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->literal().Get<float>({0, 1}), 2.0f);
  EXPECT_EQ(c->literal().Get<float>({1, 0}), 3.0f);
  EXPECT_EQ(ShapeText(c->shape()), "f32[2,2]{0,1}");
}

TEST(ParseConstantTest, TuplesAndTokens) {
  auto module = ParseOk(R"(
ENTRY %main {
  %t = (s32[], f32[2], (pred[], u8[0])) constant((1, {2, 3}, (true, {})))
  %empty = () constant(())
  ROOT %tok = token[] after-all()
})");
  ASSERT_NE(module, nullptr);
  const Literal& t = FindInstruction(*module, "t")->literal();
  ASSERT_EQ(t.tuple_size(), 3);
  EXPECT_EQ(t.tuple_element(0).data<int32_t>()[0], 1);
  EXPECT_THAT(t.tuple_element(1).data<float>(), ElementsAre(2.0f, 3.0f));
  ASSERT_EQ(t.tuple_element(2).tuple_size(), 2);
  EXPECT_TRUE(t.tuple_element(2).tuple_element(0).data<bool>()[0]);
  EXPECT_EQ(t.tuple_element(2).tuple_element(1).element_count(), 0);
  EXPECT_EQ(FindInstruction(*module, "empty")->literal().tuple_size(), 0);
}

TEST(ParseConstantTest, ScalarWithBraces) {
  // XLA prints scalars bare but accepts a bare value only.
  auto module = ParseOk("ENTRY %e {\n  ROOT %c = f32[] constant(2.5)\n}\n");
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(module->entry_computation()->root_instruction()->literal().data<float>()[0], 2.5f);
}

// ---------------------------------------------------------------------------
// The standalone entry points.

TEST(ParseShapeTest, Shapes) {
  auto check = [](absl::string_view text, absl::string_view expected) {
    absl::StatusOr<Shape> shape = ParseShape(text);
    ASSERT_TRUE(shape.ok()) << text << ": " << shape.status();
    EXPECT_EQ(ShapeText(*shape), expected) << text;
  };
  check("f32[2,3]", "f32[2,3]{1,0}");
  check("f32[2,3]{0,1}", "f32[2,3]{0,1}");
  check("pred[]", "pred[]");
  check("token[]", "token[]");
  check("()", "()");
  check("(f32[], (s32[1], u64[2,2]{0,1}))", "(f32[], (s32[1]{0}, u64[2,2]{0,1}))");
  check("f32[<=4,?,3]", "f32[<=4,?,3]{2,1,0}");
  check("bf16[8,128]{1,0:T(8,128)(2,1)}", "bf16[8,128]{1,0:T(8,128)(2,1)}");
  check("s8[4]{0:T(4)E(8)S(1)}", "s8[4]{0:T(4)E(8)S(1)}");
  check("f32[2,2]{1,0:T(2,*)}", "f32[2,2]{1,0:T(2,*)}");
  check("(f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[])",
        "(f32[], f32[], f32[], f32[], f32[], /*index=5*/f32[])");
  absl::StatusOr<Shape> dynamic = ParseShape("f32[<=4,?]");
  ASSERT_TRUE(dynamic.ok());
  EXPECT_TRUE(dynamic->is_dynamic_dimension(0));
  EXPECT_EQ(dynamic->dimensions(0), 4);
  EXPECT_EQ(dynamic->dimensions(1), Shape::kUnboundedSize);
  absl::StatusOr<Shape> tiled = ParseShape("bf16[8,128]{1,0:T(8,128)(2,1)S(2)}");
  ASSERT_TRUE(tiled.ok());
  ASSERT_EQ(tiled->layout().tiles.size(), 2u);
  EXPECT_THAT(tiled->layout().tiles[0].dimensions, ElementsAre(8, 128));
  EXPECT_EQ(tiled->layout().memory_space, 2);
}

TEST(ParseLiteralTest, StandaloneLiterals) {
  absl::StatusOr<Literal> literal = ParseLiteral("{1, 2, 3}", Shape(S32, {3}));
  ASSERT_TRUE(literal.ok()) << literal.status();
  EXPECT_THAT(literal->data<int32_t>(), ElementsAre(1, 2, 3));
  EXPECT_TRUE(literal->shape().has_layout());

  absl::StatusOr<Literal> scalar = ParseLiteral("nan", Shape(F32, {}));
  ASSERT_TRUE(scalar.ok()) << scalar.status();
  EXPECT_TRUE(std::isnan(scalar->data<float>()[0]));

  absl::StatusOr<Literal> tuple =
      ParseLiteral("(1, {2, 3})", Shape::MakeTuple({Shape(S32, {}), Shape(F64, {2})}));
  ASSERT_TRUE(tuple.ok()) << tuple.status();
  EXPECT_THAT(tuple->tuple_element(1).data<double>(), ElementsAre(2.0, 3.0));

  absl::StatusOr<Literal> bad = ParseLiteral("{1, 2}", Shape(S32, {3}));
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(Message(bad.status()),
              HasSubstr("line 1, column 6: expected 3 elements in dimension 0, got 2"));
}

TEST(ParseShardingTest, StandaloneShardings) {
  absl::StatusOr<HloSharding> sharding = ParseSharding("{devices=[2,1]0,1}");
  ASSERT_TRUE(sharding.ok()) << sharding.status();
  EXPECT_EQ(sharding->type, HloSharding::Type::kOther);
  EXPECT_THAT(sharding->tile_assignment_dimensions, ElementsAre(2, 1));
  EXPECT_THAT(sharding->tile_assignment_devices, ElementsAre(0, 1));

  // XLA's normal forms: all-replicated subgroups are replicated.
  absl::StatusOr<HloSharding> replicated =
      ParseSharding("{devices=[1,1,4]<=[4] last_tile_dim_replicate}");
  ASSERT_TRUE(replicated.ok()) << replicated.status();
  EXPECT_EQ(replicated->type, HloSharding::Type::kReplicated);

  // [2,2]T(0,1) is the identity and becomes [4].
  absl::StatusOr<HloSharding> iota = ParseSharding("{devices=[4]<=[2,2]T(0,1)}");
  ASSERT_TRUE(iota.ok()) << iota.status();
  EXPECT_THAT(iota->iota_reshape_dims, ElementsAre(4));
  EXPECT_THAT(iota->iota_transpose_perm, ElementsAre(0));

  absl::StatusOr<HloSharding> empty_tuple = ParseSharding("{}");
  ASSERT_TRUE(empty_tuple.ok()) << empty_tuple.status();
  EXPECT_EQ(empty_tuple->type, HloSharding::Type::kTuple);
  EXPECT_TRUE(empty_tuple->tuple_shardings.empty());

  absl::StatusOr<HloSharding> bad = ParseSharding("{devices=[2,2]0,1,2}");
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(Message(bad.status()),
              HasSubstr("line 1, column 2: the tile assignment has 4 tiles but lists 3 devices"));
}

// ---------------------------------------------------------------------------
// Text XLA wrote: every file of the corpora that `./tessera test` names
// (TESSERA_SHARED_CORPUS, TESSERA_JAX_CORPUS) parses, and stack frames end
// up inlined.  Skipped when neither is set.

std::vector<std::filesystem::path> CorpusFiles() {
  std::vector<std::filesystem::path> files;
  for (const char* env : {"TESSERA_SHARED_CORPUS", "TESSERA_JAX_CORPUS"}) {
    const char* root = std::getenv(env);
    if (root == nullptr || !std::filesystem::is_directory(root)) continue;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
      if (entry.is_regular_file() && entry.path().extension() == ".hlo") {
        files.push_back(entry.path());
      }
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(ParseCorpusTest, EveryCorpusTextParses) {
  const std::vector<std::filesystem::path> files = CorpusFiles();
  if (files.empty()) GTEST_SKIP() << "no corpus (TESSERA_SHARED_CORPUS / TESSERA_JAX_CORPUS)";
  for (const std::filesystem::path& file : files) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream buffer;
    buffer << in.rdbuf();
    const std::string text = buffer.str();
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
    ASSERT_TRUE(module.ok()) << file << ": " << module.status();
    const bool has_frames = text.find("\nStackFrames\n") != std::string::npos;
    for (HloComputation* computation : (*module)->computations()) {
      for (HloInstruction* instruction : computation->instructions()) {
        if (has_frames && instruction->metadata().stack_frame_id != 0) {
          ADD_FAILURE() << file << ": stack frame of %" << instruction->name() << " not inlined";
        }
      }
    }
  }
}

}  // namespace
}  // namespace tessera
