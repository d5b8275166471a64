// Malformed HLO text: every error must say what is wrong and where
// ("line L, column C: ..."), and no input may crash the parser (deep
// nesting, huge numbers, garbage bytes, every truncation of a valid module,
// single-byte mutations).
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/parser/hlo_parser.h"
#include "hlo/parser/hlo_parser_test_util.h"

namespace tessera {
namespace {

using parser_test::Message;
using ::testing::HasSubstr;

// 1-based "line L, column C" of the first occurrence of `needle` in `text`
// after the first occurrence of `after` (empty: from the start).
std::string PositionOf(absl::string_view text, absl::string_view needle,
                       absl::string_view after = "") {
  size_t from = after.empty() ? 0 : text.find(after);
  if (from == absl::string_view::npos) return "<after-marker not found>";
  from += after.size();
  const size_t at = text.find(needle, from);
  if (at == absl::string_view::npos) return "<needle not found>";
  int64_t line = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < at; ++i) {
    if (text[i] == '\n') {
      ++line;
      line_start = i + 1;
    }
  }
  return absl::StrCat("line ", line, ", column ", at - line_start + 1);
}

// Parsing `text` fails with InvalidArgument, at `position`, with a message
// containing `what`.
::testing::AssertionResult FailsWith(absl::string_view text, absl::string_view position,
                                     absl::string_view what) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  if (module.ok()) return ::testing::AssertionFailure() << "parsed without error";
  const std::string message = Message(module.status());
  if (module.status().code() != absl::StatusCode::kInvalidArgument) {
    return ::testing::AssertionFailure() << "wrong code: " << module.status();
  }
  if (!absl::StartsWith(message, absl::StrCat(position, ": "))) {
    return ::testing::AssertionFailure() << "expected position " << position << " in: " << message;
  }
  if (!absl::StrContains(message, what)) {
    return ::testing::AssertionFailure() << "expected \"" << what << "\" in: " << message;
  }
  return ::testing::AssertionSuccess() << message;
}

// The error points at the first `needle` (after `after`).
::testing::AssertionResult FailsAt(absl::string_view text, absl::string_view needle,
                                   absl::string_view what, absl::string_view after = "") {
  return FailsWith(text, PositionOf(text, needle, after), what);
}

// A module: a header, `computations`, then an entry with parameters %x, %y
// (f32[4]) and %i (s32[]), then `body`, then the closing brace.
std::string Entry(absl::string_view body, absl::string_view computations = "") {
  return absl::StrCat("HloModule m\n", computations,
                      "ENTRY %main {\n  %x = f32[4] parameter(0)\n  %y = f32[4] parameter(1)\n"
                      "  %i = s32[] parameter(2)\n",
                      body, "\n}\n");
}

// The position just after the end of the line containing `marker`.
std::string EndOfLine(absl::string_view text, absl::string_view marker) {
  return PositionOf(text, "\n", marker);
}

constexpr absl::string_view kAdd = R"(%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
)";

// ---------------------------------------------------------------------------
// Module structure.

TEST(ParseErrorTest, EmptyModule) {
  EXPECT_TRUE(FailsWith("", "line 1, column 1", "expected a computation, got end of input"));
  EXPECT_TRUE(FailsWith("  \n // only a comment\n", "line 3, column 1",
                        "expected a computation, got end of input"));
  EXPECT_TRUE(FailsWith("HloModule m\n", "line 2, column 1", "expected a computation"));
}

TEST(ParseErrorTest, ComputationWithoutInstructions) {
  const std::string text = "ENTRY %main {\n}\n";
  EXPECT_TRUE(FailsAt(text, "}", "expected an instruction, got '}'"));
}

TEST(ParseErrorTest, UnknownOpcode) {
  const std::string text = Entry("  ROOT %r = f32[4] frobnicate(%x)");
  EXPECT_TRUE(FailsAt(text, "frobnicate", "unknown opcode 'frobnicate'"));
}

TEST(ParseErrorTest, UnknownAttribute) {
  const std::string text = Entry("  ROOT %r = f32[4] add(%x, %y), bogus=1");
  EXPECT_TRUE(FailsAt(text, "bogus", "unexpected attribute 'bogus' for add; expected one of:"));
}

TEST(ParseErrorTest, AttributeOfAnotherOpcode) {
  const std::string text = Entry("  ROOT %r = f32[4] negate(%x), dimensions={0}");
  EXPECT_TRUE(FailsAt(text, "dimensions", "unexpected attribute 'dimensions' for negate"));
}

// A missing attribute is reported where it belongs: at the end of the
// instruction (not at whatever token comes next, lines later).
TEST(ParseErrorTest, MissingRequiredAttribute) {
  const std::string broadcast = Entry("  ROOT %r = f32[2,4] broadcast(%x)\n\n");
  EXPECT_TRUE(FailsWith(broadcast, EndOfLine(broadcast, "broadcast"),
                        "expected attribute 'dimensions' for broadcast (it is required)"));
  const std::string compare = Entry("  ROOT %r = pred[4] compare(%x, %y), type=FLOAT");
  EXPECT_TRUE(FailsWith(compare, EndOfLine(compare, "compare"),
                        "expected attribute 'direction' for compare"));
  const std::string iota = Entry("  ROOT %r = s32[4] iota()");
  EXPECT_TRUE(
      FailsWith(iota, EndOfLine(iota, "iota"), "expected attribute 'iota_dimension' for iota"));
  const std::string gte =
      Entry("  %t = (f32[4]) tuple(%x)\n  ROOT %r = f32[4] get-tuple-element(%t)");
  EXPECT_TRUE(FailsWith(gte, EndOfLine(gte, "get-tuple"),
                        "expected attribute 'index' for get-tuple-element"));
  const std::string custom = Entry("  ROOT %r = f32[4] custom-call(%x), backend_config=\"x\"");
  EXPECT_TRUE(FailsWith(custom, EndOfLine(custom, "custom-call"),
                        "expected attribute 'custom_call_target' for custom-call"));
  const std::string gather = Entry(
      "  ROOT %r = f32[4] gather(%x, %i), offset_dims={}, collapsed_slice_dims={0}, "
      "start_index_map={0}, index_vector_dim=0");
  EXPECT_TRUE(FailsWith(gather, EndOfLine(gather, "gather"),
                        "expected attribute 'slice_sizes' for gather"));
  const std::string frames =
      "HloModule m\nFileNames\nFunctionNames\nFileLocations\n1 {file_name_id=1}\n"
      "StackFrames\nENTRY %e {\n  ROOT %c = f32[] constant(1)\n}\n";
  EXPECT_TRUE(FailsAt(frames, "{file_name_id", "the file location needs the attribute 'column'"));
}

TEST(ParseErrorTest, DuplicateAttribute) {
  const std::string text =
      Entry("  ROOT %r = f32[4] transpose(%x), dimensions={0}, dimensions={0}");
  EXPECT_TRUE(
      FailsAt(text, "dimensions", "attribute 'dimensions' is given more than once", "{0}, "));
}

TEST(ParseErrorTest, DuplicateInstructionName) {
  const std::string text = Entry("  %x = f32[4] negate(%y)\n  ROOT %r = f32[4] negate(%x)");
  EXPECT_TRUE(FailsAt(text, "%x = f32[4] negate", "instruction 'x' is already defined"));
}

TEST(ParseErrorTest, UndefinedOperand) {
  const std::string text = Entry("  ROOT %r = f32[4] add(%x, %nope)");
  EXPECT_TRUE(FailsAt(text, "%nope", "unknown instruction 'nope'"));
}

TEST(ParseErrorTest, OperandUsedBeforeDefinition) {
  const std::string text = Entry("  %a = f32[4] negate(%b)\n  ROOT %b = f32[4] negate(%x)");
  EXPECT_TRUE(
      FailsAt(text, "%b)", "unknown instruction 'b' (operands must be defined before use)"));
}

TEST(ParseErrorTest, UndefinedComputation) {
  const std::string text = Entry(
      "  %z = f32[] constant(0)\n  ROOT %r = f32[] reduce(%x, %z), dimensions={0}, "
      "to_apply=%missing");
  EXPECT_TRUE(FailsAt(text, "%missing", "unknown computation 'missing'"));
}

