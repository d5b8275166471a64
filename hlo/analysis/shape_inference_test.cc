// Shape inference, one op family per section: each test builds the
// instruction through the IR API and checks the shape InferShape computes
// (or the error it reports).
#include "hlo/analysis/shape_inference.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/analysis/test_builder.h"
#include "hlo/ir/hlo_module.h"

namespace tessera {
namespace {

using test_util::AddBinaryComputation;
using test_util::AddCompareComputation;
using test_util::TestBuilder;
using ::testing::HasSubstr;

class ShapeInferenceTest : public ::testing::Test {
 protected:
  // The inferred shape as text, or "error: <message>".
  static std::string Infer(const HloInstruction* hlo) {
    absl::StatusOr<Shape> shape = InferShape(*hlo);
    if (!shape.ok()) return "error: " + std::string(shape.status().message());
    return shape->ToString();
  }

  HloInstruction* Param(const Shape& shape) { return b_.Param(next_param_++, shape); }

  HloModule module_{"test"};
  TestBuilder b_{&module_, "main", /*entry=*/true};
  int64_t next_param_ = 0;
};

// ----------------------------------------------------------------------------
// Elementwise.
// ----------------------------------------------------------------------------

TEST_F(ShapeInferenceTest, UnaryOps) {
  HloInstruction* f = Param(Shape(F32, {2, 3}));
  HloInstruction* c = Param(Shape(C64, {4}));
  HloInstruction* z = Param(Shape(C128, {}));
  HloInstruction* i = Param(Shape(S32, {5}));
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kExp, Shape(F32, {2, 3}), {f})), "f32[2,3]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kAbs, Shape(F32, {4}), {c})), "f32[4]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kReal, Shape(F64, {}), {z})), "f64[]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kIsFinite, Shape(PRED, {2, 3}), {f})), "pred[2,3]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kPopulationCount, Shape(S32, {5}), {i})), "s32[5]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kNegate, Shape(S32, {5}), {i})), "s32[5]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kCopy, Shape(C64, {4}), {c})), "c64[4]");
  EXPECT_THAT(Infer(b_.Op(HloOpcode::kFloor, Shape(S32, {5}), {i}, "floor.1")),
              HasSubstr("%floor.1: floor expects floating-point operands, got s32[5]"));
  EXPECT_THAT(Infer(b_.Op(HloOpcode::kNot, Shape(F32, {2, 3}), {f})),
              HasSubstr("not expects pred or integral operands"));
  EXPECT_THAT(Infer(b_.Op(HloOpcode::kClz, Shape(F32, {2, 3}), {f})),
              HasSubstr("count-leading-zeros expects integral operands"));
}

TEST_F(ShapeInferenceTest, BinaryOps) {
  HloInstruction* a = Param(Shape(F32, {2}));
  HloInstruction* b = Param(Shape(F32, {3}));
  HloInstruction* h = Param(Shape(BF16, {2}));
  HloInstruction* p = Param(Shape(PRED, {2}));
  HloInstruction* f64 = Param(Shape(F64, {2}));
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kAdd, Shape(F32, {2}), {a, a})), "f32[2]");
  // Mixed precision infers the more precise type.
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kMultiply, Shape(F32, {2}), {h, a})), "f32[2]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kComplex, Shape(C128, {2}), {f64, f64})), "c128[2]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kAnd, Shape(PRED, {2}), {p, p})), "pred[2]");
  EXPECT_EQ(Infer(b_.Add(
                HloInstruction::CreateCompare(Shape(PRED, {2}), a, h, ComparisonDirection::kLt))),
            "pred[2]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kAdd, Shape(F32, {3}), {a, b}, "add.3")),
            "error: %add.3: operand shapes f32[2] and f32[3] are incompatible");
  EXPECT_THAT(Infer(b_.Op(HloOpcode::kSubtract, Shape(PRED, {2}), {p, p})),
              HasSubstr("subtract expects arithmetic (non-pred) operands"));
  EXPECT_THAT(Infer(b_.Op(HloOpcode::kXor, Shape(F32, {2}), {a, a})),
              HasSubstr("xor expects pred or integral operands"));
  EXPECT_THAT(Infer(b_.Op(HloOpcode::kComplex, Shape(C64, {2}), {a, h})),
              HasSubstr("complex expects two f32 or two f64 operands"));
  EXPECT_THAT(Infer(b_.Op(HloOpcode::kAdd, Shape(F32, {2}), {a}, "add.bad")),
              HasSubstr("%add.bad: add expects 2 operand(s), got 1"));
}

TEST_F(ShapeInferenceTest, ComparisonTypes) {
  HloInstruction* i = Param(Shape(S32, {4}));
  HloInstruction* u = Param(Shape(U8, {4}));
  HloInstruction* f = Param(Shape(F32, {4}));
  HloInstruction* c = Param(Shape(C64, {4}));
  auto compare = [&](HloInstruction* x, ComparisonDirection d, ComparisonType t) {
    return b_.Add(HloInstruction::CreateCompare(Shape(PRED, {4}), x, x, d, t));
  };
  EXPECT_EQ(Infer(compare(f, ComparisonDirection::kLt, ComparisonType::kFloatTotalOrder)),
            "pred[4]");
  EXPECT_EQ(Infer(compare(i, ComparisonDirection::kGe, ComparisonType::kSigned)), "pred[4]");
  EXPECT_EQ(Infer(compare(c, ComparisonDirection::kNe, ComparisonType::kDefault)), "pred[4]");
  EXPECT_THAT(Infer(compare(i, ComparisonDirection::kLt, ComparisonType::kFloat)),
              HasSubstr("comparison type FLOAT is not valid for s32 operands (expected SIGNED)"));
  EXPECT_THAT(Infer(compare(u, ComparisonDirection::kLt, ComparisonType::kSigned)),
              HasSubstr("comparison type SIGNED is not valid for u8 operands"));
  EXPECT_THAT(Infer(compare(f, ComparisonDirection::kLt, ComparisonType::kUnsigned)),
              HasSubstr("expected FLOAT or TOTALORDER"));
  EXPECT_THAT(Infer(compare(c, ComparisonDirection::kEq, ComparisonType::kSigned)),
              HasSubstr("comparison type SIGNED is not valid for c64 operands (expected FLOAT)"));
}

