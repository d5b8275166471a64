#include "backends/cpu/eigen_dot.h"

#include <algorithm>
#include <atomic>
#include <complex>
#include <cstring>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/cpu/eigen_dot_kernels.h"
#include "backends/cpu/onednn_gemm.h"
#include "hlo/ir/float16.h"
#include "hlo/ir/hlo_instruction.h"
#include "hlo/ir/hlo_opcode.h"
#include "hlo/ir/shape.h"
#include "runtime/thread_pool.h"

namespace tessera {
namespace cpu {

namespace eigen_dot_internal {
bool KernelsSupported() {
  static const bool supported = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
           __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
           __builtin_cpu_supports("fma") && __builtin_cpu_supports("avx2");
  }();
  return supported;
}

namespace {
std::atomic<bool> use_reference_kernels{false};
std::atomic<bool> use_eigen_f32_kernels{false};
}  // namespace

void SetUseReferenceKernelsForTesting(bool use) { use_reference_kernels.store(use); }
void SetUseEigenF32KernelsForTesting(bool use) { use_eigen_f32_kernels.store(use); }
}  // namespace eigen_dot_internal

namespace {

using eigen_dot_internal::KernelsSupported;

// Below this many multiply-adds a product runs on the calling thread.
constexpr int64_t kMinParallelMacs = int64_t{64} * 64 * 64;
// Output panels handed to threads are multiples of this many rows/columns.
constexpr int64_t kPanelGranule = 16;

// Integers of 8 to 32 bits (dot operands, and results of an integer dot).
bool IsNarrowInteger(PrimitiveType type) {
  return type == S8 || type == U8 || type == S16 || type == U16 || type == S32 || type == U32;
}

// The integer dots IntegerDot runs: any such operands into any such
// integer, or into f32 or f64 (the operands converted first, as the
// evaluator does).  s32 -> s32 has the u32 GEMM of its own (with epilogues).
// pred operands are 0 or 1; a pred result (of pred operands only) is
// whether the count of true products is nonzero: XLA's OR of ANDs.
bool IsIntegerDotPair(PrimitiveType type, PrimitiveType output_type) {
  if (type == PRED) {
    return output_type == PRED || IsNarrowInteger(output_type) || output_type == F32 ||
           output_type == F64;
  }
  return IsNarrowInteger(type) &&
         (IsNarrowInteger(output_type) || output_type == F32 || output_type == F64) &&
         !(type == S32 && output_type == S32);
}

bool IsSupportedPair(PrimitiveType type, PrimitiveType output_type) {
  if (IsIntegerDotPair(type, output_type)) return true;
  if (type == output_type) {
    return type == F32 || type == F64 || type == S32 || type == F16 || type == BF16 ||
           type == C64 || type == C128 || type == S64 || type == U64 || IsFloat8Type(type);
  }
  // Float8 operands are widened like the 16-bit floats (into f32, or
  // rounded back into their own type).
  if (IsFloat8Type(type)) return output_type == F32;
  return (type == F16 || type == BF16) && output_type == F32;
}

int64_t RoundUp(int64_t x, int64_t to) { return (x + to - 1) / to * to; }

// The plain-loop product, for CPUs the AVX-512 kernels cannot run on (the
// arguments as for eigen_dot_internal::GemmBlockF32).
template <typename T>
void ReferenceBlock(const T* a, const T* b, T* c, int64_t k, bool ta, bool tb, int64_t lda,
                    int64_t ldb, int64_t ldc, int64_t r0, int64_t r1, int64_t c0, int64_t c1) {
  for (int64_t i = r0; i < r1; ++i) {
    for (int64_t j = c0; j < c1; ++j) {
      T acc = T(0);
      for (int64_t p = 0; p < k; ++p) {
        acc += (ta ? a[p * lda + i] : a[i * lda + p]) * (tb ? b[j * ldb + p] : b[p * ldb + j]);
      }
      c[i * ldc + j] = acc;
    }
  }
}

constexpr int kMaxBatchDims = DotShape::kMaxBatchDimensions;

// One batched product with a row-major (not transposed) result: for each
// i < batch, with offsets (oa, ob, oc) of batch element i (BatchOffsets),
// c + oc (m x n, row stride ldc) = op(a + oa) x op(b + ob), the operands as
// in GemmBlockF32.  The batch is nd >= 1 dimensions, outermost first, of
// sizes[d] (product batch) and strides a_strides[d], b_strides[d],
// c_strides[d].
struct Gemm {
  int64_t batch, m, n, k;
  bool ta, tb;
  int64_t lda, ldb, ldc;
  int nd = 1;
  int64_t sizes[kMaxBatchDims] = {};
  int64_t a_strides[kMaxBatchDims] = {}, b_strides[kMaxBatchDims] = {},
          c_strides[kMaxBatchDims] = {};
};

struct Offsets {
  int64_t a = 0, b = 0, c = 0;
};

// The element offsets of batch element i (0 <= i < batch) in a, b and c.
Offsets BatchOffsets(const Gemm& g, int64_t i) {
  Offsets o;
  if (g.nd == 1) {
    o.a = i * g.a_strides[0];
    o.b = i * g.b_strides[0];
    o.c = i * g.c_strides[0];
    return o;
  }
  for (int d = g.nd - 1; d >= 0; --d) {
    const int64_t index = i % g.sizes[d];
    i /= g.sizes[d];
    o.a += index * g.a_strides[d];
    o.b += index * g.b_strides[d];
    o.c += index * g.c_strides[d];
  }
  return o;
}

// Makes g's batch one dense dimension (matrices packed one after another).
void SetDenseBatch(Gemm& g) {
  g.nd = 1;
  g.sizes[0] = g.batch;
  g.a_strides[0] = g.m * g.k;
  g.b_strides[0] = g.k * g.n;
  g.c_strides[0] = g.m * g.n;
}

// The s8 x s8 -> s32 plain-loop product (sums wrapping), for where oneDNN
// refuses a block.
void ReferenceBlockS8(const int8_t* a, const int8_t* b, int32_t* c, int64_t k, bool ta, bool tb,
                      int64_t lda, int64_t ldb, int64_t ldc, int64_t r0, int64_t r1, int64_t c0,
                      int64_t c1) {
  for (int64_t i = r0; i < r1; ++i) {
    for (int64_t j = c0; j < c1; ++j) {
      uint32_t acc = 0;
      for (int64_t p = 0; p < k; ++p) {
        const int32_t x = ta ? a[p * lda + i] : a[i * lda + p];
        const int32_t y = tb ? b[j * ldb + p] : b[p * ldb + j];
        acc += static_cast<uint32_t>(x * y);
      }
      c[i * ldc + j] = static_cast<int32_t>(acc);
    }
  }
}

// c[r0:r1, c0:c1] of g's product.
template <typename T>
void GemmBlock(const Gemm& g, const T* a, const T* b, T* c, int64_t r0, int64_t r1, int64_t c0,
               int64_t c1) {
  const bool reference = eigen_dot_internal::use_reference_kernels.load(std::memory_order_relaxed);
  if constexpr (std::is_same_v<T, float>) {
    // oneDNN's kernels (any x86-64 CPU) unless a test asks for Eigen's.
    if (!reference && !eigen_dot_internal::use_eigen_f32_kernels.load(std::memory_order_relaxed) &&
        OneDnnGemmBlockF32(a, b, c, g.k, g.ta, g.tb, g.lda, g.ldb, g.ldc, r0, r1, c0, c1)) {
      return;
    }
  }
  if (!KernelsSupported() || reference) {
    ReferenceBlock<T>(a, b, c, g.k, g.ta, g.tb, g.lda, g.ldb, g.ldc, r0, r1, c0, c1);
  } else if constexpr (std::is_same_v<T, float>) {
    eigen_dot_internal::GemmBlockF32(a, b, c, g.k, g.ta, g.tb, g.lda, g.ldb, g.ldc, r0, r1, c0,
                                     c1);
  } else if constexpr (std::is_same_v<T, double>) {
    eigen_dot_internal::GemmBlockF64(a, b, c, g.k, g.ta, g.tb, g.lda, g.ldb, g.ldc, r0, r1, c0,
                                     c1);
  } else {
    static_assert(std::is_same_v<T, uint32_t>);
    eigen_dot_internal::GemmBlockU32(a, b, c, g.k, g.ta, g.tb, g.lda, g.ldb, g.ldc, r0, r1, c0,
                                     c1);
  }
}

// The s8 x s8 -> s32 block, only where OneDnnGemmS8IsExact() (the
// caller's choice).
void GemmBlock(const Gemm& g, const int8_t* a, const int8_t* b, int32_t* c, int64_t r0, int64_t r1,
               int64_t c0, int64_t c1) {
  if (!OneDnnGemmBlockS8(a, b, c, g.k, g.ta, g.tb, g.lda, g.ldb, g.ldc, r0, r1, c0, c1)) {
    ReferenceBlockS8(a, b, c, g.k, g.ta, g.tb, g.lda, g.ldb, g.ldc, r0, r1, c0, c1);
  }
}

// A 64-bit integer block (sums wrapping), in plain loops: each row of c
// accumulates scaled rows of b (vectorizable where b is not transposed).
// There is no 64-bit integer GEMM kernel here; such dots are rare (JAX's
// int64 matmuls under x64).
void GemmBlock(const Gemm& g, const uint64_t* a, const uint64_t* b, uint64_t* c, int64_t r0,
               int64_t r1, int64_t c0, int64_t c1) {
  for (int64_t i = r0; i < r1; ++i) {
    uint64_t* row = c + i * g.ldc;
    for (int64_t j = c0; j < c1; ++j) row[j] = 0;
    for (int64_t p = 0; p < g.k; ++p) {
      const uint64_t x = g.ta ? a[p * g.lda + i] : a[i * g.lda + p];
      if (g.tb) {
        for (int64_t j = c0; j < c1; ++j) row[j] += x * b[j * g.ldb + p];
      } else {
        const uint64_t* b_row = b + p * g.ldb;
        for (int64_t j = c0; j < c1; ++j) row[j] += x * b_row[j];
      }
    }
  }
}

// `g` split over the pool: whole batch elements when there are at least as
// many as threads and they divide evenly, else panels of each output (along
// its longer side) as well.  The split depends on the sizes only, not on
// the strides.
template <typename T, typename Out = T>
void BatchedGemm(const Gemm& g, const T* a, const T* b, Out* c, runtime::ThreadPool* pool,
                 const RowEpilogue* epilogue = nullptr) {
  const int64_t batch = g.batch, m = g.m, n = g.n;
  int threads = pool == nullptr ? 1 : pool->parallelism();
  if (batch * m * n * g.k < kMinParallelMacs) threads = 1;
  if (threads == 1) {
    for (int64_t i = 0; i < batch; ++i) {
      const Offsets o = BatchOffsets(g, i);
      GemmBlock(g, a + o.a, b + o.b, c + o.c, 0, m, 0, n);
    }
    if (epilogue != nullptr) (*epilogue)(0, m);
    return;
  }
  int64_t panels = batch % threads == 0 ? 1 : threads;
  const bool split_rows = m >= n;
  // Per-panel epilogues need row panels of one matrix; where the product
  // splits by columns (each thread then packs only its part of b), the
  // epilogue runs after it, split by rows over the pool.
  const bool row_epilogue = epilogue != nullptr && batch == 1 && split_rows;
  const int64_t extent = split_rows ? m : n;
  const int64_t panel = std::max<int64_t>(
      1, std::min(extent, RoundUp((extent + panels - 1) / panels, kPanelGranule)));
  panels = (extent + panel - 1) / panel;
  pool->ParallelFor(batch * panels, /*block_size=*/1, [&](int64_t begin, int64_t end) {
    for (int64_t unit = begin; unit < end; ++unit) {
      const int64_t i = unit / panels;
      const int64_t lo = (unit % panels) * panel, hi = std::min(extent, lo + panel);
      const Offsets o = BatchOffsets(g, i);
      GemmBlock(g, a + o.a, b + o.b, c + o.c, split_rows ? lo : 0, split_rows ? hi : m,
                split_rows ? 0 : lo, split_rows ? n : hi);
      if (row_epilogue) (*epilogue)(lo, hi);
    }
  });
  if (epilogue != nullptr && !row_epilogue) {
    pool->ParallelFor(m, std::max<int64_t>(1, (m + threads - 1) / threads),
                      [epilogue](int64_t begin, int64_t end) { (*epilogue)(begin, end); });
  }
}

// Which of a Gemm's arrays a batch offset is for.
enum class Operand { kA, kB, kC };
int64_t OffsetOf(const Offsets& o, Operand which) {
  return which == Operand::kA ? o.a : which == Operand::kB ? o.b : o.c;
}

// Conversions of at least this many elements are split over the pool.
constexpr int64_t kMinParallelConversion = int64_t{1} << 15;

// fn(b, r) for each row r < rows of each of g.batch matrices of `cols`
// elements, split over the pool (when given and the matrices are large).
template <typename Fn>
void ForEachRow(const Gemm& g, int64_t rows, int64_t cols, runtime::ThreadPool* pool, Fn fn) {
  const int64_t total = g.batch * rows;
  if (pool == nullptr || pool->parallelism() == 1 || total * cols < kMinParallelConversion) {
    for (int64_t i = 0; i < total; ++i) fn(i / rows, i % rows);
    return;
  }
  const int64_t block =
      std::max<int64_t>(1, std::min(kMinParallelConversion / std::max<int64_t>(cols, 1),
                                    (total + pool->parallelism() - 1) / pool->parallelism()));
  pool->ParallelFor(total, block, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) fn(i / rows, i % rows);
  });
}