TEST(ParseErrorTest, ComputationUsedBeforeDefinition) {
  const std::string text = absl::StrCat(
      Entry("  %z = f32[] constant(0)\n  ROOT %r = f32[] reduce(%x, %z), dimensions={0}, "
            "to_apply=%add"),
      kAdd);
  EXPECT_TRUE(FailsAt(text, "%add",
                      "unknown computation 'add' (computations must be defined "
                      "before use)"));
}

TEST(ParseErrorTest, DuplicateComputation) {
  const std::string text = absl::StrCat(kAdd, kAdd, Entry("  ROOT %r = f32[4] negate(%x)"));
  EXPECT_TRUE(FailsAt(text, "%add", "computation 'add' is already defined", "}\n"));
}

TEST(ParseErrorTest, TwoEntryComputations) {
  const std::string text =
      "ENTRY %a {\n  ROOT %c = f32[] constant(1)\n}\nENTRY %b {\n  ROOT %c = f32[] "
      "constant(1)\n}\n";
  EXPECT_TRUE(FailsAt(text, "ENTRY %b", "a module can have only one ENTRY computation"));
}

TEST(ParseErrorTest, TwoRoots) {
  const std::string text = Entry("  ROOT %a = f32[4] negate(%x)\n  ROOT %b = f32[4] negate(%y)");
  EXPECT_TRUE(FailsAt(text, "ROOT %b", "a computation can have only one ROOT instruction"));
}

TEST(ParseErrorTest, MissingEqualsAfterName) {
  const std::string text = Entry("  ROOT %r f32[4] negate(%x)");
  EXPECT_TRUE(FailsAt(text, "f32[4] negate", "expected '=' after the instruction name"));
}

TEST(ParseErrorTest, ParameterNumberDuplicated) {
  const std::string text = Entry("  %w = f32[4] parameter(1)\n  ROOT %r = f32[4] add(%w, %x)");
  EXPECT_TRUE(FailsAt(text, "parameter(1)", "parameter number 1 is already used by %y", "%w ="));
}

TEST(ParseErrorTest, ParameterNumberNegative) {
  const std::string text = "ENTRY %e {\n  ROOT %p = f32[] parameter(-1)\n}\n";
  EXPECT_TRUE(FailsAt(text, "-1", "expected a non-negative parameter number"));
}

TEST(ParseErrorTest, ConstantWithoutShape) {
  const std::string text = "ENTRY %e {\n  ROOT %c = constant(1)\n}\n";
  EXPECT_TRUE(FailsAt(text, "constant", "constant needs an explicit result shape"));
}

TEST(ParseErrorTest, ShapeThatCannotBeInferred) {
  const std::string text = Entry("  ROOT %r = convert(%x)");
  EXPECT_TRUE(FailsAt(text, "convert", "cannot infer the result shape of convert"));
}

TEST(ParseErrorTest, DeclaredOperandShapeMismatch) {
  const std::string text = Entry("  ROOT %r = f32[4] add(f32[3] %x, %y)");
  EXPECT_TRUE(FailsAt(text, "f32[3]", "operand shape f32[3]{0} does not match %x's shape"));
}

// ---------------------------------------------------------------------------
// Shapes and layouts.

TEST(ParseErrorTest, BadShapeText) {
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = f32[4 negate(%x)"), "negate",
                      "expected ']' to end the dimensions"));
  EXPECT_TRUE(
      FailsAt(Entry("  ROOT %r = f32[4,] negate(%x)"), "]", "expected a dimension size", "f32[4,"));
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = f32 negate(%x)"), "negate",
                      "expected '[' to begin the dimensions"));
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = (f32[4] negate(%x)"), "negate",
                      "expected ')' to end the tuple shape"));
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = f32[-3] negate(%x)"), "-3",
                      "expected a non-negative dimension size"));
}

TEST(ParseErrorTest, UnknownElementTypeIsNamed) {
  const std::string text = Entry("  ROOT %r = f33[4] negate(%x)");
  EXPECT_TRUE(FailsAt(text, "f33", "unknown element type 'f33'"));
}

TEST(ParseErrorTest, UnsupportedElementTypes) {
  EXPECT_TRUE(
      FailsAt(Entry("  ROOT %r = s4[4] convert(%x)"), "s4", "element type 's4' is not supported"));
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = f4e2m1fn[4] convert(%x)"), "f4e2m1fn",
                      "element type 'f4e2m1fn' is not supported"));
  EXPECT_TRUE(FailsAt("ENTRY %e {\n  ROOT %p = (f32[], u4[2]) parameter(0)\n}\n", "u4",
                      "element type 'u4' is not supported"));
}

TEST(ParseErrorTest, LayoutNotAPermutation) {
  EXPECT_TRUE(FailsAt("ENTRY %e {\n  ROOT %p = f32[2,3]{0,0} parameter(0)\n}\n", "{0,0}",
                      "layout {0,0} is not a permutation of the dimensions 0..1"));
  EXPECT_TRUE(FailsAt("ENTRY %e {\n  ROOT %p = f32[2,3]{2,1} parameter(0)\n}\n", "{2,1}",
                      "layout {2,1} is not a permutation of the dimensions 0..1"));
  EXPECT_TRUE(FailsAt("ENTRY %e {\n  ROOT %p = f32[2,3]{-1,0} parameter(0)\n}\n", "{-1,0}",
                      "is not a permutation"));
  EXPECT_TRUE(FailsAt("ENTRY %e {\n  ROOT %p = f32[2,3]{0} parameter(0)\n}\n", "{0}",
                      "expected a layout of 2 dimensions, got 1"));
}

TEST(ParseErrorTest, BadTiledLayouts) {
  EXPECT_TRUE(FailsAt("ENTRY %e {\n  ROOT %p = f32[8]{0:T(0)} parameter(0)\n}\n", "0)}",
                      "expected a positive tile dimension"));
  EXPECT_TRUE(FailsAt("ENTRY %e {\n  ROOT %p = f32[8]{0:T(8)E(-4)} parameter(0)\n}\n", "-4",
                      "expected a non-negative element size in bits"));
  EXPECT_TRUE(FailsAt("ENTRY %e {\n  ROOT %p = f32[8]{0:S(-1)} parameter(0)\n}\n", "-1",
                      "expected a non-negative memory space"));
  EXPECT_TRUE(FailsAt("ENTRY %e {\n  ROOT %p = f32[8]{0:E 8} parameter(0)\n}\n", "8}",
                      "expected '(' after E, got integer '8'"));
  EXPECT_TRUE(FailsAt("ENTRY %e {\n  ROOT %p = f32[8]{0:S(1} parameter(0)\n}\n", "}",
                      "expected ')' to end S(...), got '}'", "S(1"));
  EXPECT_TRUE(FailsAt("ENTRY %e {\n  ROOT %p = f32[8]{0:T(8)T(2)} parameter(0)\n}\n", "T(2)",
                      "expected '}' to end the layout, got identifier 'T'"));
  EXPECT_TRUE(FailsAt("ENTRY %e {\n  ROOT %p = f32[8]{0:D(C)} parameter(0)\n}\n", "D(",
                      "sparse layouts (D(...)) are not supported"));
}

TEST(ParseErrorTest, SignatureDisagreesWithRoot) {
  const std::string text =
      "HloModule m\nENTRY %e (x: f32[2]) -> f32[3] {\n  ROOT %x = f32[2] parameter(0)\n}\n";
  EXPECT_TRUE(FailsAt(text, "f32[3]",
                      "computation 'e' is declared to return f32[3] but its root %x has shape "
                      "f32[2]"));
  // Layouts do not take part.
  EXPECT_TRUE(ParseHloModule("ENTRY %e (x: f32[2,2]) -> f32[2,2]{0,1} {\n"
                             "  ROOT %x = f32[2,2]{1,0} parameter(0)\n}\n")
                  .ok());
}

TEST(ParseErrorTest, LayoutOnNonArray) {
  EXPECT_TRUE(
      FailsAt("ENTRY %e {\n  ROOT %t = token[]{} after-all()\n}\n", "{}", "expected an opcode"));
}

