// The service under load and under faults, on loopback.
//
// Load: 16 concurrent clients, each with its own channel, make 2,000
// compile+execute calls in total over a mix of modules and inputs; every
// result is checked against the reference evaluator.  Prints throughput,
// p50/p99 latency and the cache hit rate (figures, not assertions).
//
// Faults: clients cancel calls mid-flight, give calls deadlines too short to
// finish, and a client process is killed mid-call; everyone else keeps
// getting correct answers and the server ends with no execution active.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "client/remote_client.h"
#include "gtest/gtest.h"
#include "hlo/evaluator/hlo_evaluator.h"
#include "hlo/ir/random_literal.h"
#include "hlo/parser/hlo_parser.h"
#include "hlo/proto/literal_proto.h"
#include "service/service_test_util.h"
#include "service/tessera_server.h"

extern char** environ;

namespace tessera {
namespace service {
namespace {

const char* const kModules[] = {
    R"(HloModule axpy
ENTRY e {
  a = f32[] parameter(0)
  x = f32[256] parameter(1)
  y = f32[256] parameter(2)
  ab = f32[256] broadcast(a), dimensions={}
  m = f32[256] multiply(ab, x)
  ROOT s = f32[256] add(m, y)
})",
    R"(HloModule dense
ENTRY e {
  x = f32[32,64] parameter(0)
  w = f32[64,16] parameter(1)
  b = f32[16] parameter(2)
  d = f32[32,16] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  bb = f32[32,16] broadcast(b), dimensions={1}
  ROOT t = f32[32,16] tanh(add(d, bb))
})",
    R"(HloModule softmax
max {
  p = f32[] parameter(0)
  q = f32[] parameter(1)
  ROOT m = f32[] maximum(p, q)
}
sum {
  p = f32[] parameter(0)
  q = f32[] parameter(1)
  ROOT s = f32[] add(p, q)
}
ENTRY e {
  x = f32[16,128] parameter(0)
  ninf = f32[] constant(-inf)
  m = f32[16] reduce(x, ninf), dimensions={1}, to_apply=max
  mb = f32[16,128] broadcast(m), dimensions={0}
  e = f32[16,128] exponential(subtract(x, mb))
  zero = f32[] constant(0)
  s = f32[16] reduce(e, zero), dimensions={1}, to_apply=sum
  sb = f32[16,128] broadcast(s), dimensions={0}
  ROOT r = f32[16,128] divide(e, sb)
})",
    R"(HloModule counted_loop
cond {
  s = (s32[], f32[64]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(10)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[64]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[64] get-tuple-element(s), index=1
  one = s32[] constant(1)
  half = f32[] constant(0.5)
  h = f32[64] broadcast(half), dimensions={}
  ROOT t = (s32[], f32[64]) tuple(add(i, one), add(multiply(x, h), h))
}
ENTRY e {
  x = f32[64] parameter(0)
  zero = s32[] constant(0)
  w = (s32[], f32[64]) while(tuple(zero, x)), condition=cond, body=body
  ROOT r = f32[64] get-tuple-element(w), index=1
})",
};

// A loop slow enough to be caught mid-flight (on the evaluator).
const std::string& SlowModule() {
  static const std::string* text = new std::string(service_test::SineLoopModule(20000, 256));
  return *text;
}

struct Case {
  std::unique_ptr<HloModule> module;
  std::vector<Literal> arguments;
  Literal expected;
};

std::unique_ptr<HloModule> Parse(const std::string& text) {
  absl::StatusOr<std::unique_ptr<HloModule>> module = ParseHloModule(text);
  EXPECT_TRUE(module.ok()) << module.status();
  return *std::move(module);
}

// Every module with a few seeded argument sets, evaluated once up front.
std::vector<Case> MakeCases() {
  std::vector<Case> cases;
  std::mt19937_64 random(2026);
  for (const char* text : kModules) {
    for (int inputs = 0; inputs < 3; ++inputs) {
      Case c;
      c.module = Parse(text);
      for (const HloInstruction* parameter : c.module->entry_computation()->parameter_instructions()) {
        c.arguments.push_back(*MakeRandomLiteral(parameter->shape(), random));
      }
      c.expected = *EvaluateModule(*c.module, c.arguments);
      cases.push_back(std::move(c));
    }
  }
  return cases;
}

