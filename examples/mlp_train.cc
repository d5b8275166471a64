// Trains a two-layer MLP classifier on synthetic data with a training step
// built by XlaBuilder: forward pass, softmax cross-entropy, the backward
// pass written out by hand, and the SGD update, all in one computation
// compiled once.  The parameters stay on the device between steps and are
// donated to each step, which updates them in place.
//
//   bazel run //examples:mlp_train -- [--steps=300] [--backend=cpu|interpreter]
//                                      [--server=HOST:PORT]
//
// With --server it trains on a Tessera server (`tessera serve`) through
// RemoteClient, the same code over the same interface: the parameters stay
// on the server between steps.
//
// Prints the loss every 50 steps; exits with status 1 unless the final
// loss is below half the first.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "client/local_client.h"
#include "client/remote_client.h"
#include "client/xla_builder.h"

namespace tessera {
namespace {

constexpr int64_t kBatch = 64;
constexpr int64_t kInputs = 16;
constexpr int64_t kHidden = 32;
constexpr int64_t kClasses = 4;
constexpr float kLearningRate = 0.5f;

Shape F32Shape(std::vector<int64_t> dimensions) { return Shape::MakeArray(F32, std::move(dimensions)); }

// (w1, b1, w2, b2, x, one-hot labels) -> (loss, w1', b1', w2', b2').
absl::StatusOr<XlaComputation> BuildTrainingStep() {
  XlaBuilder b("mlp_train_step");
  XlaOp w1 = Parameter(&b, 0, F32Shape({kInputs, kHidden}), "w1");
  XlaOp b1 = Parameter(&b, 1, F32Shape({kHidden}), "b1");
  XlaOp w2 = Parameter(&b, 2, F32Shape({kHidden, kClasses}), "w2");
  XlaOp b2 = Parameter(&b, 3, F32Shape({kClasses}), "b2");
  XlaOp x = Parameter(&b, 4, F32Shape({kBatch, kInputs}), "x");
  XlaOp labels = Parameter(&b, 5, F32Shape({kBatch, kClasses}), "labels");
  XlaComputation add = CreateScalarAddComputation(F32, &b);
  XlaComputation max = CreateScalarMaxComputation(F32, &b);
  XlaOp zero = ConstantR0<float>(&b, 0);

  // Forward.
  XlaOp hidden = Tanh(Add(Dot(x, w1), b1, {1}));
  XlaOp logits = Add(Dot(hidden, w2), b2, {1});
  XlaOp shifted =
      Sub(logits, Reduce(logits, ConstantR0<float>(&b, -INFINITY), max, {1}), {0});
  XlaOp log_sum = Log(Reduce(Exp(shifted), zero, add, {1}));
  XlaOp log_probabilities = Sub(shifted, log_sum, {0});
  const float inverse_batch = 1.0f / kBatch;
  XlaOp loss = Mul(Neg(ReduceAll(Mul(labels, log_probabilities), zero, add)),
                   ConstantR0<float>(&b, inverse_batch));

  // Backward: d loss / d logits = (softmax - labels) / batch.
  XlaOp d_logits =
      Mul(Sub(Exp(log_probabilities), labels), ConstantR0<float>(&b, inverse_batch));
  DotDimensionNumbers transpose_lhs;  // aᵀ·b over the batch
  transpose_lhs.lhs_contracting_dimensions = {0};
  transpose_lhs.rhs_contracting_dimensions = {0};
  DotDimensionNumbers transpose_rhs;  // a·bᵀ
  transpose_rhs.lhs_contracting_dimensions = {1};
  transpose_rhs.rhs_contracting_dimensions = {1};
  XlaOp d_w2 = DotGeneral(hidden, d_logits, transpose_lhs);
  XlaOp d_b2 = Reduce(d_logits, zero, add, {0});
  XlaOp d_hidden = DotGeneral(d_logits, w2, transpose_rhs);
  XlaOp d_pre = Mul(d_hidden, Sub(ConstantR0<float>(&b, 1), Square(hidden)));
  XlaOp d_w1 = DotGeneral(x, d_pre, transpose_lhs);
  XlaOp d_b1 = Reduce(d_pre, zero, add, {0});

  // SGD.
  XlaOp rate = ConstantR0<float>(&b, kLearningRate);
  Tuple(&b, {loss, Sub(w1, Mul(d_w1, rate)), Sub(b1, Mul(d_b1, rate)), Sub(w2, Mul(d_w2, rate)),
             Sub(b2, Mul(d_b2, rate))});
  return b.Build();
}

Literal RandomMatrix(std::mt19937& random, std::vector<int64_t> dimensions, float scale) {
  std::normal_distribution<float> normal(0.0f, scale);
  int64_t count = 1;
  for (int64_t d : dimensions) count *= d;
  std::vector<float> values(count);
  for (float& v : values) v = normal(random);
  return Literal::CreateFromVector<float>(std::move(dimensions), values);
}

// Inputs drawn from a normal distribution and labelled by a fixed random
// linear teacher: the class whose score is largest.
std::pair<Literal, Literal> SyntheticBatch(std::mt19937& random, const Literal& teacher) {
  Literal x = RandomMatrix(random, {kBatch, kInputs}, 1.0f);
  Literal labels(F32Shape({kBatch, kClasses}));
  for (int64_t i = 0; i < kBatch; ++i) {
    int64_t best = 0;
    float best_score = -INFINITY;
    for (int64_t c = 0; c < kClasses; ++c) {
      float score = 0;
      for (int64_t k = 0; k < kInputs; ++k) {
        score += x.Get<float>({i, k}) * teacher.Get<float>({k, c});
      }
      if (score > best_score) {
        best_score = score;
        best = c;
      }
    }
    labels.Set<float>({i, best}, 1.0f);
  }
  return {std::move(x), std::move(labels)};
}

// The training loop, the same for a LocalClient (in this process) and a
// RemoteClient (on a Tessera server): both compile an XlaComputation, keep
// values on their device and run with donation through the same calls.
template <typename Client>
int Train(const Client& client, int steps, const std::string& backend, const std::string& where) {
  absl::StatusOr<XlaComputation> step = BuildTrainingStep();
  if (!step.ok()) {
    std::fprintf(stderr, "building the training step: %s\n", std::string(step.status().message()).c_str());
    return 2;
  }
  CompileOptions options;
  options.backend = backend;
  options.donatable_parameters = {0, 1, 2, 3};
  auto executable = client.Compile(*step, options);
  if (!executable.ok()) {
    std::fprintf(stderr, "compiling: %s\n", std::string(executable.status().message()).c_str());
    return 2;
  }
  using Buffer = typename decltype(client.TransferToDevice(Literal()))::value_type::element_type;

  std::mt19937 random(42);
  const Literal teacher = RandomMatrix(random, {kInputs, kClasses}, 1.0f);
  std::vector<std::unique_ptr<Buffer>> parameters;
  for (const Literal& initial :
       {RandomMatrix(random, {kInputs, kHidden}, 0.3f), Literal(F32Shape({kHidden})),
        RandomMatrix(random, {kHidden, kClasses}, 0.3f), Literal(F32Shape({kClasses}))}) {
    parameters.push_back(*client.TransferToDevice(initial));
  }
  // A fixed pool of batches, visited in turn.
  std::vector<std::pair<std::unique_ptr<Buffer>, std::unique_ptr<Buffer>>> batches;
  for (int i = 0; i < 8; ++i) {
    auto [x, labels] = SyntheticBatch(random, teacher);
    batches.emplace_back(*client.TransferToDevice(x), *client.TransferToDevice(labels));
  }

  ExecuteOptions donate;
  donate.donated_arguments = {0, 1, 2, 3};
  float first_loss = 0, loss = 0;
  for (int i = 0; i < steps; ++i) {
    auto& [x, labels] = batches[i % batches.size()];
    std::vector<Buffer*> arguments = {parameters[0].get(), parameters[1].get(),
                                      parameters[2].get(), parameters[3].get(), x.get(),
                                      labels.get()};
    auto outputs = (*executable)->ExecuteBuffers(arguments, donate);
    if (!outputs.ok()) {
      std::fprintf(stderr, "step %d: %s\n", i, std::string(outputs.status().message()).c_str());
      return 2;
    }
    loss = (*outputs)[0]->ToLiteral()->template Get<float>({});
    if (i == 0) first_loss = loss;
    for (int p = 0; p < 4; ++p) parameters[p] = std::move((*outputs)[p + 1]);
    if (i % 50 == 0 || i == steps - 1) std::printf("step %4d  loss %.4f\n", i, loss);
  }
  const bool fell = loss < 0.5f * first_loss;
  std::printf("loss %.4f -> %.4f over %d steps on %s: %s\n", first_loss, loss, steps,
              where.c_str(), fell ? "falling" : "NOT falling");
  return fell ? 0 : 1;
}

}  // namespace
}  // namespace tessera