// dst[0:n] = src[0:n] converted; bf16 <-> f32 on the bits, 16 at a time
// (fixed-count loops the compiler vectorizes; the scalar conversions have
// branches it does not).
template <typename From, typename To>
void ConvertRow(const From* src, To* dst, int64_t n) {
  int64_t i = 0;
  if constexpr (std::is_same_v<From, bfloat16> && std::is_same_v<To, float>) {
    for (; i + 16 <= n; i += 16) {
      uint32_t bits[16];
      for (int j = 0; j < 16; ++j) bits[j] = uint32_t{src[i + j].bits} << 16;
      std::memcpy(dst + i, bits, sizeof(bits));
    }
  } else if constexpr (std::is_same_v<From, float> && std::is_same_v<To, bfloat16>) {
    // bfloat16::FromFloat without its branch: nearest even, NaN kept quiet.
    for (; i + 16 <= n; i += 16) {
      uint32_t bits[16];
      std::memcpy(bits, src + i, sizeof(bits));
      for (int j = 0; j < 16; ++j) {
        const uint32_t u = bits[j];
        const uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1)) >> 16;
        const uint32_t quiet_nan = (u >> 16) | 0x40u;
        dst[i + j].bits =
            static_cast<uint16_t>((u & 0x7fffffffu) > 0x7f800000u ? quiet_nan : rounded);
      }
    }
  }
  if constexpr (std::is_floating_point_v<From> && std::is_integral_v<To>) {
    // An exact integer sum (an integer product's, in f64) wraps into To
    // through int64 (a direct conversion out of To's range is undefined).
    for (; i < n; ++i) dst[i] = static_cast<To>(static_cast<int64_t>(src[i]));
  } else {
    for (; i < n; ++i) dst[i] = static_cast<To>(src[i]);
  }
}

