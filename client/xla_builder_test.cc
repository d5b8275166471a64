#include "client/xla_builder.h"

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/evaluator/hlo_evaluator.h"
#include "hlo/parser/hlo_printer.h"
#include "hlo/proto/hlo_proto_import.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

const Shape kF32Scalar = Shape::MakeArray(F32, {});

// Builds `builder` (root: its last op) and evaluates it on `arguments`;
// the result as text without its shape ("{1, 2}").
std::string Evaluate(XlaBuilder& builder, std::vector<Literal> arguments = {}) {
  absl::StatusOr<XlaComputation> computation = builder.Build();
  if (!computation.ok()) return absl::StrCat("build failed: ", computation.status().message());
  absl::StatusOr<Literal> result = EvaluateModule(computation->module(), arguments);
  if (!result.ok()) return absl::StrCat("evaluation failed: ", result.status().message());
  return result->ToStringWithoutShape();
}

// The shape `op` got, as text with its layout.
std::string ShapeOf(XlaBuilder& builder, XlaOp op) {
  absl::StatusOr<Shape> shape = builder.GetShape(op);
  return shape.ok() ? shape->ToString(/*print_layout=*/true) : std::string(shape.status().message());
}

Literal Vector(std::initializer_list<float> values) { return Literal::CreateR1<float>(values); }

TEST(XlaBuilderTest, ParametersConstantsAndArithmetic) {
  XlaBuilder b("axpy");
  XlaOp a = Parameter(&b, 0, kF32Scalar, "a");
  XlaOp x = Parameter(&b, 1, Shape::MakeArray(F32, {3}), "x");
  XlaOp y = ConstantR1<float>(&b, {10, 20, 30});
  XlaOp axpy = Add(Mul(a, x), y);
  EXPECT_EQ(ShapeOf(b, axpy), "f32[3]{0}");
  EXPECT_EQ(Evaluate(b, {Literal::CreateR0<float>(2), Vector({1, 2, 3})}), "{12, 24, 36}");
}

TEST(XlaBuilderTest, UnaryOps) {
  struct Case {
    XlaOp (*op)(XlaOp);
    std::vector<float> input;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {&Abs, {-1.5, 2}, "{1.5, 2}"},          {&Neg, {1, -2}, "{-1, 2}"},
      {&Exp, {0, 1}, "{1, 2.7182817}"},       {&Log, {1}, "{0}"},
      {&Floor, {1.5, -1.5}, "{1, -2}"},       {&Ceil, {1.5, -1.5}, "{2, -1}"},
      {&Round, {2.5, -2.5}, "{3, -3}"},       {&RoundNearestEven, {2.5, 3.5}, "{2, 4}"},
      {&Sign, {-3, 0, 5}, "{-1, 0, 1}"},      {&Sqrt, {4, 9}, "{2, 3}"},
      {&Rsqrt, {4}, "{0.5}"},                 {&Tanh, {0}, "{0}"},
      {&Sin, {0}, "{0}"},                     {&Cos, {0}, "{1}"},
      {&Logistic, {0}, "{0.5}"},              {&Square, {3}, "{9}"},
      {&Reciprocal, {4}, "{0.25}"},           {&Expm1, {0}, "{0}"},
      {&Log1p, {0}, "{0}"},                   {&Cbrt, {8}, "{2}"},
      {&Erf, {0}, "{0}"},                     {&Atan, {0}, "{0}"},
      {&Tan, {0}, "{0}"},
  };
  for (const Case& c : cases) {
    XlaBuilder b("unary");
    c.op(ConstantR1<float>(&b, absl::MakeConstSpan(c.input)));
    EXPECT_EQ(Evaluate(b), c.expected) << b.name();
  }
  XlaBuilder logic("logic");
  XlaOp bits = ConstantR1<int32_t>(&logic, {1, 255, -1});
  Tuple(&logic, {Not(bits), Clz(bits), PopulationCount(bits),
                 IsFinite(ConstantR1<float>(&logic, {1, INFINITY}))});
  EXPECT_EQ(Evaluate(logic), "( {-2, -256, 0}, {31, 24, 0}, {1, 8, 32}, {1, 0} )");
}

