// Every attribute HloAttributes carries survives IR -> proto -> IR: one
// instruction per attribute family, each with non-default values, compared
// with HloAttributes::operator==.  Shapes need not be semantically valid
// here: import checks structure, the verifier checks semantics.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hlo/ir/hlo_module.h"
#include "hlo/proto/hlo_proto_export.h"
#include "hlo/proto/hlo_proto_import.h"
#include "hlo/proto/instruction_attributes_proto.h"
#include "hlo/proto/module_comparison_test_util.h"

namespace tessera {
namespace {

Shape Array(PrimitiveType type, std::vector<int64_t> dimensions) {
  return Shape::MakeArrayWithDescendingLayout(type, std::move(dimensions));
}

OpMetadata FullMetadata() {
  OpMetadata m;
  m.op_type = "Conv2D";
  m.op_name = "jit(f)/conv";
  m.source_file = "model.py";
  m.source_line = 12;
  m.source_end_line = 14;
  m.source_column = 3;
  m.source_end_column = 40;
  m.profile_type = {1, 3};
  m.deduplicated_name = "fusion.1";
  m.preserve_layout = true;
  m.stack_frame_id = 5;
  m.scheduling_name = "conv.sched";
  return m;
}

HloSharding TiledSharding() {
  HloSharding s;
  s.type = HloSharding::Type::kOther;
  s.tile_assignment_dimensions = {2, 1, 2};
  s.tile_assignment_devices = {3, 2, 1, 0};
  s.replicate_on_last_tile_dim = true;
  s.metadata = {FullMetadata()};
  s.is_shard_group = true;
  s.shard_group_id = 9;
  s.shard_group_type = 1;
  return s;
}

HloSharding IotaSharding() {
  HloSharding s;
  s.type = HloSharding::Type::kOther;
  s.tile_assignment_dimensions = {2, 2, 2};
  s.iota_reshape_dims = {4, 2};
  s.iota_transpose_perm = {1, 0};
  s.last_tile_dims = {HloSharding::Type::kManual};
  return s;
}

class AttributeModule {
 public:
  AttributeModule() : module_("attributes") {
    reducer_ = std::make_unique<HloComputation>("add");
    HloInstruction* x = reducer_->AddInstruction(HloInstruction::CreateParameter(0, scalar_, "x"));
    HloInstruction* y = reducer_->AddInstruction(HloInstruction::CreateParameter(1, scalar_, "y"));
    reducer_->set_root_instruction(reducer_->AddInstruction(
        HloInstruction::CreateBinary(scalar_, HloOpcode::kAdd, x, y)));
    add_ = module_.AddEmbeddedComputation(std::move(reducer_));
    entry_ = module_.AddEntryComputation(std::make_unique<HloComputation>("main"));
    p0_ = Add(HloInstruction::CreateParameter(0, matrix_, "p0"));
    p1_ = Add(HloInstruction::CreateParameter(1, matrix_, "p1"));
  }

  // Adds `opcode` on (p0, p1) or `operands`, lets `set` fill attributes.
  HloInstruction* Op(HloOpcode opcode, const std::function<void(HloAttributes&)>& set,
                     std::vector<HloInstruction*> operands = {}, bool calls_add = false) {
    if (operands.empty()) operands = {p0_, p1_};
    auto instruction = HloInstruction::Create(opcode, matrix_, operands);
    set(instruction->mutable_attrs());
    if (calls_add) instruction->AppendCalledComputation(add_);
    return Add(std::move(instruction));
  }

  HloInstruction* Add(std::unique_ptr<HloInstruction> instruction) {
    HloInstruction* added = entry_->AddInstruction(std::move(instruction));
    entry_->set_root_instruction(added);
    return added;
  }

  HloModule& module() { return module_; }
  HloInstruction* p0() const { return p0_; }