// Widens g.batch matrices of rows x cols narrow elements (row stride ld,
// at the batch offsets of `which` in g) into dense ones of type Wide: f32
// for 16-bit floats; for s8, uint32_t holding the sign-extended value
// (wrapping arithmetic on it is s32's).
template <typename Narrow, typename Wide = float>
void Widen(const void* in, const Gemm& g, Operand which, int64_t rows, int64_t cols, int64_t ld,
           Wide* out, runtime::ThreadPool* pool) {
  const Narrow* src = static_cast<const Narrow*>(in);
  ForEachRow(g, rows, cols, pool, [&](int64_t b, int64_t r) {
    ConvertRow(src + OffsetOf(BatchOffsets(g, b), which) + r * ld, out + (b * rows + r) * cols,
               cols);
  });
}

// The inverse of Widen: converts dense m x n matrices of Wide into g's
// strided result of type Out (row stride g.ldc, g's c batch offsets):
// rounded to a 16-bit float, or an integer that the f32 or f64 holds
// exactly (an integer product's sum), or a u32 sum truncated.
template <typename Out, typename Wide = float>
void Narrow(const Wide* in, const Gemm& g, void* out, runtime::ThreadPool* pool) {
  Out* dst = static_cast<Out*>(out);
  ForEachRow(g, g.m, g.n, pool, [&](int64_t b, int64_t r) {
    ConvertRow(in + (b * g.m + r) * g.n, dst + BatchOffsets(g, b).c + r * g.ldc, g.n);
  });
}

// g's operands, widened into dense scratch (as stored: a_rows x a_cols,
// b_rows x b_cols), and where the scratch after them starts.
template <typename Wide>
struct Widened {
  Wide* a;
  Wide* b;
  Wide* end;
};

template <typename Narrow, typename Wide>
Widened<Wide> WidenOperands(const void* a, const void* b, const Gemm& g, Wide* buffer,
                            runtime::ThreadPool* pool) {
  const int64_t a_rows = g.ta ? g.k : g.m, a_cols = g.ta ? g.m : g.k;
  const int64_t b_rows = g.tb ? g.n : g.k, b_cols = g.tb ? g.k : g.n;
  Widened<Wide> w;
  w.a = buffer;
  w.b = w.a + RoundUp(g.batch * g.m * g.k, 16);
  w.end = w.b + RoundUp(g.batch * g.k * g.n, 16);
  Widen<Narrow, Wide>(a, g, Operand::kA, a_rows, a_cols, g.lda, w.a, pool);
  Widen<Narrow, Wide>(b, g, Operand::kB, b_rows, b_cols, g.ldb, w.b, pool);
  return w;
}

// Splits g.batch complex matrices of rows x cols (row stride ld, at the
// batch offsets of `which` in g) into dense real and imaginary parts.
template <typename R>
void SplitComplex(const void* in, const Gemm& g, Operand which, int64_t rows, int64_t cols,
                  int64_t ld, R* re, R* im) {
  const std::complex<R>* src = static_cast<const std::complex<R>*>(in);
  for (int64_t b = 0; b < g.batch; ++b) {
    const std::complex<R>* matrix = src + OffsetOf(BatchOffsets(g, b), which);
    for (int64_t r = 0; r < rows; ++r) {
      const std::complex<R>* row = matrix + r * ld;
      for (int64_t c = 0; c < cols; ++c) {
        *re++ = row[c].real();
        *im++ = row[c].imag();
      }
    }
  }
}

// g reading the dense widened operands, writing its result as g does.
Gemm WithDenseOperands(const Gemm& g) {
  Gemm dense = g;
  dense.lda = g.ta ? g.m : g.k;
  dense.ldb = g.tb ? g.k : g.n;
  int64_t inner = 1;
  for (int d = g.nd - 1; d >= 0; --d) {
    dense.a_strides[d] = inner * g.m * g.k;
    dense.b_strides[d] = inner * g.k * g.n;
    inner *= g.sizes[d];
  }
  return dense;
}

// g reading its operands as they are, into a dense result (m x n
// matrices one after another).
Gemm WithDenseResultOnly(const Gemm& g) {
  Gemm dense = g;
  dense.ldc = g.n;
  int64_t inner = 1;
  for (int d = g.nd - 1; d >= 0; --d) {
    dense.c_strides[d] = inner * g.m * g.n;
    inner *= g.sizes[d];
  }
  return dense;
}

// g reading the dense widened operands into a dense result (m x n
// matrices one after another).
Gemm WithDenseResult(const Gemm& g) {
  Gemm dense = g;
  dense.lda = g.ta ? g.m : g.k;
  dense.ldb = g.tb ? g.k : g.n;
  dense.ldc = g.n;
  SetDenseBatch(dense);
  return dense;
}

}  // namespace

bool DotShape::IsDense() const {
  if (effective_lda() != (lhs_transposed ? m : k) ||
      effective_ldb() != (rhs_transposed ? k : n) ||
      effective_ldc() != (out_transposed ? m : n)) {
    return false;
  }
  if (batch_dim_count == 0) {
    return effective_lhs_batch_stride() == m * k && effective_rhs_batch_stride() == k * n &&
           effective_out_batch_stride() == m * n;
  }
  // Row-major batch dimensions over dense matrices (a dimension of size 1
  // has any stride).
  int64_t inner = 1;
  for (int d = std::min(batch_dim_count, kMaxBatchDimensions) - 1; d >= 0; --d) {
    const BatchDimension& dim = batch_dims[d];
    if (dim.size != 1 && (dim.lhs_stride != inner * m * k || dim.rhs_stride != inner * k * n ||
                          dim.out_stride != inner * m * n)) {
      return false;
    }
    inner *= dim.size;
  }
  return true;
}

std::string DotShape::ToString() const {
  std::string strides;
  auto add = [&](absl::string_view name, int64_t value, int64_t dense) {
    if (value != dense) absl::StrAppend(&strides, " ", name, "=", value);
  };
  add("lda", effective_lda(), lhs_transposed ? m : k);
  add("ldb", effective_ldb(), rhs_transposed ? k : n);
  add("ldc", effective_ldc(), out_transposed ? m : n);
  if (batch_dim_count == 0) {
    add("lhs_batch_stride", effective_lhs_batch_stride(), m * k);
    add("rhs_batch_stride", effective_rhs_batch_stride(), k * n);
    add("out_batch_stride", effective_out_batch_stride(), m * n);
  } else {
    const int count = std::max(0, std::min(batch_dim_count, kMaxBatchDimensions));
    std::vector<int64_t> sizes, lhs, rhs, out;
    for (int d = 0; d < count; ++d) {
      sizes.push_back(batch_dims[d].size);
      lhs.push_back(batch_dims[d].lhs_stride);
      rhs.push_back(batch_dims[d].rhs_stride);
      out.push_back(batch_dims[d].out_stride);
    }
    absl::StrAppend(&strides, " batch_dims=", absl::StrJoin(sizes, ","),
                    " lhs_batch_strides=", absl::StrJoin(lhs, ","),
                    " rhs_batch_strides=", absl::StrJoin(rhs, ","),
                    " out_batch_strides=", absl::StrJoin(out, ","));
    if (batch_dim_count != count) absl::StrAppend(&strides, " batch_dim_count=", batch_dim_count);
  }
  return absl::StrCat(PrimitiveTypeName(type), "->", PrimitiveTypeName(output_type),
                      " batch=", batch, " m=", m, " n=", n, " k=", k,
                      lhs_transposed ? " lhs^T" : "", rhs_transposed ? " rhs^T" : "",
                      out_transposed ? " out^T" : "", strides);
}

