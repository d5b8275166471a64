// `tessera bench MODULE [--backend=interpreter|cpu] [--input=FILE.npy ...]
//  [--warmup=N --iters=N] [--format=text|json]`: compiles a module once and
// times it in steady state (arena and result buffers allocated once, as a
// serving user runs it), then prints compile time, min / median / max run
// time, and GB/s and GFLOP/s from the cost analysis of the fused module.
#ifndef TESSERA_TOOLS_BENCH_COMMAND_H_
#define TESSERA_TOOLS_BENCH_COMMAND_H_

#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace tessera {

absl::Status RunBenchCommand(const std::vector<std::string>& args, std::ostream& out);
std::string BenchUsage();

}  // namespace tessera

#endif  // TESSERA_TOOLS_BENCH_COMMAND_H_
