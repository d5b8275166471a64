// Round trips IR -> HloModuleProto -> IR for modules built through the IR
// API (constants of every element type, control flow, fusion, attributes of
// every kind, the module header), and checks that export writes what XLA's
// serializer writes: ids, references by id, opcode strings, layouts,
// literal encodings.
#include <cmath>
#include <complex>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "hlo/ir/hlo_module.h"
#include "hlo/proto/hlo_proto_export.h"
#include "hlo/proto/hlo_proto_import.h"
#include "hlo/proto/literal_proto.h"
#include "hlo/proto/module_comparison_test_util.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;
using test_util::DescribeModuleDifference;

Shape Array(PrimitiveType type, std::vector<int64_t> dimensions) {
  return Shape::MakeArrayWithDescendingLayout(type, std::move(dimensions));
}

const Shape kF32x4 = Array(F32, {4});
const Shape kS32 = Array(S32, {});
const Shape kPred = Array(PRED, {});

// Adds named instructions to one computation of a module.
class Builder {
 public:
  Builder(HloModule* module, std::string name, bool entry = false) {
    auto computation = std::make_unique<HloComputation>(std::move(name));
    computation_ = entry ? module->AddEntryComputation(std::move(computation))
                         : module->AddEmbeddedComputation(std::move(computation));
  }
  HloInstruction* Add(std::unique_ptr<HloInstruction> instruction, std::string name) {
    instruction->SetName(std::move(name));
    HloInstruction* added = computation_->AddInstruction(std::move(instruction));
    computation_->set_root_instruction(added);
    return added;
  }
  HloInstruction* Param(int64_t number, const Shape& shape, std::string name) {
    return Add(HloInstruction::CreateParameter(number, shape, name), name);
  }
  HloInstruction* Op(HloOpcode opcode, const Shape& shape, std::vector<HloInstruction*> operands,
                     std::string name) {
    return Add(HloInstruction::Create(opcode, shape, operands), std::move(name));
  }
  HloComputation* computation() const { return computation_; }

 private:
  HloComputation* computation_;
};

// (f32, f32) -> f32 add, the reducer most ops call.
HloComputation* AddReducer(HloModule* module, std::string name = "add_f32") {
  Builder b(module, std::move(name));
  HloInstruction* x = b.Param(0, Array(F32, {}), "x");
  HloInstruction* y = b.Param(1, Array(F32, {}), "y");
  b.Op(HloOpcode::kAdd, Array(F32, {}), {x, y}, "sum");
  return b.computation();
}

std::unique_ptr<HloModule> RoundTrip(const HloModule& module) {
  absl::StatusOr<std::string> bytes = SerializeHloModule(module);
  EXPECT_TRUE(bytes.ok()) << bytes.status();
  if (!bytes.ok()) return nullptr;
  absl::StatusOr<std::unique_ptr<HloModule>> back = ParseHloModuleProtoBytes(*bytes);
  EXPECT_TRUE(back.ok()) << back.status();
  return back.ok() ? *std::move(back) : nullptr;
}

void ExpectRoundTrips(const HloModule& module) {
  std::unique_ptr<HloModule> back = RoundTrip(module);
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(DescribeModuleDifference(module, *back, module.config().entry_computation_layout.has_value()),
            "");
  if (!module.config().entry_computation_layout) {
    EXPECT_EQ(back->config().entry_computation_layout,
              module.entry_computation()->ComputeProgramShape());
  }
}

template <typename T>
Literal R2(std::vector<T> values) {
  return Literal::CreateFromVector<T>({2, 3}, absl::Span<const T>(values.data(), values.size()));
}

