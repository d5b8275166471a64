#include "backends/cpu/conv_thunk.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <mutex>
#include <numeric>
#include <optional>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "backends/cpu/onednn_conv.h"
#include "backends/cpu/parallel_rows.h"
#include "backends/cpu/thread_scratch.h"
#include "backends/cpu/window_conv.h"
#include "hlo/ir/hlo_instruction.h"
#include "hlo/ir/hlo_opcode.h"
#include "hlo/ir/shape.h"
#include "hlo/ir/status_macros.h"
#include "runtime/thread_pool.h"

namespace tessera {
namespace cpu {
namespace {

absl::Status Unimplemented(const HloInstruction& conv, absl::string_view why) {
  return absl::UnimplementedError(absl::StrCat("convolution ", conv.name(), ": ", why));
}

// Element strides of each dimension of `shape` per its layout (row-major
// without one).
absl::StatusOr<std::vector<int64_t>> ElementStrides(const HloInstruction& conv,
                                                    const Shape& shape, absl::string_view what,
                                                    int64_t element_bits) {
  const int64_t rank = shape.rank();
  for (int64_t d = 0; d < rank; ++d) {
    if (shape.is_dynamic_dimension(d)) {
      return Unimplemented(conv, absl::StrCat(what, " has a dynamic dimension"));
    }
  }
  std::vector<int64_t> order;  // minor to major
  if (!shape.has_layout()) {
    for (int64_t d = rank - 1; d >= 0; --d) order.push_back(d);
  } else {
    const Layout& layout = shape.layout();
    if (!layout.tiles.empty()) {
      return Unimplemented(conv, absl::StrCat(what, " has a tiled layout ", layout.ToString()));
    }
    if (layout.element_size_in_bits != 0 && layout.element_size_in_bits != element_bits) {
      return Unimplemented(conv, absl::StrCat(what, " has packed elements ", layout.ToString()));
    }
    order = layout.minor_to_major;
    std::vector<bool> seen(rank, false);
    if (static_cast<int64_t>(order.size()) != rank) {
      return absl::InvalidArgumentError(
          absl::StrCat("convolution ", conv.name(), ": ", what, " layout of the wrong rank"));
    }
    for (int64_t d : order) {
      if (d < 0 || d >= rank || seen[d]) {
        return absl::InvalidArgumentError(
            absl::StrCat("convolution ", conv.name(), ": ", what, " layout is no permutation"));
      }
      seen[d] = true;
    }
  }
  std::vector<int64_t> strides(rank, 0);
  int64_t stride = 1;
  for (int64_t d : order) {
    strides[d] = stride;
    stride *= shape.dimensions(d);
  }
  return strides;
}

// True when every (size, stride) pair with size > 1 has the expected stride.
bool StridesMatch(const std::vector<std::array<int64_t, 3>>& dims) {
  for (const auto& [size, stride, expected] : dims) {
    if (size > 1 && stride != expected) return false;
  }
  return true;
}

// Scratch of the calling thread (thread_scratch.h, whose slots list this
// file's: slot 1 a chunk's rows, apart from the slot-0 buffer that holds
// the packed kernel meanwhile).
template <typename T, int kSlot = 0>
T* Scratch(int64_t elements) {
  return ThreadScratch<T, kSlot>(elements);
}

// Integer types an integer convolution takes, as operands or result.
bool IsConvInteger(PrimitiveType type) {
  return type == S8 || type == U8 || type == S16 || type == U16 || type == S32 || type == U32;
}

// f(T{}) for the C++ type of an 8- or 16-bit IsConvInteger type.
template <typename F>
void WithNarrowInteger(PrimitiveType type, F&& f) {
  switch (type) {
    case S8: return f(int8_t{});
    case U8: return f(uint8_t{});
    case S16: return f(int16_t{});
    default: return f(uint16_t{});
  }
}

// out = in (8 or 16-bit integers of `from`) sign- or zero-extended.
void WidenIntegers(PrimitiveType from, const void* in, int32_t* out, int64_t count,
                   runtime::ThreadPool* pool) {
  WithNarrowInteger(from, [&](auto zero) {
    const auto* src = static_cast<const decltype(zero)*>(in);
    ParallelRows(pool, count, 1 << 16, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) out[i] = src[i];
    });
  });
}

// out (8 or 16-bit integers of `to`) = the low bits of in.
void NarrowIntegers(const int32_t* in, PrimitiveType to, void* out, int64_t count,
                    runtime::ThreadPool* pool) {
  WithNarrowInteger(to, [&](auto zero) {
    using T = decltype(zero);
    T* dst = static_cast<T*>(out);
    ParallelRows(pool, count, 1 << 16, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) dst[i] = static_cast<T>(in[i]);
    });
  });
}

// im2col for 2-D convolutions without lhs dilation, reversal or groups (the
// common NHWC/NCHW case): row m = (n, oh, ow), column (kh, kw, c).
// Rows [begin, end) of the plain 2-D im2col matrix, row `begin` at `col`.
template <typename T>
void Im2Col2DRows(const ConvPlan& p, const T* in, T* col, int64_t begin, int64_t end) {
  const int64_t K = p.k(), C = p.in_features;
  const int64_t in_h = p.in_size[0], in_w = p.in_size[1];
  const int64_t kernel_h = p.kernel_size[0], kernel_w = p.kernel_size[1];
  const int64_t out_w = p.out_size[1], ohw = p.out_size[0] * out_w;
  const int64_t stride_h = p.stride[0], stride_w = p.stride[1];
  const int64_t pad_h = p.pad[0], pad_w = p.pad[1];
  const int64_t dilation_h = p.dilation[0], dilation_w = p.dilation[1];
  const int64_t in_stride_h = p.in_stride_s[0], in_stride_w = p.in_stride_s[1];
  {
    for (int64_t m = begin; m < end; ++m) {
      const int64_t n = m / ohw;
      const int64_t oh = (m % ohw) / out_w;
      const int64_t ow = m % out_w;
      T* row = col + (m - begin) * K;
      const T* base = in + n * p.in_stride_n;
      for (int64_t kh = 0; kh < kernel_h; ++kh) {
        const int64_t ih = oh * stride_h - pad_h + kh * dilation_h;
        for (int64_t kw = 0; kw < kernel_w; ++kw, row += C) {
          const int64_t iw = ow * stride_w - pad_w + kw * dilation_w;
          if (ih < 0 || ih >= in_h || iw < 0 || iw >= in_w) {
            std::memset(row, 0, C * sizeof(T));
            continue;
          }
          const T* src = base + ih * in_stride_h + iw * in_stride_w;
          if (p.in_stride_c == 1) {
            std::memcpy(row, src, C * sizeof(T));
          } else {
            for (int64_t c = 0; c < C; ++c) row[c] = src[c * p.in_stride_c];
          }
        }
      }
    }
  }
}

