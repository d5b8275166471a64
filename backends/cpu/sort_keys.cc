#include "backends/cpu/sort_keys.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <numeric>
#include <utility>

#include "absl/strings/str_cat.h"
#include "hlo/ir/hlo_computation.h"
#include "hlo/ir/hlo_instruction.h"
#include "hlo/ir/hlo_opcode.h"
#include "hlo/ir/literal.h"

namespace tessera {
namespace cpu {
namespace {

bool IsKeyFloat(PrimitiveType type) {
  return type == F16 || type == BF16 || type == F32 || type == F64;
}

bool IsKeyInteger(PrimitiveType type) {
  return type == S8 || type == S16 || type == S32 || type == S64 || type == U8 || type == U16 ||
         type == U32 || type == U64;
}

bool IsSigned(PrimitiveType type) {
  return type == S8 || type == S16 || type == S32 || type == S64;
}

int Bits(PrimitiveType type) { return ByteWidth(type) * 8; }

// The bits of a scalar constant of the key's type.
std::optional<uint64_t> ConstantBits(const HloInstruction* c, PrimitiveType type) {
  if (c->opcode() != HloOpcode::kConstant || !c->shape().IsArray() ||
      c->shape().ElementCount() != 1 || c->shape().element_type() != type) {
    return std::nullopt;
  }
  uint64_t bits = 0;
  std::memcpy(&bits, c->literal().untyped_data(), ByteWidth(type));  // little-endian
  return bits;
}

bool IsNanBits(uint64_t bits, PrimitiveType type) {
  switch (type) {
    case F16: return (bits & 0x7FFF) > 0x7C00;
    case BF16: return (bits & 0x7FFF) > 0x7F80;
    case F32: return (bits & 0x7FFFFFFF) > 0x7F800000;
    default: return (bits & 0x7FFFFFFFFFFFFFFF) > 0x7FF0000000000000;
  }
}

bool IsZeroBits(uint64_t bits, PrimitiveType type) {
  const uint64_t magnitude = bits & ((uint64_t{1} << (Bits(type) - 1)) - 1);
  return magnitude == 0;
}

bool IsParameter(const HloInstruction* x, int64_t number) {
  return x->opcode() == HloOpcode::kParameter && x->parameter_number() == number;
}

bool IsCompare(const HloInstruction* x, ComparisonDirection direction) {
  return x->opcode() == HloOpcode::kCompare && x->comparison_direction() == direction;
}

// One side of the comparator's root: parameter `number` itself, or JAX's
// canonicalization select(p != p, NaN, select(p == 0, 0, p)) (the zero
// compared with on either side).  Sets the key's canonical values;
// `canonical` says which of the two it is.
bool MatchSide(const HloInstruction* side, int64_t number, SortKey* key, bool* canonical) {
  *canonical = false;
  if (IsParameter(side, number)) return true;
  if (!IsKeyFloat(key->type) || side->opcode() != HloOpcode::kSelect) return false;
  const HloInstruction* is_nan = side->operand(0);
  const HloInstruction* inner = side->operand(2);
  if (!IsCompare(is_nan, ComparisonDirection::kNe) || !IsParameter(is_nan->operand(0), number) ||
      !IsParameter(is_nan->operand(1), number) || inner->opcode() != HloOpcode::kSelect ||
      !IsParameter(inner->operand(2), number)) {
    return false;
  }
  const HloInstruction* is_zero = inner->operand(0);
  if (!IsCompare(is_zero, ComparisonDirection::kEq)) return false;
  const HloInstruction* zero =
      IsParameter(is_zero->operand(0), number) ? is_zero->operand(1) : is_zero->operand(0);
  if (!IsParameter(is_zero->operand(0), number) && !IsParameter(is_zero->operand(1), number)) {
    return false;
  }
  std::optional<uint64_t> compared = ConstantBits(zero, key->type);
  std::optional<uint64_t> nan = ConstantBits(side->operand(1), key->type);
  std::optional<uint64_t> replacement = ConstantBits(inner->operand(1), key->type);
  if (!compared || !nan || !replacement || !IsZeroBits(*compared, key->type) ||
      !IsNanBits(*nan, key->type)) {
    return false;
  }
  if (key->canonical && (key->nan_bits != *nan || key->zero_bits != *replacement)) return false;
  key->canonical = *canonical = true;
  key->nan_bits = *nan;
  key->zero_bits = *replacement;
  return true;
}

// Maps a key's raw bits to unsigned bits that order as the key does,
// ascending (the per-type choices made once, not per element).
class OrderedBits {
 public:
  explicit OrderedBits(const SortKey& key)
      : width_(Bits(key.type)),
        sign_(uint64_t{1} << (width_ - 1)),
        mask_(width_ == 64 ? ~uint64_t{0} : (uint64_t{1} << width_) - 1),
        magnitude_(mask_ & ~sign_),
        float_(IsKeyFloat(key.type)),
        signed_(IsSigned(key.type)),
        canonical_(key.canonical),
        descending_(key.descending),
        infinity_(float_ ? InfinityBits(key.type) : 0),
        nan_bits_(key.nan_bits),
        zero_bits_(key.zero_bits) {}

