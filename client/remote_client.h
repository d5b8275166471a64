// RemoteClient: LocalClient's interface over a Tessera server
// (service/tessera_service.proto).  Modules travel as XLA HloModuleProtos
// and values as LiteralProtos; executables and buffers stay on the server
// behind handles.
//
//   TS_ASSIGN_OR_RETURN(auto client, RemoteClient::Connect("127.0.0.1:7070"));
//   TS_ASSIGN_OR_RETURN(auto step, client->Compile(computation));
//   TS_ASSIGN_OR_RETURN(Literal result, step->Execute({x, y}));
//
// Errors are the server's gRPC status as an absl::Status of the same code
// (INVALID_ARGUMENT, NOT_FOUND, RESOURCE_EXHAUSTED, UNIMPLEMENTED,
// UNAUTHENTICATED, DEADLINE_EXCEEDED, UNAVAILABLE, ...).
#ifndef TESSERA_CLIENT_REMOTE_CLIENT_H_
#define TESSERA_CLIENT_REMOTE_CLIENT_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "client/local_client.h"
#include "client/xla_builder.h"
#include "hlo/ir/hlo_module.h"
#include "hlo/ir/literal.h"
#include "service/tessera_service.grpc.pb.h"

namespace tessera {

struct RemoteClientOptions {
  // Sent as `authorization: Bearer TOKEN` when non-empty.
  std::string auth_token;
  int max_message_mb = 64;
  // Each call's deadline.
  std::chrono::milliseconds timeout{std::chrono::minutes(5)};
};

class RemoteClient;

// A value kept on the server.  Dropping it unloads it (best effort).
class RemoteBuffer {
 public:
  RemoteBuffer(std::shared_ptr<CompileService::Stub> stub, RemoteClientOptions options,
               uint64_t handle)
      : stub_(std::move(stub)), options_(std::move(options)), handle_(handle) {}
  ~RemoteBuffer();
  RemoteBuffer(const RemoteBuffer&) = delete;
  RemoteBuffer& operator=(const RemoteBuffer&) = delete;

  uint64_t handle() const { return handle_; }
  // Consumed by a run it was donated to.
  bool is_deleted() const { return deleted_; }
  absl::StatusOr<Literal> ToLiteral() const;

 private:
  friend class RemoteExecutable;
  std::shared_ptr<CompileService::Stub> stub_;
  RemoteClientOptions options_;
  uint64_t handle_;
  bool deleted_ = false;
};

class RemoteExecutable {
 public:
  RemoteExecutable(std::shared_ptr<CompileService::Stub> stub, RemoteClientOptions options,
                   uint64_t handle, ProgramShape program_shape, CompileStats stats)
      : stub_(std::move(stub)),
        options_(std::move(options)),
        handle_(handle),
        program_shape_(std::move(program_shape)),
        stats_(std::move(stats)) {}

  uint64_t handle() const { return handle_; }
  const ProgramShape& program_shape() const { return program_shape_; }
  const CompileStats& compile_stats() const { return stats_; }

  absl::StatusOr<Literal> Execute(absl::Span<const Literal> arguments) const;
  // Arguments and results stay on the server.
  absl::StatusOr<std::vector<std::unique_ptr<RemoteBuffer>>> ExecuteBuffers(
      absl::Span<RemoteBuffer* const> arguments, const ExecuteOptions& options = {}) const;
  // Execute through the streaming RPC (arguments and result in chunks of
  // `chunk_bytes`): for values larger than one message.
  absl::StatusOr<Literal> ExecuteStreaming(absl::Span<const Literal> arguments,
                                           int64_t chunk_bytes = int64_t{1} << 20) const;
  // Drops the executable on the server.
  absl::Status Unload() const;

 private:
  std::shared_ptr<CompileService::Stub> stub_;
  RemoteClientOptions options_;
  uint64_t handle_;
  ProgramShape program_shape_;
  CompileStats stats_;
};

class RemoteClient {
 public:
  // Connects to `address` (host:port) and waits until the server answers
  // or the timeout passes (UNAVAILABLE).
  static absl::StatusOr<std::unique_ptr<RemoteClient>> Connect(
      const std::string& address, const RemoteClientOptions& options = {});

  absl::StatusOr<std::vector<std::string>> Backends() const;
  absl::StatusOr<std::unique_ptr<RemoteExecutable>> Compile(
      const XlaComputation& computation, const CompileOptions& options = {}) const;
  absl::StatusOr<std::unique_ptr<RemoteExecutable>> Compile(
      const HloModule& module, const CompileOptions& options = {}) const;
  absl::StatusOr<std::unique_ptr<RemoteBuffer>> TransferToDevice(const Literal& literal) const;
  absl::StatusOr<GetStatsResponse> GetStats() const;

  CompileService::Stub& stub() const { return *stub_; }

 private:
  RemoteClient(std::shared_ptr<CompileService::Stub> stub, RemoteClientOptions options)
      : stub_(std::move(stub)), options_(std::move(options)) {}

  std::shared_ptr<CompileService::Stub> stub_;
  RemoteClientOptions options_;
};

}  // namespace tessera

#endif  // TESSERA_CLIENT_REMOTE_CLIENT_H_
