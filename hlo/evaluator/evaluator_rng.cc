// rng-bit-generator, bit-exact with XLA's CPU backend (which expands it
// with the generators of xla/hlo/builder/lib/prng.cc; RNG_DEFAULT means
// Philox there).  The state is u64[]: state[0] is the key; ThreeFry uses
// state[1] as a 64-bit counter, Philox state[1..2] as a 128-bit counter
// (low word first; with a u64[2] state the counter is (state[1], state[0])
// and only its low word is written back).
//
// ThreeFry-2x32 (20 rounds) on 32-bit outputs splits the shape into two
// halves along a dimension (the first even one, else the largest; rank 0
// counts as [1]): counter + (row-major index in the half shape) gives the
// pair (x0, x1) whose x0 fills the even and x1 the odd positions of the
// split dimension.  64-bit outputs take x0 | x1 << 32 of counter + index.
// Philox-4x32 (10 rounds) makes four words per counter step, interleaved
// round-robin; 64-bit outputs pair them as (w0 | w1 << 32, w2 | w3 << 32).
// Narrower outputs truncate 32-bit words.
#include <array>

#include "hlo/evaluator/evaluator_internal.h"
#include "hlo/evaluator/index_iteration.h"
#include "hlo/ir/hlo_opcode.h"

namespace tessera {
namespace evaluator_internal {
namespace {

uint32_t RotateLeft(uint32_t v, int distance) { return (v << distance) | (v >> (32 - distance)); }

std::array<uint32_t, 2> ThreeFry2x32(std::array<uint32_t, 2> x, uint64_t key64) {
  constexpr int kRotations[8] = {13, 15, 26, 6, 17, 29, 16, 24};
  const uint32_t ks[3] = {static_cast<uint32_t>(key64), static_cast<uint32_t>(key64 >> 32),
                          0x1BD11BDAu ^ static_cast<uint32_t>(key64) ^
                              static_cast<uint32_t>(key64 >> 32)};
  x[0] += ks[0];
  x[1] += ks[1];
  auto rounds = [&](int first) {
    for (int r = first; r < first + 4; ++r) {
      x[0] += x[1];
      x[1] = RotateLeft(x[1], kRotations[r]);
      x[1] ^= x[0];
    }
  };
  for (uint32_t i = 1; i <= 5; ++i) {
    rounds((i % 2 == 1) ? 0 : 4);
    x[0] += ks[i % 3];
    x[1] += ks[(i + 1) % 3] + i;
  }
  return x;
}

std::array<uint32_t, 4> Philox4x32(std::array<uint32_t, 4> x, uint64_t key64) {
  constexpr uint32_t kW32A = 0x9E3779B9, kW32B = 0xBB67AE85;
  constexpr uint64_t kM4x32A = 0xD2511F53, kM4x32B = 0xCD9E8D57;
  uint32_t k0 = static_cast<uint32_t>(key64), k1 = static_cast<uint32_t>(key64 >> 32);
  for (int round = 0; round < 10; ++round) {
    const uint64_t p0 = x[0] * kM4x32A;
    const uint64_t p1 = x[2] * kM4x32B;
    x = {static_cast<uint32_t>(p1 >> 32) ^ x[1] ^ k0, static_cast<uint32_t>(p1),
         static_cast<uint32_t>(p0 >> 32) ^ x[3] ^ k1, static_cast<uint32_t>(p0)};
    k0 += kW32A;
    k1 += kW32B;
  }
  return x;
}

// Writes `bits` (the low BitWidth bits) into element `i` of `out`.
void StoreBits(Literal* out, int64_t i, uint64_t bits) {
  const int64_t width = ElementBytes(*out);
  std::memcpy(static_cast<char*>(out->untyped_data()) + i * width, &bits, width);  // little-endian
}

// ThreeFry: returns the new counter.
uint64_t ThreeFryBits(uint64_t key, uint64_t counter, Literal* out) {
  const std::vector<int64_t> dims = out->shape().dimensions();
  const int64_t n = out->element_count();
  if (BitWidth(out->shape().element_type()) == 64) {
    for (int64_t i = 0; i < n; ++i) {
      const uint64_t c = counter + static_cast<uint64_t>(i);
      const auto x = ThreeFry2x32({static_cast<uint32_t>(c), static_cast<uint32_t>(c >> 32)}, key);
      StoreBits(out, i, uint64_t{x[0]} | (uint64_t{x[1]} << 32));
    }
    return counter + static_cast<uint64_t>(n);
  }
  // Split dimension: the first even one, else the first largest.
  std::vector<int64_t> half = dims.empty() ? std::vector<int64_t>{1} : dims;
  int64_t split = -1;
  for (size_t d = 0; d < half.size() && split < 0; ++d) {
    if (half[d] % 2 == 0) split = d;
  }
  if (split < 0) {
    split = 0;
    for (size_t d = 1; d < half.size(); ++d) {
      if (half[d] > half[split]) split = d;
    }
  }
  half[split] = (half[split] + 1) / 2;
  std::vector<int64_t> full = dims.empty() ? std::vector<int64_t>{1} : dims;
  std::vector<int64_t> half_index(half.size());
  int64_t linear = 0;
  ForEachIndex(full, [&](absl::Span<const int64_t> index) {
    for (size_t d = 0; d < index.size(); ++d) half_index[d] = index[d];
    half_index[split] = index[split] / 2;
    const uint64_t c = counter + static_cast<uint64_t>(RowMajorLinearIndex(half, half_index));
    const auto x = ThreeFry2x32({static_cast<uint32_t>(c), static_cast<uint32_t>(c >> 32)}, key);
    StoreBits(out, linear++, x[index[split] % 2]);
  }).IgnoreError();
  return counter + static_cast<uint64_t>(IndexCount(half));
}

// Philox: returns the new 128-bit counter (low, high).
std::array<uint64_t, 2> PhiloxBits(uint64_t key, std::array<uint64_t, 2> counter, Literal* out) {
  const int64_t n = out->element_count();
  const bool wide = BitWidth(out->shape().element_type()) == 64;
  const int64_t words = wide ? 2 * n : n;
  const int64_t blocks = (words + 3) / 4;
  for (int64_t b = 0; b < blocks; ++b) {
    const uint64_t low = counter[0] + static_cast<uint64_t>(b);
    const uint64_t high = counter[1] + (low < counter[0] ? 1 : 0);
    const auto w = Philox4x32({static_cast<uint32_t>(low), static_cast<uint32_t>(low >> 32),
                               static_cast<uint32_t>(high), static_cast<uint32_t>(high >> 32)},
                              key);
    if (wide) {
      const uint64_t values[2] = {uint64_t{w[0]} | (uint64_t{w[1]} << 32),
                                  uint64_t{w[2]} | (uint64_t{w[3]} << 32)};
      for (int j = 0; j < 2; ++j) {
        if (2 * b + j < n) StoreBits(out, 2 * b + j, values[j]);
      }
    } else {
      for (int j = 0; j < 4; ++j) {
        if (4 * b + j < n) StoreBits(out, 4 * b + j, w[j]);
      }
    }
  }
  const uint64_t low = counter[0] + static_cast<uint64_t>(blocks);
  return {low, counter[1] + (low < counter[0] ? 1 : 0)};
}

}  // namespace

absl::StatusOr<Literal> EvaluateRngBitGenerator(const HloInstruction& hlo, Operands operands) {
  TS_RETURN_IF_ERROR(ExpectOperandCount(hlo, operands, 1));
  const Literal& state = *operands[0];
  if (!state.shape().IsArray() || state.shape().element_type() != U64 ||
      state.shape().rank() != 1) {
    return InvalidArgument("the rng state must be u64[n]");
  }
  if (!hlo.shape().IsTuple() || hlo.shape().tuple_size() != 2 ||
      !hlo.shape().tuple_shapes(1).IsArray()) {
    return InvalidArgument("rng-bit-generator gives (state, bits)");
  }
  const PrimitiveType type = hlo.shape().tuple_shapes(1).element_type();
  if (type == PRED || IsComplexType(type) || !IsArrayType(type)) {
    return InvalidArgument(absl::StrCat("rng-bit-generator cannot make ", PrimitiveTypeName(type)));
  }
  TS_ASSIGN_OR_RETURN(Literal bits, MakeLiteral(hlo.shape().tuple_shapes(1)));
  Literal new_state = state;
  auto s = new_state.data<uint64_t>();
  const RandomAlgorithm algorithm = hlo.attrs().rng_algorithm;
  if (algorithm == RandomAlgorithm::kThreeFry) {
    if (s.size() < 2) return InvalidArgument("threefry needs a u64[2] state");
    s[1] = ThreeFryBits(s[0], s[1], &bits);
  } else {
    if (s.size() < 2) return InvalidArgument("philox needs a u64[2] or u64[3] state");
    if (s.size() >= 3) {
      const auto counter = PhiloxBits(s[0], {s[1], s[2]}, &bits);
      s[1] = counter[0];
      s[2] = counter[1];
    } else {
      s[1] = PhiloxBits(s[0], {s[1], s[0]}, &bits)[0];
    }
  }
  std::vector<Literal> parts;
  parts.push_back(std::move(new_state));
  parts.push_back(std::move(bits));
  return Literal::MakeTuple(std::move(parts));
}

}  // namespace evaluator_internal
}  // namespace tessera
