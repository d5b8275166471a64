#include "backends/cpu/sort_thunk.h"

#include <algorithm>
#include <bit>
#include <type_traits>
#include <cstring>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "hlo/ir/float16.h"
#include "hlo/ir/hlo_instruction.h"
#include "runtime/thread_pool.h"

namespace tessera {
namespace cpu {
namespace {

// Element strides of `shape` per logical dimension under its layout
// (row-major without one); an error for tiled or packed layouts.
absl::StatusOr<std::vector<int64_t>> Strides(const Shape& shape) {
  const int64_t rank = shape.rank();
  std::vector<int64_t> strides(rank, 1);
  std::vector<int64_t> minor_to_major(rank);
  if (shape.has_layout()) {
    const Layout& layout = shape.layout();
    if (!layout.tiles.empty() || static_cast<int64_t>(layout.minor_to_major.size()) != rank ||
        (layout.element_size_in_bits != 0 &&
         layout.element_size_in_bits != BitWidth(shape.element_type()))) {
      return absl::UnimplementedError(
          absl::StrCat("sort of an array with layout ", layout.ToString()));
    }
    minor_to_major = layout.minor_to_major;
  } else {
    for (int64_t i = 0; i < rank; ++i) minor_to_major[i] = rank - 1 - i;
  }
  int64_t stride = 1;
  for (int64_t d : minor_to_major) {
    if (d < 0 || d >= rank) return absl::InvalidArgumentError("a bad layout");
    strides[d] = stride;
    stride *= shape.dimensions(d);
  }
  return strides;
}

// Stable bottom-up merge sort of `order` by `less` (the evaluator's).
template <typename Less>
void MergeSort(std::vector<int64_t>* order, std::vector<int64_t>* buffer, Less&& less) {
  buffer->resize(order->size());
  for (size_t width = 1; width < order->size(); width *= 2) {
    for (size_t lo = 0; lo < order->size(); lo += 2 * width) {
      const size_t mid = std::min(lo + width, order->size());
      const size_t hi = std::min(lo + 2 * width, order->size());
      size_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi) {
        // Take from the right only when it is strictly less: stable.
        (*buffer)[k++] = less((*order)[j], (*order)[i]) ? (*order)[j++] : (*order)[i++];
      }
      while (i < mid) (*buffer)[k++] = (*order)[i++];
      while (j < hi) (*buffer)[k++] = (*order)[j++];
    }
    order->swap(*buffer);
  }
}

// out[j * out_stride] = in[order[j] * in_stride], elements of `bytes`
// bytes (a typed copy for the usual sizes: a memcpy of a runtime size per
// element was a sixth of a 1M-element sort).
template <typename T>
void PermuteAs(const char* in, int64_t in_stride, char* out, int64_t out_stride,
               const std::vector<int64_t>& order) {
  const T* src = reinterpret_cast<const T*>(in);
  T* dst = reinterpret_cast<T*>(out);
  for (size_t j = 0; j < order.size(); ++j) dst[j * out_stride] = src[order[j] * in_stride];
}

void Permute(int64_t bytes, const char* in, int64_t in_stride, char* out, int64_t out_stride,
             const std::vector<int64_t>& order) {
  switch (bytes) {
    case 1: return PermuteAs<uint8_t>(in, in_stride, out, out_stride, order);
    case 2: return PermuteAs<uint16_t>(in, in_stride, out, out_stride, order);
    case 4: return PermuteAs<uint32_t>(in, in_stride, out, out_stride, order);
    case 8: return PermuteAs<uint64_t>(in, in_stride, out, out_stride, order);
    default:
      for (size_t j = 0; j < order.size(); ++j) {
        std::memcpy(out + j * out_stride * bytes, in + order[j] * in_stride * bytes, bytes);
      }
  }
}

// A key ordering floats totally and integers naturally (the evaluator's
// OrderKey).
template <typename T>
int64_t OrderKey(T value) {
  if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16> || kIsFloat8<T>) {
    using Signed = std::make_signed_t<decltype(value.bits)>;
    const Signed bits = static_cast<Signed>(value.bits);
    constexpr Signed kMagnitude = std::numeric_limits<Signed>::max();
    return bits < 0 ? static_cast<Signed>(bits ^ kMagnitude) : bits;
  } else if constexpr (std::is_same_v<T, float>) {
    const int32_t bits = std::bit_cast<int32_t>(value);
    return bits < 0 ? (bits ^ 0x7fffffff) : bits;
  } else if constexpr (std::is_same_v<T, double>) {
    const int64_t bits = std::bit_cast<int64_t>(value);
    return bits < 0 ? (bits ^ 0x7fffffffffffffffLL) : bits;
  } else {
    return static_cast<int64_t>(value);
  }
}

// Up to this k, a row's best are kept in a sorted array of k as the row
// streams by (one compare per element against the k-th best, which most
// elements fail); beyond it, a partial sort.  A full stable sort of each
// row made lax.top_k(x, 8) of 1024x1024 20x slower than XLA.
constexpr int64_t kTopKInsertionMax = 64;

template <typename T>
void TopKRows(int64_t begin, int64_t end, int64_t length, int64_t k, bool largest,
              const T* operand, T* values, int32_t* indices) {
  // (key, index) ordered best first: the larger (smaller) key, then the
  // lower index, as the stable order of the evaluator gives.
  struct Entry {
    int64_t key;
    int64_t index;
  };
  auto better = [largest](const Entry& a, const Entry& b) {
    if (a.key != b.key) return largest ? a.key > b.key : a.key < b.key;
    return a.index < b.index;
  };
  std::vector<Entry> entries;
  for (int64_t r = begin; r < end; ++r) {
    const T* row = operand + r * length;
    entries.clear();
    if (k <= kTopKInsertionMax) {
      for (int64_t i = 0; i < length; ++i) {
        const Entry entry{OrderKey(row[i]), i};
        if (static_cast<int64_t>(entries.size()) == k) {
          if (k == 0 || !better(entry, entries.back())) continue;
          entries.pop_back();
        }
        entries.insert(std::upper_bound(entries.begin(), entries.end(), entry, better), entry);
      }
    } else {
      for (int64_t i = 0; i < length; ++i) entries.push_back(Entry{OrderKey(row[i]), i});
      std::partial_sort(entries.begin(), entries.begin() + k, entries.end(), better);
    }
    for (int64_t j = 0; j < k; ++j) {
      values[r * k + j] = row[entries[j].index];
      indices[r * k + j] = static_cast<int32_t>(entries[j].index);
    }
  }
}

}  // namespace

