// The HLO verifier: well-formed modules pass; each malformed module is
// reported with a message naming the computation, instruction and problem.
#include "hlo/analysis/hlo_verifier.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/analysis/shape_inference.h"
#include "hlo/analysis/test_builder.h"
#include "hlo/ir/hlo_module.h"

namespace tessera {
namespace {

using test_util::AddBinaryComputation;
using test_util::AddCompareComputation;
using test_util::TestBuilder;
using ::testing::HasSubstr;

class HloVerifierTest : public ::testing::Test {
 protected:
  // "OK" or the error message.
  std::string Verify(const HloVerifierOptions& options = {}) {
    absl::Status status = VerifyHloModule(module_, options);
    return status.ok() ? "OK" : std::string(status.message());
  }
  absl::StatusCode Code() { return VerifyHloModule(module_).code(); }

  HloModule module_{"test_module"};
  TestBuilder b_{&module_, "main", /*entry=*/true};
};

// ----------------------------------------------------------------------------
// Well-formed modules.
// ----------------------------------------------------------------------------

TEST_F(HloVerifierTest, ElementwiseAndReduceModuleIsValid) {
  HloComputation* add = AddBinaryComputation(&module_, F32);
  HloInstruction* x = b_.Param(0, Shape(F32, {2, 3}));
  HloInstruction* y = b_.Param(1, Shape(F32, {2, 3}));
  HloInstruction* sum =
      b_.Add(HloInstruction::CreateBinary(Shape(F32, {2, 3}), HloOpcode::kAdd, x, y));
  HloInstruction* zero = b_.Add(HloInstruction::CreateConstant(Literal::CreateR0(0.0f)));
  HloInstruction* row =
      b_.Add(HloInstruction::CreateReduce(Shape(F32, {2}), {sum, zero}, {1}, add));
  HloInstruction* t = b_.Add(HloInstruction::CreateTranspose(Shape(F32, {3, 2}), sum, {1, 0}));
  b_.Add(HloInstruction::CreateTuple({row, t}));
  EXPECT_EQ(Verify(), "OK");
}

TEST_F(HloVerifierTest, WhileLoopModuleIsValid) {
  const Shape state = Shape::MakeTuple({Shape(S32, {}), Shape(F32, {4})});
  TestBuilder cond(&module_, "cond");
  HloInstruction* cp = cond.Param(0, state);
  HloInstruction* i = cond.Add(HloInstruction::CreateGetTupleElement(Shape(S32, {}), cp, 0));
  HloInstruction* n = cond.Add(HloInstruction::CreateConstant(Literal::CreateR0<int32_t>(10)));
  cond.Add(HloInstruction::CreateCompare(Shape(PRED, {}), i, n, ComparisonDirection::kLt));
  TestBuilder body(&module_, "body");
  HloInstruction* bp = body.Param(0, state);
  HloInstruction* bi = body.Add(HloInstruction::CreateGetTupleElement(Shape(S32, {}), bp, 0));
  HloInstruction* bv = body.Add(HloInstruction::CreateGetTupleElement(Shape(F32, {4}), bp, 1));
  HloInstruction* one = body.Add(HloInstruction::CreateConstant(Literal::CreateR0<int32_t>(1)));
  HloInstruction* next =
      body.Add(HloInstruction::CreateBinary(Shape(S32, {}), HloOpcode::kAdd, bi, one));
  HloInstruction* doubled =
      body.Add(HloInstruction::CreateBinary(Shape(F32, {4}), HloOpcode::kAdd, bv, bv));
  body.Add(HloInstruction::CreateTuple({next, doubled}));
  HloInstruction* init = b_.Param(0, state);
  HloInstruction* loop =
      b_.Add(HloInstruction::CreateWhile(state, cond.computation(), body.computation(), init));
  b_.Add(HloInstruction::CreateGetTupleElement(Shape(F32, {4}), loop, 1));
  EXPECT_EQ(Verify(), "OK");
}

TEST_F(HloVerifierTest, EntryLayoutAliasingAndScheduleAreValid) {
  HloInstruction* x = b_.Param(0, Shape::MakeArrayWithDescendingLayout(F32, {2, 3}));
  HloInstruction* y = b_.Param(1, Shape::MakeArrayWithDescendingLayout(S32, {4}));
  HloInstruction* neg = b_.Add(HloInstruction::CreateUnary(
      Shape::MakeArrayWithDescendingLayout(F32, {2, 3}), HloOpcode::kNegate, x));
  HloInstruction* root = b_.Add(HloInstruction::CreateTuple({neg, y}));
  ProgramShape layout;
  layout.parameters = {x->shape(), y->shape()};
  layout.result = root->shape();
  module_.config().entry_computation_layout = layout;
  module_.config().input_output_alias = {InputOutputAlias{{0}, 0, {}}};
  module_.config().buffer_donors = {BufferDonor{1, {}}};
  module_.mutable_schedule().SetSequence(b_.computation(), {x, y, neg, root});
  EXPECT_EQ(Verify(), "OK");
  EXPECT_EQ(Verify({.layout_sensitive = true}), "OK");
}

TEST_F(HloVerifierTest, CallsFusionsAndConditionalsAreValid) {
  TestBuilder callee(&module_, "callee");
  HloInstruction* cx = callee.Param(0, Shape(F32, {4}));
  callee.Add(HloInstruction::CreateUnary(Shape(F32, {4}), HloOpcode::kExp, cx));
  TestBuilder fused(&module_, "fused");
  HloInstruction* fx = fused.Param(0, Shape(F32, {4}));
  fused.Add(HloInstruction::CreateUnary(Shape(F32, {4}), HloOpcode::kNegate, fx));
  fused.computation()->SetIsFusionComputation(true);
  HloInstruction* x = b_.Param(0, Shape(F32, {4}));
  HloInstruction* p = b_.Param(1, Shape(PRED, {}));
  HloInstruction* call =
      b_.Add(HloInstruction::CreateCall(Shape(F32, {4}), {x}, callee.computation()));
  HloInstruction* fusion = b_.Add(HloInstruction::CreateFusion(Shape(F32, {4}), FusionKind::kLoop,
                                                               {call}, fused.computation()));
  HloInstruction* cond = b_.Op(HloOpcode::kConditional, Shape(F32, {4}), {p, fusion, x});
  cond->AppendCalledComputation(callee.computation());
  cond->AppendCalledComputation(fused.computation());
  EXPECT_EQ(Verify(), "OK");
}

TEST_F(HloVerifierTest, MixedPrecisionNeedsTheOption) {
  HloInstruction* x = b_.Param(0, Shape(F32, {2}));
  HloInstruction* h = b_.Param(1, Shape(BF16, {2}));
  b_.Add(HloInstruction::CreateBinary(Shape(F32, {2}), HloOpcode::kAdd, x, h), "mixed");
  EXPECT_THAT(Verify(), HasSubstr("%mixed: operands mix f32 and bf16 (mixed precision is not "
                                  "allowed)"));
  EXPECT_EQ(Verify({.allow_mixed_precision = true}), "OK");
}

TEST_F(HloVerifierTest, MixedPrecisionDotIsAllowed) {
  HloInstruction* a = b_.Param(0, Shape(BF16, {2, 3}));
  HloInstruction* w = b_.Param(1, Shape(BF16, {3, 4}));
  b_.Add(
      HloInstruction::CreateDot(Shape(F32, {2, 4}), a, w, DotDimensionNumbers{{1}, {0}, {}, {}}));
  EXPECT_EQ(Verify(), "OK");
}

// ----------------------------------------------------------------------------
// Malformed instructions.
// ----------------------------------------------------------------------------

TEST_F(HloVerifierTest, WrongOperandCount) {
  HloInstruction* x = b_.Param(0, Shape(F32, {2}));
  b_.Op(HloOpcode::kAdd, Shape(F32, {2}), {x, x, x}, "add.1");
  EXPECT_EQ(Verify(), "computation main: %add.1: add expects 2 operand(s), got 3");
  EXPECT_EQ(Code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(HloVerifierTest, IncompatibleOperandShapes) {
  HloInstruction* x = b_.Param(0, Shape(F32, {2}));
  HloInstruction* y = b_.Param(1, Shape(F32, {3}));
  b_.Add(HloInstruction::CreateBinary(Shape(F32, {2}), HloOpcode::kAdd, x, y), "add.3");
  EXPECT_EQ(Verify(),
            "computation main: %add.3: operand shapes f32[2] and f32[3] are incompatible");
}

TEST_F(HloVerifierTest, DeclaredShapeDiffersFromInferred) {
  HloInstruction* x = b_.Param(0, Shape(F32, {2}));
  b_.Add(HloInstruction::CreateBinary(Shape(F32, {3}), HloOpcode::kMultiply, x, x), "mul");
  EXPECT_EQ(Verify(),
            "computation main: %mul: declared shape f32[3] does not match the "
            "inferred shape f32[2]");
}

TEST_F(HloVerifierTest, ElementTypeMustMatchExactly) {
  HloInstruction* x = b_.Param(0, Shape(F32, {2}));
  b_.Add(HloInstruction::CreateUnary(Shape(BF16, {2}), HloOpcode::kNegate, x), "neg");
  EXPECT_THAT(Verify(), HasSubstr("%neg: declared shape bf16[2] does not match the inferred "
                                  "shape f32[2]"));
  EXPECT_EQ(Verify({.allow_mixed_precision = true}), "OK");
}

TEST_F(HloVerifierTest, BadBroadcastDimensions) {
  HloInstruction* x = b_.Param(0, Shape(F32, {3}));
  b_.Add(HloInstruction::CreateBroadcast(Shape(F32, {3, 2}), x, {1}), "bcast");
  EXPECT_THAT(Verify(), HasSubstr("%bcast: broadcast dimensions {1} map operand dimension 0 of "
                                  "f32[3] to dimension 1 of f32[3,2] with a different size"));
}

TEST_F(HloVerifierTest, BroadcastDimensionCountMustMatchOperandRank) {
  HloInstruction* x = b_.Param(0, Shape(F32, {3}));
  b_.Add(HloInstruction::CreateBroadcast(Shape(F32, {3, 2}), x, {}), "bcast");
  EXPECT_THAT(Verify(), HasSubstr("%bcast: broadcast dimensions {} must have one entry per "
                                  "dimension of operand f32[3]"));
}

TEST_F(HloVerifierTest, BadTransposePermutation) {
  HloInstruction* x = b_.Param(0, Shape(F32, {2, 3}));
  b_.Add(HloInstruction::CreateTranspose(Shape(F32, {3, 2}), x, {1, 2}), "t");
  EXPECT_THAT(Verify(), HasSubstr("%t: transpose dimensions {1,2} are not a permutation of the "
                                  "dimensions of f32[2,3]"));
}

TEST_F(HloVerifierTest, SliceOutOfBounds) {
  HloInstruction* x = b_.Param(0, Shape(F32, {8}));
  b_.Add(HloInstruction::CreateSlice(Shape(F32, {4}), x, {{6, 10, 1}}), "s");
  EXPECT_THAT(Verify(), HasSubstr("%s: slice dimension 0 [6:10:1] of f32[8]: limit is out of "
                                  "bounds"));
}

TEST_F(HloVerifierTest, ReducerWithWrongSignature) {
  TestBuilder r(&module_, "bad_reducer");
  HloInstruction* a = r.Param(0, Shape(F32, {}));
  r.Param(1, Shape(F32, {}));
  r.Param(2, Shape(F32, {}));
  r.Add(HloInstruction::CreateUnary(Shape(F32, {}), HloOpcode::kNegate, a));
  HloInstruction* x = b_.Param(0, Shape(F32, {4}));
  HloInstruction* zero = b_.Param(1, Shape(F32, {}));
  b_.Add(HloInstruction::CreateReduce(Shape(F32, {}), {x, zero}, {0}, r.computation()), "sum");
  EXPECT_THAT(Verify(), HasSubstr("%sum: reduction computation must take 2 parameters, takes 3"));
}

TEST_F(HloVerifierTest, ReducerReturningNonScalar) {
  TestBuilder r(&module_, "vector_reducer");
  const Shape v(F32, {2});
  HloInstruction* a = r.Param(0, v);
  HloInstruction* c = r.Param(1, v);
  r.Add(HloInstruction::CreateBinary(v, HloOpcode::kAdd, a, c));
  HloInstruction* x = b_.Param(0, Shape(F32, {4}));
  HloInstruction* map = b_.Op(HloOpcode::kMap, Shape(F32, {4}), {x, x}, "m");
  map->AppendCalledComputation(r.computation());
  EXPECT_THAT(Verify(), HasSubstr("%m: map computation must return a scalar, returns f32[2]"));
}

TEST_F(HloVerifierTest, WhileBodyReturningWrongShape) {
  const Shape state(F32, {4});
  TestBuilder cond(&module_, "cond");
  cond.Param(0, state);
  cond.Add(HloInstruction::CreateConstant(Literal::CreateR0(true)));
  TestBuilder body(&module_, "body");
  HloInstruction* p = body.Param(0, state);
  body.Add(HloInstruction::CreateSlice(Shape(F32, {2}), p, {{0, 2, 1}}));
  HloInstruction* init = b_.Param(0, state);
  b_.Add(HloInstruction::CreateWhile(state, cond.computation(), body.computation(), init), "loop");
  EXPECT_THAT(Verify(), HasSubstr("%loop: while body returns f32[2] but the loop state is f32[4]"));
}

TEST_F(HloVerifierTest, WhileConditionMustReturnPred) {
  const Shape state(F32, {4});
  TestBuilder cond(&module_, "cond");
  cond.Param(0, state);
  TestBuilder body(&module_, "body");
  body.Param(0, state);
  HloInstruction* init = b_.Param(0, state);
  b_.Add(HloInstruction::CreateWhile(state, cond.computation(), body.computation(), init), "loop");
  EXPECT_THAT(Verify(), HasSubstr("%loop: while condition must return pred[], returns f32[4]"));
}

TEST_F(HloVerifierTest, GetTupleElementIndexOutOfRange) {
  HloInstruction* t = b_.Param(0, Shape::MakeTuple({Shape(F32, {}), Shape(S32, {})}));
  b_.Add(HloInstruction::CreateGetTupleElement(Shape(S32, {}), t, 2), "gte");
  EXPECT_THAT(Verify(), HasSubstr("%gte: tuple index 2 is out of range for (f32[], s32[])"));
}

TEST_F(HloVerifierTest, BadDotDimensionNumbers) {
  HloInstruction* a = b_.Param(0, Shape(F32, {2, 3}));
  HloInstruction* w = b_.Param(1, Shape(F32, {3, 4}));
  b_.Add(
      HloInstruction::CreateDot(Shape(F32, {2, 4}), a, w, DotDimensionNumbers{{1}, {0}, {0}, {}}),
      "dot");
  EXPECT_THAT(Verify(), HasSubstr("%dot: dot of f32[2,3] and f32[3,4]: lhs_batch_dims {0} and "
                                  "rhs_batch_dims {} differ in length"));
}

TEST_F(HloVerifierTest, DotWithoutDimensionNumbers) {
  HloInstruction* a = b_.Param(0, Shape(F32, {2, 3}));
  HloInstruction* w = b_.Param(1, Shape(F32, {3, 4}));
  b_.Op(HloOpcode::kDot, Shape(F32, {2, 4}), {a, w}, "dot");
  EXPECT_EQ(Verify(), "computation main: %dot: dot has no dot dimension numbers");
}

TEST_F(HloVerifierTest, BadConvolutionWindow) {
  HloInstruction* input = b_.Param(0, Shape(F32, {1, 8, 3}));
  HloInstruction* kernel = b_.Param(1, Shape(F32, {3, 3, 16}));
  HloInstruction* conv =
      b_.Op(HloOpcode::kConvolution, Shape(F32, {1, 6, 16}), {input, kernel}, "conv");
  ConvolutionDimensionNumbers dnums;  // b0f_0io->b0f
  dnums.input_batch_dimension = 0;
  dnums.input_spatial_dimensions = {1};
  dnums.input_feature_dimension = 2;
  dnums.kernel_spatial_dimensions = {0};
  dnums.kernel_input_feature_dimension = 1;
  dnums.kernel_output_feature_dimension = 2;
  dnums.output_batch_dimension = 0;
  dnums.output_spatial_dimensions = {1};
  dnums.output_feature_dimension = 2;
  conv->mutable_attrs().convolution_dimension_numbers = dnums;
  Window window;
  window.dimensions = {{3, 0, 0, 0, 1, 1, false}};
  conv->mutable_attrs().window = window;
  EXPECT_THAT(Verify(), HasSubstr("%conv: window dimension 0 (size=3 stride=0 pad=0_0 "
                                  "lhs_dilate=1 rhs_dilate=1): stride must be positive"));
  window.dimensions[0].stride = 1;
  conv->mutable_attrs().window = window;
  EXPECT_EQ(Verify(), "OK");
}

TEST_F(HloVerifierTest, BadGatherDimensionNumbers) {
  HloInstruction* table = b_.Param(0, Shape(F32, {5, 4}));
  HloInstruction* ids = b_.Param(1, Shape(S32, {3}));
  HloInstruction* gather = b_.Op(HloOpcode::kGather, Shape(F32, {3, 4}), {table, ids}, "g");
  GatherDimensionNumbers dnums;
  dnums.offset_dims = {1};
  dnums.collapsed_slice_dims = {0, 0};
  dnums.start_index_map = {0};
  dnums.index_vector_dim = 1;
  gather->mutable_attrs().gather_dimension_numbers = dnums;
  gather->mutable_attrs().gather_slice_sizes = {1, 4};
  EXPECT_THAT(Verify(), HasSubstr("%g: gather collapsed_slice_dims {0,0} must be sorted and must "
                                  "not repeat"));
}

TEST_F(HloVerifierTest, CompareTypeInvalidForIntegers) {
  HloInstruction* x = b_.Param(0, Shape(S32, {4}));
  b_.Add(HloInstruction::CreateCompare(Shape(PRED, {4}), x, x, ComparisonDirection::kLt,
                                       ComparisonType::kFloat),
         "lt");
  EXPECT_THAT(Verify(), HasSubstr("%lt: comparison type FLOAT is not valid for s32 operands "
                                  "(expected SIGNED)"));
}

TEST_F(HloVerifierTest, IotaDimensionOutOfRange) {
  b_.Add(HloInstruction::CreateIota(Shape(S32, {4}), 1), "iota");
  EXPECT_THAT(Verify(), HasSubstr("%iota: iota dimension 1 is out of range for s32[4]"));
}

TEST_F(HloVerifierTest, ConcatenateDimensionOutOfRange) {
  HloInstruction* x = b_.Param(0, Shape(F32, {4}));
  HloInstruction* c = b_.Op(HloOpcode::kConcatenate, Shape(F32, {8}), {x, x}, "concat");
  c->mutable_attrs().dimensions = {-1};
  EXPECT_THAT(Verify(), HasSubstr("%concat: concatenate dimension -1 is out of range"));
}

TEST_F(HloVerifierTest, PrecisionConfigCount) {
  HloInstruction* a = b_.Param(0, Shape(F32, {2, 3}));
  HloInstruction* w = b_.Param(1, Shape(F32, {3, 4}));
  HloInstruction* dot = b_.Add(
      HloInstruction::CreateDot(Shape(F32, {2, 4}), a, w, DotDimensionNumbers{{1}, {0}, {}, {}}),
      "dot");
  dot->mutable_attrs().precision_config.operand_precision = {Precision::kHigh, Precision::kHigh,
                                                             Precision::kHigh};
  EXPECT_THAT(Verify(), HasSubstr("%dot: precision config has 3 entries, expected 2"));
}

TEST_F(HloVerifierTest, ConstantLiteralShapeMismatch) {
  HloInstruction* c =
      b_.Add(HloInstruction::CreateConstant(Literal::CreateR1<float>({1, 2, 3})), "c");
  *c->mutable_shape() = Shape(F32, {4});
  EXPECT_THAT(Verify(), HasSubstr("%c: declared shape f32[4] does not match the inferred shape "
                                  "f32[3]"));
}

TEST_F(HloVerifierTest, CalledComputationsOnNonCallers) {
  HloComputation* add = AddBinaryComputation(&module_, F32);
  HloInstruction* x = b_.Param(0, Shape(F32, {4}));
  HloInstruction* neg =
      b_.Add(HloInstruction::CreateUnary(Shape(F32, {4}), HloOpcode::kNegate, x), "neg");
  neg->AppendCalledComputation(add);
  EXPECT_THAT(Verify(), HasSubstr("%neg: negate must call 0 computation(s), calls 1"));
}

TEST_F(HloVerifierTest, ConditionalBranchOperandMismatch) {
  TestBuilder branch(&module_, "branch");
  branch.Param(0, Shape(F32, {4}));
  HloInstruction* p = b_.Param(0, Shape(PRED, {}));
  HloInstruction* x = b_.Param(1, Shape(F32, {4}));
  HloInstruction* y = b_.Param(2, Shape(S32, {4}));
  HloInstruction* cond = b_.Op(HloOpcode::kConditional, Shape(F32, {4}), {p, x, y}, "cond");
  cond->AppendCalledComputation(branch.computation());
  cond->AppendCalledComputation(branch.computation());
  EXPECT_THAT(Verify(), HasSubstr("%cond: conditional branch 1 parameter f32[4] does not match "
                                  "its operand s32[4]"));
}

TEST_F(HloVerifierTest, CallParameterMismatch) {
  TestBuilder callee(&module_, "callee");
  callee.Param(0, Shape(F32, {4}));
  callee.Param(1, Shape(F32, {4}));
  HloInstruction* x = b_.Param(0, Shape(F32, {4}));
  b_.Add(HloInstruction::CreateCall(Shape(F32, {4}), {x}, callee.computation()), "call");
  EXPECT_THAT(Verify(), HasSubstr("%call: called computation takes 2 parameter(s) but there are "
                                  "1 operand(s)"));
}

TEST_F(HloVerifierTest, AsyncStartNeedsADone) {
  TestBuilder wrapped(&module_, "wrapped");
  HloInstruction* w = wrapped.Param(0, Shape(F32, {4}));
  wrapped.Add(HloInstruction::CreateUnary(Shape(F32, {4}), HloOpcode::kSqrt, w));
  HloInstruction* x = b_.Param(0, Shape(F32, {4}));
  HloInstruction* start =
      b_.Op(HloOpcode::kAsyncStart,
            Shape::MakeTuple({Shape::MakeTuple({Shape(F32, {4})}), Shape(F32, {4})}), {x}, "start");
  start->AppendCalledComputation(wrapped.computation());
  EXPECT_THAT(Verify(), HasSubstr("%start: async-start must have exactly one user, has 0"));
  HloInstruction* done = b_.Op(HloOpcode::kAsyncDone, Shape(F32, {4}), {start}, "done");
  done->AppendCalledComputation(wrapped.computation());
  EXPECT_EQ(Verify(), "OK");
}

// ----------------------------------------------------------------------------
// Malformed graphs.
// ----------------------------------------------------------------------------

TEST_F(HloVerifierTest, CycleThroughOperands) {
  HloInstruction* x = b_.Param(0, Shape(F32, {2}));
  HloInstruction* a =
      b_.Add(HloInstruction::CreateBinary(Shape(F32, {2}), HloOpcode::kAdd, x, x), "a");
  HloInstruction* n =
      b_.Add(HloInstruction::CreateUnary(Shape(F32, {2}), HloOpcode::kNegate, a), "n");
  ASSERT_TRUE(a->ReplaceOperandWith(1, n).ok());
  EXPECT_THAT(Verify(), HasSubstr("computation main: cycle through %"));
  EXPECT_EQ(Code(), absl::StatusCode::kFailedPrecondition);
}

TEST_F(HloVerifierTest, CycleThroughControlEdges) {
  HloInstruction* x = b_.Param(0, Shape(F32, {2}));
  HloInstruction* a = b_.Add(HloInstruction::CreateUnary(Shape(F32, {2}), HloOpcode::kExp, x), "a");
  HloInstruction* n =
      b_.Add(HloInstruction::CreateUnary(Shape(F32, {2}), HloOpcode::kNegate, a), "n");
  ASSERT_TRUE(n->AddControlDependencyTo(a).ok());
  EXPECT_THAT(Verify(), HasSubstr("(via operands or control edges)"));
}

TEST_F(HloVerifierTest, DuplicateInstructionNames) {
  HloInstruction* x = b_.Param(0, Shape(F32, {2}));
  HloInstruction* a = b_.Add(HloInstruction::CreateUnary(Shape(F32, {2}), HloOpcode::kExp, x), "a");
  b_.Add(HloInstruction::CreateUnary(Shape(F32, {2}), HloOpcode::kNegate, a), "b");
  b_.computation()->root_instruction()->SetName("a");
  EXPECT_EQ(Verify(), "computation main: instruction name %a is used twice");
}

TEST_F(HloVerifierTest, DuplicateComputationNames) {
  b_.Param(0, Shape(F32, {2}));
  HloComputation* other = AddBinaryComputation(&module_, F32);
  other->SetName("main");
  EXPECT_EQ(Verify(), "computation name main is used twice");
}

TEST_F(HloVerifierTest, MissingParameterNumber) {
  b_.Param(0, Shape(F32, {2}));
  b_.Param(2, Shape(F32, {2}));
  EXPECT_EQ(Verify(),
            "computation main: parameter numbers must be 0..2 but parameter 1 is "
            "missing");
}

TEST_F(HloVerifierTest, DuplicateParameterNumber) {
  b_.Param(0, Shape(F32, {2}), "x");
  b_.Param(0, Shape(F32, {2}), "y");
  EXPECT_EQ(Verify(), "computation main: parameter number 0 is used by both %x and %y");
}

TEST_F(HloVerifierTest, MissingRoot) {
  b_.Param(0, Shape(F32, {2}));
  b_.SetRoot(nullptr);
  EXPECT_EQ(Verify(), "computation main: no root instruction");
}

TEST_F(HloVerifierTest, OperandFromAnotherComputation) {
  TestBuilder other(&module_, "other");
  HloInstruction* foreign = other.Param(0, Shape(F32, {2}));
  b_.Param(0, Shape(F32, {2}));
  b_.Add(HloInstruction::CreateUnary(Shape(F32, {2}), HloOpcode::kNegate, foreign), "neg");
  EXPECT_EQ(Verify(), "computation main: %neg: operand 0 %p0 belongs to another computation");
}

TEST_F(HloVerifierTest, NoEntryComputation) {
  HloModule module("no_entry");
  TestBuilder b(&module, "f");
  b.Param(0, Shape(F32, {2}));
  absl::Status status = VerifyHloModule(module);
  EXPECT_EQ(status.message(), "module no_entry has no entry computation");
}

TEST_F(HloVerifierTest, RecursiveCall) {
  TestBuilder f(&module_, "f");
  HloInstruction* fx = f.Param(0, Shape(F32, {2}));
  f.Add(HloInstruction::CreateCall(Shape(F32, {2}), {fx}, f.computation()));
  HloInstruction* x = b_.Param(0, Shape(F32, {2}));
  b_.Add(HloInstruction::CreateCall(Shape(F32, {2}), {x}, f.computation()));
  EXPECT_EQ(Verify(), "computation f calls itself recursively");
}

TEST_F(HloVerifierTest, CalledComputationOutsideModule) {
  HloModule other("other");
  HloComputation* stray = AddBinaryComputation(&other, F32, HloOpcode::kAdd, "stray");
  HloInstruction* x = b_.Param(0, Shape(F32, {4}));
  HloInstruction* zero = b_.Param(1, Shape(F32, {}));
  b_.Add(HloInstruction::CreateReduce(Shape(F32, {}), {x, zero}, {0}, stray), "sum");
  EXPECT_EQ(Verify(), "computation main: %sum: called computation stray is not in the module");
}

// ----------------------------------------------------------------------------
// Shapes, layouts and the module configuration.
// ----------------------------------------------------------------------------

TEST_F(HloVerifierTest, LayoutNotAPermutation) {
  Shape shape(F32, {2, 3});
  shape.set_layout(Layout{{0, 0}});
  b_.Param(0, shape, "x");
  EXPECT_EQ(Verify(),
            "computation main: %x: layout {0,0} of f32[2,3] is not a permutation of "
            "its 2 dimensions");
}

TEST_F(HloVerifierTest, NegativeDimension) {
  b_.Param(0, Shape(F32, {-2}), "x");
  EXPECT_THAT(Verify(), HasSubstr("%x: shape f32[-2] has a negative dimension"));
}

TEST_F(HloVerifierTest, EntryLayoutParameterMismatch) {
  HloInstruction* x = b_.Param(0, Shape(F32, {2}));
  ProgramShape layout;
  layout.parameters = {Shape(F32, {3})};
  layout.result = x->shape();
  module_.config().entry_computation_layout = layout;
  EXPECT_EQ(Verify(),
            "entry_computation_layout parameter 0 f32[3] does not match entry "
            "parameter f32[2]");
  layout.parameters.push_back(Shape(F32, {2}));
  module_.config().entry_computation_layout = layout;
  EXPECT_THAT(Verify(), HasSubstr("entry_computation_layout has 2 parameter(s) but the entry "
                                  "computation main has 1"));
}

TEST_F(HloVerifierTest, EntryLayoutDiffersOnlyInLayout) {
  Shape row_major = Shape::MakeArrayWithDescendingLayout(F32, {2, 3});
  Shape col_major = row_major;
  col_major.set_layout(Layout{{0, 1}});
  HloInstruction* x = b_.Param(0, row_major);
  ProgramShape layout;
  layout.parameters = {col_major};
  layout.result = x->shape();
  module_.config().entry_computation_layout = layout;
  EXPECT_EQ(Verify(), "OK");
  EXPECT_THAT(Verify({.layout_sensitive = true}),
              HasSubstr("entry_computation_layout parameter 0 f32[2,3]{0,1} does not match "
                        "entry parameter f32[2,3]{1,0}"));
}

TEST_F(HloVerifierTest, LayoutSensitiveCallOperandsMatchParameters) {
  Shape col_major(F32, {2, 3});
  col_major.set_layout(Layout{{0, 1}});
  TestBuilder callee(&module_, "callee");
  HloInstruction* cx = callee.Param(0, col_major);
  callee.Add(HloInstruction::CreateUnary(col_major, HloOpcode::kNegate, cx));
  HloInstruction* x = b_.Param(0, Shape::MakeArrayWithDescendingLayout(F32, {2, 3}));
  b_.Add(HloInstruction::CreateCall(col_major, {x}, callee.computation()), "call");
  EXPECT_EQ(Verify(), "OK");
  EXPECT_EQ(Verify({.layout_sensitive = true}),
            "computation main: %call: operand 0 f32[2,3]{1,0} does not match parameter 0 "
            "f32[2,3]{0,1} of computation callee");
}

TEST_F(HloVerifierTest, AliasToMissingParameter) {
  b_.Param(0, Shape(F32, {2}));
  module_.config().input_output_alias = {InputOutputAlias{{}, 1, {}}};
  EXPECT_EQ(Verify(), "input_output_alias {} names parameter 1 but the entry computation has 1");
}

TEST_F(HloVerifierTest, AliasWithIncompatibleShapes) {
  HloInstruction* x = b_.Param(0, Shape(F32, {2}));
  HloInstruction* y = b_.Param(1, Shape(S32, {2}));
  b_.Add(HloInstruction::CreateTuple({x, y}));
  module_.config().input_output_alias = {InputOutputAlias{{1}, 0, {}}};
  EXPECT_EQ(Verify(),
            "input_output_alias {1}: output s32[2] and parameter 0 {} f32[2] have "
            "different shapes");
  module_.config().input_output_alias = {InputOutputAlias{{2}, 0, {}}};
  EXPECT_EQ(Verify(),
            "input_output_alias {2} names an output index that does not exist in "
            "(f32[2], s32[2])");
}

TEST_F(HloVerifierTest, ScheduleOutOfOrder) {
  HloInstruction* x = b_.Param(0, Shape(F32, {2}));
  HloInstruction* n =
      b_.Add(HloInstruction::CreateUnary(Shape(F32, {2}), HloOpcode::kNegate, x), "n");
  module_.mutable_schedule().SetSequence(b_.computation(), {n, x});
  EXPECT_EQ(Verify(), "schedule of computation main puts %n before its operand %p0");
}

// ----------------------------------------------------------------------------
// Robustness: every opcode, with odd operands, attributes and called
// computations, is verified without crashing, and every error names the
// instruction.
// ----------------------------------------------------------------------------

// Attribute records with values out of range for any operand.
HloAttributes OddAttributes() {
  HloAttributes attrs;
  attrs.dimensions = {-1, 7, 0};
  attrs.tuple_index = 5;
  attrs.parameter_number = -3;
  attrs.window = Window{{WindowDimension{0, -1, -5, 2, 0, 0, false}}};
  attrs.convolution_dimension_numbers =
      ConvolutionDimensionNumbers{9, -1, {4, 4}, 0, 0, {1}, 3, 3, {}};
  attrs.feature_group_count = 0;
  attrs.batch_group_count = -2;
  attrs.slice_dimensions = {{5, 2, 0}};
  attrs.exponent_bits = -1;
  attrs.dynamic_slice_sizes = {-1, 100};
  attrs.padding_config = PaddingConfig{{{-100, 0, -1}, {0, 0, 0}, {1, 1, 1}}};
  attrs.dot_dimension_numbers = DotDimensionNumbers{{5}, {-1}, {0, 0}, {}};
  attrs.ragged_dot_dimension_numbers =
      RaggedDotDimensionNumbers{DotDimensionNumbers{{1}, {9}, {}, {}}, {7}, {-2}};
  attrs.fft_type = static_cast<FftType>(9);
  attrs.fft_length = {0, 0, 0, 0};
  attrs.comparison_type = ComparisonType::kUnsigned;
  attrs.gather_dimension_numbers = GatherDimensionNumbers{{3, 1}, {9}, {-1}, 7, {2}, {8}};
  attrs.gather_slice_sizes = {-1};
  attrs.scatter_dimension_numbers = ScatterDimensionNumbers{{2, 2}, {-1}, {4}, -3, {9}, {1}};
  attrs.replica_groups = {ReplicaGroup{{0, 5}}, ReplicaGroup{}};
  attrs.iota_replica_groups = IotaReplicaGroupList{2, 3, {0, -1}, {1}};
  attrs.channel_id = 1;
  attrs.use_global_device_ids = true;
  attrs.source_target_pairs = {{-1, 3}, {0, 0}, {0, 1}};
  attrs.precision_config.operand_precision = {static_cast<Precision>(17)};
  attrs.triangular_solve_options =
      TriangularSolveOptions{true, true, false, TriangularSolveOptions::Transpose(7)};
  attrs.output_operand_aliasing = {OutputOperandAliasing{{3}, 9, {1}}};
  attrs.operand_shapes_with_layout = {Shape(F32, {1})};
  attrs.k = -4;
  attrs.distribution = static_cast<RandomDistribution>(5);
  attrs.rng_algorithm = static_cast<RandomAlgorithm>(8);
  attrs.outfeed_shape = Shape(S32, {3});
  return attrs;
}

TEST(HloVerifierRobustnessTest, MalformedInstructionsNeverCrash) {
  const std::vector<std::vector<Shape>> operand_sets = {
      {},
      {Shape(F32, {})},
      {Shape(F32, {2, 3})},
      {Shape::MakeTuple({Shape(F32, {2}), Shape::MakeTuple({})})},
      {Shape::MakeToken(), Shape(S32, {-1})},
      {Shape(F32, {2, 3}), Shape(S32, {})},
      {Shape(PRED, {}), Shape(F32, {2}), Shape(F32, {2})},
      {Shape(C64, {4}), Shape(U8, {0}), Shape(F32, {4}), Shape::MakeToken()},
      {Shape(F32, {2, 3, 4, 5}), Shape(F32, {3}), Shape(F32, {3}), Shape(F32, {3}),
       Shape(F32, {2, 3, 4, 5})},
      {Shape(S32, {8}), Shape(S32, {8}), Shape(S32, {2}), Shape(S32, {2}), Shape(S32, {2}),
       Shape(S32, {2})},
  };
  const std::vector<Shape> result_shapes = {
      Shape(F32, {2, 3}), Shape::MakeTuple({Shape(F32, {2}), Shape(U32, {})}), Shape::MakeToken()};
  int64_t checked = 0;
  for (int op = 0; op < kHloOpcodeCount; ++op) {
    const HloOpcode opcode = static_cast<HloOpcode>(op);
    for (const std::vector<Shape>& operand_shapes : operand_sets) {
      for (int variant = 0; variant < 6; ++variant) {
        HloModule module("robust");
        TestBuilder b(&module, "main", /*entry=*/true);
        std::vector<HloInstruction*> operands;
        for (size_t i = 0; i < operand_shapes.size(); ++i) {
          operands.push_back(b.Param(static_cast<int64_t>(i), operand_shapes[i]));
        }
        HloInstruction* hlo =
            b.Op(opcode, result_shapes[variant % result_shapes.size()], operands, "subject");
        if (variant >= 3) hlo->mutable_attrs() = OddAttributes();
        if (variant == 1 || variant == 4) {
          hlo->AppendCalledComputation(AddBinaryComputation(&module, F32));
        }
        if (variant == 2) {
          hlo->AppendCalledComputation(nullptr);
          hlo->AppendCalledComputation(b.computation());
        }
        if (variant == 5) {
          hlo->AppendCalledComputation(AddCompareComputation(&module, {F32}));
          hlo->AppendCalledComputation(AddBinaryComputation(&module, F32));
        }
        absl::StatusOr<Shape> inferred = InferShape(*hlo);
        if (!inferred.ok()) {
          EXPECT_THAT(std::string(inferred.status().message()), ::testing::StartsWith("%subject: "))
              << HloOpcodeString(opcode);
        }
        absl::Status status = VerifyHloModule(module);
        if (!status.ok()) {
          EXPECT_FALSE(status.message().empty());
        }
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, int64_t{kHloOpcodeCount} * 10 * 6);
}

}  // namespace
}  // namespace tessera