// The whole plain 2-D im2col matrix, rows split over the pool.
template <typename T>
void Im2Col2D(const ConvPlan& p, const T* in, T* col, runtime::ThreadPool* pool) {
  ParallelRows(pool, p.m(), 16, [&](int64_t begin, int64_t end) {
    Im2Col2DRows(p, in, col + begin * p.k(), begin, end);
  });
}

// im2col for everything else: `rows` = in_batch * OS rows m = (n, output
// position), each G * KS * Cg wide: column (g, kernel tap, c) holds input
// feature g * Cg + c at the input position the tap reads (plan.taps), or
// zero.
template <typename T>
void Im2ColGeneralRows(const ConvPlan& p, const T* in, T* col, int64_t begin, int64_t end) {
  const int S = p.spatial();
  const int64_t OS = p.out_spatial(), KS = p.kernel_elements();
  const int64_t G = p.feature_groups, Cg = p.in_features / G;
  const int64_t width = G * KS * Cg;
  {
    const int64_t* tap[ConvPlan::kMaxSpatialDimensions];
    int64_t kidx[ConvPlan::kMaxSpatialDimensions];
    for (int64_t m = begin; m < end; ++m) {
      const int64_t n = m / OS;
      int64_t r = m % OS;
      for (int i = S - 1; i >= 0; --i) {
        const int64_t o = r % p.out_size[i];
        r /= p.out_size[i];
        tap[i] = p.taps.data() + p.tap_begin[i] + o * p.kernel_size[i];
      }
      T* row = col + (m - begin) * width;
      const T* base = in + n * p.in_stride_n;
      for (int64_t g = 0; g < G; ++g) {
        const T* gbase = base + g * Cg * p.in_stride_c;
        for (int i = 0; i < S; ++i) kidx[i] = 0;
        for (int64_t kp = 0; kp < KS; ++kp, row += Cg) {
          int64_t offset = 0;
          bool valid = true;
          for (int i = 0; i < S; ++i) {
            const int64_t t = tap[i][kidx[i]];
            if (t < 0) {
              valid = false;
              break;
            }
            offset += t;
          }
          for (int i = S - 1; i >= 0; --i) {  // next tap, row-major
            if (++kidx[i] < p.kernel_size[i]) break;
            kidx[i] = 0;
          }
          if (!valid) {
            std::memset(row, 0, Cg * sizeof(T));
            continue;
          }
          const T* src = gbase + offset;
          if (p.in_stride_c == 1) {
            std::memcpy(row, src, Cg * sizeof(T));
          } else {
            for (int64_t c = 0; c < Cg; ++c) row[c] = src[c * p.in_stride_c];
          }
        }
      }
    }
  }
}

template <typename T>
void Im2ColGeneral(const ConvPlan& p, const T* in, T* col, int64_t rows,
                   runtime::ThreadPool* pool) {
  const int64_t width = p.in_features * p.kernel_elements();
  ParallelRows(pool, rows, 16, [&](int64_t begin, int64_t end) {
    Im2ColGeneralRows(p, in, col + begin * width, begin, end);
  });
}

// Offsets of output row m = (n, output position) in the output buffer.
int64_t OutputOffset(const ConvPlan& p, int64_t m, int64_t OS) {
  const int64_t n = m / OS;
  int64_t r = m % OS;
  int64_t offset = n * p.out_stride_n;
  for (int i = p.spatial() - 1; i >= 0; --i) {
    offset += (r % p.out_size[i]) * p.out_stride_s[i];
    r /= p.out_size[i];
  }
  return offset;
}

// The kernel as [K, O] row-major per group (packed[g][(kernel tap, c)][o]
// for output feature g * Og + o), for kernels in no layout the GEMM reads
// in place.
template <typename T>
void PackKernel(const ConvPlan& p, const T* ker, T* packed) {
  const int S = p.spatial();
  const int64_t KS = p.kernel_elements();
  const int64_t groups = p.groups(), Og = p.out_features / groups;
  const int64_t Cg = p.in_features / p.feature_groups;
  int64_t kidx[ConvPlan::kMaxSpatialDimensions] = {};
  for (int64_t kp = 0; kp < KS; ++kp) {
    int64_t tap_offset = 0;
    for (int i = 0; i < S; ++i) tap_offset += kidx[i] * p.k_stride_s[i];
    for (int64_t g = 0; g < groups; ++g) {
      for (int64_t c = 0; c < Cg; ++c) {
        T* dst = packed + (g * KS + kp) * Cg * Og + c * Og;
        const T* src = ker + tap_offset + c * p.k_stride_i + g * Og * p.k_stride_o;
        for (int64_t o = 0; o < Og; ++o) dst[o] = src[o * p.k_stride_o];
      }
    }
    for (int i = S - 1; i >= 0; --i) {
      if (++kidx[i] < p.kernel_size[i]) break;
      kidx[i] = 0;
    }
  }
}

// Output rows [begin, end) of the [M, O] product `prod` (row `begin`
// first) written into the output's layout.
template <typename T>
void ScatterRows(const ConvPlan& p, const T* prod, T* out, int64_t begin, int64_t end) {
  const int64_t O = p.out_features, OS = p.out_spatial();
  for (int64_t m = begin; m < end; ++m) {
    T* dst = out + OutputOffset(p, m, OS);
    const T* src = prod + (m - begin) * O;
    for (int64_t o = 0; o < O; ++o) dst[o * p.out_stride_o] = src[o];
  }
}

// Bytes of im2col rows a chunk gathers before its GEMM: few enough to stay
// in the cache (a core's L2 and its share of L3) while the GEMM packs and
// reads them, many enough that the GEMM's packing of the kernel, once per
// chunk, stays a small part of its work (at 512 KiB it was 8% of a
// 56x56x64 3x3 convolution; at 2 MiB, 4 chunks instead of 14, 2.5%).
// Materializing the whole matrix instead (29 MB for a batch of 4) made a
// convolution memory-bound.
constexpr int64_t kChunkBytes = int64_t{2} << 20;

