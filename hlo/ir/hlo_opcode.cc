#include "hlo/ir/hlo_opcode.h"

#include <array>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"

namespace tessera {
namespace {

struct OpcodeInfo {
  absl::string_view name;
  int arity;
  OpCategory category;
  uint32_t flags;
};

constexpr std::array<OpcodeInfo, kHloOpcodeCount> kOpcodeTable = {{
#define TESSERA_OPCODE_INFO(enum_name, name, arity, category, flags) \
  {name, arity, OpCategory::category, static_cast<uint32_t>(flags)},
    TESSERA_HLO_OPCODE_LIST(TESSERA_OPCODE_INFO)
#undef TESSERA_OPCODE_INFO
}};

const OpcodeInfo& Info(HloOpcode opcode) { return kOpcodeTable[static_cast<int>(opcode)]; }

}  // namespace

absl::string_view HloOpcodeString(HloOpcode opcode) { return Info(opcode).name; }

absl::StatusOr<HloOpcode> StringToHloOpcode(absl::string_view name) {
  static const auto* by_name = [] {
    auto* map = new absl::flat_hash_map<absl::string_view, HloOpcode>();
    for (int i = 0; i < kHloOpcodeCount; ++i) {
      (*map)[kOpcodeTable[i].name] = static_cast<HloOpcode>(i);
    }
    return map;
  }();
  auto it = by_name->find(name);
  if (it == by_name->end()) {
    return absl::InvalidArgumentError(absl::StrCat("unknown opcode '", name, "'"));
  }
  return it->second;
}

std::optional<int> HloOpcodeArity(HloOpcode opcode) {
  const int arity = Info(opcode).arity;
  if (arity < 0) return std::nullopt;
  return arity;
}

OpCategory HloOpcodeCategory(HloOpcode opcode) { return Info(opcode).category; }

bool HloOpcodeHasFlag(HloOpcode opcode, OpFlag flag) { return (Info(opcode).flags & flag) != 0; }

}  // namespace tessera
