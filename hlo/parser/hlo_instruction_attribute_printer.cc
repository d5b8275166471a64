// Each opcode's own attributes and its called computations, in the order
// XLA's printer writes them (HloInstruction::PrintExtraAttributes and the
// PrintExtraAttributesImpl of each instruction class), restricted to what
// hlo_parser reads back.
#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "hlo/ir/literal.h"
#include "hlo/parser/hlo_printer_internal.h"
#include "hlo/parser/hlo_text_util.h"

namespace tessera {
namespace printer_internal {
namespace {

std::string BoolText(bool value) { return value ? "true" : "false"; }

// operand_precision={...} when any precision is not the default, and
// algorithm=... when one is set and the opcode takes it.
void AppendPrecisionConfig(const PrecisionConfig& config, bool with_algorithm,
                           std::vector<std::string>* out) {
  const bool any_set = std::any_of(config.operand_precision.begin(), config.operand_precision.end(),
                                   [](Precision p) { return p != Precision::kDefault; });
  if (any_set) {
    out->push_back(absl::StrCat("operand_precision={",
                                absl::StrJoin(config.operand_precision, ",",
                                              [](std::string* s, Precision p) {
                                                absl::StrAppend(
                                                    s, SpellingOf(PrecisionSpellings(),
                                                                  static_cast<int32_t>(p)));
                                              }),
                                "}"));
  }
  if (with_algorithm && config.algorithm != 0) {
    absl::string_view name = SpellingOf(AlgorithmSpellings(), config.algorithm);
    if (!name.empty()) out->push_back(absl::StrCat("algorithm=", name));
  }
}

void AppendCollectiveAttributes(const HloAttributes& a, std::vector<std::string>* out) {
  if (a.channel_id > 0) out->push_back(absl::StrCat("channel_id=", a.channel_id));
  out->push_back(absl::StrCat("replica_groups=", ReplicaGroupsText(a)));
  if (a.constrain_layout) out->push_back("constrain_layout=true");
}

// The one dimension of concatenate, all-gather, get-dimension-size, ...
void AppendSingleDimension(const HloAttributes& a, std::vector<std::string>* out) {
  if (!a.dimensions.empty()) out->push_back(absl::StrCat("dimensions=", BracedList(a.dimensions)));
}

std::string EnumText(absl::Span<const EnumSpelling> table, int32_t value) {
  absl::string_view name = SpellingOf(table, value);
  return name.empty() ? absl::StrCat(value) : std::string(name);
}

// The comparison type XLA assumes for an element type.
ComparisonType DefaultComparisonType(PrimitiveType type) {
  if (IsFloatingPointType(type) || IsComplexType(type)) return ComparisonType::kFloat;
  if (IsUnsignedIntegralType(type) || type == PRED) return ComparisonType::kUnsigned;
  return ComparisonType::kSigned;
}

}  // namespace

void AppendOpcodeAttributes(const HloInstruction& instruction, const HloPrintOptions& options,
                            std::vector<std::string>* out) {
  const HloAttributes& a = instruction.attrs();
  auto dimensions = [&] { out->push_back(absl::StrCat("dimensions=", BracedList(a.dimensions))); };
  auto window = [&] {
    if (a.window.has_value() && !a.window->dimensions.empty()) {
      out->push_back(absl::StrCat("window={", PrintWindow(*a.window), "}"));
    }
  };
  switch (instruction.opcode()) {
    case HloOpcode::kParameter:
      if (!a.parameter_replication.empty()) {
        out->push_back(absl::StrCat(
            "parameter_replication={",
            absl::StrJoin(a.parameter_replication, ",",
                          [](std::string* s, bool b) { absl::StrAppend(s, BoolText(b)); }),
            "}"));
      }
      break;
    case HloOpcode::kIota:
      if (!a.dimensions.empty()) out->push_back(absl::StrCat("iota_dimension=", a.dimensions[0]));
      break;
    case HloOpcode::kTopK:
      out->push_back(absl::StrCat("k=", a.k));
      out->push_back(absl::StrCat("largest=", BoolText(a.largest)));
      out->push_back(absl::StrCat("is_stable=", BoolText(a.is_stable)));
      break;
    case HloOpcode::kReducePrecision:
      out->push_back(absl::StrCat("exponent_bits=", a.exponent_bits));
      out->push_back(absl::StrCat("mantissa_bits=", a.mantissa_bits));
      break;
    case HloOpcode::kAllGather:
    case HloOpcode::kAllGatherStart:
      AppendCollectiveAttributes(a, out);
      AppendSingleDimension(a, out);
      if (a.use_global_device_ids) out->push_back("use_global_device_ids=true");
      break;
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kCollectiveReduce:
      AppendCollectiveAttributes(a, out);
      if (a.use_global_device_ids) out->push_back("use_global_device_ids=true");
      break;
    case HloOpcode::kReduceScatter:
      AppendCollectiveAttributes(a, out);
      if (a.use_global_device_ids) out->push_back("use_global_device_ids=true");
      AppendSingleDimension(a, out);
      break;
    case HloOpcode::kAllToAll:
    case HloOpcode::kRaggedAllToAll:
      AppendCollectiveAttributes(a, out);
      AppendSingleDimension(a, out);
      break;
    case HloOpcode::kCollectiveBroadcast:
      AppendCollectiveAttributes(a, out);
      break;
    case HloOpcode::kCollectivePermute:
    case HloOpcode::kCollectivePermuteStart: {
      if (a.channel_id > 0) out->push_back(absl::StrCat("channel_id=", a.channel_id));
      out->push_back(
          absl::StrCat("source_target_pairs={",
                       absl::StrJoin(a.source_target_pairs, ",",
                                     [](std::string* s, const std::pair<int64_t, int64_t>& pair) {
                                       absl::StrAppend(s, "{", pair.first, ",", pair.second, "}");
                                     }),
                       "}"));
      if (!a.dynamic_slice_sizes.empty()) {
        // The proto keeps the per-transfer slice sizes flattened; each
        // transfer has one size per dimension of the input.
        const std::vector<int64_t>& flat = a.dynamic_slice_sizes;
        size_t chunk = flat.size();
        if (instruction.operand_count() > 0 && instruction.operand(0) != nullptr) {
          const Shape* input = &instruction.operand(0)->shape();
          while (input->IsTuple() && input->tuple_size() > 0) input = &input->tuple_shapes(0);
          const size_t rank = input->IsArray() ? static_cast<size_t>(input->rank()) : 0;
          if (rank > 0 && flat.size() % rank == 0) chunk = rank;
        }
        std::vector<std::string> groups;
        for (size_t i = 0; i < flat.size(); i += chunk) {
          groups.push_back(BracedList(std::vector<int64_t>(
              flat.begin() + i, flat.begin() + std::min(flat.size(), i + chunk))));
        }
        out->push_back(absl::StrCat("slice_sizes={", absl::StrJoin(groups, ","), "}"));
      }
      break;
    }
    case HloOpcode::kAsyncStart:
    case HloOpcode::kAsyncUpdate:
    case HloOpcode::kAsyncDone:
      if (!a.async_execution_thread.empty()) {
        out->push_back(
            absl::StrCat("async_execution_thread=", QuotedString(a.async_execution_thread)));
      }
      break;
    case HloOpcode::kCopyStart:
      if (a.cross_program_prefetch_index.has_value()) {
        out->push_back(
            absl::StrCat("cross_program_prefetch_index=", *a.cross_program_prefetch_index));
      }
      break;
    case HloOpcode::kReshape:
      if (!a.dimensions.empty()) {
        out->push_back(absl::StrCat("inferred_dimension=", a.dimensions[0]));
      }
      break;
    case HloOpcode::kSort:
      dimensions();
      if (a.is_stable) out->push_back("is_stable=true");
      break;
    case HloOpcode::kRecv:
    case HloOpcode::kRecvDone:
    case HloOpcode::kSend:
    case HloOpcode::kSendDone:
      if (a.channel_id > 0) out->push_back(absl::StrCat("channel_id=", a.channel_id));
      if (a.is_host_transfer) out->push_back("is_host_transfer=true");
      break;
    case HloOpcode::kGetTupleElement:
      out->push_back(absl::StrCat("index=", a.tuple_index));
      break;
    case HloOpcode::kReduceWindow:
    case HloOpcode::kSelectAndScatter:
      window();
      break;
    case HloOpcode::kConvolution:
      window();
      if (a.convolution_dimension_numbers.has_value()) {
        out->push_back(absl::StrCat(
            "dim_labels=", PrintConvolutionDimensionNumbers(*a.convolution_dimension_numbers)));
      }
      if (a.feature_group_count != 1) {
        out->push_back(absl::StrCat("feature_group_count=", a.feature_group_count));
      }
      if (a.batch_group_count != 1) {
        out->push_back(absl::StrCat("batch_group_count=", a.batch_group_count));
      }
      AppendPrecisionConfig(a.precision_config, /*with_algorithm=*/false, out);
      break;
    case HloOpcode::kFft:
      out->push_back(absl::StrCat("fft_type=",
                                  EnumText(FftTypeSpellings(), static_cast<int32_t>(a.fft_type))));
      out->push_back(absl::StrCat("fft_length=", BracedList(a.fft_length)));
      break;
    case HloOpcode::kTriangularSolve:
      // XLA lists the options proto's set fields in field order.
      if (a.triangular_solve_options.has_value()) {
        const TriangularSolveOptions& o = *a.triangular_solve_options;
        if (o.left_side) out->push_back("left_side=true");
        if (o.lower) out->push_back("lower=true");
        if (o.unit_diagonal) out->push_back("unit_diagonal=true");
        if (o.transpose_a != TriangularSolveOptions::Transpose::kInvalid) {
          out->push_back(absl::StrCat(
              "transpose_a=", EnumText(TransposeSpellings(), static_cast<int32_t>(o.transpose_a))));
        }
      }
      break;
    case HloOpcode::kCholesky:
      if (a.cholesky_options.has_value() && a.cholesky_options->lower) {
        out->push_back("lower=true");
      }
      break;
    case HloOpcode::kCompare: {
      out->push_back(absl::StrCat(
          "direction=",
          EnumText(ComparisonDirectionSpellings(), static_cast<int32_t>(a.comparison_direction))));
      const bool has_operand = instruction.operand_count() > 0 && instruction.operand(0) != nullptr;
      if (a.comparison_type != ComparisonType::kDefault &&
          (!has_operand ||
           a.comparison_type !=
               DefaultComparisonType(instruction.operand(0)->shape().element_type()))) {
        out->push_back(absl::StrCat(
            "type=", EnumText(ComparisonTypeSpellings(), static_cast<int32_t>(a.comparison_type))));
      }
      break;
    }
    case HloOpcode::kBroadcast:
    case HloOpcode::kReduce:
    case HloOpcode::kReverse:
    case HloOpcode::kTranspose:
    case HloOpcode::kMap:
      dimensions();
      break;
    case HloOpcode::kConcatenate:
    case HloOpcode::kGetDimensionSize:
    case HloOpcode::kSetDimensionSize:
      AppendSingleDimension(a, out);
      break;
    case HloOpcode::kSlice: {
      const bool omit_stride = std::all_of(a.slice_dimensions.begin(), a.slice_dimensions.end(),
                                           [](const SliceDimension& s) { return s.stride == 1; });
      out->push_back(absl::StrCat("slice={",
                                  absl::StrJoin(a.slice_dimensions, ", ",
                                                [&](std::string* s, const SliceDimension& d) {
                                                  absl::StrAppend(s, "[", d.start, ":", d.limit);
                                                  if (!omit_stride)
                                                    absl::StrAppend(s, ":", d.stride);
                                                  absl::StrAppend(s, "]");
                                                }),
                                  "}"));
      break;
    }
    case HloOpcode::kDynamicSlice:
      out->push_back(absl::StrCat("dynamic_slice_sizes=", BracedList(a.dynamic_slice_sizes)));
      break;
    case HloOpcode::kBatchNormTraining:
    case HloOpcode::kBatchNormInference:
    case HloOpcode::kBatchNormGrad:
      out->push_back(absl::StrCat("epsilon=", FloatToText(a.epsilon)));
      out->push_back(absl::StrCat("feature_index=", a.feature_index));
      break;
    case HloOpcode::kPad:
      if (a.padding_config.has_value()) {
        out->push_back(absl::StrCat("padding=", PrintPaddingConfig(*a.padding_config)));
      }
      break;
    case HloOpcode::kFusion:
      out->push_back(absl::StrCat(
          "kind=", EnumText(FusionKindSpellings(), static_cast<int32_t>(a.fusion_kind))));
      if (!a.output_operand_aliasing.empty()) {
        out->push_back(absl::StrCat("output_to_operand_aliasing=",
                                    OutputOperandAliasingText(a.output_operand_aliasing)));
      }
      break;
    case HloOpcode::kInfeed:
      if (!a.infeed_config.empty()) {
        out->push_back(absl::StrCat("infeed_config=", QuotedString(a.infeed_config)));
      }
      break;
    case HloOpcode::kOutfeed:
      if (a.outfeed_shape.has_value()) {
        out->push_back(absl::StrCat("outfeed_shape=", ShapeToText(*a.outfeed_shape, true)));
      }
      if (!a.outfeed_config.empty()) {
        out->push_back(absl::StrCat("outfeed_config=", QuotedString(a.outfeed_config)));
      }
      break;
    case HloOpcode::kRng:
      out->push_back(absl::StrCat("distribution=", EnumText(RandomDistributionSpellings(),
                                                            static_cast<int32_t>(a.distribution))));
      break;
    case HloOpcode::kRngGetAndUpdateState:
      out->push_back(absl::StrCat("delta=", a.delta));
      break;
    case HloOpcode::kRngBitGenerator:
      out->push_back(absl::StrCat("algorithm=", EnumText(RandomAlgorithmSpellings(),
                                                         static_cast<int32_t>(a.rng_algorithm))));
      break;
    case HloOpcode::kCustomCall:
      if (a.window.has_value())
        out->push_back(absl::StrCat("window={", PrintWindow(*a.window), "}"));
      if (a.convolution_dimension_numbers.has_value()) {
        out->push_back(absl::StrCat(
            "dim_labels=", PrintConvolutionDimensionNumbers(*a.convolution_dimension_numbers)));
      }
      if (a.feature_group_count != 1) {
        out->push_back(absl::StrCat("feature_group_count=", a.feature_group_count));
      }
      if (a.batch_group_count != 1) {
        out->push_back(absl::StrCat("batch_group_count=", a.batch_group_count));
      }
      AppendPrecisionConfig(a.precision_config, /*with_algorithm=*/false, out);
      if (a.padding_type != PaddingType::kInvalid) {
        out->push_back(
            absl::StrCat("padding_type=",
                         EnumText(PaddingTypeSpellings(), static_cast<int32_t>(a.padding_type))));
      }
      out->push_back(absl::StrCat("custom_call_target=", QuotedString(a.custom_call_target)));
      if (a.constrain_layout) {
        out->push_back(absl::StrCat("operand_layout_constraints={",
                                    absl::StrJoin(a.operand_shapes_with_layout, ", ",
                                                  [](std::string* s, const Shape& shape) {
                                                    AppendShapeText(shape, /*print_layout=*/true,
                                                                    s);
                                                  }),
                                    "}"));
      }
      if (a.custom_call_has_side_effect) out->push_back("custom_call_has_side_effect=true");
      if (a.literal.has_value())
        out->push_back(absl::StrCat("literal=", LiteralWithLayoutText(*a.literal)));
      if (!a.output_operand_aliasing.empty()) {
        out->push_back(absl::StrCat("output_to_operand_aliasing=",
                                    OutputOperandAliasingText(a.output_operand_aliasing)));
      }
      if (a.custom_call_schedule != CustomCallSchedule::kNone) {
        out->push_back(absl::StrCat(
            "schedule=",
            EnumText(CustomCallScheduleSpellings(), static_cast<int32_t>(a.custom_call_schedule))));
      }
      if (a.custom_call_api_version != CustomCallApiVersion::kOriginal) {
        out->push_back(absl::StrCat(
            "api_version=",
            EnumText(ApiVersionSpellings(), static_cast<int32_t>(a.custom_call_api_version))));
      }
      break;
    case HloOpcode::kDot:
    case HloOpcode::kScaledDot:
      if (a.dot_dimension_numbers.has_value()) {
        out->push_back(DotDimensionNumbersText(*a.dot_dimension_numbers));
      }
      AppendPrecisionConfig(a.precision_config, /*with_algorithm=*/true, out);
      break;
    case HloOpcode::kRaggedDot:
      if (a.ragged_dot_dimension_numbers.has_value()) {
        const RaggedDotDimensionNumbers& d = *a.ragged_dot_dimension_numbers;
        out->push_back(DotDimensionNumbersText(d.dot_dimension_numbers));
        if (!d.lhs_ragged_dimensions.empty()) {
          out->push_back(absl::StrCat("lhs_ragged_dims=", BracedList(d.lhs_ragged_dimensions)));
        }
        if (!d.rhs_group_dimensions.empty()) {
          out->push_back(absl::StrCat("rhs_group_dims=", BracedList(d.rhs_group_dimensions)));
        }
      }
      AppendPrecisionConfig(a.precision_config, /*with_algorithm=*/false, out);
      break;
    case HloOpcode::kGather:
      if (a.gather_dimension_numbers.has_value()) {
        const GatherDimensionNumbers& d = *a.gather_dimension_numbers;
        out->push_back(absl::StrCat("offset_dims=", BracedList(d.offset_dims)));
        out->push_back(absl::StrCat("collapsed_slice_dims=", BracedList(d.collapsed_slice_dims)));
        out->push_back(absl::StrCat("start_index_map=", BracedList(d.start_index_map)));
        if (!d.operand_batching_dims.empty()) {
          out->push_back(
              absl::StrCat("operand_batching_dims=", BracedList(d.operand_batching_dims)));
        }
        if (!d.start_indices_batching_dims.empty()) {
          out->push_back(absl::StrCat("start_indices_batching_dims=",
                                      BracedList(d.start_indices_batching_dims)));
        }
        out->push_back(absl::StrCat("index_vector_dim=", d.index_vector_dim));
      }
      out->push_back(absl::StrCat("slice_sizes=", BracedList(a.gather_slice_sizes)));
      if (a.indices_are_sorted) out->push_back("indices_are_sorted=true");
      break;
    case HloOpcode::kScatter:
      if (a.scatter_dimension_numbers.has_value()) {
        const ScatterDimensionNumbers& d = *a.scatter_dimension_numbers;
        out->push_back(absl::StrCat("update_window_dims=", BracedList(d.update_window_dims)));
        out->push_back(absl::StrCat("inserted_window_dims=", BracedList(d.inserted_window_dims)));
        out->push_back(absl::StrCat("scatter_dims_to_operand_dims=",
                                    BracedList(d.scatter_dims_to_operand_dims)));
        if (!d.input_batching_dims.empty()) {
          out->push_back(absl::StrCat("input_batching_dims=", BracedList(d.input_batching_dims)));
        }
        if (!d.scatter_indices_batching_dims.empty()) {
          out->push_back(absl::StrCat("scatter_indices_batching_dims=",
                                      BracedList(d.scatter_indices_batching_dims)));
        }
        out->push_back(absl::StrCat("index_vector_dim=", d.index_vector_dim));
      }
      if (a.indices_are_sorted) out->push_back("indices_are_sorted=true");
      if (a.unique_indices) out->push_back("unique_indices=true");
      break;
    case HloOpcode::kDomain:
      // Text `entry=` is the user side (the proto's exit sharding) and
      // `exit=` the operand side; XLA prints them without metadata.
      if (a.domain_entry_sharding.has_value() && a.domain_exit_sharding.has_value()) {
        out->push_back(absl::StrCat(
            "domain={kind=\"sharding\", entry=", PrintSharding(*a.domain_exit_sharding, false),
            ", exit=", PrintSharding(*a.domain_entry_sharding, false), "}"));
      }
      break;
    default:
      break;
  }
  (void)options;
}

void AppendCalledComputationAttributes(const HloInstruction& instruction,
                                       const HloPrintOptions& options,
                                       std::vector<std::string>* out) {
  const std::vector<HloComputation*>& called = instruction.called_computations();
  auto name = [&](const HloComputation* c) {
    return c == nullptr ? std::string("null") : NameText(c->name(), options);
  };
  auto join = [&](absl::string_view separator) {
    return absl::StrJoin(called, separator, [&](std::string* s, const HloComputation* c) {
      absl::StrAppend(s, name(c));
    });
  };
  switch (instruction.opcode()) {
    case HloOpcode::kWhile:
      if (called.size() == 2) {
        out->push_back(absl::StrCat("condition=", name(called[0])));
        out->push_back(absl::StrCat("body=", name(called[1])));
        return;
      }
      break;
    case HloOpcode::kSelectAndScatter:
      if (called.size() == 2) {
        out->push_back(absl::StrCat("select=", name(called[0])));
        out->push_back(absl::StrCat("scatter=", name(called[1])));
        return;
      }
      break;
    case HloOpcode::kConditional: {
      const bool pred =
          instruction.operand_count() > 0 && instruction.operand(0)->shape().element_type() == PRED;
      if (pred && called.size() == 2) {
        out->push_back(absl::StrCat("true_computation=", name(called[0])));
        out->push_back(absl::StrCat("false_computation=", name(called[1])));
      } else {
        out->push_back(absl::StrCat("branch_computations={", join(", "), "}"));
      }
      return;
    }
    case HloOpcode::kCall:
    case HloOpcode::kMap:
    case HloOpcode::kReduceWindow:
    case HloOpcode::kReduce:
    case HloOpcode::kAllReduce:
    case HloOpcode::kAllReduceStart:
    case HloOpcode::kCollectiveReduce:
    case HloOpcode::kReduceScatter:
    case HloOpcode::kScatter:
    case HloOpcode::kSort:
      if (called.size() == 1) {
        out->push_back(absl::StrCat("to_apply=", name(called[0])));
      } else if (!called.empty()) {
        out->push_back(absl::StrCat("calls=", join(", ")));
      }
      if (instruction.opcode() == HloOpcode::kCall && instruction.attrs().is_composite) {
        out->push_back("is_composite=true");
      }
      return;
    case HloOpcode::kCustomCall:
      if (!called.empty()) {
        out->push_back(absl::StrCat("called_computations={", join(", "), "}"));
      }
      return;
    default:
      break;
  }
  if (!called.empty()) out->push_back(absl::StrCat("calls=", join(", ")));
}

}  // namespace printer_internal
}  // namespace tessera
