// LlvmJit: ORC LLJIT set up for the host CPU, the O3 pipeline of the new
// pass manager, and lookups.  See llvm_jit.h.
#include "backends/llvm_ir/llvm_jit.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/llvm_ir/kernel_pipeline.h"
#include "backends/llvm_ir/llvm_jit_internal.h"
#include "backends/llvm_ir/streaming_stores.h"
#include "backends/llvm_ir/target_flags.h"
#include "backends/llvm_ir/target_machine_pool.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/LoopAnalysisManager.h"
#include "llvm/AsmParser/Parser.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/ExecutionEngine/Orc/CompileUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/ThreadSafeModule.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/PassManager.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"

namespace tessera {
namespace llvm_ir {

struct LlvmJit::Impl {
  JitOptions options;
  std::string cpu_name;
  std::string cpu_features;
  // The functions' "prefer-vector-width" ("512" with AVX-512), or empty for
  // the CPU's own tuning (PreferredVectorWidth).
  std::string prefer_vector_width;
  std::string target_triple;
  std::string data_layout;
  // The target machines borrowed from the pool, one per compile (they are
  // not thread-safe).
  TargetConfig target;
  // What the ORC session reported during the current lookup (a symbol
  // nothing defines, a runtime routine that failed to compile): the reason
  // a lookup failed, which its own error only calls "failed to
  // materialize".  Declared before `jit`, whose session reports into them
  // until it is destroyed.
  std::mutex session_errors_mutex;
  std::string session_errors;
  std::unique_ptr<llvm::orc::LLJIT> jit;
  bool keep_optimized_ir = false;
  std::string last_optimized_ir;
  JitStats stats;
};

namespace {

std::string ErrorString(llvm::Error error) {
  std::string text;
  llvm::raw_string_ostream stream(text);
  stream << error;
  return stream.str();
}

}  // namespace

// Code generator passes our kernels do not need, off (process-wide: LLVM
// offers them only as command-line options, not TargetOptions fields):
// - loop strength reduction: our loops index with a plain induction
//   variable, which x86's addressing modes take as it is; 7-19% of each
//   warm compile of the benchmark modules, run times unchanged.
// The machine instruction scheduler stays: with it off (for real, i.e.
// given as an occurrence, which is what the pass consults), warm compiles
// were 5-12% faster, but a tanh chain in cache ran 7% slower and an erf 8%
// faster.  The post-RA schedulers do not run on x86 anyway.
std::vector<std::pair<std::string, bool>> CodeGeneratorSettings() {
  return {{"disable-lsr", true}};
}

namespace {

// TESSERA_LLVM_ARGS, or null.  Part of the object cache's key, since the
// options change the code.
const char* ExtraLlvmArguments() { return std::getenv("TESSERA_LLVM_ARGS"); }

void InitializeLlvmOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
    for (const auto& [name, value] : CodeGeneratorSettings()) {
      llvm::StringMap<llvm::cl::Option*>& options = llvm::cl::getRegisteredOptions();
      // As an occurrence on a command line, not only a value: some passes
      // ask whether the option was given at all.
      if (auto it = options.find(name); it != options.end()) {
        it->second->addOccurrence(/*pos=*/1, name, value ? "true" : "false");
      }
    }
    // Then any LLVM options of the user's (a tool for experiments, as
    // XLA's --xla_backend_extra_options): TESSERA_LLVM_ARGS="-opt=value ...".
    // A bad option is reported (LLVM may have taken the ones before it),
    // never an exit.
    if (ExtraLlvmArguments() != nullptr) {
      const char* argv0[] = {"tessera"};
      std::string errors;
      llvm::raw_string_ostream error_stream(errors);
      if (!llvm::cl::ParseCommandLineOptions(1, argv0, "", &error_stream, "TESSERA_LLVM_ARGS")) {
        std::fprintf(stderr, "tessera: ignoring TESSERA_LLVM_ARGS: %s\n",
                     error_stream.str().c_str());
      }
    }
  });
}

