// `tessera run --server` against an in-process server writes what a local
// run writes; `tessera serve` rejects bad flags before it listens.
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "hlo/ir/npy.h"
#include "service/tessera_server.h"
#include "tools/run_command.h"
#include "tools/serve_command.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

std::string TempPath(const std::string& name) {
  const char* dir = std::getenv("TEST_TMPDIR");
  return std::string(dir != nullptr ? dir : "/tmp") + "/" + name;
}

std::string WriteFile(const std::string& name, const std::string& contents) {
  const std::string path = TempPath(name);
  std::ofstream(path) << contents;
  return path;
}

absl::Status RunTool(std::vector<std::string> args, std::string* output) {
  std::ostringstream out;
  absl::Status status = RunRunCommand(args, out);
  *output = out.str();
  return status;
}

TEST(ServeCommandTest, RemoteRunWritesWhatALocalRunWrites) {
  const std::string module = WriteFile("scaled_tanh.hlo", R"(HloModule scaled_tanh
ENTRY e {
  x = f32[3,5] parameter(0)
  s = f32[] parameter(1)
  b = f32[3,5] broadcast(s), dimensions={}
  m = f32[3,5] multiply(x, b)
  ROOT t = f32[3,5] tanh(m)
})");
  const std::string token = WriteFile("token", "  sesame\n");
  service::ServerOptions options;
  options.service.auth_token = "sesame";
  std::unique_ptr<service::TesseraServer> server = *service::TesseraServer::Start(options);

  std::string local, remote, unauthenticated;
  ASSERT_TRUE(RunTool({module, "--backend=cpu", "--seed=3", "--output_dir=" + TempPath("local")}, &local).ok());
  absl::Status status = RunTool({module, "--server=" + server->address(), "--auth_token_file=" + token,
                             "--seed=3", "--output_dir=" + TempPath("remote")},
                            &remote);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(*ReadNpyFile(TempPath("local") + "/output_0.npy"),
            *ReadNpyFile(TempPath("remote") + "/output_0.npy"));
  EXPECT_EQ(local, remote);

  status = RunTool({module, "--server=" + server->address()}, &unauthenticated);
  EXPECT_EQ(status.code(), absl::StatusCode::kUnauthenticated);
  EXPECT_THAT(std::string(status.message()), HasSubstr("authorization"));
  status = RunTool({module, "--server=127.0.0.1:1"}, &unauthenticated);
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable) << status;
}

TEST(ServeCommandTest, BadFlagsFailBeforeListening) {
  std::ostringstream out;
  EXPECT_THAT(std::string(RunServeCommand({"--backend=tpu"}, out).message()),
              HasSubstr("unknown backend 'tpu'"));
  EXPECT_THAT(std::string(RunServeCommand({"--max_executables=0"}, out).message()),
              HasSubstr("--max_executables must be >= 1"));
  EXPECT_THAT(std::string(RunServeCommand({"--auth_token_file=/nonexistent/token"}, out).message()),
              HasSubstr("cannot read the token file"));
  EXPECT_THAT(std::string(RunServeCommand({"extra"}, out).message()),
              HasSubstr("takes no positional arguments"));
  EXPECT_THAT(std::string(ReadTokenFile(WriteFile("empty_token", " \n")).status().message()),
              HasSubstr("is empty"));
}

}  // namespace
}  // namespace tessera
