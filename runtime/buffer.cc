#include "runtime/buffer.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <new>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace tessera {
namespace runtime {

std::string BufferSlice::ToString() const {
  return absl::StrCat("a", allocation, "[", offset, ", ", offset + size, ")");
}

OwnedBuffer OwnedBuffer::Allocate(int64_t size, int64_t alignment) {
  OwnedBuffer buffer;
  if (size <= 0) return buffer;
  // aligned_alloc wants a size that is a multiple of the alignment.
  const int64_t rounded = (size + alignment - 1) / alignment * alignment;
  void* data = std::aligned_alloc(static_cast<size_t>(alignment), static_cast<size_t>(rounded));
  if (data == nullptr) throw std::bad_alloc();
  std::memset(data, 0, static_cast<size_t>(size));
  buffer.data_ = data;
  buffer.size_ = size;
  return buffer;
}

namespace {

// The kernel's estimate of the memory that can be had without swapping
// (MemAvailable, page cache included), in bytes; 0 when unknown.
double AvailableMemory() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  double kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit) {
    if (key == "MemAvailable:") return kib * 1024;
  }
  return 0;
}

}  // namespace

absl::StatusOr<OwnedBuffer> OwnedBuffer::TryAllocate(int64_t size, absl::string_view what,
                                                     int64_t alignment) {
  auto gib = [](double bytes) { return absl::StrFormat("%.1f GiB", bytes / (1 << 30)); };
  auto refuse = [&](absl::string_view why) {
    return absl::ResourceExhaustedError(
        absl::StrCat("cannot allocate ", size, " bytes (", gib(size), ") for ", what, ": ", why));
  };
  const long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGESIZE);
  const double memory = pages > 0 && page_size > 0 ? double(pages) * double(page_size) : 0;
  if (memory > 0 && double(size) > memory) {
    return refuse(absl::StrCat("this machine has ", gib(memory), " of memory"));
  }
  // Big buffers only (the file is read each time): Linux would promise
  // more than it has, then kill the process as the buffer is zeroed.
  constexpr int64_t kCheckAvailableFrom = int64_t{1} << 30;
  if (size >= kCheckAvailableFrom) {
    const double available = AvailableMemory();
    if (available > 0 && double(size) > available) {
      return refuse(absl::StrCat("only ", gib(available), " of this machine's ", gib(memory),
                                 " are available"));
    }
  }
  try {
    return Allocate(size, alignment);
  } catch (const std::bad_alloc&) {
    return refuse("out of memory");
  }
}

OwnedBuffer::~OwnedBuffer() { std::free(data_); }

OwnedBuffer::OwnedBuffer(OwnedBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

OwnedBuffer& OwnedBuffer::operator=(OwnedBuffer&& other) noexcept {
  if (this != &other) {
    std::free(data_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

}  // namespace runtime
}  // namespace tessera
