// LlvmJit: LLVM 19's ORC LLJIT for the host CPU, behind a header free of
// LLVM so that callers compile fast.  A module is verified, optimized once
// with the new pass manager (O3 by default, tuned for the detected CPU and
// its features, e.g. AVX-512), compiled and linked; functions are then
// looked up by name.  Symbols the module does not define (libm's `expf`,
// libgcc's `__mulsc3`, ...) resolve against the running process.
//
//   TS_ASSIGN_OR_RETURN(std::unique_ptr<LlvmJit> jit, LlvmJit::Create());
//   TS_RETURN_IF_ERROR(jit->AddIrText(ir_text));
//   TS_ASSIGN_OR_RETURN(auto* fn, jit->LookupFunction<void(void**)>("kernel"));
//
// Emitters hand over an `llvm::Module` through llvm_jit_internal.h.
#ifndef TESSERA_BACKENDS_LLVM_IR_LLVM_JIT_H_
#define TESSERA_BACKENDS_LLVM_IR_LLVM_JIT_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tessera {
namespace llvm_ir {

struct JitOptions {
  // 0..3: the pass pipeline (O0..O3) and the code generator's level.
  int opt_level = 3;
  // LLVM's loop unroller (full and runtime unrolling).  Off by default: on
  // our kernels it doubled compile time (MLP training step: 190 -> 93 ms
  // without it) and bought no run time, since the loop vectorizer already
  // interleaves its vector body.
  bool loop_unrolling = false;
  // The optimizer's pipeline at levels 2 and 3: Tessera's kernel pipeline
  // (kernel_pipeline.h: 25-30% faster compiles of our kernels, the same
  // code), or, when false, LLVM's default module pipeline for the level (as
  // clang's), for comparison and for IR that is not a Tessera kernel.
  // Levels 0 and 1 always run LLVM's.
  bool kernel_pipeline = true;
  // Empty: the host's CPU name and features (llvm::sys::getHostCPUName and
  // getHostCPUFeatures).  Otherwise an LLVM CPU name ("skylake-avx512") and
  // a feature string ("+avx2,-avx512f").
  // Either way, functions prefer the target's widest vector registers:
  // 512 bits where it has AVX-512 (LLVM's tuning for some AVX-512 CPUs,
  // Sapphire Rapids among them, prefers 256; our kernels' loop hints and
  // lane counts are sized for 64-byte registers).
  std::string cpu;
  std::string features;
  // When set, an object cache on disk: each module's object code is kept in
  // DIR/<sha256>.o, keyed by the module's IR before optimization, the
  // target (triple, CPU, features), the level and LLVM's version; a module
  // found there skips the optimizer and the code generator.  The directory
  // is created if missing; a cache that cannot be read or written only
  // costs the compilation (never an error).
  std::string cache_dir;
  // When set, each module's IR is written to DIR/<module>.ll before the
  // optimizer and DIR/<module>.opt.ll after it (for reading what a kernel
  // became); the directory is created if missing, and failures are ignored.
  std::string dump_dir;
};

// Counts of AddModule's work since the JIT was created.
struct JitStats {
  int64_t modules = 0;
  int64_t cache_hits = 0;    // object code loaded from cache_dir
  int64_t cache_writes = 0;  // object code written to cache_dir
};

// The SHA-256 of `data`, as 64 lowercase hex digits (LLVM's
// implementation): cache keys and fingerprints.
std::string Sha256Hex(absl::string_view data);

class LlvmJit {
 public:
  static absl::StatusOr<std::unique_ptr<LlvmJit>> Create(const JitOptions& options = {});
  ~LlvmJit();
  LlvmJit(const LlvmJit&) = delete;
  LlvmJit& operator=(const LlvmJit&) = delete;

  // Parses a module of textual LLVM IR, then adds it as AddModule does
  // (llvm_jit_internal.h).  Errors name the line of a parse error.
  absl::Status AddIrText(absl::string_view ir);

  // The address of the function or variable `name` of an added module.
  absl::StatusOr<void*> Lookup(absl::string_view name);
  template <typename Fn>
  absl::StatusOr<Fn*> LookupFunction(absl::string_view name) {
    absl::StatusOr<void*> address = Lookup(name);
    if (!address.ok()) return address.status();
    return reinterpret_cast<Fn*>(*address);
  }

  // What code is generated for.
  const std::string& cpu_name() const;
  const std::string& cpu_features() const;
  const std::string& target_triple() const;
  const JitOptions& options() const;

  JitStats stats() const;

  // The last module added, as optimized textual IR (for tests and dumps).
  const std::string& last_optimized_ir() const;
  // Keep the optimized IR of each added module (off by default: printing costs).
  void set_keep_optimized_ir(bool keep);

  struct Impl;
  Impl& impl() { return *impl_; }

 private:
  explicit LlvmJit(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace llvm_ir
}  // namespace tessera

#endif  // TESSERA_BACKENDS_LLVM_IR_LLVM_JIT_H_
