#include "tools/serve_command.h"

#include <signal.h>

#include <fstream>
#include <sstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/ascii.h"
#include "client/local_client.h"
#include "hlo/ir/status_macros.h"
#include "service/tessera_server.h"
#include "tools/command_line.h"

namespace tessera {
namespace {

const std::vector<FlagSpec>& ServeFlags() {
  static const auto* flags = new std::vector<FlagSpec>{
      {"address", true, false, "host:port to listen on (default 127.0.0.1:7070; port 0 picks "
                               "a free one); loopback unless told otherwise"},
      {"backend", true, false, "the backend for requests that name none: cpu (default) or "
                               "interpreter"},
      {"max_message_mb", true, false, "the largest request or response (default 64)"},
      {"max_executables", true, false, "compiled executables kept, least recently used "
                                       "evicted first (default 64)"},
      {"max_cache_mb", true, false, "the memory compiled executables may hold (default 4096)"},
      {"max_buffer_mb", true, false, "the memory values kept on the server may hold "
                                     "(default 4096)"},
      {"concurrent_executions", true, false, "executions at once; more wait within their "
                                             "deadline (default: the number of cores)"},
      {"concurrent_compiles", true, false, "compiles of new modules at once; more wait within "
                                           "their deadline (default: the number of cores)"},
      {"max_instructions", true, false, "the largest module compiled, in instructions "
                                        "(default 200000)"},
      {"auth_token_file", true, false, "require the token in this file in every request's "
                                       "`authorization: Bearer TOKEN` metadata"},
  };
  return *flags;
}

absl::StatusOr<int64_t> PositiveFlag(const CommandLine& cl, const std::string& name,
                                     int64_t fallback) {
  TS_ASSIGN_OR_RETURN(int64_t value, cl.GetInt(name, fallback));
  if (value < 1) {
    return absl::InvalidArgumentError(absl::StrCat("tessera serve: --", name, " must be >= 1"));
  }
  return value;
}

}  // namespace

absl::StatusOr<std::string> ReadTokenFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read the token file ", path));
  std::stringstream contents;
  contents << in.rdbuf();
  std::string token(absl::StripAsciiWhitespace(contents.str()));
  if (token.empty()) return absl::InvalidArgumentError(absl::StrCat("the token file ", path, " is empty"));
  return token;
}

std::string ServeUsage() {
  return absl::StrCat(
      "usage: tessera serve [--address=127.0.0.1:PORT] [--backend=cpu|interpreter]\n"
      "                    [--max_message_mb=N] [--max_executables=N] [--max_cache_mb=N]\n"
      "                    [--max_buffer_mb=N] [--concurrent_executions=N]\n"
      "                    [--concurrent_compiles=N] [--max_instructions=N]\n"
      "                    [--auth_token_file=F]\n"
      "Serves the Tessera compile-and-execute service (gRPC, service/tessera_service.proto)\n"
      "and gRPC's health service until interrupted.\n",
      FlagsHelp(ServeFlags()));
}

absl::Status RunServeCommand(const std::vector<std::string>& args, std::ostream& out) {
  TS_ASSIGN_OR_RETURN(CommandLine cl, CommandLine::Parse("serve", args, ServeFlags()));
  if (!cl.positional().empty()) {
    return absl::InvalidArgumentError(absl::StrCat("tessera serve: takes no positional "
                                                   "arguments\n", ServeUsage()));
  }
  service::ServerOptions options;
  options.address = cl.Get("address", "127.0.0.1:7070");
  options.service.default_backend = cl.Get("backend", "cpu");
  const std::vector<std::string> backends = LocalClient::Backends();
  if (std::find(backends.begin(), backends.end(), options.service.default_backend) ==
      backends.end()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "tessera serve: unknown backend '", options.service.default_backend, "' (available: ",
        absl::StrJoin(backends, ", "), ")"));
  }
  TS_ASSIGN_OR_RETURN(int64_t message_mb, PositiveFlag(cl, "max_message_mb", 64));
  options.max_message_mb = static_cast<int>(std::min<int64_t>(message_mb, 2047));
  TS_ASSIGN_OR_RETURN(options.service.max_executables, PositiveFlag(cl, "max_executables", 64));
  TS_ASSIGN_OR_RETURN(int64_t cache_mb, PositiveFlag(cl, "max_cache_mb", 4096));
  options.service.max_executable_bytes = cache_mb << 20;
  TS_ASSIGN_OR_RETURN(int64_t buffer_mb, PositiveFlag(cl, "max_buffer_mb", 4096));
  options.service.max_buffer_bytes = buffer_mb << 20;
  const int64_t cores = std::max(1u, std::thread::hardware_concurrency());
  TS_ASSIGN_OR_RETURN(int64_t concurrent, PositiveFlag(cl, "concurrent_executions", cores));
  options.service.concurrent_executions = static_cast<int>(concurrent);
  TS_ASSIGN_OR_RETURN(int64_t compiles, PositiveFlag(cl, "concurrent_compiles", cores));
  options.service.concurrent_compiles = static_cast<int>(compiles);
  TS_ASSIGN_OR_RETURN(options.service.max_instructions,
                      PositiveFlag(cl, "max_instructions", 200000));
  if (cl.Has("auth_token_file")) {
    TS_ASSIGN_OR_RETURN(options.service.auth_token, ReadTokenFile(cl.Get("auth_token_file")));
  }
  // Signals go to this thread only: the server's threads inherit the mask.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  TS_ASSIGN_OR_RETURN(std::unique_ptr<service::TesseraServer> server,
                      service::TesseraServer::Start(options));
  out << "tessera serve: listening on " << server->address() << " (default backend "
      << options.service.default_backend << ", "
      << (options.service.auth_token.empty() ? "no token" : "token required") << ")"
      << std::endl;
  int received = 0;
  sigwait(&signals, &received);
  out << "tessera serve: signal " << received << ", shutting down" << std::endl;
  server->Shutdown();
  return absl::OkStatus();
}

}  // namespace tessera