TEST(HloProtoRoundTripTest, ConstantsOfEveryElementType) {
  HloModule module("constants");
  Builder b(&module, "main", /*entry=*/true);
  const bool preds[] = {true, false, false, true, true, false};
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<Literal> literals;
  literals.push_back(Literal::CreateFromVector<bool>({2, 3}, preds));
  literals.push_back(R2<int8_t>({-128, -1, 0, 1, 2, 127}));
  literals.push_back(R2<int16_t>({-32768, -2, 0, 3, 300, 32767}));
  literals.push_back(R2<int32_t>({std::numeric_limits<int32_t>::min(), -1, 0, 1, 7, 1 << 30}));
  literals.push_back(R2<int64_t>({std::numeric_limits<int64_t>::min(), -1, 0, 1, 1LL << 40,
                                  std::numeric_limits<int64_t>::max()}));
  literals.push_back(R2<uint8_t>({0, 1, 2, 128, 254, 255}));
  literals.push_back(R2<uint16_t>({0, 1, 256, 4097, 65534, 65535}));
  literals.push_back(R2<uint32_t>({0, 1, 2, 3, 0x80000000u, 0xffffffffu}));
  literals.push_back(R2<uint64_t>({0, 1, 2, 3, 1ULL << 63, ~0ULL}));
  literals.push_back(R2<half>({half(0.f), half(-0.f), half(1.5f), half(-65504.f), half(inf), half(nan)}));
  literals.push_back(R2<bfloat16>({bfloat16(0.f), bfloat16(-2.5f), bfloat16(1e30f), bfloat16(-inf),
                                   bfloat16(3.f), bfloat16(nan)}));
  literals.push_back(R2<float>({0.f, -0.f, 1e-45f, -3.5f, inf, nan}));
  literals.push_back(R2<double>({0.0, -0.0, 5e-324, 1e300, -std::numeric_limits<double>::infinity(),
                                 std::nan("")}));
  literals.push_back(R2<complex64>({{1, 2}, {-3, 4}, {0, -0.f}, {inf, nan}, {5, 6}, {7, 8}}));
  literals.push_back(R2<complex128>({{1, 2}, {-3, 4}, {0, 0}, {1e300, -1e-300}, {5, 6}, {7, 8}}));
  std::vector<Literal> tuple_elements;
  tuple_elements.push_back(Literal::CreateR0<int32_t>(7));
  tuple_elements.push_back(Literal::MakeTuple({Literal::CreateR1<float>({1, 2}), Literal()}));
  literals.push_back(Literal::MakeTuple(std::move(tuple_elements)));
  literals.push_back(Literal::CreateR1<float>({}));  // f32[0]
  std::vector<HloInstruction*> constants;
  for (size_t i = 0; i < literals.size(); ++i) {
    constants.push_back(
        b.Add(HloInstruction::CreateConstant(literals[i]), absl::StrCat("constant.", i)));
  }
  b.Add(HloInstruction::CreateTuple(constants), "result");

  std::unique_ptr<HloModule> back = RoundTrip(module);
  ASSERT_NE(back, nullptr);
  EXPECT_EQ(DescribeModuleDifference(module, *back, false), "");
  const std::vector<HloInstruction*> imported = back->entry_computation()->instructions();
  for (size_t i = 0; i < literals.size(); ++i) {
    EXPECT_EQ(imported[i]->literal(), literals[i]) << literals[i].ToString();
  }
}

