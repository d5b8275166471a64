#include "client/remote_client.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "grpcpp/client_context.h"
#include "grpcpp/create_channel.h"
#include "hlo/ir/status_macros.h"
#include "hlo/proto/hlo_proto_export.h"
#include "hlo/proto/literal_proto.h"
#include "hlo/proto/shape_proto.h"

namespace tessera {
namespace {

absl::Status FromGrpc(const grpc::Status& status) {
  if (status.ok()) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                      status.error_message());
}

// A context with the deadline and the token.
std::unique_ptr<grpc::ClientContext> MakeContext(const RemoteClientOptions& options) {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() + options.timeout);
  if (!options.auth_token.empty()) {
    context->AddMetadata("authorization", absl::StrCat("Bearer ", options.auth_token));
  }
  return context;
}

absl::StatusOr<Argument> LiteralArgument(const Literal& literal) {
  Argument argument;
  TS_ASSIGN_OR_RETURN(*argument.mutable_literal(), LiteralToProto(literal));
  return argument;
}

}  // namespace

// ---------------------------------------------------------------------------
// RemoteBuffer
// ---------------------------------------------------------------------------

RemoteBuffer::~RemoteBuffer() {
  if (deleted_ || stub_ == nullptr) return;
  std::unique_ptr<grpc::ClientContext> context = MakeContext(options_);
  context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  UnloadRequest request;
  request.set_buffer_handle(handle_);
  UnloadResponse response;
  stub_->Unload(context.get(), request, &response);  // best effort
}

absl::StatusOr<Literal> RemoteBuffer::ToLiteral() const {
  if (deleted_) return absl::FailedPreconditionError("the buffer was donated to a run");
  std::unique_ptr<grpc::ClientContext> context = MakeContext(options_);
  TransferFromServerRequest request;
  request.set_buffer_handle(handle_);
  TransferFromServerResponse response;
  TS_RETURN_IF_ERROR(FromGrpc(stub_->TransferFromServer(context.get(), request, &response)));
  return LiteralFromProto(response.literal());
}

// ---------------------------------------------------------------------------
// RemoteExecutable
// ---------------------------------------------------------------------------

absl::StatusOr<Literal> RemoteExecutable::Execute(absl::Span<const Literal> arguments) const {
  ExecuteRequest request;
  request.set_handle(handle_);
  for (const Literal& literal : arguments) {
    TS_ASSIGN_OR_RETURN(*request.add_arguments(), LiteralArgument(literal));
  }
  std::unique_ptr<grpc::ClientContext> context = MakeContext(options_);
  ExecuteResponse response;
  TS_RETURN_IF_ERROR(FromGrpc(stub_->Execute(context.get(), request, &response)));
  return LiteralFromProto(response.result());
}

absl::StatusOr<std::vector<std::unique_ptr<RemoteBuffer>>> RemoteExecutable::ExecuteBuffers(
    absl::Span<RemoteBuffer* const> arguments, const ExecuteOptions& options) const {
  ExecuteRequest request;
  request.set_handle(handle_);
  request.set_keep_results_on_server(true);
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (arguments[i] == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat("argument ", i, " is null"));
    }
    Argument* argument = request.add_arguments();
    argument->set_buffer_handle(arguments[i]->handle());
  }
  for (int64_t i : options.donated_arguments) {
    if (i < 0 || i >= request.arguments_size()) {
      return absl::InvalidArgumentError(absl::StrCat("donated argument ", i, " is out of range"));
    }
    request.mutable_arguments(static_cast<int>(i))->set_donate(true);
  }
  std::unique_ptr<grpc::ClientContext> context = MakeContext(options_);
  ExecuteResponse response;
  TS_RETURN_IF_ERROR(FromGrpc(stub_->Execute(context.get(), request, &response)));
  for (int64_t i : options.donated_arguments) arguments[i]->deleted_ = true;
  std::vector<std::unique_ptr<RemoteBuffer>> results;
  for (uint64_t handle : response.result_buffer_handles()) {
    results.push_back(std::make_unique<RemoteBuffer>(stub_, options_, handle));
  }
  return results;
}