bool Close(const Literal& expected, const Literal& actual) {
  std::vector<const Literal*> want = expected.Leaves(), got = actual.Leaves();
  if (want.size() != got.size()) return false;
  for (size_t i = 0; i < want.size(); ++i) {
    if (!ShapesCompatible(want[i]->shape(), got[i]->shape())) return false;
    for (int64_t j = 0; j < want[i]->element_count(); ++j) {
      const double a = want[i]->GetAsDouble(j), b = got[i]->GetAsDouble(j);
      if (!(std::abs(a - b) <= 1e-5 * (1 + std::abs(a)))) return false;
    }
  }
  return true;
}

std::unique_ptr<TesseraServer> StartServer() {
  ServerOptions options;
  options.service.concurrent_executions = 2;
  absl::StatusOr<std::unique_ptr<TesseraServer>> server = TesseraServer::Start(options);
  EXPECT_TRUE(server.ok()) << server.status();
  return *std::move(server);
}

TEST(ServiceLoadTest, SixteenClientsTwoThousandCallsAllCorrect) {
  const std::vector<Case> cases = MakeCases();
  std::unique_ptr<TesseraServer> server = StartServer();
  constexpr int kClients = 16;
  constexpr int kCallsPerClient = 125;
  std::vector<std::vector<double>> latencies(kClients);
  std::atomic<int> errors{0}, wrong{0};
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      absl::StatusOr<std::unique_ptr<RemoteClient>> client =
          RemoteClient::Connect(server->address());
      if (!client.ok()) {
        errors += kCallsPerClient;
        return;
      }
      std::mt19937 pick(c);
      for (int i = 0; i < kCallsPerClient; ++i) {
        const Case& test = cases[pick() % cases.size()];
        const auto call_start = std::chrono::steady_clock::now();
        absl::StatusOr<std::unique_ptr<RemoteExecutable>> executable =
            (*client)->Compile(*test.module);
        absl::StatusOr<Literal> result =
            executable.ok() ? (*executable)->Execute(test.arguments)
                            : absl::StatusOr<Literal>(executable.status());
        latencies[c].push_back(std::chrono::duration<double, std::milli>(
                                   std::chrono::steady_clock::now() - call_start)
                                   .count());
        if (!result.ok()) {
          ++errors;
          ADD_FAILURE() << "client " << c << " call " << i << ": " << result.status();
        } else if (!Close(test.expected, *result)) {
          ++wrong;
          ADD_FAILURE() << "client " << c << " call " << i << ": wrong result for "
                        << test.module->name();
        }
      }
    });
  }
  for (std::thread& client : clients) client.join();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::vector<double> all;
  for (const std::vector<double>& l : latencies) all.insert(all.end(), l.begin(), l.end());
  std::sort(all.begin(), all.end());
  ASSERT_EQ(all.size(), static_cast<size_t>(kClients * kCallsPerClient));
  EXPECT_EQ(errors.load(), 0);
  EXPECT_EQ(wrong.load(), 0);
  absl::StatusOr<std::unique_ptr<RemoteClient>> observer = RemoteClient::Connect(server->address());
  ASSERT_TRUE(observer.ok());
  GetStatsResponse stats = *(*observer)->GetStats();
  const double hit_rate = static_cast<double>(stats.cache_hits()) / stats.compile_requests();
  std::printf(
      "load: %d clients, %zu compile+execute calls in %.2f s: %.0f calls/s, latency p50 %.2f ms, "
      "p99 %.2f ms, max %.2f ms; errors %d, wrong results %d; cache hits %lld of %lld compiles "
      "(%.1f%%), %lld executables\n",
      kClients, all.size(), seconds, all.size() / seconds, all[all.size() / 2],
      all[all.size() * 99 / 100], all.back(), errors.load(), wrong.load(),
      static_cast<long long>(stats.cache_hits()), static_cast<long long>(stats.compile_requests()),
      100 * hit_rate, static_cast<long long>(stats.executables()));
  // Four distinct modules: at most a few compiles each (concurrent first
  // requests may race), every other request a hit.
  EXPECT_GE(stats.cache_hits(), stats.compile_requests() - 4 * kClients);
  EXPECT_EQ(stats.executables(), 4);
}

