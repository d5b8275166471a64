#include "backends/cpu/conv_thunk.h"

#include <algorithm>
#include <array>
#include <initializer_list>
#include <cstring>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"
#include "hlo/ir/hlo_instruction.h"
#include "hlo/ir/hlo_opcode.h"
#include "hlo/ir/shape.h"
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
                                                    const Shape& shape,
                                                    absl::string_view what) {
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
    if (layout.element_size_in_bits != 0 && layout.element_size_in_bits != 32) {
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
bool StridesMatch(std::initializer_list<std::array<int64_t, 3>> dims) {
  for (const auto& [size, stride, expected] : dims) {
    if (size > 1 && stride != expected) return false;
  }
  return true;
}

// One scratch buffer per calling thread, grown as needed and reused.
float* Scratch(int64_t elements) {
  thread_local std::vector<float> buffer;
  if (static_cast<int64_t>(buffer.size()) < elements) {
    buffer.clear();
    buffer.shrink_to_fit();
    buffer.resize(elements);
  }
  return buffer.data();
}

void ParallelRows(runtime::ThreadPool* pool, int64_t n, int64_t min_block,
                  absl::FunctionRef<void(int64_t, int64_t)> fn) {
  if (pool == nullptr || n <= min_block) {
    fn(0, n);
    return;
  }
  pool->ParallelFor(n, pool->BlockSizeFor(n, min_block), fn);
}

}  // namespace

std::string ConvPlan::ToString() const {
  return absl::StrCat("conv N", batch, " C", in_features, " ", in_h, "x", in_w, " -> O",
                      out_features, " ", out_h, "x", out_w, " window ", kernel_h, "x", kernel_w,
                      " stride ", stride_h, "x", stride_w, " pad ", pad_h, "x", pad_w,
                      " dilation ", dilation_h, "x", dilation_w, " kernel ",
                      kernel_use == KernelUse::kDirect       ? "direct"
                      : kernel_use == KernelUse::kTransposed ? "transposed"
                                                             : "packed",
                      output_direct ? " output direct" : " output scattered", " gemm ",
                      gemm.ToString());
}

absl::StatusOr<ConvPlan> PlanConvolution(const HloInstruction& conv) {
  if (conv.opcode() != HloOpcode::kConvolution) return Unimplemented(conv, "not a convolution");
  if (conv.operand_count() != 2) return Unimplemented(conv, "not two operands");
  const HloAttributes& attrs = conv.attrs();
  if (!attrs.window.has_value() || !attrs.convolution_dimension_numbers.has_value()) {
    return Unimplemented(conv, "no window or dimension numbers");
  }
  if (attrs.feature_group_count != 1) return Unimplemented(conv, "feature_group_count != 1");
  if (attrs.batch_group_count != 1) return Unimplemented(conv, "batch_group_count != 1");
  const Shape& in = conv.operand(0)->shape();
  const Shape& ker = conv.operand(1)->shape();
  const Shape& out = conv.shape();
  if (!in.IsArray() || !ker.IsArray() || !out.IsArray()) return Unimplemented(conv, "non-array");
  if (in.element_type() != F32 || ker.element_type() != F32 || out.element_type() != F32) {
    return Unimplemented(conv, "not f32");
  }
  if (in.rank() != 4 || ker.rank() != 4 || out.rank() != 4) {
    return Unimplemented(conv, "not a 2-D convolution");
  }
  const Window& window = *attrs.window;
  const ConvolutionDimensionNumbers& dn = *attrs.convolution_dimension_numbers;
  if (window.dimensions.size() != 2 || dn.input_spatial_dimensions.size() != 2 ||
      dn.kernel_spatial_dimensions.size() != 2 || dn.output_spatial_dimensions.size() != 2) {
    return Unimplemented(conv, "not 2 spatial dimensions");
  }
  for (const WindowDimension& w : window.dimensions) {
    if (w.base_dilation != 1) return Unimplemented(conv, "lhs dilation");
    if (w.window_reversal) return Unimplemented(conv, "window reversal");
    if (w.stride < 1 || w.window_dilation < 1 || w.size < 1) {
      return Unimplemented(conv, "a non-positive window stride, dilation or size");
    }
  }
  absl::StatusOr<std::vector<int64_t>> in_strides = ElementStrides(conv, in, "input");
  if (!in_strides.ok()) return in_strides.status();
  absl::StatusOr<std::vector<int64_t>> k_strides = ElementStrides(conv, ker, "kernel");
  if (!k_strides.ok()) return k_strides.status();
  absl::StatusOr<std::vector<int64_t>> out_strides = ElementStrides(conv, out, "output");
  if (!out_strides.ok()) return out_strides.status();

  ConvPlan p;
  p.batch = in.dimensions(dn.input_batch_dimension);
  p.in_features = in.dimensions(dn.input_feature_dimension);
  p.in_h = in.dimensions(dn.input_spatial_dimensions[0]);
  p.in_w = in.dimensions(dn.input_spatial_dimensions[1]);
  p.kernel_h = ker.dimensions(dn.kernel_spatial_dimensions[0]);
  p.kernel_w = ker.dimensions(dn.kernel_spatial_dimensions[1]);
  p.out_features = ker.dimensions(dn.kernel_output_feature_dimension);
  p.out_h = out.dimensions(dn.output_spatial_dimensions[0]);
  p.out_w = out.dimensions(dn.output_spatial_dimensions[1]);
  if (ker.dimensions(dn.kernel_input_feature_dimension) != p.in_features ||
      out.dimensions(dn.output_batch_dimension) != p.batch ||
      out.dimensions(dn.output_feature_dimension) != p.out_features ||
      window.dimensions[0].size != p.kernel_h || window.dimensions[1].size != p.kernel_w) {
    return absl::InvalidArgumentError(
        absl::StrCat("convolution ", conv.name(), ": inconsistent dimension sizes"));
  }
  p.stride_h = window.dimensions[0].stride;
  p.stride_w = window.dimensions[1].stride;
  p.pad_h = window.dimensions[0].padding_low;
  p.pad_w = window.dimensions[1].padding_low;
  p.dilation_h = window.dimensions[0].window_dilation;
  p.dilation_w = window.dimensions[1].window_dilation;
  // The output's spatial sizes follow from the window.
  const int64_t in_sizes[2] = {p.in_h, p.in_w};
  const int64_t out_sizes[2] = {p.out_h, p.out_w};
  for (int i = 0; i < 2; ++i) {
    const WindowDimension& w = window.dimensions[i];
    const int64_t padded = in_sizes[i] + w.padding_low + w.padding_high;
    const int64_t extent = (w.size - 1) * w.window_dilation + 1;
    const int64_t expected = padded < extent ? 0 : (padded - extent) / w.stride + 1;
    if (expected != out_sizes[i]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "convolution ", conv.name(), ": output spatial size ", out_sizes[i], ", expected ",
          expected));
    }
  }
  const std::vector<int64_t>& is = *in_strides;
  const std::vector<int64_t>& ks = *k_strides;
  const std::vector<int64_t>& os = *out_strides;
  p.in_stride_n = is[dn.input_batch_dimension];
  p.in_stride_c = is[dn.input_feature_dimension];
  p.in_stride_h = is[dn.input_spatial_dimensions[0]];
  p.in_stride_w = is[dn.input_spatial_dimensions[1]];
  p.k_stride_i = ks[dn.kernel_input_feature_dimension];
  p.k_stride_o = ks[dn.kernel_output_feature_dimension];
  p.k_stride_h = ks[dn.kernel_spatial_dimensions[0]];
  p.k_stride_w = ks[dn.kernel_spatial_dimensions[1]];
  p.out_stride_n = os[dn.output_batch_dimension];
  p.out_stride_o = os[dn.output_feature_dimension];
  p.out_stride_h = os[dn.output_spatial_dimensions[0]];
  p.out_stride_w = os[dn.output_spatial_dimensions[1]];

  const int64_t C = p.in_features, O = p.out_features, KW = p.kernel_w, KH = p.kernel_h;
  const int64_t K = p.k();
  if (StridesMatch({{O, p.k_stride_o, 1},
                    {C, p.k_stride_i, O},
                    {KW, p.k_stride_w, C * O},
                    {KH, p.k_stride_h, KW * C * O}})) {
    p.kernel_use = ConvPlan::KernelUse::kDirect;
  } else if (StridesMatch({{C, p.k_stride_i, 1},
                           {KW, p.k_stride_w, C},
                           {KH, p.k_stride_h, KW * C},
                           {O, p.k_stride_o, K}})) {
    p.kernel_use = ConvPlan::KernelUse::kTransposed;
  } else {
    p.kernel_use = ConvPlan::KernelUse::kPacked;
  }
  p.output_direct = StridesMatch({{O, p.out_stride_o, 1},
                                  {p.out_w, p.out_stride_w, O},
                                  {p.out_h, p.out_stride_h, p.out_w * O},
                                  {p.batch, p.out_stride_n, p.out_h * p.out_w * O}});
  p.gemm.batch = 1;
  p.gemm.m = p.m();
  p.gemm.k = K;
  p.gemm.n = O;
  p.gemm.rhs_transposed = p.kernel_use == ConvPlan::KernelUse::kTransposed;
  p.gemm.type = F32;
  p.gemm.output_type = F32;
  absl::Status check = CheckDotShape(p.gemm);
  if (!check.ok()) return Unimplemented(conv, check.message());
  return p;
}