// One GEMM over all rows (no groups): the rows in chunks over the pool,
// each gathered into the thread's scratch and multiplied at once.
template <typename T, typename Out>
absl::Status RunChunked(const ConvPlan& p, const T* in, const T* rhs, Out* out,
                        runtime::ThreadPool* pool) {
  const int64_t M = p.m(), K = p.k(), O = p.out_features;
  const int64_t threads = pool != nullptr ? pool->parallelism() : 1;
  // Chunks of about kChunkBytes, at least two per thread, and a multiple
  // of the threads (7 chunks on 2 threads left one idle for a seventh of
  // the time: 0.63 -> 0.71 ms on the 56x56x64 convolution).
  const int64_t bytes = M * K * static_cast<int64_t>(sizeof(T));
  int64_t wanted = std::max<int64_t>(2 * threads, (bytes + kChunkBytes - 1) / kChunkBytes);
  wanted = (wanted + threads - 1) / threads * threads;
  const int64_t rows = std::max<int64_t>(16, ((M + wanted - 1) / wanted + 15) / 16 * 16);
  const int64_t chunks = (M + rows - 1) / rows;
  std::atomic<bool> failed{false};
  absl::Status first_error;
  std::mutex error_mutex;
  auto run = [&](int64_t begin, int64_t end) {
    T* col = Scratch<T, 1>(rows * K);
    Out* prod = p.output_direct ? nullptr : Scratch<Out, 3>(rows * O);
    for (int64_t chunk = begin; chunk < end && !failed.load(); ++chunk) {
      const int64_t m0 = chunk * rows, m1 = std::min(M, m0 + rows);
      if (p.simple_2d) {
        Im2Col2DRows(p, in, col, m0, m1);
      } else {
        Im2ColGeneralRows(p, in, col, m0, m1);
      }
      DotShape shape = p.gemm;
      shape.m = m1 - m0;
      Out* target = p.output_direct ? out + m0 * O : prod;
      absl::Status status = RunDot(shape, col, rhs, target, /*pool=*/nullptr);
      if (!status.ok()) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!failed.exchange(true)) first_error = status;
        return;
      }
      if (!p.output_direct) ScatterRows(p, prod, out, m0, m1);
    }
  };
  if (pool == nullptr || chunks == 1) {
    run(0, chunks);
  } else {
    pool->ParallelFor(chunks, 1, run);
  }
  return first_error;
}

// Input and kernel of type T, sums and output of type Out.
template <typename T, typename Out = T>
absl::Status Run(const ConvPlan& p, const void* input, const void* kernel, void* output,
                 runtime::ThreadPool* pool) {
  const T* in = static_cast<const T*>(input);
  const T* ker = static_cast<const T*>(kernel);
  Out* out = static_cast<Out*>(output);
  const int64_t M = p.m(), K = p.k(), O = p.out_features;
  const int64_t G = p.feature_groups;
  if (M == 0 || O == 0) return absl::OkStatus();
  const int64_t packed_elems = p.kernel_use == ConvPlan::KernelUse::kPacked ? K * O : 0;
  const bool chunked = p.groups() == 1 && p.gemm.batch == 1;
  const int64_t OS = p.out_spatial();
  const int64_t col_rows = p.in_batch * OS;  // batch groups: all input batches
  const int64_t col_elems = chunked ? 0 : col_rows * G * K;
  const int64_t prod_elems = p.output_direct || chunked ? 0 : M * O;
  T* scratch = Scratch<T>(std::max<int64_t>(1, packed_elems + col_elems));
  T* packed = scratch;
  T* col = packed + packed_elems;
  Out* prod = prod_elems > 0 ? Scratch<Out, 3>(prod_elems) : nullptr;

  const T* rhs = ker;
  if (p.kernel_use == ConvPlan::KernelUse::kPacked) {
    PackKernel(p, ker, packed);
    rhs = packed;
  }
  if (chunked) return RunChunked(p, in, rhs, out, pool);

  if (p.simple_2d) {
    Im2Col2D<T>(p, in, col, pool);
  } else {
    Im2ColGeneral<T>(p, in, col, col_rows, pool);
  }
  Out* gemm_out = p.output_direct ? out : prod;
  absl::Status status = RunDot(p.gemm, col, rhs, gemm_out, pool);
  if (!status.ok()) return status;
  if (!p.output_direct) {
    ParallelRows(pool, M, 16, [&](int64_t begin, int64_t end) {
      ScatterRows(p, prod + begin * O, out, begin, end);
    });
  }
  return absl::OkStatus();
}

int64_t Product(const std::vector<int64_t>& v) {
  int64_t product = 1;
  for (int64_t x : v) product *= x;
  return product;
}

std::string Sizes(const std::vector<int64_t>& v) {
  return v.empty() ? std::string("()") : absl::StrJoin(v, "x");
}

void ComputeTaps(ConvPlan& p) {
  p.taps.clear();
  p.tap_begin.clear();
  for (int i = 0; i < p.spatial(); ++i) {
    p.tap_begin.push_back(static_cast<int64_t>(p.taps.size()));
    for (int64_t o = 0; o < p.out_size[i]; ++o) {
      for (int64_t k = 0; k < p.kernel_size[i]; ++k) {
        const int64_t window_pos = p.reversal[i] ? p.kernel_size[i] - 1 - k : k;
        const int64_t pos = o * p.stride[i] - p.pad[i] + window_pos * p.dilation[i];
        int64_t offset = -1;
        if (pos >= 0 && pos % p.lhs_dilation[i] == 0 && pos / p.lhs_dilation[i] < p.in_size[i]) {
          offset = pos / p.lhs_dilation[i] * p.in_stride_s[i];
        }
        p.taps.push_back(offset);
      }
    }
  }
}

