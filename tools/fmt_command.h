// `tessera fmt MODULE [--to=text|proto] [-o FILE]`: parse (or import),
// verify, and write the module back as canonical HLO text or as a binary
// HloModuleProto.
#ifndef TESSERA_TOOLS_FMT_COMMAND_H_
#define TESSERA_TOOLS_FMT_COMMAND_H_

#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace tessera {

// `args` excludes "tessera fmt".  Output goes to `out` unless -o is given.
absl::Status RunFmtCommand(const std::vector<std::string>& args, std::ostream& out);

std::string FmtUsage();

}  // namespace tessera

#endif  // TESSERA_TOOLS_FMT_COMMAND_H_
