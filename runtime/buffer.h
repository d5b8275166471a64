// The runtime's words for memory: a slice of an allocation (what thunks
// name), an owned aligned host buffer, and the caller's argument and result
// buffers.  The runtime knows nothing of shapes: a buffer is bytes.
//
//   OwnedBuffer x = OwnedBuffer::Allocate(1024);
//   ArgumentBuffer read_only(x);                      // only read by a run
//   ArgumentBuffer given = ArgumentBuffer::Donated(x.data(), x.size());
#ifndef TESSERA_RUNTIME_BUFFER_H_
#define TESSERA_RUNTIME_BUFFER_H_

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tessera {
namespace runtime {

// Every buffer the runtime allocates starts at a multiple of this; compiled
// kernels may assume it for wide vector loads.
inline constexpr int64_t kBufferAlignment = 64;

// Bytes [offset, offset + size) of allocation `allocation` of a buffer plan.
// The compiler's passes/memory BufferSlice has the same fields; the layers
// are kept apart (the runtime knows nothing of passes), so a backend copies
// the three fields across when it builds its thunks.
struct BufferSlice {
  int64_t allocation = -1;
  int64_t offset = 0;
  int64_t size = 0;

  bool operator==(const BufferSlice&) const = default;
  bool Overlaps(const BufferSlice& other) const {
    return allocation == other.allocation && size > 0 && other.size > 0 &&
           offset < other.offset + other.size && other.offset < offset + size;
  }
  std::string ToString() const;  // "a3[128, 384)"
};

// A zero-initialised host buffer aligned to kBufferAlignment, freed on
// destruction.  Move-only.  A zero-sized buffer has a null data().
class OwnedBuffer {
 public:
  OwnedBuffer() = default;
  // Throws std::bad_alloc when out of memory, as operator new does.
  static OwnedBuffer Allocate(int64_t size, int64_t alignment = kBufferAlignment);
  // ResourceExhausted, naming `what` ("the arena", "result 0") and the
  // sizes, where Allocate would throw, or where `size` exceeds the
  // machine's physical memory (which Linux may promise anyway, and then
  // kill the process as the buffer is zeroed).
  static absl::StatusOr<OwnedBuffer> TryAllocate(int64_t size, absl::string_view what,
                                                 int64_t alignment = kBufferAlignment);
  ~OwnedBuffer();
  OwnedBuffer(OwnedBuffer&& other) noexcept;
  OwnedBuffer& operator=(OwnedBuffer&& other) noexcept;
  OwnedBuffer(const OwnedBuffer&) = delete;
  OwnedBuffer& operator=(const OwnedBuffer&) = delete;

  void* data() { return data_; }
  const void* data() const { return data_; }
  int64_t size() const { return size_; }

 private:
  void* data_ = nullptr;
  int64_t size_ = 0;
};

// One argument of a run: the caller's memory for one parameter leaf, dense
// in the layout the executable was compiled for.  A run only reads it unless
// it is donated: then the run may overwrite it (an output the buffer plan
// places in that parameter's allocation is computed there, in place), and
// the caller must not read it afterwards except as that output.
struct ArgumentBuffer {
  const void* data = nullptr;
  int64_t size = 0;
  bool donated = false;

  ArgumentBuffer() = default;
  ArgumentBuffer(const void* data, int64_t size) : data(data), size(size) {}
  ArgumentBuffer(const OwnedBuffer& buffer) : data(buffer.data()), size(buffer.size()) {}
  static ArgumentBuffer Donated(void* data, int64_t size) {
    ArgumentBuffer argument(data, size);
    argument.donated = true;
    return argument;
  }
};

// The caller's memory for one result leaf (written by the run).
struct ResultBuffer {
  void* data = nullptr;
  int64_t size = 0;

  ResultBuffer() = default;
  ResultBuffer(void* data, int64_t size) : data(data), size(size) {}
  ResultBuffer(OwnedBuffer& buffer) : data(buffer.data()), size(buffer.size()) {}
};

}  // namespace runtime
}  // namespace tessera

#endif  // TESSERA_RUNTIME_BUFFER_H_