TEST_F(ShapeInferenceTest, SelectClampAndConversions) {
  HloInstruction* pred = Param(Shape(PRED, {4}));
  HloInstruction* x = Param(Shape(F32, {4}));
  HloInstruction* lo = Param(Shape(F32, {}));
  HloInstruction* s = Param(Shape(S8, {4, 4}));
  HloInstruction* u = Param(Shape(U32, {4}));
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kSelect, Shape(F32, {4}), {pred, x, x})), "f32[4]");
  EXPECT_THAT(Infer(b_.Op(HloOpcode::kSelect, Shape(F32, {4}), {x, x, x})),
              HasSubstr("select predicate must be pred, got f32[4]"));
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kClamp, Shape(F32, {4}), {lo, x, lo})), "f32[4]");
  EXPECT_THAT(Infer(b_.Op(HloOpcode::kClamp, Shape(F32, {4}), {s, x, lo})),
              HasSubstr("clamp bounds s8[4,4] and f32[] are incompatible"));
  EXPECT_EQ(Infer(b_.Add(HloInstruction::CreateConvert(Shape(S32, {4}), x))), "s32[4]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kBitcastConvert, Shape(S8, {4, 4}), {x})), "s8[4,4]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kBitcastConvert, Shape(F32, {4}), {s})), "f32[4]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kBitcastConvert, Shape(U32, {4}), {x})), "u32[4]");
  EXPECT_THAT(Infer(b_.Op(HloOpcode::kBitcastConvert, Shape(F64, {4}), {x})),
              HasSubstr("needs a minor dimension of size 2"));
  EXPECT_THAT(Infer(b_.Op(HloOpcode::kBitcastConvert, Shape(C64, {4}), {x})),
              HasSubstr("between complex and real types"));
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kStochasticConvert, Shape(BF16, {4}), {x, u})), "bf16[4]");
  HloInstruction* rp = b_.Op(HloOpcode::kReducePrecision, Shape(F32, {4}), {x});
  rp->mutable_attrs().exponent_bits = 5;
  rp->mutable_attrs().mantissa_bits = 10;
  EXPECT_EQ(Infer(rp), "f32[4]");
  rp->mutable_attrs().exponent_bits = 0;
  EXPECT_THAT(Infer(rp), HasSubstr("exponent_bits >= 1"));
}

TEST_F(ShapeInferenceTest, Map) {
  HloComputation* add = AddBinaryComputation(&module_, F32);
  HloInstruction* x = Param(Shape(F32, {2, 3}));
  HloInstruction* map = b_.Op(HloOpcode::kMap, Shape(F32, {2, 3}), {x, x});
  map->AppendCalledComputation(add);
  map->mutable_attrs().dimensions = {0, 1};
  EXPECT_EQ(Infer(map), "f32[2,3]");
  HloInstruction* unary_map = b_.Op(HloOpcode::kMap, Shape(F32, {2, 3}), {x});
  unary_map->AppendCalledComputation(add);
  EXPECT_THAT(Infer(unary_map), HasSubstr("map computation takes 2 parameter(s) but map has "
                                          "1 operand(s)"));
}

// ----------------------------------------------------------------------------
// Shape ops.
// ----------------------------------------------------------------------------

TEST_F(ShapeInferenceTest, BroadcastReshapeTranspose) {
  HloInstruction* x = Param(Shape(F32, {3}));
  HloInstruction* m = Param(Shape(F32, {2, 3, 4}));
  EXPECT_EQ(Infer(b_.Add(HloInstruction::CreateBroadcast(Shape(F32, {2, 3}), x, {1}))), "f32[2,3]");
  EXPECT_THAT(Infer(b_.Add(HloInstruction::CreateBroadcast(Shape(F32, {2, 3}), x, {0}))),
              HasSubstr("map operand dimension 0 of f32[3] to dimension 0 of f32[2,3] with a "
                        "different size"));
  EXPECT_THAT(Infer(b_.Add(HloInstruction::CreateBroadcast(Shape(F32, {2, 3}), x, {2}))),
              HasSubstr("broadcast dimensions {2} has dimension 2 out of range for rank 2"));
  EXPECT_EQ(Infer(b_.Add(HloInstruction::CreateReshape(Shape(F32, {6, 4}), m))), "f32[6,4]");
  EXPECT_THAT(Infer(b_.Add(HloInstruction::CreateReshape(Shape(F32, {5, 4}), m))),
              HasSubstr("changes the element count"));
  EXPECT_EQ(Infer(b_.Add(HloInstruction::CreateTranspose(Shape(F32, {4, 2, 3}), m, {2, 0, 1}))),
            "f32[4,2,3]");
  EXPECT_THAT(Infer(b_.Add(HloInstruction::CreateTranspose(Shape(F32, {4, 2, 3}), m, {2, 0, 0}))),
              HasSubstr("transpose dimensions {2,0,0} are not a permutation"));
}

TEST_F(ShapeInferenceTest, Slices) {
  HloInstruction* x = Param(Shape(F32, {10, 4}));
  HloInstruction* i = Param(Shape(S32, {}));
  HloInstruction* u = Param(Shape(F32, {2, 4}));
  EXPECT_EQ(
      Infer(b_.Add(HloInstruction::CreateSlice(Shape(F32, {4, 4}), x, {{1, 8, 2}, {0, 4, 1}}))),
      "f32[4,4]");
  EXPECT_THAT(
      Infer(b_.Add(HloInstruction::CreateSlice(Shape(F32, {4, 4}), x, {{1, 11, 2}, {0, 4, 1}}))),
      HasSubstr("slice dimension 0 [1:11:2] of f32[10,4]: limit is out of bounds"));
  EXPECT_THAT(
      Infer(b_.Add(HloInstruction::CreateSlice(Shape(F32, {4, 4}), x, {{1, 8, 0}, {0, 4, 1}}))),
      HasSubstr("stride must be positive"));
  HloInstruction* ds = b_.Op(HloOpcode::kDynamicSlice, Shape(F32, {3, 4}), {x, i, i});
  ds->mutable_attrs().dynamic_slice_sizes = {3, 4};
  EXPECT_EQ(Infer(ds), "f32[3,4]");
  ds->mutable_attrs().dynamic_slice_sizes = {3, 5};
  EXPECT_THAT(Infer(ds), HasSubstr("dynamic-slice size 5 of dimension 1 is out of bounds"));
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kDynamicUpdateSlice, Shape(F32, {10, 4}), {x, u, i, i})),
            "f32[10,4]");
  EXPECT_THAT(Infer(b_.Op(HloOpcode::kDynamicUpdateSlice, Shape(F32, {10, 4}), {x, u, i})),
              HasSubstr("has 1 start indices but operand f32[10,4] has rank 2"));
}