absl::Status CheckDotShape(const DotShape& shape) {
  if (!IsSupportedPair(shape.type, shape.output_type)) {
    return absl::UnimplementedError(absl::StrCat("dot of ", PrimitiveTypeName(shape.type),
                                                 " operands into ",
                                                 PrimitiveTypeName(shape.output_type),
                                                 " is not supported"));
  }
  if (shape.batch < 0 || shape.m < 0 || shape.n < 0 || shape.k < 0) {
    return absl::InvalidArgumentError(absl::StrCat("negative dot size: ", shape.ToString()));
  }
  if (shape.lda < 0 || shape.ldb < 0 || shape.ldc < 0 || shape.lhs_batch_stride < 0 ||
      shape.rhs_batch_stride < 0 || shape.out_batch_stride < 0) {
    return absl::InvalidArgumentError(absl::StrCat("negative dot stride: ", shape.ToString()));
  }
  if (shape.batch_dim_count < 0 || shape.batch_dim_count > DotShape::kMaxBatchDimensions) {
    return absl::InvalidArgumentError(absl::StrCat("dot batch_dim_count ",
                                                   shape.batch_dim_count, " is not in [0, ",
                                                   DotShape::kMaxBatchDimensions, "]"));
  }
  if (shape.batch_dim_count > 0) {
    int64_t product = 1;
    for (int d = 0; d < shape.batch_dim_count; ++d) {
      const DotShape::BatchDimension& dim = shape.batch_dims[d];
      if (dim.size < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("negative dot batch dimension size: ", shape.ToString()));
      }
      if (dim.lhs_stride < 0 || dim.rhs_stride < 0 || dim.out_stride < 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("negative dot batch stride: ", shape.ToString()));
      }
      product *= dim.size;
    }
    if (product != shape.batch) {
      return absl::InvalidArgumentError(absl::StrCat(
          "dot batch dimensions do not multiply to the batch: ", shape.ToString()));
    }
  }
  return absl::OkStatus();
}

namespace {

// How an integer dot into an integer (IntegerDot) forms its sums, exactly
// modulo 2^32 in each case.
enum class IntegerSums {
  kVnni,  // s8: oneDNN's int8 GEMM with AVX512-VNNI, straight into s32
  kF32,   // widened to f32, where every partial sum is an integer below 2^24
  kF64,   // widened to f64, below 2^53 (f64's GEMM is many times the u32 one's speed)
  kU32,   // widened to u32 (sign- or zero-extended), wrapping
};

IntegerSums ChooseIntegerSums(const DotShape& shape) {
  const PrimitiveType type = shape.type;
  if (type == S8 && OneDnnGemmS8IsExact() &&
      !eigen_dot_internal::use_reference_kernels.load(std::memory_order_relaxed)) {
    return IntegerSums::kVnni;
  }
  // The bits of the largest product's magnitude: 0 for pred, 2w - 2 for
  // w-bit signed operands (-2^(w-1) squared), 2w for unsigned ones.
  const int width = type == PRED ? 0 : BitWidth(type);
  const int product_bits = type == PRED                 ? 0
                           : IsSignedIntegralType(type) ? 2 * width - 2
                                                        : 2 * width;
  if (product_bits <= 24 && shape.k <= (int64_t{1} << (24 - product_bits)))
    return IntegerSums::kF32;
  if (product_bits <= 53 && shape.k <= (int64_t{1} << (53 - product_bits)))
    return IntegerSums::kF64;
  return IntegerSums::kU32;
}

}  // namespace

int64_t DotScratchBytes(const DotShape& shape) {
  if (shape.type == C64 || shape.type == C128) {
    // Real and imaginary parts of both operands, and four real products.
    const int64_t reals = 2 * RoundUp(shape.batch * shape.m * shape.k, 16) +
                          2 * RoundUp(shape.batch * shape.k * shape.n, 16) +
                          4 * RoundUp(shape.batch * shape.m * shape.n, 16);
    return reals * (shape.type == C128 ? 8 : 4);
  }
  const int64_t operands =
      RoundUp(shape.batch * shape.m * shape.k, 16) + RoundUp(shape.batch * shape.k * shape.n, 16);
  const int64_t result = RoundUp(shape.batch * shape.m * shape.n, 16);
  if (IsIntegerDotPair(shape.type, shape.output_type)) {
    // Float results: the converted operands.  Integer ones: the widened
    // operands (but for VNNI), and a dense result of sums unless they are
    // written in place (a 4-byte result of 4-byte sums).
    if (shape.output_type == F32 || shape.output_type == F64) {
      return operands * (shape.output_type == F64 ? 8 : 4);
    }
    const bool in_place = BitWidth(shape.output_type) == 32;
    switch (ChooseIntegerSums(shape)) {
      case IntegerSums::kVnni:
        return in_place ? 0 : 4 * result;
      case IntegerSums::kF32:
        return 4 * (operands + result);
      case IntegerSums::kF64:
        return 8 * (operands + result);
      case IntegerSums::kU32:
        return 4 * (operands + (in_place ? 0 : result));
    }
  }
  if (shape.type != F16 && shape.type != BF16 && !IsFloat8Type(shape.type)) return 0;
  // 4-byte elements: the operands widened to f32, and an f32 product to
  // round into a 16- or 8-bit result.
  const bool narrows = shape.output_type != F32;
  return 4 * (operands + (narrows ? result : 0));
}