TEST(HloProtoLiteralTest, FieldsAndEncodingsAreXlas) {
  auto to_proto = [](const Literal& literal) {
    absl::StatusOr<xla::LiteralProto> proto = LiteralToProto(literal);
    EXPECT_TRUE(proto.ok()) << proto.status();
    return *proto;
  };
  EXPECT_THAT(to_proto(Literal::CreateR1<bool>({true, false})).preds(), ElementsAre(true, false));
  EXPECT_EQ(to_proto(Literal::CreateR1<int8_t>({-1, 2})).s8s(), std::string("\xff\x02", 2));
  EXPECT_EQ(to_proto(Literal::CreateR1<uint8_t>({255, 1})).u8s(), std::string("\xff\x01", 2));
  EXPECT_EQ(to_proto(Literal::CreateR1<int16_t>({0x1234})).s16s(), std::string("\x34\x12", 2));
  EXPECT_EQ(to_proto(Literal::CreateR1<uint16_t>({0xabcd})).u16s(), std::string("\xcd\xab", 2));
  EXPECT_EQ(to_proto(Literal::CreateR1<half>({half(1.0f)})).f16s(), std::string("\x00\x3c", 2));
  EXPECT_EQ(to_proto(Literal::CreateR1<bfloat16>({bfloat16(1.0f)})).bf16s(),
            std::string("\x80\x3f", 2));
  EXPECT_THAT(to_proto(Literal::CreateR1<int32_t>({-5})).s32s(), ElementsAre(-5));
  EXPECT_THAT(to_proto(Literal::CreateR1<uint64_t>({9})).u64s(), ElementsAre(9u));
  EXPECT_THAT(to_proto(Literal::CreateR1<complex64>({{1, 2}, {3, 4}})).c64s(),
              ElementsAre(1, 2, 3, 4));
  const xla::LiteralProto scalar = to_proto(Literal::CreateR0<double>(2.5));
  EXPECT_THAT(scalar.f64s(), ElementsAre(2.5));
  EXPECT_TRUE(scalar.shape().has_layout());  // XLA requires a layout on literal shapes
  const xla::LiteralProto tuple =
      to_proto(Literal::MakeTuple({Literal::CreateR0<float>(1), Literal::CreateR0<int64_t>(2)}));
  EXPECT_EQ(tuple.shape().element_type(), xla::TUPLE);
  ASSERT_EQ(tuple.tuple_literals_size(), 2);
  EXPECT_THAT(tuple.tuple_literals(1).s64s(), ElementsAre(2));
}

TEST(HloProtoLiteralTest, DataFollowsTheLayoutOrder) {
  Literal literal = R2<float>({0, 1, 2, 3, 4, 5});  // row-major [[0,1,2],[3,4,5]]
  literal.set_layout(Layout{{0, 1}});                // column-major
  absl::StatusOr<xla::LiteralProto> proto = LiteralToProto(literal);
  ASSERT_TRUE(proto.ok()) << proto.status();
  EXPECT_THAT(proto->f32s(), ElementsAre(0, 3, 1, 4, 2, 5));
  absl::StatusOr<Literal> back = LiteralFromProto(*proto);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, literal);
  EXPECT_EQ(back->Get<float>({1, 0}), 3);
  EXPECT_EQ(back->shape().layout(), (Layout{{0, 1}}));

  // Rank 3 with a mixed layout, and a literal shape with no layout at all
  // (read row-major).
  const std::vector<int32_t> values = {0, 1, 2, 3, 4, 5, 6, 7};
  Literal cube = Literal::CreateFromVector<int32_t>({2, 2, 2}, values);
  cube.set_layout(Layout{{1, 2, 0}});
  proto = LiteralToProto(cube);
  ASSERT_TRUE(proto.ok());
  EXPECT_THAT(proto->s32s(), ElementsAre(0, 2, 1, 3, 4, 6, 5, 7));
  EXPECT_TRUE(*LiteralFromProto(*proto) == cube);
  proto->mutable_shape()->clear_layout();
  back = LiteralFromProto(*proto);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->Get<int32_t>({0, 0, 1}), 2);
}