TEST_F(ShapeInferenceTest, ConcatenatePadReverseIota) {
  HloInstruction* a = Param(Shape(F32, {2, 3}));
  HloInstruction* b = Param(Shape(F32, {5, 3}));
  HloInstruction* zero = Param(Shape(F32, {}));
  HloInstruction* v = Param(Shape(F32, {4}));
  HloInstruction* concat = b_.Op(HloOpcode::kConcatenate, Shape(F32, {7, 3}), {a, b});
  concat->mutable_attrs().dimensions = {0};
  EXPECT_EQ(Infer(concat), "f32[7,3]");
  concat->mutable_attrs().dimensions = {1};
  EXPECT_THAT(Infer(concat), HasSubstr("along dimension 1: dimension 0 differs"));
  HloInstruction* pad = b_.Op(HloOpcode::kPad, Shape(F32, {8}), {v, zero});
  pad->mutable_attrs().padding_config = PaddingConfig{{{-1, 2, 1}}};
  EXPECT_EQ(Infer(pad), "f32[8]");  // 4 - 1 + 2 + 3 interior
  pad->mutable_attrs().padding_config = PaddingConfig{{{-9, 0, 0}}};
  EXPECT_THAT(Infer(pad), HasSubstr("has negative size -5"));
  pad->mutable_attrs().padding_config = PaddingConfig{{{0, 0, -1}}};
  EXPECT_THAT(Infer(pad), HasSubstr("negative interior padding"));
  HloInstruction* rev = b_.Op(HloOpcode::kReverse, Shape(F32, {2, 3}), {a});
  rev->mutable_attrs().dimensions = {1, 0};
  EXPECT_EQ(Infer(rev), "f32[2,3]");
  rev->mutable_attrs().dimensions = {1, 1};
  EXPECT_THAT(Infer(rev), HasSubstr("repeats a dimension"));
  EXPECT_EQ(Infer(b_.Add(HloInstruction::CreateIota(Shape(S32, {4, 5}), 1))), "s32[4,5]");
  EXPECT_THAT(Infer(b_.Add(HloInstruction::CreateIota(Shape(S32, {4, 5}), 2))),
              HasSubstr("iota dimension 2 is out of range for s32[4,5]"));
}

TEST_F(ShapeInferenceTest, TuplesAndDimensionSizes) {
  HloInstruction* a = Param(Shape(F32, {2}));
  HloInstruction* s = Param(Shape(S32, {}));
  HloInstruction* t = b_.Add(HloInstruction::CreateTuple({a, s}));
  EXPECT_EQ(Infer(t), "(f32[2], s32[])");
  EXPECT_EQ(Infer(b_.Add(HloInstruction::CreateGetTupleElement(Shape(S32, {}), t, 1))), "s32[]");
  EXPECT_THAT(Infer(b_.Add(HloInstruction::CreateGetTupleElement(Shape(S32, {}), t, 2))),
              HasSubstr("tuple index 2 is out of range for (f32[2], s32[])"));
  HloInstruction* get = b_.Op(HloOpcode::kGetDimensionSize, Shape(S32, {}), {a});
  get->mutable_attrs().dimensions = {0};
  EXPECT_EQ(Infer(get), "s32[]");
  HloInstruction* set = b_.Op(HloOpcode::kSetDimensionSize, Shape(F32, {2}), {a, s});
  set->mutable_attrs().dimensions = {0};
  EXPECT_EQ(Infer(set), "f32[<=2]");
}

TEST_F(ShapeInferenceTest, SortAndTopK) {
  HloInstruction* keys = Param(Shape(F32, {8, 16}));
  HloInstruction* values = Param(Shape(S32, {8, 16}));
  HloInstruction* sort = b_.Op(HloOpcode::kSort, Shape::MakeTuple({}), {keys, values});
  sort->mutable_attrs().dimensions = {1};
  sort->AppendCalledComputation(AddCompareComputation(&module_, {F32, S32}));
  EXPECT_EQ(Infer(sort), "(f32[8,16], s32[8,16])");
  HloInstruction* bad = b_.Op(HloOpcode::kSort, Shape(F32, {8, 16}), {keys});
  bad->mutable_attrs().dimensions = {1};
  bad->AppendCalledComputation(sort->called_computations()[0]);
  EXPECT_THAT(Infer(bad), HasSubstr("sort comparator takes 4 parameter(s), expected 2"));
  HloInstruction* topk = b_.Op(HloOpcode::kTopK, Shape::MakeTuple({}), {keys});
  topk->mutable_attrs().k = 3;
  EXPECT_EQ(Infer(topk), "(f32[8,3], s32[8,3])");
  topk->mutable_attrs().k = 17;
  EXPECT_THAT(Infer(topk), HasSubstr("topk k=17 is out of range"));
}

// ----------------------------------------------------------------------------
// Reductions and windows.
// ----------------------------------------------------------------------------

TEST_F(ShapeInferenceTest, Reduce) {
  HloComputation* add = AddBinaryComputation(&module_, F32);
  HloInstruction* x = Param(Shape(F32, {2, 3, 4}));
  HloInstruction* zero = Param(Shape(F32, {}));
  EXPECT_EQ(Infer(b_.Add(HloInstruction::CreateReduce(Shape(F32, {3}), {x, zero}, {0, 2}, add))),
            "f32[3]");
  EXPECT_THAT(Infer(b_.Add(HloInstruction::CreateReduce(Shape(F32, {3}), {x, zero}, {0, 3}, add))),
              HasSubstr("reduce dimensions {0,3} has dimension 3 out of range for rank 3"));
  // A variadic (argmax-style) reduce over (f32, s32).
  TestBuilder r(&module_, "argmax");
  HloInstruction* a0 = r.Param(0, Shape(F32, {}));
  HloInstruction* a1 = r.Param(1, Shape(S32, {}));
  r.Param(2, Shape(F32, {}));
  r.Param(3, Shape(S32, {}));
  r.Add(HloInstruction::CreateTuple({a0, a1}));
  HloInstruction* idx = Param(Shape(S32, {2, 3, 4}));
  HloInstruction* izero = Param(Shape(S32, {}));
  EXPECT_EQ(Infer(b_.Add(HloInstruction::CreateReduce(Shape::MakeTuple({}), {x, idx, zero, izero},
                                                      {1}, r.computation()))),
            "(f32[2,4], s32[2,4])");
  // The reducer must take scalars of the input types.
  HloComputation* add_s32 = AddBinaryComputation(&module_, S32);
  EXPECT_THAT(
      Infer(b_.Add(HloInstruction::CreateReduce(Shape(F32, {3}), {x, zero}, {0, 2}, add_s32))),
      HasSubstr("does not match the accumulator s32[]"));
}