TEST(XlaBuilderTest, BinaryOpsBroadcastLikeXla) {
  XlaBuilder b("broadcasting");
  XlaOp m = ConstantR2<float>(&b, {{1, 2, 3}, {4, 5, 6}});
  XlaOp row = ConstantR1<float>(&b, {10, 20, 30});
  XlaOp column = ConstantR1<float>(&b, {100, 200});
  XlaOp by_row = Add(m, row, /*broadcast_dimensions=*/{1});
  XlaOp by_column = Sub(column, m, {0});  // lower rank on the left
  XlaOp scaled = Mul(m, ConstantR0<float>(&b, 2));
  EXPECT_EQ(ShapeOf(b, by_column), "f32[2,3]{1,0}");
  Tuple(&b, {by_row, by_column, scaled});
  EXPECT_EQ(Evaluate(b), "( { { 11, 22, 33 }, { 14, 25, 36 } }, { { 99, 98, 97 }, { 196, 195, 194 } }, "
                    "{ { 2, 4, 6 }, { 8, 10, 12 } } )");
}

TEST(XlaBuilderTest, AllBinaryOps) {
  XlaBuilder b("binary");
  XlaOp x = ConstantR1<float>(&b, {7, -8});
  XlaOp y = ConstantR1<float>(&b, {2, 3});
  XlaOp i = ConstantR1<int32_t>(&b, {12, -16});
  XlaOp j = ConstantR1<int32_t>(&b, {10, 2});
  Tuple(&b, {Div(x, y), Rem(x, y), Max(x, y), Min(x, y), Pow(y, y), Atan2(y, ConstantR1<float>(&b, {1, 1})),
             And(i, j), Or(i, j), Xor(i, j), ShiftLeft(i, j), ShiftRightArithmetic(i, j),
             ShiftRightLogical(i, j)});
  EXPECT_EQ(Evaluate(b),
            "( {3.5, -2.6666667}, {1, -2}, {7, 3}, {2, -8}, {4, 27}, {1.1071488, 1.2490457}, "
            "{8, 0}, {14, -14}, {6, -14}, {12288, -64}, {0, -4}, {0, 1073741820} )");
}

TEST(XlaBuilderTest, ComparisonsSelectClampAndConversions) {
  XlaBuilder b("select");
  XlaOp x = ConstantR1<float>(&b, {1, 5, 3});
  XlaOp y = ConstantR1<float>(&b, {2, 5, 1});
  XlaOp pick = Select(Gt(x, y), x, y);
  XlaOp scalar_pick = Select(ConstantR0<bool>(&b, false), x, y);  // scalar predicate
  XlaOp clamped = Clamp(ConstantR0<float>(&b, 2), x, ConstantR0<float>(&b, 4));
  XlaOp converted = ConvertElementType(ConstantR1<float>(&b, {1.7f, -2.5f}), S32);
  XlaOp bits = BitcastConvertType(ConstantR1<float>(&b, {1.0f}), U32);
  Tuple(&b, {Eq(x, y), Ne(x, y), Lt(x, y), Le(x, y), Ge(x, y), pick, scalar_pick, clamped,
             converted, bits,
             Compare(ConstantR1<float>(&b, {NAN}), ConstantR1<float>(&b, {1}),
                     ComparisonDirection::kGt, ComparisonType::kFloatTotalOrder)});
  EXPECT_EQ(Evaluate(b),
            "( {0, 1, 0}, {1, 0, 1}, {1, 0, 0}, {1, 1, 0}, {0, 1, 1}, {2, 5, 3}, {2, 5, 1}, "
            "{2, 4, 3}, {1, -2}, {1065353216}, {1} )");
}