absl::Status RunTopK(PrimitiveType type, int64_t rows, int64_t length, int64_t k, bool largest,
                     const void* operand, void* values, int32_t* indices,
                     runtime::ThreadPool* pool) {
  if (k < 0 || k > length) return absl::InvalidArgumentError("topk: k out of range");
  auto run = [&](auto* typed) -> absl::Status {
    using T = std::remove_pointer_t<decltype(typed)>;
    auto rows_fn = [&](int64_t begin, int64_t end) {
      TopKRows<T>(begin, end, length, k, largest, static_cast<const T*>(operand),
                  static_cast<T*>(values), indices);
    };
    if (pool == nullptr || rows <= 1) {
      rows_fn(0, rows);
    } else {
      pool->ParallelFor(rows, std::max<int64_t>(1, rows / (4 * pool->parallelism())), rows_fn);
    }
    return absl::OkStatus();
  };
  switch (type) {
    case F32: return run(static_cast<float*>(nullptr));
    case F64: return run(static_cast<double*>(nullptr));
    case F16: return run(static_cast<half*>(nullptr));
    case BF16: return run(static_cast<bfloat16*>(nullptr));
    case S8: return run(static_cast<int8_t*>(nullptr));
    case S16: return run(static_cast<int16_t*>(nullptr));
    case S32: return run(static_cast<int32_t*>(nullptr));
    case S64: return run(static_cast<int64_t*>(nullptr));
    case U8: return run(static_cast<uint8_t*>(nullptr));
    case U16: return run(static_cast<uint16_t*>(nullptr));
    case U32: return run(static_cast<uint32_t*>(nullptr));
    default:
      if (IsFloat8Type(type)) {
        return DispatchElementType(type, [&]<typename T>() -> absl::Status {
          if constexpr (kIsFloat8<T>) {
            return run(static_cast<T*>(nullptr));
          } else {
            return absl::InternalError("unreachable topk type");
          }
        });
      }
      return absl::UnimplementedError(
          absl::StrCat("topk of ", PrimitiveTypeName(type), " is not supported natively"));
  }
}