TEST_F(ShapeInferenceTest, ReduceWindowAndSelectAndScatter) {
  HloComputation* add = AddBinaryComputation(&module_, F32);
  HloComputation* ge = AddCompareComputation(&module_, {F32}, ComparisonDirection::kGe);
  HloInstruction* x = Param(Shape(F32, {4, 6}));
  HloInstruction* zero = Param(Shape(F32, {}));
  HloInstruction* source = Param(Shape(F32, {2, 3}));
  Window window;
  window.dimensions = {{2, 2, 0, 0, 1, 1, false}, {2, 2, 0, 0, 1, 1, false}};
  HloInstruction* rw = b_.Op(HloOpcode::kReduceWindow, Shape(F32, {2, 3}), {x, zero});
  rw->AppendCalledComputation(add);
  rw->mutable_attrs().window = window;
  EXPECT_EQ(Infer(rw), "f32[2,3]");
  // Padding and dilation: (4-1)*2+1 = 7 dilated, + 1 + 1 padding = 9;
  // window 3 dilated by 2 is 5, stride 1 -> 5 positions.
  Window dilated;
  dilated.dimensions = {{3, 1, 1, 1, 2, 2, false}, {1, 1, 0, 0, 1, 1, false}};
  rw->mutable_attrs().window = dilated;
  EXPECT_EQ(Infer(rw), "f32[5,6]");
  Window bad = window;
  bad.dimensions[1].stride = 0;
  rw->mutable_attrs().window = bad;
  EXPECT_THAT(Infer(rw), HasSubstr("stride must be positive"));
  HloInstruction* sas = b_.Op(HloOpcode::kSelectAndScatter, Shape(F32, {4, 6}), {x, source, zero});
  sas->AppendCalledComputation(ge);
  sas->AppendCalledComputation(add);
  sas->mutable_attrs().window = window;
  EXPECT_EQ(Infer(sas), "f32[4,6]");
  sas->ReplaceCalledComputation(0, add);
  EXPECT_THAT(Infer(sas), HasSubstr("select computation must return pred[]"));
}

TEST_F(ShapeInferenceTest, Convolution) {
  // NHWC input, HWIO kernel: b01f_01io->b01f.
  ConvolutionDimensionNumbers dnums;
  dnums.input_batch_dimension = 0;
  dnums.input_feature_dimension = 3;
  dnums.input_spatial_dimensions = {1, 2};
  dnums.kernel_spatial_dimensions = {0, 1};
  dnums.kernel_input_feature_dimension = 2;
  dnums.kernel_output_feature_dimension = 3;
  dnums.output_batch_dimension = 0;
  dnums.output_feature_dimension = 3;
  dnums.output_spatial_dimensions = {1, 2};
  HloInstruction* input = Param(Shape(F32, {1, 5, 5, 4}));
  HloInstruction* kernel = Param(Shape(F32, {3, 3, 4, 8}));
  HloInstruction* grouped_kernel = Param(Shape(F32, {3, 3, 2, 8}));
  Window window;
  window.dimensions = {{3, 1, 1, 1, 1, 1, false}, {3, 2, 0, 0, 1, 1, false}};
  HloInstruction* conv = b_.Op(HloOpcode::kConvolution, Shape(F32, {1, 5, 2, 8}), {input, kernel});
  conv->mutable_attrs().window = window;
  conv->mutable_attrs().convolution_dimension_numbers = dnums;
  EXPECT_EQ(Infer(conv), "f32[1,5,2,8]");
  HloInstruction* grouped =
      b_.Op(HloOpcode::kConvolution, Shape(F32, {1, 5, 2, 8}), {input, grouped_kernel});
  grouped->mutable_attrs().window = window;
  grouped->mutable_attrs().convolution_dimension_numbers = dnums;
  grouped->mutable_attrs().feature_group_count = 2;
  EXPECT_EQ(Infer(grouped), "f32[1,5,2,8]");
  grouped->mutable_attrs().feature_group_count = 1;
  EXPECT_THAT(Infer(grouped), HasSubstr("input features 4 / feature_group_count 1 must equal "
                                        "the kernel input features 2"));
  // batch_group_count splits the input batch (weight gradients):
  // batch 2 / 2 groups -> output batch 1.
  HloInstruction* batch2 = Param(Shape(F32, {2, 5, 5, 4}));
  HloInstruction* batch_grouped =
      b_.Op(HloOpcode::kConvolution, Shape(F32, {1, 5, 2, 8}), {batch2, kernel});
  batch_grouped->mutable_attrs().window = window;
  batch_grouped->mutable_attrs().convolution_dimension_numbers = dnums;
  batch_grouped->mutable_attrs().batch_group_count = 2;
  EXPECT_EQ(Infer(batch_grouped), "f32[1,5,2,8]");
  batch_grouped->mutable_attrs().feature_group_count = 2;
  EXPECT_THAT(Infer(batch_grouped), HasSubstr("cannot have both feature_group_count and "
                                              "batch_group_count > 1"));
  // lhs dilation 2 turns 5 input positions into 9; a 3-wide window with
  // padding 1 on each side then fits 9 times.
  Window dilated = window;
  dilated.dimensions[0].base_dilation = 2;
  dilated.dimensions[1] = {3, 1, 1, 1, 1, 2, false};
  conv->mutable_attrs().window = dilated;
  EXPECT_EQ(Infer(conv), "f32[1,9,9,8]");
  Window wrong = window;
  wrong.dimensions[0].size = 2;
  conv->mutable_attrs().window = wrong;
  EXPECT_THAT(Infer(conv), HasSubstr("window size 2 of spatial dimension 0 does not match the "
                                     "kernel size 3"));
  conv->mutable_attrs().window = window;
  dnums.input_spatial_dimensions = {1, 1};
  conv->mutable_attrs().convolution_dimension_numbers = dnums;
  EXPECT_THAT(Infer(conv), HasSubstr("input dimension numbers {0,3,1,1} must name each"));
  conv->mutable_attrs().convolution_dimension_numbers.reset();
  EXPECT_THAT(Infer(conv), HasSubstr("convolution has no dimension numbers"));
}

// ----------------------------------------------------------------------------
// Dot and linear algebra.
// ----------------------------------------------------------------------------

