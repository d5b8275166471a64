// StructuralText: equal for computations that differ only in names (of
// instructions, parameters and called computations) or metadata; different
// for any change of shape, layout, opcode, operand order, attribute,
// constant value, called computation body, or quoted string.
#include "hlo/parser/hlo_structural_text.h"

#include <memory>
#include <string>

#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "hlo/parser/hlo_parser.h"

namespace tessera {
namespace {

constexpr char kModule[] = R"(
HloModule m

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY e {
  x = f32[4,8]{1,0} parameter(0)
  y = f32[4,8]{1,0} parameter(1)
  c = f32[] constant(0)
  m = f32[4,8]{1,0} multiply(x, y), metadata={op_name="jit(f)/mul"}
  ROOT r = f32[4]{0} reduce(m, c), dimensions={1}, to_apply=add
}
)";

std::string EntryText(const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  if (!module.ok()) return "";
  return StructuralText(*(*module)->entry_computation());
}

TEST(StructuralTextTest, NamesAndMetadataDoNotCount) {
  const std::string base = EntryText(kModule);
  ASSERT_FALSE(base.empty());
  EXPECT_EQ(base.find("%add"), std::string::npos) << base;
  EXPECT_EQ(base.find("%x"), std::string::npos) << base;
  const std::string renamed = absl::StrReplaceAll(kModule, {{"add {", "sum.17 {"},
                                                            {"to_apply=add", "to_apply=sum.17"},
                                                            {"x =", "p.1 ="},
                                                            {"(x,", "(p.1,"},
                                                            {" m =", " prod.9 ="},
                                                            {"(m,", "(prod.9,"},
                                                            {"jit(f)/mul", "other"}});
  EXPECT_EQ(EntryText(renamed), base);
}

TEST(StructuralTextTest, EveryStructuralChangeCounts) {
  const std::string base = EntryText(kModule);
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"f32[4,8]{1,0} parameter(1)", "f32[4,8]{0,1} parameter(1)"},  // layout
           {"multiply(x, y)", "multiply(y, x)"},                          // operand order
           {"multiply(x, y)", "subtract(x, y)"},                          // opcode
           {"constant(0)", "constant(1)"},                                // constant value
           {"ROOT s = f32[] add(a, b)", "ROOT s = f32[] maximum(a, b)"},  // called body
           {"parameter(0)\n  y = f32[4,8]{1,0} parameter(1)",             // parameter numbers
            "parameter(1)\n  y = f32[4,8]{1,0} parameter(0)"},
       }) {
    SCOPED_TRACE(from + " -> " + to);
    const std::string changed = absl::StrReplaceAll(kModule, {{from, to}});
    ASSERT_NE(changed, kModule);
    EXPECT_NE(EntryText(changed), base);
  }
}

TEST(StructuralTextTest, QuotedTextIsKept) {
  // A custom call's target is a quoted string: "%" in it is not a name.
  constexpr char kCall[] = R"(
HloModule m

ENTRY e {
  x = f32[2] parameter(0)
  ROOT c = f32[2] custom-call(x), custom_call_target="%TARGET"
}
)";
  const std::string a = EntryText(absl::StrReplaceAll(kCall, {{"TARGET", "one"}}));
  const std::string b = EntryText(absl::StrReplaceAll(kCall, {{"TARGET", "two"}}));
  ASSERT_FALSE(a.empty());
  EXPECT_NE(a, b);
  EXPECT_NE(a.find("%one"), std::string::npos) << a;
}

}  // namespace
}  // namespace tessera
