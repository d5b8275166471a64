// For each module: how many instructions the CPU backend compiles to native
// kernels and which it still runs on the evaluator fallback (those run far
// slower; the benchmark suite marks their rows).
//
//   bazel run -c opt //benchmarks:cpu_fallbacks -- MODULE...
// Prints one JSON object per module:
//   {"module": "...", "native": N, "fallback": M, "fallbacks": ["opcode name: reason", ...]}
#include <cstdio>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "backends/cpu/cpu_compiler.h"
#include "hlo/ir/hlo_module.h"
#include "tools/module_io.h"

namespace {

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace

int main(int argc, char** argv) {
  int status = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string path = argv[i];
    auto module = tessera::LoadModule(path);
    if (!module.ok()) {
      std::fprintf(stderr, "%s: %s\n", path.c_str(), module.status().ToString().c_str());
      status = 1;
      continue;
    }
    auto executable = tessera::cpu::CompileForCpu(std::move(module).value());
    if (!executable.ok()) {
      std::fprintf(stderr, "%s: %s\n", path.c_str(), executable.status().ToString().c_str());
      status = 1;
      continue;
    }
    const tessera::cpu::CpuExecutableStats& stats = (*executable)->stats();
    std::string list;
    for (const std::string& f : stats.fallbacks) {
      absl::StrAppend(&list, list.empty() ? "" : ", ", JsonString(f));
    }
    std::printf("{\"module\": %s, \"native\": %ld, \"fallback\": %ld, \"fallbacks\": [%s]}\n",
                JsonString(path).c_str(), static_cast<long>(stats.native_instructions),
                static_cast<long>(stats.fallback_instructions), list.c_str());
  }
  return status;
}