// "+avx2,+fma,-avx512fp16,...": the host's features in LLVM's form.
std::string HostFeatureString() {
  std::vector<std::string> features;
  for (const auto& feature : llvm::sys::getHostCPUFeatures()) {
    features.push_back(absl::StrCat(feature.second ? "+" : "-",
                                    absl::string_view(feature.first().data(),
                                                      feature.first().size())));
  }
  std::sort(features.begin(), features.end());
  return absl::StrJoin(features, ",");
}

// The vector width kernels prefer, as a "prefer-vector-width" attribute:
// "512" where the target (its CPU and features) has AVX-512 with its
// 512-bit registers, else empty (the CPU's tuning decides).  Why not the
// tuning: for Sapphire Rapids it prefers 256 bits, which splits every loop
// our kernels size for 64-byte registers (a row reduction's 4 registers of
// lanes, a routine's <64 x float>) into twice the instructions; there the
// 512-bit kernels ran as fast or faster (softmax 4096x1024 1.54-1.62
// against 1.66-1.71 ms).
std::string PreferredVectorWidth(const llvm::MCSubtargetInfo& target) {
  return target.checkFeatures("+avx512f,+evex512") ? "512" : "";
}

// The host, detected once: the CPU does not change under the process, and
// detection (cpuid and parsing) is a measurable share of a small compile.
struct HostTarget {
  std::string cpu_name;
  std::string features;
  llvm::Triple triple;
};

const HostTarget& Host() {
  static const HostTarget* host = [] {
    auto* detected = new HostTarget;
    detected->cpu_name = std::string(llvm::sys::getHostCPUName());
    detected->features = HostFeatureString();
    detected->triple = llvm::Triple(llvm::sys::getProcessTriple());
    return detected;
  }();
  return *host;
}

// The JIT's compiler for modules added as IR: one of the pool's target
// machines per module, so that the JIT makes none of its own.
class PooledCompiler : public llvm::orc::IRCompileLayer::IRCompiler {
 public:
  PooledCompiler(TargetConfig target, llvm::orc::IRSymbolMapper::ManglingOptions mangling)
      : IRCompiler(mangling), target_(std::move(target)) {}

  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> operator()(llvm::Module& module) override {
    absl::StatusOr<TargetMachineLease> machine = BorrowTargetMachine(target_);
    if (!machine.ok()) {
      return llvm::make_error<llvm::StringError>(std::string(machine.status().message()),
                                                 llvm::inconvertibleErrorCode());
    }
    return llvm::orc::SimpleCompiler(**machine)(module);
  }

 private:
  TargetConfig target_;
};

llvm::CodeGenOptLevel CodeGenLevel(int opt_level) {
  switch (opt_level) {
    case 0: return llvm::CodeGenOptLevel::None;
    case 1: return llvm::CodeGenOptLevel::Less;
    case 2: return llvm::CodeGenOptLevel::Default;
    default: return llvm::CodeGenOptLevel::Aggressive;
  }
}

llvm::OptimizationLevel PassLevel(int opt_level) {
  switch (opt_level) {
    case 0: return llvm::OptimizationLevel::O0;
    case 1: return llvm::OptimizationLevel::O1;
    case 2: return llvm::OptimizationLevel::O2;
    default: return llvm::OptimizationLevel::O3;
  }
}

bool UsesKernelPipeline(const JitOptions& options) {
  return options.kernel_pipeline && options.opt_level >= 2;
}

// Writes `module`'s IR to DIR/<module name><suffix> where the options ask
// for dumps.
void DumpModule(const JitOptions& options, const llvm::Module& module, absl::string_view suffix) {
  if (options.dump_dir.empty()) return;
  if (llvm::sys::fs::create_directories(options.dump_dir)) return;
  std::error_code error;
  llvm::raw_fd_ostream out(
      absl::StrCat(options.dump_dir, "/", std::string(module.getName()), suffix), error);
  if (!error) module.print(out, nullptr);
}