  uint64_t operator()(uint64_t bits) const {
    bits &= mask_;
    if (float_) {
      if (canonical_) {
        const uint64_t magnitude = bits & magnitude_;
        if (magnitude > infinity_) {
          bits = nan_bits_;
        } else if (magnitude == 0) {
          bits = zero_bits_;
        }
      }
      // Total order: negatives (sign set) reversed below the positives.
      bits = (bits & sign_) != 0 ? ~bits & mask_ : bits | sign_;
    } else if (signed_) {
      bits ^= sign_;
    }
    return descending_ ? ~bits & mask_ : bits;
  }

 private:
  static uint64_t InfinityBits(PrimitiveType type) {
    switch (type) {
      case F16: return 0x7C00;
      case BF16: return 0x7F80;
      case F32: return 0x7F800000;
      default: return 0x7FF0000000000000;
    }
  }

  int width_;
  uint64_t sign_, mask_, magnitude_;
  bool float_, signed_, canonical_, descending_;
  uint64_t infinity_, nan_bits_, zero_bits_;
};

// Stable LSD radix sort of `values` by their bits [low_bit, high_bit), 8
// at a time, skipping digits every value shares.  All digits' counts are
// taken in one pass first.
void RadixSort(std::vector<uint64_t>& values, std::vector<uint64_t>& scratch, int low_bit,
               int high_bit) {
  const size_t n = values.size();
  const int digits = (high_bit - low_bit + 7) / 8;
  std::array<std::array<size_t, 256>, 8> counts;  // on the stack: one sort per row
  for (int d = 0; d < digits; ++d) counts[d].fill(0);
  for (size_t i = 0; i < n; ++i) {
    const uint64_t v = values[i] >> low_bit;
    for (int d = 0; d < digits; ++d) ++counts[d][(v >> (8 * d)) & 0xFF];
  }
  scratch.resize(n);
  for (int d = 0; d < digits; ++d) {
    std::array<size_t, 256>& count = counts[d];
    if (std::find(count.begin(), count.end(), n) != count.end()) continue;  // one digit
    size_t sum = 0;
    for (size_t& c : count) sum += std::exchange(c, sum);
    const int shift = low_bit + 8 * d;
    for (size_t i = 0; i < n; ++i) scratch[count[(values[i] >> shift) & 0xFF]++] = values[i];
    values.swap(scratch);
  }
}

}  // namespace

std::string SortKey::ToString() const {
  return absl::StrCat("by operand ", operand, " (", PrimitiveTypeName(type), ", ",
                      descending ? "descending" : "ascending", canonical ? ", canonical" : "", ")");
}

std::optional<SortKey> MatchSortKey(const HloComputation& comparator) {
  const HloInstruction* root = comparator.root_instruction();
  if (root->opcode() != HloOpcode::kCompare) return std::nullopt;
  const ComparisonDirection direction = root->comparison_direction();
  if (direction != ComparisonDirection::kLt && direction != ComparisonDirection::kGt) {
    return std::nullopt;
  }
  // Which parameter each side reads: (2k, 2k + 1) or (2k + 1, 2k).
  auto parameter_of = [](const HloInstruction* side) -> int64_t {
    while (side->opcode() == HloOpcode::kSelect) side = side->operand(2);
    return side->opcode() == HloOpcode::kParameter ? side->parameter_number() : -1;
  };
  const int64_t left = parameter_of(root->operand(0)), right = parameter_of(root->operand(1));
  if (left < 0 || right < 0 || left / 2 != right / 2 || left == right) return std::nullopt;
  SortKey key;
  key.operand = left / 2;
  key.type = root->operand(0)->shape().element_type();
  const ComparisonType type = root->EffectiveComparisonType();
  const bool ordered =
      IsKeyFloat(key.type) ? type == ComparisonType::kFloatTotalOrder
      : IsKeyInteger(key.type)
          ? type == (IsSigned(key.type) ? ComparisonType::kSigned : ComparisonType::kUnsigned)
          : false;
  bool left_canonical = false, right_canonical = false;
  if (!ordered || !MatchSide(root->operand(0), left, &key, &left_canonical) ||
      !MatchSide(root->operand(1), right, &key, &right_canonical) ||
      left_canonical != right_canonical) {
    return std::nullopt;
  }
  // less(lhs, rhs) is lhs < rhs (ascending) or lhs > rhs; with the sides
  // swapped, the other way round.
  key.descending = (direction == ComparisonDirection::kGt) == (left % 2 == 0);
  return key;
}

void SortByKey(const SortKey& key, const void* keys, int64_t stride_bytes, int64_t length,
               std::vector<int64_t>* order) {
  const char* first = static_cast<const char*>(keys);
  const int64_t bytes = ByteWidth(key.type);
  const OrderedBits ordered(key);
  auto bits_of = [&](int64_t i) {
    uint64_t raw = 0;
    std::memcpy(&raw, first + i * stride_bytes, bytes);  // little-endian
    return ordered(raw);
  };
  order->resize(length);
  // Short rows: a comparison sort beats the passes over 256 buckets.
  // Rows of more than 2^32 keys: their indices do not fit beside them.
  if (length < 256 || length > int64_t{UINT32_MAX}) {
    thread_local std::vector<uint64_t> bits;  // reused: one sort per row
    bits.resize(length);
    for (int64_t i = 0; i < length; ++i) bits[i] = bits_of(i);
    std::iota(order->begin(), order->end(), 0);
    std::stable_sort(order->begin(), order->end(),
                     [&](int64_t a, int64_t b) { return bits[a] < bits[b]; });
    return;
  }
  // Keys of up to 32 bits sort with their index below them in one word
  // (one stream to scatter per pass); wider ones by an index sorted by
  // each 32-bit half of the key in turn, low half first (stable, so the
  // high half decides and the low half breaks its ties).  The buffers are
  // this thread's, reused: fresh pages cost more than a pass here.
  thread_local std::vector<uint64_t> values, scratch;
  values.resize(length);
  if (bytes <= 4) {
    auto fill = [&](auto zero) {  // a typed load (a memcpy of `bytes` was a third of the sort)
      using T = decltype(zero);
      for (int64_t i = 0; i < length; ++i) {
        T raw;
        std::memcpy(&raw, first + i * stride_bytes, sizeof(T));
        values[i] = ordered(raw) << 32 | static_cast<uint64_t>(i);
      }
    };
    if (bytes == 4) {
      fill(uint32_t{});
    } else if (bytes == 2) {
      fill(uint16_t{});
    } else {
      fill(uint8_t{});
    }
    RadixSort(values, scratch, 32, 32 + 8 * static_cast<int>(bytes));
    for (int64_t i = 0; i < length; ++i) (*order)[i] = static_cast<int64_t>(values[i] & 0xFFFFFFFF);
    return;
  }
  std::iota(order->begin(), order->end(), 0);
  for (int half : {0, 1}) {
    for (int64_t i = 0; i < length; ++i) {
      const uint64_t bits = bits_of((*order)[i]);
      values[i] =
          (half == 0 ? bits & 0xFFFFFFFF : bits >> 32) << 32 | static_cast<uint64_t>((*order)[i]);
    }
    RadixSort(values, scratch, 32, 64);
    for (int64_t i = 0; i < length; ++i) (*order)[i] = static_cast<int64_t>(values[i] & 0xFFFFFFFF);
  }
}

}  // namespace cpu
}  // namespace tessera
