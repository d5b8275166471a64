// `tessera serve`: the compile-and-execute service (service/) on a port.
#ifndef TESSERA_TOOLS_SERVE_COMMAND_H_
#define TESSERA_TOOLS_SERVE_COMMAND_H_

#include <ostream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace tessera {

std::string ServeUsage();
// Serves until SIGINT or SIGTERM; prints the address it listens on.
absl::Status RunServeCommand(const std::vector<std::string>& args, std::ostream& out);

// The token in `path` (surrounding whitespace dropped); an error for an
// unreadable or empty file.
absl::StatusOr<std::string> ReadTokenFile(const std::string& path);

}  // namespace tessera

#endif  // TESSERA_TOOLS_SERVE_COMMAND_H_