TEST(XlaBuilderTest, ShapeOps) {
  XlaBuilder b("shapes");
  XlaOp m = ConstantR2<int32_t>(&b, {{1, 2, 3}, {4, 5, 6}});
  Tuple(&b, {Broadcast(ConstantR1<int32_t>(&b, {7, 8}), {2}),
             BroadcastInDim(ConstantR1<int32_t>(&b, {7, 8}), {2, 3}, {0}), Reshape(m, {3, 2}),
             Transpose(m, {1, 0}), Rev(m, {1}), Slice(m, {0, 1}, {2, 3}, {1, 1}),
             SliceInDim(m, 0, 3, 2, 1), ConcatInDim(&b, {m, m}, 0),
             PadInDim(m, ConstantR0<int32_t>(&b, 0), 1, 1, 0), Iota(&b, S32, 4),
             Iota(&b, Shape::MakeArray(S32, {2, 2}), 1)});
  EXPECT_EQ(Evaluate(b),
            "( { { 7, 8 }, { 7, 8 } }, { { 7, 7, 7 }, { 8, 8, 8 } }, { { 1, 2 }, { 3, 4 }, { 5, 6 } }, "
            "{ { 1, 4 }, { 2, 5 }, { 3, 6 } }, { { 3, 2, 1 }, { 6, 5, 4 } }, { { 2, 3 }, { 5, 6 } }, "
            "{ { 1, 3 }, { 4, 6 } }, { { 1, 2, 3 }, { 4, 5, 6 }, { 1, 2, 3 }, { 4, 5, 6 } }, "
            "{ { 0, 1, 2, 3 }, { 0, 4, 5, 6 } }, {0, 1, 2, 3}, { { 0, 1 }, { 0, 1 } } )");
}

TEST(XlaBuilderTest, DynamicSlices) {
  XlaBuilder b("dynamic");
  XlaOp v = Iota(&b, F32, 6);
  XlaOp start = Parameter(&b, 0, Shape::MakeArray(S32, {}), "start");
  XlaOp window = DynamicSlice(v, {start}, {3});
  Tuple(&b, {window, DynamicUpdateSlice(v, ConstantR1<float>(&b, {-1, -2}), {start})});
  EXPECT_EQ(Evaluate(b, {Literal::CreateR0<int32_t>(2)}), "( {2, 3, 4}, {0, 1, -1, -2, 4, 5} )");
  // Starts past the end are clamped as in XLA.
  XlaBuilder c("clamped");
  DynamicSlice(Iota(&c, F32, 6), {ConstantR0<int32_t>(&c, 5)}, {3});
  EXPECT_EQ(Evaluate(c), "{3, 4, 5}");
}

TEST(XlaBuilderTest, DotsAndConvolutions) {
  XlaBuilder b("linear");
  XlaOp m = ConstantR2<float>(&b, {{1, 2}, {3, 4}});
  XlaOp v = ConstantR1<float>(&b, {1, 1});
  DotDimensionNumbers batched;
  batched.lhs_batch_dimensions = {0};
  batched.rhs_batch_dimensions = {0};
  batched.lhs_contracting_dimensions = {2};
  batched.rhs_contracting_dimensions = {1};
  XlaOp batch = Reshape(m, {1, 2, 2});
  // A 1x1x3x3 image of ones and a 1x1x2x2 kernel of ones: window sums.
  XlaOp image = Broadcast(ConstantR0<float>(&b, 1), {1, 1, 3, 3});
  XlaOp kernel = Broadcast(ConstantR0<float>(&b, 1), {1, 1, 2, 2});
  XlaOp valid = Conv(image, kernel, {1, 1}, Padding::kValid);
  XlaOp same = Conv(image, kernel, {1, 1}, Padding::kSame);
  XlaOp dilated = ConvGeneralDilated(image, kernel, {1, 1}, {{0, 0}, {0, 0}}, {}, {2, 2},
                                     CreateDefaultConvDimensionNumbers(2));
  EXPECT_EQ(ShapeOf(b, same), "f32[1,1,3,3]{3,2,1,0}");
  Tuple(&b, {Dot(m, v), Dot(m, m), DotGeneral(batch, batch, batched),
             Dot(ConstantR1<int32_t>(&b, {1, 2}), ConstantR1<int32_t>(&b, {3, 4})),
             Reshape(valid, {4}), Reshape(same, {9}), Reshape(dilated, {1})});
  EXPECT_EQ(Evaluate(b),
            "( {3, 7}, { { 7, 10 }, { 15, 22 } }, { { { 7, 10 }, { 15, 22 } } }, 11, "
            "{4, 4, 4, 4}, {4, 4, 2, 4, 4, 2, 2, 2, 1}, {4} )");
}

