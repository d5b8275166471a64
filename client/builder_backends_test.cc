// Computations built with XlaBuilder, one per op family, compiled through
// LocalClient for the CPU backend and run on seeded random inputs: the
// results match the interpreter's (the reference evaluator's).
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "client/local_client.h"
#include "client/xla_builder.h"
#include "gtest/gtest.h"
#include "hlo/ir/random_literal.h"

namespace tessera {
namespace {

Shape F32(std::vector<int64_t> dimensions) { return Shape::MakeArray(tessera::F32, std::move(dimensions)); }
Shape S32(std::vector<int64_t> dimensions) { return Shape::MakeArray(tessera::S32, std::move(dimensions)); }

struct Program {
  std::string name;
  std::function<void(XlaBuilder&)> build;
};

std::vector<Program> Programs() {
  return {
      {"elementwise",
       [](XlaBuilder& b) {
         XlaOp x = Parameter(&b, 0, F32({33, 17}), "x");
         XlaOp y = Parameter(&b, 1, F32({17}), "y");
         XlaOp z = Add(Mul(Tanh(x), Exp(Neg(Abs(x)))), y, {1});
         Tuple(&b, {Max(z, ConstantR0<float>(&b, 0.1f)), Select(Gt(x, z), Sqrt(Abs(x)), Log1p(Abs(z))),
                    Clamp(ConstantR0<float>(&b, -0.5f), Sub(x, Floor(x)), ConstantR0<float>(&b, 0.5f)),
                    Logistic(Div(x, Add(Abs(z), ConstantR0<float>(&b, 1))))});
       }},
      {"integers",
       [](XlaBuilder& b) {
         XlaOp i = Parameter(&b, 0, S32({100}), "i");
         XlaOp j = Parameter(&b, 1, S32({100}), "j");
         Tuple(&b, {And(Xor(i, j), ShiftLeft(i, ConstantR0<int32_t>(&b, 3))),
                    ShiftRightLogical(i, Rem(Abs(j), ConstantR0<int32_t>(&b, 31))),
                    ConvertElementType(Min(i, j), tessera::F32), PopulationCount(i), Clz(j)});
       }},
      {"shapes",
       [](XlaBuilder& b) {
         XlaOp x = Parameter(&b, 0, F32({4, 6, 5}), "x");
         XlaOp t = Transpose(x, {2, 0, 1});
         XlaOp r = Reshape(t, {20, 6});
         XlaOp s = Slice(r, {1, 0}, {19, 6}, {3, 2});
         XlaOp c = ConcatInDim(&b, {s, Rev(s, {0})}, 1);
         Tuple(&b, {c, Pad(r, ConstantR0<float>(&b, -1), PaddingConfig{{{1, 2, 1}, {0, -1, 0}}}),
                    BroadcastInDim(Reshape(x, {120}), {2, 120}, {1}),
                    DynamicSlice(x, {ConstantR0<int32_t>(&b, 3), ConstantR0<int32_t>(&b, 1),
                                     ConstantR0<int32_t>(&b, 9)},
                                 {2, 3, 2}),
                    DynamicUpdateSlice(x, Broadcast(ConstantR0<float>(&b, 7), {1, 2, 5}),
                                       {ConstantR0<int32_t>(&b, 2), ConstantR0<int32_t>(&b, 4),
                                        ConstantR0<int32_t>(&b, 0)})});
       }},
      {"dots",
       [](XlaBuilder& b) {
         XlaOp a = Parameter(&b, 0, F32({3, 40, 24}), "a");
         XlaOp w = Parameter(&b, 1, F32({24, 16}), "w");
         DotDimensionNumbers batch;
         batch.lhs_batch_dimensions = {0};
         batch.rhs_batch_dimensions = {0};
         batch.lhs_contracting_dimensions = {2};
         batch.rhs_contracting_dimensions = {2};
         XlaOp flat = Reshape(a, {120, 24});
         Tuple(&b, {Tanh(Dot(flat, w)), DotGeneral(a, a, batch)});
       }},
      {"convolution",
       [](XlaBuilder& b) {
         XlaOp image = Parameter(&b, 0, F32({2, 3, 11, 9}), "image");
         XlaOp kernel = Parameter(&b, 1, F32({4, 3, 3, 3}), "kernel");
         Tuple(&b, {Conv(image, kernel, {1, 1}, Padding::kSame),
                    Conv(image, kernel, {2, 1}, Padding::kValid),
                    ConvGeneralDilated(image, kernel, {1, 1}, {{1, 1}, {2, 2}}, {}, {2, 2},
                                       CreateDefaultConvDimensionNumbers(2))});
       }},
      {"reductions",
       [](XlaBuilder& b) {
         XlaOp x = Parameter(&b, 0, F32({16, 70}), "x");
         XlaComputation add = CreateScalarAddComputation(tessera::F32, &b);
         XlaComputation max = CreateScalarMaxComputation(tessera::F32, &b);
         XlaOp m = Reduce(x, ConstantR0<float>(&b, -INFINITY), max, {1});
         XlaOp e = Exp(Sub(x, m, {0}));
         Tuple(&b, {Div(e, Reduce(e, ConstantR0<float>(&b, 0), add, {1}), {0}),
                    Reduce(x, ConstantR0<float>(&b, 0), add, {0}),
                    ReduceWindow(x, ConstantR0<float>(&b, -INFINITY), max, {2, 3}, {2, 2},
                                 Padding::kSame)});
       }},
      {"indexing",
       [](XlaBuilder& b) {
         XlaOp table = Parameter(&b, 0, F32({50, 8}), "table");
         XlaOp ids = Rem(Abs(Parameter(&b, 1, S32({12}), "ids")), ConstantR0<int32_t>(&b, 50));
         GatherDimensionNumbers gather;
         gather.offset_dims = {1};
         gather.collapsed_slice_dims = {0};
         gather.start_index_map = {0};
         gather.index_vector_dim = 1;
         XlaOp rows = Gather(table, ids, gather, {1, 8});
         ScatterDimensionNumbers scatter;
         scatter.update_window_dims = {1};
         scatter.inserted_window_dims = {0};
         scatter.scatter_dims_to_operand_dims = {0};
         scatter.index_vector_dim = 1;
         XlaOp updated =
             Scatter(table, ids, rows, CreateScalarAddComputation(tessera::F32, &b), scatter);
         std::unique_ptr<XlaBuilder> less = b.CreateSubBuilder("less");
         Lt(Parameter(less.get(), 0, F32({}), "a"), Parameter(less.get(), 1, F32({}), "b"));
         XlaComputation comparator = *less->Build();
         Tuple(&b, {rows, updated, Sort({Reshape(table, {400})}, comparator)});
       }},
      {"pooling",
       [](XlaBuilder& b) {
         XlaOp x = Parameter(&b, 0, F32({2, 12, 10, 3}), "x");
         XlaComputation max = CreateScalarMaxComputation(tessera::F32, &b);
         XlaOp pooled = ReduceWindow(x, ConstantR0<float>(&b, -INFINITY), max, {1, 3, 3, 1},
                                     {1, 2, 2, 1}, Padding::kSame);
         std::unique_ptr<XlaBuilder> ge = b.CreateSubBuilder("ge");
         Ge(Parameter(ge.get(), 0, F32({}), "a"), Parameter(ge.get(), 1, F32({}), "b"));
         XlaComputation select = *ge->Build();
         XlaOp gradient = SelectAndScatter(x, select, {1, 3, 3, 1}, {1, 2, 2, 1}, Padding::kSame,
                                           Tanh(pooled), ConstantR0<float>(&b, 0),
                                           CreateScalarAddComputation(tessera::F32, &b));
         XlaOp top = TopK(Reshape(x, {24, 30}), 5);
         Tuple(&b, {pooled, gradient, GetTupleElement(top, 0), GetTupleElement(top, 1)});
       }},
      {"control_flow",
       [](XlaBuilder& b) {
         const Shape state = Shape::MakeTuple({S32({}), F32({32})});
         std::unique_ptr<XlaBuilder> cond = b.CreateSubBuilder("cond");
         Lt(GetTupleElement(Parameter(cond.get(), 0, state, "s"), 0), ConstantR0<int32_t>(cond.get(), 7));
         std::unique_ptr<XlaBuilder> body = b.CreateSubBuilder("body");
         XlaOp s = Parameter(body.get(), 0, state, "s");
         Tuple(body.get(), {Add(GetTupleElement(s, 0), ConstantR0<int32_t>(body.get(), 1)),
                            Sin(Add(GetTupleElement(s, 1), ConstantR0<float>(body.get(), 0.5f)))});
         XlaOp x = Parameter(&b, 0, F32({32}), "x");
         XlaOp loop = While(*cond->Build(), *body->Build(), Tuple(&b, {ConstantR0<int32_t>(&b, 0), x}));
         std::unique_ptr<XlaBuilder> negate = b.CreateSubBuilder("negate");
         Neg(Parameter(negate.get(), 0, F32({32}), "v"));
         std::unique_ptr<XlaBuilder> square = b.CreateSubBuilder("square");
         Square(Parameter(square.get(), 0, F32({32}), "v"));
         XlaComputation negate_computation = *negate->Build();
         XlaComputation square_computation = *square->Build();
         XlaOp picked = Conditional(Gt(Reduce(x, ConstantR0<float>(&b, 0),
                                              CreateScalarAddComputation(tessera::F32, &b), {0}),
                                       ConstantR0<float>(&b, 0)),
                                    x, negate_computation, x, square_computation);
         Tuple(&b, {GetTupleElement(loop, 1), picked, Call(&b, square_computation, {picked})});
       }},
  };
}

class BuilderBackendsTest : public ::testing::TestWithParam<int> {};

TEST_P(BuilderBackendsTest, CpuMatchesTheInterpreter) {
  const Program program = Programs()[GetParam()];
  XlaBuilder builder(program.name);
  program.build(builder);
  absl::StatusOr<XlaComputation> computation = builder.Build();
  ASSERT_TRUE(computation.ok()) << computation.status();
  std::unique_ptr<LocalClient> client = *LocalClient::Create();
  CompileOptions cpu, interpreter;
  cpu.backend = "cpu";
  cpu.polynomial_math = false;
  interpreter.backend = "interpreter";
  absl::StatusOr<std::unique_ptr<LoadedExecutable>> fast = client->Compile(*computation, cpu);
  absl::StatusOr<std::unique_ptr<LoadedExecutable>> reference =
      client->Compile(*computation, interpreter);
  ASSERT_TRUE(fast.ok()) << fast.status();
  ASSERT_TRUE(reference.ok()) << reference.status();
  std::mt19937_64 random(GetParam() + 1);
  for (int trial = 0; trial < 2; ++trial) {
    std::vector<Literal> arguments;
    for (const Shape& parameter : computation->GetProgramShape().parameters) {
      arguments.push_back(*MakeRandomLiteral(parameter, random));
    }
    absl::StatusOr<Literal> want = (*reference)->Execute(arguments);
    absl::StatusOr<Literal> got = (*fast)->Execute(arguments);
    ASSERT_TRUE(want.ok()) << want.status();
    ASSERT_TRUE(got.ok()) << got.status();
    std::vector<const Literal*> a = want->Leaves(), c = got->Leaves();
    ASSERT_EQ(a.size(), c.size());
    for (size_t i = 0; i < a.size(); ++i) {
      ASSERT_EQ(a[i]->element_count(), c[i]->element_count());
      for (int64_t k = 0; k < a[i]->element_count(); ++k) {
        const double x = a[i]->GetAsDouble(k), y = c[i]->GetAsDouble(k);
        if (std::isnan(x)) {
          EXPECT_TRUE(std::isnan(y)) << program.name << " output " << i << " element " << k;
          continue;
        }
        // GEMMs and convolutions sum in another order.
        EXPECT_NEAR(y, x, 1e-4 * (1 + std::abs(x)))
            << program.name << " output " << i << " element " << k;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Programs, BuilderBackendsTest,
                         ::testing::Range(0, static_cast<int>(Programs().size())),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return Programs()[info.param].name;
                         });

}  // namespace
}  // namespace tessera