namespace {

// The caller's scratch for a widening product, or a buffer of ours.
template <typename Wide>
Wide* ScratchFor(const DotShape& shape, void* scratch, std::unique_ptr<Wide[]>* owned) {
  if (scratch != nullptr) return static_cast<Wide*>(scratch);
  owned->reset(new Wide[DotScratchBytes(shape) / sizeof(Wide)]);
  return owned->get();
}

// f(T{}) for the C++ type of integer type `type` (IsNarrowInteger, or
// pred).
template <typename F>
void WithIntegerType(PrimitiveType type, F&& f) {
  switch (type) {
    case S8:
      return f(int8_t{});
    case U8:
      return f(uint8_t{});
    case S16:
      return f(int16_t{});
    case U16:
      return f(uint16_t{});
    case S32:
      return f(int32_t{});
    case PRED:
      return f(bool{});
    default:
      return f(uint32_t{});
  }
}

// An integer dot's sums widened to Wide (f32, f64 or u32: see
// IntegerSums), narrowed into g's Out result; written in place where Wide
// and Out are both 4-byte integers.
template <typename In, typename Out, typename Wide>
void WidenedIntegerDot(const DotShape& shape, const Gemm& g, const void* a, const void* b,
                       void* out, runtime::ThreadPool* pool, void* scratch) {
  std::unique_ptr<Wide[]> owned;
  const Widened<Wide> w =
      WidenOperands<In>(a, b, g, ScratchFor<Wide>(shape, scratch, &owned), pool);
  if constexpr (std::is_same_v<Wide, uint32_t> && sizeof(Out) == 4) {
    BatchedGemm<uint32_t>(WithDenseOperands(g), w.a, w.b, static_cast<uint32_t*>(out), pool);
  } else {
    BatchedGemm<Wide>(WithDenseResult(g), w.a, w.b, w.end, pool);
    Narrow<Out, Wide>(w.end, g, out, pool);
  }
}

// A dot that IsIntegerDotPair accepts, exactly as the evaluator computes
// it: into a float, the operands converted to it and a float GEMM; into an
// integer, the sums modulo 2^32 (which the result's wrap-around keeps), as
// ChooseIntegerSums picks.
void IntegerDot(const DotShape& shape, const Gemm& g, const void* a, const void* b, void* out,
                runtime::ThreadPool* pool, void* scratch) {
  const PrimitiveType output = shape.output_type;
  if (output == F32 || output == F64) {
    WithIntegerType(shape.type, [&](auto in) {
      using In = decltype(in);
      if (output == F32) {
        std::unique_ptr<float[]> owned;
        const Widened<float> w =
            WidenOperands<In>(a, b, g, ScratchFor<float>(shape, scratch, &owned), pool);
        BatchedGemm<float>(WithDenseOperands(g), w.a, w.b, static_cast<float*>(out), pool);
      } else {
        std::unique_ptr<double[]> owned;
        const Widened<double> w =
            WidenOperands<In>(a, b, g, ScratchFor<double>(shape, scratch, &owned), pool);
        BatchedGemm<double>(WithDenseOperands(g), w.a, w.b, static_cast<double*>(out), pool);
      }
    });
    return;
  }
  const IntegerSums sums = ChooseIntegerSums(shape);
  WithIntegerType(shape.type, [&](auto in) {
    using In = decltype(in);
    WithIntegerType(output, [&](auto result) {
      using Out = decltype(result);
      switch (sums) {
        case IntegerSums::kVnni:
          if constexpr (std::is_same_v<In, int8_t>) {
            const auto* lhs = static_cast<const int8_t*>(a);
            const auto* rhs = static_cast<const int8_t*>(b);
            if constexpr (sizeof(Out) == 4) {  // byte products straight into the result
              BatchedGemm<int8_t, int32_t>(g, lhs, rhs, static_cast<int32_t*>(out), pool);
            } else {
              std::unique_ptr<int32_t[]> owned;
              int32_t* dense = ScratchFor<int32_t>(shape, scratch, &owned);
              BatchedGemm<int8_t, int32_t>(WithDenseResultOnly(g), lhs, rhs, dense, pool);
              Narrow<Out, int32_t>(dense, g, out, pool);
            }
          }
          return;
        case IntegerSums::kF32:
          return WidenedIntegerDot<In, Out, float>(shape, g, a, b, out, pool, scratch);
        case IntegerSums::kF64:
          return WidenedIntegerDot<In, Out, double>(shape, g, a, b, out, pool, scratch);
        case IntegerSums::kU32:
          return WidenedIntegerDot<In, Out, uint32_t>(shape, g, a, b, out, pool, scratch);
      }
    });
  });
}

// A complex product as four real GEMMs over the split parts:
// re = ar br - ai bi, im = ar bi + ai br (each part's sums as a real
// GEMM's), written into g's strided complex result.
template <typename R>
void ComplexGemm(const Gemm& g, const void* a, const void* b, void* out, runtime::ThreadPool* pool,
                 R* buffer) {
  const int64_t a_rows = g.ta ? g.k : g.m, a_cols = g.ta ? g.m : g.k;
  const int64_t b_rows = g.tb ? g.n : g.k, b_cols = g.tb ? g.k : g.n;
  const int64_t a_size = RoundUp(g.batch * g.m * g.k, 16),
                b_size = RoundUp(g.batch * g.k * g.n, 16);
  const int64_t c_size = RoundUp(g.batch * g.m * g.n, 16);
  R* ar = buffer;
  R* ai = ar + a_size;
  R* br = ai + a_size;
  R* bi = br + b_size;
  R* products[4] = {bi + b_size, bi + b_size + c_size, bi + b_size + 2 * c_size,
                    bi + b_size + 3 * c_size};
  SplitComplex<R>(a, g, Operand::kA, a_rows, a_cols, g.lda, ar, ai);
  SplitComplex<R>(b, g, Operand::kB, b_rows, b_cols, g.ldb, br, bi);
  const Gemm dense = WithDenseResult(g);
  BatchedGemm<R>(dense, ar, br, products[0], pool);
  BatchedGemm<R>(dense, ai, bi, products[1], pool);
  BatchedGemm<R>(dense, ar, bi, products[2], pool);
  BatchedGemm<R>(dense, ai, br, products[3], pool);
  std::complex<R>* dst = static_cast<std::complex<R>*>(out);
  int64_t i = 0;
  for (int64_t batch = 0; batch < g.batch; ++batch) {
    std::complex<R>* matrix = dst + BatchOffsets(g, batch).c;
    for (int64_t r = 0; r < g.m; ++r) {
      std::complex<R>* row = matrix + r * g.ldc;
      for (int64_t c = 0; c < g.n; ++c, ++i) {
        row[c] = std::complex<R>(products[0][i] - products[1][i], products[2][i] + products[3][i]);
      }
    }
  }
}

}  // namespace

absl::Status RunDot(const DotShape& shape, const void* lhs, const void* rhs, void* out,
                    runtime::ThreadPool* pool, void* scratch, const RowEpilogue* epilogue) {
  if (absl::Status status = CheckDotShape(shape); !status.ok()) return status;
  const int64_t out_count = shape.batch * shape.m * shape.n;
  // Per panel only where the product's rows are the result's rows.
  const RowEpilogue* panel_epilogue =
      epilogue != nullptr && shape.batch == 1 && !shape.out_transposed ? epilogue : nullptr;
  if (out_count == 0 || epilogue != panel_epilogue) {
    absl::Status status =
        out_count == 0 ? absl::OkStatus() : RunDot(shape, lhs, rhs, out, pool, scratch);
    if (status.ok() && epilogue != nullptr) (*epilogue)(0, shape.m);
    return status;
  }
  const bool has_panel_epilogues = shape.type == shape.output_type &&
                                   (shape.type == F32 || shape.type == F64 || shape.type == S32);
  if (epilogue != nullptr && !has_panel_epilogues) {
    absl::Status status = RunDot(shape, lhs, rhs, out, pool, scratch);
    if (status.ok() && epilogue != nullptr) (*epilogue)(0, shape.m);
    return status;
  }
  Gemm g;
  g.batch = shape.batch;
  g.m = shape.m;
  g.n = shape.n;
  g.k = shape.k;
  g.ta = shape.lhs_transposed;
  g.tb = shape.rhs_transposed;
  g.lda = shape.effective_lda();
  g.ldb = shape.effective_ldb();
  g.ldc = shape.effective_ldc();
  if (shape.batch_dim_count == 0) {
    g.nd = 1;
    g.sizes[0] = shape.batch;
    g.a_strides[0] = shape.effective_lhs_batch_stride();
    g.b_strides[0] = shape.effective_rhs_batch_stride();
    g.c_strides[0] = shape.effective_out_batch_stride();
  } else {
    g.nd = shape.batch_dim_count;
    for (int d = 0; d < g.nd; ++d) {
      g.sizes[d] = shape.batch_dims[d].size;
      g.a_strides[d] = shape.batch_dims[d].lhs_stride;
      g.b_strides[d] = shape.batch_dims[d].rhs_stride;
      g.c_strides[d] = shape.batch_dims[d].out_stride;
    }
  }
  const void* a = lhs;
  const void* b = rhs;
  // A transposed result is the transposed product: out^T = op(rhs)^T op(lhs)^T,
  // the operands (and their strides) swapped; ldc is out's stored row stride
  // either way.
  if (shape.out_transposed) {
    std::swap(g.m, g.n);
    std::swap(a, b);
    std::swap(g.ta, g.tb);
    g.ta = !g.ta;
    g.tb = !g.tb;
    std::swap(g.lda, g.ldb);
    std::swap(g.a_strides, g.b_strides);
  }
  if (IsIntegerDotPair(shape.type, shape.output_type)) {
    IntegerDot(shape, g, a, b, out, pool, scratch);
    return absl::OkStatus();
  }
  switch (shape.type) {
    case F32:
      BatchedGemm<float>(g, static_cast<const float*>(a), static_cast<const float*>(b),
                         static_cast<float*>(out), pool, panel_epilogue);
      return absl::OkStatus();
    case F64:
      BatchedGemm<double>(g, static_cast<const double*>(a), static_cast<const double*>(b),
                          static_cast<double*>(out), pool, panel_epilogue);
      return absl::OkStatus();
    case S32:
      BatchedGemm<uint32_t>(g, static_cast<const uint32_t*>(a), static_cast<const uint32_t*>(b),
                            static_cast<uint32_t*>(out), pool, panel_epilogue);
      return absl::OkStatus();
    case S64:
    case U64:
      BatchedGemm<uint64_t>(g, static_cast<const uint64_t*>(a), static_cast<const uint64_t*>(b),
                            static_cast<uint64_t*>(out), pool);
      return absl::OkStatus();
    case C64: {
      std::unique_ptr<float[]> owned;
      ComplexGemm<float>(g, a, b, out, pool, ScratchFor<float>(shape, scratch, &owned));
      return absl::OkStatus();
    }
    case C128: {
      std::unique_ptr<double[]> owned;
      ComplexGemm<double>(g, a, b, out, pool, ScratchFor<double>(shape, scratch, &owned));
      return absl::OkStatus();
    }
    case F16:
    case BF16: {
      // Widened into dense f32 matrices; an f32 result is written in place
      // with its strides, a 16-bit one into dense scratch and then rounded.
      std::unique_ptr<float[]> owned;
      float* buffer = ScratchFor<float>(shape, scratch, &owned);
      const Widened<float> w = shape.type == F16 ? WidenOperands<half>(a, b, g, buffer, pool)
                                                 : WidenOperands<bfloat16>(a, b, g, buffer, pool);
      if (shape.output_type == F32) {
        BatchedGemm<float>(WithDenseOperands(g), w.a, w.b, static_cast<float*>(out), pool);
        return absl::OkStatus();
      }
      BatchedGemm<float>(WithDenseResult(g), w.a, w.b, w.end, pool);
      if (shape.output_type == F16) {
        Narrow<half>(w.end, g, out, pool);
      } else {
        Narrow<bfloat16>(w.end, g, out, pool);
      }
      return absl::OkStatus();
    }
    default:
      if (!IsFloat8Type(shape.type)) return absl::InternalError("unreachable dot type");
      // As the 16-bit floats: widened, multiplied in f32, rounded back.
      return DispatchElementType(shape.type, [&]<typename T>() -> absl::Status {
        if constexpr (!kIsFloat8<T>) {
          return absl::InternalError("unreachable dot type");
        } else {
          std::unique_ptr<float[]> owned;
          const Widened<float> w =
              WidenOperands<T>(a, b, g, ScratchFor<float>(shape, scratch, &owned), pool);
          if (shape.output_type == F32) {
            BatchedGemm<float>(WithDenseOperands(g), w.a, w.b, static_cast<float*>(out), pool);
          } else {
            BatchedGemm<float>(WithDenseResult(g), w.a, w.b, w.end, pool);
            Narrow<T>(w.end, g, out, pool);
          }
          return absl::OkStatus();
        }
      });
  }
}

