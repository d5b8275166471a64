// A small command-line parser for the `tessera` subcommands.  Each command
// declares its flags; anything else is an error naming the flag and the
// command.  Accepts `--name=value`, `--name value`, `-o value`, bare
// boolean flags (`--print`) and repeated flags (`--input=a --input=b`).
#ifndef TESSERA_TOOLS_COMMAND_LINE_H_
#define TESSERA_TOOLS_COMMAND_LINE_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tessera {

struct FlagSpec {
  std::string name;          // without dashes; "o" for -o
  bool takes_value = true;   // false: a boolean switch
  bool repeatable = false;
  std::string help;
};

class CommandLine {
 public:
  // `args` excludes the program and command names.
  static absl::StatusOr<CommandLine> Parse(absl::string_view command,
                                           const std::vector<std::string>& args,
                                           const std::vector<FlagSpec>& specs);

  const std::vector<std::string>& positional() const { return positional_; }
  bool Has(absl::string_view name) const;
  // The last value given, or `fallback`.
  std::string Get(absl::string_view name, absl::string_view fallback = "") const;
  const std::vector<std::string>& GetAll(absl::string_view name) const;
  // Integer flag; an error naming the flag when it is not an integer.
  absl::StatusOr<int64_t> GetInt(absl::string_view name, int64_t fallback) const;

 private:
  std::string command_;
  std::vector<std::string> positional_;
  std::map<std::string, std::vector<std::string>, std::less<>> values_;
};

// "  --name=VALUE  help" lines for a usage message.
std::string FlagsHelp(const std::vector<FlagSpec>& specs);

}  // namespace tessera

#endif  // TESSERA_TOOLS_COMMAND_LINE_H_