TEST_F(ShapeInferenceTest, Dot) {
  HloInstruction* a = Param(Shape(F32, {2, 3}));
  HloInstruction* b = Param(Shape(F32, {3, 4}));
  HloInstruction* ba = Param(Shape(BF16, {8, 2, 3}));
  HloInstruction* bb = Param(Shape(BF16, {8, 3, 4}));
  HloInstruction* i8 = Param(Shape(S8, {2, 3}));
  HloInstruction* j8 = Param(Shape(S8, {3, 4}));
  DotDimensionNumbers matmul{{1}, {0}, {}, {}};
  EXPECT_EQ(Infer(b_.Add(HloInstruction::CreateDot(Shape(F32, {2, 4}), a, b, matmul))), "f32[2,4]");
  DotDimensionNumbers batched{{2}, {1}, {0}, {0}};
  // The result type comes from the instruction: bf16 x bf16 -> f32.
  EXPECT_EQ(Infer(b_.Add(HloInstruction::CreateDot(Shape(F32, {8, 2, 4}), ba, bb, batched))),
            "f32[8,2,4]");
  EXPECT_EQ(Infer(b_.Add(HloInstruction::CreateDot(Shape(S32, {2, 4}), i8, j8, matmul))),
            "s32[2,4]");
  // Integer and floating-point operands may mix; the result is the more
  // precise (floating-point) type.
  EXPECT_EQ(Infer(b_.Add(HloInstruction::CreateDot(
                Shape(BF16, {8, 2, 4}), ba, b_.Op(HloOpcode::kConvert, Shape(S8, {8, 3, 4}), {bb}),
                batched))),
            "bf16[8,2,4]");
  HloInstruction* narrow = b_.Add(HloInstruction::CreateDot(Shape(S8, {2, 4}), i8, j8, matmul));
  EXPECT_EQ(Infer(narrow), "s8[2,4]");
  EXPECT_THAT(Infer(b_.Add(HloInstruction::CreateDot(
                  Shape(S8, {2, 4}), b_.Op(HloOpcode::kConvert, Shape(S32, {2, 3}), {i8}),
                  b_.Op(HloOpcode::kConvert, Shape(S32, {3, 4}), {j8}), matmul))),
              HasSubstr("result type s8 is narrower than the operand type s32"));
  EXPECT_THAT(Infer(b_.Add(HloInstruction::CreateDot(Shape(F32, {2, 4}), a, a, matmul))),
              HasSubstr("contracting dimension sizes do not match"));
  EXPECT_THAT(Infer(b_.Add(HloInstruction::CreateDot(Shape(F32, {2, 4}), a, b,
                                                     DotDimensionNumbers{{2}, {0}, {}, {}}))),
              HasSubstr("lhs dimension 2 is out of range"));
  HloInstruction* no_dnums = b_.Op(HloOpcode::kDot, Shape(F32, {2, 4}), {a, b});
  EXPECT_THAT(Infer(no_dnums), HasSubstr("dot has no dot dimension numbers"));
  HloInstruction* precision = b_.Add(HloInstruction::CreateDot(Shape(F32, {2, 4}), a, b, matmul));
  precision->mutable_attrs().precision_config.operand_precision = {Precision::kHighest};
  EXPECT_THAT(Infer(precision), HasSubstr("precision config has 1 entries, expected 2"));
}

TEST_F(ShapeInferenceTest, RaggedDot) {
  HloInstruction* lhs = Param(Shape(F32, {11, 5}));
  HloInstruction* rhs = Param(Shape(F32, {3, 5, 7}));
  HloInstruction* groups = Param(Shape(S32, {3}));
  HloInstruction* ragged = b_.Op(HloOpcode::kRaggedDot, Shape(F32, {11, 7}), {lhs, rhs, groups});
  RaggedDotDimensionNumbers dnums;
  dnums.dot_dimension_numbers = DotDimensionNumbers{{1}, {1}, {}, {}};
  dnums.lhs_ragged_dimensions = {0};
  dnums.rhs_group_dimensions = {0};
  ragged->mutable_attrs().ragged_dot_dimension_numbers = dnums;
  EXPECT_EQ(Infer(ragged), "f32[11,7]");
}

TEST_F(ShapeInferenceTest, FftAndLinearAlgebra) {
  HloInstruction* real = Param(Shape(F32, {8, 16}));
  HloInstruction* spectrum = Param(Shape(C64, {8, 9}));
  HloInstruction* rfft = b_.Op(HloOpcode::kFft, Shape(C64, {8, 9}), {real});
  rfft->mutable_attrs().fft_type = FftType::kRfft;
  rfft->mutable_attrs().fft_length = {16};
  EXPECT_EQ(Infer(rfft), "c64[8,9]");
  HloInstruction* irfft = b_.Op(HloOpcode::kFft, Shape(F32, {8, 16}), {spectrum});
  irfft->mutable_attrs().fft_type = FftType::kIrfft;
  irfft->mutable_attrs().fft_length = {16};
  EXPECT_EQ(Infer(irfft), "f32[8,16]");
  rfft->mutable_attrs().fft_type = FftType::kFft;
  EXPECT_THAT(Infer(rfft), HasSubstr("FFT and IFFT need a complex operand"));

  HloInstruction* a = Param(Shape(F32, {2, 4, 4}));
  HloInstruction* b = Param(Shape(F32, {2, 4, 3}));
  HloInstruction* solve = b_.Op(HloOpcode::kTriangularSolve, Shape(F32, {2, 4, 3}), {a, b});
  TriangularSolveOptions options;
  options.left_side = true;
  options.transpose_a = TriangularSolveOptions::Transpose::kNoTranspose;
  solve->mutable_attrs().triangular_solve_options = options;
  EXPECT_EQ(Infer(solve), "f32[2,4,3]");
  options.left_side = false;
  solve->mutable_attrs().triangular_solve_options = options;
  EXPECT_THAT(Infer(solve), HasSubstr("shared dimension"));
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kCholesky, Shape(F32, {2, 4, 4}), {a})), "f32[2,4,4]");
  EXPECT_THAT(Infer(b_.Op(HloOpcode::kCholesky, Shape(F32, {2, 4, 3}), {b})),
              HasSubstr("must be square"));
}

TEST_F(ShapeInferenceTest, BatchNorm) {
  HloInstruction* x = Param(Shape(F32, {2, 3, 4}));
  HloInstruction* scale = Param(Shape(F32, {3}));
  HloInstruction* wrong = Param(Shape(F32, {4}));
  HloInstruction* training =
      b_.Op(HloOpcode::kBatchNormTraining, Shape::MakeTuple({}), {x, scale, scale});
  training->mutable_attrs().feature_index = 1;
  EXPECT_EQ(Infer(training), "(f32[2,3,4], f32[3], f32[3])");
  HloInstruction* inference =
      b_.Op(HloOpcode::kBatchNormInference, Shape(F32, {2, 3, 4}), {x, scale, scale, scale, wrong});
  inference->mutable_attrs().feature_index = 1;
  EXPECT_THAT(Infer(inference), HasSubstr("per-feature input f32[4] must be f32[3]"));
  HloInstruction* grad =
      b_.Op(HloOpcode::kBatchNormGrad, Shape::MakeTuple({}), {x, scale, scale, scale, x});
  grad->mutable_attrs().feature_index = 1;
  EXPECT_EQ(Infer(grad), "(f32[2,3,4], f32[3], f32[3])");
}

