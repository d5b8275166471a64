#include "tools/module_io.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "hlo/analysis/hlo_verifier.h"
#include "hlo/ir/status_macros.h"
#include "hlo/parser/hlo_parser.h"
#include "hlo/proto/hlo_proto_import.h"

namespace tessera {
namespace {

absl::Status Prefixed(absl::string_view origin, const absl::Status& status) {
  return absl::Status(status.code(), absl::StrCat(origin, ": ", status.message()));
}

}  // namespace

ModuleFormat DetectModuleFormat(absl::string_view contents) {
  const size_t n = std::min<size_t>(contents.size(), 512);
  for (size_t i = 0; i < n; ++i) {
    const unsigned char c = contents[i];
    if (c < 0x20 && c != '\n' && c != '\r' && c != '\t' && c != '\f' && c != '\v') {
      return ModuleFormat::kProto;
    }
  }
  return ModuleFormat::kText;
}

absl::StatusOr<std::string> ReadFileToString(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(absl::StrCat("cannot read ", path, ": ", std::strerror(errno)));
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return absl::DataLossError(absl::StrCat("error reading ", path));
  return buffer.str();
}

absl::Status WriteStringToFile(const std::string& path, absl::string_view contents) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot write ", path, ": ", std::strerror(errno)));
  }
  out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
  if (!out) return absl::DataLossError(absl::StrCat("error writing ", path));
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<HloModule>> LoadModuleFromBytes(absl::string_view contents,
                                                               absl::string_view origin) {
  absl::StatusOr<std::unique_ptr<HloModule>> module =
      DetectModuleFormat(contents) == ModuleFormat::kProto
          ? ParseHloModuleProtoBytes(std::string_view(contents.data(), contents.size()))
          : ParseHloModule(contents);
  if (!module.ok()) return Prefixed(origin, module.status());
  absl::Status verified = VerifyHloModule(**module);
  if (!verified.ok()) return Prefixed(origin, verified);
  return module;
}

absl::StatusOr<std::unique_ptr<HloModule>> LoadModule(const std::string& path) {
  TS_ASSIGN_OR_RETURN(std::string contents, ReadFileToString(path));
  return LoadModuleFromBytes(contents, path);
}

}  // namespace tessera