TEST(ParseErrorTest, HugeDimensionsOverflow) {
  EXPECT_TRUE(FailsAt("ENTRY %e {\n  ROOT %p = f32[99999999999999999999] parameter(0)\n}\n",
                      "99999999999999999999", "integer literal out of range"));
  // 2^64 - 1 is a valid u64 constant but no other integer.
  EXPECT_TRUE(FailsAt("ENTRY %e {\n  ROOT %p = f32[18446744073709551615] parameter(0)\n}\n",
                      "18446744073709551615",
                      "integer 18446744073709551615 is out of range for int64"));
  EXPECT_TRUE(
      FailsAt("ENTRY %e {\n  %x = f32[4] parameter(0)\n  ROOT %t = f32[4] transpose(%x), "
              "dimensions={9223372036854775808}\n}\n",
              "9223372036854775808", "is out of range for int64"));
  // A shape whose element count overflows cannot hold a constant.
  const std::string text = "ENTRY %e {\n  ROOT %c = f32[4294967296,4294967296] constant({1})\n}\n";
  EXPECT_TRUE(FailsAt(text, "{1}", "constant has too many elements"));
  EXPECT_TRUE(
      FailsAt("ENTRY %e {\n  %x = f32[4] parameter(0)\n  ROOT %t = f32[4] transpose(%x), "
              "dimensions={99999999999999999999}\n}\n",
              "99999999999999999999", "integer literal out of range"));
  EXPECT_TRUE(FailsAt("ENTRY %e {\n  ROOT %p = f32[] parameter(99999999999999999999)\n}\n",
                      "99999999999999999999", "integer literal out of range"));
}

TEST(ParseErrorTest, ParameterNumberTooLarge) {
  // The IR's parameter table stops at 2^20; a larger number would leave the
  // parameter unregistered.
  EXPECT_TRUE(FailsAt("ENTRY %e {\n  ROOT %p = f32[] parameter(9223372036854775807)\n}\n",
                      "9223372036854775807",
                      "parameter number 9223372036854775807 is too large (the limit is 1048575)"));
  EXPECT_TRUE(ParseHloModule("ENTRY %e {\n  ROOT %p = f32[] parameter(1048575)\n}\n").ok());
}

// ---------------------------------------------------------------------------
// Constants.

TEST(ParseErrorTest, ConstantWithWrongElementCount) {
  EXPECT_TRUE(FailsAt("ENTRY %e {\n  ROOT %c = f32[3] constant({1, 2})\n}\n", "})",
                      "expected 3 elements in dimension 0, got 2"));
  EXPECT_TRUE(FailsAt("ENTRY %e {\n  ROOT %c = f32[2] constant({1, 2, 3})\n}\n", "3}",
                      "expected 2 elements in the innermost dimension, got more"));
  EXPECT_TRUE(FailsAt("ENTRY %e {\n  ROOT %c = f32[2,2] constant({{1, 2}, {3, 4}, {5, 6}})\n}\n",
                      "{5", "expected 2 elements in dimension 0, got more"));
  EXPECT_TRUE(FailsAt("ENTRY %e {\n  ROOT %c = f32[2,2] constant({1, 2, 3, 4})\n}\n", "1,",
                      "expected a nested array of rank 2, got a value at depth 1"));
  EXPECT_TRUE(FailsAt("ENTRY %e {\n  ROOT %c = f32[2] constant({{1}, {2}})\n}\n", "{1}",
                      "expected a nested array of rank 1, got deeper nesting"));
  EXPECT_TRUE(FailsAt("ENTRY %e {\n  ROOT %c = f32[2] constant(1)\n}\n", "1)",
                      "expected '{' to begin an array of rank 1"));
  EXPECT_TRUE(FailsAt("ENTRY %e {\n  ROOT %c = f32[] constant({1})\n}\n", "{1}",
                      "expected a nested array of rank 0, got deeper nesting"));
}

TEST(ParseErrorTest, ConstantTooLargeForItsText) {
  EXPECT_TRUE(FailsAt("ENTRY %e {\n  ROOT %c = f32[1000000000] constant({1})\n}\n", "{1}",
                      "has 1000000000 elements, more than the text can hold"));
  EXPECT_TRUE(FailsAt("ENTRY %e {\n  ROOT %c = f32[1000] constant({...})\n}\n", "{...}",
                      "constant value elided as {...}"));
}

TEST(ParseErrorTest, NonNumericConstant) {
  EXPECT_TRUE(FailsAt("ENTRY %e {\n  ROOT %c = f32[] constant(abc)\n}\n", "abc",
                      "expected a literal value, got identifier 'abc'"));
  EXPECT_TRUE(FailsAt("ENTRY %e {\n  ROOT %c = s32[] constant(1.5)\n}\n", "1.5",
                      "expected an integer for s32, got decimal '1.5'"));
  EXPECT_TRUE(FailsAt("ENTRY %e {\n  ROOT %c = s32[] constant(true)\n}\n", "true",
                      "true/false is not a s32 value"));
  EXPECT_TRUE(FailsAt("ENTRY %e {\n  ROOT %c = f32[] constant((1, 2))\n}\n", "(1, 2)",
                      "'(' is only valid in complex constants, not f32"));
  EXPECT_TRUE(FailsAt("ENTRY %e {\n  ROOT %c = c64[] constant(1)\n}\n", "1)",
                      "expected '(' to begin a c64 value"));
  EXPECT_TRUE(FailsAt("ENTRY %e {\n  ROOT %c = token[] constant(1)\n}\n", "1)",
                      "cannot write a constant of shape token[]"));
}

TEST(ParseErrorTest, ConstantOutOfRange) {
  EXPECT_TRUE(FailsAt("ENTRY %e {\n  ROOT %c = s8[2] constant({1, 128})\n}\n", "128",
                      "value 128 is out of range for s8"));
  EXPECT_TRUE(FailsAt("ENTRY %e {\n  ROOT %c = u8[1] constant({-1})\n}\n", "-1",
                      "value -1 is out of range for u8"));
  // float8: past the largest finite value (after rounding), or an infinity
  // where the format has none.
  EXPECT_TRUE(FailsAt("ENTRY %e {\n  ROOT %c = f8e4m3fn[2] constant({1, 500})\n}\n", "500",
                      "value 500 is out of range for f8e4m3fn"));
  EXPECT_TRUE(FailsAt("ENTRY %e {\n  ROOT %c = f8e4m3fnuz[] constant(-inf)\n}\n", "-inf",
                      "is out of range for f8e4m3fnuz"));
  EXPECT_TRUE(FailsAt("ENTRY %e {\n  ROOT %c = s64[] constant(9223372036854775808)\n}\n",
                      "9223372036854775808", "value 9223372036854775808 is out of range for s64"));
  EXPECT_TRUE(FailsAt("ENTRY %e {\n  ROOT %c = s8[] constant(18446744073709551615)\n}\n",
                      "18446744073709551615", "is out of range for s8"));
  EXPECT_TRUE(FailsAt("ENTRY %e {\n  ROOT %c = u64[] constant(-1)\n}\n", "-1",
                      "value -1 is out of range for u64"));
  EXPECT_TRUE(FailsAt("ENTRY %e {\n  ROOT %c = pred[2] constant({1, 2})\n}\n", "2}",
                      "value 2 is out of range for pred (0 or 1)"));
  EXPECT_TRUE(FailsAt("ENTRY %e {\n  ROOT %c = f16[] constant(70000)\n}\n", "70000",
                      "is out of range for f16"));
  EXPECT_TRUE(FailsAt("ENTRY %e {\n  ROOT %c = f32[] constant(1e39)\n}\n", "1e39",
                      "is out of range for f32"));
  EXPECT_TRUE(FailsAt("ENTRY %e {\n  ROOT %c = f64[] constant(1e999)\n}\n", "1e999",
                      "number is out of range for a double"));
  EXPECT_TRUE(FailsAt("ENTRY %e {\n  ROOT %c = f16[] constant(nan(0x7ff))\n}\n", "nan",
                      "does not fit in 10 mantissa bits of f16"));
}

TEST(ParseErrorTest, TupleConstantWithWrongArity) {
  EXPECT_TRUE(FailsAt("ENTRY %e {\n  ROOT %c = (s32[], s32[]) constant((1))\n}\n", "))",
                      "expected ',' between tuple elements"));
  EXPECT_TRUE(FailsAt("ENTRY %e {\n  ROOT %c = (s32[]) constant((1, 2))\n}\n", ", 2",
                      "expected ')' to end the tuple literal of 1 elements"));
}

// ---------------------------------------------------------------------------
// Operands.