bool ConvertFloats(PrimitiveType from, const void* in, PrimitiveType to, void* out, int64_t count,
                   runtime::ThreadPool* pool) {
  auto is_narrow_float = [](PrimitiveType t) { return t == F16 || t == BF16 || IsFloat8Type(t); };
  if (!((from == F32 && is_narrow_float(to)) || (to == F32 && is_narrow_float(from)))) {
    return false;
  }
  return DispatchElementType(from == F32 ? to : from, [&]<typename T>() {
    if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16> || kIsFloat8<T>) {
      auto run = [&](int64_t begin, int64_t end) {
        if (from == F32) {
          ConvertRow(static_cast<const float*>(in) + begin, static_cast<T*>(out) + begin,
                     end - begin);
        } else {
          ConvertRow(static_cast<const T*>(in) + begin, static_cast<float*>(out) + begin,
                     end - begin);
        }
      };
      if (pool == nullptr || pool->parallelism() == 1 || count < kMinParallelConversion) {
        run(0, count);
      } else {
        pool->ParallelFor(count, kMinParallelConversion, run);
      }
      return true;
    } else {
      return false;
    }
  });
}

// ---------------------------------------------------------------------------
// PlanDot

namespace {

// What one physical dimension of an operand or of the result is.
enum class Role { kBatch, kContracting, kLhsFree, kRhsFree };
struct Tag {
  Role role;
  int64_t id;  // batch/contracting: pair index; free: the operand dimension
};

absl::Status Unimplemented(const HloInstruction& dot, absl::string_view why) {
  return absl::UnimplementedError(
      absl::StrCat("dot ", dot.name(), " does not map onto a GEMM: ", why));
}

// The dimensions of `shape` from major to minor, per its layout (row-major
// without one).
absl::StatusOr<std::vector<int64_t>> MajorToMinor(const HloInstruction& dot, const Shape& shape,
                                                  absl::string_view what) {
  const int64_t rank = shape.rank();
  std::vector<int64_t> order(rank);
  if (!shape.has_layout()) {
    for (int64_t d = 0; d < rank; ++d) order[d] = d;
    return order;
  }
  const Layout& layout = shape.layout();
  if (!layout.tiles.empty()) {
    return Unimplemented(dot, absl::StrCat(what, " has a tiled layout ", layout.ToString()));
  }
  if (layout.element_size_in_bits != 0 &&
      layout.element_size_in_bits != BitWidth(shape.element_type())) {
    return Unimplemented(dot, absl::StrCat(what, " has packed elements ", layout.ToString()));
  }
  if (static_cast<int64_t>(layout.minor_to_major.size()) != rank) {
    return absl::InvalidArgumentError(absl::StrCat("dot ", dot.name(), ": ", what, " layout ",
                                                   layout.ToString(), " is not of rank ", rank));
  }
  std::vector<bool> seen(rank, false);
  for (int64_t i = 0; i < rank; ++i) {
    const int64_t d = layout.minor_to_major[rank - 1 - i];
    if (d < 0 || d >= rank || seen[d]) {
      return absl::InvalidArgumentError(absl::StrCat("dot ", dot.name(), ": ", what, " layout ",
                                                     layout.ToString(),
                                                     " is not a permutation"));
    }
    seen[d] = true;
    order[i] = d;
  }
  return order;
}

// Element strides of `shape`'s logical dimensions, per its layout.
absl::StatusOr<std::vector<int64_t>> PhysicalStrides(const HloInstruction& dot,
                                                     const Shape& shape,
                                                     absl::string_view what) {
  auto order = MajorToMinor(dot, shape, what);
  if (!order.ok()) return order.status();
  std::vector<int64_t> strides(shape.rank(), 0);
  int64_t stride = 1;
  for (auto it = order->rbegin(); it != order->rend(); ++it) {
    strides[*it] = stride;
    stride *= shape.dimensions(*it);
  }
  return strides;
}

// One array's dimensions of a group: position p of `dims` in each array of
// the group is the same dimension pair (same size).
struct Member {
  absl::string_view array;  // "lhs", "rhs", "result"
  const Shape* shape;
  const std::vector<int64_t>* strides;
  std::vector<int64_t> dims;
};

// A group of dimensions collapsed in one array: `extent` elements `stride`
// apart (any stride will do when extent is 1).
struct Collapsed {
  int64_t extent = 1;
  int64_t stride = 0;
};

// Collapses group `group` in each of `members`, in the order of decreasing
// stride in members[0], ignoring dimensions of size 1; Unimplemented
// naming the array where it does not collapse.
absl::StatusOr<std::vector<Collapsed>> CollapseGroup(const HloInstruction& dot,
                                                     absl::string_view group,
                                                     const std::vector<Member>& members) {
  const Member& ref = members[0];
  std::vector<int64_t> order;  // positions of the dimensions of size > 1
  int64_t extent = 1;
  for (int64_t p = 0; p < static_cast<int64_t>(ref.dims.size()); ++p) {
    const int64_t size = ref.shape->dimensions(ref.dims[p]);
    extent *= size;
    if (size != 1) order.push_back(p);
  }
  std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) {
    return (*ref.strides)[ref.dims[x]] > (*ref.strides)[ref.dims[y]];
  });
  std::vector<Collapsed> result;
  for (const Member& member : members) {
    auto stride = [&](int64_t p) { return (*member.strides)[member.dims[p]]; };
    auto size = [&](int64_t p) { return member.shape->dimensions(member.dims[p]); };
    for (size_t i = 0; i + 1 < order.size(); ++i) {
      if (stride(order[i]) == stride(order[i + 1]) * size(order[i + 1])) continue;
      std::vector<int64_t> dims, sizes, strides;
      for (int64_t p : order) {
        dims.push_back(member.dims[p]);
        sizes.push_back(size(p));
        strides.push_back(stride(p));
      }
      return Unimplemented(
          dot, absl::StrCat(member.array, " ", group,
                            " dimensions do not collapse to one stride: dimensions ",
                            absl::StrJoin(dims, ","), " (sizes ", absl::StrJoin(sizes, ","),
                            ") have strides ", absl::StrJoin(strides, ",")));
    }
    result.push_back(Collapsed{extent, order.empty() ? 0 : stride(order.back())});
  }
  return result;
}