// ----------------------------------------------------------------------------
// Gather and scatter.
// ----------------------------------------------------------------------------

TEST_F(ShapeInferenceTest, Gather) {
  HloInstruction* table = Param(Shape(F32, {5, 4}));
  HloInstruction* ids = Param(Shape(S32, {3, 1}));
  HloInstruction* gather = b_.Op(HloOpcode::kGather, Shape(F32, {3, 4}), {table, ids});
  GatherDimensionNumbers dnums;
  dnums.offset_dims = {1};
  dnums.collapsed_slice_dims = {0};
  dnums.start_index_map = {0};
  dnums.index_vector_dim = 1;
  gather->mutable_attrs().gather_dimension_numbers = dnums;
  gather->mutable_attrs().gather_slice_sizes = {1, 4};
  EXPECT_EQ(Infer(gather), "f32[3,4]");
  gather->mutable_attrs().gather_slice_sizes = {2, 4};
  EXPECT_THAT(Infer(gather), HasSubstr("collapses dimension 0 whose slice size 2"));
  gather->mutable_attrs().gather_slice_sizes = {1, 4};
  dnums.start_index_map = {0, 1};
  gather->mutable_attrs().gather_dimension_numbers = dnums;
  EXPECT_THAT(Infer(gather), HasSubstr("start_index_map {0,1} has 2 entries but the index "
                                       "vector of s32[3,1] has 1"));

  // Explicit batching dimensions: one table row per batch element.
  HloInstruction* tables = Param(Shape(F32, {2, 5, 4}));
  HloInstruction* batched_ids = Param(Shape(S32, {2, 3, 1}));
  HloInstruction* batched = b_.Op(HloOpcode::kGather, Shape(F32, {2, 3, 4}), {tables, batched_ids});
  GatherDimensionNumbers bd;
  bd.offset_dims = {2};
  bd.collapsed_slice_dims = {1};
  bd.operand_batching_dims = {0};
  bd.start_indices_batching_dims = {0};
  bd.start_index_map = {1};
  bd.index_vector_dim = 2;
  batched->mutable_attrs().gather_dimension_numbers = bd;
  batched->mutable_attrs().gather_slice_sizes = {1, 1, 4};
  EXPECT_EQ(Infer(batched), "f32[2,3,4]");
  bd.start_indices_batching_dims = {2};
  batched->mutable_attrs().gather_dimension_numbers = bd;
  EXPECT_THAT(Infer(batched), HasSubstr("must not contain index_vector_dim 2"));
}

TEST_F(ShapeInferenceTest, Scatter) {
  HloComputation* add = AddBinaryComputation(&module_, F32);
  HloInstruction* operand = Param(Shape(F32, {5, 4}));
  HloInstruction* ids = Param(Shape(S32, {3, 1}));
  HloInstruction* updates = Param(Shape(F32, {3, 4}));
  ScatterDimensionNumbers dnums;
  dnums.update_window_dims = {1};
  dnums.inserted_window_dims = {0};
  dnums.scatter_dims_to_operand_dims = {0};
  dnums.index_vector_dim = 1;
  HloInstruction* scatter = b_.Op(HloOpcode::kScatter, Shape(F32, {5, 4}), {operand, ids, updates});
  scatter->AppendCalledComputation(add);
  scatter->mutable_attrs().scatter_dimension_numbers = dnums;
  EXPECT_EQ(Infer(scatter), "f32[5,4]");
  // Variadic: two operands updated together.
  TestBuilder r(&module_, "add_pair");
  HloInstruction* x0 = r.Param(0, Shape(F32, {}));
  HloInstruction* x1 = r.Param(1, Shape(F32, {}));
  HloInstruction* y0 = r.Param(2, Shape(F32, {}));
  HloInstruction* y1 = r.Param(3, Shape(F32, {}));
  r.Add(HloInstruction::CreateTuple(
      {r.Add(HloInstruction::CreateBinary(Shape(F32, {}), HloOpcode::kAdd, x0, y0)),
       r.Add(HloInstruction::CreateBinary(Shape(F32, {}), HloOpcode::kAdd, x1, y1))}));
  HloInstruction* pair =
      b_.Op(HloOpcode::kScatter, Shape::MakeTuple({}), {operand, operand, ids, updates, updates});
  pair->AppendCalledComputation(r.computation());
  pair->mutable_attrs().scatter_dimension_numbers = dnums;
  EXPECT_EQ(Infer(pair), "(f32[5,4], f32[5,4])");
  dnums.update_window_dims = {0};
  scatter->mutable_attrs().scatter_dimension_numbers = dnums;
  EXPECT_THAT(Infer(scatter), HasSubstr("scatter update dimension 1 of f32[3,4] does not match "
                                        "dimension 0 of indices s32[3,1]"));
}

// ----------------------------------------------------------------------------
// Control flow and calls.
// ----------------------------------------------------------------------------