TEST(ParseErrorTest, WrongOperandCountForFixedArity) {
  EXPECT_TRUE(
      FailsAt(Entry("  ROOT %r = f32[4] add(%x)"), "add", "expected 2 operands for add, got 1"));
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = f32[4] negate(%x, %y)"), "negate",
                      "expected 1 operand for negate, got 2"));
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = f32[4] select(%x, %y)"), "select",
                      "expected 3 operands for select, got 2"));
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = u32[] replica-id(%i)"), "replica-id",
                      "expected 0 operands for replica-id, got 1"));
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = f32[] reduce(%x), dimensions={0}, to_apply=%add", kAdd),
                      "reduce", "expected an even, non-zero number of operands for reduce",
                      "ENTRY"));
}

TEST(ParseErrorTest, MalformedOperandList) {
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = f32[4] add(%x %y)"), "%y)",
                      "expected ',' or ')' after an operand"));
  EXPECT_TRUE(
      FailsAt(Entry("  ROOT %r = f32[4] add(%x, )"), ")", "expected an operand name", "add(%x, "));
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = f32[4] add %x, %y"), "%x, %y",
                      "expected '(' to begin the operand list"));
}

TEST(ParseErrorTest, MalformedAttributeList) {
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = f32[4] add(%x, %y),"), "}",
                      "expected an attribute name (name=value), got '}'", "add(%x, %y),"));
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = f32[4] transpose(%x) dimensions={0}"), "dimensions",
                      "expected ',' before attribute 'dimensions'"));
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = f32[4] negate(%x), metadata={} sharding={replicated}"),
                      "sharding", "expected ',' before attribute 'sharding'"));
  // An attribute this opcode does not have, without a comma, is the start
  // of something else.
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = f32[4] negate(%x) dimensions={0}"), "{0}",
                      "expected a shape or an opcode, got '{'"));
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = f32[4] transpose(%x), dimensions {0}"), "dimensions",
                      "expected an attribute name (name=value), got identifier 'dimensions'"));
}

TEST(ParseErrorTest, TextAfterTheLastComputation) {
  EXPECT_TRUE(FailsAt("ENTRY %e {\n  ROOT %c = f32[] constant(1)\n}\nHloModule again\n",
                      "HloModule", "expected a computation name, got 'HloModule'"));
  EXPECT_TRUE(FailsAt("HloModule m\nHloModule n\nENTRY %e {\n  ROOT %c = f32[] constant(1)\n}\n",
                      "HloModule n", "expected a computation name, got 'HloModule'"));
}

TEST(ParseErrorTest, BadCustomCalls) {
  const std::string comp = "%c (p: f32[]) -> f32[] {\n  ROOT %p = f32[] parameter(0)\n}\n";
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = f32[4] custom-call(%x), custom_call_target=\"a\", "
                            "to_apply=%c, called_computations={%c}",
                            comp),
                      ", custom_call_target",
                      "custom-call cannot have both to_apply and "
                      "called_computations"));
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = f32[4] custom-call(%x, %y), custom_call_target=\"a\", "
                            "operand_layout_constraints={f32[4]{0}}"),
                      ", custom_call_target", "expected 2 operand layout constraints, got 1"));
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = f32[4] custom-call(%x), custom_call_target=a"), "a\n",
                      "expected a quoted string, got identifier 'a'", "custom_call_target="));
}

TEST(ParseErrorTest, BadAsyncOps) {
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = f32[4] custom-call-start(%x), custom_call_target=\"a\""),
                      "custom-call-start",
                      "custom-call-start needs a result shape ((operands...), result, ...)"));
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = f32[4] custom-call-done(%x)"), "custom-call-done",
                      "custom-call-done expects one async-start or async-update operand"));
  EXPECT_TRUE(FailsAt(Entry("  %s = ((f32[4]), f32[4], u32[]) custom-call-start(%x), "
                            "custom_call_target=\"a\"\n  ROOT %r = f32[4] negate-done(%s)"),
                      "negate-done", "negate-done does not continue an async negate"));
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = f32[4] constant-start(%x)"), "constant-start",
                      "cannot wrap constant in an async op"));
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = f32[4] async-start(%x)"), "\n}",
                      "expected attribute 'calls' for async-start", "async-start(%x)"));
}

TEST(ParseErrorTest, BadCollectivePermute) {
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = f32[4] collective-permute(%x), "
                            "source_target_pairs={{0,1}}, slice_sizes={{2}}"),
                      "collective-permute",
                      "expected 4 operands for an in-place collective permute with slice_sizes"));
}

// ---------------------------------------------------------------------------
// Attribute values.

TEST(ParseErrorTest, BadWindow) {
  const std::string prefix = absl::StrCat(kAdd,
                                          "ENTRY %main {\n  %x = f32[8,8] parameter(0)\n"
                                          "  %z = f32[] constant(0)\n");
  auto text = [&](absl::string_view window) {
    return absl::StrCat(prefix, "  ROOT %r = f32[4,4] reduce-window(%x, %z), window=", window,
                        ", to_apply=%add\n}\n");
  };
  EXPECT_TRUE(FailsAt(text("{size=2x2 stride=2}"), "{size",
                      "window stride has 1 dimensions but size has 2"));
  EXPECT_TRUE(FailsAt(text("{size=a}"), "a}", "expected window size like 3x3, got identifier 'a'"));
  EXPECT_TRUE(FailsAt(text("{size=2x2 foo=1}"), "foo", "unexpected window attribute 'foo'"));
  EXPECT_TRUE(
      FailsAt(text("{size=2x2 size=2x2}"), "size=2x2}", "window attribute 'size' is given twice"));
  EXPECT_TRUE(FailsAt(text("{size=2x2 pad=1x1}"), "1x1", "expected window padding like 0_0x1_1"));
  EXPECT_TRUE(FailsAt(text("{size=2x2 pad=0_0_0x0_0}"), "0_0_0x0_0",
                      "expected window padding as low_high per dimension"));
  EXPECT_TRUE(FailsAt(text("size=2x2"), "size=2x2", "expected '{' to begin the window"));
  EXPECT_TRUE(FailsAt(text("{size=2x2 stride=2x2"), ", to_apply", "expected a window attribute"));
  EXPECT_TRUE(FailsAt(text("{size=99999999999999999999x2}"), "99999999999999999999x2",
                      "window dimension out of range"));
}

TEST(ParseErrorTest, BadDimLabels) {
  auto text = [](absl::string_view labels) {
    return absl::StrCat(
        "ENTRY %main {\n  %x = f32[1,5,5,1] parameter(0)\n  %k = f32[3,3,1,1] parameter(1)\n"
        "  ROOT %c = f32[1,5,5,1] convolution(%x, %k), window={size=3x3}, dim_labels=",
        labels, "\n}\n");
  };
  EXPECT_TRUE(
      FailsAt(text("b01f_01io->b0f"), "b01f_", "must have the same number of spatial dimensions"));
  EXPECT_TRUE(
      FailsAt(text("b00f_01io->b01f"), "b00f", "expected unique input dimension labels, got b00f"));
  EXPECT_TRUE(FailsAt(text("b02f_01io->b01f"), "b02f", "got '2' in b02f"));
  EXPECT_TRUE(
      FailsAt(text("x01f_01io->b01f"), "x01f", "expected dimension labels like b01f_01io->b01f"));
  EXPECT_TRUE(FailsAt(text("f01f_01io->b01f"), "f01f", "expected unique input dimension labels"));
  EXPECT_TRUE(FailsAt(text("101f_01io->b01f"), "101f", "expected unique input dimension labels"));
  EXPECT_TRUE(FailsAt(text("?01f_01io->b01f"), "?01f",
                      "expected input labels to contain 'b' and 'f', got ?01f"));
  EXPECT_TRUE(FailsAt(text("b01f_01ii->b01f"), "b01f_", "expected unique kernel dimension labels"));
  EXPECT_TRUE(FailsAt(text("b01f_01i?->b01f"), "b01f_",
                      "expected kernel labels to contain 'i' and 'o', got 01i?"));
  EXPECT_TRUE(FailsAt(text("b01f_01io->01f?"), "b01f_",
                      "expected output labels to contain 'b' and 'f', got 01f?"));
}

