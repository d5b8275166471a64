// BackgroundCompiler: one process-wide thread that runs code generation
// nobody waits for (a tiered executable's LLVM kernels, generated while its
// runs go on with the baseline tier's tile programs: cpu_compiler.h's
// CpuCompileOptions::TierUp::kBackground), one job at a time, in the order
// submitted.
//
// Jobs belong to an owner (an executable): Cancel(owner), which the owner's
// destructor calls, drops its queued jobs and waits for its running one, so
// that no job outlives what it reads.
//
// Exit: the thread is stopped from an atexit handler registered when it
// starts: queued jobs are dropped and a running one is finished first, so
// that no LLVM work runs while the process's static objects (LLVM's among
// them, made as the library loads) are destroyed.  The object itself is
// never destroyed: owners may still cancel after that.  But static objects
// a running job creates itself (a function-local static at a library's
// first use: LLVM's code generator's, where a program's first compile is a
// background tier-up) are registered after that handler and destroyed
// before it runs, under the job ("LLVM ERROR: unable to allocate function
// return" at a test's exit).  So the main thread's exit stops the thread
// first (StopWhenMainThreadExits), and the tessera binary calls Stop() as
// its main returns.  (Before that guard, the warm-up of oneDNN's GEMM, a
// job too, crashed short runs the same way.)
//
// Jobs: tier-ups (CpuExecutable::TierUp) and oneDNN's one-time GEMM kernel
// generation (onednn_gemm.h's WarmUpOneDnnGemm, from cpu_compiler.cc).
#ifndef TESSERA_BACKENDS_CPU_BACKGROUND_COMPILER_H_
#define TESSERA_BACKENDS_CPU_BACKGROUND_COMPILER_H_

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <utility>

#include "absl/functional/any_invocable.h"

namespace tessera {
namespace cpu {

class BackgroundCompiler {
 public:
  static BackgroundCompiler& Default();

  // Runs `job` on the thread after the jobs queued before it; false (and
  // `job` dropped, never run) once the process is exiting.
  bool Submit(const void* owner, absl::AnyInvocable<void() &&> job);
  // Drops `owner`'s queued jobs and returns once none of its jobs runs.
  void Cancel(const void* owner);
  // Finishes the running job, drops the queued ones and joins the thread;
  // Submit refuses jobs from then on.  Default() calls it at exit.
  void Stop();
  // Where the calling thread is the process's main thread: its exit (main
  // returning, or exit()) stops Default() before any static object is
  // destroyed (glibc runs the exiting thread's thread_local destructors
  // before the atexit handlers and static destructors).  Compilers call it
  // (cpu_compiler.cc), so that the thread that compiles, and likely exits,
  // is guarded.
  static void StopWhenMainThreadExits();

  BackgroundCompiler() = default;
  BackgroundCompiler(const BackgroundCompiler&) = delete;
  BackgroundCompiler& operator=(const BackgroundCompiler&) = delete;
  ~BackgroundCompiler() { Stop(); }

 private:
  struct Job {
    const void* owner;
    absl::AnyInvocable<void() &&> run;
  };
  void Loop();

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Job> queue_;                // under mutex_
  bool running_ = false;                 // under mutex_
  const void* running_owner_ = nullptr;  // under mutex_, while running_
  bool stopping_ = false;                // under mutex_
  std::thread thread_;                   // started by the first Submit
};

}  // namespace cpu
}  // namespace tessera

#endif  // TESSERA_BACKENDS_CPU_BACKGROUND_COMPILER_H_
