// Import of malformed protos: each case starts from a valid module, breaks
// one thing, and expects an InvalidArgument error whose message names what
// is wrong and where, never a crash.
#include <functional>
#include <string>

#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "hlo/proto/hlo_proto_import.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

// main(p0: f32[2,3], p1: (f32[2,3], s32[])) = add(p0, c) with a call and a
// get-tuple-element.
constexpr char kValidModule[] = R"pb(
  name: "m" entry_computation_name: "main" entry_computation_id: 1
  computations {
    name: "negate_it" id: 2 root_id: 21
    instructions {
      name: "x" opcode: "parameter" id: 20 parameter_number: 0
      shape { element_type: F32 dimensions: [ 2, 3 ] layout { minor_to_major: [ 1, 0 ] } }
    }
    instructions {
      name: "neg" opcode: "negate" id: 21 operand_ids: 20
      shape { element_type: F32 dimensions: [ 2, 3 ] layout { minor_to_major: [ 1, 0 ] } }
    }
  }
  computations {
    name: "main" id: 1 root_id: 14
    instructions {
      name: "p0" opcode: "parameter" id: 10 parameter_number: 0
      shape { element_type: F32 dimensions: [ 2, 3 ] layout { minor_to_major: [ 1, 0 ] } }
    }
    instructions {
      name: "p1" opcode: "parameter" id: 11 parameter_number: 1
      shape {
        element_type: TUPLE
        tuple_shapes { element_type: F32 dimensions: [ 2, 3 ] layout { minor_to_major: [ 1, 0 ] } }
        tuple_shapes { element_type: S32 layout {} }
      }
    }
    instructions {
      name: "c" opcode: "constant" id: 12
      shape { element_type: F32 dimensions: [ 2, 3 ] layout { minor_to_major: [ 1, 0 ] } }
      literal {
        shape { element_type: F32 dimensions: [ 2, 3 ] layout { minor_to_major: [ 1, 0 ] } }
        f32s: [ 1, 2, 3, 4, 5, 6 ]
      }
    }
    instructions {
      name: "gte" opcode: "get-tuple-element" id: 13 operand_ids: 11 tuple_index: 0
      shape { element_type: F32 dimensions: [ 2, 3 ] layout { minor_to_major: [ 1, 0 ] } }
    }
    instructions {
      name: "add" opcode: "add" id: 14 operand_ids: [ 10, 12 ]
      shape { element_type: F32 dimensions: [ 2, 3 ] layout { minor_to_major: [ 1, 0 ] } }
    }
    instructions {
      name: "call" opcode: "call" id: 15 operand_ids: 13 called_computation_ids: 2
      shape { element_type: F32 dimensions: [ 2, 3 ] layout { minor_to_major: [ 1, 0 ] } }
    }
  }
)pb";

xla::HloModuleProto ValidProto() {
  xla::HloModuleProto proto;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(kValidModule, &proto));
  return proto;
}

xla::HloComputationProto& Main(xla::HloModuleProto& proto) { return *proto.mutable_computations(1); }
xla::HloInstructionProto& Instruction(xla::HloModuleProto& proto, int i) {
  return *Main(proto).mutable_instructions(i);
}

// Imports ValidProto() after `breakage`; returns the error message, or
// "<ok>" when import succeeded.
std::string ImportError(const std::function<void(xla::HloModuleProto&)>& breakage) {
  xla::HloModuleProto proto = ValidProto();
  breakage(proto);
  absl::StatusOr<std::unique_ptr<HloModule>> module = ImportHloModuleProto(proto);
  if (module.ok()) return "<ok>";
  EXPECT_EQ(module.status().code(), absl::StatusCode::kInvalidArgument) << module.status();
  return std::string(module.status().message());
}

TEST(HloProtoMalformedTest, TheBaseModuleImports) {
  EXPECT_EQ(ImportError([](xla::HloModuleProto&) {}), "<ok>");
}