// Runs the optimizer at the JIT's level with the target's cost model (so
// the vectorizer sees AVX-512): the kernel pipeline (kernel_pipeline.h) at
// levels 2 and 3 unless the options ask for LLVM's default one, whose module
// pipeline runs at levels 0 and 1.  Non-temporal stores (where a kernel asked
// for them) come last, after vectorization.
absl::Status Optimize(LlvmJit::Impl& impl, llvm::Module& module,
                      llvm::TargetMachine& target_machine) {
  llvm::LoopAnalysisManager loop_analyses;
  llvm::FunctionAnalysisManager function_analyses;
  llvm::CGSCCAnalysisManager cgscc_analyses;
  llvm::ModuleAnalysisManager module_analyses;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = impl.options.opt_level >= 2;
  tuning.SLPVectorization = impl.options.opt_level >= 2;
  tuning.LoopUnrolling = impl.options.loop_unrolling;
  llvm::PassBuilder builder(&target_machine, tuning);
  builder.registerModuleAnalyses(module_analyses);
  builder.registerCGSCCAnalyses(cgscc_analyses);
  builder.registerFunctionAnalyses(function_analyses);
  builder.registerLoopAnalyses(loop_analyses);
  builder.crossRegisterProxies(loop_analyses, function_analyses, cgscc_analyses, module_analyses);
  const llvm::OptimizationLevel level = PassLevel(impl.options.opt_level);
  llvm::ModulePassManager passes;
  if (UsesKernelPipeline(impl.options)) {
    if (absl::Status status = AddKernelPipeline(builder, impl.options.loop_unrolling, passes);
        !status.ok())
      return status;
    passes.addPass(llvm::createModuleToFunctionPassAdaptor(StreamingStoresPass()));
  } else if (level == llvm::OptimizationLevel::O0) {
    passes = builder.buildO0DefaultPipeline(level);
  } else {
    builder.registerOptimizerLastEPCallback(
        [](llvm::ModulePassManager& passes, llvm::OptimizationLevel) {
          passes.addPass(llvm::createModuleToFunctionPassAdaptor(StreamingStoresPass()));
        });
    passes = builder.buildPerModuleDefaultPipeline(level);
  }
  DumpModule(impl.options, module, ".ll");
  passes.run(module, module_analyses);
  DumpModule(impl.options, module, ".opt.ll");
  return absl::OkStatus();
}

// Bump when the meaning of a cached object changes without its key.
constexpr char kObjectCacheFormat[] = "tessera-object-cache-3";

// The cache file for `module` (with its target attributes set), keyed by
// everything that decides its object code.
std::string ObjectCachePath(const LlvmJit::Impl& impl, const llvm::Module& module) {
  std::string ir;
  llvm::raw_string_ostream stream(ir);
  module.print(stream, nullptr);
  stream.flush();
  const std::string key = Sha256Hex(absl::StrCat(
      kObjectCacheFormat, "\n", LLVM_VERSION_STRING, "\n", impl.target_triple, "\n", impl.cpu_name,
      "\n", impl.cpu_features, "\nO", impl.options.opt_level,
      impl.options.loop_unrolling ? " unroll" : "",
      UsesKernelPipeline(impl.options) ? " kernel pipeline" : "",
      "\nllvm args: ", ExtraLlvmArguments() != nullptr ? ExtraLlvmArguments() : "", "\n", ir));
  return absl::StrCat(impl.options.cache_dir, "/", key, ".o");
}

// Writes `object` to `path` through a temporary file and a rename, so that
// concurrent processes never read a partial object.  Failures are ignored
// (the cache is an optimization).
bool WriteCacheFile(const std::string& path, const llvm::MemoryBuffer& object) {
  const std::string temporary = absl::StrCat(path, ".tmp.", ::getpid());
  {
    std::error_code error;
    llvm::raw_fd_ostream out(temporary, error);
    if (error) return false;
    out.write(object.getBufferStart(), object.getBufferSize());
    out.close();
    if (out.has_error()) {
      out.clear_error();
      llvm::sys::fs::remove(temporary);
      return false;
    }
  }
  if (llvm::sys::fs::rename(temporary, path)) {
    llvm::sys::fs::remove(temporary);
    return false;
  }
  return true;
}

}  // namespace

std::string Sha256Hex(absl::string_view data) {
  llvm::SHA256 hash;
  hash.update(llvm::StringRef(data.data(), data.size()));
  const std::array<uint8_t, 32> digest = hash.final();
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(64);
  for (uint8_t byte : digest) {
    hex.push_back(kHex[byte >> 4]);
    hex.push_back(kHex[byte & 15]);
  }
  return hex;
}