TEST_F(ShapeInferenceTest, WhileConditionalCallFusion) {
  const Shape state = Shape::MakeTuple({Shape(S32, {}), Shape(F32, {4})});
  TestBuilder cond(&module_, "cond");
  HloInstruction* cp = cond.Param(0, state);
  HloInstruction* counter = cond.Add(HloInstruction::CreateGetTupleElement(Shape(S32, {}), cp, 0));
  cond.Add(
      HloInstruction::CreateCompare(Shape(PRED, {}), counter, counter, ComparisonDirection::kLt));
  TestBuilder body(&module_, "body");
  body.Param(0, state);
  HloInstruction* init = Param(state);
  HloInstruction* loop =
      b_.Add(HloInstruction::CreateWhile(state, cond.computation(), body.computation(), init));
  EXPECT_EQ(Infer(loop), "(s32[], f32[4])");
  TestBuilder bad_body(&module_, "bad_body");
  HloInstruction* bp = bad_body.Param(0, state);
  bad_body.Add(HloInstruction::CreateGetTupleElement(Shape(F32, {4}), bp, 1));
  HloInstruction* bad_loop =
      b_.Add(HloInstruction::CreateWhile(state, cond.computation(), bad_body.computation(), init));
  EXPECT_THAT(Infer(bad_loop), HasSubstr("while body returns f32[4] but the loop state is "
                                         "(s32[], f32[4])"));

  TestBuilder branch0(&module_, "branch0");
  HloInstruction* x0 = branch0.Param(0, Shape(F32, {4}));
  branch0.Add(HloInstruction::CreateUnary(Shape(F32, {4}), HloOpcode::kNegate, x0));
  TestBuilder branch1(&module_, "branch1");
  branch1.Param(0, Shape(S32, {}));
  branch1.Add(HloInstruction::CreateBroadcast(
      Shape(F32, {4}), branch1.Add(HloInstruction::CreateConstant(Literal::CreateR0(1.0f))), {}));
  HloInstruction* which = Param(Shape(S32, {}));
  HloInstruction* vec = Param(Shape(F32, {4}));
  HloInstruction* cond_op = b_.Op(HloOpcode::kConditional, Shape(F32, {4}), {which, vec, which});
  cond_op->AppendCalledComputation(branch0.computation());
  cond_op->AppendCalledComputation(branch1.computation());
  EXPECT_EQ(Infer(cond_op), "f32[4]");
  HloInstruction* pred = Param(Shape(PRED, {}));
  HloInstruction* three = b_.Op(HloOpcode::kConditional, Shape(F32, {4}), {pred, vec, which, vec});
  for (int i = 0; i < 3; ++i) three->AppendCalledComputation(branch0.computation());
  EXPECT_THAT(Infer(three), HasSubstr("conditional with a pred selector needs 2 branches, has 3"));

  HloInstruction* call =
      b_.Add(HloInstruction::CreateCall(Shape(F32, {4}), {vec}, branch0.computation()));
  EXPECT_EQ(Infer(call), "f32[4]");
  HloInstruction* bad_call =
      b_.Add(HloInstruction::CreateCall(Shape(F32, {4}), {which}, branch0.computation()));
  EXPECT_THAT(Infer(bad_call), HasSubstr("operand 0 s32[] does not match called computation "
                                         "parameter f32[4]"));
  HloInstruction* fusion = b_.Add(HloInstruction::CreateFusion(Shape(F32, {4}), FusionKind::kLoop,
                                                               {vec}, branch0.computation()));
  EXPECT_EQ(Infer(fusion), "f32[4]");
}

TEST_F(ShapeInferenceTest, CustomCallAndAsync) {
  HloInstruction* x = Param(Shape(F32, {4}));
  HloInstruction* cc = b_.Op(HloOpcode::kCustomCall, Shape(S32, {7}), {x});
  cc->mutable_attrs().custom_call_target = "foo";
  EXPECT_EQ(Infer(cc), "s32[7]");
  cc->mutable_attrs().output_operand_aliasing = {OutputOperandAliasing{{}, 0, {}}};
  EXPECT_THAT(Infer(cc), HasSubstr("output_to_operand_aliasing pairs s32[7] with f32[4]"));

  TestBuilder wrapped(&module_, "wrapped");
  HloInstruction* w = wrapped.Param(0, Shape(F32, {4}));
  wrapped.Add(HloInstruction::CreateUnary(Shape(F32, {4}), HloOpcode::kSqrt, w));
  const Shape async_shape =
      Shape::MakeTuple({Shape::MakeTuple({Shape(F32, {4})}), Shape(F32, {4}), Shape(S32, {})});
  HloInstruction* start = b_.Op(HloOpcode::kAsyncStart, async_shape, {x});
  start->AppendCalledComputation(wrapped.computation());
  EXPECT_EQ(Infer(start), "((f32[4]), f32[4], s32[])");
  HloInstruction* done = b_.Op(HloOpcode::kAsyncDone, Shape(F32, {4}), {start});
  done->AppendCalledComputation(wrapped.computation());
  EXPECT_EQ(Infer(done), "f32[4]");
  HloInstruction* wrong_done = b_.Op(HloOpcode::kAsyncDone, Shape(F32, {4}), {x});
  wrong_done->AppendCalledComputation(wrapped.computation());
  EXPECT_THAT(Infer(wrong_done), HasSubstr("operand must be async-start or async-update"));
}

// ----------------------------------------------------------------------------
// Collectives, communication and side effects.
// ----------------------------------------------------------------------------

TEST_F(ShapeInferenceTest, Collectives) {
  module_.config().replica_count = 4;
  HloComputation* add = AddBinaryComputation(&module_, F32);
  HloInstruction* x = Param(Shape(F32, {8, 2}));
  HloInstruction* y = Param(Shape(F32, {3}));
  HloInstruction* ar = b_.Op(HloOpcode::kAllReduce, Shape::MakeTuple({}), {x, y});
  ar->AppendCalledComputation(add);
  EXPECT_EQ(Infer(ar), "(f32[8,2], f32[3])");
  ar->mutable_attrs().replica_groups = {ReplicaGroup{{0, 1}}, ReplicaGroup{{1, 2, 3}}};
  EXPECT_THAT(Infer(ar), HasSubstr("replica 1 appears in two groups"));

  HloInstruction* ag = b_.Op(HloOpcode::kAllGather, Shape(F32, {32, 2}), {x});
  ag->mutable_attrs().dimensions = {0};
  EXPECT_EQ(Infer(ag), "f32[32,2]");
  HloInstruction* ag2 = b_.Op(HloOpcode::kAllGather, Shape(F32, {16, 2}), {x});
  ag2->mutable_attrs().dimensions = {0};
  ag2->mutable_attrs().replica_groups = {ReplicaGroup{{0, 1}}, ReplicaGroup{{2, 3}}};
  EXPECT_EQ(Infer(ag2), "f32[16,2]");
  ag2->mutable_attrs().replica_groups.clear();
  EXPECT_THAT(Infer(ag2), HasSubstr("all-gather gathers 2 shards but its groups have 4"));

  HloInstruction* rs = b_.Op(HloOpcode::kReduceScatter, Shape(F32, {2, 2}), {x});
  rs->mutable_attrs().dimensions = {0};
  rs->AppendCalledComputation(add);
  EXPECT_EQ(Infer(rs), "f32[2,2]");

  HloInstruction* a2a = b_.Op(HloOpcode::kAllToAll, Shape(F32, {8, 2}), {x});
  a2a->mutable_attrs().dimensions = {0};
  EXPECT_EQ(Infer(a2a), "f32[8,2]");
  HloInstruction* a2a_bad = b_.Op(HloOpcode::kAllToAll, Shape(F32, {3}), {y});
  a2a_bad->mutable_attrs().dimensions = {0};
  EXPECT_THAT(Infer(a2a_bad), HasSubstr("is not divisible by the split count 4"));

  HloInstruction* cp = b_.Op(HloOpcode::kCollectivePermute, Shape(F32, {3}), {y});
  cp->mutable_attrs().source_target_pairs = {{0, 1}, {1, 2}, {2, 3}, {3, 0}};
  EXPECT_EQ(Infer(cp), "f32[3]");
  cp->mutable_attrs().source_target_pairs = {{0, 1}, {2, 1}};
  EXPECT_THAT(Infer(cp), HasSubstr("target 1 appears more than once"));

  EXPECT_EQ(Infer(b_.Op(HloOpcode::kReplicaId, Shape(U32, {}), {})), "u32[]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kPartitionId, Shape(U32, {}), {})), "u32[]");
  HloInstruction* cps = b_.Op(HloOpcode::kCollectivePermuteStart,
                              Shape::MakeTuple({Shape(F32, {3}), Shape(F32, {3})}), {y});
  EXPECT_EQ(Infer(cps), "(f32[3], f32[3])");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kCollectivePermuteDone, Shape(F32, {3}), {cps})), "f32[3]");
}