TEST(ServiceFaultTest, CancelledTimedOutAndKilledClientsLeaveOthersServed) {
  const std::vector<Case> cases = MakeCases();
  std::unique_ptr<TesseraServer> server = StartServer();
  std::unique_ptr<HloModule> slow = Parse(SlowModule());
  std::vector<Literal> slow_arguments = {Literal(Shape::MakeArray(F32, {256}))};
  CompileOptions interpreter;
  interpreter.backend = "interpreter";
  std::atomic<bool> stop{false};
  std::atomic<int> cancelled{0}, timed_out{0}, other_errors{0};

  // Saboteurs: slow calls cancelled after 20 ms, or with a 30 ms deadline.
  std::vector<std::thread> threads;
  for (int s = 0; s < 4; ++s) {
    threads.emplace_back([&, s] {
      RemoteClientOptions options;
      if (s % 2 == 1) options.timeout = std::chrono::milliseconds(30);
      absl::StatusOr<std::unique_ptr<RemoteClient>> client =
          RemoteClient::Connect(server->address(), RemoteClientOptions{});
      if (!client.ok()) return;
      absl::StatusOr<std::unique_ptr<RemoteExecutable>> executable =
          (*client)->Compile(*slow, interpreter);
      if (!executable.ok()) return;
      ExecuteRequest request;
      request.set_handle((*executable)->handle());
      *request.add_arguments()->mutable_literal() = *LiteralToProto(slow_arguments[0]);
      for (int round = 0; round < 5 && !stop; ++round) {
        grpc::ClientContext context;
        context.set_deadline(std::chrono::system_clock::now() +
                             (s % 2 == 1 ? std::chrono::milliseconds(30) : std::chrono::seconds(60)));
        std::thread canceller;
        if (s % 2 == 0) {
          canceller = std::thread([&context] {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            context.TryCancel();
          });
        }
        ExecuteResponse response;
        grpc::Status status = (*client)->stub().Execute(&context, request, &response);
        if (canceller.joinable()) canceller.join();
        if (status.error_code() == grpc::StatusCode::CANCELLED) {
          ++cancelled;
        } else if (status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
          ++timed_out;
        } else if (!status.ok()) {
          ++other_errors;
        }
      }
    });
  }
  // A client process killed mid-call (a real disconnect).
  const std::string slow_path = std::string(std::getenv("TEST_TMPDIR")) + "/slow.hlo";
  {
    FILE* file = std::fopen(slow_path.c_str(), "w");
    ASSERT_NE(file, nullptr);
    std::fputs(SlowModule().c_str(), file);
    std::fclose(file);
  }
  const std::string server_flag = "--server=" + server->address();
  const char* argv[] = {"tools/tessera", "run", slow_path.c_str(), server_flag.c_str(),
                        "--backend=interpreter", nullptr};
  pid_t child = 0;
  ASSERT_EQ(posix_spawn(&child, "tools/tessera", nullptr, nullptr, const_cast<char**>(argv),
                        environ),
            0);
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  kill(child, SIGKILL);
  int child_status = 0;
  waitpid(child, &child_status, 0);

  // Meanwhile, good clients get correct answers.
  std::atomic<int> good_errors{0}, good_calls{0};
  std::vector<std::thread> good;
  for (int g = 0; g < 4; ++g) {
    good.emplace_back([&, g] {
      absl::StatusOr<std::unique_ptr<RemoteClient>> client =
          RemoteClient::Connect(server->address());
      if (!client.ok()) {
        ++good_errors;
        return;
      }
      for (int i = 0; i < 25; ++i) {
        const Case& test = cases[(g * 25 + i) % cases.size()];
        absl::StatusOr<std::unique_ptr<RemoteExecutable>> executable =
            (*client)->Compile(*test.module);
        absl::StatusOr<Literal> result =
            executable.ok() ? (*executable)->Execute(test.arguments)
                            : absl::StatusOr<Literal>(executable.status());
        ++good_calls;
        if (!result.ok() || !Close(test.expected, *result)) {
          ++good_errors;
          ADD_FAILURE() << (result.ok() ? "wrong result" : result.status().ToString());
        }
      }
    });
  }
  for (std::thread& thread : good) thread.join();
  stop = true;
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(good_errors.load(), 0);
  EXPECT_EQ(good_calls.load(), 100);
  EXPECT_EQ(other_errors.load(), 0);
  EXPECT_GT(cancelled.load() + timed_out.load(), 0);
  std::printf("faults: %d cancelled and %d timed-out slow calls, one client killed mid-call; "
              "%d good calls, %d errors\n",
              cancelled.load(), timed_out.load(), good_calls.load(), good_errors.load());
  // Every execution slot comes back (the slow calls finish on their own).
  absl::StatusOr<std::unique_ptr<RemoteClient>> observer = RemoteClient::Connect(server->address());
  ASSERT_TRUE(observer.ok());
  for (int i = 0; i < 200 && (*observer)->GetStats()->active_executions() > 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ((*observer)->GetStats()->active_executions(), 0);
}

}  // namespace
}  // namespace service
}  // namespace tessera
