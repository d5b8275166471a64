// TesseraServer: the CompileService and gRPC's standard health service on
// one port, for `tessera serve` and for tests.
//
//   ServerOptions options;
//   options.address = "127.0.0.1:0";            // any free port
//   TS_ASSIGN_OR_RETURN(auto server, TesseraServer::Start(options));
//   ... connect to server->address() ...
//   server->Shutdown();
#ifndef TESSERA_SERVICE_TESSERA_SERVER_H_
#define TESSERA_SERVICE_TESSERA_SERVER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "grpcpp/server.h"
#include "service/compile_service.h"

namespace tessera {
namespace service {

struct ServerOptions {
  // host:port; port 0 picks a free one.  Loopback unless told otherwise.
  std::string address = "127.0.0.1:0";
  // The largest request or response message.
  int max_message_mb = 64;
  // Threads serving calls (gRPC's sync server, pollers included), at
  // least 4; calls beyond them are refused with RESOURCE_EXHAUSTED.
  int threads = 64;
  ServiceOptions service;
};

class TesseraServer {
 public:
  static absl::StatusOr<std::unique_ptr<TesseraServer>> Start(const ServerOptions& options);
  ~TesseraServer();

  // host:port as bound (the chosen port when asked for 0).
  const std::string& address() const { return address_; }
  // Stops taking calls, finishes those in flight (up to a short grace
  // period) and returns.
  void Shutdown();
  // Blocks until Shutdown.
  void Wait();

 private:
  TesseraServer() = default;
  std::unique_ptr<CompileServiceImpl> service_;
  std::unique_ptr<grpc::Server> server_;
  std::string address_;
};

}  // namespace service
}  // namespace tessera

#endif  // TESSERA_SERVICE_TESSERA_SERVER_H_
