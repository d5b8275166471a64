// The service on loopback: a round trip through every RPC, and malformed
// and hostile requests, each answered with the right status while the
// server keeps serving.
#include <atomic>
#include <memory>
#include <thread>
#include <string>
#include <vector>

#include "client/remote_client.h"
#include "gmock/gmock.h"
#include "grpcpp/client_context.h"
#include "grpcpp/create_channel.h"
#include "gtest/gtest.h"
#include "hlo/evaluator/hlo_evaluator.h"
#include "hlo/parser/hlo_parser.h"
#include "hlo/proto/hlo_proto_export.h"
#include "hlo/proto/literal_proto.h"
#include "service/service_test_util.h"
#include "service/tessera_server.h"

namespace tessera {
namespace service {
namespace {

using service_test::RawUnaryCall;

using ::testing::HasSubstr;

constexpr char kAxpy[] = R"(HloModule axpy
ENTRY e {
  a = f32[] parameter(0)
  x = f32[4] parameter(1)
  y = f32[4] parameter(2)
  ab = f32[4] broadcast(a), dimensions={}
  m = f32[4] multiply(ab, x)
  ROOT s = f32[4] add(m, y)
})";

std::unique_ptr<HloModule> Parse(const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? *std::move(module) : nullptr;
}

xla::HloModuleProto ProtoOf(const std::string& text) {
  return *ExportHloModuleProto(*Parse(text));
}

xla::LiteralProto LiteralProtoOf(const Literal& literal) { return *LiteralToProto(literal); }

std::vector<Literal> AxpyInputs() {
  return {Literal::CreateR0<float>(2), Literal::CreateR1<float>({1, 2, 3, 4}),
          Literal::CreateR1<float>({10, 20, 30, 40})};
}

class ServiceTest : public ::testing::Test {
 protected:
  void SetUp() override { StartServer(""); }

  void StartServer(const std::string& token) {
    server_.reset();
    ServerOptions options;
    options.max_message_mb = 4;
    options.service.max_executables = 4;
    options.service.max_value_bytes = int64_t{64} << 20;
    options.service.max_buffer_bytes = int64_t{16} << 20;
    options.service.max_instructions = 1000;
    options.service.auth_token = token;
    absl::StatusOr<std::unique_ptr<TesseraServer>> server = TesseraServer::Start(options);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    RemoteClientOptions client_options;
    client_options.auth_token = token;
    client_options.timeout = std::chrono::seconds(60);
    absl::StatusOr<std::unique_ptr<RemoteClient>> client =
        RemoteClient::Connect(server_->address(), client_options);
    ASSERT_TRUE(client.ok()) << client.status();
    client_ = *std::move(client);
  }

  // A raw call with a deadline (and the token, if any).
  std::unique_ptr<grpc::ClientContext> Context(const std::string& token = "") {
    auto context = std::make_unique<grpc::ClientContext>();
    context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    if (!token.empty()) context->AddMetadata("authorization", "Bearer " + token);
    return context;
  }

  grpc::StatusCode CompileCode(const CompileRequest& request, std::string* message = nullptr) {
    CompileResponse response;
    grpc::Status status = client_->stub().Compile(Context().get(), request, &response);
    if (message != nullptr) *message = status.error_message();
    return status.error_code();
  }

  grpc::StatusCode ExecuteCode(const ExecuteRequest& request, std::string* message = nullptr) {
    ExecuteResponse response;
    grpc::Status status = client_->stub().Execute(Context().get(), request, &response);
    if (message != nullptr) *message = status.error_message();
    return status.error_code();
  }

  uint64_t CompileAxpy() {
    CompileRequest request;
    *request.mutable_module() = ProtoOf(kAxpy);
    CompileResponse response;
    EXPECT_TRUE(client_->stub().Compile(Context().get(), request, &response).ok());
    return response.handle();
  }