namespace {

struct RuntimeSymbolRegistry {
  std::mutex mutex;
  std::vector<std::pair<std::string, RuntimeSymbolResolver>> resolvers;  // by prefix
};

RuntimeSymbolRegistry& Registry() {
  static auto* registry = new RuntimeSymbolRegistry;
  return *registry;
}

// The resolver of `name`'s prefix, or null.
const RuntimeSymbolResolver* FindResolver(llvm::StringRef name) {
  RuntimeSymbolRegistry& registry = Registry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  for (const auto& [prefix, resolver] : registry.resolvers) {
    // Entries are never removed, so the pointer outlives the lock.
    if (name.starts_with(prefix)) return &resolver;
  }
  return nullptr;
}

// Defines the registered runtime routines a module refers to, as absolute
// symbols at the addresses their resolvers give for this JIT's target.
class RuntimeSymbolGenerator : public llvm::orc::DefinitionGenerator {
 public:
  explicit RuntimeSymbolGenerator(JitOptions target) : target_(std::move(target)) {}

  llvm::Error tryToGenerate(llvm::orc::LookupState&, llvm::orc::LookupKind,
                            llvm::orc::JITDylib& dylib, llvm::orc::JITDylibLookupFlags,
                            const llvm::orc::SymbolLookupSet& symbols) override {
    llvm::orc::SymbolMap found;
    for (const auto& [name, flags] : symbols) {
      const RuntimeSymbolResolver* resolver = FindResolver(*name);
      if (resolver == nullptr) continue;
      absl::StatusOr<uint64_t> address = (*resolver)(ToStringView(*name), target_);
      if (!address.ok()) {
        return llvm::make_error<llvm::StringError>(std::string(address.status().message()),
                                                   llvm::inconvertibleErrorCode());
      }
      found[name] = {llvm::orc::ExecutorAddr(*address),
                     llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable};
    }
    if (found.empty()) return llvm::Error::success();
    return dylib.define(llvm::orc::absoluteSymbols(std::move(found)));
  }

 private:
  static absl::string_view ToStringView(llvm::StringRef s) { return {s.data(), s.size()}; }
  JitOptions target_;
};

}  // namespace

void RegisterRuntimeSymbols(absl::string_view prefix, RuntimeSymbolResolver resolver) {
  RuntimeSymbolRegistry& registry = Registry();
  std::lock_guard<std::mutex> lock(registry.mutex);
  for (const auto& entry : registry.resolvers) {
    if (entry.first == prefix) return;
  }
  registry.resolvers.emplace_back(std::string(prefix), std::move(resolver));
}