TEST(XlaBuilderTest, ReductionsAndWindows) {
  XlaBuilder b("reduce");
  XlaOp m = ConstantR2<float>(&b, {{1, 5, 3}, {4, 2, 6}});
  XlaComputation add = CreateScalarAddComputation(F32, &b);
  XlaComputation max = CreateScalarMaxComputation(F32, &b);
  XlaComputation min = CreateScalarMinComputation(F32, &b);
  XlaComputation mul = CreateScalarMultiplyComputation(F32, &b);
  XlaOp zero = ConstantR0<float>(&b, 0);
  Tuple(&b, {Reduce(m, zero, add, {1}), Reduce(m, ConstantR0<float>(&b, -INFINITY), max, {0}),
             ReduceAll(m, ConstantR0<float>(&b, INFINITY), min),
             ReduceAll(m, ConstantR0<float>(&b, 1), mul),
             ReduceWindow(m, ConstantR0<float>(&b, -INFINITY), max, {1, 2}, {1, 1},
                          Padding::kValid),
             ReduceWindow(m, zero, add, {2, 2}, {1, 1}, Padding::kSame),
             Map(&b, {m, m}, add, {0, 1})});
  EXPECT_EQ(Evaluate(b),
            "( {9, 12}, {4, 5, 6}, 1, 720, { { 5, 5 }, { 4, 6 } }, { { 12, 16, 9 }, { 6, 8, 6 } }, "
            "{ { 2, 10, 6 }, { 8, 4, 12 } } )");
}

TEST(XlaBuilderTest, VariadicReduceIsArgmax) {
  XlaBuilder b("argmax");
  std::unique_ptr<XlaBuilder> r = b.CreateSubBuilder("argmax_reducer");
  XlaOp av = Parameter(r.get(), 0, kF32Scalar, "av");
  XlaOp ai = Parameter(r.get(), 1, Shape::MakeArray(S32, {}), "ai");
  XlaOp bv = Parameter(r.get(), 2, kF32Scalar, "bv");
  XlaOp bi = Parameter(r.get(), 3, Shape::MakeArray(S32, {}), "bi");
  XlaOp take_a = Ge(av, bv);
  Tuple(r.get(), {Select(take_a, av, bv), Select(take_a, ai, bi)});
  absl::StatusOr<XlaComputation> reducer = r->Build();
  ASSERT_TRUE(reducer.ok()) << reducer.status();
  XlaOp m = ConstantR2<float>(&b, {{1, 5, 3}, {4, 2, 6}});
  XlaOp index = Iota(&b, Shape::MakeArray(S32, {2, 3}), 1);
  XlaOp result = Reduce(&b, {m, index},
                        {ConstantR0<float>(&b, -INFINITY), ConstantR0<int32_t>(&b, 0)}, *reducer,
                        {1});
  EXPECT_EQ(ShapeOf(b, result), "(f32[2]{0}, s32[2]{0})");
  EXPECT_EQ(Evaluate(b), "( {5, 6}, {1, 2} )");
}