 private:
  const Shape scalar_ = Array(F32, {});
  const Shape matrix_ = Array(F32, {4, 4});
  HloModule module_;
  std::unique_ptr<HloComputation> reducer_;
  HloComputation* add_ = nullptr;
  HloComputation* entry_ = nullptr;
  HloInstruction* p0_ = nullptr;
  HloInstruction* p1_ = nullptr;
};

TEST(HloProtoAttributesTest, EveryAttributeKindRoundTrips) {
  AttributeModule m;
  m.Op(HloOpcode::kConvolution, [](HloAttributes& a) {
    a.window = Window{{{3, 2, 1, -1, 2, 3, true}, {1, 1, 0, 0, 1, 1, false}}};
    a.convolution_dimension_numbers = ConvolutionDimensionNumbers{0, 3, {1, 2}, 2, 3, {0, 1},
                                                                  0, 3, {1, 2}};
    a.feature_group_count = 2;
    a.batch_group_count = 3;
    a.precision_config = {{Precision::kHigh, Precision::kHighest}, 6};
    a.padding_type = PaddingType::kSame;
  });
  m.Op(HloOpcode::kDot, [](HloAttributes& a) {
    a.dot_dimension_numbers = DotDimensionNumbers{{1}, {0}, {2}, {3}};
    a.precision_config = {{Precision::kDefault, Precision::kPackedNibble}, 0};
  });
  m.Op(HloOpcode::kRaggedDot, [](HloAttributes& a) {
    a.ragged_dot_dimension_numbers = RaggedDotDimensionNumbers{{{2}, {1}, {}, {}}, {0}, {0}};
  });
  m.Op(HloOpcode::kGather, [](HloAttributes& a) {
    a.gather_dimension_numbers = GatherDimensionNumbers{{1}, {0}, {0}, 1, {2}, {3}};
    a.gather_slice_sizes = {1, 4};
    a.indices_are_sorted = true;
  });
  m.Op(HloOpcode::kScatter, [](HloAttributes& a) {
    a.scatter_dimension_numbers = ScatterDimensionNumbers{{1}, {0}, {0}, 1, {2}, {3}};
    a.unique_indices = true;
  }, {}, /*calls_add=*/true);
  m.Op(HloOpcode::kPad, [](HloAttributes& a) {
    a.padding_config = PaddingConfig{{{-1, 2, 0}, {0, 0, 3}}};
  });
  m.Op(HloOpcode::kSlice, [](HloAttributes& a) { a.slice_dimensions = {{0, 4, 2}, {1, 3, 1}}; },
       {m.p0()});
  m.Op(HloOpcode::kDynamicSlice, [](HloAttributes& a) { a.dynamic_slice_sizes = {2, 2}; });
  m.Op(HloOpcode::kReducePrecision, [](HloAttributes& a) {
    a.exponent_bits = 5;
    a.mantissa_bits = 10;
  }, {m.p0()});
  m.Op(HloOpcode::kBatchNormTraining, [](HloAttributes& a) {
    a.epsilon = 0.001f;
    a.feature_index = 3;
  });
  m.Op(HloOpcode::kRng, [](HloAttributes& a) { a.distribution = RandomDistribution::kNormal; });
  m.Op(HloOpcode::kRngBitGenerator,
       [](HloAttributes& a) { a.rng_algorithm = RandomAlgorithm::kPhilox; }, {m.p0()});
  m.Op(HloOpcode::kFft, [](HloAttributes& a) {
    a.fft_type = FftType::kIrfft;
    a.fft_length = {8, 16};
  }, {m.p0()});
  m.Op(HloOpcode::kCompare, [](HloAttributes& a) {
    a.comparison_direction = ComparisonDirection::kGe;
    a.comparison_type = ComparisonType::kFloatTotalOrder;
  });
  m.Op(HloOpcode::kCompare, [](HloAttributes& a) { a.comparison_direction = ComparisonDirection::kNe; });
  m.Op(HloOpcode::kAllReduce, [](HloAttributes& a) {
    a.replica_groups = {{{0, 1}}, {{2, 3}}};
    a.channel_id = 7;
    a.use_global_device_ids = true;
    a.constrain_layout = true;
  }, {m.p0()}, /*calls_add=*/true);
  m.Op(HloOpcode::kAllGather, [](HloAttributes& a) {
    a.iota_replica_groups = IotaReplicaGroupList{2, 4, {4, 2}, {1, 0}};
    a.dimensions = {0};
  }, {m.p0()});
  m.Op(HloOpcode::kCollectivePermute, [](HloAttributes& a) {
    a.source_target_pairs = {{0, 1}, {1, 0}};
    a.channel_id = 3;
  }, {m.p0()});
  m.Op(HloOpcode::kCustomCall, [](HloAttributes& a) {
    a.custom_call_target = "my_kernel";
    a.backend_config = std::string("\x00\xff{\"k\": 1}", 10);
    a.custom_call_api_version = CustomCallApiVersion::kTypedFfi;
    a.custom_call_schedule = CustomCallSchedule::kEarliest;
    a.custom_call_has_side_effect = true;
    a.output_operand_aliasing = {{{}, 1, {}}, {{0}, 0, {1}}};
    a.operand_shapes_with_layout = {Array(F32, {4, 4}), Array(S8, {2})};
    a.constrain_layout = true;
  });
  m.Op(HloOpcode::kCustomCall, [](HloAttributes& a) {
    a.custom_call_target = "legacy";
    a.custom_call_api_version = CustomCallApiVersion::kUnspecified;
  });
  m.Op(HloOpcode::kSort, [](HloAttributes& a) {
    a.is_stable = true;
    a.dimensions = {1};
  }, {}, /*calls_add=*/true);
  m.Op(HloOpcode::kTopK, [](HloAttributes& a) {
    a.k = 3;
    a.largest = true;
  }, {m.p0()});
  m.Op(HloOpcode::kTriangularSolve, [](HloAttributes& a) {
    a.triangular_solve_options = TriangularSolveOptions{
        true, true, true, TriangularSolveOptions::Transpose::kAdjoint};
  });
  m.Op(HloOpcode::kCholesky, [](HloAttributes& a) { a.cholesky_options = CholeskyOptions{true}; },
       {m.p0()});
  m.Op(HloOpcode::kInfeed, [](HloAttributes& a) { a.infeed_config = "feed"; }, {m.p0()});
  m.Op(HloOpcode::kOutfeed, [](HloAttributes& a) {
    a.outfeed_config = std::string("\x01\x00", 2);
    a.outfeed_shape = Shape::MakeTuple({Array(S32, {2}), Shape::MakeToken()});
  });
  m.Op(HloOpcode::kSend, [](HloAttributes& a) {
    a.channel_id = 11;
    a.is_host_transfer = true;
  });
  m.Op(HloOpcode::kRngGetAndUpdateState, [](HloAttributes& a) { a.delta = 42; }, {m.p0()});
  m.Op(HloOpcode::kCopyStart, [](HloAttributes& a) { a.cross_program_prefetch_index = 2; },
       {m.p0()});
  m.Op(HloOpcode::kDomain, [](HloAttributes& a) {
    a.domain_entry_sharding = TiledSharding();
    a.domain_exit_sharding = HloSharding();
  }, {m.p0()});
  m.Op(HloOpcode::kAsyncStart, [](HloAttributes& a) { a.async_execution_thread = "worker"; },
       {m.p0()});
  m.Op(HloOpcode::kCall, [](HloAttributes& a) {
    a.is_composite = true;
    a.frontend_attributes = {{"composite.name", "foo.bar"}, {"composite.version", "1"}};
  }, {}, /*calls_add=*/true);
  m.Op(HloOpcode::kIota, [](HloAttributes& a) { a.dimensions = {1}; }, {m.p0()});
  m.Op(HloOpcode::kAdd, [](HloAttributes& a) {
    a.metadata = FullMetadata();
    a.statistics_viz = StatisticsViz{1, {{"stat_a", 12.5}, {"stat_b", 0}}};
  });
  m.Op(HloOpcode::kMultiply, [](HloAttributes& a) { a.sharding = TiledSharding(); });
  m.Op(HloOpcode::kSubtract, [](HloAttributes& a) { a.sharding = IotaSharding(); });
  m.Op(HloOpcode::kTuple, [](HloAttributes& a) {
    HloSharding tuple;
    tuple.type = HloSharding::Type::kTuple;
    tuple.tuple_shardings = {TiledSharding(), HloSharding(), IotaSharding()};
    a.sharding = tuple;
  });
  auto parameter = HloInstruction::CreateParameter(2, Array(F32, {4, 4}), "p2");
  parameter->mutable_attrs().parameter_replication = {true, false};
  parameter->mutable_attrs().sharding = HloSharding();
  parameter->mutable_attrs().sharding->type = HloSharding::Type::kManual;
  m.Add(std::move(parameter));

  absl::StatusOr<std::string> bytes = SerializeHloModule(m.module());
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  absl::StatusOr<std::unique_ptr<HloModule>> back = ParseHloModuleProtoBytes(*bytes);
  ASSERT_TRUE(back.ok()) << back.status();
  const std::vector<HloInstruction*> original = m.module().entry_computation()->instructions();
  const std::vector<HloInstruction*> imported = (*back)->entry_computation()->instructions();
  ASSERT_EQ(original.size(), imported.size());
  for (size_t i = 0; i < original.size(); ++i) {
    EXPECT_TRUE(original[i]->attrs() == imported[i]->attrs())
        << "attributes of %" << original[i]->name() << " ("
        << HloOpcodeString(original[i]->opcode()) << ") changed";
  }
  EXPECT_EQ(test_util::DescribeModuleDifference(m.module(), **back, /*compare_entry_layout=*/false),
            "");
}

TEST(HloProtoAttributesTest, ProtoDefaultsMeanIrDefaults) {
  // A proto written by another producer leaves defaults unset: group counts
  // of 0 mean 1, a custom call's API version of 0 is UNSPECIFIED, and an
  // all-reduce with only the legacy all_reduce_id gets it as its channel.
  xla::HloInstructionProto conv;
  conv.set_opcode("convolution");
  xla::HloInstructionProto all_reduce;
  all_reduce.set_all_reduce_id(4);
  all_reduce.add_replica_groups()->add_replica_ids(0);
  HloAttributes conv_attrs;
  ASSERT_TRUE(InstructionAttributesFromProto(conv, HloOpcode::kConvolution, Array(F32, {}),
                                             &conv_attrs)
                  .ok());
  EXPECT_EQ(conv_attrs.feature_group_count, 1);
  EXPECT_EQ(conv_attrs.batch_group_count, 1);
  HloAttributes call_attrs;
  ASSERT_TRUE(InstructionAttributesFromProto(xla::HloInstructionProto(), HloOpcode::kCustomCall,
                                             Array(F32, {}), &call_attrs)
                  .ok());
  EXPECT_EQ(call_attrs.custom_call_api_version, CustomCallApiVersion::kUnspecified);
  HloAttributes reduce_attrs;
  ASSERT_TRUE(InstructionAttributesFromProto(all_reduce, HloOpcode::kAllReduce, Array(F32, {}),
                                             &reduce_attrs)
                  .ok());
  EXPECT_EQ(reduce_attrs.channel_id, 4);
  ASSERT_EQ(reduce_attrs.replica_groups.size(), 1u);
}

}  // namespace
}  // namespace tessera