TEST(HloProtoMalformedTest, UnparseableBytes) {
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      ParseHloModuleProtoBytes(std::string("\xff\xff\xff\xff garbage", 12));
  ASSERT_FALSE(module.ok());
  EXPECT_EQ(module.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(module.status().message(), HasSubstr("not a serialized HloModuleProto"));
}

TEST(HloProtoMalformedTest, UnknownOpcode) {
  EXPECT_EQ(ImportError([](auto& p) { Instruction(p, 4).set_opcode("frobnicate"); }),
            "computation main, %add: unknown opcode \"frobnicate\"");
}

TEST(HloProtoMalformedTest, DanglingOperandId) {
  EXPECT_EQ(ImportError([](auto& p) { Instruction(p, 4).set_operand_ids(1, 999); }),
            "computation main, %add: operand 1 has id 999, which is no instruction of the "
            "computation");
  // An operand from another computation is just as unknown here.
  EXPECT_THAT(ImportError([](auto& p) { Instruction(p, 4).set_operand_ids(0, 20); }),
              HasSubstr("operand 0 has id 20"));
}

TEST(HloProtoMalformedTest, DuplicateIds) {
  EXPECT_EQ(ImportError([](auto& p) { Instruction(p, 2).set_id(10); }),
            "computation main, %c: id 10 is used by another instruction of the computation");
  EXPECT_EQ(ImportError([](auto& p) { p.mutable_computations(0)->set_id(1); }),
            "computation main has id 1, already used by computation negate_it");
}

TEST(HloProtoMalformedTest, MissingEntry) {
  EXPECT_EQ(ImportError([](auto& p) { p.set_entry_computation_name("nothere"); }),
            "entry computation nothere does not exist");
  EXPECT_EQ(ImportError([](auto& p) {
              p.clear_entry_computation_name();
              p.set_entry_computation_id(77);
            }),
            "entry computation id 77 does not exist");
  EXPECT_EQ(ImportError([](auto& p) { p.set_entry_computation_id(2); }),
            "entry_computation_name main and entry_computation_id 2 name different computations");
  EXPECT_EQ(ImportError([](auto& p) { p.clear_computations(); }), "module has no computations");
}

TEST(HloProtoMalformedTest, UnknownOrUnsupportedPrimitiveType) {
  EXPECT_EQ(ImportError([](auto& p) {
              Instruction(p, 0).mutable_shape()->set_element_type(
                  static_cast<xla::PrimitiveType>(99));
            }),
            "computation main, %p0: shape: unknown primitive type number 99");
  EXPECT_EQ(
      ImportError([](auto& p) { Instruction(p, 0).mutable_shape()->set_element_type(xla::S4); }),
      "computation main, %p0: shape: element type S4 (21) is not supported");
}

TEST(HloProtoMalformedTest, LiteralSizeDoesNotMatchShape) {
  EXPECT_EQ(ImportError([](auto& p) { Instruction(p, 2).mutable_literal()->add_f32s(7); }),
            "computation main, %c: literal: literal of shape f32[2,3] has 7 value(s) in f32s, "
            "expected 6");
  // A huge shape backed by one value is rejected before anything is allocated.
  EXPECT_THAT(ImportError([](auto& p) {
                xla::ShapeProto* shape = Instruction(p, 2).mutable_literal()->mutable_shape();
                shape->set_dimensions(0, int64_t{1} << 40);
              }),
              HasSubstr("has 6 value(s) in f32s, expected 3298534883328"));
  EXPECT_EQ(ImportError([](auto& p) { Instruction(p, 2).clear_literal(); }),
            "computation main, %c: constant has no literal");
  EXPECT_THAT(ImportError([](auto& p) {
                Instruction(p, 2).mutable_literal()->mutable_shape()->set_element_type(xla::S32);
              }),
              HasSubstr("has 0 value(s) in s32s, expected 6"));
}

TEST(HloProtoMalformedTest, NegativeAndAbsurdDimensions) {
  EXPECT_EQ(ImportError([](auto& p) { Instruction(p, 4).mutable_shape()->set_dimensions(1, -3); }),
            "computation main, %add: shape: shape has negative dimension -3");
  EXPECT_EQ(ImportError([](auto& p) {
              xla::ShapeProto* shape = Instruction(p, 4).mutable_shape();
              shape->set_dimensions(0, int64_t{1} << 40);
              shape->set_dimensions(1, int64_t{1} << 40);
            }),
            "computation main, %add: shape: shape is too large: its byte size overflows int64");
  EXPECT_EQ(ImportError([](auto& p) {
              Instruction(p, 4).mutable_shape()->mutable_layout()->set_minor_to_major(1, 1);
            }),
            "computation main, %add: shape: layout minor_to_major is not a permutation of 0..1");
}

TEST(HloProtoMalformedTest, TupleIndexOutOfRange) {
  EXPECT_EQ(ImportError([](auto& p) { Instruction(p, 3).set_tuple_index(4); }),
            "computation main, %gte: tuple_index 4 is out of range for (f32[2,3], s32[])");
  EXPECT_THAT(ImportError([](auto& p) { Instruction(p, 3).set_operand_ids(0, 10); }),
              HasSubstr("%gte: get-tuple-element of non-tuple shape f32[2,3]"));
}

TEST(HloProtoMalformedTest, Cycles) {
  // add(p0, add): an instruction that is its own operand.
  EXPECT_EQ(ImportError([](auto& p) { Instruction(p, 4).set_operand_ids(1, 14); }),
            "computation main: %add depends on itself (a cycle through operands or control "
            "edges)");
  // gte -> call -> gte through a control edge.
  EXPECT_THAT(ImportError([](auto& p) { Instruction(p, 3).add_control_predecessor_ids(15); }),
              HasSubstr("depends on itself"));
  // A computation that calls itself.
  EXPECT_EQ(ImportError([](auto& p) {
              xla::HloInstructionProto* call = p.mutable_computations(0)->add_instructions();
              *call = Instruction(p, 5);
              call->set_id(22);
              call->set_operand_ids(0, 20);
            }),
            "computation negate_it calls itself (directly or through other computations)");
}

TEST(HloProtoMalformedTest, BadReferences) {
  EXPECT_EQ(ImportError([](auto& p) { Instruction(p, 5).set_called_computation_ids(0, 5); }),
            "computation main, %call: called computation id 5 does not exist");
  EXPECT_EQ(ImportError([](auto& p) { Main(p).set_root_id(99); }),
            "computation main: root id 99 is no instruction of the computation");
  EXPECT_EQ(ImportError([](auto& p) { Instruction(p, 4).add_control_predecessor_ids(98); }),
            "computation main, %add: control predecessor id 98 is no instruction of the "
            "computation");
  EXPECT_EQ(ImportError([](auto& p) {
              auto* entry = p.mutable_schedule()->mutable_sequences();
              (*entry)[1].add_instruction_ids(20);
            }),
            "schedule of computation main names instruction id 20, which is not in the "
            "computation");
}

TEST(HloProtoMalformedTest, ParameterNumbering) {
  EXPECT_EQ(ImportError([](auto& p) { Instruction(p, 1).set_parameter_number(0); }),
            "computation main, %p1: parameter number 0 is repeated");
  EXPECT_EQ(ImportError([](auto& p) { Instruction(p, 1).set_parameter_number(2); }),
            "computation main: parameters are numbered up to 2 but parameter 1 is missing");
  EXPECT_EQ(ImportError([](auto& p) { Instruction(p, 1).set_parameter_number(-1); }),
            "computation main, %p1: parameter number -1 is out of range [0, 6)");
}

TEST(HloProtoMalformedTest, InvalidEnumsAndStrings) {
  EXPECT_EQ(ImportError([](auto& p) {
              Instruction(p, 4).set_distribution(static_cast<xla::RandomDistribution>(77));
            }),
            "computation main, %add: unknown distribution 77");
  EXPECT_EQ(ImportError([](auto& p) { Instruction(p, 4).set_comparison_direction("SIDEWAYS"); }),
            "computation main, %add: unknown comparison_direction \"SIDEWAYS\"");
  EXPECT_EQ(ImportError([](auto& p) { Instruction(p, 5).set_opcode("fusion"); }),
            "computation main, %call: unknown fusion_kind \"\"");
  EXPECT_EQ(ImportError([](auto& p) {
              Instruction(p, 4).mutable_sharding()->set_type(
                  static_cast<xla::OpSharding::Type>(12));
            }),
            "computation main, %add: sharding: sharding has unknown type 12");
  EXPECT_EQ(ImportError([](auto& p) {
              Instruction(p, 4).mutable_precision_config()->add_operand_precision(
                  static_cast<xla::PrecisionConfig::Precision>(9));
            }),
            "computation main, %add: precision_config: unknown operand precision 9");
}

TEST(HloProtoMalformedTest, MalformedShapesAndNesting) {
  EXPECT_EQ(ImportError([](auto& p) { Instruction(p, 4).clear_shape(); }),
            "computation main, %add: no shape");
  EXPECT_EQ(ImportError([](auto& p) { Instruction(p, 1).mutable_shape()->add_dimensions(3); }),
            "computation main, %p1: shape: tuple shape has dimensions");
  EXPECT_EQ(ImportError([](auto& p) {
              xla::ShapeProto* shape = Instruction(p, 1).mutable_shape();
              for (int i = 0; i < 80; ++i) {
                xla::ShapeProto inner = *shape;
                shape->clear_tuple_shapes();
                *shape->add_tuple_shapes() = inner;
              }
            }),
            "computation main, %p1: shape: shape nests tuples deeper than 64");
  EXPECT_EQ(ImportError([](auto& p) {
              Instruction(p, 0).mutable_shape()->add_is_dynamic_dimension(true);
            }),
            "computation main, %p0: shape: shape has 2 dimension(s) but 1 is_dynamic_dimension "
            "flag(s)");
}

TEST(HloProtoMalformedTest, BadModuleHeader) {
  EXPECT_EQ(ImportError([](auto& p) {
              auto* alias = p.mutable_input_output_alias()->add_entries();
              alias->set_parameter_number(5);
            }),
            "input_output_alias names parameter 5 but the entry computation has 2");
  EXPECT_EQ(ImportError([](auto& p) {
              auto* donor = p.mutable_buffer_donor()->add_entries();
              donor->set_parameter_number(1);
              donor->add_parameter_shape_index(7);
            }),
            "buffer_donor names index {7} of parameter 1, which does not exist");
  EXPECT_THAT(ImportError([](auto& p) {
                p.mutable_host_program_shape()->add_parameters()->set_element_type(
                    static_cast<xla::PrimitiveType>(1000));
              }),
              HasSubstr("host_program_shape: parameter 0: unknown primitive type number 1000"));
}

}  // namespace
}  // namespace tessera