TEST(ParseErrorTest, BadSlice) {
  auto text = [](absl::string_view slice) {
    return absl::StrCat(Entry(absl::StrCat("  ROOT %r = f32[2] slice(%x), slice=", slice)));
  };
  EXPECT_TRUE(FailsAt(text("{[0:2:1:4]}"), "[0:2:1:4]",
                      "expected [start:limit] or [start:limit:stride], got 4 numbers"));
  EXPECT_TRUE(FailsAt(text("{[0]}"), "[0]", "got 1 numbers"));
  EXPECT_TRUE(FailsAt(text("{0:2}"), "0:2}", "expected '[' to begin a list, got integer '0'"));
  EXPECT_TRUE(FailsAt(text("{[0:2:]}"), "]}", "expected an integer, got ']'"));
  // The computation's '}' closes the slice; the input then ends.
  const std::string unclosed = text("{[0:2]");
  EXPECT_TRUE(FailsWith(unclosed, PositionOf(unclosed + "\x01", "\x01"),
                        "expected an instruction name, got end of input"));
  EXPECT_TRUE(FailsAt(text("{[0;2]}"), ";", "unexpected character ';'"));
}

TEST(ParseErrorTest, BadPadding) {
  auto text = [](absl::string_view padding) {
    return Entry(absl::StrCat("  %z = f32[] constant(0)\n  ROOT %r = f32[6] pad(%x, %z), padding=",
                              padding));
  };
  EXPECT_TRUE(FailsAt(text("1x2"), "1x2",
                      "expected padding like 0_0_0x1_1_0, got window dimensions '1x2'"));
  EXPECT_TRUE(FailsAt(text("a_b"), "a_b", "expected padding like 0_0_0x1_1_0"));
  EXPECT_TRUE(FailsAt(text("1_2_3_4"), "1_2_3_4",
                      "expected padding like 0_0_0x1_1_0, got invalid input (malformed number "
                      "'1_2_3_4')"));
  EXPECT_TRUE(FailsAt(text("0_0x"), "0_0x", "malformed number '0_0x'"));
  EXPECT_TRUE(FailsAt(text("1_99999999999999999999"), "1_9999",
                      "expected padding as low_high or low_high_interior per dimension"));
}

TEST(ParseErrorTest, BadComparisonDirectionAndType) {
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = pred[4] compare(%x, %y), direction=XX"), "XX",
                      "expected direction (one of EQ, NE, GE, GT, LE, LT), got identifier 'XX'"));
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = pred[4] compare(%x, %y), direction=eq"), "eq",
                      "expected direction"));
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = pred[4] compare(%x, %y), direction=LT, type=REAL"), "REAL",
                      "expected type (one of FLOAT, TOTALORDER, SIGNED, UNSIGNED)"));
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = pred[4] compare(%x, %y), direction=1"), "1",
                      "expected direction", "direction="));
}

TEST(ParseErrorTest, BadEnumValues) {
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = f32[4] fusion(%x), kind=kFast, calls=%c"), "kFast",
                      "expected kind (one of kLoop, kInput, kOutput, kCustom)"));
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = f32[4] custom-call(%x), custom_call_target=\"a\", "
                            "api_version=API_VERSION_NEW"),
                      "API_VERSION_NEW", "expected api_version"));
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = f32[4] custom-call(%x), custom_call_target=\"a\", "
                            "api_version=API_VERSION_UNSPECIFIED"),
                      "API_VERSION_UNSPECIFIED", "api_version=API_VERSION_UNSPECIFIED is invalid"));
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = f32[4] rng(%x, %y), distribution=rng_poisson"),
                      "rng_poisson", "expected distribution"));
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = f32[4] dot(%x, %y), operand_precision={low}"), "low",
                      "expected a precision (one of default, high, highest, packed_nibble)"));
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = c64[4] fft(%x), fft_type=fft, fft_length={4}"), "fft,",
                      "expected fft_type (one of FFT, IFFT, RFFT, IRFFT)", "fft_type="));
}

TEST(ParseErrorTest, BadBooleanAndIntegerAttributes) {
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = f32[4] cholesky(%x), lower=yes"), "yes",
                      "expected true or false, got identifier 'yes'"));
  EXPECT_TRUE(FailsAt(Entry("  %t = (f32[4]) tuple(%x)\n  ROOT %r = f32[4] get-tuple-element(%t), "
                            "index=zero"),
                      "zero", "expected an integer, got identifier 'zero'"));
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = f32[4] reduce-precision(%x), exponent_bits=5000000000, "
                            "mantissa_bits=1"),
                      "5000000000", "value out of range for int32"));
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = f32[4] broadcast(%x), dimensions={0,}"), "}",
                      "expected an integer", "{0,"));
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = f32[4] broadcast(%x), dimensions=0"), "0",
                      "expected '{' to begin a list", "dimensions="));
}

TEST(ParseErrorTest, BadCalledComputations) {
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = f32[4] call(%x), to_apply=\"add\""), "\"add\"",
                      "expected a computation name, got string \"add\""));
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = f32[4] conditional(%i, %x), branch_computations={%a}"),
                      "%a}", "unknown computation 'a'"));
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = f32[4] conditional(%x, %x), branch_computations={}"),
                      "conditional",
                      "expected a pred or s32 scalar as the first operand of "
                      "conditional, got f32[4]"));
  const std::string neg =
      "%neg (p: f32[4]) -> f32[4] {\n  %p = f32[4] parameter(0)\n  ROOT %n = "
      "f32[4] negate(%p)\n}\n";
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = f32[4] conditional(%i, %x), "
                            "branch_computations={%neg, %neg}",
                            neg),
                      "conditional",
                      "expected 3 operands for conditional (the branch index and "
                      "one per branch), got 2"));
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = f32[4] conditional(%i), branch_computations={}", neg),
                      ", branch", "expected at least one branch computation"));
  EXPECT_TRUE(FailsAt(Entry("  %p = pred[] constant(true)\n  ROOT %r = f32[4] conditional(%p, "
                            "%x, %x), true_computation=%neg",
                            neg),
                      "\n}", "expected attribute 'false_computation' for conditional",
                      "true_computation=%neg"));
}

TEST(ParseErrorTest, BadControlPredecessors) {
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = f32[4] negate(%x), control-predecessors={%later}"),
                      "%later", "unknown instruction 'later'"));
}

TEST(ParseErrorTest, BadMetadata) {
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = f32[4] negate(%x), metadata={op_nam=\"a\"}"), "op_nam",
                      "unexpected attribute 'op_nam' in the metadata"));
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = f32[4] negate(%x), metadata={source_line=\"1\"}"), "\"1\"",
                      "expected an integer, got string \"1\""));
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = f32[4] negate(%x), metadata={op_name=\"a\" "
                            "op_name=\"b\"}"),
                      "op_name=\"b\"", "attribute 'op_name' is given more than once"));
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = f32[4] negate(%x), metadata={source_line=4294967296}"),
                      "4294967296", "value out of range for int32"));
}

TEST(ParseErrorTest, BadSharding) {
  auto text = [](absl::string_view sharding) {
    return Entry(absl::StrCat("  ROOT %r = f32[4] negate(%x), sharding=", sharding));
  };
  EXPECT_TRUE(FailsAt(text("{maximal}"), "maximal}",
                      "maximal shardings need exactly one device (device=N)"));
  EXPECT_TRUE(FailsAt(text("{devices=[2,2]0,1,2}"), "devices",
                      "the tile assignment has 4 tiles but lists 3 devices"));
  EXPECT_TRUE(FailsAt(text("{devices=[2]<=[3]}"), "devices",
                      "the tile assignment and its iota device list differ in size"));
  EXPECT_TRUE(FailsAt(text("{devices=[2,2]<=[2,2]T(0,0)}"), "(0,0)",
                      "expected a permutation of 2 dimensions in T(...)"));
  EXPECT_TRUE(FailsAt(text("{replicated device=1}"), "replicated",
                      "replicated shardings cannot have devices"));
  EXPECT_TRUE(FailsAt(text("{colors=[2]}"), "colors", "unexpected sharding attribute 'colors'"));
  EXPECT_TRUE(FailsAt(text("replicated"), "replicated", "expected '{' to begin the sharding"));
  EXPECT_TRUE(FailsAt(text("{devices=[]0}"), "0}", "expected a non-empty tile assignment shape"));
}

TEST(ParseErrorTest, BadFrontendAttributesAndBackendConfig) {
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = f32[4] negate(%x), frontend_attributes={a=1}"), "1}",
                      "expected a quoted string or a {...} dictionary, got integer '1'"));
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = f32[4] negate(%x), frontend_attributes={\"a\"}"), "\"a\"",
                      "expected a frontend attribute (name=value)"));
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = f32[4] negate(%x), backend_config={{{\"a\": {}"), "{{{",
                      "unbalanced braces in a JSON-style dictionary"));
}

