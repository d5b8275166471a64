// End-to-end tests of `tessera run` through its library entry point: .npy
// arguments in, .npy results out, random arguments, and every argument
// error (count, shape, dtype, unreadable file, flags), each asserting its
// message.
#include "tools/run_command.h"

#include <cstdlib>
#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/ir/npy.h"
#include "hlo/proto/hlo_proto_export.h"
#include "tools/module_io.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

// out = (x * 2 + y, sum(x))
constexpr char kModule[] = R"(HloModule scale_add

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

ENTRY main {
  x = f32[3] parameter(0)
  y = f32[3] parameter(1)
  two = f32[] constant(2)
  twos = f32[3] broadcast(two), dimensions={}
  xx = f32[3] multiply(x, twos)
  r = f32[3] add(xx, y)
  zero = f32[] constant(0)
  total = f32[] reduce(x, zero), dimensions={0}, to_apply=add
  ROOT out = (f32[3], f32[]) tuple(r, total)
}
)";

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/" + name;
}

std::string WriteModule(const std::string& name, const std::string& text) {
  std::string path = TempPath(name);
  EXPECT_TRUE(WriteStringToFile(path, text).ok());
  return path;
}

std::string WriteNpy(const std::string& name, const Literal& literal) {
  std::string path = TempPath(name);
  EXPECT_TRUE(WriteNpyFile(literal, path).ok());
  return path;
}

absl::Status RunTessera(const std::vector<std::string>& args, std::string* out = nullptr) {
  std::ostringstream stream;
  absl::Status status = RunRunCommand(args, stream);
  if (out) *out = stream.str();
  return status;
}

class RunCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    module_ = WriteModule("m.hlo", kModule);
    x_ = WriteNpy("x.npy", Literal::CreateR1<float>({1, 2, 3}));
    y_ = WriteNpy("y.npy", Literal::CreateR1<float>({10, 20, 30}));
  }
  std::string module_, x_, y_;
};

TEST_F(RunCommandTest, WritesOneNpyPerResultLeaf) {
  const std::string dir = TempPath("out1");
  ASSERT_TRUE(RunTessera({module_, "--input=" + x_, "--input=" + y_, "--output_dir=" + dir}).ok());
  absl::StatusOr<Literal> r = ReadNpyFile(dir + "/output_0.npy");
  absl::StatusOr<Literal> total = ReadNpyFile(dir + "/output_1.npy");
  ASSERT_TRUE(r.ok() && total.ok());
  EXPECT_EQ(*r, Literal::CreateR1<float>({12, 24, 36}));
  EXPECT_EQ(*total, Literal::CreateR0<float>(6));
}

TEST_F(RunCommandTest, PrintsResultsWithoutOutputDir) {
  std::string out;
  ASSERT_TRUE(RunTessera({module_, "--input", x_, "--input", y_}, &out).ok());
  EXPECT_THAT(out, HasSubstr("output 0: f32[3]{0} {12, 24, 36}"));
  EXPECT_THAT(out, HasSubstr("output 1: f32[]"));
}

TEST_F(RunCommandTest, RandomInputsAreSeededAndSaidSo) {
  std::string a, b, c;
  ASSERT_TRUE(RunTessera({module_, "--seed=5"}, &a).ok());
  ASSERT_TRUE(RunTessera({module_, "--random_inputs", "--seed=5"}, &b).ok());
  ASSERT_TRUE(RunTessera({module_, "--seed=6"}, &c).ok());
  EXPECT_THAT(a, HasSubstr("using random arguments (seed 5)"));
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
}

TEST_F(RunCommandTest, WrongArgumentCount) {
  EXPECT_THAT(RunTessera({module_, "--input=" + x_}).message(),
              HasSubstr("module scale_add takes 2 argument(s), got 1 --input file(s)"));
}

TEST_F(RunCommandTest, WrongShapeNamesTheParameter) {
  const std::string bad = WriteNpy("bad_shape.npy", Literal::CreateR1<float>({1, 2}));
  EXPECT_THAT(RunTessera({module_, "--input=" + x_, "--input=" + bad}).message(),
              HasSubstr("parameter 1 (y) expects f32[3], got f32[2]"));
}

TEST_F(RunCommandTest, WrongDtypeNamesTheParameter) {
  const std::string bad = WriteNpy("bad_type.npy", Literal::CreateR1<int32_t>({1, 2, 3}));
  absl::Status status = RunTessera({module_, "--input=" + bad, "--input=" + y_});
  EXPECT_THAT(status.message(), HasSubstr("parameter 0 (x)"));
  EXPECT_THAT(status.message(), HasSubstr("int32"));
}

TEST_F(RunCommandTest, UnreadableInputFile) {
  absl::Status status = RunTessera({module_, "--input=/nonexistent/x.npy", "--input=" + y_});
  EXPECT_THAT(status.message(), HasSubstr("parameter 0 (x)"));
  EXPECT_THAT(status.message(), HasSubstr("/nonexistent/x.npy"));
}

TEST_F(RunCommandTest, CorruptInputFile) {
  const std::string bad = WriteModule("corrupt.npy", "not an npy file at all");
  absl::Status status = RunTessera({module_, "--input=" + bad, "--input=" + y_});
  EXPECT_THAT(status.message(), HasSubstr("parameter 0 (x)"));
}