LlvmJit::LlvmJit(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
LlvmJit::~LlvmJit() = default;

absl::StatusOr<std::unique_ptr<LlvmJit>> LlvmJit::Create(const JitOptions& options) {
  InitializeLlvmOnce();
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  const HostTarget& host = Host();
  impl->cpu_name = options.cpu.empty() ? host.cpu_name : options.cpu;
  impl->cpu_features =
      options.cpu.empty() && options.features.empty() ? host.features : options.features;

  llvm::orc::JITTargetMachineBuilder machine_builder(host.triple);
  machine_builder.setCPU(impl->cpu_name);
  machine_builder.getFeatures() = llvm::SubtargetFeatures(impl->cpu_features);
  machine_builder.setCodeGenOptLevel(CodeGenLevel(options.opt_level));
  impl->target_triple = machine_builder.getTargetTriple().str();
  impl->target = TargetConfig{impl->target_triple, impl->cpu_name, impl->cpu_features,
                              CodeGenLevel(options.opt_level)};

  // Borrowing one checks that the target can be made (and primes the pool).
  llvm::DataLayout data_layout("");
  {
    absl::StatusOr<TargetMachineLease> machine = BorrowTargetMachine(impl->target);
    if (!machine.ok()) return machine.status();
    data_layout = (*machine)->createDataLayout();
    impl->prefer_vector_width = PreferredVectorWidth(*(*machine)->getMCSubtargetInfo());
  }
  impl->data_layout = data_layout.getStringRepresentation();

  // LLJIT links a JITDylib of the process's own symbols by default, so
  // calls to libm and libgcc resolve without a table of ours.  With the
  // data layout and the compiler given, it makes no target machine.
  const TargetConfig target = impl->target;
  llvm::Expected<std::unique_ptr<llvm::orc::LLJIT>> jit =
      llvm::orc::LLJITBuilder()
          .setJITTargetMachineBuilder(machine_builder)
          .setDataLayout(data_layout)
          .setCompileFunctionCreator(
              [target](llvm::orc::JITTargetMachineBuilder builder)
                  -> llvm::Expected<std::unique_ptr<llvm::orc::IRCompileLayer::IRCompiler>> {
                return std::make_unique<PooledCompiler>(
                    target, llvm::orc::irManglingOptionsFromTargetOptions(builder.getOptions()));
              })
          .create();
  if (!jit) {
    return absl::InternalError(
        absl::StrCat("cannot create the ORC JIT: ", ErrorString(jit.takeError())));
  }
  impl->jit = std::move(*jit);
  Impl* raw_impl = impl.get();
  impl->jit->getExecutionSession().setErrorReporter([raw_impl](llvm::Error error) {
    const std::string text = ErrorString(std::move(error));
    std::lock_guard<std::mutex> lock(raw_impl->session_errors_mutex);
    if (raw_impl->session_errors.size() < 4096) {
      absl::StrAppend(&raw_impl->session_errors, raw_impl->session_errors.empty() ? "" : "; ",
                      text);
    }
  });
  JitOptions runtime_target = options;
  runtime_target.cpu = impl->cpu_name;
  runtime_target.features = impl->cpu_features;
  impl->jit->getMainJITDylib().addGenerator(
      std::make_unique<RuntimeSymbolGenerator>(std::move(runtime_target)));
  return std::unique_ptr<LlvmJit>(new LlvmJit(std::move(impl)));
}

absl::Status LlvmJit::AddIrText(absl::string_view ir) {
  ModuleWithContext parsed;
  parsed.context = std::make_unique<llvm::LLVMContext>();
  llvm::SMDiagnostic diagnostic;
  parsed.module = llvm::parseAssemblyString(llvm::StringRef(ir.data(), ir.size()), diagnostic,
                                            *parsed.context);
  if (parsed.module == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "LLVM IR line ", diagnostic.getLineNo(), ", column ", diagnostic.getColumnNo() + 1,
        ": ", std::string(diagnostic.getMessage())));
  }
  return AddModule(*this, std::move(parsed));
}

absl::StatusOr<void*> LlvmJit::Lookup(absl::string_view name) {
  {
    std::lock_guard<std::mutex> lock(impl_->session_errors_mutex);
    impl_->session_errors.clear();
  }
  llvm::Expected<llvm::orc::ExecutorAddr> address =
      impl_->jit->lookup(llvm::StringRef(name.data(), name.size()));
  if (!address) {
    std::string reason = ErrorString(address.takeError());
    std::lock_guard<std::mutex> lock(impl_->session_errors_mutex);
    if (!impl_->session_errors.empty()) absl::StrAppend(&reason, " (", impl_->session_errors, ")");
    return absl::NotFoundError(absl::StrCat("JIT symbol '", name, "' not found: ", reason));
  }
  return address->toPtr<void*>();
}

const std::string& LlvmJit::cpu_name() const { return impl_->cpu_name; }
const std::string& LlvmJit::cpu_features() const { return impl_->cpu_features; }
const std::string& LlvmJit::target_triple() const { return impl_->target_triple; }
const JitOptions& LlvmJit::options() const { return impl_->options; }
const std::string& LlvmJit::last_optimized_ir() const { return impl_->last_optimized_ir; }
JitStats LlvmJit::stats() const { return impl_->stats; }
void LlvmJit::set_keep_optimized_ir(bool keep) { impl_->keep_optimized_ir = keep; }