absl::Status RunConvolution(const ConvPlan& p, const void* input, const void* kernel,
                            void* output, runtime::ThreadPool* pool) {
  const float* in = static_cast<const float*>(input);
  const float* ker = static_cast<const float*>(kernel);
  float* out = static_cast<float*>(output);
  const int64_t M = p.m(), K = p.k(), O = p.out_features, C = p.in_features;
  if (M == 0 || O == 0) return absl::OkStatus();
  const int64_t col_elems = M * K;
  const int64_t packed_elems = p.kernel_use == ConvPlan::KernelUse::kPacked ? K * O : 0;
  const int64_t prod_elems = p.output_direct ? 0 : M * O;
  float* scratch = Scratch(std::max<int64_t>(1, col_elems + packed_elems + prod_elems));
  float* col = scratch;
  float* packed = scratch + col_elems;
  float* prod = packed + packed_elems;

  // im2col: row m = (n, oh, ow), column (kh, kw, c).
  const int64_t ohw = p.out_h * p.out_w;
  ParallelRows(pool, M, 16, [&](int64_t begin, int64_t end) {
    for (int64_t m = begin; m < end; ++m) {
      const int64_t n = m / ohw;
      const int64_t oh = (m % ohw) / p.out_w;
      const int64_t ow = m % p.out_w;
      float* row = col + m * K;
      const float* base = in + n * p.in_stride_n;
      for (int64_t kh = 0; kh < p.kernel_h; ++kh) {
        const int64_t ih = oh * p.stride_h - p.pad_h + kh * p.dilation_h;
        for (int64_t kw = 0; kw < p.kernel_w; ++kw, row += C) {
          const int64_t iw = ow * p.stride_w - p.pad_w + kw * p.dilation_w;
          if (ih < 0 || ih >= p.in_h || iw < 0 || iw >= p.in_w) {
            std::memset(row, 0, C * sizeof(float));
            continue;
          }
          const float* src = base + ih * p.in_stride_h + iw * p.in_stride_w;
          if (p.in_stride_c == 1) {
            std::memcpy(row, src, C * sizeof(float));
          } else {
            for (int64_t c = 0; c < C; ++c) row[c] = src[c * p.in_stride_c];
          }
        }
      }
    }
  });

  const float* rhs = ker;
  if (p.kernel_use == ConvPlan::KernelUse::kPacked) {
    // packed[(kh, kw, c)][o]
    for (int64_t kh = 0; kh < p.kernel_h; ++kh) {
      for (int64_t kw = 0; kw < p.kernel_w; ++kw) {
        for (int64_t c = 0; c < C; ++c) {
          float* dst = packed + ((kh * p.kernel_w + kw) * C + c) * O;
          const float* src = ker + kh * p.k_stride_h + kw * p.k_stride_w + c * p.k_stride_i;
          for (int64_t o = 0; o < O; ++o) dst[o] = src[o * p.k_stride_o];
        }
      }
    }
    rhs = packed;
  }

  float* gemm_out = p.output_direct ? out : prod;
  absl::Status status = RunDot(p.gemm, col, rhs, gemm_out, pool);
  if (!status.ok()) return status;

  if (!p.output_direct) {
    ParallelRows(pool, M, 16, [&](int64_t begin, int64_t end) {
      for (int64_t m = begin; m < end; ++m) {
        const int64_t n = m / ohw;
        const int64_t oh = (m % ohw) / p.out_w;
        const int64_t ow = m % p.out_w;
        float* dst = out + n * p.out_stride_n + oh * p.out_stride_h + ow * p.out_stride_w;
        const float* src = prod + m * O;
        for (int64_t o = 0; o < O; ++o) dst[o * p.out_stride_o] = src[o];
      }
    });
  }
  return absl::OkStatus();
}

}  // namespace cpu
}  // namespace tessera