TEST(XlaBuilderTest, GatherScatterAndSort) {
  XlaBuilder b("indexing");
  XlaOp table = ConstantR2<float>(&b, {{1, 2}, {3, 4}, {5, 6}});
  XlaOp ids = ConstantR1<int32_t>(&b, {2, 0, 2});
  GatherDimensionNumbers gather;
  gather.offset_dims = {1};
  gather.collapsed_slice_dims = {0};
  gather.start_index_map = {0};
  gather.index_vector_dim = 1;
  XlaOp rows = Gather(table, ids, gather, {1, 2});
  ScatterDimensionNumbers scatter;
  scatter.update_window_dims = {1};
  scatter.inserted_window_dims = {0};
  scatter.scatter_dims_to_operand_dims = {0};
  scatter.index_vector_dim = 1;
  XlaOp accumulated = Scatter(table, ids, rows, CreateScalarAddComputation(F32, &b), scatter);
  std::unique_ptr<XlaBuilder> c2 = b.CreateSubBuilder("descending");
  XlaOp a = Parameter(c2.get(), 0, kF32Scalar, "a");
  XlaOp bb = Parameter(c2.get(), 1, kF32Scalar, "b");
  Parameter(c2.get(), 2, Shape::MakeArray(S32, {}), "i");
  Parameter(c2.get(), 3, Shape::MakeArray(S32, {}), "j");
  absl::StatusOr<XlaComputation> comparator = c2->Build(Gt(a, bb));
  ASSERT_TRUE(comparator.ok()) << comparator.status();
  XlaOp sorted =
      Sort({ConstantR1<float>(&b, {3, 1, 2}), Iota(&b, S32, 3)}, *comparator, -1, true);
  Tuple(&b, {rows, accumulated, GetTupleElement(sorted, 0), GetTupleElement(sorted, 1)});
  EXPECT_EQ(Evaluate(b),
            "( { { 5, 6 }, { 1, 2 }, { 5, 6 } }, { { 2, 4 }, { 3, 4 }, { 15, 18 } }, {3, 2, 1}, "
            "{0, 2, 1} )");
}

TEST(XlaBuilderTest, PoolingGradientTopKAndPrecision) {
  XlaBuilder b("more");
  // Max pooling's gradient: each 2x2 window's source goes to its maximum.
  XlaOp x = ConstantR2<float>(&b, {{1, 5, 2, 0}, {3, 2, 7, 8}});
  std::unique_ptr<XlaBuilder> ge = b.CreateSubBuilder("ge");
  Ge(Parameter(ge.get(), 0, kF32Scalar, "a"), Parameter(ge.get(), 1, kF32Scalar, "b"));
  XlaComputation select = *ge->Build();
  XlaOp grad = SelectAndScatter(x, select, {2, 2}, {2, 2}, Padding::kValid,
                                ConstantR2<float>(&b, {{10, 20}}), ConstantR0<float>(&b, 0),
                                CreateScalarAddComputation(F32, &b));
  XlaOp top = TopK(ConstantR1<float>(&b, {3, 1, 4, 1, 5}), 2);
  XlaOp bottom = TopK(ConstantR1<int32_t>(&b, {3, 1, 4}), 2, /*largest=*/false);
  Tuple(&b, {grad, GetTupleElement(top, 0), GetTupleElement(top, 1),
             GetTupleElement(bottom, 0), ReducePrecision(ConstantR0<float>(&b, 1.1f), 5, 10),
             OptimizationBarrier(Tuple(&b, {ConstantR0<int32_t>(&b, 7)}))});
  EXPECT_EQ(Evaluate(b),
            "( { { 0, 10, 0, 0 }, { 0, 0, 0, 20 } }, {5, 4}, {4, 2}, {1, 3}, 1.0996094, ( 7 ) )");
}

