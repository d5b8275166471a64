// The CompileService implementation (service/tessera_service.proto) over a
// LocalClient: modules compiled once per distinct module and options
// (ExecutableCache), values kept on the server (BufferStore), executions
// on a bounded number of slots that honour deadlines and cancellation.
//
// Every request is checked before it costs anything: the token (when the
// server has one), handles, argument counts, shapes and types, and the
// byte size of every value a module or literal would make, so that no
// request can crash the server or touch another client's results.
// Errors map to gRPC codes: a malformed or unverifiable module or a wrong
// argument is INVALID_ARGUMENT, an unknown handle NOT_FOUND, anything over
// a limit RESOURCE_EXHAUSTED, an op the backend lacks UNIMPLEMENTED, a
// missing or wrong token UNAUTHENTICATED.
#ifndef TESSERA_SERVICE_COMPILE_SERVICE_H_
#define TESSERA_SERVICE_COMPILE_SERVICE_H_

#include <atomic>
#include <condition_variable>
#include <future>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "client/local_client.h"
#include "service/buffer_store.h"
#include "service/call_watcher.h"
#include "service/executable_cache.h"
#include "service/slots.h"
#include "service/tessera_service.grpc.pb.h"

namespace tessera {
namespace service {

struct ServiceOptions {
  // The backend when a request names none.
  std::string default_backend = "cpu";
  // Compiled executables kept, by count and by the bytes they hold.
  int64_t max_executables = 64;
  int64_t max_executable_bytes = int64_t{4} << 30;
  // Values kept on the server between calls, in total.
  int64_t max_buffer_bytes = int64_t{4} << 30;
  // The largest value one module may make or one argument may carry.
  int64_t max_value_bytes = int64_t{1} << 30;
  // Executions at once; more wait (within their deadline).
  int concurrent_executions = 2;
  // Compiles of new modules at once; more wait (within their deadline).
  int concurrent_compiles = 2;
  // The most instructions a module may have (in all its computations).
  int64_t max_instructions = 200000;
  // When non-empty, every request must carry `authorization: Bearer TOKEN`
  // in its metadata.
  std::string auth_token;
};

class CompileServiceImpl final : public CompileService::Service {
 public:
  explicit CompileServiceImpl(ServiceOptions options);

  grpc::Status Compile(grpc::ServerContext* context, const CompileRequest* request,
                       CompileResponse* response) override;
  grpc::Status Execute(grpc::ServerContext* context, const ExecuteRequest* request,
                       ExecuteResponse* response) override;
  grpc::Status ExecuteStream(grpc::ServerContext* context,
                             grpc::ServerReaderWriter<ExecuteChunk, ExecuteChunk>* stream) override;
  grpc::Status TransferToServer(grpc::ServerContext* context,
                                const TransferToServerRequest* request,
                                TransferToServerResponse* response) override;
  grpc::Status TransferFromServer(grpc::ServerContext* context,
                                  const TransferFromServerRequest* request,
                                  TransferFromServerResponse* response) override;
  grpc::Status Unload(grpc::ServerContext* context, const UnloadRequest* request,
                      UnloadResponse* response) override;
  grpc::Status ListBackends(grpc::ServerContext* context, const ListBackendsRequest* request,
                            ListBackendsResponse* response) override;
  grpc::Status GetStats(grpc::ServerContext* context, const GetStatsRequest* request,
                        GetStatsResponse* response) override;

 private:
  absl::Status Authorize(const grpc::ServerContext& context) const;
  absl::Status DoCompile(grpc::ServerContext* context, const CompileRequest& request,
                         CompileResponse* response);
  // Imports, verifies, checks and compiles a module new to the cache.
  absl::StatusOr<std::shared_ptr<const CachedExecutable>> CompileNew(
      grpc::ServerContext* context, const CompileRequest& request, const CompileOptions& options,
      const std::string& key);
  absl::Status DoExecute(grpc::ServerContext* context, const ExecuteRequest& request,
                         ExecuteResponse* response);

  const ServiceOptions options_;
  std::unique_ptr<LocalClient> client_;
  ExecutableCache cache_;
  BufferStore buffers_;

  // Compiles in flight by cache key: a request for a module being compiled
  // waits for that compile instead of starting another.
  std::mutex compiling_mutex_;
  absl::flat_hash_map<std::string, std::shared_future<absl::Status>> compiling_;

  Slots execution_slots_;
  Slots compile_slots_;
  CallWatcher watcher_;

  std::atomic<int64_t> compile_requests_{0};
  std::atomic<int64_t> cache_hits_{0};
  std::atomic<int64_t> execute_requests_{0};
  std::atomic<int64_t> execute_errors_{0};
};

}  // namespace service
}  // namespace tessera

#endif  // TESSERA_SERVICE_COMPILE_SERVICE_H_