// The plan's GEMM and how it reads and writes its buffers, from its
// geometry and strides (with oneDNN's convolution where it takes the plan,
// unless `try_onednn` is false).
absl::Status FinishPlan(ConvPlan& p, bool try_onednn = true) {
  const int S = p.spatial();
  const int64_t fg = p.feature_groups, bg = p.batch_groups;
  const int64_t Cg = p.in_features / fg;
  bool plain = S == 2 && fg == 1 && bg == 1;
  for (int i = 0; i < S; ++i) plain = plain && p.lhs_dilation[i] == 1 && !p.reversal[i];
  p.simple_2d = plain;

  const int64_t O = p.out_features, groups = p.groups(), Og = O / groups;
  const int64_t K = p.k(), M = p.m();
  // Kernel as [taps..., Cg, O] row-major (HWIO), or its transpose (OHWI).
  std::vector<std::array<int64_t, 3>> direct = {{O, p.k_stride_o, 1}, {Cg, p.k_stride_i, O}};
  std::vector<std::array<int64_t, 3>> transposed = {{Cg, p.k_stride_i, 1}};
  int64_t direct_stride = Cg * O, transposed_stride = Cg;
  for (int i = S - 1; i >= 0; --i) {
    direct.push_back({p.kernel_size[i], p.k_stride_s[i], direct_stride});
    transposed.push_back({p.kernel_size[i], p.k_stride_s[i], transposed_stride});
    direct_stride *= p.kernel_size[i];
    transposed_stride *= p.kernel_size[i];
  }
  transposed.push_back({O, p.k_stride_o, K});
  if (StridesMatch(direct)) {
    p.kernel_use = ConvPlan::KernelUse::kDirect;
  } else if (StridesMatch(transposed)) {
    p.kernel_use = ConvPlan::KernelUse::kTransposed;
  } else {
    p.kernel_use = ConvPlan::KernelUse::kPacked;
  }
  std::vector<std::array<int64_t, 3>> out_rows = {{O, p.out_stride_o, 1}};
  int64_t out_stride = O;
  for (int i = S - 1; i >= 0; --i) {
    out_rows.push_back({p.out_size[i], p.out_stride_s[i], out_stride});
    out_stride *= p.out_size[i];
  }
  out_rows.push_back({p.batch, p.out_stride_n, out_stride});
  p.output_direct = StridesMatch(out_rows);

  p.gemm.batch = groups;
  p.gemm.m = M;
  p.gemm.k = K;
  p.gemm.n = Og;
  p.gemm.rhs_transposed = p.kernel_use == ConvPlan::KernelUse::kTransposed;
  p.gemm.type = p.type;
  p.gemm.output_type = p.type == S8 ? S32 : p.type;
  if (groups > 1) {
    // lhs[g]: feature groups are column blocks of each im2col row; batch
    // groups are blocks of M rows.
    p.gemm.lda = fg * K;
    p.gemm.lhs_batch_stride = fg > 1 ? K : M * K;
    switch (p.kernel_use) {
      case ConvPlan::KernelUse::kDirect:
        p.gemm.ldb = O;
        p.gemm.rhs_batch_stride = Og;
        break;
      case ConvPlan::KernelUse::kTransposed:
        p.gemm.ldb = K;
        p.gemm.rhs_batch_stride = Og * K;
        break;
      case ConvPlan::KernelUse::kPacked:
        break;  // dense [groups][K][Og]
    }
    p.gemm.ldc = O;
    p.gemm.out_batch_stride = Og;
  }
  TS_RETURN_IF_ERROR(CheckDotShape(p.gemm));
  p.window_gemms = UsesWindowGemms(p);
  p.onednn = try_onednn && !p.window_gemms ? OneDnnConvolution::Create(p) : nullptr;
  return absl::OkStatus();
}

// Per spatial dimension i of an lhs-dilated convolution: output position o
// reads the holes of the dilation (zero) through every tap whose position
// o * stride - pad + window_pos * dilation is not a multiple of the lhs
// dilation s.  Whether it is depends only on o modulo P = s / gcd(stride,
// s), so the outputs o = r + P * j of one residue r read the input through
// one fixed set of taps, window positions w0 + q * t (q = s / gcd(dilation,
// s)), at input index j * (P * stride / s) + t * (q * dilation / s) +
// (r * stride - pad + w0 * dilation) / s: a convolution without lhs
// dilation on the kernel's taps of that set.  A stride-2 transposed
// convolution's 3x3 window becomes four of 2x2, 2x1, 1x2 and 1x1 taps: the
// im2col GEMM's K a quarter of the whole window's, most of which read
// zeros.
struct PhaseOfDimension {
  int64_t residue = 0, outputs = 0;               // r, and the count of j
  int64_t first_tap = 0, tap_step = 1, taps = 0;  // kernel taps first + step * t
  int64_t stride = 1, dilation = 1, pad = 0;      // of the phase's convolution
};

std::vector<PhaseOfDimension> PhasesOfDimension(const ConvPlan& p, int i) {
  const int64_t s = p.lhs_dilation[i], size = p.kernel_size[i];
  const int64_t period = s / std::gcd(p.stride[i], s);
  const int64_t q = s / std::gcd(p.dilation[i], s);
  std::vector<PhaseOfDimension> phases;
  for (int64_t r = 0; r < std::min(period, p.out_size[i]); ++r) {
    PhaseOfDimension d;
    d.residue = r;
    d.outputs = (p.out_size[i] - r + period - 1) / period;
    d.stride = period * p.stride[i] / s;
    d.dilation = q * p.dilation[i] / s;
    // The first window position reading the input (positions repeat
    // their residues modulo s every q).
    const int64_t base = r * p.stride[i] - p.pad[i];
    int64_t w0 = -1;
    for (int64_t w = 0; w < std::min(q, size) && w0 < 0; ++w) {
      if ((base + w * p.dilation[i]) % s == 0) w0 = w;  // also for negative multiples
    }
    if (w0 >= 0) {
      d.taps = (size - 1 - w0) / q + 1;
      d.pad = -((base + w0 * p.dilation[i]) / s);  // exact
      d.first_tap = p.reversal[i] ? size - 1 - w0 : w0;
      d.tap_step = p.reversal[i] ? -q : q;
    }
    phases.push_back(d);
  }
  return phases;
}

// Below this many flops a convolution is small: oneDNN runs it (or a
// phase of one) on the calling thread, and an lhs-dilated one runs as one
// GEMM over the whole window, not in phases, whose own costs (a kernel
// gathered, a GEMM or oneDNN call each) outweigh the zeros they skip (a
// 16x16x16 transposed convolution: 19 us whole, 35 us in phases; at 4.7
// MFLOP they break even, at 19 MFLOP phases take 0.08 ms against
// 0.11-0.17).
std::atomic<int64_t> small_flops{int64_t{1} << 22};

