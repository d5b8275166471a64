#include "client/local_client.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/evaluator/hlo_evaluator.h"
#include "hlo/parser/hlo_parser.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

// out = tanh(x · w + b) and its row sums: a dot with an epilogue and a
// reduction, a tuple of two outputs.
XlaComputation DenseLayer() {
  XlaBuilder b("dense");
  XlaOp x = Parameter(&b, 0, Shape::MakeArray(F32, {4, 3}), "x");
  XlaOp w = Parameter(&b, 1, Shape::MakeArray(F32, {3, 2}), "w");
  XlaOp bias = Parameter(&b, 2, Shape::MakeArray(F32, {2}), "b");
  XlaOp y = Tanh(Add(Dot(x, w), bias, {1}));
  Tuple(&b, {y, Reduce(y, ConstantR0<float>(&b, 0), CreateScalarAddComputation(F32, &b), {1})});
  return *b.Build();
}

std::vector<Literal> DenseInputs() {
  return {Literal::CreateFromVector<float>({4, 3}, {1, 2, 3, 4, 5, 6, -1, -2, -3, 0, 0.5, 1}),
          Literal::CreateFromVector<float>({3, 2}, {0.1, -0.2, 0.3, 0.1, -0.1, 0.05}),
          Literal::CreateR1<float>({0.01, -0.02})};
}

TEST(LocalClientTest, CompilesAndRunsOnEveryBackend) {
  std::unique_ptr<LocalClient> client = *LocalClient::Create();
  XlaComputation dense = DenseLayer();
  absl::StatusOr<Literal> expected = EvaluateModule(dense.module(), DenseInputs());
  ASSERT_TRUE(expected.ok()) << expected.status();
  for (const std::string& backend : LocalClient::Backends()) {
    CompileOptions options;
    options.backend = backend;
    options.polynomial_math = false;
    absl::StatusOr<std::unique_ptr<LoadedExecutable>> executable = client->Compile(dense, options);
    ASSERT_TRUE(executable.ok()) << backend << ": " << executable.status();
    EXPECT_EQ((*executable)->program_shape().ToString(),
              "(f32[4,3]{1,0}, f32[3,2]{1,0}, f32[2]{0})->(f32[4,2]{1,0}, f32[4]{0})");
    absl::StatusOr<Literal> result = (*executable)->Execute(DenseInputs());
    ASSERT_TRUE(result.ok()) << backend << ": " << result.status();
    // The CPU GEMM sums in another order: a few ulps.
    const std::vector<const Literal*> got = {&result->tuple_element(0), &result->tuple_element(1)};
    const std::vector<const Literal*> want = {&expected->tuple_element(0),
                                              &expected->tuple_element(1)};
    for (int k = 0; k < 2; ++k) {
      for (int64_t i = 0; i < want[k]->element_count(); ++i) {
        EXPECT_NEAR(got[k]->GetAsDouble(i), want[k]->GetAsDouble(i), 1e-6) << backend;
      }
    }
  }
}

TEST(LocalClientTest, DeviceBuffersStayBetweenCallsAndDonationUpdatesInPlace) {
  // w <- w - 0.5 * x: a parameter update the caller donates every step.
  XlaBuilder b("sgd");
  XlaOp w = Parameter(&b, 0, Shape::MakeArray(F32, {1024}), "w");
  XlaOp x = Parameter(&b, 1, Shape::MakeArray(F32, {1024}), "x");
  Sub(w, Mul(x, ConstantR0<float>(&b, 0.5)));
  std::unique_ptr<LocalClient> client = *LocalClient::Create();
  CompileOptions options;
  options.donatable_parameters = {0};
  std::unique_ptr<LoadedExecutable> step = *client->Compile(*b.Build(), options);

  std::vector<float> ones(1024, 1.0f);
  std::unique_ptr<DeviceBuffer> weights =
      *client->TransferToDevice(Literal::CreateR1<float>(absl::MakeConstSpan(std::vector<float>(1024, 10))));
  std::unique_ptr<DeviceBuffer> gradient =
      *client->TransferToDevice(Literal::CreateR1<float>(absl::MakeConstSpan(ones)));
  ExecuteOptions donate;
  donate.donated_arguments = {0};
  for (int i = 0; i < 4; ++i) {
    const void* before = weights->leaf_data(0);
    absl::StatusOr<std::vector<std::unique_ptr<DeviceBuffer>>> outputs =
        step->ExecuteBuffers({weights.get(), gradient.get()}, donate);
    ASSERT_TRUE(outputs.ok()) << outputs.status();
    ASSERT_EQ(outputs->size(), 1u);
    EXPECT_TRUE(weights->is_deleted());
    // Computed where the donated weights were.
    EXPECT_EQ((*outputs)[0]->leaf_data(0), before) << "step " << i;
    weights = std::move((*outputs)[0]);
  }
  EXPECT_EQ(weights->ToLiteral()->Get<float>({7}), 8.0f);
  // The gradient was only read: still there and unchanged.
  EXPECT_EQ(gradient->ToLiteral()->Get<float>({0}), 1.0f);

  // Without donation the weights stay valid and a new buffer comes back.
  absl::StatusOr<std::vector<std::unique_ptr<DeviceBuffer>>> kept =
      step->ExecuteBuffers({weights.get(), gradient.get()});
  ASSERT_TRUE(kept.ok()) << kept.status();
  EXPECT_FALSE(weights->is_deleted());
  EXPECT_NE((*kept)[0]->leaf_data(0), weights->leaf_data(0));
  EXPECT_EQ((*kept)[0]->ToLiteral()->Get<float>({0}), 7.5f);
  EXPECT_EQ(weights->ToLiteral()->Get<float>({0}), 8.0f);
}

