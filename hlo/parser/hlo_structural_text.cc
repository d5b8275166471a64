// StructuralText; see hlo_structural_text.h.
#include "hlo/parser/hlo_structural_text.h"

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "hlo/ir/hlo_instruction.h"
#include "hlo/parser/hlo_printer.h"

namespace tessera {
namespace {

// `root` and the computations it calls, depth first, each once.
void CollectComputations(const HloComputation* root,
                         absl::flat_hash_set<const HloComputation*>* seen,
                         std::vector<const HloComputation*>* order) {
  if (!seen->insert(root).second) return;
  order->push_back(root);
  for (const HloInstruction* instruction : root->MakeInstructionPostOrder()) {
    for (const HloComputation* called : instruction->called_computations()) {
      CollectComputations(called, seen, order);
    }
  }
}

bool IsNameCharacter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '-';
}

// `text` with each "%name" outside quoted strings replaced by "%N".
std::string NumberNames(const std::string& text) {
  absl::flat_hash_map<std::string, int> numbers;
  std::string result;
  result.reserve(text.size());
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      result.push_back(c);
      if (c == '\\' && i + 1 < text.size()) {
        result.push_back(text[++i]);
      } else if (c == '"') {
        quoted = false;
      }
      continue;
    }
    if (c == '"') quoted = true;
    if (c != '%') {
      result.push_back(c);
      continue;
    }
    size_t end = i + 1;
    while (end < text.size() && IsNameCharacter(text[end])) ++end;
    const std::string name = text.substr(i + 1, end - i - 1);
    const auto [it, inserted] = numbers.try_emplace(name, static_cast<int>(numbers.size()));
    absl::StrAppend(&result, "%", it->second);
    i = end - 1;
  }
  return result;
}

}  // namespace

std::string StructuralText(const HloComputation& computation) {
  absl::flat_hash_set<const HloComputation*> seen;
  std::vector<const HloComputation*> order;
  CollectComputations(&computation, &seen, &order);
  HloPrintOptions options;
  options.print_program_shape = false;
  options.print_metadata = false;
  std::string text;
  for (const HloComputation* c : order) {
    absl::StrAppend(&text, PrintHloComputation(*c, options), "\n");
  }
  return NumberNames(text);
}

}  // namespace tessera
