#include "service/tessera_server.h"

#include <chrono>
#include <utility>

#include "absl/strings/str_cat.h"
#include "grpcpp/health_check_service_interface.h"
#include "grpcpp/resource_quota.h"
#include "grpcpp/server_builder.h"

namespace tessera {
namespace service {

absl::StatusOr<std::unique_ptr<TesseraServer>> TesseraServer::Start(const ServerOptions& options) {
  if (options.max_message_mb < 1 || options.max_message_mb > 2047) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_message_mb ", options.max_message_mb, " is outside [1, 2047]"));
  }
  std::unique_ptr<TesseraServer> server(new TesseraServer());
  server->service_ = std::make_unique<CompileServiceImpl>(options.service);
  grpc::EnableDefaultHealthCheckService(true);
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(options.address, grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(server->service_.get());
  const int bytes = options.max_message_mb * (1 << 20);
  builder.SetMaxReceiveMessageSize(bytes);
  builder.SetMaxSendMessageSize(bytes);
  grpc::ResourceQuota quota("tessera");
  quota.SetMaxThreads(std::max(4, options.threads));
  builder.SetResourceQuota(quota);
  server->server_ = builder.BuildAndStart();
  if (server->server_ == nullptr || port == 0) {
    return absl::UnavailableError(absl::StrCat("cannot listen on ", options.address));
  }
  const std::string host = options.address.substr(0, options.address.rfind(':'));
  server->address_ = absl::StrCat(host, ":", port);
  return server;
}

TesseraServer::~TesseraServer() { Shutdown(); }

void TesseraServer::Shutdown() {
  if (server_ != nullptr) {
    server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
  }
}

void TesseraServer::Wait() {
  if (server_ != nullptr) server_->Wait();
}

}  // namespace service
}  // namespace tessera
