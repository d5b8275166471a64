// `tessera opt MODULE [--passes=a,b,c | --pipeline=simplify] [--dump_dir=DIR]
//  [--dump_pass_re=RE] [--stats] [--verify_each] [-o FILE]`: runs passes over
// a module and prints the result as HLO text.
#ifndef TESSERA_TOOLS_OPT_COMMAND_H_
#define TESSERA_TOOLS_OPT_COMMAND_H_

#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"

namespace tessera {

// `args` excludes "tessera opt".  The module goes to `out` (or -o FILE),
// `--stats` to `err`.
absl::Status RunOptCommand(const std::vector<std::string>& args, std::ostream& out,
                           std::ostream& err);

std::string OptUsage();

}  // namespace tessera

#endif  // TESSERA_TOOLS_OPT_COMMAND_H_
