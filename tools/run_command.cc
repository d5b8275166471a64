#include "tools/run_command.h"

#include <cmath>
#include <complex>
#include <filesystem>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/algorithm/container.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_join.h"
#include "client/remote_client.h"
#include "tools/backend_registry.h"
#include "tools/serve_command.h"
#include "hlo/ir/npy.h"
#include "hlo/ir/random_literal.h"
#include "hlo/ir/status_macros.h"
#include "tools/command_line.h"
#include "tools/module_io.h"

namespace tessera {
namespace {

const std::vector<FlagSpec>& RunFlags() {
  static const std::vector<FlagSpec>* flags = [] {
    auto* list = new std::vector<FlagSpec>{
        {"backend", true, false,
         "where to run: interpreter (the reference evaluator, default) "
         "or cpu (LLVM-compiled kernels; ops without one yet run on "
         "the evaluator)"},
        {"input", true, true, "an argument as a .npy file; repeat in parameter order"},
        {"random_inputs", false, false,
         "use seeded random arguments (the default with no --input)"},
        {"seed", true, false, "seed for --random_inputs (default 0)"},
        {"output_dir", true, false, "write output_<i>.npy for every leaf of the result"},
        {"print", false, false, "print the results (the default without --output_dir)"},
        {"compare_with", true, false,
         "also run on this backend and report the largest absolute "
         "and relative error per output"},
        {"tolerance", true, false,
         "with --compare_with: fail when an element differs by more "
         "than T * (1 + |reference|) (default 1e-5; integers exactly)"},
        {"server", true, false,
         "run on a Tessera server (`tessera serve`) at HOST:PORT instead "
         "of in this process (--backend, if given, is the server's)"},
        {"auth_token_file", true, false, "with --server: send the token in this file"},
    };
    list->insert(list->end(), BackendOptionFlags().begin(), BackendOptionFlags().end());
    return list;
  }();
  return *flags;
}

std::string ParameterLabel(const HloInstruction& parameter) {
  return absl::StrCat("parameter ", parameter.parameter_number(), " (", parameter.name(), ")");
}

// Short form of a result for the terminal: full up to 64 elements.
std::string Summarize(const Literal& literal) {
  if (literal.shape().IsArray() && literal.element_count() > 64) {
    return absl::StrCat(literal.shape().ToString(), " (", literal.element_count(),
                        " elements; use --output_dir to get them all)");
  }
  return literal.ToString();
}

}  // namespace

std::string RunUsage() {
  return absl::StrCat(
      "usage: tessera run MODULE [--backend=interpreter|cpu] [--input=FILE.npy ...]\n"
      "                  [--random_inputs --seed=N] [--output_dir=DIR] [--print]\n"
      "                  [--compare_with=BACKEND [--tolerance=T]] [--cache_dir=DIR] "
      "[--dump_llvm_dir=DIR]\n"
      "                  [--llvm_pipeline=kernel|default] [--kernels=tiered|tile|tile_ops|llvm]\n"
      "                  [--tier_up=background|sync] [--server=HOST:PORT "
      "[--auth_token_file=F]]\n"
      "Runs MODULE (HLO text or a binary HloModuleProto) on the given arguments, or\n"
      "on seeded random ones, and prints its results or writes them as .npy files.\n",
      FlagsHelp(RunFlags()));
}

absl::StatusOr<std::vector<Literal>> LoadArguments(const HloModule& module,
                                                   const std::vector<std::string>& paths) {
  const HloComputation& entry = *module.entry_computation();
  if (static_cast<int64_t>(paths.size()) != entry.num_parameters()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "module ", module.name(), " takes ", entry.num_parameters(), " argument(s), got ",
        paths.size(), " --input file(s)"));
  }
  std::vector<Literal> arguments;
  for (int64_t i = 0; i < entry.num_parameters(); ++i) {
    const HloInstruction& parameter = *entry.parameter_instruction(i);
    const Shape& want = parameter.shape();
    if (!want.IsArray()) {
      return absl::InvalidArgumentError(absl::StrCat(
          ParameterLabel(parameter), " has shape ", want.ToString(),
          "; only array parameters can be read from .npy files"));
    }
    absl::StatusOr<Literal> literal = ReadNpyFileAs(paths[i], want.element_type());
    if (!literal.ok()) {
      return absl::Status(literal.status().code(),
                          absl::StrCat(ParameterLabel(parameter), ": ", literal.status().message()));
    }
    if (literal->shape().dimensions() != want.dimensions()) {
      return absl::InvalidArgumentError(absl::StrCat(
          ParameterLabel(parameter), " expects ", want.ToString(), ", got ",
          literal->shape().ToString(), " from ", paths[i]));
    }
    if (want.has_layout()) literal->set_layout(want.layout());
    arguments.push_back(*std::move(literal));
  }
  return arguments;
}