TEST(HloProtoRoundTripTest, WhileLoopWithConditionAndBody) {
  HloModule module("loop");
  const Shape state = Shape::MakeTuple({kS32, kF32x4});
  Builder cond(&module, "condition");
  {
    HloInstruction* p = cond.Param(0, state, "state");
    HloInstruction* i = cond.Add(HloInstruction::CreateGetTupleElement(kS32, p, 0), "i");
    HloInstruction* limit = cond.Add(HloInstruction::CreateConstant(Literal::CreateR0<int32_t>(10)), "limit");
    cond.Add(HloInstruction::CreateCompare(kPred, i, limit, ComparisonDirection::kLt), "less");
  }
  Builder body(&module, "body");
  {
    HloInstruction* p = body.Param(0, state, "state");
    HloInstruction* i = body.Add(HloInstruction::CreateGetTupleElement(kS32, p, 0), "i");
    HloInstruction* x = body.Add(HloInstruction::CreateGetTupleElement(kF32x4, p, 1), "x");
    HloInstruction* one = body.Add(HloInstruction::CreateConstant(Literal::CreateR0<int32_t>(1)), "one");
    HloInstruction* next = body.Add(HloInstruction::CreateBinary(kS32, HloOpcode::kAdd, i, one), "next");
    HloInstruction* square = body.Add(HloInstruction::CreateBinary(kF32x4, HloOpcode::kMultiply, x, x), "square");
    body.Add(HloInstruction::CreateTuple({next, square}), "new_state");
  }
  Builder entry(&module, "main", /*entry=*/true);
  HloInstruction* n = entry.Param(0, kS32, "n");
  HloInstruction* x = entry.Param(1, kF32x4, "x");
  HloInstruction* init = entry.Add(HloInstruction::CreateTuple({n, x}), "init");
  HloInstruction* loop = entry.Add(
      HloInstruction::CreateWhile(state, cond.computation(), body.computation(), init), "loop");
  entry.Add(HloInstruction::CreateGetTupleElement(kF32x4, loop, 1), "result");
  ExpectRoundTrips(module);
}

TEST(HloProtoRoundTripTest, FusionAndControlDependencies) {
  HloModule module("fused");
  Builder fused(&module, "fused_computation");
  {
    HloInstruction* a = fused.Param(0, kF32x4, "param_0");
    HloInstruction* b = fused.Param(1, kF32x4, "param_1");
    HloInstruction* mul = fused.Op(HloOpcode::kMultiply, kF32x4, {a, b}, "mul");
    fused.Op(HloOpcode::kExp, kF32x4, {mul}, "exp");
  }
  fused.computation()->SetIsFusionComputation(true);
  Builder entry(&module, "main", /*entry=*/true);
  HloInstruction* p0 = entry.Param(0, kF32x4, "p0");
  HloInstruction* p1 = entry.Param(1, kF32x4, "p1");
  HloInstruction* negate = entry.Op(HloOpcode::kNegate, kF32x4, {p1}, "negate");
  HloInstruction* copy = entry.Op(HloOpcode::kCopy, kF32x4, {p0}, "copy");
  HloInstruction* fusion = entry.Add(
      HloInstruction::CreateFusion(kF32x4, FusionKind::kOutput, {p0, negate}, fused.computation()),
      "fusion");
  ASSERT_TRUE(copy->AddControlDependencyTo(fusion).ok());
  ExpectRoundTrips(module);

  // Export lists control predecessors first even when the IR's order does not.
  HloInstruction* late = entry.Op(HloOpcode::kCopy, kF32x4, {p1}, "late");
  ASSERT_TRUE(late->AddControlDependencyTo(copy).ok());
  entry.computation()->set_root_instruction(fusion);
  absl::StatusOr<xla::HloModuleProto> proto = ExportHloModuleProto(module);
  ASSERT_TRUE(proto.ok());
  std::vector<std::string> order;
  for (const auto& instruction : proto->computations(1).instructions()) {
    order.push_back(instruction.name());
  }
  EXPECT_THAT(order, ElementsAre("p0", "p1", "negate", "late", "copy", "fusion"));
}