bool Small(const ConvPlan& p) { return p.flops() < small_flops.load(std::memory_order_relaxed); }

// The phases of a plan with lhs dilation, or nullopt: none, too small a
// convolution, or more than kMaxPhases (each phase is a GEMM of its own: a
// dilation far larger than the window leaves most of them empty).
std::optional<std::vector<ConvPhase>> PlanPhases(const ConvPlan& p) {
  constexpr int64_t kMaxPhases = 64;
  const int S = p.spatial();
  bool dilated = false;
  for (int i = 0; i < S; ++i) dilated |= p.lhs_dilation[i] != 1;
  if (!dilated || Small(p)) {
    return std::nullopt;
  }
  std::vector<std::vector<PhaseOfDimension>> per_dimension;
  int64_t count = 1;
  for (int i = 0; i < S; ++i) {
    // Not even built when one dimension alone has too many.
    const int64_t period = p.lhs_dilation[i] / std::gcd(p.stride[i], p.lhs_dilation[i]);
    if (std::min(period, p.out_size[i]) > kMaxPhases) return std::nullopt;
    per_dimension.push_back(PhasesOfDimension(p, i));
    count *= static_cast<int64_t>(per_dimension.back().size());
    if (count > kMaxPhases) return std::nullopt;
  }
  std::vector<ConvPhase> phases;
  std::vector<size_t> index(S, 0);
  for (int64_t n = 0; n < count; ++n) {
    ConvPhase phase;
    ConvPlan& sub = phase.plan;
    sub = p;
    sub.phases.clear();
    sub.onednn = nullptr;
    for (int i = 0; i < S; ++i) {
      const PhaseOfDimension& d = per_dimension[i][index[i]];
      phase.out_offset += d.residue * p.out_stride_s[i];
      phase.first_tap.push_back(d.first_tap);
      phase.tap_step.push_back(d.tap_step);
      sub.out_size[i] = d.outputs;
      const int64_t period = p.lhs_dilation[i] / std::gcd(p.stride[i], p.lhs_dilation[i]);
      sub.out_stride_s[i] = p.out_stride_s[i] * period;
      sub.kernel_size[i] = d.taps;
      sub.stride[i] = d.stride;
      sub.dilation[i] = d.dilation;
      sub.pad[i] = d.pad;
      sub.lhs_dilation[i] = 1;
      sub.reversal[i] = false;
    }
    for (int i = S - 1; i >= 0; --i) {  // next phase, row-major
      if (++index[i] < per_dimension[i].size()) break;
      index[i] = 0;
    }
    // The phase's kernel is gathered per run into a dense [taps..., Cg, O]
    // (HWIO) buffer.
    const int64_t Cg = p.in_features / p.feature_groups;
    sub.k_stride_o = 1;
    sub.k_stride_i = p.out_features;
    int64_t stride = Cg * p.out_features;
    for (int i = S - 1; i >= 0; --i) {
      sub.k_stride_s[i] = stride;
      stride *= sub.kernel_size[i];
    }
    sub.kernel_elements_total = stride;
    ComputeTaps(sub);
    if (sub.kernel_elements() > 0) {
      // oneDNN's convolution writes dense outputs only (strided ones run
      // its reference loops): a phase it takes writes [N, outputs..., O]
      // scratch, copied out after (the copies were about a tenth of perf's
      // samples for an 8x28x28x64 -> 8x56x56x64 transposed convolution).
      ConvPlan dense = sub;
      dense.out_stride_o = 1;
      int64_t out_stride = p.out_features;
      for (int i = S - 1; i >= 0; --i) {
        dense.out_stride_s[i] = out_stride;
        out_stride *= sub.out_size[i];
      }
      dense.out_stride_n = out_stride;
      dense.out_elements = out_stride * sub.batch;
      if (FinishPlan(dense).ok() && dense.onednn != nullptr) {
        phase.output_strides = sub.out_stride_s;
        sub = std::move(dense);
      } else if (!FinishPlan(sub, /*try_onednn=*/false).ok()) {
        return std::nullopt;
      }
    }
    phases.push_back(std::move(phase));
  }
  return phases;
}

}  // namespace

int64_t ConvPlan::out_spatial() const { return Product(out_size); }
int64_t ConvPlan::kernel_elements() const { return Product(kernel_size); }

std::string ConvPlan::ToString() const {
  std::string s = absl::StrCat(
      "conv ", PrimitiveTypeName(type), " N", batch, " C", in_features, " ", Sizes(in_size),
      " -> O", out_features, " ", Sizes(out_size), " window ", Sizes(kernel_size), " stride ",
      Sizes(stride), " pad ", Sizes(pad), " dilation ", Sizes(dilation));
  bool any_lhs_dilation = false, any_reversal = false;
  for (int64_t d : lhs_dilation) any_lhs_dilation |= d != 1;
  for (bool r : reversal) any_reversal |= r;
  if (any_lhs_dilation) absl::StrAppend(&s, " lhs_dilation ", Sizes(lhs_dilation));
  if (any_reversal) {
    std::vector<int64_t> flags(reversal.begin(), reversal.end());
    absl::StrAppend(&s, " reversal ", Sizes(flags));
  }
  if (!phases.empty()) absl::StrAppend(&s, " in ", phases.size(), " phases");
  if (window_gemms) absl::StrAppend(&s, " as window GEMMs");
  if (feature_groups != 1) absl::StrAppend(&s, " feature_groups ", feature_groups);
  if (batch_groups != 1) absl::StrAppend(&s, " batch_groups ", batch_groups);
  absl::StrAppend(&s, " kernel ",
                  kernel_use == KernelUse::kDirect       ? "direct"
                  : kernel_use == KernelUse::kTransposed ? "transposed"
                                                         : "packed",
                  output_direct ? " output direct" : " output scattered", " gemm ",
                  gemm.ToString());
  return s;
}