// The batch group in lhs, rhs and the result (members[0..2]): its
// dimensions of size > 1 in the order of decreasing stride in lhs, adjacent
// ones merged where they collapse in all three arrays.  Unimplemented when
// more than DotShape::kMaxBatchDimensions are left.
absl::StatusOr<std::vector<DotShape::BatchDimension>> SplitBatch(
    const HloInstruction& dot, const std::vector<Member>& members) {
  const Member& ref = members[0];
  std::vector<int64_t> order;  // positions of the dimensions of size > 1
  for (int64_t p = 0; p < static_cast<int64_t>(ref.dims.size()); ++p) {
    if (ref.shape->dimensions(ref.dims[p]) != 1) order.push_back(p);
  }
  std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) {
    return (*ref.strides)[ref.dims[x]] > (*ref.strides)[ref.dims[y]];
  });
  auto stride = [&](int member, int64_t p) {
    return (*members[member].strides)[members[member].dims[p]];
  };
  std::vector<DotShape::BatchDimension> result;
  for (int64_t p : order) {
    const int64_t size = ref.shape->dimensions(ref.dims[p]);
    DotShape::BatchDimension dim;
    dim.size = size;
    dim.lhs_stride = stride(0, p);
    dim.rhs_stride = stride(1, p);
    dim.out_stride = stride(2, p);
    if (!result.empty()) {
      DotShape::BatchDimension& outer = result.back();
      if (outer.lhs_stride == dim.lhs_stride * size &&
          outer.rhs_stride == dim.rhs_stride * size &&
          outer.out_stride == dim.out_stride * size) {
        outer.size *= size;
        outer.lhs_stride = dim.lhs_stride;
        outer.rhs_stride = dim.rhs_stride;
        outer.out_stride = dim.out_stride;
        continue;
      }
    }
    result.push_back(dim);
  }
  if (static_cast<int64_t>(result.size()) > DotShape::kMaxBatchDimensions) {
    std::vector<std::string> arrays;
    for (int m = 0; m < 3; ++m) {
      std::vector<int64_t> dims, strides;
      for (int64_t p : order) {
        dims.push_back(members[m].dims[p]);
        strides.push_back(stride(m, p));
      }
      arrays.push_back(absl::StrCat(members[m].array, " dimensions ", absl::StrJoin(dims, ","),
                                    " strides ", absl::StrJoin(strides, ",")));
    }
    std::vector<int64_t> sizes;
    for (int64_t p : order) sizes.push_back(ref.shape->dimensions(ref.dims[p]));
    return Unimplemented(
        dot, absl::StrCat("batch dimensions do not collapse to ", DotShape::kMaxBatchDimensions,
                          " or fewer strided dimensions (", result.size(), "): sizes ",
                          absl::StrJoin(sizes, ","), "; ", absl::StrJoin(arrays, "; ")));
  }
  return result;
}

// How a matrix of rows x cols (collapsed groups) is stored: row-major with
// row stride `ld` when the columns have stride 1, else transposed (cols x
// rows) with row stride `ld` when the rows have stride 1.  A group of extent
// 1 fits either way.
struct Orientation {
  bool transposed = false;
  int64_t ld = 0;
};
std::optional<Orientation> Orient(const Collapsed& rows, const Collapsed& cols) {
  if (cols.extent == 1 || cols.stride == 1) {
    return Orientation{false, rows.extent > 1 ? rows.stride : cols.extent};
  }
  if (rows.extent == 1 || rows.stride == 1) return Orientation{true, cols.stride};
  return std::nullopt;
}

}  // namespace