TEST(HloProtoRoundTripTest, ModuleHeader) {
  HloModule module("header");
  Builder entry(&module, "main", /*entry=*/true);
  const Shape matrix = Array(F32, {2, 3});
  HloInstruction* p0 = entry.Param(0, matrix, "p0");
  HloInstruction* p1 = entry.Param(1, Shape::MakeTuple({matrix, kS32}), "p1");
  HloInstruction* neg = entry.Op(HloOpcode::kNegate, matrix, {p0}, "neg");
  HloInstruction* root = entry.Add(HloInstruction::CreateTuple({neg, p1}), "root");
  HloModuleConfig& config = module.config();
  ProgramShape layout = entry.computation()->ComputeProgramShape();
  layout.parameters[0].set_layout(Layout{{0, 1}});
  config.entry_computation_layout = layout;
  config.input_output_alias.push_back({{0}, 0, {}, InputOutputAlias::Kind::kMustAlias});
  config.input_output_alias.push_back({{1, 1}, 1, {1}, InputOutputAlias::Kind::kMayAlias});
  config.buffer_donors.push_back({1, {0}});
  config.frontend_attributes = {{"xla.sdy.meshes", "{mesh = <[\"x\"=2]>}"}, {"a", "b"}};
  HloSharding replicated;
  HloSharding maximal;
  maximal.type = HloSharding::Type::kMaximal;
  maximal.tile_assignment_devices = {1};
  config.spmd_output_sharding = replicated;
  config.spmd_parameters_shardings = {maximal, replicated};
  module.mutable_schedule().SetSequence(entry.computation(), {p1, p0, neg, root});
  ExpectRoundTrips(module);
}

TEST(HloProtoExportTest, WritesWhatXlasSerializerWrites) {
  HloModule module("export");
  // The entry is added first: export must still list callees first.
  Builder entry(&module, "main", /*entry=*/true);
  HloComputation* reducer = AddReducer(&module);
  HloInstruction* p = entry.Param(0, Shape::MakeArray(F32, {2, 3}), "p");  // no layout
  HloInstruction* zero = entry.Add(HloInstruction::CreateConstant(Literal::CreateR0<float>(0)), "zero");
  HloInstruction* reduce = entry.Add(
      HloInstruction::CreateReduce(Shape::MakeArray(F32, {2}), {p, zero}, {1}, reducer), "reduce");
  absl::StatusOr<xla::HloModuleProto> proto = ExportHloModuleProto(module);
  ASSERT_TRUE(proto.ok()) << proto.status();
  EXPECT_EQ(proto->name(), "export");
  EXPECT_EQ(proto->entry_computation_name(), "main");
  EXPECT_EQ(proto->entry_computation_id(), entry.computation()->unique_id());
  ASSERT_EQ(proto->computations_size(), 2);
  EXPECT_EQ(proto->computations(0).name(), "add_f32");
  const xla::HloComputationProto& main = proto->computations(1);
  EXPECT_EQ(main.id(), entry.computation()->unique_id());
  EXPECT_EQ(main.root_id(), reduce->unique_id());
  ASSERT_EQ(main.instructions_size(), 3);
  const xla::HloInstructionProto& reduce_proto = main.instructions(2);
  EXPECT_EQ(reduce_proto.opcode(), "reduce");
  EXPECT_EQ(reduce_proto.id(), reduce->unique_id());
  EXPECT_THAT(reduce_proto.operand_ids(), ElementsAre(p->unique_id(), zero->unique_id()));
  EXPECT_THAT(reduce_proto.called_computation_ids(), ElementsAre(reducer->unique_id()));
  EXPECT_THAT(reduce_proto.dimensions(), ElementsAre(1));
  // Shapes without a layout get the row-major one, as XLA's always have.
  EXPECT_THAT(main.instructions(0).shape().layout().minor_to_major(), ElementsAre(1, 0));
  EXPECT_THAT(reduce_proto.shape().layout().minor_to_major(), ElementsAre(0));
  EXPECT_TRUE(main.instructions(1).shape().has_layout());  // scalar: an empty layout
  EXPECT_EQ(proto->host_program_shape().parameters_size(), 1);
  EXPECT_THAT(proto->host_program_shape().parameter_names(), ElementsAre("p"));
  EXPECT_EQ(main.program_shape().result().dimensions(0), 2);

  std::string text;
  google::protobuf::TextFormat::PrintToString(*proto, &text);
  EXPECT_THAT(text, ::testing::HasSubstr("element_type: F32"));
}