ModuleWithContext CreateModule(const LlvmJit& jit, absl::string_view name) {
  ModuleWithContext result;
  result.context = std::make_unique<llvm::LLVMContext>();
  result.module = std::make_unique<llvm::Module>(llvm::StringRef(name.data(), name.size()),
                                                 *result.context);
  LlvmJit::Impl& impl = const_cast<LlvmJit&>(jit).impl();
  result.module->setTargetTriple(impl.target_triple);
  result.module->setDataLayout(impl.data_layout);
  // The same test as the 512-bit vector width: the registers scalef and
  // friends work on.
  if (impl.prefer_vector_width == "512") MarkModuleAvx512(result.module.get());
  return result;
}

namespace {

// Verifies `m` and sets the JIT's target on it (the optimizer and code
// generator read the CPU from each function).
absl::Status PrepareModule(LlvmJit::Impl& impl, llvm::Module& m) {
  if (m.getTargetTriple().empty()) m.setTargetTriple(impl.target_triple);
  m.setDataLayout(impl.data_layout);
  std::string problems;
  llvm::raw_string_ostream problem_stream(problems);
  if (llvm::verifyModule(m, &problem_stream)) {
    return absl::InternalError(
        absl::StrCat("invalid LLVM module '", std::string(m.getName()), "': ", problems));
  }
  for (llvm::Function& function : m) {
    if (function.isDeclaration()) continue;
    function.addFnAttr("target-cpu", impl.cpu_name);
    function.addFnAttr("target-features", impl.cpu_features);
    if (!impl.prefer_vector_width.empty()) {
      function.addFnAttr("prefer-vector-width", impl.prefer_vector_width);
    }
  }
  return absl::OkStatus();
}

absl::Status AddObject(LlvmJit::Impl& impl, std::unique_ptr<llvm::MemoryBuffer> object) {
  llvm::Error error = impl.jit->addObjectFile(std::move(object));
  if (error) {
    return absl::InternalError(
        absl::StrCat("cannot add an object to the JIT: ", ErrorString(std::move(error))));
  }
  return absl::OkStatus();
}

// What compiling `module` costs LLVM, in instructions: its function
// bodies' instructions plus a fixed share per function (the optimizer's
// and code generator's per-function work: a 48-instruction kernel took 4
// ms, a 256-instruction one 14 ms).
int64_t CompileCost(const llvm::Module& module) {
  constexpr int64_t kPerFunction = 100;
  int64_t cost = 0;
  for (const llvm::Function& function : module) {
    if (function.isDeclaration()) continue;
    cost += kPerFunction + function.getInstructionCount();
  }
  return cost;
}

// `modules` (by index) spread over at most `groups` groups: largest first,
// each onto the group with the least cost so far.
std::vector<std::vector<size_t>> PlanGroups(const std::vector<ModuleWithContext>& modules,
                                            size_t groups) {
  std::vector<size_t> order(modules.size());
  std::vector<int64_t> costs(modules.size());
  for (size_t i = 0; i < modules.size(); ++i) {
    order[i] = i;
    costs[i] = CompileCost(*modules[i].module);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return costs[a] > costs[b]; });
  std::vector<std::vector<size_t>> plan(std::min(groups, modules.size()));
  std::vector<int64_t> load(plan.size(), 0);
  for (size_t i : order) {
    const size_t g = std::min_element(load.begin(), load.end()) - load.begin();
    load[g] += costs[i];
    plan[g].push_back(i);
  }
  return plan;
}

// Whether `buffer` parses as an object file (a cache entry to trust).
bool IsObjectFile(const llvm::MemoryBuffer& buffer) {
  llvm::Expected<std::unique_ptr<llvm::object::ObjectFile>> object =
      llvm::object::ObjectFile::createObjectFile(buffer.getMemBufferRef());
  if (object) return true;
  llvm::consumeError(object.takeError());
  return false;
}