  // The server still compiles and runs a good request correctly.
  void ExpectStillServing() {
    absl::StatusOr<std::unique_ptr<RemoteExecutable>> axpy = client_->Compile(*Parse(kAxpy));
    ASSERT_TRUE(axpy.ok()) << axpy.status();
    absl::StatusOr<Literal> result = (*axpy)->Execute(AxpyInputs());
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(result->ToStringWithoutShape(), "{12, 24, 36, 48}");
  }

  std::unique_ptr<TesseraServer> server_;
  std::unique_ptr<RemoteClient> client_;
};

TEST_F(ServiceTest, RoundTripThroughEveryRpc) {
  EXPECT_EQ(*client_->Backends(), (std::vector<std::string>{"cpu", "interpreter"}));
  std::unique_ptr<HloModule> module = Parse(kAxpy);
  absl::StatusOr<std::unique_ptr<RemoteExecutable>> first = client_->Compile(*module);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_FALSE((*first)->compile_stats().cache_hit());
  EXPECT_EQ((*first)->program_shape().ToString(), "(f32[], f32[4]{0}, f32[4]{0})->f32[4]{0}");
  absl::StatusOr<std::unique_ptr<RemoteExecutable>> again = client_->Compile(*module);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE((*again)->compile_stats().cache_hit());
  EXPECT_EQ((*again)->handle(), (*first)->handle());
  // Another backend is another executable.
  CompileOptions interpreter;
  interpreter.backend = "interpreter";
  absl::StatusOr<std::unique_ptr<RemoteExecutable>> reference =
      client_->Compile(*module, interpreter);
  ASSERT_TRUE(reference.ok());
  EXPECT_NE((*reference)->handle(), (*first)->handle());

  EXPECT_EQ((*first)->Execute(AxpyInputs())->ToStringWithoutShape(), "{12, 24, 36, 48}");
  EXPECT_EQ((*reference)->Execute(AxpyInputs())->ToStringWithoutShape(), "{12, 24, 36, 48}");
  EXPECT_EQ((*first)->ExecuteStreaming(AxpyInputs(), /*chunk_bytes=*/7)->ToStringWithoutShape(),
            "{12, 24, 36, 48}");

  // Tensors larger than one message (4 MiB on this server) go by stream.
  {
    std::vector<float> big_x(1500000, 0.5f), big_y(1500000, 1.0f);
    absl::StatusOr<std::unique_ptr<RemoteExecutable>> big =
        client_->Compile(*Parse(R"(HloModule big_axpy
ENTRY e {
  a = f32[] parameter(0)
  x = f32[1500000] parameter(1)
  y = f32[1500000] parameter(2)
  ab = f32[1500000] broadcast(a), dimensions={}
  ROOT s = f32[1500000] add(multiply(ab, x), y)
})"));
    ASSERT_TRUE(big.ok()) << big.status();
    const std::vector<Literal> arguments = {Literal::CreateR0<float>(4),
                                            Literal::CreateR1<float>(big_x),
                                            Literal::CreateR1<float>(big_y)};
    EXPECT_EQ((*big)->Execute(arguments).status().code(), absl::StatusCode::kResourceExhausted);
    absl::StatusOr<Literal> streamed = (*big)->ExecuteStreaming(arguments);
    ASSERT_TRUE(streamed.ok()) << streamed.status();
    EXPECT_EQ(streamed->element_count(), 1500000);
    EXPECT_EQ(streamed->Get<float>({1234567}), 3.0f);
  }

  // Buffers that stay on the server: y <- a*x + y, three times, donated.
  std::vector<std::unique_ptr<RemoteBuffer>> inputs;
  for (const Literal& literal : AxpyInputs()) inputs.push_back(*client_->TransferToDevice(literal));
  EXPECT_EQ(inputs[1]->ToLiteral()->ToStringWithoutShape(), "{1, 2, 3, 4}");
  std::unique_ptr<RemoteBuffer> y = std::move(inputs[2]);
  for (int i = 0; i < 3; ++i) {
    ExecuteOptions donate;
    donate.donated_arguments = {2};
    absl::StatusOr<std::vector<std::unique_ptr<RemoteBuffer>>> out =
        (*first)->ExecuteBuffers({inputs[0].get(), inputs[1].get(), y.get()}, donate);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_TRUE(y->is_deleted());
    y = std::move((*out)[0]);
  }
  EXPECT_EQ(y->ToLiteral()->ToStringWithoutShape(), "{16, 32, 48, 64}");

  // The optimized module on request.
  CompileRequest request;
  *request.mutable_module() = ProtoOf(kAxpy);
  request.mutable_options()->set_return_optimized_module(true);
  CompileResponse response;
  ASSERT_TRUE(client_->stub().Compile(Context().get(), request, &response).ok());
  EXPECT_GT(response.optimized_module().computations_size(), 0);
  EXPECT_TRUE(response.stats().cache_hit());

  absl::StatusOr<GetStatsResponse> stats = client_->GetStats();
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->compile_requests(), 5);
  EXPECT_EQ(stats->cache_hits(), 2);
  EXPECT_EQ(stats->executables(), 3);
  EXPECT_GE(stats->buffers(), 3);

  // Unloaded, the handle is gone.
  ASSERT_TRUE((*first)->Unload().ok());
  EXPECT_EQ((*first)->Execute(AxpyInputs()).status().code(), absl::StatusCode::kNotFound);

  // gRPC's standard health service answers SERVING.
  auto [health, bytes] = RawUnaryCall(server_->address(), "/grpc.health.v1.Health/Check", "");
  ASSERT_TRUE(health.ok()) << health.error_message();
  EXPECT_EQ(bytes, std::string("\x08\x01", 2));  // status: SERVING
}

TEST_F(ServiceTest, MalformedAndHostileRequestsGetTheRightStatus) {
  const uint64_t axpy = CompileAxpy();
  ASSERT_NE(axpy, 0u);
  std::string message;
  int checked = 0;
  auto expect_compile = [&](const CompileRequest& request, grpc::StatusCode code,
                            const std::string& part) {
    EXPECT_EQ(CompileCode(request, &message), code) << part << ": " << message;
    EXPECT_THAT(message, HasSubstr(part));
    ++checked;
  };
  auto expect_execute = [&](const ExecuteRequest& request, grpc::StatusCode code,
                            const std::string& part) {
    EXPECT_EQ(ExecuteCode(request, &message), code) << part << ": " << message;
    EXPECT_THAT(message, HasSubstr(part));
    ++checked;
  };

  // --- Compile ---
  expect_compile(CompileRequest(), grpc::StatusCode::INVALID_ARGUMENT, "no module");
  {
    CompileRequest r;
    *r.mutable_module() = ProtoOf(kAxpy);
    r.mutable_module()->clear_computations();
    expect_compile(r, grpc::StatusCode::INVALID_ARGUMENT, "malformed module");
  }
  {  // An operand id that names no instruction (a truncated module).
    CompileRequest r;
    *r.mutable_module() = ProtoOf(kAxpy);
    auto* instructions = r.mutable_module()->mutable_computations(0)->mutable_instructions();
    instructions->RemoveLast();
    expect_compile(r, grpc::StatusCode::INVALID_ARGUMENT, "malformed module");
  }
  {  // A cycle: an instruction is its own operand.
    CompileRequest r;
    *r.mutable_module() = ProtoOf(kAxpy);
    auto* instruction = r.mutable_module()->mutable_computations(0)->mutable_instructions(4);
    instruction->set_operand_ids(0, instruction->id());
    expect_compile(r, grpc::StatusCode::INVALID_ARGUMENT, "malformed module");
  }
  {  // An absurd shape.
    CompileRequest r;
    *r.mutable_module() = ProtoOf(R"(HloModule big
ENTRY e {
  p = f32[1000000000000] parameter(0)
  ROOT n = f32[1000000000000] negate(p)
})");
    expect_compile(r, grpc::StatusCode::RESOURCE_EXHAUSTED, "over the server's limit");
  }
  {  // More instructions than the server compiles.
    std::string text = "HloModule long_chain\nENTRY e {\n  v0 = f32[4] parameter(0)\n";
    for (int i = 1; i <= 1200; ++i) {
      text += "  v" + std::to_string(i) + " = f32[4] negate(v" + std::to_string(i - 1) + ")\n";
    }
    text += "  ROOT r = f32[4] negate(v1200)\n}\n";
    CompileRequest r;
    *r.mutable_module() = ProtoOf(text);
    expect_compile(r, grpc::StatusCode::RESOURCE_EXHAUSTED, "compiles at most 1000");
  }
  {  // Dimensions whose product overflows 64 bits.
    CompileRequest r;
    *r.mutable_module() = ProtoOf(R"(HloModule huge
ENTRY e {
  ROOT p = f32[4294967296,4294967296,4294967296] parameter(0)
})");
    expect_compile(r, grpc::StatusCode::INVALID_ARGUMENT, "too large");
  }
  {  // A negative dimension.
    CompileRequest r;
    *r.mutable_module() = ProtoOf(kAxpy);
    r.mutable_module()->mutable_computations(0)->mutable_instructions(1)->mutable_shape()->set_dimensions(0, -4);
    expect_compile(r, grpc::StatusCode::INVALID_ARGUMENT, "");
  }
  {  // An unknown opcode.
    CompileRequest r;
    *r.mutable_module() = ProtoOf(kAxpy);
    r.mutable_module()->mutable_computations(0)->mutable_instructions(4)->set_opcode("frobnicate");
    expect_compile(r, grpc::StatusCode::INVALID_ARGUMENT, "frobnicate");
  }
  {  // Wrong types: the add of f32 and s32 does not verify.
    CompileRequest r;
    *r.mutable_module() = ProtoOf(R"(HloModule types
ENTRY e {
  a = f32[4] parameter(0)
  b = f32[4] parameter(1)
  ROOT s = f32[4] add(a, b)
})");
    r.mutable_module()->mutable_computations(0)->mutable_instructions(1)->mutable_shape()->set_element_type(xla::S32);
    expect_compile(r, grpc::StatusCode::INVALID_ARGUMENT, "");
  }
  {  // Two instructions with one id.
    CompileRequest r;
    *r.mutable_module() = ProtoOf(kAxpy);
    auto* computation = r.mutable_module()->mutable_computations(0);
    computation->mutable_instructions(2)->set_id(computation->instructions(1).id());
    expect_compile(r, grpc::StatusCode::INVALID_ARGUMENT, "malformed module");
  }
  {
    CompileRequest r;
    *r.mutable_module() = ProtoOf(kAxpy);
    r.mutable_options()->set_backend("tpu");
    expect_compile(r, grpc::StatusCode::INVALID_ARGUMENT, "unknown backend 'tpu'");
  }
  {
    CompileRequest r;
    *r.mutable_module() = ProtoOf(kAxpy);
    r.mutable_options()->add_donatable_parameters(9);
    expect_compile(r, grpc::StatusCode::INVALID_ARGUMENT, "donatable parameter 9");
  }

  // --- Execute ---
  {
    ExecuteRequest r;
    r.set_handle(axpy ^ 0x5a5a5a5a);
    expect_execute(r, grpc::StatusCode::NOT_FOUND, "no executable with handle");
  }
  expect_execute(ExecuteRequest(), grpc::StatusCode::NOT_FOUND, "no executable with handle 0");
  auto axpy_request = [&]() {
    ExecuteRequest r;
    r.set_handle(axpy);
    for (const Literal& literal : AxpyInputs()) {
      *r.add_arguments()->mutable_literal() = LiteralProtoOf(literal);
    }
    return r;
  };
  {
    ExecuteRequest r = axpy_request();
    r.mutable_arguments()->RemoveLast();
    expect_execute(r, grpc::StatusCode::INVALID_ARGUMENT, "takes 3 argument(s), got 2");
  }
  {
    ExecuteRequest r = axpy_request();
    *r.mutable_arguments(1)->mutable_literal() = LiteralProtoOf(Literal::CreateR1<float>({1, 2, 3}));
    expect_execute(r, grpc::StatusCode::INVALID_ARGUMENT, "argument 1 (x) expects f32[4], got f32[3]");
  }
  {
    ExecuteRequest r = axpy_request();
    *r.mutable_arguments(1)->mutable_literal() = LiteralProtoOf(Literal::CreateR1<int32_t>({1, 2, 3, 4}));
    expect_execute(r, grpc::StatusCode::INVALID_ARGUMENT, "expects f32[4], got s32[4]");
  }
  {
    ExecuteRequest r = axpy_request();
    r.mutable_arguments(0)->mutable_literal()->clear_shape();
    expect_execute(r, grpc::StatusCode::INVALID_ARGUMENT, "argument 0 has no shape");
  }
  {  // Values that do not fill the shape.
    ExecuteRequest r = axpy_request();
    r.mutable_arguments(1)->mutable_literal()->mutable_f32s()->RemoveLast();
    expect_execute(r, grpc::StatusCode::INVALID_ARGUMENT, "argument 1");
  }
  {  // A literal claiming a terabyte.
    ExecuteRequest r = axpy_request();
    r.mutable_arguments(1)->mutable_literal()->mutable_shape()->set_dimensions(0, 1000000000000);
    expect_execute(r, grpc::StatusCode::RESOURCE_EXHAUSTED, "over the server's limit");
  }
  {
    ExecuteRequest r = axpy_request();
    r.mutable_arguments(2)->Clear();
    expect_execute(r, grpc::StatusCode::INVALID_ARGUMENT, "neither a literal nor a buffer handle");
  }
  {
    ExecuteRequest r = axpy_request();
    r.mutable_arguments(2)->set_buffer_handle(424242);
    expect_execute(r, grpc::StatusCode::NOT_FOUND, "no buffer with handle 424242");
  }
  {  // A donated buffer is consumed: donating it again finds nothing.
    std::unique_ptr<RemoteBuffer> y = *client_->TransferToDevice(AxpyInputs()[2]);
    ExecuteRequest r = axpy_request();
    r.mutable_arguments(2)->set_buffer_handle(y->handle());
    r.mutable_arguments(2)->set_donate(true);
    EXPECT_EQ(ExecuteCode(r), grpc::StatusCode::OK);
    expect_execute(r, grpc::StatusCode::NOT_FOUND, "no buffer with handle");
  }
  {  // Over the message size limit (4 MiB here).
    ExecuteRequest r = axpy_request();
    std::vector<float> big(2 << 20, 1.0f);
    *r.mutable_arguments(1)->mutable_literal() = LiteralProtoOf(Literal::CreateR1<float>(big));
    EXPECT_EQ(ExecuteCode(r, &message), grpc::StatusCode::RESOURCE_EXHAUSTED) << message;
    ++checked;
  }
  {  // An op the backend cannot run.
    CompileRequest c;
    *c.mutable_module() = ProtoOf(R"(HloModule custom
ENTRY e {
  p = f32[4] parameter(0)
  ROOT c = f32[4] custom-call(p), custom_call_target="my_secret_kernel"
})");
    CompileResponse compiled;
    grpc::Status status = client_->stub().Compile(Context().get(), c, &compiled);
    if (status.ok()) {
      ExecuteRequest r;
      r.set_handle(compiled.handle());
      *r.add_arguments()->mutable_literal() = LiteralProtoOf(Literal::CreateR1<float>({1, 2, 3, 4}));
      expect_execute(r, grpc::StatusCode::UNIMPLEMENTED, "my_secret_kernel");
    } else {
      EXPECT_EQ(status.error_code(), grpc::StatusCode::UNIMPLEMENTED) << status.error_message();
      ++checked;
    }
  }

  // --- Buffers and unloading ---
  {
    TransferFromServerRequest r;
    r.set_buffer_handle(777);
    TransferFromServerResponse response;
    grpc::Status status = client_->stub().TransferFromServer(Context().get(), r, &response);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
    ++checked;
  }
  {
    TransferToServerRequest r;
    *r.mutable_literal() = LiteralProtoOf(Literal::CreateR1<float>({1}));
    r.mutable_literal()->mutable_shape()->set_dimensions(0, int64_t{1} << 40);
    TransferToServerResponse response;
    grpc::Status status = client_->stub().TransferToServer(Context().get(), r, &response);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << status.error_message();
    ++checked;
  }
  {  // The server's buffer budget (16 MiB here), filled 3 MiB at a time.
    std::vector<std::unique_ptr<RemoteBuffer>> kept;
    absl::Status last;
    std::vector<float> chunk(3 << 18, 1.0f);
    for (int i = 0; i < 8 && last.ok(); ++i) {
      absl::StatusOr<std::unique_ptr<RemoteBuffer>> buffer =
          client_->TransferToDevice(Literal::CreateR1<float>(chunk));
      if (buffer.ok()) {
        kept.push_back(*std::move(buffer));
      } else {
        last = buffer.status();
      }
    }
    EXPECT_EQ(last.code(), absl::StatusCode::kResourceExhausted) << last;
    EXPECT_THAT(std::string(last.message()), HasSubstr("buffer budget"));
    ++checked;
  }
  {
    UnloadResponse response;
    EXPECT_EQ(client_->stub().Unload(Context().get(), UnloadRequest(), &response).error_code(),
              grpc::StatusCode::INVALID_ARGUMENT);
    UnloadRequest r;
    r.set_handle(31337);
    EXPECT_EQ(client_->stub().Unload(Context().get(), r, &response).error_code(),
              grpc::StatusCode::NOT_FOUND);
    UnloadRequest b;
    b.set_buffer_handle(31337);
    EXPECT_EQ(client_->stub().Unload(Context().get(), b, &response).error_code(),
              grpc::StatusCode::NOT_FOUND);
    checked += 3;
  }

  // --- Streams ---
  auto stream_code = [&](const std::vector<ExecuteChunk>& chunks) {
    std::unique_ptr<grpc::ClientContext> context = Context();
    auto stream = client_->stub().ExecuteStream(context.get());
    for (const ExecuteChunk& chunk : chunks) stream->Write(chunk);
    stream->WritesDone();
    ExecuteChunk ignored;
    while (stream->Read(&ignored)) {
    }
    ++checked;
    return stream->Finish().error_code();
  };
  EXPECT_EQ(stream_code({}), grpc::StatusCode::INVALID_ARGUMENT);
  {
    ExecuteChunk header;
    header.set_handle(axpy);
    header.set_argument_count(-1);
    EXPECT_EQ(stream_code({header}), grpc::StatusCode::INVALID_ARGUMENT);
    header.set_argument_count(3);
    EXPECT_EQ(stream_code({header}), grpc::StatusCode::INVALID_ARGUMENT);  // ends early
    ExecuteChunk wrong_index;
    wrong_index.set_index(2);
    wrong_index.set_last(true);
    EXPECT_EQ(stream_code({header, wrong_index}), grpc::StatusCode::INVALID_ARGUMENT);
    ExecuteChunk garbage;
    garbage.set_index(0);
    garbage.set_data("\xff\xff\xff\xff not a literal");
    garbage.set_last(true);
    EXPECT_EQ(stream_code({header, garbage}), grpc::StatusCode::INVALID_ARGUMENT);
  }

  // --- Raw bytes that are no request at all ---
  {
    const std::string truncated = CompileRequest().SerializeAsString() + "\x0a\xff\xff\xff\x0f";
    grpc::Status status =
        RawUnaryCall(server_->address(), "/tessera.CompileService/Compile", truncated).first;
    // gRPC itself rejects a request that does not parse.
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INTERNAL) << status.error_message();
    ++checked;
  }