// XLA's loader rejects a ProgramShapeProto whose parameter names do not
// match its parameters in number; an entry_computation_layout read from
// text has no names, so the export takes the entry computation's.
TEST(HloProtoExportTest, HostProgramShapeAlwaysNamesItsParameters) {
  HloModule module("named");
  auto entry = std::make_unique<HloComputation>("main");
  HloInstruction* x = entry->AddInstruction(
      HloInstruction::CreateParameter(0, Shape::MakeArrayWithDescendingLayout(F32, {2}), "x"));
  entry->set_root_instruction(
      entry->AddInstruction(HloInstruction::CreateUnary(x->shape(), HloOpcode::kNegate, x)));
  module.AddEntryComputation(std::move(entry));
  ProgramShape layout;  // as the parser makes it: shapes, no names
  layout.parameters = {x->shape()};
  layout.result = x->shape();
  module.config().entry_computation_layout = layout;
  absl::StatusOr<xla::HloModuleProto> proto = ExportHloModuleProto(module);
  ASSERT_TRUE(proto.ok()) << proto.status();
  EXPECT_THAT(proto->host_program_shape().parameter_names(), ElementsAre("x"));
}

TEST(HloProtoExportTest, SerializationIsStable) {
  HloModule module("stable");
  Builder entry(&module, "main", /*entry=*/true);
  HloInstruction* p = entry.Param(0, kF32x4, "p");
  HloInstruction* neg = entry.Op(HloOpcode::kNegate, kF32x4, {p}, "neg");
  neg->mutable_attrs().frontend_attributes = {{"z", "1"}, {"a", "2"}, {"m", "3"}};
  module.config().frontend_attributes = {{"k2", "v"}, {"k1", "w"}};
  module.mutable_schedule().SetSequence(entry.computation(), {p, neg});
  absl::StatusOr<std::string> first = SerializeHloModule(module);
  ASSERT_TRUE(first.ok());
  std::unique_ptr<HloModule> back = RoundTrip(module);
  ASSERT_NE(back, nullptr);
  absl::StatusOr<std::string> second = SerializeHloModule(*back);
  ASSERT_TRUE(second.ok());
  std::unique_ptr<HloModule> again = RoundTrip(*back);
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(*SerializeHloModule(*again), *second);
}

TEST(HloProtoImportTest, ResolvesArbitraryIdsInAnyOrder) {
  // JAX-style large ids; the entry is listed before the computation it
  // calls, and a user before its operands.  Names and order are kept.
  const char* kText = R"pb(
    name: "ids" entry_computation_name: "main" entry_computation_id: 8589934592
    computations {
      name: "main" id: 8589934592 root_id: 30064771075
      instructions {
        name: "call.3" opcode: "call" id: 30064771075 operand_ids: 30064771073
        called_computation_ids: 4294967296
        shape { element_type: F32 layout {} }
      }
      instructions {
        name: "x" opcode: "parameter" id: 30064771073 parameter_number: 0
        shape { element_type: F32 layout {} }
      }
    }
    computations {
      name: "callee" id: 4294967296 root_id: -5
      instructions {
        name: "neg" opcode: "negate" id: -5 operand_ids: 77
        shape { element_type: F32 layout {} }
      }
      instructions { name: "y" opcode: "parameter" id: 77 shape { element_type: F32 } }
    }
  )pb";
  xla::HloModuleProto proto;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(kText, &proto));
  absl::StatusOr<std::unique_ptr<HloModule>> module = ImportHloModuleProto(proto);
  ASSERT_TRUE(module.ok()) << module.status();
  HloComputation* main = (*module)->entry_computation();
  EXPECT_EQ(main->name(), "main");
  std::vector<HloInstruction*> instructions = main->instructions();
  ASSERT_EQ(instructions.size(), 2u);
  EXPECT_EQ(instructions[0]->name(), "call.3");
  EXPECT_EQ(instructions[0]->operand(0), instructions[1]);
  EXPECT_EQ(instructions[0]->to_apply()->name(), "callee");
  EXPECT_EQ(main->root_instruction(), instructions[0]);
  HloComputation* callee = (*module)->GetComputationWithName("callee");
  ASSERT_NE(callee, nullptr);
  EXPECT_EQ(callee->root_instruction()->name(), "neg");
  EXPECT_FALSE(callee->parameter_instruction(0)->shape().has_layout());  // kept as given
  // Export writes callees first and operands before users.
  absl::StatusOr<xla::HloModuleProto> out = ExportHloModuleProto(**module);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(out->computations(0).name(), "callee");
  EXPECT_EQ(out->computations(1).instructions(0).name(), "x");
}