TEST_F(ShapeInferenceTest, TokensFeedsAndTransfers) {
  HloInstruction* x = Param(Shape(F32, {4}));
  HloInstruction* token = b_.Op(HloOpcode::kAfterAll, Shape::MakeToken(), {});
  EXPECT_EQ(Infer(token), "token[]");
  EXPECT_THAT(Infer(b_.Op(HloOpcode::kAfterAll, Shape::MakeToken(), {x})),
              HasSubstr("after-all operand 0 must be a token, got f32[4]"));
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kAddDependency, Shape(F32, {4}), {x, token})), "f32[4]");
  const Shape infeed_shape = Shape::MakeTuple({Shape(S32, {2}), Shape::MakeToken()});
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kInfeed, infeed_shape, {token})), "(s32[2], token[])");
  EXPECT_THAT(Infer(b_.Op(HloOpcode::kInfeed, Shape(S32, {2}), {token})),
              HasSubstr("infeed must return (data, token)"));
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kOutfeed, Shape::MakeToken(), {x, token})), "token[]");
  HloInstruction* send =
      b_.Op(HloOpcode::kSend,
            Shape::MakeTuple({Shape(F32, {4}), Shape(U32, {}), Shape::MakeToken()}), {x, token});
  EXPECT_EQ(Infer(send), "(f32[4], u32[], token[])");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kSendDone, Shape::MakeToken(), {send})), "token[]");
  const Shape recv_shape = Shape::MakeTuple({Shape(F32, {2}), Shape(U32, {}), Shape::MakeToken()});
  HloInstruction* recv = b_.Op(HloOpcode::kRecv, recv_shape, {token});
  EXPECT_EQ(Infer(recv), "(f32[2], u32[], token[])");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kRecvDone, Shape::MakeTuple({}), {recv})), "(f32[2], token[])");
  HloInstruction* copy_start =
      b_.Op(HloOpcode::kCopyStart,
            Shape::MakeTuple({Shape(F32, {4}), Shape(F32, {4}), Shape(U32, {})}), {x});
  EXPECT_EQ(Infer(copy_start), "(f32[4], f32[4], u32[])");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kCopyDone, Shape(F32, {4}), {copy_start})), "f32[4]");
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kOptimizationBarrier, Shape(F32, {4}), {x})), "f32[4]");
}

TEST_F(ShapeInferenceTest, RandomNumbers) {
  HloInstruction* lo = Param(Shape(F32, {}));
  HloInstruction* state = Param(Shape(U64, {2}));
  HloInstruction* rng = b_.Op(HloOpcode::kRng, Shape(F32, {3, 3}), {lo, lo});
  rng->mutable_attrs().distribution = RandomDistribution::kNormal;
  EXPECT_EQ(Infer(rng), "f32[3,3]");
  rng->mutable_attrs().distribution = RandomDistribution::kInvalid;
  EXPECT_THAT(Infer(rng), HasSubstr("invalid distribution"));
  const Shape bits_shape = Shape::MakeTuple({Shape(U64, {2}), Shape(U32, {128})});
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kRngBitGenerator, bits_shape, {state})), "(u64[2], u32[128])");
  EXPECT_THAT(Infer(b_.Op(HloOpcode::kRngBitGenerator,
                          Shape::MakeTuple({Shape(U64, {3}), Shape(U32, {128})}), {state})),
              HasSubstr("returns state u64[3] but takes u64[2]"));
  EXPECT_EQ(Infer(b_.Op(HloOpcode::kRngGetAndUpdateState, Shape(U64, {2}), {})), "u64[2]");
}

TEST_F(ShapeInferenceTest, MissingAttributesAndComputationsAreErrors) {
  HloInstruction* x = Param(Shape(F32, {4}));
  HloInstruction* zero = Param(Shape(F32, {}));
  // Null or missing called computations, absent attribute records: errors,
  // never crashes.
  HloInstruction* reduce = b_.Op(HloOpcode::kReduce, Shape(F32, {}), {x, zero});
  reduce->mutable_attrs().dimensions = {0};
  EXPECT_THAT(Infer(reduce), HasSubstr("reduce must call 1 computation(s), calls 0"));
  reduce->AppendCalledComputation(nullptr);
  EXPECT_THAT(Infer(reduce), HasSubstr("called computation is null"));
  EXPECT_THAT(Infer(b_.Op(HloOpcode::kPad, Shape(F32, {4}), {x, zero})),
              HasSubstr("pad has no padding config"));
  EXPECT_THAT(Infer(b_.Op(HloOpcode::kGather, Shape(F32, {4}), {x, x})),
              HasSubstr("gather has no dimension numbers"));
  HloInstruction* reduce_window = b_.Op(HloOpcode::kReduceWindow, Shape(F32, {4}), {x, zero});
  reduce_window->AppendCalledComputation(AddBinaryComputation(&module_, F32));
  EXPECT_THAT(Infer(reduce_window), HasSubstr("reduce-window has no window"));
  EXPECT_THAT(Infer(b_.Op(HloOpcode::kConstant, Shape(F32, {4}), {})),
              HasSubstr("constant has no literal"));
  EXPECT_THAT(Infer(b_.Op(HloOpcode::kConcatenate, Shape(F32, {4}), {x})),
              HasSubstr("concatenate dimension must be one dimension, got {}"));
  HloInstruction* negate = b_.Op(HloOpcode::kNegate, Shape(F32, {4}), {x});
  negate->AppendCalledComputation(reduce->parent());
  EXPECT_THAT(Infer(negate), HasSubstr("negate must call 0 computation(s), calls 1"));
}

}  // namespace
}  // namespace tessera
