// Conformance with real HloModuleProtos written by JAX/XLA: every
// <corpus>/<program>/module.pb must import, export, and re-import to the
// same module.  The corpus lives outside the tree (make it with
// /work/shared/corpus/make_jax_corpus.py); the test runs only when
// TESSERA_JAX_CORPUS names it, e.g.
//   bazel test //hlo/proto:hlo_proto_jax_corpus_test
//       --test_env=TESSERA_JAX_CORPUS=/tmp/jax_corpus
#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hlo/proto/hlo_proto_export.h"
#include "hlo/proto/hlo_proto_import.h"
#include "hlo/proto/module_comparison_test_util.h"

namespace tessera {
namespace {

std::vector<std::filesystem::path> CorpusProtos(const std::string& root) {
  std::vector<std::filesystem::path> protos;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(root, error)) {
    const std::filesystem::path proto = entry.path() / "module.pb";
    if (std::filesystem::exists(proto)) protos.push_back(proto);
  }
  std::sort(protos.begin(), protos.end());
  return protos;
}

TEST(HloProtoJaxCorpusTest, EveryModuleImportsAndRoundTrips) {
  const char* root = std::getenv("TESSERA_JAX_CORPUS");
  if (root == nullptr || *root == '\0') GTEST_SKIP() << "TESSERA_JAX_CORPUS is not set";
  const std::vector<std::filesystem::path> protos = CorpusProtos(root);
  if (protos.empty()) GTEST_SKIP() << "no */module.pb under " << root;
  int imported = 0;
  for (const std::filesystem::path& path : protos) {
    SCOPED_TRACE(path.string());
    std::ifstream file(path, std::ios::binary);
    std::stringstream bytes;
    bytes << file.rdbuf();
    absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModuleProtoBytes(bytes.str());
    ASSERT_TRUE(module.ok()) << module.status();
    absl::StatusOr<std::string> exported = SerializeHloModule(**module);
    ASSERT_TRUE(exported.ok()) << exported.status();
    absl::StatusOr<std::unique_ptr<HloModule>> again = ParseHloModuleProtoBytes(*exported);
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_EQ(test_util::DescribeModuleDifference(**module, **again), "");
    // Bazel collects these; handy for diffing against JAX's original.
    if (const char* out = std::getenv("TEST_UNDECLARED_OUTPUTS_DIR")) {
      const std::string name = path.parent_path().filename().string() + ".pb";
      std::ofstream(std::filesystem::path(out) / name, std::ios::binary) << *exported;
    }
    ++imported;
  }
  std::cout << imported << " of " << protos.size() << " JAX module.pb files round-tripped\n";
}

}  // namespace
}  // namespace tessera
