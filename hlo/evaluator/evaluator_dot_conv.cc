// dot (general: batch and contracting dimensions) and convolution (general
// dimension numbers, strides, padding, lhs/rhs dilation, window reversal,
// feature and batch groups).  Operands are first converted to the result's
// element type; products are accumulated in the result's compute type
// (float for F16/BF16, wrapping two's complement for integers) and rounded
// to the result type once at the end, as XLA's evaluator does.  Contracting
// dimensions are walked in row-major order of their listed order.
// precision_config is ignored.
#include "hlo/evaluator/evaluator_internal.h"
#include "hlo/evaluator/index_iteration.h"
#include "hlo/ir/hlo_opcode.h"

namespace tessera {
namespace evaluator_internal {
namespace {

// The operands converted to the result's element type.  A pred result
// is a dot's only (an OR of ANDs, as XLA computes it); a convolution's is
// refused.
absl::StatusOr<std::pair<Literal, Literal>> ConvertOperands(const HloInstruction& hlo,
                                                            Operands operands) {
  TS_RETURN_IF_ERROR(ExpectOperandCount(hlo, operands, 2));
  TS_RETURN_IF_ERROR(ExpectArrayShape(hlo));
  TS_RETURN_IF_ERROR(ExpectArray(*operands[0], "lhs"));
  TS_RETURN_IF_ERROR(ExpectArray(*operands[1], "rhs"));
  const PrimitiveType type = hlo.shape().element_type();
  if (type == PRED && hlo.opcode() != HloOpcode::kDot) {
    return InvalidArgument("pred results are not supported");
  }
  TS_ASSIGN_OR_RETURN(Literal lhs, operands[0]->Convert(type));
  TS_ASSIGN_OR_RETURN(Literal rhs, operands[1]->Convert(type));
  return std::make_pair(std::move(lhs), std::move(rhs));
}

// acc += a * b in the accumulation type of T (integers wrap; pred: acc |=
// a & b).
template <typename T>
void MultiplyAdd(ComputeType<T>& acc, T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    acc = acc || (a && b);
  } else if constexpr (kIsInteger<T>) {
    acc = static_cast<T>(static_cast<uint64_t>(acc) +
                         static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
  } else {
    acc += ToCompute(a) * ToCompute(b);
  }
}

absl::StatusOr<Literal> Dot(const HloInstruction& hlo, Operands operands) {
  TS_ASSIGN_OR_RETURN(auto converted, ConvertOperands(hlo, operands));
  const Literal& lhs = converted.first;
  const Literal& rhs = converted.second;
  if (!hlo.attrs().dot_dimension_numbers.has_value()) {
    return InvalidArgument("dot has no dimension numbers");
  }
  const DotDimensionNumbers& dnums = hlo.dot_dimension_numbers();
  const std::vector<int64_t>& ld = lhs.shape().dimensions();
  const std::vector<int64_t>& rd = rhs.shape().dimensions();
  const int64_t lhs_rank = ld.size(), rhs_rank = rd.size();
  if (dnums.lhs_batch_dimensions.size() != dnums.rhs_batch_dimensions.size() ||
      dnums.lhs_contracting_dimensions.size() != dnums.rhs_contracting_dimensions.size()) {
    return InvalidArgument("dot needs as many lhs as rhs batch and contracting dimensions");
  }
  // Role of each operand dimension: -1 free, else marked used.
  std::vector<bool> lhs_used(lhs_rank, false), rhs_used(rhs_rank, false);
  auto mark = [](std::vector<bool>& used, int64_t d) {
    if (d < 0 || d >= static_cast<int64_t>(used.size()) || used[d]) return false;
    used[d] = true;
    return true;
  };
  std::vector<int64_t> out_dims;
  for (size_t i = 0; i < dnums.lhs_batch_dimensions.size(); ++i) {
    const int64_t l = dnums.lhs_batch_dimensions[i], r = dnums.rhs_batch_dimensions[i];
    if (!mark(lhs_used, l) || !mark(rhs_used, r) || ld[l] != rd[r]) {
      return InvalidArgument("bad dot batch dimensions");
    }
    out_dims.push_back(ld[l]);
  }
  std::vector<int64_t> contract_sizes;
  for (size_t i = 0; i < dnums.lhs_contracting_dimensions.size(); ++i) {
    const int64_t l = dnums.lhs_contracting_dimensions[i];
    const int64_t r = dnums.rhs_contracting_dimensions[i];
    if (!mark(lhs_used, l) || !mark(rhs_used, r) || ld[l] != rd[r]) {
      return InvalidArgument("bad dot contracting dimensions");
    }
    contract_sizes.push_back(ld[l]);
  }
  std::vector<int64_t> lhs_free, rhs_free;
  for (int64_t d = 0; d < lhs_rank; ++d) {
    if (!lhs_used[d]) {
      lhs_free.push_back(d);
      out_dims.push_back(ld[d]);
    }
  }
  for (int64_t d = 0; d < rhs_rank; ++d) {
    if (!rhs_used[d]) {
      rhs_free.push_back(d);
      out_dims.push_back(rd[d]);
    }
  }
  if (out_dims != hlo.shape().dimensions()) {
    return InvalidArgument(absl::StrCat("dot of ", ShapeString(*operands[0]), " and ",
                                        ShapeString(*operands[1]), " does not give ",
                                        hlo.shape().ToString()));
  }
  TS_ASSIGN_OR_RETURN(Literal out, MakeLiteral(hlo.shape()));
  const std::vector<int64_t> ls = RowMajorStrides(ld), rs = RowMajorStrides(rd);
  // Offsets of each contraction step in lhs and rhs.
  std::vector<int64_t> lhs_steps, rhs_steps;
  ForEachIndex(contract_sizes, [&](absl::Span<const int64_t> k) {
    int64_t lo = 0, ro = 0;
    for (size_t i = 0; i < k.size(); ++i) {
      lo += k[i] * ls[dnums.lhs_contracting_dimensions[i]];
      ro += k[i] * rs[dnums.rhs_contracting_dimensions[i]];
    }
    lhs_steps.push_back(lo);
    rhs_steps.push_back(ro);
  }).IgnoreError();
  const size_t batch = dnums.lhs_batch_dimensions.size();
  DispatchElementType(hlo.shape().element_type(), [&]<typename T>() {
    if constexpr (!std::is_void_v<T>) {
      auto a = lhs.data<T>();
      auto b = rhs.data<T>();
      auto dst = out.data<T>();
      int64_t linear = 0;
      ForEachIndex(out_dims, [&](absl::Span<const int64_t> index) {
        int64_t lbase = 0, rbase = 0;
        for (size_t i = 0; i < batch; ++i) {
          lbase += index[i] * ls[dnums.lhs_batch_dimensions[i]];
          rbase += index[i] * rs[dnums.rhs_batch_dimensions[i]];
        }
        for (size_t i = 0; i < lhs_free.size(); ++i) lbase += index[batch + i] * ls[lhs_free[i]];
        for (size_t i = 0; i < rhs_free.size(); ++i) {
          rbase += index[batch + lhs_free.size() + i] * rs[rhs_free[i]];
        }
        ComputeType<T> acc{};
        for (size_t k = 0; k < lhs_steps.size(); ++k) {
          MultiplyAdd<T>(acc, a[lbase + lhs_steps[k]], b[rbase + rhs_steps[k]]);
        }
        dst[linear++] = FromCompute<T>(acc);
      }).IgnoreError();
    }
  });
  return out;
}

absl::StatusOr<Literal> Convolution(const HloInstruction& hlo, Operands operands) {
  TS_ASSIGN_OR_RETURN(auto converted, ConvertOperands(hlo, operands));
  const Literal& lhs = converted.first;
  const Literal& rhs = converted.second;
  if (!hlo.attrs().convolution_dimension_numbers.has_value() ||
      !hlo.attrs().window.has_value()) {
    return InvalidArgument("convolution needs dimension numbers and a window");
  }
  const ConvolutionDimensionNumbers& dn = hlo.convolution_dimension_numbers();
  const Window& window = hlo.window();
  const std::vector<int64_t>& ld = lhs.shape().dimensions();
  const std::vector<int64_t>& rd = rhs.shape().dimensions();
  const std::vector<int64_t>& od = hlo.shape().dimensions();
  const size_t spatial = dn.input_spatial_dimensions.size();
  auto in_range = [](int64_t d, size_t rank) { return d >= 0 && d < static_cast<int64_t>(rank); };
  bool ok = dn.kernel_spatial_dimensions.size() == spatial &&
            dn.output_spatial_dimensions.size() == spatial &&
            window.dimensions.size() == spatial && ld.size() == spatial + 2 &&
            rd.size() == spatial + 2 && od.size() == spatial + 2 &&
            in_range(dn.input_batch_dimension, ld.size()) &&
            in_range(dn.input_feature_dimension, ld.size()) &&
            in_range(dn.kernel_input_feature_dimension, rd.size()) &&
            in_range(dn.kernel_output_feature_dimension, rd.size()) &&
            in_range(dn.output_batch_dimension, od.size()) &&
            in_range(dn.output_feature_dimension, od.size());
  for (size_t i = 0; ok && i < spatial; ++i) {
    ok = in_range(dn.input_spatial_dimensions[i], ld.size()) &&
         in_range(dn.kernel_spatial_dimensions[i], rd.size()) &&
         in_range(dn.output_spatial_dimensions[i], od.size()) &&
         window.dimensions[i].size == rd[dn.kernel_spatial_dimensions[i]] &&
         window.dimensions[i].stride >= 1 && window.dimensions[i].base_dilation >= 1 &&
         window.dimensions[i].window_dilation >= 1;
  }
  const int64_t feature_groups = hlo.attrs().feature_group_count;
  const int64_t batch_groups = hlo.attrs().batch_group_count;
  if (!ok || feature_groups < 1 || batch_groups < 1) {
    return InvalidArgument("convolution dimension numbers, window or groups do not fit the shapes");
  }
  const int64_t input_features = ld[dn.input_feature_dimension];
  const int64_t input_batch = ld[dn.input_batch_dimension];
  const int64_t output_features = rd[dn.kernel_output_feature_dimension];
  if (input_features % feature_groups != 0 || output_features % feature_groups != 0 ||
      input_batch % batch_groups != 0 || output_features % batch_groups != 0 ||
      rd[dn.kernel_input_feature_dimension] * feature_groups != input_features ||
      od[dn.output_feature_dimension] != output_features ||
      od[dn.output_batch_dimension] != input_batch / batch_groups) {
    return InvalidArgument("convolution feature or batch sizes do not fit the groups");
  }
  const int64_t input_group_size = input_features / feature_groups;
  const int64_t output_group_size = output_features / feature_groups;
  const int64_t batch_group_size = input_batch / batch_groups;
  const int64_t depthwise_multiplier = output_features / batch_groups;
  TS_ASSIGN_OR_RETURN(Literal out, MakeLiteral(hlo.shape()));
  const std::vector<int64_t> ls = RowMajorStrides(ld), rs = RowMajorStrides(rd);
  std::vector<int64_t> window_sizes;
  for (const WindowDimension& w : window.dimensions) window_sizes.push_back(w.size);
  DispatchElementType(hlo.shape().element_type(), [&]<typename T>() {
    if constexpr (!std::is_void_v<T> && !std::is_same_v<T, bool>) {
      auto a = lhs.data<T>();
      auto b = rhs.data<T>();
      auto dst = out.data<T>();
      int64_t linear = 0;
      ForEachIndex(od, [&](absl::Span<const int64_t> o) {
        const int64_t out_feature = o[dn.output_feature_dimension];
        const int64_t feature_group = out_feature / output_group_size;
        const int64_t batch_group = out_feature / depthwise_multiplier;
        const int64_t lhs_batch = o[dn.output_batch_dimension] + batch_group * batch_group_size;
        ComputeType<T> acc{};
        ForEachIndex(window_sizes, [&](absl::Span<const int64_t> k) {
          int64_t lbase = lhs_batch * ls[dn.input_batch_dimension];
          int64_t rbase = out_feature * rs[dn.kernel_output_feature_dimension];
          for (size_t i = 0; i < spatial; ++i) {
            const WindowDimension& w = window.dimensions[i];
            int64_t position = o[dn.output_spatial_dimensions[i]] * w.stride - w.padding_low +
                               k[i] * w.window_dilation;
            if (w.base_dilation > 1) {
              if (position % w.base_dilation != 0) return;
              position /= w.base_dilation;
            }
            if (position < 0 || position >= ld[dn.input_spatial_dimensions[i]]) return;
            lbase += position * ls[dn.input_spatial_dimensions[i]];
            const int64_t kernel = w.window_reversal ? w.size - 1 - k[i] : k[i];
            rbase += kernel * rs[dn.kernel_spatial_dimensions[i]];
          }
          for (int64_t f = 0; f < input_group_size; ++f) {
            const int64_t in_feature = feature_group * input_group_size + f;
            MultiplyAdd<T>(acc, a[lbase + in_feature * ls[dn.input_feature_dimension]],
                           b[rbase + f * rs[dn.kernel_input_feature_dimension]]);
          }
        }).IgnoreError();
        dst[linear++] = FromCompute<T>(acc);
      }).IgnoreError();
    }
  });
  return out;
}

}  // namespace

absl::StatusOr<Literal> EvaluateDotOrConvolution(const HloInstruction& hlo, Operands operands) {
  if (hlo.opcode() == HloOpcode::kDot) return Dot(hlo, operands);
  return Convolution(hlo, operands);
}

}  // namespace evaluator_internal
}  // namespace tessera