TEST(ParseErrorTest, BadReplicaGroupsAndPairs) {
  const std::string prefix = absl::StrCat(kAdd, "ENTRY %main {\n  %x = f32[4] parameter(0)\n");
  EXPECT_TRUE(FailsAt(absl::StrCat(prefix,
                                   "  ROOT %r = f32[4] all-reduce(%x), "
                                   "replica_groups={0,1}, to_apply=%add\n}\n"),
                      "0,1}", "expected '{' to begin a list", "replica_groups="));
  EXPECT_TRUE(FailsAt(absl::StrCat(prefix,
                                   "  ROOT %r = f32[4] all-reduce(%x), "
                                   "replica_groups=[2,2,1]<=[4], to_apply=%add\n}\n"),
                      "[2,2,1]", "expected [groups,group_size] in iota replica groups, got 3"));
  EXPECT_TRUE(FailsAt(absl::StrCat(prefix,
                                   "  ROOT %r = f32[4] collective-permute(%x), "
                                   "source_target_pairs={{0,1,2}}\n}\n"),
                      "{{0,1,2}}", "expected {source,target} pairs"));
}

TEST(ParseErrorTest, BadAliasing) {
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = f32[4] custom-call(%x), custom_call_target=\"a\", "
                            "output_to_operand_aliasing={{0}: 0}"),
                      "0}", "expected '(' before the operand number", "{0}: "));
  const std::string header =
      "HloModule m, input_output_alias={ {}: (0, {}), {}: (1, {}) }\n"
      "ENTRY %e {\n  %a = f32[] parameter(0)\n  ROOT %b = f32[] parameter(1)\n}\n";
  EXPECT_TRUE(FailsAt(header, "{}: (1", "output {} is aliased more than once"));
  const std::string kind =
      "HloModule m, input_output_alias={ {}: (0, {}, maybe-alias) }\n"
      "ENTRY %e {\n  ROOT %a = f32[] parameter(0)\n}\n";
  EXPECT_TRUE(FailsAt(kind, "maybe-alias", "expected may-alias or must-alias"));
}

// ---------------------------------------------------------------------------
// The module header.

TEST(ParseErrorTest, BadHeader) {
  EXPECT_TRUE(FailsAt("HloModule m, replicas=2\nENTRY %e {\n  ROOT %c = f32[] constant(1)\n}\n",
                      "replicas", "unexpected attribute 'replicas' for HloModule"));
  EXPECT_TRUE(
      FailsAt("HloModule m, is_scheduled=maybe\nENTRY %e {\n  ROOT %c = f32[] "
              "constant(1)\n}\n",
              "maybe", "expected true or false, got identifier 'maybe'"));
  EXPECT_TRUE(FailsAt("HloModule\nENTRY %e {\n  ROOT %c = f32[] constant(1)\n}\n", "ENTRY",
                      "expected a name, got 'ENTRY'"));
  EXPECT_TRUE(
      FailsAt("HloModule m, entry_computation_layout={(f32[])}\nENTRY %e {\n  ROOT %c = "
              "f32[] constant(1)\n}\n",
              "}\n", "expected '->' before the result shape"));
  EXPECT_TRUE(
      FailsAt("HloModule m, replica_count=1, replica_count=2\nENTRY %e {\n  ROOT %c = "
              "f32[] constant(1)\n}\n",
              "replica_count=2", "attribute 'replica_count' is given more than once"));
}

TEST(ParseErrorTest, BadStackFrames) {
  EXPECT_TRUE(FailsAt("HloModule m\nFileNames\n1 \"a.py\"\nFileLocations\n", "FileLocations",
                      "expected 'FunctionNames', got 'FileLocations'"));
  EXPECT_TRUE(
      FailsAt("HloModule m\nFileNames\nFunctionNames\nFileLocations\n1 {file_name_id=1}\n"
              "StackFrames\nENTRY %e {\n  ROOT %c = f32[] constant(1)\n}\n",
              "{file_name_id", "the file location needs the attribute"));
  EXPECT_TRUE(FailsAt("HloModule m\nFileNames\n1 a.py\n", "a.py", "expected a quoted string"));
  // Entries are referred to by number, so they must be numbered 1, 2, ...
  EXPECT_TRUE(FailsAt("HloModule m\nFileNames\n1 \"a.py\"\n3 \"b.py\"\n", "3",
                      "expected entry number 2, got 3"));
  EXPECT_TRUE(
      FailsAt("HloModule m\nFileNames\nFunctionNames\nFileLocations\nStackFrames\n"
              "0 {file_location_id=1 parent_frame_id=0}\n",
              "0 {", "expected entry number 1, got 0"));
}

// ---------------------------------------------------------------------------
// Lexical errors.

TEST(ParseErrorTest, GarbageBytes) {
  EXPECT_TRUE(FailsWith("\x01\x02\x03", "line 1, column 1", "unexpected character 0x1"));
  EXPECT_TRUE(FailsWith("\xff\xfe", "line 1, column 1", "unexpected character 0xff"));
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = f32[4] negate(%x) @"), "@", "unexpected character '@'"));
  EXPECT_TRUE(
      FailsAt(Entry("  ROOT %r = f32[4] negate(%x)\x7f"), "\x7f", "unexpected character 0x7f"));
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = f32[4] negate(% x)"), "% x", "expected a name after '%'"));
}

TEST(ParseErrorTest, NulBytes) {
  std::string text = Entry("  ROOT %r = f32[4] negate(%x)");
  text.insert(text.find("negate"), 1, '\0');
  EXPECT_TRUE(FailsWith(text, PositionOf(text, std::string(1, '\0')), "unexpected NUL character"));
  const std::string only_nul(1, '\0');
  EXPECT_TRUE(FailsWith(only_nul, "line 1, column 1", "unexpected NUL character"));
  std::string in_string = Entry("  ROOT %r = f32[4] custom-call(%x), custom_call_target=\"a\"");
  in_string.insert(in_string.find("\"a\"") + 1, 1, '\0');
  // A NUL inside a quoted string is kept as a character of the string.
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(in_string);
  ASSERT_TRUE(module.ok()) << module.status();
}