TEST(HloProtoImportTest, ReadsTheFormsOfOlderAndNewerXla) {
  // Newer XLA: iota replica groups in field 92 and backend configs as
  // payloads; older XLA: groups in the legacy field 49 and all_reduce_id.
  const char* kText = R"pb(
    name: "versions" entry_computation_name: "main" entry_computation_id: 1
    payloads: "{\"big\": \"config\"}"
    computations {
      name: "main" id: 1 root_id: 4
      instructions {
        name: "p" opcode: "parameter" id: 1
        shape { element_type: F32 dimensions: 8 layout { minor_to_major: 0 } }
      }
      instructions {
        name: "gather" opcode: "all-gather" id: 2 operand_ids: 1 dimensions: 0
        shape { element_type: F32 dimensions: 64 layout { minor_to_major: 0 } }
        collective_device_list {}
        iota_collective_device_list {
          num_replica_groups: 1 num_devices_per_group: 8
          iota_reshape_dims: [ 2, 4 ] iota_transpose_perm: [ 1, 0 ]
        }
      }
      instructions {
        name: "reduce" opcode: "all-reduce" id: 3 operand_ids: 1 all_reduce_id: 5
        shape { element_type: F32 dimensions: 8 layout { minor_to_major: 0 } }
        replica_groups { replica_ids: [ 0, 1 ] }
        collective_device_list { replica_groups { replica_ids: [ 7 ] } }
      }
      instructions {
        name: "call" opcode: "custom-call" id: 4 operand_ids: [ 2, 3 ]
        custom_call_target: "f" custom_call_api_version: API_VERSION_TYPED_FFI
        backend_config_payload { id: 0 }
        shape { element_type: F32 dimensions: 8 layout { minor_to_major: 0 } }
      }
    }
  )pb";
  xla::HloModuleProto proto;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(kText, &proto));
  absl::StatusOr<std::unique_ptr<HloModule>> module = ImportHloModuleProto(proto);
  ASSERT_TRUE(module.ok()) << module.status();
  const std::vector<HloInstruction*> h = (*module)->entry_computation()->instructions();
  ASSERT_TRUE(h[1]->attrs().iota_replica_groups.has_value());
  EXPECT_EQ(*h[1]->attrs().iota_replica_groups, (IotaReplicaGroupList{1, 8, {2, 4}, {1, 0}}));
  EXPECT_TRUE(h[1]->attrs().replica_groups.empty());
  ASSERT_EQ(h[2]->attrs().replica_groups.size(), 1u);  // the legacy field wins
  EXPECT_THAT(h[2]->attrs().replica_groups[0].replica_ids, ElementsAre(0, 1));
  EXPECT_EQ(h[2]->attrs().channel_id, 5);
  EXPECT_EQ(h[3]->attrs().backend_config, "{\"big\": \"config\"}");

  // Export writes iota groups where both older and newer XLA look.
  absl::StatusOr<xla::HloModuleProto> out = ExportHloModuleProto(**module);
  ASSERT_TRUE(out.ok());
  const xla::HloInstructionProto& gather = out->computations(0).instructions(1);
  EXPECT_EQ(gather.iota_collective_device_list().num_devices_per_group(), 8);
  EXPECT_EQ(gather.collective_device_list().iota_replica_group_list().num_devices_per_group(), 8);

  proto.mutable_computations(0)->mutable_instructions(3)->mutable_backend_config_payload()->set_id(3);
  EXPECT_EQ(ImportHloModuleProto(proto).status().message(),
            "computation main, %call: backend_config_payload refers to payload 3 but the module "
            "has 1");
}

}  // namespace
}  // namespace tessera
