#include "runtime/buffer_allocations.h"

#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"

namespace tessera {
namespace runtime {
namespace {

int64_t AlignUp(int64_t value, int64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

}  // namespace

Allocation Allocation::Parameter(int64_t argument, int64_t size, bool donated) {
  Allocation allocation;
  allocation.kind = Kind::kParameter;
  allocation.argument = argument;
  allocation.size = size;
  allocation.donated = donated;
  return allocation;
}

Allocation Allocation::Output(int64_t result, int64_t size) {
  Allocation allocation;
  allocation.kind = Kind::kOutput;
  allocation.result = result;
  allocation.size = size;
  return allocation;
}

Allocation Allocation::Constant(std::vector<uint8_t> contents) {
  Allocation allocation;
  allocation.kind = Kind::kConstant;
  allocation.size = static_cast<int64_t>(contents.size());
  allocation.contents = std::move(contents);
  return allocation;
}

Allocation Allocation::Temp(int64_t size) {
  Allocation allocation;
  allocation.kind = Kind::kTemp;
  allocation.size = size;
  return allocation;
}

std::string Allocation::ToString() const {
  switch (kind) {
    case Kind::kParameter:
      return absl::StrCat("parameter ", argument, ", ", size, " bytes", donated ? ", donated" : "");
    case Kind::kOutput:
      return absl::StrCat("output ", result, ", ", size, " bytes");
    case Kind::kConstant:
      return absl::StrCat("constant, ", size, " bytes");
    case Kind::kTemp:
      return absl::StrCat("temp, ", size, " bytes");
  }
  return "?";
}

absl::StatusOr<BufferPlan> BufferPlan::Create(std::vector<Allocation> allocations) {
  BufferPlan plan;
  const int64_t count = static_cast<int64_t>(allocations.size());
  plan.arena_offsets_.assign(count, -1);
  plan.constants_.resize(count);
  std::vector<int64_t> argument_allocations;
  std::vector<bool> result_seen;
  for (int64_t i = 0; i < count; ++i) {
    Allocation& allocation = allocations[i];
    if (allocation.size < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("allocation ", i, " has negative size ", allocation.size));
    }
    switch (allocation.kind) {
      case Allocation::Kind::kParameter: {
        const int64_t argument = allocation.argument;
        if (argument < 0 || argument >= count) {
          return absl::InvalidArgumentError(
              absl::StrCat("allocation ", i, " names argument ", argument, ", out of range"));
        }
        if (argument >= static_cast<int64_t>(argument_allocations.size())) {
          argument_allocations.resize(argument + 1, -1);
        }
        if (argument_allocations[argument] >= 0) {
          return absl::InvalidArgumentError(
              absl::StrCat("allocations ", argument_allocations[argument], " and ", i,
                           " are both argument ", argument));
        }
        argument_allocations[argument] = i;
        if (allocation.donated) {
          plan.arena_offsets_[i] = plan.arena_size_;
          plan.arena_size_ += AlignUp(allocation.size, kBufferAlignment);
        }
        break;
      }
      case Allocation::Kind::kOutput: {
        const int64_t result = allocation.result;
        if (result < 0 || result >= count) {
          return absl::InvalidArgumentError(
              absl::StrCat("allocation ", i, " names result ", result, ", out of range"));
        }
        if (result >= static_cast<int64_t>(result_seen.size())) result_seen.resize(result + 1);
        if (result_seen[result]) {
          return absl::InvalidArgumentError(
              absl::StrCat("two output allocations name result ", result));
        }
        result_seen[result] = true;
        break;
      }
      case Allocation::Kind::kConstant: {
        if (static_cast<int64_t>(allocation.contents.size()) != allocation.size) {
          return absl::InvalidArgumentError(
              absl::StrCat("constant allocation ", i, " has ", allocation.contents.size(),
                           " bytes of contents for a size of ", allocation.size));
        }
        absl::StatusOr<OwnedBuffer> buffer =
            OwnedBuffer::TryAllocate(allocation.size, absl::StrCat("constant allocation ", i));
        if (!buffer.ok()) return buffer.status();
        auto memory = std::make_shared<OwnedBuffer>(*std::move(buffer));
        if (allocation.size > 0) {
          std::memcpy(memory->data(), allocation.contents.data(), allocation.size);
        }
        plan.constants_[i] = std::move(memory);
        allocation.contents = {};
        break;
      }
      case Allocation::Kind::kTemp:
        plan.arena_offsets_[i] = plan.arena_size_;
        plan.arena_size_ += AlignUp(allocation.size, kBufferAlignment);
        break;
    }
  }
  for (int64_t argument = 0; argument < static_cast<int64_t>(argument_allocations.size());
       ++argument) {
    if (argument_allocations[argument] < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("no parameter allocation for argument ", argument));
    }
  }
  plan.allocations_ = std::move(allocations);
  plan.argument_allocations_ = std::move(argument_allocations);
  return plan;
}

void* BufferPlan::constant_data(int64_t index) const {
  const std::shared_ptr<OwnedBuffer>& memory = constants_[index];
  return memory == nullptr ? nullptr : memory->data();
}

absl::Status BufferPlan::CheckSlice(const BufferSlice& slice) const {
  if (slice.allocation < 0 || slice.allocation >= allocation_count()) {
    return absl::InvalidArgumentError(absl::StrCat("slice ", slice.ToString(),
                                                   ": no allocation ", slice.allocation));
  }
  const int64_t size = allocations_[slice.allocation].size;
  if (slice.offset < 0 || slice.size < 0 || slice.offset > size ||
      slice.size > size - slice.offset) {
    return absl::InvalidArgumentError(absl::StrCat("slice ", slice.ToString(),
                                                   " is outside allocation ", slice.allocation,
                                                   " of ", size, " bytes"));
  }
  return absl::OkStatus();
}

std::string BufferPlan::ToString() const {
  std::string text;
  for (int64_t i = 0; i < allocation_count(); ++i) {
    absl::StrAppend(&text, "a", i, ": ", allocations_[i].ToString(), "\n");
  }
  absl::StrAppend(&text, "arena: ", arena_size_, " bytes\n");
  return text;
}

BufferAllocations::BufferAllocations(std::vector<void*> bases, std::vector<int64_t> sizes)
    : bases_(std::move(bases)), sizes_(std::move(sizes)) {}

absl::StatusOr<BufferAllocations> BufferAllocations::Bind(
    const BufferPlan& plan, void* arena, absl::Span<const ArgumentBuffer> arguments,
    absl::Span<const ResultBuffer> results) {
  if (static_cast<int64_t>(arguments.size()) != plan.argument_count()) {
    return absl::InvalidArgumentError(absl::StrCat("expected ", plan.argument_count(),
                                                   " argument(s), got ", arguments.size()));
  }
  const int64_t count = plan.allocation_count();
  std::vector<void*> bases(count, nullptr);
  std::vector<int64_t> sizes(count, 0);
  char* arena_bytes = static_cast<char*>(arena);
  for (int64_t i = 0; i < count; ++i) {
    const Allocation& allocation = plan.allocation(i);
    sizes[i] = allocation.size;
    switch (allocation.kind) {
      case Allocation::Kind::kParameter: {
        const ArgumentBuffer& argument = arguments[allocation.argument];
        if (argument.size != allocation.size) {
          return absl::InvalidArgumentError(
              absl::StrCat("argument ", allocation.argument, " has ", argument.size,
                           " bytes, expected ", allocation.size));
        }
        if (argument.data == nullptr && argument.size > 0) {
          return absl::InvalidArgumentError(
              absl::StrCat("argument ", allocation.argument, " is null"));
        }
        if (!allocation.donated || argument.donated) {
          bases[i] = const_cast<void*>(argument.data);
        } else {
          // The program writes this parameter but the caller keeps it.
          bases[i] = arena_bytes + plan.arena_offset(i);
          if (allocation.size > 0) std::memcpy(bases[i], argument.data, allocation.size);
        }
        break;
      }
      case Allocation::Kind::kOutput: {
        if (allocation.result >= static_cast<int64_t>(results.size())) {
          return absl::InvalidArgumentError(
              absl::StrCat("no buffer for result ", allocation.result));
        }
        const ResultBuffer& result = results[allocation.result];
        if (result.size != allocation.size) {
          return absl::InvalidArgumentError(absl::StrCat("result ", allocation.result, " has ",
                                                         result.size, " bytes, expected ",
                                                         allocation.size));
        }
        if (result.data == nullptr && result.size > 0) {
          return absl::InvalidArgumentError(
              absl::StrCat("result ", allocation.result, " is null"));
        }
        bases[i] = result.data;
        break;
      }
      case Allocation::Kind::kConstant:
        bases[i] = plan.constant_data(i);
        break;
      case Allocation::Kind::kTemp:
        bases[i] = arena_bytes + plan.arena_offset(i);
        break;
    }
  }
  return BufferAllocations(std::move(bases), std::move(sizes));
}

absl::StatusOr<void*> BufferAllocations::ResolveChecked(const BufferSlice& slice) const {
  if (slice.allocation < 0 || slice.allocation >= allocation_count()) {
    return absl::InvalidArgumentError(absl::StrCat("slice ", slice.ToString(),
                                                   ": no allocation ", slice.allocation));
  }
  const int64_t size = sizes_[slice.allocation];
  if (slice.offset < 0 || slice.size < 0 || slice.offset > size ||
      slice.size > size - slice.offset) {
    return absl::InvalidArgumentError(absl::StrCat("slice ", slice.ToString(),
                                                   " is outside allocation ", slice.allocation,
                                                   " of ", size, " bytes"));
  }
  return Resolve(slice);
}

}  // namespace runtime
}  // namespace tessera
