#include "backends/cpu/rng_bit_generator_thunk.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "absl/strings/str_cat.h"
#include "backends/cpu/eigen_dot.h"
#include "backends/cpu/rng_bit_generator_kernels.h"
#include "hlo/ir/hlo_instruction.h"
#include "runtime/thread_pool.h"

namespace tessera {
namespace cpu {
namespace {

// Counters per parallel block: each is about 16 vector rounds' work a lane,
// so a block of 8192 takes some microseconds.
constexpr int64_t kMinBlockCounters = 8192;
// Below this many counters per row a ThreeFry split output goes through a
// buffer and is scattered (a 16-lane block per short row would waste most
// lanes).
constexpr int64_t kMinDirectRow = 64;
constexpr int64_t kScatterChunk = 512;

bool IsRowMajor(const Shape& shape) {
  return !shape.has_layout() || shape.layout() == Layout::Descending(shape.rank());
}

// The host's generators: AVX-512 where it has it.
struct Generators {
  decltype(&rng_internal::baseline::ThreeFryInterleaved) interleaved;
  decltype(&rng_internal::baseline::ThreeFrySplit) split;
  decltype(&rng_internal::baseline::ThreeFryWide) wide;
  decltype(&rng_internal::baseline::PhiloxWords) philox;
};

const Generators& HostGenerators() {
  static const Generators generators = [] {
    namespace ri = rng_internal;
    if (eigen_dot_internal::KernelsSupported()) {
      return Generators{ri::avx512::ThreeFryInterleaved, ri::avx512::ThreeFrySplit,
                        ri::avx512::ThreeFryWide, ri::avx512::PhiloxWords};
    }
    return Generators{ri::baseline::ThreeFryInterleaved, ri::baseline::ThreeFrySplit,
                      ri::baseline::ThreeFryWide, ri::baseline::PhiloxWords};
  }();
  return generators;
}

// fn(begin, end) over [0, counters), in parallel blocks when there are many.
void ForCounters(int64_t counters, runtime::ThreadPool* pool,
                 absl::FunctionRef<void(int64_t, int64_t)> fn) {
  if (counters <= 0) return;
  if (pool == nullptr || counters < 2 * kMinBlockCounters) return fn(0, counters);
  pool->ParallelFor(counters, pool->BlockSizeFor(counters, kMinBlockCounters), fn);
}

// ThreeFry's 32-bit-or-narrower layout: the half-shape counter h = (o *
// half + j) * inner + i makes the elements [o, 2j, i] (x0) and [o, 2j + 1,
// i] (x1, unless 2j + 1 is past an odd split dimension).
void ThreeFrySplitLayout(const RngPlan& plan, uint64_t key, uint64_t counter, char* bits,
                         runtime::ThreadPool* pool) {
  const Generators& g = HostGenerators();
  const int64_t width = plan.width;
  const int64_t half = (plan.split + 1) / 2;
  if (plan.inner == 1) {
    // Pairs are adjacent: x0 at 2j, x1 at 2j + 1 within a row of the split
    // dimension; with an even split dimension the rows follow each other
    // without a gap, so all of them are one run.
    const bool one_run = plan.split % 2 == 0;
    const int64_t row_counters = one_run ? plan.outer * half : half;
    const int64_t row_elements = one_run ? plan.elements : plan.split;
    ForCounters(plan.outer * half, pool, [&](int64_t begin, int64_t end) {
      for (int64_t h = begin; h < end;) {
        const int64_t row = h / row_counters, j = h % row_counters;
        const int64_t stop = std::min(end, (row + 1) * row_counters);
        g.interleaved(key, counter + h, stop - h, width,
                      bits + (row * row_elements + 2 * j) * width, row_elements - 2 * j);
        h = stop;
      }
    });
    return;
  }
  const int64_t inner = plan.inner;
  auto x0_offset = [&](int64_t row) {  // row = o * half + j
    return ((row / half) * plan.split + 2 * (row % half)) * inner;
  };
  auto has_x1 = [&](int64_t row) { return 2 * (row % half) + 1 < plan.split; };
  if (inner >= kMinDirectRow) {
    ForCounters(plan.outer * half * inner, pool, [&](int64_t begin, int64_t end) {
      for (int64_t h = begin; h < end;) {
        const int64_t row = h / inner, i = h % inner;
        const int64_t stop = std::min(end, (row + 1) * inner);
        char* x0 = bits + (x0_offset(row) + i) * width;
        g.split(key, counter + h, stop - h, width, x0, has_x1(row) ? x0 + inner * width : nullptr);
        h = stop;
      }
    });
    return;
  }
  // Short rows: generate a chunk of words, then place them.
  ForCounters(plan.outer * half * inner, pool, [&](int64_t begin, int64_t end) {
    uint32_t x0[kScatterChunk], x1[kScatterChunk];
    int64_t row = begin / inner, i = begin % inner;
    char* row_x0 = bits + x0_offset(row) * width;
    bool row_has_x1 = has_x1(row);
    for (int64_t h = begin; h < end; h += kScatterChunk) {
      const int64_t n = std::min(end - h, kScatterChunk);
      g.split(key, counter + h, n, 4, x0, x1);
      for (int64_t k = 0; k < n; ++k) {
        std::memcpy(row_x0 + i * width, &x0[k], width);  // little-endian: the low bits
        if (row_has_x1) std::memcpy(row_x0 + (inner + i) * width, &x1[k], width);
        if (++i == inner) {
          i = 0, ++row;
          row_x0 = bits + x0_offset(row) * width;
          row_has_x1 = has_x1(row);
        }
      }
    }
  });
}

}  // namespace

absl::StatusOr<RngPlan> PlanRngBitGenerator(const HloInstruction& rng) {
  const Shape& state = rng.operand(0)->shape();
  if (rng.operand_count() != 1 || !state.IsArray() || state.element_type() != U64 ||
      state.rank() != 1 || state.dimensions(0) < 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("%", rng.name(), ": the rng state must be u64[n], n >= 2"));
  }
  if (!rng.shape().IsTuple() || rng.shape().tuple_size() != 2 ||
      rng.shape().tuple_shapes(0) != state || !rng.shape().tuple_shapes(1).IsArray()) {
    return absl::InvalidArgumentError(
        absl::StrCat("%", rng.name(), ": rng-bit-generator gives (state, bits)"));
  }
  const Shape& bits = rng.shape().tuple_shapes(1);
  const PrimitiveType type = bits.element_type();
  const int bit_width = BitWidth(type);
  if (type == PRED || IsComplexType(type) ||
      (bit_width != 8 && bit_width != 16 && bit_width != 32 && bit_width != 64)) {
    return absl::UnimplementedError(absl::StrCat("rng-bit-generator of ", PrimitiveTypeName(type)));
  }
  if (!IsRowMajor(bits))
    return absl::UnimplementedError("rng-bit-generator's bits are not row-major");
  RngPlan plan;
  plan.algorithm = rng.attrs().rng_algorithm == RandomAlgorithm::kThreeFry
                       ? RandomAlgorithm::kThreeFry
                       : RandomAlgorithm::kPhilox;
  plan.state_words = state.dimensions(0);
  plan.width = bit_width / 8;
  plan.elements = bits.ElementCount();
  if (plan.algorithm == RandomAlgorithm::kThreeFry && plan.width < 8) {
    std::vector<int64_t> dims = bits.dimensions();
    if (dims.empty()) dims = {1};
    int64_t split = -1;
    for (size_t d = 0; d < dims.size() && split < 0; ++d) {
      if (dims[d] % 2 == 0) split = static_cast<int64_t>(d);
    }
    if (split < 0) split = std::max_element(dims.begin(), dims.end()) - dims.begin();
    plan.outer = 1, plan.inner = 1;
    for (int64_t d = 0; d < split; ++d) plan.outer *= dims[d];
    for (size_t d = split + 1; d < dims.size(); ++d) plan.inner *= dims[d];
    plan.split = dims[split];
  }
  return plan;
}

void RunRngBitGenerator(const RngPlan& plan, const uint64_t* state, uint64_t* new_state, void* bits,
                        runtime::ThreadPool* pool) {
  const Generators& g = HostGenerators();
  std::vector<uint64_t> s(state, state + plan.state_words);  // new_state may be state
  const uint64_t key = s[0];
  char* out = static_cast<char*>(bits);
  if (plan.algorithm == RandomAlgorithm::kThreeFry) {
    const uint64_t counter = s[1];
    int64_t used = plan.elements;
    if (plan.width == 8) {
      ForCounters(plan.elements, pool, [&](int64_t begin, int64_t end) {
        g.wide(key, counter + begin, end - begin, reinterpret_cast<uint64_t*>(out) + begin);
      });
    } else {
      ThreeFrySplitLayout(plan, key, counter, out, pool);
      used = plan.outer * ((plan.split + 1) / 2) * plan.inner;
    }
    s[1] = counter + static_cast<uint64_t>(used);
  } else {
    // Philox: four words a counter, two when the outputs are 64-bit.
    const int64_t per_counter = plan.width == 8 ? 2 : 4;
    const int64_t counters = (plan.elements + per_counter - 1) / per_counter;
    const bool wide_state = plan.state_words >= 3;
    const uint64_t low = s[1], high = wide_state ? s[2] : s[0];
    ForCounters(counters, pool, [&](int64_t begin, int64_t end) {
      const uint64_t first = low + static_cast<uint64_t>(begin);
      g.philox(key, first, high + (first < low ? 1 : 0), end - begin, plan.width,
               out + begin * per_counter * plan.width, plan.elements - begin * per_counter);
    });
    const uint64_t next = low + static_cast<uint64_t>(counters);
    s[1] = next;
    if (wide_state) s[2] = high + (next < low ? 1 : 0);
  }
  std::copy(s.begin(), s.end(), new_state);
}

}  // namespace cpu
}  // namespace tessera