absl::StatusOr<DotShape> PlanDot(const HloInstruction& dot, const Shape* result_shape) {
  if (dot.opcode() != HloOpcode::kDot) {
    return absl::InvalidArgumentError(absl::StrCat(dot.name(), " is not a dot"));
  }
  if (dot.operand_count() != 2 || !dot.attrs().dot_dimension_numbers.has_value()) {
    return absl::InvalidArgumentError(
        absl::StrCat("dot ", dot.name(), " needs two operands and dimension numbers"));
  }
  const Shape& ls = dot.operand(0)->shape();
  const Shape& rs = dot.operand(1)->shape();
  if (result_shape != nullptr &&
      (result_shape->dimensions() != dot.shape().dimensions() ||
       result_shape->element_type() != dot.shape().element_type())) {
    return absl::InvalidArgumentError(absl::StrCat("dot ", dot.name(), ": result shape ",
                                                   result_shape->ToString(), " is not its own"));
  }
  const Shape& os = result_shape != nullptr ? *result_shape : dot.shape();
  if (!ls.IsArray() || !rs.IsArray() || !os.IsArray()) {
    return absl::InvalidArgumentError(absl::StrCat("dot ", dot.name(), " is not on arrays"));
  }
  if (!ls.is_static() || !rs.is_static() || !os.is_static()) {
    return Unimplemented(dot, "dynamic dimensions");
  }
  if (ls.element_type() != rs.element_type()) {
    return Unimplemented(dot, absl::StrCat("mixed operand types ",
                                           PrimitiveTypeName(ls.element_type()), " and ",
                                           PrimitiveTypeName(rs.element_type())));
  }
  DotShape plan;
  plan.type = ls.element_type();
  plan.output_type = os.element_type();
  if (!IsSupportedPair(plan.type, plan.output_type)) {
    return Unimplemented(dot, absl::StrCat(PrimitiveTypeName(plan.type), " operands into ",
                                           PrimitiveTypeName(plan.output_type)));
  }

  const DotDimensionNumbers& dnums = dot.dot_dimension_numbers();
  const int64_t nb = dnums.lhs_batch_dimensions.size();
  const int64_t nc = dnums.lhs_contracting_dimensions.size();
  if (static_cast<int64_t>(dnums.rhs_batch_dimensions.size()) != nb ||
      static_cast<int64_t>(dnums.rhs_contracting_dimensions.size()) != nc) {
    return absl::InvalidArgumentError(
        absl::StrCat("dot ", dot.name(), ": unpaired batch or contracting dimensions"));
  }
  // Tags of each operand's logical dimensions.
  auto tag_operand = [&](const Shape& shape, const std::vector<int64_t>& batch,
                         const std::vector<int64_t>& contracting,
                         Role free) -> absl::StatusOr<std::vector<Tag>> {
    std::vector<Tag> tags(shape.rank(), Tag{free, -1});
    std::vector<bool> used(shape.rank(), false);
    auto mark = [&](int64_t d, Role role, int64_t id) {
      if (d < 0 || d >= shape.rank() || used[d]) return false;
      used[d] = true;
      tags[d] = Tag{role, id};
      return true;
    };
    for (int64_t i = 0; i < nb; ++i) {
      if (!mark(batch[i], Role::kBatch, i)) {
        return absl::InvalidArgumentError(
            absl::StrCat("dot ", dot.name(), ": bad batch dimension ", batch[i]));
      }
    }
    for (int64_t i = 0; i < nc; ++i) {
      if (!mark(contracting[i], Role::kContracting, i)) {
        return absl::InvalidArgumentError(
            absl::StrCat("dot ", dot.name(), ": bad contracting dimension ", contracting[i]));
      }
    }
    for (int64_t d = 0; d < shape.rank(); ++d) {
      if (!used[d]) tags[d].id = d;
    }
    return tags;
  };
  auto lhs_tags_or = tag_operand(ls, dnums.lhs_batch_dimensions,
                                 dnums.lhs_contracting_dimensions, Role::kLhsFree);
  if (!lhs_tags_or.ok()) return lhs_tags_or.status();
  auto rhs_tags_or = tag_operand(rs, dnums.rhs_batch_dimensions,
                                 dnums.rhs_contracting_dimensions, Role::kRhsFree);
  if (!rhs_tags_or.ok()) return rhs_tags_or.status();
  const std::vector<Tag>& lhs_tags = *lhs_tags_or;
  const std::vector<Tag>& rhs_tags = *rhs_tags_or;

  // The result's logical dimensions: batch, lhs free, rhs free; and sizes.
  std::vector<int64_t> out_dims;
  plan.batch = plan.m = plan.n = plan.k = 1;
  for (int64_t i = 0; i < nb; ++i) {
    const int64_t size = ls.dimensions(dnums.lhs_batch_dimensions[i]);
    if (size != rs.dimensions(dnums.rhs_batch_dimensions[i])) {
      return absl::InvalidArgumentError(
          absl::StrCat("dot ", dot.name(), ": batch dimension ", i, " sizes differ"));
    }
    out_dims.push_back(size);
    plan.batch *= size;
  }
  for (int64_t i = 0; i < nc; ++i) {
    const int64_t size = ls.dimensions(dnums.lhs_contracting_dimensions[i]);
    if (size != rs.dimensions(dnums.rhs_contracting_dimensions[i])) {
      return absl::InvalidArgumentError(
          absl::StrCat("dot ", dot.name(), ": contracting dimension ", i, " sizes differ"));
    }
    plan.k *= size;
  }
  for (int64_t d = 0; d < ls.rank(); ++d) {
    if (lhs_tags[d].role != Role::kLhsFree) continue;
    out_dims.push_back(ls.dimensions(d));
    plan.m *= ls.dimensions(d);
  }
  for (int64_t d = 0; d < rs.rank(); ++d) {
    if (rhs_tags[d].role != Role::kRhsFree) continue;
    out_dims.push_back(rs.dimensions(d));
    plan.n *= rs.dimensions(d);
  }
  if (out_dims != os.dimensions()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "dot ", dot.name(), ": result ", os.ToString(), " does not match its operands ",
        ls.ToString(), " and ", rs.ToString()));
  }

  // Empty results, and empty contractions (a zero fill), do not depend on
  // any layout.
  if (plan.batch * plan.m * plan.n == 0 || plan.k == 0) {
    const int64_t count = plan.batch * plan.m * plan.n;
    plan.batch = 1;
    plan.m = count;
    plan.n = 1;
    return plan;
  }

  // Each group collapsed in each array holding it.
  auto lhs_strides = PhysicalStrides(dot, ls, "lhs");
  if (!lhs_strides.ok()) return lhs_strides.status();
  auto rhs_strides = PhysicalStrides(dot, rs, "rhs");
  if (!rhs_strides.ok()) return rhs_strides.status();
  auto out_strides = PhysicalStrides(dot, os, "result");
  if (!out_strides.ok()) return out_strides.status();
  Member lhs{"lhs", &ls, &*lhs_strides, {}};
  Member rhs{"rhs", &rs, &*rhs_strides, {}};
  Member out{"result", &os, &*out_strides, {}};
  auto with = [](const Member& member, std::vector<int64_t> dims) {
    Member result = member;
    result.dims = std::move(dims);
    return result;
  };
  std::vector<int64_t> out_batch, lhs_free, out_lhs_free, rhs_free, out_rhs_free;
  for (int64_t i = 0; i < nb; ++i) out_batch.push_back(i);
  for (int64_t d = 0; d < ls.rank(); ++d) {
    if (lhs_tags[d].role != Role::kLhsFree) continue;
    lhs_free.push_back(d);
    out_lhs_free.push_back(nb + static_cast<int64_t>(out_lhs_free.size()));
  }
  for (int64_t d = 0; d < rs.rank(); ++d) {
    if (rhs_tags[d].role != Role::kRhsFree) continue;
    rhs_free.push_back(d);
    out_rhs_free.push_back(nb + static_cast<int64_t>(lhs_free.size() + out_rhs_free.size()));
  }
  auto batch = SplitBatch(dot, {with(lhs, dnums.lhs_batch_dimensions),
                                with(rhs, dnums.rhs_batch_dimensions), with(out, out_batch)});
  if (!batch.ok()) return batch.status();
  auto contracting = CollapseGroup(dot, "contracting",
                                   {with(lhs, dnums.lhs_contracting_dimensions),
                                    with(rhs, dnums.rhs_contracting_dimensions)});
  if (!contracting.ok()) return contracting.status();
  auto lfree = CollapseGroup(dot, "lhs-free", {with(lhs, lhs_free), with(out, out_lhs_free)});
  if (!lfree.ok()) return lfree.status();
  auto rfree = CollapseGroup(dot, "rhs-free", {with(rhs, rhs_free), with(out, out_rhs_free)});
  if (!rfree.ok()) return rfree.status();

  // Each matrix needs a unit-stride group.
  auto no_unit = [&](absl::string_view array, absl::string_view rows, const Collapsed& r,
                     absl::string_view cols, const Collapsed& c) {
    return Unimplemented(dot, absl::StrCat(array, " has no unit-stride dimension (", rows,
                                           ": ", r.extent, " elements ", r.stride,
                                           " apart; ", cols, ": ", c.extent, " elements ",
                                           c.stride, " apart)"));
  };
  std::optional<Orientation> lhs_o = Orient((*lfree)[0], (*contracting)[0]);
  if (!lhs_o) return no_unit("lhs", "m", (*lfree)[0], "k", (*contracting)[0]);
  std::optional<Orientation> rhs_o = Orient((*contracting)[1], (*rfree)[0]);
  if (!rhs_o) return no_unit("rhs", "k", (*contracting)[1], "n", (*rfree)[0]);
  std::optional<Orientation> out_o = Orient((*lfree)[1], (*rfree)[1]);
  if (!out_o) return no_unit("result", "m", (*lfree)[1], "n", (*rfree)[1]);
  plan.lhs_transposed = lhs_o->transposed;
  plan.rhs_transposed = rhs_o->transposed;
  plan.out_transposed = out_o->transposed;
  // Strides equal to the dense ones stay 0 (dense).
  auto set = [](int64_t* field, int64_t value, int64_t dense) {
    *field = value == dense ? 0 : value;
  };
  set(&plan.lda, lhs_o->ld, plan.lhs_transposed ? plan.m : plan.k);
  set(&plan.ldb, rhs_o->ld, plan.rhs_transposed ? plan.k : plan.n);
  set(&plan.ldc, out_o->ld, plan.out_transposed ? plan.m : plan.n);
  if (batch->size() == 1) {
    // One strided batch dimension.
    set(&plan.lhs_batch_stride, (*batch)[0].lhs_stride, plan.m * plan.k);
    set(&plan.rhs_batch_stride, (*batch)[0].rhs_stride, plan.k * plan.n);
    set(&plan.out_batch_stride, (*batch)[0].out_stride, plan.m * plan.n);
  } else if (batch->size() > 1) {
    plan.batch_dim_count = static_cast<int>(batch->size());
    for (size_t d = 0; d < batch->size(); ++d) plan.batch_dims[d] = (*batch)[d];
  }
  return plan;
}

}  // namespace cpu
}  // namespace tessera
