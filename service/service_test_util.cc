#include "service/service_test_util.h"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <vector>

#include "absl/strings/str_replace.h"
#include "grpcpp/client_context.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/support/byte_buffer.h"

namespace tessera {
namespace service_test {

std::pair<grpc::Status, std::string> RawUnaryCall(grpc::GenericStub& stub,
                                                  const std::string& method,
                                                  const std::string& request_bytes) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  grpc::Slice slice(request_bytes);
  grpc::ByteBuffer request(&slice, 1);
  grpc::ByteBuffer response;
  std::mutex mutex;
  std::condition_variable signal;
  bool done = false;
  grpc::Status status;
  stub.UnaryCall(&context, method, grpc::StubOptions(), &request, &response,
                 [&](grpc::Status s) {
                   std::lock_guard<std::mutex> lock(mutex);
                   status = s;
                   done = true;
                   signal.notify_one();
                 });
  std::unique_lock<std::mutex> lock(mutex);
  signal.wait(lock, [&] { return done; });
  std::string bytes;
  std::vector<grpc::Slice> slices;
  if (status.ok() && response.Dump(&slices).ok()) {
    for (const grpc::Slice& piece : slices) bytes += std::string(piece.begin(), piece.end());
  }
  return {status, bytes};
}

std::pair<grpc::Status, std::string> RawUnaryCall(const std::string& address,
                                                  const std::string& method,
                                                  const std::string& request_bytes) {
  grpc::GenericStub stub(grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
  return RawUnaryCall(stub, method, request_bytes);
}

std::string SineLoopModule(int64_t iterations, int64_t size) {
  return absl::StrReplaceAll(R"(HloModule sine_loop
cond {
  s = (s32[], f32[SIZE]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(ITERATIONS)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[SIZE]) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  x = f32[SIZE] get-tuple-element(s), index=1
  one = s32[] constant(1)
  ROOT t = (s32[], f32[SIZE]) tuple(add(i, one), sine(x))
}
ENTRY e {
  x = f32[SIZE] parameter(0)
  zero = s32[] constant(0)
  w = (s32[], f32[SIZE]) while(tuple(zero, x)), condition=cond, body=body
  ROOT r = f32[SIZE] get-tuple-element(w), index=1
})",
                             {{"SIZE", std::to_string(size)},
                              {"ITERATIONS", std::to_string(iterations)}});
}

}  // namespace service_test
}  // namespace tessera