absl::StatusOr<ConvPlan> PlanConvolution(const HloInstruction& conv) {
  if (conv.opcode() != HloOpcode::kConvolution) return Unimplemented(conv, "not a convolution");
  if (conv.operand_count() != 2) return Unimplemented(conv, "not two operands");
  const HloAttributes& attrs = conv.attrs();
  if (!attrs.window.has_value() || !attrs.convolution_dimension_numbers.has_value()) {
    return Unimplemented(conv, "no window or dimension numbers");
  }
  auto invalid = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat("convolution ", conv.name(), ": ", why));
  };
  const int64_t fg = attrs.feature_group_count, bg = attrs.batch_group_count;
  if (fg < 1 || bg < 1) return invalid("feature_group_count or batch_group_count < 1");
  if (fg > 1 && bg > 1) {
    return Unimplemented(conv, "both feature_group_count and batch_group_count > 1");
  }
  const Shape& in = conv.operand(0)->shape();
  const Shape& ker = conv.operand(1)->shape();
  const Shape& out = conv.shape();
  if (!in.IsArray() || !ker.IsArray() || !out.IsArray()) return Unimplemented(conv, "non-array");
  const PrimitiveType operand_type = in.element_type(), output_type = out.element_type();
  const bool narrow_float =
      operand_type == F16 || operand_type == BF16 || IsFloat8Type(operand_type);
  const bool integer = IsConvInteger(operand_type) && IsConvInteger(output_type);
  if (ker.element_type() != operand_type ||
      (output_type != operand_type && !(narrow_float && output_type == F32) && !integer)) {
    return Unimplemented(
        conv, absl::StrCat("mixed element types ", PrimitiveTypeName(in.element_type()), ", ",
                           PrimitiveTypeName(ker.element_type()), " -> ",
                           PrimitiveTypeName(output_type)));
  }
  if (operand_type != F32 && operand_type != F64 && !narrow_float && !integer) {
    return Unimplemented(conv, absl::StrCat("element type ", PrimitiveTypeName(operand_type),
                                            " (floats and integers of 8 to 32 bits only)"));
  }
  // s8 into a 32-bit result (a quantized convolution) multiplies bytes
  // (RunDot's VNNI path); other integers are summed in s32.
  PrimitiveType type = operand_type == F64 ? F64 : F32;
  if (integer) type = operand_type == S8 && ByteWidth(output_type) == 4 ? S8 : S32;
  const int64_t element_bits = type == F64 ? 64 : 32;
  const Window& window = *attrs.window;
  const ConvolutionDimensionNumbers& dn = *attrs.convolution_dimension_numbers;
  const int S = static_cast<int>(dn.input_spatial_dimensions.size());
  if (in.rank() != S + 2 || ker.rank() != S + 2 || out.rank() != S + 2 ||
      static_cast<int>(window.dimensions.size()) != S ||
      static_cast<int>(dn.kernel_spatial_dimensions.size()) != S ||
      static_cast<int>(dn.output_spatial_dimensions.size()) != S) {
    return invalid("spatial dimension counts do not match the ranks");
  }
  if (S > ConvPlan::kMaxSpatialDimensions) {
    return Unimplemented(conv, absl::StrCat(S, " spatial dimensions (at most ",
                                            ConvPlan::kMaxSpatialDimensions, ")"));
  }
  {
    auto in_range = [&](int64_t d) { return d >= 0 && d < S + 2; };
    bool ok = in_range(dn.input_batch_dimension) && in_range(dn.input_feature_dimension) &&
              in_range(dn.kernel_input_feature_dimension) &&
              in_range(dn.kernel_output_feature_dimension) &&
              in_range(dn.output_batch_dimension) && in_range(dn.output_feature_dimension);
    for (int i = 0; i < S; ++i) {
      ok = ok && in_range(dn.input_spatial_dimensions[i]) &&
           in_range(dn.kernel_spatial_dimensions[i]) && in_range(dn.output_spatial_dimensions[i]);
    }
    if (!ok) return invalid("dimension numbers out of range");
  }
  for (const WindowDimension& w : window.dimensions) {
    if (w.stride < 1 || w.window_dilation < 1 || w.base_dilation < 1 || w.size < 1) {
      return Unimplemented(conv, "a non-positive window stride, dilation or size");
    }
  }
  absl::StatusOr<std::vector<int64_t>> in_strides =
      ElementStrides(conv, in, "input", element_bits);
  if (!in_strides.ok()) return in_strides.status();
  absl::StatusOr<std::vector<int64_t>> k_strides =
      ElementStrides(conv, ker, "kernel", element_bits);
  if (!k_strides.ok()) return k_strides.status();
  absl::StatusOr<std::vector<int64_t>> out_strides =
      ElementStrides(conv, out, "output", element_bits);
  if (!out_strides.ok()) return out_strides.status();
  const std::vector<int64_t>& is = *in_strides;
  const std::vector<int64_t>& ks = *k_strides;
  const std::vector<int64_t>& os = *out_strides;

  ConvPlan p;
  p.type = type;
  p.operand_type = operand_type;
  p.output_type = output_type;
  p.in_elements = in.ElementCount();
  p.kernel_elements_total = ker.ElementCount();
  p.out_elements = out.ElementCount();
  p.feature_groups = fg;
  p.batch_groups = bg;
  p.in_batch = in.dimensions(dn.input_batch_dimension);
  p.batch = out.dimensions(dn.output_batch_dimension);
  p.in_features = in.dimensions(dn.input_feature_dimension);
  p.out_features = ker.dimensions(dn.kernel_output_feature_dimension);
  const int64_t Cg = ker.dimensions(dn.kernel_input_feature_dimension);
  if (Cg * fg != p.in_features || p.out_features % fg != 0 || p.out_features % bg != 0 ||
      p.in_batch % bg != 0 || p.batch * bg != p.in_batch ||
      out.dimensions(dn.output_feature_dimension) != p.out_features) {
    return invalid("inconsistent dimension sizes");
  }
  for (int i = 0; i < S; ++i) {
    const WindowDimension& w = window.dimensions[i];
    p.in_size.push_back(in.dimensions(dn.input_spatial_dimensions[i]));
    p.kernel_size.push_back(ker.dimensions(dn.kernel_spatial_dimensions[i]));
    p.out_size.push_back(out.dimensions(dn.output_spatial_dimensions[i]));
    p.stride.push_back(w.stride);
    p.pad.push_back(w.padding_low);
    p.dilation.push_back(w.window_dilation);
    p.lhs_dilation.push_back(w.base_dilation);
    p.reversal.push_back(w.window_reversal);
    p.in_stride_s.push_back(is[dn.input_spatial_dimensions[i]]);
    p.k_stride_s.push_back(ks[dn.kernel_spatial_dimensions[i]]);
    p.out_stride_s.push_back(os[dn.output_spatial_dimensions[i]]);
    if (w.size != p.kernel_size[i]) return invalid("inconsistent dimension sizes");
    // The output's spatial sizes follow from the window.
    const int64_t dilated = p.in_size[i] == 0 ? 0 : (p.in_size[i] - 1) * w.base_dilation + 1;
    const int64_t padded = dilated + w.padding_low + w.padding_high;
    const int64_t extent = (w.size - 1) * w.window_dilation + 1;
    const int64_t expected = padded < extent ? 0 : (padded - extent) / w.stride + 1;
    if (expected != p.out_size[i]) {
      return invalid(absl::StrCat("output spatial size ", p.out_size[i], ", expected ", expected));
    }
  }
  p.in_stride_n = is[dn.input_batch_dimension];
  p.in_stride_c = is[dn.input_feature_dimension];
  p.k_stride_i = ks[dn.kernel_input_feature_dimension];
  p.k_stride_o = ks[dn.kernel_output_feature_dimension];
  p.out_stride_n = os[dn.output_batch_dimension];
  p.out_stride_o = os[dn.output_feature_dimension];
  ComputeTaps(p);
  if (absl::Status finished = FinishPlan(p); !finished.ok()) {
    return Unimplemented(conv, finished.message());
  }
  if (std::optional<std::vector<ConvPhase>> phases = PlanPhases(p); phases.has_value()) {
    p.phases = *std::move(phases);
  }
  return p;
}