TEST_F(RunCommandTest, InputsAndRandomInputsConflict) {
  EXPECT_THAT(RunTessera({module_, "--input=" + x_, "--random_inputs"}).message(),
              HasSubstr("either --input files or --random_inputs, not both"));
}

// Values too large for the machine (4 TB) are errors that say so, on both
// backends, not crashes: a result the runtime will not allocate, and an
// intermediate the evaluator will not (the CPU backend fuses it away);
// both are refused before allocating, whatever Linux would promise.
TEST_F(RunCommandTest, ValuesTooLargeForTheMachineAreErrors) {
  const std::string huge_result = WriteModule("huge_result.hlo", R"(HloModule huge_result
ENTRY e {
  c = f32[] constant(1)
  ROOT b = f32[1000000000000] broadcast(c), dimensions={}
})");
  for (const char* backend : {"--backend=cpu", "--backend=interpreter"}) {
    absl::Status status = RunTessera({huge_result, backend});
    EXPECT_TRUE(absl::IsResourceExhausted(status)) << backend << ": " << status;
    EXPECT_THAT(status.message(),
                HasSubstr("cannot allocate 4000000000000 bytes (3725.3 GiB) for result 0"));
  }
  const std::string huge_temporary = WriteModule("huge_temporary.hlo", R"(HloModule huge_temporary
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  c = f32[] constant(1)
  b = f32[1000000000000] broadcast(c), dimensions={}
  ROOT r = f32[] reduce(b, c), dimensions={0}, to_apply=add
})");
  absl::Status status = RunTessera({huge_temporary, "--backend=interpreter"});
  EXPECT_TRUE(absl::IsResourceExhausted(status)) << status;
  EXPECT_THAT(status.message(),
              HasSubstr("%b: its result f32[1000000000000] takes 4000000000000 bytes (3725.3 "
                        "GiB), more than this machine's"));
}

TEST_F(RunCommandTest, UnknownBackend) {
  EXPECT_THAT(RunTessera({module_, "--backend=tpu"}).message(),
              HasSubstr("unknown backend 'tpu' (available: cpu, interpreter)"));
}

TEST_F(RunCommandTest, CpuBackendPrintsWhatTheInterpreterPrints) {
  std::string cpu, interpreter;
  ASSERT_TRUE(RunTessera({module_, "--seed=9", "--backend=cpu"}, &cpu).ok());
  ASSERT_TRUE(RunTessera({module_, "--seed=9", "--backend=interpreter"}, &interpreter).ok());
  EXPECT_EQ(cpu, interpreter);
}

TEST_F(RunCommandTest, CompareWithReportsErrorsPerOutput) {
  std::string out;
  ASSERT_TRUE(
      RunTessera({module_, "--backend=cpu", "--compare_with=interpreter"}, &out).ok());
  EXPECT_THAT(out, HasSubstr("output 0: max abs error "));
  EXPECT_THAT(out, HasSubstr("(cpu vs interpreter)"));
}

TEST_F(RunCommandTest, CompareWithFailsBeyondTolerance) {
  // Polynomial exp on the CPU is within ~1 ulp of the C library's, not equal.
  const std::string path = WriteModule("exp.hlo", R"(HloModule exps
ENTRY main {
  x = f32[4096] parameter(0)
  ROOT e = f32[4096] exponential(x)
}
)");
  absl::Status status =
      RunTessera({path, "--backend=cpu", "--compare_with=interpreter", "--tolerance=0"});
  EXPECT_THAT(status.message(),
              HasSubstr("cpu and interpreter differ beyond --tolerance=0 in output(s) 0"));
  EXPECT_TRUE(
      RunTessera({path, "--backend=cpu", "--compare_with=interpreter", "--tolerance=1e-6"}).ok());
}

TEST_F(RunCommandTest, CompareWithErrors) {
  EXPECT_THAT(RunTessera({module_, "--compare_with=gpu"}).message(),
              HasSubstr("unknown --compare_with backend 'gpu'"));
  EXPECT_THAT(RunTessera({module_, "--compare_with=cpu", "--tolerance=abc"}).message(),
              HasSubstr("--tolerance needs a number >= 0; got 'abc'"));
}

TEST_F(RunCommandTest, BadSeed) {
  EXPECT_THAT(RunTessera({module_, "--seed=x1"}).message(),
              HasSubstr("--seed needs an integer; got 'x1'"));
}

TEST_F(RunCommandTest, NoModule) {
  EXPECT_THAT(RunTessera({}).message(), HasSubstr("expected exactly one MODULE file, got 0"));
}

TEST_F(RunCommandTest, ProtoModuleRunsLikeText) {
  // The same module as a binary HloModuleProto (the format is detected from
  // the content, not the extension) gives the same printout.
  absl::StatusOr<std::unique_ptr<HloModule>> module = LoadModule(module_);
  ASSERT_TRUE(module.ok());
  absl::StatusOr<std::string> bytes = SerializeHloModule(**module);
  ASSERT_TRUE(bytes.ok());
  const std::string proto_path = WriteModule("m.hlo.bin", *bytes);
  std::string text_out, proto_out;
  ASSERT_TRUE(RunTessera({module_, "--input=" + x_, "--input=" + y_}, &text_out).ok());
  ASSERT_TRUE(RunTessera({proto_path, "--input=" + x_, "--input=" + y_}, &proto_out).ok());
  EXPECT_EQ(text_out, proto_out);
}

}  // namespace
}  // namespace tessera