TEST(LocalClientTest, ArgumentsInAnotherLayoutAreConverted) {
  // The parameter is column-major; device buffers are row-major.
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(R"(HloModule m
ENTRY e {
  p = f32[2,3]{0,1} parameter(0)
  ROOT n = f32[2,3]{1,0} negate(p)
})");
  ASSERT_TRUE(module.ok());
  std::unique_ptr<LocalClient> client = *LocalClient::Create();
  std::unique_ptr<LoadedExecutable> negate = *client->Compile(*std::move(module));
  std::unique_ptr<DeviceBuffer> x = *client->TransferToDevice(
      Literal::CreateFromVector<float>({2, 3}, {1, 2, 3, 4, 5, 6}));
  absl::StatusOr<std::vector<std::unique_ptr<DeviceBuffer>>> out = negate->ExecuteBuffers({x.get()});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0]->ToLiteral()->ToStringWithoutShape(), "{ { -1, -2, -3 }, { -4, -5, -6 } }");
}

TEST(LocalClientTest, BadRequestsAreErrorsNamingTheProblem) {
  std::unique_ptr<LocalClient> client = *LocalClient::Create();
  XlaComputation dense = DenseLayer();
  CompileOptions unknown;
  unknown.backend = "tpu";
  EXPECT_THAT(std::string(client->Compile(dense, unknown).status().message()),
              HasSubstr("unknown backend 'tpu' (have: cpu, interpreter)"));
  CompileOptions bad_donation;
  bad_donation.donatable_parameters = {7};
  EXPECT_THAT(std::string(client->Compile(dense, bad_donation).status().message()),
              HasSubstr("donatable parameter 7 is out of range"));
  EXPECT_FALSE(client->Compile(XlaComputation()).ok());

  std::unique_ptr<LoadedExecutable> executable = *client->Compile(dense);
  std::vector<Literal> inputs = DenseInputs();
  inputs.pop_back();
  absl::Status count = executable->Execute(inputs).status();
  EXPECT_EQ(count.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(count.message()), HasSubstr("takes 3 argument(s), got 2"));

  std::unique_ptr<DeviceBuffer> x = *client->TransferToDevice(DenseInputs()[0]);
  std::unique_ptr<DeviceBuffer> w = *client->TransferToDevice(DenseInputs()[1]);
  std::unique_ptr<DeviceBuffer> wrong = *client->TransferToDevice(Literal::CreateR1<float>({1, 2, 3}));
  absl::Status shape = executable->ExecuteBuffers({x.get(), w.get(), wrong.get()}).status();
  EXPECT_THAT(std::string(shape.message()), HasSubstr("argument 2 (b) expects f32[2], got f32[3]"));
  ExecuteOptions twice;
  twice.donated_arguments = {0};
  absl::Status aliased = executable->ExecuteBuffers({x.get(), x.get(), wrong.get()}, twice).status();
  EXPECT_THAT(std::string(aliased.message()), HasSubstr("a donated buffer may be passed once"));
  ExecuteOptions out_of_range;
  out_of_range.donated_arguments = {3};
  EXPECT_THAT(std::string(executable->ExecuteBuffers({x.get(), w.get(), wrong.get()}, out_of_range)
                              .status()
                              .message()),
              HasSubstr("donated argument 3 is out of range"));
  EXPECT_THAT(std::string(executable->ExecuteBuffers({x.get(), nullptr, wrong.get()}).status().message()),
              HasSubstr("argument 1 (w) is null"));
}

}  // namespace
}  // namespace tessera