namespace {
std::atomic<bool> use_im2col{false};
}  // namespace

void RunEpilogueOverBatch(const RowEpilogue& epilogue, int64_t batch, runtime::ThreadPool* pool) {
  if (pool == nullptr) {
    epilogue(0, batch);
    return;
  }
  pool->ParallelFor(batch, 1, [&](int64_t begin, int64_t end) { epilogue(begin, end); });
}

void SetUseIm2colForTesting(bool use) { use_im2col.store(use); }

void SetSmallConvolutionFlopsForTesting(int64_t flops) { small_flops.store(flops); }

namespace {

// The phase's kernel taps of `kernel` (elements of type T, the plan's) as
// the dense [taps..., Cg, O] buffer its plan reads.
template <typename T>
void GatherPhaseKernel(const ConvPlan& p, const ConvPhase& phase, const T* kernel, T* dense) {
  const ConvPlan& sub = phase.plan;
  const int S = p.spatial();
  const int64_t Cg = p.in_features / p.feature_groups, O = p.out_features;
  int64_t t[ConvPlan::kMaxSpatialDimensions] = {};
  for (int64_t tap = 0; tap < sub.kernel_elements(); ++tap) {
    const T* src = kernel;
    for (int i = 0; i < S; ++i) {
      src += (phase.first_tap[i] + phase.tap_step[i] * t[i]) * p.k_stride_s[i];
    }
    for (int64_t c = 0; c < Cg; ++c, dense += O) {
      const T* row = src + c * p.k_stride_i;
      if (p.k_stride_o == 1) {
        std::memcpy(dense, row, O * sizeof(T));
      } else {
        for (int64_t o = 0; o < O; ++o) dense[o] = row[o * p.k_stride_o];
      }
    }
    for (int i = S - 1; i >= 0; --i) {
      if (++t[i] < sub.kernel_size[i]) break;
      t[i] = 0;
    }
  }
}

// Zeros where `plan` (a phase whose outputs read no input) writes.
template <typename Out>
void ZeroOutput(const ConvPlan& plan, Out* out) {
  const int64_t OS = plan.out_spatial();
  for (int64_t m = 0; m < plan.m(); ++m) {
    Out* row = out + OutputOffset(plan, m, OS);
    for (int64_t o = 0; o < plan.out_features; ++o) row[o * plan.out_stride_o] = Out{};
  }
}

absl::Status RunPlan(const ConvPlan& p, const void* input, const void* kernel, void* output,
                     runtime::ThreadPool* pool, const RowEpilogue* epilogue);

// The dense [N, outputs..., O] result of a phase that ran into scratch,
// copied to its places in the output (`out` at the phase's offset).
template <typename Out>
void CopyPhaseOutput(const ConvPlan& p, const ConvPhase& phase, const Out* dense, Out* out,
                     runtime::ThreadPool* pool) {
  const ConvPlan& sub = phase.plan;
  const int64_t OS = sub.out_spatial(), O = p.out_features;
  ParallelRows(pool, sub.m(), 64, [&](int64_t begin, int64_t end) {
    for (int64_t m = begin; m < end; ++m) {
      int64_t r = m % OS;
      Out* dst = out + (m / OS) * p.out_stride_n;
      for (int i = p.spatial() - 1; i >= 0; --i) {
        dst += (r % sub.out_size[i]) * phase.output_strides[i];
        r /= sub.out_size[i];
      }
      const Out* src = dense + m * O;
      if (p.out_stride_o == 1) {
        std::memcpy(dst, src, O * sizeof(Out));
      } else {
        for (int64_t o = 0; o < O; ++o) dst[o * p.out_stride_o] = src[o];
      }
    }
  });
}

// A plan's phases in turn, each on its kernel taps gathered into this
// thread's scratch (slot 4), writing the output in place or through
// scratch (slot 5).
template <typename T, typename Out = T>
absl::Status RunPhases(const ConvPlan& p, const void* input, const void* kernel, void* output,
                       runtime::ThreadPool* pool) {
  int64_t largest_kernel = 1, largest_output = 0;
  for (const ConvPhase& phase : p.phases) {
    largest_kernel = std::max(largest_kernel, phase.plan.kernel_elements_total);
    if (!phase.output_strides.empty()) {
      largest_output = std::max(largest_output, phase.plan.out_elements);
    }
  }
  T* dense_kernel = Scratch<T, 4>(largest_kernel);
  Out* dense_output = largest_output > 0 ? Scratch<Out, 5>(largest_output) : nullptr;
  for (const ConvPhase& phase : p.phases) {
    Out* out = static_cast<Out*>(output) + phase.out_offset;
    if (phase.plan.kernel_elements() == 0) {
      ZeroOutput(phase.plan, out);
      continue;
    }
    // A small phase runs on this thread: waking the pool's threads for
    // each of a few tiny phases cost more than their work (a 16x16x16
    // transposed convolution: 19 us whole, 118 us in phases on the pool).
    runtime::ThreadPool* phase_pool = Small(phase.plan) ? nullptr : pool;
    GatherPhaseKernel(p, phase, static_cast<const T*>(kernel), dense_kernel);
    if (phase.output_strides.empty()) {
      TS_RETURN_IF_ERROR(RunPlan(phase.plan, input, dense_kernel, out, phase_pool, nullptr));
      continue;
    }
    TS_RETURN_IF_ERROR(RunPlan(phase.plan, input, dense_kernel, dense_output, phase_pool, nullptr));
    CopyPhaseOutput(p, phase, dense_output, out, phase_pool);
  }
  return absl::OkStatus();
}

// f(T{}, Out{}) for a plan's GEMM type: T its input and kernel, Out its
// sums and output.
template <typename F>
absl::Status WithGemmTypes(PrimitiveType type, F&& f) {
  switch (type) {
    case F32: return f(float{}, float{});
    case F64: return f(double{}, double{});
    case S32: return f(int32_t{}, int32_t{});
    case S8: return f(int8_t{}, int32_t{});
    default:
      return absl::UnimplementedError(absl::StrCat("convolution of ", PrimitiveTypeName(type)));
  }
}

// The plan on buffers of its GEMM type (`type`).
absl::Status RunPlan(const ConvPlan& p, const void* input, const void* kernel, void* output,
                     runtime::ThreadPool* pool, const RowEpilogue* epilogue) {
  if (p.phases.empty() && p.onednn != nullptr && !use_im2col.load(std::memory_order_relaxed)) {
    // A small one runs on the calling thread: handing oneDNN's chunks to
    // the pool's threads costs more than they save (a 2x7x9x13 1x1
    // convolution: 43 us on the pool, 8 alone, XLA 20; a 14x14x32 3x3 one
    // 65 -> 29 us).
    return p.onednn->Run(input, kernel, output, Small(p) ? nullptr : pool, epilogue);
  }
  absl::Status status;
  if (p.window_gemms && p.phases.empty() && !use_im2col.load(std::memory_order_relaxed)) {
    status = RunWindowGemms(p, static_cast<const float*>(input), static_cast<const float*>(kernel),
                            static_cast<float*>(output), pool);
  } else {
    status = WithGemmTypes(p.type, [&](auto t, auto out) {
      using T = decltype(t);
      using Out = decltype(out);
      return p.phases.empty() ? Run<T, Out>(p, input, kernel, output, pool)
                              : RunPhases<T, Out>(p, input, kernel, output, pool);
    });
  }
  if (status.ok() && epilogue != nullptr) RunEpilogueOverBatch(*epilogue, p.batch, pool);
  return status;
}

// An integer convolution as the evaluator computes it: the operands
// converted to the result's type, products summed there with wrap-around.
// Modulo the result's width that is the s32 GEMM's sum of the operands
// sign- or zero-extended by their own type, so 8 and 16-bit operands are
// extended into this thread's scratch (slot 2), and an 8 or 16-bit result
// keeps the low bits of each s32 sum.  Operands of the plan's GEMM width
// (32-bit, or s8 into a 32-bit result: the GEMM's byte products) and 32-bit
// results (s32 or u32: the same bits) are used in place.
absl::Status RunIntegerConvolution(const ConvPlan& p, const void* input, const void* kernel,
                                   void* output, runtime::ThreadPool* pool,
                                   const RowEpilogue* epilogue) {
  const bool wide_operands = ByteWidth(p.operand_type) == ByteWidth(p.type);
  const bool wide_output = ByteWidth(p.output_type) == 4;
  int32_t* scratch = Scratch<int32_t, 2>(
      std::max<int64_t>(1, (wide_operands ? 0 : p.in_elements + p.kernel_elements_total) +
                               (wide_output ? 0 : p.out_elements)));
  int32_t* next = scratch;
  if (!wide_operands) {
    WidenIntegers(p.operand_type, input, next, p.in_elements, pool);
    WidenIntegers(p.operand_type, kernel, next + p.in_elements, p.kernel_elements_total, pool);
    input = next;
    kernel = next + p.in_elements;
    next += p.in_elements + p.kernel_elements_total;
  }
  if (wide_output) return RunPlan(p, input, kernel, output, pool, epilogue);
  TS_RETURN_IF_ERROR(RunPlan(p, input, kernel, next, pool, nullptr));
  NarrowIntegers(next, p.output_type, output, p.out_elements, pool);
  if (epilogue != nullptr) RunEpilogueOverBatch(*epilogue, p.batch, pool);
  return absl::OkStatus();
}

}  // namespace

