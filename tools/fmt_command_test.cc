// End-to-end tests of `tessera fmt` through its library entry point: the
// happy paths (text and proto out, proto in) and every argument or input
// error, each asserting its message.
#include "tools/fmt_command.h"

#include <cstdlib>
#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tools/module_io.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

constexpr char kModule[] = R"(HloModule add_one

ENTRY main {
  x = f32[4] parameter(0)
  one = f32[] constant(1)
  ones = f32[4] broadcast(one), dimensions={}
  ROOT y = f32[4] add(x, ones)
}
)";

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/" + name;
}

std::string WriteTemp(const std::string& name, const std::string& contents) {
  std::string path = TempPath(name);
  EXPECT_TRUE(WriteStringToFile(path, contents).ok());
  return path;
}

absl::Status Fmt(const std::vector<std::string>& args, std::string* out = nullptr) {
  std::ostringstream stream;
  absl::Status status = RunFmtCommand(args, stream);
  if (out) *out = stream.str();
  return status;
}

TEST(FmtCommandTest, PrintsCanonicalTextThatIsAFixedPoint) {
  std::string first, second;
  ASSERT_TRUE(Fmt({WriteTemp("a.hlo", kModule)}, &first).ok());
  EXPECT_THAT(first, HasSubstr("HloModule add_one"));
  EXPECT_THAT(first, HasSubstr("ROOT %y = f32[4]{0} add("));
  ASSERT_TRUE(Fmt({WriteTemp("b.hlo", first)}, &second).ok());
  EXPECT_EQ(first, second);
}

TEST(FmtCommandTest, ProtoRoundTripGivesTheSameText) {
  const std::string text_path = WriteTemp("c.hlo", kModule);
  const std::string proto_path = TempPath("c.pb");
  ASSERT_TRUE(Fmt({text_path, "--to=proto", "-o", proto_path}).ok());
  absl::StatusOr<std::string> bytes = ReadFileToString(proto_path);
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(DetectModuleFormat(*bytes), ModuleFormat::kProto);
  std::string from_text, from_proto;
  ASSERT_TRUE(Fmt({text_path}, &from_text).ok());
  ASSERT_TRUE(Fmt({proto_path}, &from_proto).ok());
  EXPECT_EQ(from_text, from_proto);
}

TEST(FmtCommandTest, WritesTextToFile) {
  const std::string out = TempPath("d.out.hlo");
  ASSERT_TRUE(Fmt({WriteTemp("d.hlo", kModule), "-o", out}).ok());
  EXPECT_THAT(*ReadFileToString(out), HasSubstr("HloModule add_one"));
}

TEST(FmtCommandErrorsTest, NoModule) {
  EXPECT_THAT(Fmt({}).message(), HasSubstr("expected exactly one MODULE file, got 0"));
}

TEST(FmtCommandErrorsTest, TwoModules) {
  EXPECT_THAT(Fmt({"a.hlo", "b.hlo"}).message(),
              HasSubstr("expected exactly one MODULE file, got 2"));
}

TEST(FmtCommandErrorsTest, BadOutputFormat) {
  EXPECT_THAT(Fmt({"a.hlo", "--to=json"}).message(),
              HasSubstr("--to must be 'text' or 'proto', got 'json'"));
}

TEST(FmtCommandErrorsTest, UnknownFlag) {
  EXPECT_THAT(Fmt({"a.hlo", "--frobnicate"}).message(),
              HasSubstr("tessera fmt: unknown flag '--frobnicate'"));
}

TEST(FmtCommandErrorsTest, MissingFile) {
  absl::Status status = Fmt({"/nonexistent/dir/m.hlo"});
  EXPECT_THAT(status.message(), HasSubstr("cannot read /nonexistent/dir/m.hlo"));
}

TEST(FmtCommandErrorsTest, ProtoToStdoutIsRefused) {
  EXPECT_THAT(Fmt({WriteTemp("e.hlo", kModule), "--to=proto"}).message(),
              HasSubstr("give an output file with -o FILE"));
}

TEST(FmtCommandErrorsTest, UnwritableOutput) {
  EXPECT_THAT(Fmt({WriteTemp("f.hlo", kModule), "-o", "/nonexistent/dir/out.hlo"}).message(),
              HasSubstr("cannot write /nonexistent/dir/out.hlo"));
}

TEST(FmtCommandErrorsTest, SyntaxErrorNamesFileLineAndColumn) {
  const std::string path = WriteTemp("g.hlo", "HloModule m\n\nENTRY main {\n  x = f32[4 parameter(0)\n}\n");
  absl::Status status = Fmt({path});
  EXPECT_THAT(status.message(), HasSubstr(path + ": "));
  EXPECT_THAT(status.message(), HasSubstr("line 4"));
}

TEST(FmtCommandErrorsTest, VerifierErrorNamesInstruction) {
  const std::string path = WriteTemp("h.hlo", R"(HloModule m
ENTRY main {
  x = f32[4] parameter(0)
  y = f32[3] parameter(1)
  ROOT z = f32[4] add(x, y)
}
)");
  absl::Status status = Fmt({path});
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("z"));
}

TEST(FmtCommandErrorsTest, GarbageProtoIsAnError) {
  const std::string path = WriteTemp("i.pb", std::string("\x0a\xff\xff\xff\xff\x0f\x01\x02", 8));
  absl::Status status = Fmt({path});
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr(path + ": "));
}

TEST(FmtCommandErrorsTest, EmptyFile) {
  absl::Status status = Fmt({WriteTemp("j.hlo", "")});
  EXPECT_FALSE(status.ok());
}

}  // namespace
}  // namespace tessera
