// Conformance over HLO that XLA itself wrote (../shared/corpus, outside the
// tree): every text parses, verifies, prints, and re-parses to the same
// text; every serialized HloModuleProto imports, verifies, and exports and
// re-imports unchanged, and prints as its text twin does.
//
// The corpora are found through environment variables that `./tessera test`
// sets: TESSERA_SHARED_CORPUS (../shared/corpus) and TESSERA_JAX_CORPUS (a
// corpus written by make_jax_corpus.py).  Absent corpora skip.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "hlo/analysis/hlo_verifier.h"
#include "hlo/parser/hlo_parser.h"
#include "hlo/parser/hlo_printer.h"
#include "hlo/proto/hlo_proto_export.h"
#include "hlo/proto/hlo_proto_import.h"

namespace tessera {
namespace {

namespace fs = std::filesystem;

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

std::vector<fs::path> FilesUnder(const char* env, const std::string& suffix) {
  std::vector<fs::path> files;
  const char* root = std::getenv(env);
  if (root == nullptr || !fs::is_directory(root)) return files;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    const std::string name = entry.path().string();
    if (entry.is_regular_file() && name.size() >= suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Parses, verifies, prints, re-parses and re-prints; returns the failures.
std::vector<std::string> CheckTextRoundTrips(const std::vector<fs::path>& files) {
  std::vector<std::string> failures;
  for (const fs::path& file : files) {
    auto module = ParseHloModule(ReadAll(file));
    if (!module.ok()) {
      failures.push_back(file.string() + ": parse: " + std::string(module.status().message()));
      continue;
    }
    if (absl::Status s = VerifyHloModule(**module); !s.ok()) {
      failures.push_back(file.string() + ": verify: " + std::string(s.message()));
      continue;
    }
    const std::string printed = PrintHloModule(**module);
    auto reparsed = ParseHloModule(printed);
    if (!reparsed.ok()) {
      failures.push_back(file.string() + ": reparse: " + std::string(reparsed.status().message()));
      continue;
    }
    if (PrintHloModule(**reparsed) != printed) {
      failures.push_back(file.string() + ": printed text is not a fixed point");
    }
  }
  return failures;
}

TEST(XlaHloCorpusTest, EveryTextParsesVerifiesAndRoundTrips) {
  std::vector<fs::path> files = FilesUnder("TESSERA_SHARED_CORPUS", ".hlo");
  if (files.empty()) GTEST_SKIP() << "TESSERA_SHARED_CORPUS not set or empty";
  std::vector<std::string> failures = CheckTextRoundTrips(files);
  for (const std::string& f : failures) ADD_FAILURE() << f;
  std::cout << (files.size() - failures.size()) << "/" << files.size()
            << " xla_hlo texts parse, verify and round-trip\n";
}

TEST(JaxCorpusTest, EveryTextParsesVerifiesAndRoundTrips) {
  std::vector<fs::path> files = FilesUnder("TESSERA_JAX_CORPUS", ".hlo");
  if (files.empty()) GTEST_SKIP() << "TESSERA_JAX_CORPUS not set or empty";
  std::vector<std::string> failures = CheckTextRoundTrips(files);
  for (const std::string& f : failures) ADD_FAILURE() << f;
  std::cout << (files.size() - failures.size()) << "/" << files.size()
            << " JAX corpus texts parse, verify and round-trip\n";
}

TEST(JaxCorpusTest, EveryProtoImportsExportsAndMatchesItsText) {
  std::vector<fs::path> files = FilesUnder("TESSERA_JAX_CORPUS", "module.pb");
  if (files.empty()) GTEST_SKIP() << "TESSERA_JAX_CORPUS not set or empty";
  int ok = 0;
  for (const fs::path& file : files) {
    auto module = ParseHloModuleProtoBytes(ReadAll(file));
    if (!module.ok()) {
      ADD_FAILURE() << file << ": import: " << module.status().message();
      continue;
    }
    if (absl::Status s = VerifyHloModule(**module); !s.ok()) {
      ADD_FAILURE() << file << ": verify: " << s.message();
      continue;
    }
    auto bytes = SerializeHloModule(**module);
    ASSERT_TRUE(bytes.ok()) << file << ": " << bytes.status().message();
    auto reimported = ParseHloModuleProtoBytes(*bytes);
    ASSERT_TRUE(reimported.ok()) << file << ": " << reimported.status().message();
    const std::string printed = PrintHloModule(**module);
    EXPECT_EQ(PrintHloModule(**reimported), printed) << file;
    // The text JAX wrote beside the proto describes the same module; JAX
    // writes that text without metadata, so metadata is left out of the
    // comparison.
    auto from_text = ParseHloModule(ReadAll(file.parent_path() / "module.hlo"));
    if (from_text.ok()) {
      HloPrintOptions without_metadata;
      without_metadata.print_metadata = false;
      EXPECT_EQ(PrintHloModule(**from_text, without_metadata),
                PrintHloModule(**module, without_metadata))
          << file << " vs its module.hlo";
    }
    ++ok;
  }
  std::cout << ok << "/" << files.size() << " JAX serialized protos import and round-trip\n";
}

}  // namespace
}  // namespace tessera