absl::StatusOr<std::vector<Literal>> RandomArguments(const HloModule& module, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Literal> arguments;
  for (const HloInstruction* parameter : module.entry_computation()->parameter_instructions()) {
    TS_ASSIGN_OR_RETURN(Literal literal, MakeRandomLiteral(parameter->shape(), rng));
    arguments.push_back(std::move(literal));
  }
  return arguments;
}

absl::Status CompareResults(const Literal& expected, const Literal& actual, double tolerance,
                            absl::string_view backend, absl::string_view reference,
                            std::ostream& out) {
  std::vector<const Literal*> want = expected.Leaves(), got = actual.Leaves();
  if (want.size() != got.size()) {
    return absl::InternalError(absl::StrCat(backend, " gave ", got.size(), " outputs, ",
                                            reference, " ", want.size()));
  }
  std::vector<std::string> failures;
  for (size_t i = 0; i < want.size(); ++i) {
    if (!want[i]->shape().IsArray()) continue;
    double max_abs = 0, max_rel = 0;
    bool beyond = false;
    const PrimitiveType type = want[i]->shape().element_type();
    const bool inexact = IsFloatingPointType(type) || IsComplexType(type);
    for (int64_t j = 0; j < want[i]->element_count(); ++j) {
      const std::complex<double> a = want[i]->GetAsComplex(j), b = got[i]->GetAsComplex(j);
      const bool a_nan = std::isnan(a.real()) || std::isnan(a.imag());
      const bool b_nan = std::isnan(b.real()) || std::isnan(b.imag());
      if (a_nan || b_nan) {
        if (a_nan != b_nan) {  // NaN on one side only: as far apart as can be
          beyond = true;
          max_abs = max_rel = INFINITY;
        }
        continue;
      }
      if (a == b) continue;
      const double abs_error = std::abs(a - b);
      const double rel_error = abs_error / std::max(std::abs(a), 1e-300);
      max_abs = std::max(max_abs, abs_error);
      max_rel = std::max(max_rel, rel_error);
      if (!inexact || !(abs_error <= tolerance * (1 + std::abs(a)))) beyond = true;
    }
    out << "output " << i << ": max abs error " << max_abs << ", max rel error " << max_rel
        << " (" << backend << " vs " << reference << ")\n";
    if (beyond) failures.push_back(absl::StrCat(i));
  }
  if (!failures.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "tessera run: ", backend, " and ", reference, " differ beyond --tolerance=", tolerance,
        " in output(s) ", absl::StrJoin(failures, ", ")));
  }
  return absl::OkStatus();
}

namespace {

// Compiles and runs `module` through the service at --server.
absl::StatusOr<Literal> RunOnServer(const CommandLine& cl, const HloModule& module,
                                    const std::vector<Literal>& arguments) {
  RemoteClientOptions options;
  if (cl.Has("auth_token_file")) {
    TS_ASSIGN_OR_RETURN(options.auth_token, ReadTokenFile(cl.Get("auth_token_file")));
  }
  const std::string server = cl.Get("server");
  absl::StatusOr<std::unique_ptr<RemoteClient>> client = RemoteClient::Connect(server, options);
  if (!client.ok()) {
    return absl::Status(client.status().code(),
                        absl::StrCat("tessera run: ", client.status().message()));
  }
  CompileOptions compile;
  compile.backend = cl.Get("backend");  // empty: the server's default
  absl::StatusOr<std::unique_ptr<RemoteExecutable>> executable =
      (*client)->Compile(module, compile);
  if (!executable.ok()) {
    return absl::Status(executable.status().code(),
                        absl::StrCat("tessera run: the server at ", server, ": ",
                                     executable.status().message()));
  }
  absl::StatusOr<Literal> result = (*executable)->Execute(arguments);
  if (!result.ok()) {
    return absl::Status(result.status().code(),
                        absl::StrCat("tessera run: the server at ", server, ": ",
                                     result.status().message()));
  }
  return result;
}

}  // namespace