absl::Status RunConvolution(const ConvPlan& p, const void* input, const void* kernel, void* output,
                            runtime::ThreadPool* pool, const RowEpilogue* epilogue) {
  if (p.operand_type == p.type && p.output_type == p.type) {
    return RunPlan(p, input, kernel, output, pool, epilogue);
  }
  if (IsConvInteger(p.type)) {
    return RunIntegerConvolution(p, input, kernel, output, pool, epilogue);
  }
  // Narrow floats: widened into this thread's scratch (slot 2; the plan's
  // own runs use slots 0 and 1), run in f32, rounded once into the output.
  // The layouts are dense permutations, so converting whole buffers keeps
  // every element's place.
  const bool rounds = p.output_type != F32;
  float* wide_input =
      Scratch<float, 2>(p.in_elements + p.kernel_elements_total + (rounds ? p.out_elements : 0));
  float* wide_kernel = wide_input + p.in_elements;
  float* wide_output = wide_kernel + p.kernel_elements_total;
  if (!ConvertFloats(p.operand_type, input, F32, wide_input, p.in_elements, pool) ||
      !ConvertFloats(p.operand_type, kernel, F32, wide_kernel, p.kernel_elements_total, pool)) {
    return absl::InternalError(
        absl::StrCat("convolution of ", PrimitiveTypeName(p.operand_type), " cannot widen"));
  }
  if (!rounds) return RunPlan(p, wide_input, wide_kernel, output, pool, epilogue);
  TS_RETURN_IF_ERROR(RunPlan(p, wide_input, wide_kernel, wide_output, pool, nullptr));
  ConvertFloats(F32, wide_output, p.output_type, output, p.out_elements, pool);
  if (epilogue != nullptr) RunEpilogueOverBatch(*epilogue, p.batch, pool);
  return absl::OkStatus();
}

}  // namespace cpu
}  // namespace tessera
