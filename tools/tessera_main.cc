// The `tessera` command line: one binary, one subcommand per verb.
#include <iostream>
#include <new>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/background_compiler.h"
#include "tools/bench_command.h"
#include "tools/fmt_command.h"
#include "tools/opt_command.h"
#include "tools/run_command.h"
#include "tools/serve_command.h"

namespace {

constexpr char kUsage[] =
    "usage: tessera <command> [args]\n"
    "\n"
    "commands:\n"
    "  run MODULE [--input=F.npy ...] [--output_dir=DIR] [--print] [--seed=N]\n"
    "                                           run a module on the reference evaluator\n"
    "  fmt MODULE [--to=text|proto] [-o FILE]   parse, verify and re-print a module\n"
    "  opt MODULE [--passes=a,b | --pipeline=simplify] [--dump_dir=DIR] [--stats]\n"
    "                                           optimize a module and print it\n"
    "  bench MODULE [--backend=B] [--warmup=N --iters=N] [--format=text|json]\n"
    "                                           time a module in steady state\n"
    "  serve [--address=127.0.0.1:PORT] [--auth_token_file=F]\n"
    "                                           serve the compile-and-execute service (gRPC)\n"
    "  help [command]                           this text, or a command's flags\n"
    "\n"
    "MODULE is HLO text or a binary HloModuleProto; the format is detected from content.\n";

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << kUsage;
    return 2;
  }
  const std::string command = argv[1];
  std::vector<std::string> args(argv + 2, argv + argc);
  if (command == "help" || command == "--help" || command == "-h") {
    if (!args.empty() && args[0] == "fmt") {
      std::cout << tessera::FmtUsage();
    } else if (!args.empty() && args[0] == "bench") {
      std::cout << tessera::BenchUsage();
    } else if (!args.empty() && args[0] == "opt") {
      std::cout << tessera::OptUsage();
    } else if (!args.empty() && args[0] == "run") {
      std::cout << tessera::RunUsage();
    } else if (!args.empty() && args[0] == "serve") {
      std::cout << tessera::ServeUsage();
    } else {
      std::cout << kUsage;
    }
    return 0;
  }
  absl::Status status;
  // The libraries report memory they cannot get as errors where they
  // allocate for a program (arenas, results, evaluated values); anything
  // left (inputs made up for a huge parameter, say) ends here, not in
  // std::terminate.
  try {
    if (command == "fmt") {
      status = tessera::RunFmtCommand(args, std::cout);
    } else if (command == "bench") {
      status = tessera::RunBenchCommand(args, std::cout);
    } else if (command == "opt") {
      status = tessera::RunOptCommand(args, std::cout, std::cerr);
    } else if (command == "run") {
      status = tessera::RunRunCommand(args, std::cout);
    } else if (command == "serve") {
      status = tessera::RunServeCommand(args, std::cout);
    } else {
      std::cerr << "tessera: unknown command '" << command << "'\n" << kUsage;
      return 2;
    }
  } catch (const std::bad_alloc&) {
    status = absl::ResourceExhaustedError(
        absl::StrCat("tessera ", command, ": out of memory (a shape too large for this machine?)"));
  }
  // A tier-up still generating code in the background finishes now, while
  // every static object it may use is alive: at exit, those it made itself
  // (a library's first use) would be destroyed before its atexit handler
  // waits for it (background_compiler.h).
  tessera::cpu::BackgroundCompiler::Default().Stop();
  if (!status.ok()) {
    std::cerr << status.message() << "\n";
    return 1;
  }
  return 0;
}