TEST(ParseErrorTest, UnterminatedStringsAndComments) {
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = f32[4] custom-call(%x), custom_call_target=\"abc"),
                      "\"abc", "unterminated string"));
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = f32[4] negate(%x) /* never closed"), "/*",
                      "unterminated /* comment"));
  EXPECT_TRUE(FailsAt(Entry("  ROOT %r = f32[4] custom-call(%x), custom_call_target=\"a\\q\""),
                      "\"a\\q", "invalid escape in string"));
}

TEST(ParseErrorTest, UnbalancedBraces) {
  EXPECT_TRUE(FailsWith("ENTRY %e {\n  ROOT %c = f32[] constant(1)\n", "line 3, column 1",
                        "expected an instruction name, got end of input"));
  EXPECT_TRUE(FailsAt("ENTRY %e {\n  ROOT %c = f32[] constant(1)\n}\n}\n", "}\n",
                      "expected a computation name, got '}'", "}\n"));
  EXPECT_TRUE(FailsAt("ENTRY %e \n  ROOT %c = f32[] constant(1)\n}\n", "ROOT",
                      "expected '{' to begin the computation's instructions"));
  EXPECT_TRUE(FailsAt("ENTRY %e {\n  ROOT %c = f32[2] constant({1, 2)\n}\n", ")",
                      "expected a literal value, got ')'", "{1, 2"));
}

// ---------------------------------------------------------------------------
// Truncations at chosen points, with the error at the end of input.

TEST(ParseErrorTest, TruncatedInput) {
  const std::string full =
      absl::StrCat(kAdd,
                   "ENTRY %main {\n  %x = f32[2,2]{1,0} parameter(0)\n  %z = f32[] constant(0)\n"
                   "  ROOT %r = f32[2] reduce(%x, %z), dimensions={1}, to_apply=%add, "
                   "metadata={op_name=\"r\"}\n}\n");
  struct Cut {
    absl::string_view after;  // the text is cut right after this
    absl::string_view what;
  };
  const Cut cuts[] = {
      {"HloModule", ""},  // not in the text: cut at the start instead
      {"%add (a:", "expected a shape, got end of input"},
      {"-> f32[]", "expected '{' to begin the computation's instructions, got end of input"},
      {"%x = f32[2,2]{1,", "expected an integer, got end of input"},
      {"%x = f32[2,2]{1,0} parameter(", "expected an integer, got end of input"},
      {"constant(", "expected a literal value, got end of input"},
      {"reduce(%x,", "expected an operand name, got end of input"},
      {"dimensions=", "expected '{' to begin a list, got end of input"},
      {"to_apply=", "expected a computation name, got end of input"},
      {"metadata={op_name=\"r", "unterminated string"},
      {"metadata={op_name=\"r\"}", "expected an instruction name, got end of input"},
  };
  for (const Cut& cut : cuts) {
    const size_t at = full.find(std::string(cut.after));
    if (at == std::string::npos) continue;
    const std::string text = full.substr(0, at + cut.after.size());
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
    ASSERT_FALSE(module.ok()) << text;
    const std::string message = Message(module.status());
    EXPECT_THAT(message, HasSubstr(cut.what)) << text;
    if (cut.what != "unterminated string") {
      // End-of-input errors point just past the last character.
      EXPECT_TRUE(absl::StartsWith(message, PositionOf(text + "\x01", "\x01"))) << message;
    }
  }
}

// ---------------------------------------------------------------------------
// Deep nesting must be an error, not a stack overflow.

TEST(ParseErrorTest, DeeplyNestedTupleShape) {
  const std::string text = absl::StrCat("ENTRY %e {\n  ROOT %p = ", std::string(100000, '('),
                                        "f32[]", std::string(100000, ')'), " parameter(0)\n}\n");
  absl::Status status = parser_test::ParseError(text);
  EXPECT_THAT(Message(status), HasSubstr("input nested too deeply"));
  EXPECT_THAT(Message(status), HasSubstr("line 2, column "));
  // Unbalanced, too, also in a computation signature.
  EXPECT_THAT(
      Message(parser_test::ParseError(absl::StrCat("ENTRY %e (p: ", std::string(100000, '(')))),
      HasSubstr("line 1, column 214: input nested too deeply"));
  EXPECT_THAT(Message(parser_test::ParseError(std::string(100000, '('))),
              HasSubstr("line 1, column 1: expected a computation name, got '('"));
  absl::StatusOr<Shape> shape = ParseShape(std::string(100000, '('));
  ASSERT_FALSE(shape.ok());
  EXPECT_THAT(Message(shape.status()), HasSubstr("input nested too deeply"));
}

TEST(ParseErrorTest, DeeplyNestedConstants) {
  const std::string braces =
      absl::StrCat("ENTRY %e {\n  ROOT %c = f32[2] constant(", std::string(100000, '{'), "\n}\n");
  EXPECT_THAT(
      Message(parser_test::ParseError(braces)),
      HasSubstr("line 2, column 30: expected a nested array of rank 1, got deeper nesting"));
  std::string tuple_shape = "f32[]";
  for (int i = 0; i < 300; ++i) tuple_shape = absl::StrCat("(", tuple_shape, ")");
  const std::string tuple = absl::StrCat("ENTRY %e {\n  ROOT %c = ", tuple_shape, " constant(",
                                         std::string(100000, '('), "\n}\n");
  EXPECT_THAT(Message(parser_test::ParseError(tuple)), HasSubstr("input nested too deeply"));
  absl::StatusOr<Literal> literal = ParseLiteral(std::string(100000, '{'), Shape(F32, {1}));
  EXPECT_FALSE(literal.ok());
}

TEST(ParseErrorTest, DeeplyNestedInstructions) {
  std::string nested;
  for (int i = 0; i < 100000; ++i) nested += "negate(";
  const std::string text = absl::StrCat("ENTRY %e {\n  %x = f32[] parameter(0)\n  ROOT %r = f32[] ",
                                        nested, "%x", std::string(100000, ')'), "\n}\n");
  absl::Status status = parser_test::ParseError(text);
  EXPECT_THAT(Message(status), HasSubstr("input nested too deeply"));
  EXPECT_THAT(Message(status), HasSubstr("line 3, column "));
}

TEST(ParseErrorTest, DeeplyNestedInlineComputations) {
  std::string text = "ENTRY %e {\n  %x = f32[] parameter(0)\n  ROOT %r = f32[] call(%x), to_apply=";
  for (int i = 0; i < 50000; ++i)
    text += "{\n %p = f32[] parameter(0)\n ROOT %c = f32[] call(%p), to_apply=";
  absl::Status status = parser_test::ParseError(text);
  EXPECT_THAT(Message(status), HasSubstr("input nested too deeply"));
}

TEST(ParseErrorTest, DeeplyNestedShardingsAndLists) {
  // Tuple shardings nest one level only.
  const std::string sharding =
      Entry(absl::StrCat("  ROOT %r = f32[4] negate(%x), sharding=", std::string(100000, '{')));
  EXPECT_THAT(Message(parser_test::ParseError(sharding)),
              HasSubstr("line 6, column 43: expected a sharding attribute or '}', got '{'"));
  absl::StatusOr<HloSharding> standalone = ParseSharding(std::string(100000, '{'));
  ASSERT_FALSE(standalone.ok());
  EXPECT_THAT(Message(standalone.status()), HasSubstr("line 1, column 3"));
  const std::string json =
      Entry(absl::StrCat("  ROOT %r = f32[4] negate(%x), backend_config=", std::string(100000, '{'),
                         std::string(100000, '}')));
  // A JSON dictionary is scanned, not parsed recursively: any depth is fine.
  EXPECT_TRUE(ParseHloModule(json).ok());
}

// ---------------------------------------------------------------------------
// Fuzz-ish robustness: no truncation or single-byte change of valid modules
// crashes; each gives a module or an error with a position.

const char* const kValidModules[] = {
    R"(HloModule fuzz, is_scheduled=true, entry_computation_layout={(f32[2,3]{1,0}, s32[])->(f32[3]{0}, s32[])}, input_output_alias={ {1}: (1, {}, may-alias) }

%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}

%cond (t: (s32[], f32[3])) -> pred[] {
  %t = (s32[], f32[3]{0}) parameter(0)
  %i = s32[] get-tuple-element(%t), index=0
  %n = s32[] constant(4)
  ROOT %lt = pred[] compare(%i, %n), direction=LT
}

%body (t: (s32[], f32[3])) -> (s32[], f32[3]) {
  %t = (s32[], f32[3]{0}) parameter(0)
  %i = s32[] get-tuple-element(%t), index=0
  %v = f32[3]{0} get-tuple-element(%t), index=1
  %one = s32[] constant(1)
  %next = s32[] add(%i, %one)
  %w = f32[3]{0} multiply(%v, %v), metadata={op_name="mul" source_file="x.py" source_line=3}
  ROOT %r = (s32[], f32[3]{0}) tuple(%next, %w)
}

ENTRY %main (p: f32[2,3], q: s32[]) -> (f32[3], s32[]) {
  %p = f32[2,3]{1,0} parameter(0), sharding={devices=[2,1]0,1}
  %q = s32[] parameter(1)
  %zero = f32[] constant(0)
  %red = f32[3]{0} reduce(%p, %zero), dimensions={0}, to_apply=%add
  %c = f32[2,2]{1,0} constant({ { 1.5, -2 }, { inf, nan } })
  %sl = f32[1,3]{1,0} slice(%p), slice={[0:1], [0:3:1]}
  %pd = f32[4,5]{1,0} pad(%p, %zero), padding=1_1_0x1_0_1
  %init = (s32[], f32[3]{0}) tuple(%q, %red)
  %loop = (s32[], f32[3]{0}) while(%init), condition=%cond, body=%body
  %out = f32[3]{0} get-tuple-element(%loop), index=1
  %cc = f32[3]{0} custom-call(%out), custom_call_target="t", backend_config={"a": "}"}
  ROOT %res = (f32[3]{0}, s32[]) tuple(%cc, %q), frontend_attributes={k="v"}
}
)",
    R"(HloModule conv
FileNames
1 "a.py"
FunctionNames
1 "f"
FileLocations
1 {file_name_id=1 function_name_id=1 line=1 end_line=1 column=2 end_column=3}
StackFrames
1 {file_location_id=1 parent_frame_id=0}

ENTRY %e {
  %x = f32[1,5,5,2] parameter(0)
  %k = f32[3,3,2,4] parameter(1)
  %c = f32[1,5,5,4] convolution(%x, %k), window={size=3x3 pad=1_1x1_1 rhs_reversal=0x1}, dim_labels=b01f_01io->b01f, metadata={stack_frame_id=1}
  %i = s32[2,1] constant({{0}, {1}})
  %g = f32[2,5,5,4] gather(%c, %i), offset_dims={1,2,3}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,5,5,4}
  %d = f32[2,5,5,5] dot(%g, %g), lhs_batch_dims={0,1,2}, rhs_batch_dims={0,1,2}, lhs_contracting_dims={}, rhs_contracting_dims={}, operand_precision={high,default}
  ROOT %t = (f32[2,5,5,5], c64[2]) tuple(%d, c64[2] constant({(1,2), (3,-4)}))
}
)",
    R"(HloModule more, replica_count=2, frontend_attributes={a="b"}
%neg (x: f32[4]) -> f32[4] {
  %x = f32[4] parameter(0)
  ROOT %n = f32[4] negate(%x)
}
%sum (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %s = f32[] add(%a, %b)
}
ENTRY %main (p: f32[4], i: s32[]) -> (f32[4], f32[4]) {
  %p = f32[4] parameter(0), sharding={devices=[2]<=[2]}
  %i = s32[] parameter(1)
  %c = f32[4] conditional(%i, %p, %p), branch_computations={%neg, %neg}
  %ar = f32[4] all-reduce(%c), replica_groups=[1,2]<=[2], to_apply=%sum, channel_id=1
  %s = ((f32[4]), f32[4], u32[]) custom-call-start(%ar), custom_call_target="t", api_version=API_VERSION_TYPED_FFI
  %d = f32[4] custom-call-done(%s)
  %dom = f32[4] domain(%d), domain={kind="sharding", entry={maximal device=0}, exit={replicated}}
  %n = f32[4] add(f32[4] negate(%dom), f32[4] broadcast(f32[] constant(2))), control-predecessors={%ar}
  %r = f32[] reduce(%n, f32[] constant(0)), dimensions={0}, to_apply={
    %l = f32[] parameter(0)
    %m = f32[] parameter(1)
    ROOT %mx = f32[] maximum(%l, %m)
  }
  %srt = f32[4] sort(%n), dimensions={0}, is_stable=true, to_apply=%sum
  ROOT %t = (f32[4], f32[4]) tuple(%srt, %n), sharding={{replicated}, {manual}}
}
)",
};

TEST(ParseRobustnessTest, EverySeedParses) {
  for (absl::string_view full : kValidModules) {
    EXPECT_TRUE(ParseHloModule(full).ok()) << ParseHloModule(full).status();
  }
}

// Every truncation of the first two seeds (the third only takes part in the
// mutation test, to keep the tests fast).
TEST(ParseRobustnessTest, EveryPrefixIsHandled) {
  for (absl::string_view full : {kValidModules[0], kValidModules[1]}) {
    for (size_t n = 0; n < full.size(); ++n) {
      absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(full.substr(0, n));
      if (!module.ok()) {
        EXPECT_THAT(Message(module.status()), HasSubstr("line ")) << n;
      }
    }
  }
}

// Seeds for the mutation test: the modules above, plus (for long runs) the
// .hlo files under $TESSERA_PARSER_FUZZ_DIR.
std::vector<std::string> MutationSeeds() {
  std::vector<std::string> seeds(std::begin(kValidModules), std::end(kValidModules));
  const char* dir = std::getenv("TESSERA_PARSER_FUZZ_DIR");
  if (dir == nullptr || !std::filesystem::is_directory(dir)) return seeds;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".hlo") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::ostringstream buffer;
    buffer << in.rdbuf();
    seeds.push_back(buffer.str());
  }
  return seeds;
}

// A deterministic sample of byte replacements and deletions: 1000 single
// mutations per seed by default, to keep the test fast.  For long runs (e.g.
// under a sanitizer) set TESSERA_PARSER_FUZZ_TRIALS to the trials per seed;
// those runs also stack up to four mutations per trial.
TEST(ParseRobustnessTest, SingleByteMutationsAreHandled) {
  const char kReplacements[] = {'{', '}', '(', ')', ',', '=', '%', '0',  '9',  '-',    'x',
                                '_', ':', '"', '/', '*', '[', ']', '\0', '\n', '\xff', ' '};
  constexpr int kChoices = sizeof(kReplacements) + 1;  // the last choice deletes the byte
  int64_t parsed = 0, failed = 0;
  uint64_t state = 0x9e3779b97f4a7c15u;
  auto next = [&state] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  int64_t trials = 1000;
  int max_mutations = 1;
  if (const char* env = std::getenv("TESSERA_PARSER_FUZZ_TRIALS"); env != nullptr) {
    trials = std::atoll(env);
    max_mutations = 4;
  }
  for (const std::string& full : MutationSeeds()) {
    if (full.empty()) continue;
    for (int64_t trial = 0; trial < trials; ++trial) {
      std::string text(full);
      const int mutations = 1 + static_cast<int>(next() % max_mutations);
      size_t at = 0;
      for (int m = 0; m < mutations && !text.empty(); ++m) {
        at = next() % text.size();
        const int choice = static_cast<int>(next() % kChoices);
        if (choice == kChoices - 1) {
          text.erase(at, 1);
        } else {
          text[at] = kReplacements[choice];
        }
      }
      absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
      if (module.ok()) {
        ++parsed;
      } else {
        ++failed;
        EXPECT_THAT(Message(module.status()), HasSubstr("line ")) << at;
      }
    }
  }
  EXPECT_GT(failed, 0);
  EXPECT_GT(parsed, 0);
}

// Every single-byte replacement of shapes, literals and shardings given to
// the standalone entry points.
TEST(ParseRobustnessTest, StandaloneEntryPointMutations) {
  const char kReplacements[] = {'{', '}', '(', ')', ',', '[', ']',  '0',
                                '9', '-', 'T', '<', '=', ' ', '\0', '\xff'};
  const std::string shapes[] = {"(f32[2,<=3]{1,0:T(2,128)(2,1)E(8)S(1)}, (s32[], token[]))"};
  const std::string literals[] = {"({ { 1.5, -inf }, { nan(0x1), 2 } }, ((1, -2.5e3)))"};
  const std::string shardings[] = {
      "{{devices=[2,1,2]<=[2,2]T(1,0) last_tile_dims={manual} metadata={op_name=\"a\"}}, "
      "{maximal device=1}, {replicated shard_as 2}}"};
  const Shape literal_shape =
      Shape::MakeTuple({Shape(F32, {2, 2}), Shape::MakeTuple({Shape(C64, {})})});
  auto mutate = [&](const std::string& seed, auto&& parse) {
    for (size_t at = 0; at < seed.size(); ++at) {
      for (char replacement : kReplacements) {
        std::string text = seed;
        text[at] = replacement;
        parse(text);
      }
    }
  };
  for (const std::string& seed : shapes) {
    ASSERT_TRUE(ParseShape(seed).ok()) << ParseShape(seed).status();
    mutate(seed, [](const std::string& text) { (void)ParseShape(text); });
  }
  for (const std::string& seed : literals) {
    ASSERT_TRUE(ParseLiteral(seed, literal_shape).ok())
        << ParseLiteral(seed, literal_shape).status();
    mutate(seed, [&](const std::string& text) { (void)ParseLiteral(text, literal_shape); });
  }
  for (const std::string& seed : shardings) {
    ASSERT_TRUE(ParseSharding(seed).ok()) << ParseSharding(seed).status();
    mutate(seed, [](const std::string& text) { (void)ParseSharding(text); });
  }
}

TEST(ParseRobustnessTest, StandaloneEntryPointsHandleGarbage) {
  const char* const inputs[] = {"",
                                "(",
                                ")",
                                "{",
                                "}",
                                "f32[",
                                "f32[2]{",
                                "f32[2]{0,",
                                "((",
                                "f32[2]{0:T(",
                                "f32[2]{0:T(2)E(",
                                "\xff",
                                "f32[2] extra",
                                "{devices=[2]<=[2]T(",
                                "{maximal device=",
                                "{{{}}}"};
  for (const char* input : inputs) {
    EXPECT_FALSE(ParseShape(input).ok()) << input;
    EXPECT_FALSE(ParseLiteral(input, Shape(F32, {2})).ok()) << input;
    (void)ParseSharding(input);
  }
}

}  // namespace
}  // namespace tessera