// `members` linked into one module in a fresh context (a module crosses
// contexts as bitcode); each member is released once linked.
absl::StatusOr<ModuleWithContext> LinkGroup(std::vector<ModuleWithContext*> members) {
  if (members.size() == 1) return std::move(*members[0]);
  ModuleWithContext linked;
  linked.context = std::make_unique<llvm::LLVMContext>();
  // The linker reports through its context's diagnostic handler, whose
  // default exits the process on an error: keep the message instead.
  std::string link_error;
  linked.context->setDiagnosticHandlerCallBack(
      [](const llvm::DiagnosticInfo* info, void* context) {
        if (info->getSeverity() != llvm::DS_Error) return;
        std::string text;
        llvm::raw_string_ostream stream(text);
        llvm::DiagnosticPrinterRawOStream printer(stream);
        info->print(printer);
        *static_cast<std::string*>(context) = stream.str();
      },
      &link_error);
  const llvm::Module& first = *members[0]->module;
  linked.module = std::make_unique<llvm::Module>(
      absl::StrCat(std::string(first.getName()), ".group"), *linked.context);
  linked.module->setTargetTriple(first.getTargetTriple());
  linked.module->setDataLayout(first.getDataLayout());
  for (ModuleWithContext* member : members) {
    const std::string name(member->module->getName());
    llvm::SmallVector<char, 0> bitcode;
    llvm::raw_svector_ostream stream(bitcode);
    llvm::WriteBitcodeToFile(*member->module, stream);
    llvm::Expected<std::unique_ptr<llvm::Module>> copy = llvm::parseBitcodeFile(
        llvm::MemoryBufferRef(llvm::StringRef(bitcode.data(), bitcode.size()), "member"),
        *linked.context);
    if (!copy) {
      return absl::InternalError(absl::StrCat("cannot move LLVM module '", name,
                                              "': ", ErrorString(copy.takeError())));
    }
    if (llvm::Linker::linkModules(*linked.module, std::move(*copy))) {
      return absl::InternalError(
          absl::StrCat("cannot link LLVM module '", name, "' into a group: ", link_error));
    }
    // Done with the member: its module before its context.
    member->module.reset();
    member->context.reset();
  }
  return linked;
}

}  // namespace

