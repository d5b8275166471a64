#include "runtime/buffer.h"

#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

#include "absl/strings/str_cat.h"

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
