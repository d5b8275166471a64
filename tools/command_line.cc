#include "tools/command_line.h"

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"

namespace tessera {
namespace {

const FlagSpec* FindSpec(const std::vector<FlagSpec>& specs, absl::string_view name) {
  for (const FlagSpec& spec : specs) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

}  // namespace

absl::StatusOr<CommandLine> CommandLine::Parse(absl::string_view command,
                                               const std::vector<std::string>& args,
                                               const std::vector<FlagSpec>& specs) {
  CommandLine result;
  result.command_ = std::string(command);
  bool only_positional = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (only_positional || arg.size() < 2 || arg[0] != '-') {
      result.positional_.push_back(arg);
      continue;
    }
    if (arg == "--") {
      only_positional = true;
      continue;
    }
    absl::string_view body = absl::StripPrefix(absl::StripPrefix(arg, "-"), "-");
    std::string name(body);
    std::string value;
    bool has_value = false;
    if (size_t eq = body.find('='); eq != absl::string_view::npos) {
      name = std::string(body.substr(0, eq));
      value = std::string(body.substr(eq + 1));
      has_value = true;
    }
    const FlagSpec* spec = FindSpec(specs, name);
    if (spec == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("tessera ", command, ": unknown flag '", arg, "'"));
    }
    if (spec->takes_value && !has_value) {
      if (i + 1 >= args.size()) {
        return absl::InvalidArgumentError(
            absl::StrCat("tessera ", command, ": flag --", name, " needs a value"));
      }
      value = args[++i];
    } else if (!spec->takes_value) {
      if (has_value && value != "true" && value != "false") {
        return absl::InvalidArgumentError(absl::StrCat(
            "tessera ", command, ": flag --", name, " is a switch; got value '", value, "'"));
      }
      if (!has_value) value = "true";
    }
    auto& values = result.values_[name];
    if (!values.empty() && !spec->repeatable) {
      return absl::InvalidArgumentError(
          absl::StrCat("tessera ", command, ": flag --", name, " given more than once"));
    }
    values.push_back(value);
  }
  return result;
}

bool CommandLine::Has(absl::string_view name) const {
  auto it = values_.find(name);
  return it != values_.end() && !(it->second.size() == 1 && it->second[0] == "false");
}

std::string CommandLine::Get(absl::string_view name, absl::string_view fallback) const {
  auto it = values_.find(name);
  if (it == values_.end() || it->second.empty()) return std::string(fallback);
  return it->second.back();
}

const std::vector<std::string>& CommandLine::GetAll(absl::string_view name) const {
  static const std::vector<std::string>* empty = new std::vector<std::string>();
  auto it = values_.find(name);
  return it == values_.end() ? *empty : it->second;
}

absl::StatusOr<int64_t> CommandLine::GetInt(absl::string_view name, int64_t fallback) const {
  auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  int64_t value;
  if (!absl::SimpleAtoi(it->second.back(), &value)) {
    return absl::InvalidArgumentError(absl::StrCat("tessera ", command_, ": flag --", name,
                                                   " needs an integer; got '",
                                                   it->second.back(), "'"));
  }
  return value;
}

std::string FlagsHelp(const std::vector<FlagSpec>& specs) {
  std::string out;
  for (const FlagSpec& spec : specs) {
    std::string left = absl::StrCat(spec.name.size() == 1 ? "-" : "--", spec.name,
                                     spec.takes_value ? "=VALUE" : "");
    if (left.size() < 24) left.resize(24, ' ');
    absl::StrAppend(&out, "  ", left, " ", spec.help, "\n");
  }
  return out;
}

}  // namespace tessera
