// End-to-end tests of `tessera opt` through its library entry point.
#include "tools/opt_command.h"

#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/parser/hlo_parser.h"
#include "tools/module_io.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kModule[] = R"(HloModule opt_me

twice {
  x = f32[4] parameter(0)
  ROOT y = f32[4] add(x, x)
}

ENTRY main {
  p = f32[4] parameter(0)
  dead = f32[4] exponential(p)
  c = f32[4] call(p), to_apply=twice
  two = f32[] constant(2)
  three = f32[] constant(3)
  six = f32[] multiply(two, three)
  b = f32[4] broadcast(six), dimensions={}
  ROOT r = f32[4] multiply(c, b)
}
)";

std::string WriteTemp(const std::string& name, const std::string& contents) {
  const char* dir = std::getenv("TEST_TMPDIR");
  std::string path = std::string(dir ? dir : "/tmp") + "/" + name;
  EXPECT_TRUE(WriteStringToFile(path, contents).ok());
  return path;
}

absl::Status Opt(const std::vector<std::string>& args, std::string* out = nullptr,
                 std::string* err = nullptr) {
  std::ostringstream out_stream, err_stream;
  absl::Status status = RunOptCommand(args, out_stream, err_stream);
  if (out) *out = out_stream.str();
  if (err) *err = err_stream.str();
  return status;
}

TEST(OptCommandTest, SimplifyPipelineByDefault) {
  std::string out, err;
  ASSERT_TRUE(Opt({WriteTemp("a.hlo", kModule), "--stats"}, &out, &err).ok());
  EXPECT_THAT(out, Not(HasSubstr("exponential")));
  EXPECT_THAT(out, Not(HasSubstr("call(")));
  EXPECT_THAT(out, HasSubstr("constant(6)"));  // 2 * 3, folded; its broadcast stays
  EXPECT_TRUE(ParseHloModule(out).ok()) << out;
  EXPECT_THAT(err, HasSubstr("simplify/call-inliner"));
  EXPECT_THAT(err, HasSubstr("simplify-fixed-point/dce"));
}

TEST(OptCommandTest, ExplicitPassList) {
  std::string out;
  ASSERT_TRUE(Opt({WriteTemp("b.hlo", kModule), "--passes=dce"}, &out).ok());
  EXPECT_THAT(out, Not(HasSubstr("exponential")));
  EXPECT_THAT(out, HasSubstr("call("));  // not inlined: only DCE ran
}

TEST(OptCommandTest, DumpsIntoDirectory) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string dir = std::string(tmp ? tmp : "/tmp") + "/opt_dumps";
  std::filesystem::remove_all(dir);
  ASSERT_TRUE(Opt({WriteTemp("c.hlo", kModule), "--dump_dir=" + dir,
                   "--dump_pass_re=inliner"}).ok());
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  EXPECT_THAT(names, ::testing::ElementsAre("0000.opt_me.simplify.before.hlo",
                                            "0001.opt_me.simplify.call-inliner.hlo"));
}

TEST(OptCommandTest, UnknownPassIsNamed) {
  absl::Status status = Opt({WriteTemp("d.hlo", kModule), "--passes=dce,frobnicate"});
  EXPECT_THAT(status.message(), HasSubstr("unknown pass 'frobnicate' (known: "));
}

TEST(OptCommandTest, UnknownPipelineIsNamed) {
  absl::Status status = Opt({WriteTemp("e.hlo", kModule), "--pipeline=turbo"});
  EXPECT_THAT(status.message(), HasSubstr("unknown pipeline 'turbo'"));
}

TEST(OptCommandTest, PassesAndPipelineConflict) {
  absl::Status status =
      Opt({WriteTemp("f.hlo", kModule), "--passes=dce", "--pipeline=simplify"});
  EXPECT_THAT(status.message(), HasSubstr("not both"));
}

TEST(OptCommandTest, MissingModule) {
  absl::Status status = Opt({});
  EXPECT_THAT(status.message(), HasSubstr("expected exactly one MODULE file, got 0"));
}

TEST(OptCommandTest, BadDumpRegex) {
  absl::Status status = Opt({WriteTemp("g.hlo", kModule), "--dump_dir=/tmp/x_opt_bad",
                             "--dump_pass_re=("});
  EXPECT_THAT(status.message(), HasSubstr("bad --dump_pass_re"));
}

TEST(OptCommandTest, FusionPipelineSchedulesAndExplains) {
  std::string out, err;
  ASSERT_TRUE(
      Opt({WriteTemp("h.hlo", kModule), "--pipeline=fusion", "--explain_fusion", "--stats"}, &out,
          &err).ok());
  EXPECT_THAT(out, HasSubstr("is_scheduled=true"));
  EXPECT_THAT(out, HasSubstr("fusion("));
  EXPECT_THAT(out, HasSubstr("kind=kLoop"));
  EXPECT_TRUE(ParseHloModule(out).ok()) << out;
  EXPECT_THAT(err, HasSubstr("fusion/scheduler"));
  EXPECT_THAT(err, HasSubstr("fusion: %"));  // an explanation line
}

TEST(OptCommandTest, ShowBuffersPrintsThePlan) {
  std::string out, err;
  ASSERT_TRUE(
      Opt({WriteTemp("i.hlo", kModule), "--pipeline=fusion", "--show_buffers"}, &out, &err).ok());
  EXPECT_THAT(err, HasSubstr("summary: peak"));
}

TEST(OptCommandTest, ShowBuffersNeedsASchedule) {
  absl::Status status = Opt({WriteTemp("j.hlo", kModule), "--show_buffers"});
  EXPECT_THAT(status.message(), HasSubstr("--show_buffers needs a scheduled module"));
}

TEST(OptCommandTest, CpuPipelinePrintsWhatTheCpuBackendRuns) {
  std::string out, err;
  ASSERT_TRUE(Opt({WriteTemp("k.hlo", kModule), "--pipeline=cpu", "--show_thunks", "--stats"},
                  &out, &err)
                  .ok());
  EXPECT_THAT(out, HasSubstr("is_scheduled=true"));
  EXPECT_THAT(out, HasSubstr("kind=kLoop"));
  EXPECT_TRUE(ParseHloModule(out).ok()) << out;
  // The runtime plan: one JIT kernel for the fused multiply.
  EXPECT_THAT(err, HasSubstr("executable opt_me"));
  EXPECT_THAT(err, HasSubstr("kernel "));
}

TEST(OptCommandTest, ShowThunksNeedsTheCpuPipeline) {
  absl::Status status = Opt({WriteTemp("l.hlo", kModule), "--pipeline=fusion", "--show_thunks"});
  EXPECT_THAT(status.message(), HasSubstr("--show_thunks needs --pipeline=cpu"));
}

}  // namespace
}  // namespace tessera