absl::StatusOr<Literal> RemoteExecutable::ExecuteStreaming(absl::Span<const Literal> arguments,
                                                           int64_t chunk_bytes) const {
  if (chunk_bytes < 1) return absl::InvalidArgumentError("chunk_bytes must be positive");
  std::unique_ptr<grpc::ClientContext> context = MakeContext(options_);
  std::unique_ptr<grpc::ClientReaderWriter<ExecuteChunk, ExecuteChunk>> stream =
      stub_->ExecuteStream(context.get());
  ExecuteChunk header;
  header.set_handle(handle_);
  header.set_argument_count(static_cast<int64_t>(arguments.size()));
  bool sent = stream->Write(header);
  for (size_t i = 0; sent && i < arguments.size(); ++i) {
    TS_ASSIGN_OR_RETURN(xla::LiteralProto proto, LiteralToProto(arguments[i]));
    const std::string bytes = proto.SerializeAsString();
    size_t offset = 0;
    do {
      ExecuteChunk chunk;
      chunk.set_index(static_cast<int64_t>(i));
      chunk.set_data(bytes.substr(offset, static_cast<size_t>(chunk_bytes)));
      offset += static_cast<size_t>(chunk_bytes);
      chunk.set_last(offset >= bytes.size());
      sent = stream->Write(chunk);
    } while (sent && offset < bytes.size());
  }
  stream->WritesDone();
  std::string result;
  ExecuteChunk chunk;
  while (stream->Read(&chunk)) result += chunk.data();
  TS_RETURN_IF_ERROR(FromGrpc(stream->Finish()));
  xla::LiteralProto proto;
  if (!proto.ParseFromString(result)) {
    return absl::DataLossError("the server's streamed result does not parse");
  }
  return LiteralFromProto(proto);
}

absl::Status RemoteExecutable::Unload() const {
  std::unique_ptr<grpc::ClientContext> context = MakeContext(options_);
  UnloadRequest request;
  request.set_handle(handle_);
  UnloadResponse response;
  return FromGrpc(stub_->Unload(context.get(), request, &response));
}

// ---------------------------------------------------------------------------
// RemoteClient
// ---------------------------------------------------------------------------

absl::StatusOr<std::unique_ptr<RemoteClient>> RemoteClient::Connect(
    const std::string& address, const RemoteClientOptions& options) {
  grpc::ChannelArguments arguments;
  const int bytes = options.max_message_mb * (1 << 20);
  arguments.SetMaxReceiveMessageSize(bytes);
  arguments.SetMaxSendMessageSize(bytes);
  std::shared_ptr<grpc::Channel> channel =
      grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), arguments);
  const auto deadline =
      std::chrono::system_clock::now() + std::min<std::chrono::milliseconds>(
                                             options.timeout, std::chrono::seconds(10));
  if (!channel->WaitForConnected(deadline)) {
    return absl::UnavailableError(absl::StrCat("cannot reach a Tessera server at ", address));
  }
  return std::unique_ptr<RemoteClient>(
      new RemoteClient(CompileService::NewStub(channel), options));
}

absl::StatusOr<std::vector<std::string>> RemoteClient::Backends() const {
  std::unique_ptr<grpc::ClientContext> context = MakeContext(options_);
  ListBackendsResponse response;
  TS_RETURN_IF_ERROR(
      FromGrpc(stub_->ListBackends(context.get(), ListBackendsRequest(), &response)));
  return std::vector<std::string>(response.backends().begin(), response.backends().end());
}

absl::StatusOr<std::unique_ptr<RemoteExecutable>> RemoteClient::Compile(
    const XlaComputation& computation, const CompileOptions& options) const {
  if (!computation.valid()) return absl::InvalidArgumentError("an invalid XlaComputation");
  return Compile(computation.module(), options);
}

absl::StatusOr<std::unique_ptr<RemoteExecutable>> RemoteClient::Compile(
    const HloModule& module, const CompileOptions& options) const {
  CompileRequest request;
  TS_ASSIGN_OR_RETURN(*request.mutable_module(), ExportHloModuleProto(module));
  request.mutable_options()->set_backend(options.backend);
  for (int64_t parameter : options.donatable_parameters) {
    request.mutable_options()->add_donatable_parameters(parameter);
  }
  std::unique_ptr<grpc::ClientContext> context = MakeContext(options_);
  CompileResponse response;
  TS_RETURN_IF_ERROR(FromGrpc(stub_->Compile(context.get(), request, &response)));
  TS_ASSIGN_OR_RETURN(ProgramShape program_shape,
                      ProgramShapeFromProto(response.program_shape()));
  return std::make_unique<RemoteExecutable>(stub_, options_, response.handle(),
                                            std::move(program_shape), response.stats());
}

absl::StatusOr<std::unique_ptr<RemoteBuffer>> RemoteClient::TransferToDevice(
    const Literal& literal) const {
  TransferToServerRequest request;
  TS_ASSIGN_OR_RETURN(*request.mutable_literal(), LiteralToProto(literal));
  std::unique_ptr<grpc::ClientContext> context = MakeContext(options_);
  TransferToServerResponse response;
  TS_RETURN_IF_ERROR(FromGrpc(stub_->TransferToServer(context.get(), request, &response)));
  return std::make_unique<RemoteBuffer>(stub_, options_, response.buffer_handle());
}

absl::StatusOr<GetStatsResponse> RemoteClient::GetStats() const {
  std::unique_ptr<grpc::ClientContext> context = MakeContext(options_);
  GetStatsResponse response;
  TS_RETURN_IF_ERROR(FromGrpc(stub_->GetStats(context.get(), GetStatsRequest(), &response)));
  return response;
}

}  // namespace tessera
