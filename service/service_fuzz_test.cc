// Mutated requests against a live server: valid Compile and Execute
// requests (2000) with bytes flipped, inserted, dropped or cut off, sent as raw
// bytes.  Whatever the server answers, it must answer (no crash, no hang
// past the deadline), and afterwards still compute correct results.
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "client/remote_client.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/generic/generic_stub.h"
#include "gtest/gtest.h"
#include "hlo/parser/hlo_parser.h"
#include "hlo/proto/hlo_proto_export.h"
#include "hlo/proto/literal_proto.h"
#include "service/service_test_util.h"
#include "service/tessera_server.h"

namespace tessera {
namespace service {
namespace {

constexpr char kModule[] = R"(HloModule fuzzed
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  x = f32[8,4] parameter(0)
  y = f32[4] parameter(1)
  yb = f32[8,4] broadcast(y), dimensions={1}
  t = f32[8,4] tanh(multiply(x, yb))
  zero = f32[] constant(0)
  ROOT r = f32[8] reduce(t, zero), dimensions={1}, to_apply=add
})";


std::string Mutate(const std::string& original, std::mt19937_64& random) {
  std::string bytes = original;
  const int edits = 1 + static_cast<int>(random() % 4);
  for (int e = 0; e < edits && !bytes.empty(); ++e) {
    const size_t at = random() % bytes.size();
    switch (random() % 5) {
      case 0:  // flip bits
        bytes[at] = static_cast<char>(bytes[at] ^ (1 << (random() % 8)));
        break;
      case 1:  // a random byte
        bytes[at] = static_cast<char>(random());
        break;
      case 2:  // insert
        bytes.insert(bytes.begin() + at, static_cast<char>(random()));
        break;
      case 3:  // drop
        bytes.erase(at, 1);
        break;
      default:  // cut off
        bytes.resize(at);
        break;
    }
  }
  return bytes;
}

TEST(ServiceFuzzTest, MutatedRequestsAreAnsweredAndHarmNothing) {
  ServerOptions options;
  options.service.max_value_bytes = 1 << 20;
  options.service.max_buffer_bytes = 8 << 20;
  std::unique_ptr<TesseraServer> server = *TesseraServer::Start(options);
  std::unique_ptr<HloModule> module = *ParseHloModule(kModule);
  CompileRequest compile;
  *compile.mutable_module() = *ExportHloModuleProto(*module);
  const std::string compile_bytes = compile.SerializeAsString();

  std::unique_ptr<RemoteClient> client = *RemoteClient::Connect(server->address());
  std::unique_ptr<RemoteExecutable> executable = *client->Compile(*module);
  const std::vector<Literal> arguments = {
      Literal::CreateFromVector<float>({8, 4}, std::vector<float>(32, 0.25f)),
      Literal::CreateR1<float>({1, 2, 3, 4})};
  const std::string expected = executable->Execute(arguments)->ToStringWithoutShape();
  ExecuteRequest execute;
  execute.set_handle(executable->handle());
  for (const Literal& argument : arguments) {
    *execute.add_arguments()->mutable_literal() = *LiteralToProto(argument);
  }
  const std::string execute_bytes = execute.SerializeAsString();

  grpc::GenericStub stub(grpc::CreateChannel(server->address(), grpc::InsecureChannelCredentials()));
  std::mt19937_64 random(20261123);
  constexpr int kRequests = 2000;
  int ok = 0, rejected = 0;
  for (int i = 0; i < kRequests; ++i) {
    const bool compile_call = i % 2 == 0;
    grpc::Status status =
        service_test::RawUnaryCall(
            stub, compile_call ? "/tessera.CompileService/Compile" : "/tessera.CompileService/Execute",
            Mutate(compile_call ? compile_bytes : execute_bytes, random))
            .first;
    ASSERT_NE(status.error_code(), grpc::StatusCode::UNAVAILABLE) << "the server went away";
    ASSERT_NE(status.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED) << "request " << i;
    (status.ok() ? ok : rejected)++;
  }
  std::printf("fuzz: %d mutated requests, %d answered OK, %d rejected\n", kRequests, ok, rejected);
  EXPECT_GT(rejected, 0);
  // The original still computes the same.
  EXPECT_EQ(executable->Execute(arguments)->ToStringWithoutShape(), expected);
  EXPECT_EQ((*client->Compile(*module))->Execute(arguments)->ToStringWithoutShape(), expected);
}

}  // namespace
}  // namespace service
}  // namespace tessera