absl::StatusOr<SortPlan> PlanSort(const HloInstruction& sort) {
  if (sort.operand_count() < 1 || sort.dimensions().size() != 1) {
    return absl::InvalidArgumentError(absl::StrCat("%", sort.name(), ": a sort needs operands and one dimension"));
  }
  SortPlan plan;
  const Shape& first = sort.operand(0)->shape();
  plan.dims = first.dimensions();
  plan.dimension = sort.dimensions(0);
  if (plan.dimension < 0 || plan.dimension >= first.rank()) {
    return absl::InvalidArgumentError(absl::StrCat("%", sort.name(), ": sort dimension out of range"));
  }
  const int64_t n = sort.operand_count();
  for (int64_t k = 0; k < n; ++k) {
    const Shape& operand = sort.operand(k)->shape();
    const Shape* result = sort.shape().IsTuple() ? &sort.shape().tuple_shapes(k) : &sort.shape();
    if (!operand.IsArray() || operand.dimensions() != plan.dims || !result->IsArray() ||
        result->dimensions() != plan.dims || result->element_type() != operand.element_type() ||
        (!sort.shape().IsTuple() && n != 1)) {
      return absl::InvalidArgumentError(
          absl::StrCat("%", sort.name(), ": operands and results must share their dimensions"));
    }
    plan.types.push_back(operand.element_type());
    plan.element_bytes.push_back(operand.element_type() == PRED ? 1
                                                                : ByteWidth(operand.element_type()));
    auto operand_strides = Strides(operand);
    if (!operand_strides.ok()) return operand_strides.status();
    auto result_strides = Strides(*result);
    if (!result_strides.ok()) return result_strides.status();
    plan.operand_strides.push_back(*std::move(operand_strides));
    plan.result_strides.push_back(*std::move(result_strides));
  }
  if (sort.to_apply() != nullptr) plan.key = MatchSortKey(*sort.to_apply());
  if (plan.key.has_value() &&
      (plan.key->operand >= n || plan.types[plan.key->operand] != plan.key->type)) {
    plan.key.reset();  // a comparator the verifier should have refused
  }
  return plan;
}

absl::Status RunSort(const SortPlan& plan, SortComparator* less,
                     absl::Span<const void* const> operands, absl::Span<void* const> results,
                     runtime::ThreadPool* pool) {
  const size_t n = plan.types.size();
  if (operands.size() != n || results.size() != n || (less == nullptr && !plan.key.has_value())) {
    return absl::InternalError("RunSort: buffers or comparator do not match the plan");
  }
  const int64_t rank = static_cast<int64_t>(plan.dims.size());
  const int64_t length = plan.dims[plan.dimension];
  int64_t rows = 1;
  for (int64_t d = 0; d < rank; ++d) {
    if (d != plan.dimension) rows *= plan.dims[d];
  }
  if (rows == 0 || length == 0) return absl::OkStatus();
  auto sort_rows = [&](int64_t begin, int64_t end) {
    std::vector<int64_t> order(length), buffer;
    std::vector<int64_t> operand_base(n), result_base(n);
    std::vector<const void*> lhs(n), rhs(n);
    for (int64_t row = begin; row < end; ++row) {
      // The row's multi-index (the sort dimension at 0), row-major.
      int64_t rest = row;
      std::fill(operand_base.begin(), operand_base.end(), 0);
      std::fill(result_base.begin(), result_base.end(), 0);
      for (int64_t d = rank - 1; d >= 0; --d) {
        if (d == plan.dimension) continue;
        const int64_t i = rest % plan.dims[d];
        rest /= plan.dims[d];
        for (size_t k = 0; k < n; ++k) {
          operand_base[k] += i * plan.operand_strides[k][d];
          result_base[k] += i * plan.result_strides[k][d];
        }
      }
      auto element = [&](size_t k, int64_t position) {
        return static_cast<const char*>(operands[k]) +
               (operand_base[k] + position * plan.operand_strides[k][plan.dimension]) *
                   plan.element_bytes[k];
      };
      if (plan.key.has_value()) {
        const int64_t k = plan.key->operand;
        SortByKey(*plan.key, element(k, 0),
                  plan.operand_strides[k][plan.dimension] * plan.element_bytes[k], length, &order);
      } else {
        std::iota(order.begin(), order.end(), 0);
        MergeSort(&order, &buffer, [&](int64_t a, int64_t b) {
          for (size_t k = 0; k < n; ++k) {
            lhs[k] = element(k, a);
            rhs[k] = element(k, b);
          }
          return less(lhs.data(), rhs.data()) != 0;
        });
      }
      for (size_t k = 0; k < n; ++k) {
        const int64_t bytes = plan.element_bytes[k];
        const int64_t stride = plan.result_strides[k][plan.dimension];
        char* out = static_cast<char*>(results[k]) + result_base[k] * bytes;
        Permute(bytes, element(k, 0), plan.operand_strides[k][plan.dimension], out, stride, order);
      }
    }
  };
  if (pool == nullptr || rows == 1) {
    sort_rows(0, rows);
  } else {
    pool->ParallelFor(rows, std::max<int64_t>(1, rows / (4 * pool->parallelism())), sort_rows);
  }
  return absl::OkStatus();
}

}  // namespace cpu
}  // namespace tessera
