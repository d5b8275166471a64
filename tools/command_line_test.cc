#include "tools/command_line.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

const std::vector<FlagSpec> kSpecs = {
    {"to", true, false, ""},
    {"o", true, false, ""},
    {"print", false, false, ""},
    {"input", true, true, ""},
    {"seed", true, false, ""},
};

TEST(CommandLineTest, ParsesAllForms) {
  auto cl = CommandLine::Parse(
      "run", {"m.hlo", "--to=proto", "-o", "out.pb", "--print", "--input=a.npy", "--input",
              "b.npy", "--", "--not-a-flag"},
      kSpecs);
  ASSERT_TRUE(cl.ok()) << cl.status();
  EXPECT_THAT(cl->positional(), ElementsAre("m.hlo", "--not-a-flag"));
  EXPECT_EQ(cl->Get("to"), "proto");
  EXPECT_EQ(cl->Get("o"), "out.pb");
  EXPECT_TRUE(cl->Has("print"));
  EXPECT_FALSE(cl->Has("seed"));
  EXPECT_EQ(cl->Get("seed", "7"), "7");
  EXPECT_THAT(cl->GetAll("input"), ElementsAre("a.npy", "b.npy"));
}

TEST(CommandLineTest, UnknownFlagIsNamed) {
  auto cl = CommandLine::Parse("fmt", {"m.hlo", "--frobnicate"}, kSpecs);
  EXPECT_THAT(cl.status().message(), HasSubstr("tessera fmt: unknown flag '--frobnicate'"));
}

TEST(CommandLineTest, MissingValueIsNamed) {
  auto cl = CommandLine::Parse("fmt", {"m.hlo", "-o"}, kSpecs);
  EXPECT_THAT(cl.status().message(), HasSubstr("flag --o needs a value"));
}

TEST(CommandLineTest, SwitchWithValueIsRejected) {
  auto cl = CommandLine::Parse("run", {"--print=yes"}, kSpecs);
  EXPECT_THAT(cl.status().message(), HasSubstr("--print is a switch; got value 'yes'"));
}

TEST(CommandLineTest, RepeatedSingleFlagIsRejected) {
  auto cl = CommandLine::Parse("fmt", {"--to=text", "--to=proto"}, kSpecs);
  EXPECT_THAT(cl.status().message(), HasSubstr("--to given more than once"));
}

TEST(CommandLineTest, NonIntegerIsRejected) {
  auto cl = CommandLine::Parse("run", {"--seed=abc"}, kSpecs);
  ASSERT_TRUE(cl.ok());
  EXPECT_THAT(cl->GetInt("seed", 0).status().message(),
              HasSubstr("--seed needs an integer; got 'abc'"));
  auto ok = CommandLine::Parse("run", {"--seed=-3"}, kSpecs);
  EXPECT_EQ(*ok->GetInt("seed", 0), -3);
}

}  // namespace
}  // namespace tessera
