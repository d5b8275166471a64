// Reading and writing whole modules for the command line: the format of a
// module file (HLO text or a binary HloModuleProto) is detected from its
// content, whatever its extension.
#ifndef TESSERA_TOOLS_MODULE_IO_H_
#define TESSERA_TOOLS_MODULE_IO_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "hlo/ir/hlo_module.h"

namespace tessera {

enum class ModuleFormat { kText, kProto };

// Binary protos contain control bytes in their first few hundred bytes (field
// tags and lengths); HLO text never does.
ModuleFormat DetectModuleFormat(absl::string_view contents);

absl::StatusOr<std::string> ReadFileToString(const std::string& path);
absl::Status WriteStringToFile(const std::string& path, absl::string_view contents);

// Reads, parses (or imports) and verifies a module; errors start with the path.
absl::StatusOr<std::unique_ptr<HloModule>> LoadModule(const std::string& path);
// The same from bytes already in memory; `origin` names them in errors.
absl::StatusOr<std::unique_ptr<HloModule>> LoadModuleFromBytes(absl::string_view contents,
                                                               absl::string_view origin);

}  // namespace tessera

#endif  // TESSERA_TOOLS_MODULE_IO_H_