TEST(XlaBuilderTest, ControlFlow) {
  XlaBuilder b("control");
  const Shape state = Shape::MakeTuple({Shape::MakeArray(S32, {}), kF32Scalar});
  // while (i < 5) { i += 1; x *= 2 }
  std::unique_ptr<XlaBuilder> cond = b.CreateSubBuilder("cond");
  Lt(GetTupleElement(Parameter(cond.get(), 0, state, "s"), 0), ConstantR0<int32_t>(cond.get(), 5));
  std::unique_ptr<XlaBuilder> body = b.CreateSubBuilder("body");
  XlaOp s = Parameter(body.get(), 0, state, "s");
  Tuple(body.get(), {Add(GetTupleElement(s, 0), ConstantR0<int32_t>(body.get(), 1)),
                     Mul(GetTupleElement(s, 1), ConstantR0<float>(body.get(), 2))});
  absl::StatusOr<XlaComputation> cond_computation = cond->Build();
  absl::StatusOr<XlaComputation> body_computation = body->Build();
  ASSERT_TRUE(cond_computation.ok() && body_computation.ok());
  XlaOp loop = While(*cond_computation, *body_computation,
                     Tuple(&b, {ConstantR0<int32_t>(&b, 0), ConstantR0<float>(&b, 1.5)}));
  // Branches: negate or exponentiate, picked by a predicate and an index.
  std::unique_ptr<XlaBuilder> negate = b.CreateSubBuilder("negate");
  Neg(Parameter(negate.get(), 0, kF32Scalar, "x"));
  std::unique_ptr<XlaBuilder> twice = b.CreateSubBuilder("twice");
  Add(Parameter(twice.get(), 0, kF32Scalar, "x"), Parameter(twice.get(), 0, kF32Scalar, "y"));
  EXPECT_THAT(twice->Build().status().message(), HasSubstr("parameter 0 is already defined"));
  std::unique_ptr<XlaBuilder> doubled = b.CreateSubBuilder("doubled");
  XlaOp dx = Parameter(doubled.get(), 0, kF32Scalar, "x");
  Add(dx, dx);
  XlaComputation negate_computation = *negate->Build();
  XlaComputation doubled_computation = *doubled->Build();
  XlaOp x = ConstantR0<float>(&b, 3);
  XlaOp by_predicate = Conditional(ConstantR0<bool>(&b, true), x, negate_computation, x,
                                   doubled_computation);
  const XlaComputation* branches[] = {&negate_computation, &doubled_computation};
  XlaOp by_index = Conditional(ConstantR0<int32_t>(&b, 7), branches, {x, x});  // out of range
  XlaOp called = Call(&b, doubled_computation, {x});
  Tuple(&b, {GetTupleElement(loop, 1), by_predicate, by_index, called});
  EXPECT_EQ(Evaluate(b), "( 48, -3, 6, 6 )");
}

TEST(XlaBuilderTest, BuiltModuleRoundTripsThroughXlasProto) {
  XlaBuilder b("softmax");
  XlaOp x = Parameter(&b, 0, Shape::MakeArray(F32, {2, 3}), "x");
  XlaOp max = Reduce(x, ConstantR0<float>(&b, -INFINITY), CreateScalarMaxComputation(F32, &b), {1});
  XlaOp e = Exp(Sub(x, max, {0}));
  Div(e, Reduce(e, ConstantR0<float>(&b, 0), CreateScalarAddComputation(F32, &b), {1}), {0});
  absl::StatusOr<XlaComputation> softmax = b.Build();
  ASSERT_TRUE(softmax.ok()) << softmax.status();
  EXPECT_EQ(softmax->GetProgramShape().ToString(), "(f32[2,3]{1,0})->f32[2,3]{1,0}");
  absl::StatusOr<xla::HloModuleProto> proto = softmax->proto();
  ASSERT_TRUE(proto.ok()) << proto.status();
  absl::StatusOr<std::unique_ptr<HloModule>> imported = ImportHloModuleProto(*proto);
  ASSERT_TRUE(imported.ok()) << imported.status();
  const Literal input = Literal::CreateFromVector<float>({2, 3}, {1, 2, 3, 0, 0, 0});
  absl::StatusOr<Literal> direct = EvaluateModule(softmax->module(), {input});
  absl::StatusOr<Literal> via_proto = EvaluateModule(**imported, {input});
  ASSERT_TRUE(direct.ok() && via_proto.ok());
  EXPECT_EQ(*direct, *via_proto);
  EXPECT_EQ(direct->ToStringWithoutShape(),
            "{ { 0.09003057, 0.24472848, 0.66524094 }, { 0.33333334, 0.33333334, 0.33333334 } }");
  // A copy of the module is independent of the computation.
  std::unique_ptr<HloModule> copy = softmax->CloneModule();
  EXPECT_EQ(PrintHloModule(*copy), PrintHloModule(softmax->module()));
}