int main(int argc, char** argv) {
  int steps = 300;
  std::string backend = "cpu";
  std::string server;
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--steps=", 8) == 0) {
      steps = std::atoi(argv[i] + 8);
    } else if (std::strncmp(argv[i], "--backend=", 10) == 0) {
      backend = argv[i] + 10;
    } else if (std::strncmp(argv[i], "--server=", 9) == 0) {
      server = argv[i] + 9;
    } else {
      std::fprintf(stderr,
                   "usage: mlp_train [--steps=N] [--backend=cpu|interpreter] [--server=HOST:PORT]\n");
      return 2;
    }
  }
  if (steps < 1) {
    std::fprintf(stderr, "mlp_train: --steps must be at least 1\n");
    return 2;
  }
  if (server.empty()) {
    std::unique_ptr<tessera::LocalClient> client = *tessera::LocalClient::Create();
    return tessera::Train(*client, steps, backend, backend);
  }
  absl::StatusOr<std::unique_ptr<tessera::RemoteClient>> client =
      tessera::RemoteClient::Connect(server);
  if (!client.ok()) {
    std::fprintf(stderr, "mlp_train: %s\n", std::string(client.status().message()).c_str());
    return 2;
  }
  return tessera::Train(**client, steps, backend, backend + " at " + server);
}