absl::Status RunRunCommand(const std::vector<std::string>& args, std::ostream& out) {
  TS_ASSIGN_OR_RETURN(CommandLine cl, CommandLine::Parse("run", args, RunFlags()));
  if (cl.positional().size() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "tessera run: expected exactly one MODULE file, got ", cl.positional().size(), "\n",
        RunUsage()));
  }
  const std::string backend = cl.Get("backend", "interpreter");
  const std::vector<std::string> backends = BackendNames();
  if (absl::c_find(backends, backend) == backends.end()) {
    return absl::InvalidArgumentError(absl::StrCat("tessera run: unknown backend '", backend,
                                                   "' (available: ",
                                                   absl::StrJoin(backends, ", "), ")"));
  }
  const std::vector<std::string>& inputs = cl.GetAll("input");
  if (!inputs.empty() && cl.Has("random_inputs")) {
    return absl::InvalidArgumentError(
        "tessera run: give either --input files or --random_inputs, not both");
  }
  TS_ASSIGN_OR_RETURN(int64_t seed, cl.GetInt("seed", 0));
  const std::string reference_backend = cl.Get("compare_with");
  if (!reference_backend.empty() && absl::c_find(backends, reference_backend) == backends.end()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "tessera run: unknown --compare_with backend '", reference_backend, "' (available: ",
        absl::StrJoin(backends, ", "), ")"));
  }
  double tolerance = 1e-5;
  if (cl.Has("tolerance") && (!absl::SimpleAtod(cl.Get("tolerance"), &tolerance) ||
                              !(tolerance >= 0))) {
    return absl::InvalidArgumentError(absl::StrCat(
        "tessera run: --tolerance needs a number >= 0; got '", cl.Get("tolerance"), "'"));
  }
  TS_ASSIGN_OR_RETURN(std::unique_ptr<HloModule> module, LoadModule(cl.positional()[0]));

  std::vector<Literal> arguments;
  const int64_t num_parameters = module->entry_computation()->num_parameters();
  if (!inputs.empty() || num_parameters == 0) {
    TS_ASSIGN_OR_RETURN(arguments, LoadArguments(*module, inputs));
  } else {
    TS_ASSIGN_OR_RETURN(arguments, RandomArguments(*module, static_cast<uint64_t>(seed)));
    out << "note: no --input given; using random arguments (seed " << seed << ")\n";
  }

  Literal result;
  if (cl.Has("server")) {
    TS_ASSIGN_OR_RETURN(result, RunOnServer(cl, *module, arguments));
  } else {
    TS_ASSIGN_OR_RETURN(std::unique_ptr<HloExecutable> executable,
                        CompileForBackend(backend, std::move(module), BackendOptionsFromFlags(cl)));
    TS_ASSIGN_OR_RETURN(result, executable->RunLiterals(arguments));
  }
  std::vector<const Literal*> leaves = result.Leaves();
  if (cl.Has("output_dir")) {
    const std::string dir = cl.Get("output_dir");
    std::error_code error;
    std::filesystem::create_directories(dir, error);
    if (error) {
      return absl::PermissionDeniedError(
          absl::StrCat("tessera run: cannot create --output_dir ", dir, ": ", error.message()));
    }
    for (size_t i = 0; i < leaves.size(); ++i) {
      if (!leaves[i]->shape().IsArray()) continue;  // tokens have no data
      TS_RETURN_IF_ERROR(
          WriteNpyFile(*leaves[i], absl::StrCat(dir, "/output_", i, ".npy")));
    }
  }
  if (!cl.Has("output_dir") || cl.Has("print")) {
    for (size_t i = 0; i < leaves.size(); ++i) {
      out << "output " << i << ": " << Summarize(*leaves[i]) << "\n";
    }
  }
  if (!reference_backend.empty()) {
    TS_ASSIGN_OR_RETURN(std::unique_ptr<HloModule> reference_module,
                        LoadModule(cl.positional()[0]));
    TS_ASSIGN_OR_RETURN(std::unique_ptr<HloExecutable> reference,
                        CompileForBackend(reference_backend, std::move(reference_module)));
    TS_ASSIGN_OR_RETURN(Literal expected, reference->RunLiterals(arguments));
    TS_RETURN_IF_ERROR(
        CompareResults(expected, result, tolerance, backend, reference_backend, out));
  }
  return absl::OkStatus();
}

}  // namespace tessera