// --- Build-time errors: each names the failing op and the problem. ---

TEST(XlaBuilderErrorsTest, IncompatibleShapesNameTheOp) {
  XlaBuilder b("bad_add");
  XlaOp x = Parameter(&b, 0, Shape::MakeArray(F32, {2}), "x");
  XlaOp y = Parameter(&b, 1, Shape::MakeArray(F32, {3}), "y");
  XlaOp sum = Add(x, y);
  EXPECT_FALSE(sum.valid());
  EXPECT_THAT(std::string(b.first_error().message()), HasSubstr("Add"));
  EXPECT_THAT(std::string(b.first_error().message()), HasSubstr("f32[2]"));
  EXPECT_THAT(std::string(b.first_error().message()), HasSubstr("f32[3]"));
  // Later ops are no-ops; the first error stays and Build returns it.
  Neg(x);
  absl::StatusOr<XlaComputation> built = b.Build();
  EXPECT_FALSE(built.ok());
  EXPECT_EQ(built.status(), b.first_error());
  EXPECT_EQ(built.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(XlaBuilderErrorsTest, EachOpFamilyReportsItsProblem) {
  struct Case {
    std::string name;
    std::function<void(XlaBuilder&)> build;
    std::vector<std::string> expected;
  };
  const Shape f32_2x3 = Shape::MakeArray(F32, {2, 3});
  const std::vector<Case> cases = {
      {"dot", [&](XlaBuilder& b) { Dot(Parameter(&b, 0, f32_2x3, "a"), Parameter(&b, 1, f32_2x3, "b")); },
       {"DotGeneral", "contracting"}},
      {"reshape", [&](XlaBuilder& b) { Reshape(Parameter(&b, 0, f32_2x3, "a"), {4}); },
       {"Reshape", "f32[4]"}},
      {"transpose", [&](XlaBuilder& b) { Transpose(Parameter(&b, 0, f32_2x3, "a"), {0, 0}); },
       {"Transpose"}},
      {"slice", [&](XlaBuilder& b) { Slice(Parameter(&b, 0, f32_2x3, "a"), {0, 0}, {3, 3}, {1, 1}); },
       {"Slice"}},
      {"slice_arity", [&](XlaBuilder& b) { Slice(Parameter(&b, 0, f32_2x3, "a"), {0}, {1, 1}, {1, 1}); },
       {"Slice", "1 start indices"}},
      {"broadcast_dims", [&](XlaBuilder& b) {
         Add(Parameter(&b, 0, f32_2x3, "a"), Parameter(&b, 1, Shape::MakeArray(F32, {3}), "v"));
       },
       {"Add", "broadcast_dimensions"}},
      {"broadcast_range", [&](XlaBuilder& b) {
         Add(Parameter(&b, 0, f32_2x3, "a"), Parameter(&b, 1, Shape::MakeArray(F32, {3}), "v"), {5});
       },
       {"Add", "broadcast dimension 5 is out of range"}},
      {"select", [&](XlaBuilder& b) {
         XlaOp a = Parameter(&b, 0, f32_2x3, "a");
         Select(a, a, a);
       },
       {"Select"}},
      {"convert", [&](XlaBuilder& b) { ConvertElementType(Parameter(&b, 0, f32_2x3, "a"), TUPLE); },
       {"ConvertElementType"}},
      {"concat", [&](XlaBuilder& b) {
         ConcatInDim(&b, {Parameter(&b, 0, f32_2x3, "a"), Parameter(&b, 1, Shape::MakeArray(F32, {2, 3, 1}), "b")}, 0);
       },
       {"ConcatInDim"}},
      {"reduce_computation", [&](XlaBuilder& b) {
         Reduce(Parameter(&b, 0, f32_2x3, "a"), ConstantR0<int32_t>(&b, 0),
                CreateScalarAddComputation(F32, &b), {0});
       },
       {"Reduce"}},
      {"invalid_computation", [&](XlaBuilder& b) {
         Reduce(Parameter(&b, 0, f32_2x3, "a"), ConstantR0<float>(&b, 0), XlaComputation(), {0});
       },
       {"Reduce", "invalid XlaComputation"}},
      {"gte", [&](XlaBuilder& b) { GetTupleElement(Parameter(&b, 0, f32_2x3, "a"), 0); },
       {"GetTupleElement"}},
      {"while_body", [&](XlaBuilder& b) {
         std::unique_ptr<XlaBuilder> cond = b.CreateSubBuilder("cond");
         Lt(Parameter(cond.get(), 0, Shape::MakeArray(S32, {}), "i"), ConstantR0<int32_t>(cond.get(), 3));
         std::unique_ptr<XlaBuilder> body = b.CreateSubBuilder("body");
         ConvertElementType(Parameter(body.get(), 0, Shape::MakeArray(S32, {}), "i"), F32);
         While(*cond->Build(), *body->Build(), ConstantR0<int32_t>(&b, 0));
       },
       {"While"}},
      {"dynamic_slice", [&](XlaBuilder& b) {
         DynamicSlice(Parameter(&b, 0, f32_2x3, "a"), {ConstantR0<int32_t>(&b, 0)}, {1, 1});
       },
       {"DynamicSlice"}},
      {"negative_dimension", [&](XlaBuilder& b) {
         Parameter(&b, 0, Shape::MakeArray(F32, {-2}), "a");
       },
       {"Parameter"}},
      {"conv_rank", [&](XlaBuilder& b) {
         Conv(Parameter(&b, 0, f32_2x3, "a"), Parameter(&b, 1, Shape::MakeArray(F32, {1, 1, 1, 1}), "k"),
              {1, 1}, Padding::kValid);
       },
       {"Conv", "equal rank"}},
      {"window_arity", [&](XlaBuilder& b) {
         ReduceWindow(Parameter(&b, 0, f32_2x3, "a"), ConstantR0<float>(&b, 0),
                      CreateScalarAddComputation(F32, &b), {2}, {1}, Padding::kValid);
       },
       {"ReduceWindow", "one window size"}},
  };
  for (const Case& c : cases) {
    XlaBuilder b(c.name);
    c.build(b);
    absl::StatusOr<XlaComputation> built = b.Build();
    ASSERT_FALSE(built.ok()) << c.name;
    for (const std::string& part : c.expected) {
      EXPECT_THAT(std::string(built.status().message()), HasSubstr(part)) << c.name;
    }
  }
}

TEST(XlaBuilderErrorsTest, OpsFromAnotherBuilderOrAfterBuild) {
  XlaBuilder a("a");
  XlaBuilder b("b");
  XlaOp x = Parameter(&a, 0, kF32Scalar, "x");
  XlaOp y = Parameter(&b, 0, kF32Scalar, "y");
  EXPECT_FALSE(Add(y, x).valid());
  EXPECT_THAT(std::string(b.first_error().message()), HasSubstr("belongs to builder a, not b"));

  XlaBuilder c("c");
  EXPECT_THAT(std::string(c.Build().status().message()), HasSubstr("no ops"));
  XlaOp z = Parameter(&c, 0, kF32Scalar, "z");
  ASSERT_TRUE(c.Build().ok());
  EXPECT_FALSE(Neg(z).valid());
  EXPECT_THAT(std::string(c.first_error().message()), HasSubstr("already been built"));

  XlaBuilder d("d");
  Parameter(&d, 1, kF32Scalar, "only_the_second");
  EXPECT_THAT(std::string(d.Build().status().message()), HasSubstr("parameter"));
  EXPECT_THAT(std::string(d.GetShape(XlaOp()).status().message()), HasSubstr("invalid XlaOp"));
}

}  // namespace
}  // namespace tessera