  EXPECT_GE(checked, 30);
  ExpectStillServing();
}

// A loop that would run for minutes: the deadline stops it between
// iterations, its slot comes back, and the server keeps serving.
TEST_F(ServiceTest, DeadlinesStopEndlessRuns) {
  std::unique_ptr<HloModule> endless = Parse(service_test::SineLoopModule(2147483647, 64));
  RemoteClientOptions short_deadline;
  short_deadline.timeout = std::chrono::milliseconds(300);
  std::unique_ptr<RemoteClient> impatient = *RemoteClient::Connect(server_->address(), short_deadline);
  std::unique_ptr<RemoteExecutable> loop = *client_->Compile(*endless);
  std::unique_ptr<RemoteExecutable> same = *impatient->Compile(*endless);
  ASSERT_EQ(same->handle(), loop->handle());
  // More endless calls than execution slots, at once.
  std::vector<std::thread> callers;
  std::atomic<int> stopped{0};
  for (int i = 0; i < 3; ++i) {
    callers.emplace_back([&] {
      absl::Status status = same->Execute({Literal(Shape::MakeArray(F32, {64}))}).status();
      if (status.code() == absl::StatusCode::kDeadlineExceeded) ++stopped;
    });
  }
  for (std::thread& caller : callers) caller.join();
  EXPECT_EQ(stopped.load(), 3);
  // The server itself stopped the runs (a client's deadline alone would
  // leave them going for minutes): each ended in an error and freed its
  // slot.  The wait is a liveness bound, far above what stopping takes.
  for (int i = 0; i < 600; ++i) {
    GetStatsResponse stats = *client_->GetStats();
    if (stats.active_executions() == 0 && stats.execute_errors() >= 3) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  GetStatsResponse stats = *client_->GetStats();
  EXPECT_EQ(stats.active_executions(), 0);
  EXPECT_GE(stats.execute_errors(), 3);
  ExpectStillServing();
}

// So it does on the interpreter, whose evaluation checks the call's flag
// before each instruction: an endless loop sent to it does not hold an
// execution slot for good.
TEST_F(ServiceTest, DeadlinesStopEndlessInterpreterRuns) {
  std::unique_ptr<HloModule> endless = Parse(service_test::SineLoopModule(2147483647, 64));
  RemoteClientOptions short_deadline;
  short_deadline.timeout = std::chrono::milliseconds(300);
  std::unique_ptr<RemoteClient> impatient =
      *RemoteClient::Connect(server_->address(), short_deadline);
  CompileOptions interpreter;
  interpreter.backend = "interpreter";
  std::unique_ptr<RemoteExecutable> loop = *impatient->Compile(*endless, interpreter);
  absl::Status status = loop->Execute({Literal(Shape::MakeArray(F32, {64}))}).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded) << status;
  // The server stopped the run: its slot came back.  (A liveness bound,
  // far above what stopping takes.)
  for (int i = 0; i < 600; ++i) {
    GetStatsResponse stats = *client_->GetStats();
    if (stats.active_executions() == 0 && stats.execute_errors() >= 1) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  GetStatsResponse stats = *client_->GetStats();
  EXPECT_EQ(stats.active_executions(), 0);
  EXPECT_GE(stats.execute_errors(), 1);
  ExpectStillServing();
}

TEST_F(ServiceTest, TokenIsRequiredWhenConfigured) {
  StartServer("s3cret");
  ListBackendsResponse response;
  grpc::Status none = client_->stub().ListBackends(Context().get(), ListBackendsRequest(), &response);
  // The client was made with the token: strip it by calling raw.
  EXPECT_EQ(none.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  grpc::Status wrong =
      client_->stub().ListBackends(Context("guess").get(), ListBackendsRequest(), &response);
  EXPECT_EQ(wrong.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  CompileResponse compiled;
  CompileRequest request;
  *request.mutable_module() = ProtoOf(kAxpy);
  EXPECT_EQ(client_->stub().Compile(Context().get(), request, &compiled).error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_TRUE(
      client_->stub().ListBackends(Context("s3cret").get(), ListBackendsRequest(), &response).ok());
  ExpectStillServing();  // through the RemoteClient, which sends the token
}

}  // namespace
}  // namespace service
}  // namespace tessera
