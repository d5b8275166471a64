// Pieces the service tests share: a unary gRPC call with raw request bytes
// (for requests no generated stub would send), and a module that runs a
// counted loop long enough to be caught mid-flight.
#ifndef TESSERA_SERVICE_SERVICE_TEST_UTIL_H_
#define TESSERA_SERVICE_SERVICE_TEST_UTIL_H_

#include <cstdint>
#include <string>
#include <utility>

#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/support/status.h"

namespace tessera {
namespace service_test {

// `method` ("/tessera.CompileService/Compile") called with `request_bytes`
// through `stub`, with a 10 s deadline: the status and the response bytes.
std::pair<grpc::Status, std::string> RawUnaryCall(grpc::GenericStub& stub,
                                                  const std::string& method,
                                                  const std::string& request_bytes);
// The same on a channel of its own to `address`.
std::pair<grpc::Status, std::string> RawUnaryCall(const std::string& address,
                                                  const std::string& method,
                                                  const std::string& request_bytes);

// HLO text of a while loop applying sine to f32[size] `iterations` times
// (one parameter, the vector; the result, the vector).
std::string SineLoopModule(int64_t iterations, int64_t size);

}  // namespace service_test
}  // namespace tessera

#endif  // TESSERA_SERVICE_SERVICE_TEST_UTIL_H_
