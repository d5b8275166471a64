// Loading the host's LAPACK; see lapack_library.h.
#include "backends/cpu/lapack_library.h"

#include <dlfcn.h>

#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"

namespace tessera {
namespace cpu {
namespace lapack {
namespace {

struct Library {
  Routines routines;
  bool loaded = false;
  std::string description;
};

// OpenBLAS's name for the best kernels the host can run, or null where its
// own detection is as good (no AVX2).
const char* CoreTypeForHost() {
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl")) {
    return "SkylakeX";
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "Haswell";
  return nullptr;
}

void SetUnlessSet(const char* name, const char* value) {
  if (value != nullptr && std::getenv(name) == nullptr) setenv(name, value, /*overwrite=*/0);
}

// Binds every routine of `handle`; false (naming the first missing one in
// `missing`) unless all are there.
bool Bind(void* handle, Routines& routines, std::string& missing) {
  bool ok = true;
  auto bind = [&](auto& pointer, const char* symbol) {
    if (!ok) return;
    void* address = dlsym(handle, symbol);
    if (address == nullptr) {
      missing = symbol;
      ok = false;
      return;
    }
    pointer = reinterpret_cast<std::remove_reference_t<decltype(pointer)>>(address);
  };
  bind(routines.sgeqp3, "sgeqp3_");
  bind(routines.dgeqp3, "dgeqp3_");
  bind(routines.cgeqp3, "cgeqp3_");
  bind(routines.zgeqp3, "zgeqp3_");
  bind(routines.sgees, "sgees_");
  bind(routines.dgees, "dgees_");
  bind(routines.cgees, "cgees_");
  bind(routines.zgees, "zgees_");
  bind(routines.sgehrd, "sgehrd_");
  bind(routines.dgehrd, "dgehrd_");
  bind(routines.cgehrd, "cgehrd_");
  bind(routines.zgehrd, "zgehrd_");
  bind(routines.ssytrd, "ssytrd_");
  bind(routines.dsytrd, "dsytrd_");
  bind(routines.chetrd, "chetrd_");
  bind(routines.zhetrd, "zhetrd_");
  bind(routines.sgtsv, "sgtsv_");
  bind(routines.dgtsv, "dgtsv_");
  bind(routines.cgtsv, "cgtsv_");
  bind(routines.zgtsv, "zgtsv_");
  bind(routines.strsm, "strsm_");
  bind(routines.dtrsm, "dtrsm_");
  bind(routines.ctrsm, "ctrsm_");
  bind(routines.ztrsm, "ztrsm_");
  bind(routines.sgetrf, "sgetrf_");
  bind(routines.dgetrf, "dgetrf_");
  bind(routines.cgetrf, "cgetrf_");
  bind(routines.zgetrf, "zgetrf_");
  bind(routines.ssyevd, "ssyevd_");
  bind(routines.dsyevd, "dsyevd_");
  bind(routines.cheevd, "cheevd_");
  bind(routines.zheevd, "zheevd_");
  bind(routines.sgesdd, "sgesdd_");
  bind(routines.dgesdd, "dgesdd_");
  bind(routines.cgesdd, "cgesdd_");
  bind(routines.zgesdd, "zgesdd_");
  bind(routines.sgeev, "sgeev_");
  bind(routines.dgeev, "dgeev_");
  bind(routines.cgeev, "cgeev_");
  bind(routines.zgeev, "zgeev_");
  return ok;
}

Library* Open() {
  auto* library = new Library;
  std::vector<std::string> candidates;
  const char* chosen = std::getenv("TESSERA_LAPACK");
  if (chosen != nullptr && std::string(chosen) == "none") {
    library->description = "none (TESSERA_LAPACK=none)";
    return library;
  }
  if (chosen != nullptr && *chosen != '\0') {
    candidates.push_back(chosen);
  } else {
    candidates.push_back("libopenblas.so.0");
  }
  SetUnlessSet("OPENBLAS_NUM_THREADS", "1");
  SetUnlessSet("OPENBLAS_CORETYPE", CoreTypeForHost());
  std::string failures;
  for (const std::string& name : candidates) {
    void* handle = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* error = dlerror();
      absl::StrAppend(&failures, failures.empty() ? "" : "; ", error ? error : name);
      continue;
    }
    std::string missing;
    if (!Bind(handle, library->routines, missing)) {
      absl::StrAppend(&failures, failures.empty() ? "" : "; ", name, " lacks ", missing);
      dlclose(handle);
      continue;
    }
    library->loaded = true;
    library->description = name;
    using CoreName = char* (*)();
    if (auto core = reinterpret_cast<CoreName>(dlsym(handle, "openblas_get_corename"))) {
      absl::StrAppend(&library->description, " (OpenBLAS, ", core(), " kernels)");
    }
    return library;
  }
  library->description = absl::StrCat("none loaded: ", failures);
  return library;
}

const Library& Get() {
  static const Library* library = Open();
  return *library;
}

}  // namespace

const Routines* Load() {
  const Library& library = Get();
  return library.loaded ? &library.routines : nullptr;
}

std::string Describe() { return Get().description; }

}  // namespace lapack
}  // namespace cpu
}  // namespace tessera
