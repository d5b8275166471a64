#include "tools/fmt_command.h"

#include "absl/strings/str_cat.h"
#include "hlo/ir/status_macros.h"
#include "hlo/parser/hlo_printer.h"
#include "hlo/proto/hlo_proto_export.h"
#include "tools/command_line.h"
#include "tools/module_io.h"

namespace tessera {
namespace {

const std::vector<FlagSpec>& FmtFlags() {
  static const auto* flags = new std::vector<FlagSpec>{
      {"to", true, false, "output format: text (canonical HLO text, default) or proto"},
      {"o", true, false, "write to FILE instead of standard output"},
  };
  return *flags;
}

}  // namespace

std::string FmtUsage() {
  return absl::StrCat(
      "usage: tessera fmt MODULE [--to=text|proto] [-o FILE]\n"
      "Parses MODULE (HLO text or a binary HloModuleProto), verifies it, and\n"
      "writes it back in canonical form.\n",
      FlagsHelp(FmtFlags()));
}

absl::Status RunFmtCommand(const std::vector<std::string>& args, std::ostream& out) {
  TS_ASSIGN_OR_RETURN(CommandLine cl, CommandLine::Parse("fmt", args, FmtFlags()));
  if (cl.positional().size() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "tessera fmt: expected exactly one MODULE file, got ", cl.positional().size(), "\n",
        FmtUsage()));
  }
  const std::string to = cl.Get("to", "text");
  if (to != "text" && to != "proto") {
    return absl::InvalidArgumentError(
        absl::StrCat("tessera fmt: --to must be 'text' or 'proto', got '", to, "'"));
  }
  TS_ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, LoadModule(cl.positional()[0]));
  std::string output;
  if (to == "text") {
    output = PrintHloModule(*module);
  } else {
    TS_ASSIGN_OR_RETURN(output, SerializeHloModule(*module));
    if (!cl.Has("o")) {
      return absl::InvalidArgumentError(
          "tessera fmt: --to=proto writes binary data; give an output file with -o FILE");
    }
  }
  if (cl.Has("o")) return WriteStringToFile(cl.Get("o"), output);
  out << output;
  return absl::OkStatus();
}

}  // namespace tessera