absl::Status AddModules(LlvmJit& jit, std::vector<ModuleWithContext> modules, int threads) {
  LlvmJit::Impl& impl = jit.impl();
  if (impl.keep_optimized_ir || modules.size() <= 1) {
    for (ModuleWithContext& module : modules) {
      if (absl::Status status = AddModule(jit, std::move(module)); !status.ok()) return status;
    }
    return absl::OkStatus();
  }
  // One module per compile thread: each module costs LLVM a fixed share
  // of its optimizer and code generator runs and of the JIT's linking,
  // whatever its size (//backends/llvm_ir:llvm_jit_benchmark: ten small
  // functions compile in 35 ms as one module, 52 ms as ten; warm compiles
  // of the MLP step and the transformer block 10-12% faster).
  const size_t compile_threads = static_cast<size_t>(
      std::max(1, threads > 0 ? threads : static_cast<int>(std::thread::hardware_concurrency())));
  const std::vector<std::vector<size_t>> plan = PlanGroups(modules, compile_threads);
  // Per group, on its own thread (each module and group has its own
  // context): verify the members (so that an error names the kernel), link
  // them, take the object cache's copy or optimize and generate code.
  struct GroupResult {
    std::unique_ptr<llvm::MemoryBuffer> object;
    std::string cache_path;
    bool cache_hit = false;
    absl::Status status;
  };
  std::vector<GroupResult> results(plan.size());
  const bool cached = !impl.options.cache_dir.empty();
  std::atomic<size_t> next{0};
  auto work = [&] {
    std::optional<TargetMachineLease> machine;
    for (size_t g = next.fetch_add(1); g < plan.size(); g = next.fetch_add(1)) {
      GroupResult& result = results[g];
      std::vector<ModuleWithContext*> members;
      for (size_t i : plan[g]) {
        result.status = PrepareModule(impl, *modules[i].module);
        if (!result.status.ok()) break;
        members.push_back(&modules[i]);
      }
      if (!result.status.ok()) continue;
      absl::StatusOr<ModuleWithContext> group = LinkGroup(std::move(members));
      if (!group.ok()) {
        result.status = group.status();
        continue;
      }
      llvm::Module& m = *group->module;
      if (cached) {
        result.cache_path = ObjectCachePath(impl, m);
        llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> object = llvm::MemoryBuffer::getFile(
            result.cache_path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
        // A damaged entry (not an object file) is compiled again and
        // overwritten.
        if (object && IsObjectFile(**object)) {
          result.object = std::move(*object);
          result.cache_hit = true;
          continue;
        }
      }
      if (!machine.has_value()) {
        absl::StatusOr<TargetMachineLease> borrowed = BorrowTargetMachine(impl.target);
        if (!borrowed.ok()) {
          result.status = borrowed.status();
          continue;
        }
        machine.emplace(std::move(*borrowed));
      }
      if (absl::Status optimized = Optimize(impl, m, **machine); !optimized.ok()) {
        result.status = optimized;
        continue;
      }
      llvm::orc::SimpleCompiler compiler(**machine);
      llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> object = compiler(m);
      if (!object) {
        result.status = absl::InternalError(absl::StrCat(
            "cannot compile LLVM module '", std::string(m.getName()), "': ",
            ErrorString(object.takeError())));
      } else {
        result.object = std::move(*object);
      }
    }
  };
  std::vector<std::thread> pool;
  for (size_t t = 1; t < plan.size(); ++t) pool.emplace_back(work);
  work();
  for (std::thread& thread : pool) thread.join();
  for (GroupResult& result : results) {
    if (!result.status.ok()) return result.status;
  }
  for (GroupResult& result : results) {
    ++impl.stats.modules;
    if (result.cache_hit) {
      if (absl::Status status = AddObject(impl, std::move(result.object)); !status.ok()) {
        return status;
      }
      ++impl.stats.cache_hits;
      continue;
    }
    if (cached && !llvm::sys::fs::create_directories(impl.options.cache_dir) &&
        WriteCacheFile(result.cache_path, *result.object)) {
      ++impl.stats.cache_writes;
    }
    if (absl::Status status = AddObject(impl, std::move(result.object)); !status.ok()) {
      return status;
    }
  }
  return absl::OkStatus();
}

absl::Status AddModule(LlvmJit& jit, ModuleWithContext module) {
  LlvmJit::Impl& impl = jit.impl();
  llvm::Module& m = *module.module;
  if (absl::Status status = PrepareModule(impl, m); !status.ok()) return status;
  ++impl.stats.modules;
  const bool cached = !impl.options.cache_dir.empty() && !impl.keep_optimized_ir;
  std::string cache_path;
  if (cached) {
    cache_path = ObjectCachePath(impl, m);
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> object =
        llvm::MemoryBuffer::getFile(cache_path, /*IsText=*/false,
                                    /*RequiresNullTerminator=*/false);
    if (object) {
      llvm::Error error = impl.jit->addObjectFile(std::move(*object));
      if (!error) {
        ++impl.stats.cache_hits;
        return absl::OkStatus();
      }
      // A damaged entry: compile again (and overwrite it).
      llvm::consumeError(std::move(error));
    }
  }
  absl::StatusOr<TargetMachineLease> machine = BorrowTargetMachine(impl.target);
  if (!machine.ok()) return machine.status();
  if (absl::Status optimized = Optimize(impl, m, **machine); !optimized.ok()) return optimized;
  if (impl.keep_optimized_ir) {
    impl.last_optimized_ir.clear();
    llvm::raw_string_ostream ir_stream(impl.last_optimized_ir);
    m.print(ir_stream, nullptr);
  }
  llvm::Error error = llvm::Error::success();
  if (cached) {
    // Compile here rather than lazily in the JIT, to keep the object.
    llvm::orc::SimpleCompiler compiler(**machine);
    llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> object = compiler(m);
    if (!object) {
      return absl::InternalError(absl::StrCat("cannot compile LLVM module '",
                                              std::string(m.getName()),
                                              "': ", ErrorString(object.takeError())));
    }
    if (!llvm::sys::fs::create_directories(impl.options.cache_dir) &&
        WriteCacheFile(cache_path, **object)) {
      ++impl.stats.cache_writes;
    }
    error = impl.jit->addObjectFile(std::move(*object));
  } else {
    error = impl.jit->addIRModule(
        llvm::orc::ThreadSafeModule(std::move(module.module), std::move(module.context)));
  }
  if (error) {
    return absl::InternalError(
        absl::StrCat("cannot add an LLVM module to the JIT: ", ErrorString(std::move(error))));
  }
  return absl::OkStatus();
}

}  // namespace llvm_ir
}  // namespace tessera
